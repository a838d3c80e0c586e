//! Sliding-window operations (NNEF 1.0.5 §4.3.1, §4.3.2, §4.9.3): `conv`, `deconv`, `box`,
//! `debox`, and direct rules for the compounds `avg_pool` (= normalized `box`) and `max_pool`
//! (the maximum `sample`d at the `argmax_pool` index, i.e. the window maximum).
//!
//! - `conv`: HLO `convolution`, `dim_labels=bf01_oi01->bf01`, `feature_group_count = groups`
//!   (`groups = 0`: one group per input channel), the bias broadcast from the left and added.
//! - `deconv`: the transposed convolution: the input dilated by the stride (`lhs_dilate`), the
//!   kernel reversed in its spatial dimensions, its two leading dimensions read as input and
//!   output features (`io01`; regrouped for `groups > 1`), padding as in [`super::border`].
//! - `box` / `debox`: `reduce-window` sums (`debox` over the stride-dilated input).
//! - borders: `constant` is the window's zero padding; `replicate`, `reflect`, `reflect-even`
//!   extend the input explicitly first; `ignore` excludes the border: from maxima (padding with
//!   −∞) and from the divisor of normalized sums (the count of in-range taps).

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{ConvolutionDimensionNumbers, Opcode, Window};

use super::border::{Border, Sliding};
use super::{attrs, fail, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation, Value};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("conv", conv),
    ("deconv", deconv),
    ("box", |l, op| {
        let normalize = attrs::logical(op, "normalize")?;
        window_sum(l, op, normalize)
    }),
    ("avg_pool", |l, op| window_sum(l, op, true)),
    ("debox", debox),
    ("max_pool", max_pool),
];

const F32: ElementType = ElementType::F32;

/// The number of groups: `groups`, or `channels` when `groups = 0` (depth-wise).
fn groups(op: &Operation, channels: i64) -> Result<i64, NnefError> {
    match attrs::integer(op, "groups")? {
        0 => Ok(channels),
        g if g > 0 => Ok(g),
        g => Err(fail(op, format!("groups must be non-negative, found {g}"))),
    }
}

/// `(input, filter)` of a (de)convolution, checked to have equal ranks of at least 3.
fn input_and_filter(
    l: &mut Lowerer<'_>,
    op: &Operation,
) -> Result<(usize, usize, Vec<i64>, Vec<i64>), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let w = l.input(op, "filter", DataType::Scalar)?;
    let (xd, wd) = (l.dims(x), l.dims(w));
    if xd.len() < 3 || wd.len() != xd.len() {
        return Err(fail(
            op,
            format!("input {xd:?} and filter {wd:?} must have the same rank, at least 3"),
        ));
    }
    Ok((x, w, xd, wd))
}

/// `y + bias`, the bias broadcast from the left (`[1, C]` over `[N, C, ...]`); a literal 0.0
/// bias adds nothing.
fn add_bias(l: &mut Lowerer<'_>, op: &Operation, y: usize) -> Result<usize, NnefError> {
    match op.argument("bias") {
        None | Some(Value::Integer(0)) => Ok(y),
        Some(Value::Scalar(v)) if *v == 0.0 => Ok(y),
        Some(_) => {
            let b = l.input(op, "bias", DataType::Scalar)?;
            let dims = l.dims(y);
            let b = l.broadcast_to(op, b, &dims)?;
            l.b.binary(Opcode::Add, y, b).at(op)
        }
    }
}

/// Padding pairs over all dimensions: none for the first `lead`, then `spatial`.
fn lead_pads(lead: usize, spatial: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut pads = vec![(0, 0); lead];
    pads.extend_from_slice(spatial);
    pads
}

fn conv(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let (x, w, xd, wd) = input_and_filter(l, op)?;
    let n = xd.len() - 2;
    let border = Border::read(op, Border::FILLING)?;
    let g = groups(op, xd[1])?;
    if xd[1] % g != 0 || wd[1] * g != xd[1] || wd[0] % g != 0 {
        return Err(fail(
            op,
            format!("filter {wd:?} does not fit input {xd:?} with {g} group(s)"),
        ));
    }
    let geo = Sliding::read(op, &wd[2..], &xd[2..], None)?;
    let (x, geo) = if border == Border::Constant {
        (x, geo)
    } else {
        let pads = lead_pads(2, &geo.positive_padding());
        (l.extend(op, x, &pads, border, 0.0)?, geo.negative_padding())
    };
    let dn = ConvolutionDimensionNumbers::default_for_spatial(n);
    let y =
        l.b.convolution(x, w, &geo.basic_window(), &dn, g, 1, None)
            .at(op)?;
    let y = add_bias(l, op, y)?;
    l.bind(op, "output", y)
}

fn deconv(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let (x, w, xd, wd) = input_and_filter(l, op)?;
    let n = xd.len() - 2;
    let out = l.result_dims(op, "output")?;
    if out.len() != xd.len() {
        return Err(fail(
            op,
            format!("output {out:?} must have the rank of input {xd:?}"),
        ));
    }
    let border = Border::read(op, Border::FILLING)?;
    let g = groups(op, out[1])?;
    if wd[0] != xd[1] || xd[1] % g != 0 || wd[1] * g != out[1] {
        return Err(fail(
            op,
            format!("filter {wd:?} does not map input {xd:?} to output {out:?} with {g} group(s)"),
        ));
    }
    let mut geo = Sliding::read(op, &wd[2..], &out[2..], Some(&xd[2..]))?;
    let (mut x, mut down) = (x, xd[2..].to_vec());
    if border != Border::Constant {
        (x, down) = extend_reverse(l, op, x, &mut geo, &down, &out[2..], border, 2)?;
    }
    let spatial: Vec<i64> = (2..n as i64 + 2).collect();
    let mut k = l.b.reverse(w, &spatial).at(op)?;
    if g > 1 {
        // [c, C/G, f...] -> [G, c/G, C/G, f...] -> [c/G, G, C/G, f...] -> [c/G, C, f...]
        let (c, co) = (wd[0], wd[1]);
        let mut split = vec![g, c / g, co];
        split.extend_from_slice(&wd[2..]);
        k = l.reshape(op, k, &split)?;
        let mut perm = vec![1, 0, 2];
        perm.extend(3..n as i64 + 3);
        k = l.b.transpose(k, &perm).at(op)?;
        let mut merged = vec![c / g, g * co];
        merged.extend_from_slice(&wd[2..]);
        k = l.reshape(op, k, &merged)?;
    }
    let dn = ConvolutionDimensionNumbers {
        kernel_input_feature_dimension: 0,
        kernel_output_feature_dimension: 1,
        ..ConvolutionDimensionNumbers::default_for_spatial(n)
    };
    let window = geo.reverse_window(&down, &out[2..]);
    let y = l.b.convolution(x, k, &window, &dn, g, 1, None).at(op)?;
    let y = add_bias(l, op, y)?;
    l.bind(op, "output", y)
}

/// For a reverse operation with a filling border: extends the (down-scaled) input by the
/// elements its window reads outside it, shifting the padding accordingly. Dimensions before
/// `lead` are not windowed. Returns the extended input and its windowed extents.
#[allow(clippy::too_many_arguments)]
pub(super) fn extend_reverse(
    l: &mut Lowerer<'_>,
    op: &Operation,
    x: usize,
    geo: &mut Sliding,
    down: &[i64],
    up: &[i64],
    border: Border,
    lead: usize,
) -> Result<(usize, Vec<i64>), NnefError> {
    let reach = geo.reverse_reach(down, up);
    let x = l.extend(op, x, &lead_pads(lead, &reach), border, 0.0)?;
    let mut down = down.to_vec();
    for (k, &(before, after)) in reach.iter().enumerate() {
        geo.padding[k].0 += before * geo.stride[k];
        down[k] += before + after;
    }
    Ok((x, down))
}

/// A `reduce-window` of one f32 operand with the scalar reducer `opcode` and init `init`.
fn reduce_window(
    l: &mut Lowerer<'_>,
    op: &Operation,
    x: usize,
    opcode: Opcode,
    init: f64,
    window: &Window,
) -> Result<usize, NnefError> {
    let reducer = l.reducer(op, opcode, F32)?;
    let init = l.scalar(op, F32, init)?;
    l.b.reduce_window(&[x], &[init], &reducer, window).at(op)
}

/// The window `size` of a box or pooling operation over every dimension of `dims`.
fn size(op: &Operation, dims: &[i64]) -> Result<Vec<i64>, NnefError> {
    let size = attrs::integers(op, "size")?;
    if size.len() != dims.len() {
        return Err(fail(
            op,
            format!(
                "'size' has {} items for an input of rank {}",
                size.len(),
                dims.len()
            ),
        ));
    }
    Ok(size)
}

/// `box` (and `avg_pool`): window sums, divided by the kernel volume (or, for `ignore`, by the
/// number of in-range taps) when `normalize`.
fn window_sum(l: &mut Lowerer<'_>, op: &Operation, normalize: bool) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(x);
    let size = size(op, &d)?;
    let border = Border::read(op, Border::ALL)?;
    let geo = Sliding::read(op, &size, &d, None)?;
    let (xe, window) = match border {
        Border::Constant | Border::Ignore => (x, geo.basic_window()),
        _ => (
            l.extend(op, x, &geo.positive_padding(), border, 0.0)?,
            geo.negative_padding().basic_window(),
        ),
    };
    let mut y = reduce_window(l, op, xe, Opcode::Add, 0.0, &window)?;
    if normalize {
        let divisor = if border == Border::Ignore {
            let ones = l.full(op, F32, 1.0, &d)?;
            reduce_window(l, op, ones, Opcode::Add, 0.0, &window)?
        } else {
            let volume = size.iter().product::<i64>() as f64;
            let dims = l.dims(y);
            l.full(op, F32, volume, &dims)?
        };
        y = l.b.binary(Opcode::Divide, y, divisor).at(op)?;
    }
    l.bind(op, "output", y)
}

/// `debox`: the reverse of `box`, a window sum over the stride-dilated input.
fn debox(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(x);
    let out = l.result_dims(op, "output")?;
    let size = size(op, &d)?;
    let normalize = attrs::logical(op, "normalize")?;
    let border = Border::read(op, Border::ALL)?;
    let geo = Sliding::read(op, &size, &out, Some(&d))?;
    let (xe, window) = match border {
        Border::Constant | Border::Ignore => (x, geo.reverse_window(&d, &out)),
        _ => {
            let mut g = geo.clone();
            let (xe, down) = extend_reverse(l, op, x, &mut g, &d, &out, border, 0)?;
            (xe, g.reverse_window(&down, &out))
        }
    };
    let mut y = reduce_window(l, op, xe, Opcode::Add, 0.0, &window)?;
    if normalize {
        let divisor = if border == Border::Ignore {
            let ones = l.full(op, F32, 1.0, &d)?;
            let window = geo.reverse_window(&d, &out);
            reduce_window(l, op, ones, Opcode::Add, 0.0, &window)?
        } else {
            let volume = size.iter().product::<i64>() as f64;
            l.full(op, F32, volume, &out)?
        };
        y = l.b.binary(Opcode::Divide, y, divisor).at(op)?;
    }
    l.bind(op, "output", y)
}

/// `max_pool`: the window maximum; `ignore` pads with −∞ (the border never wins), `constant`
/// with 0 (which takes part), the other borders with their values.
fn max_pool(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(x);
    let size = size(op, &d)?;
    let border = Border::read(op, Border::ALL)?;
    let geo = Sliding::read(op, &size, &d, None)?;
    let (xe, window) = match border {
        Border::Ignore => (x, geo.basic_window()),
        _ => (
            l.extend(op, x, &geo.positive_padding(), border, 0.0)?,
            geo.negative_padding().basic_window(),
        ),
    };
    let y = reduce_window(l, op, xe, Opcode::Maximum, f64::NEG_INFINITY, &window)?;
    l.bind(op, "output", y)
}
