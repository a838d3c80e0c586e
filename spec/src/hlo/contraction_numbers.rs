//! The dimension numbers and windows of the contraction and window operations (seed 004, Dot,
//! DotGeneral, Conv / ConvWithGeneralPadding, ReduceWindow, SelectAndScatter; XLA's
//! `DotDimensionNumbers`, `ConvolutionDimensionNumbers` and `Window`), read from and written to
//! HLO attributes the same way by shape inference, the builder, the backends and the generators.
//!
//! HLO text forms (as XLA prints them):
//! - dot: `lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},
//!   rhs_contracting_dims={1}` (batch lists omitted when empty);
//! - convolution: `dim_labels=b01f_01io->b01f` (lhs letters `b`, `f`; rhs `i`, `o`; output `b`,
//!   `f`; spatial dimensions as digits `0`, `1`, ...; a letter's position is its dimension number);
//! - windows: `window={size=3x3 stride=2x1 pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=1x1
//!   rhs_reversal=0x1}` (fields equal to their default for every dimension are omitted: stride 1,
//!   padding `0_0`, dilations 1, no reversal; `window={}` has no dimensions).
//!
//! These structs only carry the numbers; which ones are valid for given operand shapes is checked
//! by `crate::shape_inference` (dot, convolution, reduce-window, select-and-scatter).

use super::dimension_numbers::ints;
use super::ir::{AttrValue, Attribute, HloInstruction, Opcode};
use std::fmt;
use std::str::FromStr;

/// `dot`'s dimension numbers (seed 004, DotGeneral): which lhs/rhs dimensions are batch
/// dimensions (paired by position) and which are contracted (paired by position).
///
/// The result dimensions are the batch dimensions (in `lhs_batch_dimensions` order), then the lhs
/// free dimensions, then the rhs free dimensions (each in increasing order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDimensionNumbers {
    pub lhs_batch_dimensions: Vec<i64>,
    pub rhs_batch_dimensions: Vec<i64>,
    pub lhs_contracting_dimensions: Vec<i64>,
    pub rhs_contracting_dimensions: Vec<i64>,
}

fn optional_ints(attributes: &[Attribute], name: &str) -> Result<Vec<i64>, String> {
    if attributes.iter().any(|a| a.name == name) {
        ints(attributes, name)
    } else {
        Ok(Vec::new())
    }
}

fn ints_attr(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

impl DotDimensionNumbers {
    /// Reads `lhs_batch_dims`, `lhs_contracting_dims`, `rhs_batch_dims` and
    /// `rhs_contracting_dims` from an attribute list; an absent list is empty (XLA omits empty
    /// batch lists).
    ///
    /// Errors: one of them present but not a list of integers.
    pub fn from_attributes(attributes: &[Attribute]) -> Result<Self, String> {
        Ok(DotDimensionNumbers {
            lhs_batch_dimensions: optional_ints(attributes, "lhs_batch_dims")?,
            rhs_batch_dimensions: optional_ints(attributes, "rhs_batch_dims")?,
            lhs_contracting_dimensions: optional_ints(attributes, "lhs_contracting_dims")?,
            rhs_contracting_dimensions: optional_ints(attributes, "rhs_contracting_dims")?,
        })
    }

    /// Reads the dimension numbers of a `dot` instruction (see
    /// [`DotDimensionNumbers::from_attributes`]).
    pub fn from_instruction(i: &HloInstruction) -> Result<Self, String> {
        Self::from_attributes(&i.attributes)
    }

    /// The attributes in XLA's print order: `lhs_batch_dims` (only when non-empty),
    /// `lhs_contracting_dims`, `rhs_batch_dims` (only when non-empty), `rhs_contracting_dims`.
    pub fn to_attributes(&self) -> Vec<Attribute> {
        let mut out = Vec::with_capacity(4);
        if !self.lhs_batch_dimensions.is_empty() {
            out.push(ints_attr("lhs_batch_dims", &self.lhs_batch_dimensions));
        }
        out.push(ints_attr(
            "lhs_contracting_dims",
            &self.lhs_contracting_dimensions,
        ));
        if !self.rhs_batch_dimensions.is_empty() {
            out.push(ints_attr("rhs_batch_dims", &self.rhs_batch_dimensions));
        }
        out.push(ints_attr(
            "rhs_contracting_dims",
            &self.rhs_contracting_dimensions,
        ));
        out
    }

    /// The dimension numbers of seed 004's `Dot` for operands of rank `lhs_rank` and `rhs_rank`
    /// (1 or 2): contract the last dimension of lhs with the first of rhs, no batch dimensions.
    pub fn for_dot(lhs_rank: usize) -> Self {
        DotDimensionNumbers {
            lhs_contracting_dimensions: vec![lhs_rank.saturating_sub(1) as i64],
            rhs_contracting_dimensions: vec![0],
            ..Default::default()
        }
    }
}

/// `convolution`'s dimension numbers (seed 004, ConvWithGeneralPadding; XLA's
/// `ConvolutionDimensionNumbers`): the dimension of each operand (and of the output) that is the
/// batch, the feature, and spatial dimension `k`.
///
/// In `dim_labels` text the position of a letter is the dimension number: `b01f_01io->b01f`
/// means lhs batch 0, spatial 1 and 2, feature 3; rhs spatial 0 and 1, input feature 2, output
/// feature 3; output as lhs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvolutionDimensionNumbers {
    pub input_batch_dimension: i64,
    pub input_feature_dimension: i64,
    pub input_spatial_dimensions: Vec<i64>,
    pub kernel_input_feature_dimension: i64,
    pub kernel_output_feature_dimension: i64,
    pub kernel_spatial_dimensions: Vec<i64>,
    pub output_batch_dimension: i64,
    pub output_feature_dimension: i64,
    pub output_spatial_dimensions: Vec<i64>,
}

/// One `dim_labels` part (`b01f`): the two letter positions and the spatial positions in digit
/// order. `offset` is the part's byte offset in the whole text (for error positions).
fn labels_part(
    part: &str,
    offset: usize,
    letters: [char; 2],
    which: &str,
) -> Result<(i64, i64, Vec<i64>), (usize, String)> {
    let mut first = None;
    let mut second = None;
    let mut spatial: Vec<Option<i64>> = Vec::new();
    let digits: Vec<u32> = part.chars().filter_map(|c| c.to_digit(10)).collect();
    let n_spatial = digits.len();
    spatial.resize(n_spatial, None);
    for (pos, (at, ch)) in part.char_indices().enumerate() {
        let at = offset + at;
        let pos = pos as i64;
        let slot = if ch == letters[0] {
            &mut first
        } else if ch == letters[1] {
            &mut second
        } else if let Some(d) = ch.to_digit(10) {
            let d = d as usize;
            if d >= n_spatial {
                return Err((
                    at,
                    format!(
                        "{which} spatial dimension `{d}` out of range: with {n_spatial} spatial \
                         dimensions the digits are 0..{}",
                        n_spatial.saturating_sub(1)
                    ),
                ));
            }
            &mut spatial[d]
        } else {
            return Err((
                at,
                format!(
                    "unexpected `{ch}` in the {which} labels: expected `{}`, `{}` or a spatial \
                     digit",
                    letters[0], letters[1]
                ),
            ));
        };
        if slot.is_some() {
            return Err((at, format!("`{ch}` appears twice in the {which} labels")));
        }
        *slot = Some(pos);
    }
    let missing = |l: char| (offset, format!("the {which} labels `{part}` lack `{l}`"));
    let first = first.ok_or_else(|| missing(letters[0]))?;
    let second = second.ok_or_else(|| missing(letters[1]))?;
    // Every digit is < n_spatial and none repeats, so each slot is filled.
    let spatial = spatial.into_iter().flatten().collect();
    Ok((first, second, spatial))
}

/// Parses `b01f_01io->b01f`; errors carry the byte offset in `text` of the offending character.
pub(crate) fn parse_dim_labels(text: &str) -> Result<ConvolutionDimensionNumbers, (usize, String)> {
    let expected = "expected `lhs_rhs->out` such as `b01f_01io->b01f`";
    let (inputs, output) = text
        .split_once("->")
        .ok_or_else(|| (0, format!("missing `->`: {expected}")))?;
    let (lhs, rhs) = inputs.split_once('_').ok_or_else(|| {
        (
            0,
            format!("missing `_` between lhs and rhs labels: {expected}"),
        )
    })?;
    let rhs_at = lhs.len() + 1;
    let out_at = inputs.len() + 2;
    let (ib, if_, is) = labels_part(lhs, 0, ['b', 'f'], "lhs")?;
    let (ki, ko, ks) = labels_part(rhs, rhs_at, ['i', 'o'], "rhs")?;
    let (ob, of, os) = labels_part(output, out_at, ['b', 'f'], "output")?;
    if ks.len() != is.len() {
        return Err((
            rhs_at,
            format!(
                "the rhs labels have {} spatial dimensions, the lhs labels {}",
                ks.len(),
                is.len()
            ),
        ));
    }
    if os.len() != is.len() {
        return Err((
            out_at,
            format!(
                "the output labels have {} spatial dimensions, the lhs labels {}",
                os.len(),
                is.len()
            ),
        ));
    }
    Ok(ConvolutionDimensionNumbers {
        input_batch_dimension: ib,
        input_feature_dimension: if_,
        input_spatial_dimensions: is,
        kernel_input_feature_dimension: ki,
        kernel_output_feature_dimension: ko,
        kernel_spatial_dimensions: ks,
        output_batch_dimension: ob,
        output_feature_dimension: of,
        output_spatial_dimensions: os,
    })
}

/// Writes one labels part, or `None` when the numbers do not name each position exactly once.
fn write_labels(first: (char, i64), second: (char, i64), spatial: &[i64]) -> Option<String> {
    let rank = spatial.len() + 2;
    let mut out = vec![None; rank];
    let mut put = |pos: i64, ch: char| {
        let slot = usize::try_from(pos).ok().and_then(|p| out.get_mut(p))?;
        if slot.is_some() {
            return None;
        }
        *slot = Some(ch);
        Some(())
    };
    put(first.1, first.0)?;
    put(second.1, second.0)?;
    for (k, &pos) in spatial.iter().enumerate() {
        // More than 10 spatial dimensions cannot be written with digits.
        put(pos, char::from_digit(u32::try_from(k).ok()?, 10)?)?;
    }
    out.into_iter().collect()
}

impl ConvolutionDimensionNumbers {
    /// Parses HLO `dim_labels` text such as `b01f_01io->b01f` (lhs: `b`, `f` and spatial digits;
    /// rhs: `i`, `o` and digits; output: `b`, `f` and digits).
    ///
    /// Errors: a missing `_` or `->`, an unknown character, a letter missing or repeated, a digit
    /// repeated or out of range (the digits of a part are exactly `0..n`), or parts with different
    /// numbers of spatial dimensions (the message names the part).
    pub fn from_dim_labels(text: &str) -> Result<Self, String> {
        parse_dim_labels(text).map_err(|(_, m)| m)
    }

    /// The `dim_labels` text (`b01f_01io->b01f`). When the numbers are not a valid labelling
    /// (see [`ConvolutionDimensionNumbers::validate`]), the text is the `Debug` form in braces,
    /// which does not parse as labels.
    pub fn to_dim_labels(&self) -> String {
        let parts = (|| {
            Some(format!(
                "{}_{}->{}",
                write_labels(
                    ('b', self.input_batch_dimension),
                    ('f', self.input_feature_dimension),
                    &self.input_spatial_dimensions
                )?,
                write_labels(
                    ('i', self.kernel_input_feature_dimension),
                    ('o', self.kernel_output_feature_dimension),
                    &self.kernel_spatial_dimensions
                )?,
                write_labels(
                    ('b', self.output_batch_dimension),
                    ('f', self.output_feature_dimension),
                    &self.output_spatial_dimensions
                )?,
            ))
        })();
        parts.unwrap_or_else(|| format!("{{{self:?}}}"))
    }

    /// Checks that the numbers are a labelling: the three parts have the same number of spatial
    /// dimensions (at most 10) and in each part every position `0..spatial + 2` is named exactly
    /// once.
    ///
    /// Errors: a message naming the part at fault.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.input_spatial_dimensions.len();
        if self.kernel_spatial_dimensions.len() != n || self.output_spatial_dimensions.len() != n {
            return Err(format!(
                "the input, kernel and output have {}, {} and {} spatial dimensions; expected the \
                 same number",
                n,
                self.kernel_spatial_dimensions.len(),
                self.output_spatial_dimensions.len()
            ));
        }
        let check = |what: &str, first: i64, second: i64, spatial: &[i64]| {
            write_labels(('x', first), ('y', second), spatial)
                .map(|_| ())
                .ok_or_else(|| {
                    format!(
                        "the {what} dimension numbers ({first}, {second}, spatial {spatial:?}) do \
                         not name each of the dimensions 0..{} exactly once",
                        spatial.len() + 2
                    )
                })
        };
        check(
            "input",
            self.input_batch_dimension,
            self.input_feature_dimension,
            &self.input_spatial_dimensions,
        )?;
        check(
            "kernel",
            self.kernel_input_feature_dimension,
            self.kernel_output_feature_dimension,
            &self.kernel_spatial_dimensions,
        )?;
        check(
            "output",
            self.output_batch_dimension,
            self.output_feature_dimension,
            &self.output_spatial_dimensions,
        )
    }

    /// XLA's default numbering for `n` spatial dimensions (`bf01_oi01->bf01`): batch 0, feature
    /// 1, spatial `2..`; kernel output feature 0, input feature 1, spatial `2..`.
    pub fn default_for_spatial(n: usize) -> Self {
        let spatial: Vec<i64> = (2..n as i64 + 2).collect();
        ConvolutionDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: 1,
            input_spatial_dimensions: spatial.clone(),
            kernel_input_feature_dimension: 1,
            kernel_output_feature_dimension: 0,
            kernel_spatial_dimensions: spatial.clone(),
            output_batch_dimension: 0,
            output_feature_dimension: 1,
            output_spatial_dimensions: spatial,
        }
    }

    /// Reads `dim_labels=` of a `convolution` instruction. Without `dim_labels`, XLA's default
    /// numbering ([`ConvolutionDimensionNumbers::default_for_spatial`]) for the window's number
    /// of dimensions.
    ///
    /// Errors: `dim_labels` of another value type, or absent together with a malformed window.
    pub fn from_instruction(i: &HloInstruction) -> Result<Self, String> {
        match i.attribute("dim_labels") {
            Some(AttrValue::DimLabels(d)) => Ok(d.clone()),
            Some(AttrValue::Raw(s) | AttrValue::Str(s) | AttrValue::Enum(s)) => {
                Self::from_dim_labels(s)
            }
            Some(v) => Err(format!("`dim_labels={v}` is not dimension labels")),
            None => Ok(Self::default_for_spatial(
                Window::from_instruction(i)?.dimensions.len(),
            )),
        }
    }

    /// The `dim_labels` attribute.
    pub fn to_attribute(&self) -> Attribute {
        Attribute {
            name: "dim_labels".into(),
            value: AttrValue::DimLabels(self.clone()),
        }
    }
}

impl fmt::Display for ConvolutionDimensionNumbers {
    /// The `dim_labels` text (see [`ConvolutionDimensionNumbers::to_dim_labels`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_dim_labels())
    }
}

impl FromStr for ConvolutionDimensionNumbers {
    type Err = String;
    /// See [`ConvolutionDimensionNumbers::from_dim_labels`].
    fn from_str(s: &str) -> Result<Self, String> {
        Self::from_dim_labels(s)
    }
}

/// One dimension of a window (XLA's `WindowDimension`; seed 004, ReduceWindow and Conv): the
/// window `size` (elements), the `stride` between window positions (elements), `padding_low` /
/// `padding_high` added to the base (elements; negative values cut), `window_dilation`
/// (`rhs_dilate`: one window element every `window_dilation` base elements), `base_dilation`
/// (`lhs_dilate`: `base_dilation - 1` holes between base elements) and `window_reversal`
/// (`rhs_reversal`: the kernel is read backwards; convolution only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowDimension {
    pub size: i64,
    pub stride: i64,
    pub padding_low: i64,
    pub padding_high: i64,
    pub window_dilation: i64,
    pub base_dilation: i64,
    pub window_reversal: bool,
}

impl WindowDimension {
    /// A window dimension of `size` elements with the defaults of every other field (stride 1,
    /// no padding, dilations 1, no reversal).
    pub fn new(size: i64) -> Self {
        WindowDimension {
            size,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        }
    }
}

/// A window (XLA's `Window`): one [`WindowDimension`] per dimension of the windowed operand
/// (reduce-window, select-and-scatter) or per spatial dimension (convolution).
///
/// `Display` writes the HLO text without `window=`: `{size=3x3 stride=2x1 pad=1_1x0_-1
/// lhs_dilate=1x2 rhs_dilate=1x1 rhs_reversal=0x1}`, omitting a field whose every dimension has
/// the default; `{}` for no dimensions. `FromStr` reads it back (omitted fields default).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Window {
    pub dimensions: Vec<WindowDimension>,
}

impl Window {
    /// A window with these sizes and every other field default.
    pub fn from_sizes(sizes: &[i64]) -> Self {
        Window {
            dimensions: sizes.iter().map(|&s| WindowDimension::new(s)).collect(),
        }
    }

    /// Reads `window=` of an instruction. A `convolution` without `window=` has the empty window
    /// (as in XLA's parser).
    ///
    /// Errors: `window=` of another value type, or missing on another opcode.
    pub fn from_instruction(i: &HloInstruction) -> Result<Self, String> {
        match i.attribute("window") {
            Some(AttrValue::Window(w)) => Ok(w.clone()),
            Some(AttrValue::Raw(s)) => s.parse(),
            Some(v) => Err(format!("`window={v}` is not a window")),
            None if i.opcode == Opcode::Convolution => Ok(Window::default()),
            None => Err("missing `window=`".into()),
        }
    }

    /// The `window` attribute.
    pub fn to_attribute(&self) -> Attribute {
        Attribute {
            name: "window".into(),
            value: AttrValue::Window(self.clone()),
        }
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.dimensions;
        f.write_str("{")?;
        if !d.is_empty() {
            let join = |f: &mut fmt::Formatter<'_>,
                        name: &str,
                        item: &dyn Fn(&WindowDimension) -> String|
             -> fmt::Result {
                write!(f, "{name}=")?;
                for (i, x) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str("x")?;
                    }
                    f.write_str(&item(x))?;
                }
                Ok(())
            };
            join(f, "size", &|x| x.size.to_string())?;
            if d.iter().any(|x| x.stride != 1) {
                f.write_str(" ")?;
                join(f, "stride", &|x| x.stride.to_string())?;
            }
            if d.iter().any(|x| x.padding_low != 0 || x.padding_high != 0) {
                f.write_str(" ")?;
                join(f, "pad", &|x| {
                    format!("{}_{}", x.padding_low, x.padding_high)
                })?;
            }
            if d.iter().any(|x| x.base_dilation != 1) {
                f.write_str(" ")?;
                join(f, "lhs_dilate", &|x| x.base_dilation.to_string())?;
            }
            if d.iter().any(|x| x.window_dilation != 1) {
                f.write_str(" ")?;
                join(f, "rhs_dilate", &|x| x.window_dilation.to_string())?;
            }
            if d.iter().any(|x| x.window_reversal) {
                f.write_str(" ")?;
                join(f, "rhs_reversal", &|x| {
                    u8::from(x.window_reversal).to_string()
                })?;
            }
        }
        f.write_str("}")
    }
}

impl FromStr for Window {
    type Err = String;
    /// Parses `{size=3x3 stride=2x1 pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=1x1 rhs_reversal=0x1}`
    /// (see [`Window`]).
    ///
    /// Errors: missing braces, an unknown or repeated field, a field without `size`, a value that
    /// is not `x`-separated integers (`low_high` pairs for `pad`, `0`/`1` for `rhs_reversal`), or
    /// a field with another number of dimensions than `size`.
    fn from_str(s: &str) -> Result<Self, String> {
        parse_window(s).map_err(|(_, m)| m)
    }
}

const WINDOW_FIELDS: &[&str] = &[
    "size",
    "stride",
    "pad",
    "lhs_dilate",
    "rhs_dilate",
    "rhs_reversal",
];

/// Parses window text; errors carry the byte offset in `text` of the offending field or value.
pub(crate) fn parse_window(text: &str) -> Result<Window, (usize, String)> {
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| {
            (
                0,
                "expected `{size=...}` (a window in braces, fields separated by spaces)".into(),
            )
        })?;
    // (field index, byte offset of the value, per-dimension value texts)
    let mut fields: Vec<Option<(usize, Vec<&str>)>> = vec![None; WINDOW_FIELDS.len()];
    let mut rest = inner;
    let mut at = 1;
    loop {
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        rest = trimmed;
        if rest.is_empty() {
            break;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let item = &rest[..end];
        let (name, value) = item.split_once('=').ok_or_else(|| {
            (
                at,
                format!("expected `field=value` in the window, found `{item}`"),
            )
        })?;
        let k = WINDOW_FIELDS
            .iter()
            .position(|f| *f == name)
            .ok_or_else(|| {
                (
                    at,
                    format!(
                        "unknown window field `{name}`: expected one of {}",
                        WINDOW_FIELDS.join(", ")
                    ),
                )
            })?;
        if fields[k].is_some() {
            return Err((at, format!("window field `{name}` given twice")));
        }
        fields[k] = Some((at + name.len() + 1, value.split('x').collect()));
        at += end;
        rest = &rest[end..];
    }
    let Some((_, sizes)) = &fields[0] else {
        if let Some((pos, _)) = fields.iter().flatten().next() {
            return Err((*pos, "a window with fields needs `size=`".into()));
        }
        return Ok(Window::default());
    };
    let n = sizes.len();
    let mut dims = vec![WindowDimension::new(0); n];
    for (k, field) in fields.iter().enumerate() {
        let Some((pos, values)) = field else { continue };
        let name = WINDOW_FIELDS[k];
        if values.len() != n {
            return Err((
                *pos,
                format!(
                    "window field `{name}` has {} dimensions, `size` has {n}",
                    values.len()
                ),
            ));
        }
        for (d, v) in dims.iter_mut().zip(values) {
            let int = |t: &str| {
                t.parse::<i64>().map_err(|_| {
                    (
                        *pos,
                        format!("window field `{name}`: `{t}` is not an integer"),
                    )
                })
            };
            match name {
                "size" => d.size = int(v)?,
                "stride" => d.stride = int(v)?,
                "lhs_dilate" => d.base_dilation = int(v)?,
                "rhs_dilate" => d.window_dilation = int(v)?,
                "pad" => {
                    let (lo, hi) = v.split_once('_').ok_or_else(|| {
                        (*pos, format!("window field `pad`: `{v}` is not `low_high`"))
                    })?;
                    d.padding_low = int(lo)?;
                    d.padding_high = int(hi)?;
                }
                _ => {
                    d.window_reversal = match *v {
                        "0" => false,
                        "1" => true,
                        _ => {
                            return Err((
                                *pos,
                                format!("window field `rhs_reversal`: `{v}` is not `0` or `1`"),
                            ))
                        }
                    }
                }
            }
        }
    }
    Ok(Window { dimensions: dims })
}

#[cfg(test)]
#[path = "contraction_numbers_tests.rs"]
mod tests;
