//! Literals: values of a shape, stored as bytes in *physical* order (layout and padding honoured).
//!
//! Every element is handled through its raw bits (`u128`, little-endian in the buffer), so no
//! format loses information on the way in or out. Logical equality compares elements by
//! multi-index, never raw buffers. Printing follows HLO literal syntax
//! (`f32[2,3] {{1, 2, 3}, {4, 5, 6}}`).

use crate::element_type::{ElementType, FloatClass, FloatFormat};
use crate::index;
use crate::layout::{Layout, PaddingValue};
use crate::shape::{ArrayShape, Shape};
use std::fmt;

/// An array value: shape (with layout) and the elements' bytes in physical order.
///
/// A value whose dimensions are dynamic (seed 004, SetDimensionSize) keeps the buffer of its
/// static bound (`shape`) and carries its runtime sizes beside it, as XLA's literals do: the value
/// is the *logical array* of the runtime sizes, stored at the origin of the bound; elements beyond
/// a runtime size are padding whose contents are unspecified (see [`ArrayLiteral::logical_array`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayLiteral {
    shape: ArrayShape,
    data: Vec<u8>,
    /// Runtime size per dimension, in elements; `None` when every dimension has its bound size.
    runtime_dimensions: Option<Vec<i64>>,
}

/// A value of any shape: an array, a tuple of values, or a token.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    Array(ArrayLiteral),
    Tuple(Vec<Literal>),
    Token,
}

/// Reasons a literal cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    #[error("{got} values given for a shape of {expected} elements")]
    Count { got: usize, expected: usize },
    #[error("{got} bytes given for a physical buffer of {expected} bytes")]
    ByteCount { got: usize, expected: usize },
    #[error("element type {0} cannot hold this kind of value")]
    Kind(ElementType),
    #[error("invalid shape: {0}")]
    Shape(#[from] crate::shape::ShapeError),
    /// Runtime sizes that are not one per dimension within `[0, bound]`.
    #[error("runtime sizes {sizes:?} do not fit the bounds {bounds:?}")]
    RuntimeSizes { sizes: Vec<i64>, bounds: Vec<i64> },
}

/// The bits that fill padding positions for a padding value (seed 000, `padding_value`).
pub fn padding_bits(element_type: ElementType, value: PaddingValue) -> u128 {
    let ty = element_type;
    match value {
        PaddingValue::Unknown | PaddingValue::Zero => 0,
        PaddingValue::One => scalar_one_bits(ty),
        PaddingValue::Lowest | PaddingValue::Highest => {
            let highest = value == PaddingValue::Highest;
            if let Some((lo, hi)) = ty.integer_range() {
                let v = if highest { hi } else { lo };
                return ty.integer_to_bits(v).unwrap_or(0) as u128;
            }
            let f = ty.float_format().expect("non-integer types are floating");
            let top = f.infinity_bits().unwrap_or(f.max_finite_bits());
            let bits = if highest { top } else { top | sign_bit(f) };
            bits as u128 // complex: real part only, imaginary 0
        }
    }
}

fn sign_bit(f: FloatFormat) -> u64 {
    1u64 << (f.bit_width() - 1)
}

fn scalar_one_bits(ty: ElementType) -> u128 {
    if let Some(bits) = ty.integer_to_bits(1) {
        bits as u128
    } else {
        ty.float_format()
            .map(|f| f.encode(1.0) as u128)
            .unwrap_or(0)
    }
}

impl ArrayLiteral {
    /// A literal of the shape with every element zero (padding filled per the layout's padding value).
    pub fn zeros(shape: ArrayShape) -> ArrayLiteral {
        let width = shape.element_type.byte_width();
        let physical = index::physical_element_count(&shape);
        let mut lit = ArrayLiteral {
            data: vec![0u8; physical * width],
            shape,
            runtime_dimensions: None,
        };
        lit.fill_padding();
        lit
    }

    /// Builds a literal from raw element bits given in logical row-major order.
    ///
    /// Errors: the number of values differs from the shape's element count.
    pub fn from_bits(shape: ArrayShape, bits: &[u128]) -> Result<ArrayLiteral, LiteralError> {
        if bits.len() != shape.element_count() {
            return Err(LiteralError::Count {
                got: bits.len(),
                expected: shape.element_count(),
            });
        }
        let mut lit = ArrayLiteral::zeros(shape);
        for (pos, &b) in index::physical_positions(&lit.shape).iter().zip(bits) {
            lit.set_bits_linear(*pos, b);
        }
        Ok(lit)
    }

    /// Wraps a physical buffer (bytes in the layout's order, padding included).
    ///
    /// Errors: the byte count differs from the physical size of the shape.
    pub fn from_physical_bytes(
        shape: ArrayShape,
        data: Vec<u8>,
    ) -> Result<ArrayLiteral, LiteralError> {
        let expected = index::physical_element_count(&shape) * shape.element_type.byte_width();
        if data.len() != expected {
            return Err(LiteralError::ByteCount {
                got: data.len(),
                expected,
            });
        }
        Ok(ArrayLiteral {
            shape,
            data,
            runtime_dimensions: None,
        })
    }

    /// Builds a float literal from `f64` values (logical row-major), each rounded to nearest-even
    /// into the element type. Complex types take the values as real parts.
    pub fn from_f64s(shape: ArrayShape, values: &[f64]) -> Result<ArrayLiteral, LiteralError> {
        let ty = shape.element_type;
        let f = ty.float_format().ok_or(LiteralError::Kind(ty))?;
        let bits: Vec<u128> = values.iter().map(|&v| f.encode(v) as u128).collect();
        ArrayLiteral::from_bits(shape, &bits)
    }

    /// Builds a complex literal from `(re, im)` pairs (logical row-major).
    pub fn from_complex(
        shape: ArrayShape,
        values: &[(f64, f64)],
    ) -> Result<ArrayLiteral, LiteralError> {
        let ty = shape.element_type;
        if !ty.is_complex() {
            return Err(LiteralError::Kind(ty));
        }
        let f = ty.float_format().ok_or(LiteralError::Kind(ty))?;
        let bits: Vec<u128> = values
            .iter()
            .map(|&(re, im)| complex_bits(f, f.encode(re), f.encode(im)))
            .collect();
        ArrayLiteral::from_bits(shape, &bits)
    }

    /// Builds an integer or PRED literal from values, wrapping (two's complement) into the type.
    pub fn from_i128s(shape: ArrayShape, values: &[i128]) -> Result<ArrayLiteral, LiteralError> {
        let ty = shape.element_type;
        let bits: Option<Vec<u128>> = values
            .iter()
            .map(|&v| ty.integer_to_bits(v).map(u128::from))
            .collect();
        ArrayLiteral::from_bits(shape, &bits.ok_or(LiteralError::Kind(ty))?)
    }

    /// A scalar from raw bits.
    pub fn scalar_bits(element_type: ElementType, bits: u128) -> ArrayLiteral {
        let mut lit = ArrayLiteral::zeros(ArrayShape::scalar(element_type));
        lit.set_bits_linear(0, bits);
        lit
    }

    pub fn shape(&self) -> &ArrayShape {
        &self.shape
    }

    pub fn element_type(&self) -> ElementType {
        self.shape.element_type
    }

    /// The static sizes (for a dynamic dimension, its bound), in elements.
    pub fn dimensions(&self) -> &[i64] {
        &self.shape.dimensions
    }

    /// The runtime sizes set on a dynamic value (one per dimension, elements), or `None` when
    /// every dimension has its static size (seed 004, SetDimensionSize).
    pub fn runtime_dimensions(&self) -> Option<&[i64]> {
        self.runtime_dimensions.as_deref()
    }

    /// The sizes of the logical array: the runtime sizes when set, else the static ones.
    pub fn logical_dimensions(&self) -> &[i64] {
        self.runtime_dimensions
            .as_deref()
            .unwrap_or(&self.shape.dimensions)
    }

    /// The same buffer with runtime sizes `sizes` (elements, one per dimension, each in
    /// `[0, bound]`); sizes equal to the bounds make the value static again.
    ///
    /// Errors: [`LiteralError::RuntimeSizes`] when the count or a size does not fit.
    pub fn with_runtime_dimensions(mut self, sizes: &[i64]) -> Result<ArrayLiteral, LiteralError> {
        let bounds = &self.shape.dimensions;
        if sizes.len() != bounds.len() || sizes.iter().zip(bounds).any(|(&s, &b)| s < 0 || s > b) {
            return Err(LiteralError::RuntimeSizes {
                sizes: sizes.to_vec(),
                bounds: bounds.clone(),
            });
        }
        self.runtime_dimensions = (sizes != bounds.as_slice()).then(|| sizes.to_vec());
        Ok(self)
    }

    /// The logical array of a dynamic value as a static literal (dimensions = the runtime sizes,
    /// same element type and layout); a static value is returned as it is.
    pub fn logical_array(&self) -> ArrayLiteral {
        match &self.runtime_dimensions {
            None => self.clone(),
            Some(sizes) => self
                .leading_block(sizes)
                .expect("runtime sizes are checked against the bounds when set"),
        }
    }

    /// The static array of the elements at indices below `sizes` (one per dimension, each at
    /// most the dimension's size): a slice starting at the origin, same element type and layout.
    ///
    /// Errors: [`LiteralError::RuntimeSizes`] when `sizes` has the wrong rank or exceeds the
    /// dimensions.
    pub fn leading_block(&self, sizes: &[i64]) -> Result<ArrayLiteral, LiteralError> {
        if sizes.len() != self.shape.rank()
            || sizes
                .iter()
                .zip(&self.shape.dimensions)
                .any(|(&s, &d)| s < 0 || s > d)
        {
            return Err(LiteralError::RuntimeSizes {
                sizes: sizes.to_vec(),
                bounds: self.shape.dimensions.clone(),
            });
        }
        let mut shape = self.shape.clone();
        shape.dimensions = sizes.to_vec();
        shape.dynamic_dimensions = vec![false; sizes.len()];
        let mut out = ArrayLiteral::zeros(shape);
        index::for_each_index(sizes, |idx| out.set_bits(idx, self.get_bits(idx)));
        Ok(out)
    }

    /// Places the static array `logical` at the origin of a zero array of shape `bound` and sets
    /// the runtime sizes to `logical`'s dimensions (seed 004, SetDimensionSize: the inverse of
    /// [`ArrayLiteral::logical_array`]).
    ///
    /// Errors: [`LiteralError::RuntimeSizes`] when the element type or rank differs or a
    /// dimension of `logical` exceeds its bound.
    pub fn embed(logical: &ArrayLiteral, bound: ArrayShape) -> Result<ArrayLiteral, LiteralError> {
        let sizes = logical.logical_dimensions().to_vec();
        if logical.element_type() != bound.element_type {
            return Err(LiteralError::Kind(bound.element_type));
        }
        let mut out = ArrayLiteral::zeros(bound).with_runtime_dimensions(&sizes)?;
        index::for_each_index(&sizes, |idx| out.set_bits(idx, logical.get_bits(idx)));
        Ok(out)
    }

    /// True when `index` lies inside the runtime sizes (always for a static value).
    pub fn is_logical_index(&self, index: &[i64]) -> bool {
        match &self.runtime_dimensions {
            None => true,
            Some(sizes) => index.iter().zip(sizes).all(|(&i, &s)| i < s),
        }
    }

    /// The physical buffer (padding included), little-endian elements.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }

    /// The static shape and the physical buffer (runtime sizes, if any, are dropped).
    pub fn into_parts(self) -> (ArrayShape, Vec<u8>) {
        (self.shape, self.data)
    }

    /// Bits of the element at a physical (linear) position.
    pub fn get_bits_linear(&self, linear: usize) -> u128 {
        let w = self.shape.element_type.byte_width();
        let mut buf = [0u8; 16];
        buf[..w].copy_from_slice(&self.data[linear * w..(linear + 1) * w]);
        u128::from_le_bytes(buf)
    }

    /// Sets the bits of the element at a physical (linear) position (high bits beyond the width are dropped).
    pub fn set_bits_linear(&mut self, linear: usize, bits: u128) {
        let w = self.shape.element_type.byte_width();
        self.data[linear * w..(linear + 1) * w].copy_from_slice(&bits.to_le_bytes()[..w]);
    }

    /// Bits of the element at a multi-index.
    pub fn get_bits(&self, index: &[i64]) -> u128 {
        self.get_bits_linear(index::multi_index_to_linear(&self.shape, index))
    }

    /// Sets the bits of the element at a multi-index.
    pub fn set_bits(&mut self, index: &[i64], bits: u128) {
        let linear = index::multi_index_to_linear(&self.shape, index);
        self.set_bits_linear(linear, bits)
    }

    /// Every element's bits in logical row-major order.
    pub fn logical_bits(&self) -> Vec<u128> {
        index::physical_positions(&self.shape)
            .into_iter()
            .map(|p| self.get_bits_linear(p))
            .collect()
    }

    /// Every element as `f64` (float types only; complex: real parts), logical row-major order.
    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        let f = self.element_type().float_format()?;
        Some(
            self.logical_bits()
                .into_iter()
                .map(|b| f.decode(b as u64))
                .collect(),
        )
    }

    /// Every element as an integer (integer and PRED types), logical row-major order.
    pub fn to_i128s(&self) -> Option<Vec<i128>> {
        let ty = self.element_type();
        self.logical_bits()
            .into_iter()
            .map(|b| ty.integer_from_bits(b as u64))
            .collect()
    }

    /// The same values in another layout (padding filled per the new layout's padding value;
    /// runtime sizes kept).
    pub fn relayout(&self, layout: Layout) -> ArrayLiteral {
        if self.shape.layout == layout {
            return self.clone();
        }
        let shape = self.shape.clone().with_layout(layout);
        let mut out = ArrayLiteral::zeros(shape);
        out.runtime_dimensions.clone_from(&self.runtime_dimensions);
        let from = index::physical_positions(&self.shape);
        let to = index::physical_positions(&out.shape);
        for (&f, &t) in from.iter().zip(&to) {
            let b = self.get_bits_linear(f);
            out.set_bits_linear(t, b);
        }
        out
    }

    /// Same element type, dimensions and element bits at every multi-index (layouts may differ);
    /// for dynamic values, same runtime sizes and bits inside them.
    pub fn logical_eq(&self, other: &ArrayLiteral) -> bool {
        if !self.shape.compatible(&other.shape) {
            return false;
        }
        if self.runtime_dimensions.is_none() && other.runtime_dimensions.is_none() {
            return self.logical_bits() == other.logical_bits();
        }
        self.logical_dimensions() == other.logical_dimensions()
            && self.logical_array().logical_bits() == other.logical_array().logical_bits()
    }

    /// Writes the padding positions with the layout's padding value.
    pub fn fill_padding(&mut self) {
        if !self.shape.layout.is_padded() {
            return;
        }
        let bits = padding_bits(self.shape.element_type, self.shape.layout.padding_value);
        let physical = index::physical_element_count(&self.shape);
        let mut is_element = vec![false; physical];
        for p in index::physical_positions(&self.shape) {
            is_element[p] = true;
        }
        for (p, e) in is_element.into_iter().enumerate() {
            if !e {
                self.set_bits_linear(p, bits);
            }
        }
    }

    /// Writes the values in HLO literal syntax without the shape: `{{1, 2}, {3, 4}}`, or `5` for a scalar.
    pub fn fmt_values(&self, f: &mut impl fmt::Write) -> fmt::Result {
        let bits = self.logical_bits();
        let dims = &self.shape.dimensions;
        if dims.is_empty() {
            return f.write_str(&format_element(self.element_type(), bits[0]));
        }
        fn rec(
            f: &mut impl fmt::Write,
            ty: ElementType,
            dims: &[i64],
            bits: &[u128],
            pos: &mut usize,
        ) -> fmt::Result {
            f.write_str("{")?;
            for i in 0..dims[0] {
                if i > 0 {
                    f.write_str(", ")?;
                }
                if dims.len() == 1 {
                    f.write_str(&format_element(ty, bits[*pos]))?;
                    *pos += 1;
                } else {
                    rec(f, ty, &dims[1..], bits, pos)?;
                }
            }
            f.write_str("}")
        }
        let mut pos = 0;
        rec(f, self.element_type(), dims, &bits, &mut pos)
    }

    /// The values in HLO literal syntax (see [`ArrayLiteral::fmt_values`]).
    pub fn values_string(&self) -> String {
        let mut s = String::new();
        let _ = self.fmt_values(&mut s);
        s
    }
}

/// Packs the component bits of a complex element (real in the low half).
pub fn complex_bits(component: FloatFormat, re: u64, im: u64) -> u128 {
    (re as u128) | ((im as u128) << component.bit_width())
}

/// Splits a complex element's bits into (real, imaginary) component bits.
pub fn complex_parts(component: FloatFormat, bits: u128) -> (u64, u64) {
    let w = component.bit_width();
    let mask = if w == 64 {
        u64::MAX as u128
    } else {
        (1u128 << w) - 1
    };
    ((bits & mask) as u64, ((bits >> w) & mask) as u64)
}

/// One element in HLO literal syntax: `true`, `-3`, `1.5`, `-inf`, `nan`, `-nan`, `nan(0x1)`, `(1, 2)`.
///
/// Floats print the shortest decimal that reads back to the same value in their format.
pub fn format_element(ty: ElementType, bits: u128) -> String {
    if ty.is_pred() {
        return if bits & 0xff != 0 { "true" } else { "false" }.to_string();
    }
    if let Some(v) = ty.integer_from_bits(bits as u64) {
        return v.to_string();
    }
    let f = ty.float_format().expect("non-integer types are floating");
    if ty.is_complex() {
        let (re, im) = complex_parts(f, bits);
        return format!("({}, {})", format_float(f, re), format_float(f, im));
    }
    format_float(f, bits as u64)
}

/// A float value's bits in HLO literal syntax (see [`format_element`]).
pub fn format_float(f: FloatFormat, bits: u64) -> String {
    let negative = f.sign_bit(bits);
    let sign = if negative { "-" } else { "" };
    match f.classify(bits) {
        FloatClass::Nan => {
            if bits == f.nan_bits() || bits == f.nan_bits() | (1u64 << (f.bit_width() - 1)) {
                format!("{sign}nan")
            } else {
                let payload = bits & ((1u64 << f.mantissa_bits) - 1);
                format!("{sign}nan(0x{payload:x})")
            }
        }
        FloatClass::Infinite => format!("{sign}inf"),
        _ => shortest_round_trip(f, bits),
    }
}

/// The shortest decimal that reads back (decimal → nearest f64 → nearest in the format, as the HLO
/// parser reads it) to exactly `bits`.
fn shortest_round_trip(f: FloatFormat, bits: u64) -> String {
    let v = f.decode(bits);
    for digits in 1..=17usize {
        let candidate = format!("{:.*e}", digits - 1, v);
        let back: f64 = candidate.parse().unwrap_or(f64::NAN);
        if f.encode(back) == bits {
            // Rust prints the shortest f64 digits of `back`, which has at most `digits` digits.
            return plain_or_exponent(back);
        }
    }
    plain_or_exponent(v)
}

fn plain_or_exponent(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-4..1e16).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

impl fmt::Display for ArrayLiteral {
    /// `f32[2,3] {{1, 2, 3}, {4, 5, 6}}` (layout omitted when default). A dynamic value prints
    /// its bound shape and its logical array, as XLA does: `f32[<=10] {1, 2, 3, 4, 5}` for
    /// runtime size 5 (the HLO parser reads the runtime sizes back from the element counts).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(sizes) = &self.runtime_dimensions {
            let mut shape = self.shape.clone();
            for (d, flag) in shape.dynamic_dimensions.iter_mut().enumerate() {
                *flag |= sizes[d] != shape.dimensions[d];
            }
            if shape.layout.is_default_for_rank(shape.rank()) {
                shape.fmt_without_layout(f)?;
            } else {
                write!(f, "{shape}")?;
            }
            f.write_str(" ")?;
            return self.logical_array().fmt_values(f);
        }
        if self.shape.layout.is_default_for_rank(self.shape.rank()) {
            self.shape.fmt_without_layout(f)?;
        } else {
            write!(f, "{}", self.shape)?;
        }
        f.write_str(" ")?;
        self.fmt_values(f)
    }
}

impl Literal {
    /// The arrays of this value's leaves, depth-first (one for an array; none for a token).
    pub fn array_leaves(&self) -> Vec<&ArrayLiteral> {
        fn walk<'a>(l: &'a Literal, out: &mut Vec<&'a ArrayLiteral>) {
            match l {
                Literal::Array(a) => out.push(a),
                Literal::Tuple(parts) => parts.iter().for_each(|p| walk(p, out)),
                Literal::Token => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// The shape of the value.
    pub fn shape(&self) -> Shape {
        match self {
            Literal::Array(a) => Shape::Array(a.shape.clone()),
            Literal::Tuple(t) => Shape::Tuple(t.iter().map(Literal::shape).collect()),
            Literal::Token => Shape::Token,
        }
    }

    pub fn as_array(&self) -> Option<&ArrayLiteral> {
        match self {
            Literal::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn into_array(self) -> Option<ArrayLiteral> {
        match self {
            Literal::Array(a) => Some(a),
            _ => None,
        }
    }

    /// A literal of the shape with zero elements.
    pub fn zeros(shape: &Shape) -> Literal {
        match shape {
            Shape::Array(a) => Literal::Array(ArrayLiteral::zeros(a.clone())),
            Shape::Tuple(t) => Literal::Tuple(t.iter().map(Literal::zeros).collect()),
            Shape::Token => Literal::Token,
        }
    }

    /// Logical equality, element by element, through tuples.
    pub fn logical_eq(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::Array(a), Literal::Array(b)) => a.logical_eq(b),
            (Literal::Tuple(a), Literal::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.logical_eq(y))
            }
            (Literal::Token, Literal::Token) => true,
            _ => false,
        }
    }
}

impl From<ArrayLiteral> for Literal {
    fn from(a: ArrayLiteral) -> Literal {
        Literal::Array(a)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Array(a) => write!(f, "{a}"),
            Literal::Token => f.write_str("token"),
            Literal::Tuple(t) => {
                f.write_str("(")?;
                for (i, l) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{l}")?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(dims: Vec<i64>, v: &[f64]) -> ArrayLiteral {
        ArrayLiteral::from_f64s(ArrayShape::new(ElementType::F32, dims), v).unwrap()
    }

    #[test]
    fn physical_order_follows_layout() {
        let lit = f32s(vec![2, 3], &[1., 2., 3., 4., 5., 6.]);
        let col = lit.relayout(Layout::new(vec![0, 1]));
        let phys: Vec<f64> = (0..6)
            .map(|i| f32::from_bits(col.get_bits_linear(i) as u32) as f64)
            .collect();
        assert_eq!(phys, vec![1., 4., 2., 5., 3., 6.]);
        assert!(col.logical_eq(&lit));
        assert_ne!(col.data(), lit.data());
        assert_eq!(col.get_bits(&[1, 2]), 6f32.to_bits() as u128);
    }

    #[test]
    fn runtime_sizes_select_the_logical_array() {
        let lit = f32s(vec![2, 3], &[1., 2., 3., 4., 5., 6.]).relayout(Layout::new(vec![0, 1]));
        let d = lit.clone().with_runtime_dimensions(&[2, 2]).unwrap();
        assert_eq!(d.runtime_dimensions(), Some(&[2, 2][..]));
        assert_eq!(d.logical_dimensions(), &[2, 2]);
        assert_eq!(d.logical_array().to_f64s().unwrap(), vec![1., 2., 4., 5.]);
        assert_eq!(d.to_string(), "f32[2,<=3]{0,1} {{1, 2}, {4, 5}}");
        let back = crate::hlo::parse_literal(&d.to_string()).unwrap();
        assert_eq!(
            back.as_array().unwrap().runtime_dimensions(),
            Some(&[2, 2][..])
        );
        assert!(back.as_array().unwrap().logical_eq(&d));
        assert!(!d.logical_eq(&lit));
        // Elements beyond the runtime sizes do not count.
        let mut other = d.clone();
        other.set_bits(&[1, 2], 99f32.to_bits() as u128);
        assert!(other.logical_eq(&d));
        other.set_bits(&[1, 1], 99f32.to_bits() as u128);
        assert!(!other.logical_eq(&d));
        // Embedding the logical array again gives the same value.
        let again = ArrayLiteral::embed(&d.logical_array(), lit.shape().clone()).unwrap();
        assert!(again.logical_eq(&d));
        assert!(d.is_logical_index(&[1, 1]) && !d.is_logical_index(&[0, 2]));
        // Sizes equal to the bounds make the value static; sizes beyond them are errors.
        let full = lit.clone().with_runtime_dimensions(&[2, 3]).unwrap();
        assert_eq!(full.runtime_dimensions(), None);
        assert!(matches!(
            lit.clone().with_runtime_dimensions(&[3, 1]),
            Err(LiteralError::RuntimeSizes { .. })
        ));
        assert!(lit.with_runtime_dimensions(&[1]).is_err());
    }

    #[test]
    fn padding_filled_per_padding_value() {
        let lit = f32s(vec![2, 3], &[1., 2., 3., 4., 5., 6.]);
        let layout = Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::One);
        let p = lit.relayout(layout);
        assert_eq!(p.data().len(), 15 * 4);
        let phys: Vec<f64> = (0..15)
            .map(|i| f32::from_bits(p.get_bits_linear(i) as u32) as f64)
            .collect();
        assert_eq!(
            phys,
            vec![1., 4., 1., 2., 5., 1., 3., 6., 1., 1., 1., 1., 1., 1., 1.]
        );
        assert!(p.logical_eq(&lit));
        let lowest = padding_bits(ElementType::F32, PaddingValue::Lowest);
        assert_eq!(lowest, f32::NEG_INFINITY.to_bits() as u128);
        assert_eq!(padding_bits(ElementType::S8, PaddingValue::Highest), 127);
        assert_eq!(
            padding_bits(ElementType::F8E4M3FN, PaddingValue::Highest),
            0x7e
        );
    }

    #[test]
    fn set_and_get_by_multi_index() {
        let mut lit = ArrayLiteral::zeros(
            ArrayShape::new(ElementType::S16, vec![2, 2]).with_layout(Layout::new(vec![0, 1])),
        );
        lit.set_bits(&[0, 1], 7);
        assert_eq!(lit.get_bits(&[0, 1]), 7);
        assert_eq!(lit.get_bits_linear(2), 7);
        assert_eq!(lit.to_i128s().unwrap(), vec![0, 7, 0, 0]);
    }

    #[test]
    fn prints_hlo_literal_syntax() {
        let lit = f32s(vec![2, 3], &[1., 2.5, 3., 4., 5., 6.]);
        assert_eq!(lit.to_string(), "f32[2,3] {{1, 2.5, 3}, {4, 5, 6}}");
        let s = ArrayLiteral::from_f64s(ArrayShape::scalar(ElementType::Bf16), &[0.1]).unwrap();
        assert_eq!(s.to_string(), "bf16[] 0.1");
        let specials = f32s(vec![4], &[f64::INFINITY, -f64::INFINITY, f64::NAN, -0.0]);
        assert_eq!(specials.values_string(), "{inf, -inf, nan, -0}");
        let tiny = f32s(vec![1], &[1e-40]);
        assert_eq!(tiny.values_string(), "{1e-40}");
        let c =
            ArrayLiteral::from_complex(ArrayShape::new(ElementType::C64, vec![1]), &[(1., -2.)])
                .unwrap();
        assert_eq!(c.values_string(), "{(1, -2)}");
        let p =
            ArrayLiteral::from_i128s(ArrayShape::new(ElementType::Pred, vec![2]), &[1, 0]).unwrap();
        assert_eq!(p.values_string(), "{true, false}");
        let payload = ArrayLiteral::scalar_bits(ElementType::F32, 0x7f80_0001);
        assert_eq!(payload.values_string(), "nan(0x1)");
    }

    #[test]
    fn wrong_counts_are_errors() {
        assert!(
            ArrayLiteral::from_f64s(ArrayShape::new(ElementType::F32, vec![2]), &[1.0]).is_err()
        );
        assert!(ArrayLiteral::from_physical_bytes(
            ArrayShape::new(ElementType::F32, vec![2]),
            vec![0; 7]
        )
        .is_err());
        assert!(
            ArrayLiteral::from_f64s(ArrayShape::new(ElementType::S32, vec![1]), &[1.0]).is_err()
        );
    }
}
