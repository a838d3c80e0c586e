//! Shapes: element type, dimension sizes and layout of an array, or a tuple of shapes
//! (seed 000, "Shapes and layout"; cf. XLA `ShapeUtil`).

use crate::element_type::ElementType;
use crate::layout::{Layout, LayoutError};
use std::fmt;

/// The shape of an array: element type, dimension sizes (dimension 0 first) and layout.
///
/// The layout is always present; shapes written without one (e.g. `f32[2,3]` in HLO text) get the
/// default major-to-minor layout, as XLA's HLO parser gives them.
#[derive(Clone, Debug, Eq)]
pub struct ArrayShape {
    pub element_type: ElementType,
    /// Sizes in elements, indexed by dimension number. For a dynamic dimension, its upper bound.
    pub dimensions: Vec<i64>,
    /// Per dimension: true when the size is dynamic (`<=N` in HLO text). Same length as `dimensions`.
    pub dynamic_dimensions: Vec<bool>,
    pub layout: Layout,
}

impl PartialEq for ArrayShape {
    fn eq(&self, other: &ArrayShape) -> bool {
        self.element_type == other.element_type
            && slices_equal(&self.dimensions, &other.dimensions)
            && slices_equal(&self.dynamic_dimensions, &other.dynamic_dimensions)
            && self.layout == other.layout
    }
}

/// Hashes the fields [`PartialEq`] compares, as a derived `Hash` would.
impl std::hash::Hash for ArrayShape {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.element_type.hash(state);
        self.dimensions.hash(state);
        self.dynamic_dimensions.hash(state);
        self.layout.hash(state);
    }
}

/// `a == b` for short slices (dimensions, layouts) without calling `memcmp`. Shapes compare
/// empty vectors all the time (a scalar's dimensions, an unpadded layout's
/// `padded_dimensions`), and an empty `Vec`'s pointer is dangling: glibc's AVX-512 `memcmp`
/// then issues a masked load from an unmapped address, which on AMD Zen 4 takes a
/// fault-suppression assist of about 85 ns (3 ns for the same comparison at a mapped address;
/// measured on this project's Zen 4 machines). A compiled loop's plan compares dozens of shapes,
/// so this was a third of a small loop's cost.
#[inline]
pub fn slices_equal<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// An XLA shape: an array, a tuple of shapes, or a token.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Array(ArrayShape),
    Tuple(Vec<Shape>),
    Token,
}

/// A dimension number outside `[-rank, rank)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("dimension {dimension} is out of range for rank {rank} (valid: {lo}..{rank})", lo = -(*rank as i64))]
pub struct DimensionOutOfRange {
    pub dimension: i64,
    pub rank: usize,
}

impl ArrayShape {
    /// An array shape with the default (major-to-minor) layout and static dimensions.
    pub fn new(element_type: ElementType, dimensions: Vec<i64>) -> ArrayShape {
        let rank = dimensions.len();
        ArrayShape {
            element_type,
            dynamic_dimensions: vec![false; rank],
            dimensions,
            layout: Layout::default_for_rank(rank),
        }
    }

    /// A rank-0 shape.
    pub fn scalar(element_type: ElementType) -> ArrayShape {
        ArrayShape::new(element_type, vec![])
    }

    /// The same shape with another layout (not validated: see [`ArrayShape::validate`]).
    pub fn with_layout(mut self, layout: Layout) -> ArrayShape {
        self.layout = layout;
        self
    }

    /// The same dimensions and layout with another element type.
    pub fn with_element_type(mut self, element_type: ElementType) -> ArrayShape {
        self.element_type = element_type;
        self
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dimensions.len()
    }

    /// The number of dimensions whose size is greater than 1 (seed 000, "true rank").
    pub fn true_rank(&self) -> usize {
        self.dimensions.iter().filter(|&&d| d > 1).count()
    }

    pub fn is_scalar(&self) -> bool {
        self.dimensions.is_empty()
    }

    /// The number of logical elements (the product of the dimension sizes; 1 for a scalar).
    pub fn element_count(&self) -> usize {
        self.dimensions.iter().product::<i64>().max(0) as usize
    }

    /// Resolves a dimension number that may be negative (−1 is the last dimension, as in Python).
    ///
    /// Errors: the number is outside `[−rank, rank)`.
    pub fn resolve_dimension(&self, dimension: i64) -> Result<usize, DimensionOutOfRange> {
        let rank = self.rank() as i64;
        let resolved = if dimension < 0 {
            dimension + rank
        } else {
            dimension
        };
        if (0..rank).contains(&resolved) {
            Ok(resolved as usize)
        } else {
            Err(DimensionOutOfRange {
                dimension,
                rank: self.rank(),
            })
        }
    }

    /// The size of a dimension given by a possibly negative number (seed 000: dimension −1 of
    /// `[A x B x C]` has size C).
    pub fn dimension_size(&self, dimension: i64) -> Result<i64, DimensionOutOfRange> {
        Ok(self.dimensions[self.resolve_dimension(dimension)?])
    }

    /// Checks dimension sizes (non-negative) and the layout.
    pub fn validate(&self) -> Result<(), ShapeError> {
        if let Some((dimension, &size)) = self.dimensions.iter().enumerate().find(|(_, &s)| s < 0) {
            return Err(ShapeError::NegativeDimension { dimension, size });
        }
        if self.dynamic_dimensions.len() != self.rank() {
            return Err(ShapeError::DynamicRank {
                got: self.dynamic_dimensions.len(),
                rank: self.rank(),
            });
        }
        self.layout.validate(&self.dimensions)?;
        Ok(())
    }

    /// True when two shapes have the same element type and dimensions (layouts may differ).
    pub fn compatible(&self, other: &ArrayShape) -> bool {
        self.element_type == other.element_type && slices_equal(&self.dimensions, &other.dimensions)
    }

    /// True when two shapes have the same dimensions, whatever their element types and layouts.
    pub fn same_dimensions(&self, other: &ArrayShape) -> bool {
        slices_equal(&self.dimensions, &other.dimensions)
    }

    /// Writes the shape without its layout (`f32[2,3]`).
    pub fn fmt_without_layout(&self, f: &mut impl fmt::Write) -> fmt::Result {
        write!(f, "{}[", self.element_type)?;
        for (i, (&d, &dynamic)) in self
            .dimensions
            .iter()
            .zip(&self.dynamic_dimensions)
            .enumerate()
        {
            if i > 0 {
                f.write_str(",")?;
            }
            if dynamic {
                f.write_str("<=")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// A shape that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("dimension {dimension} has negative size {size}")]
    NegativeDimension { dimension: usize, size: i64 },
    #[error("{got} dynamic-dimension flags for rank {rank}")]
    DynamicRank { got: usize, rank: usize },
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

impl fmt::Display for ArrayShape {
    /// HLO text: `f32[2,3]{1,0}`; scalars print as `f32[]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_without_layout(f)?;
        if !self.is_scalar() {
            write!(f, "{}", self.layout)?;
        }
        Ok(())
    }
}

impl Shape {
    /// True when two shapes have the same structure, element types and dimensions (layouts may
    /// differ).
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.compatible(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            (Shape::Token, Shape::Token) => true,
            _ => false,
        }
    }

    pub fn array(element_type: ElementType, dimensions: Vec<i64>) -> Shape {
        Shape::Array(ArrayShape::new(element_type, dimensions))
    }

    /// The array shapes of this shape's leaves, depth-first (one for an array shape; none for a
    /// token).
    pub fn array_leaves(&self) -> Vec<&ArrayShape> {
        fn walk<'a>(s: &'a Shape, out: &mut Vec<&'a ArrayShape>) {
            match s {
                Shape::Array(a) => out.push(a),
                Shape::Tuple(parts) => parts.iter().for_each(|p| walk(p, out)),
                Shape::Token => {}
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// True when the shape is or contains a token.
    pub fn has_token(&self) -> bool {
        match self {
            Shape::Token => true,
            Shape::Tuple(parts) => parts.iter().any(Shape::has_token),
            Shape::Array(_) => false,
        }
    }

    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn tuple_shapes(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }

    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }

    /// Checks every array shape inside.
    pub fn validate(&self) -> Result<(), ShapeError> {
        match self {
            Shape::Array(a) => a.validate(),
            Shape::Tuple(t) => t.iter().try_for_each(Shape::validate),
            Shape::Token => Ok(()),
        }
    }
}

impl fmt::Display for Shape {
    /// HLO text: arrays as `f32[2,3]{1,0}`, tuples as `(f32[2]{0}, s32[])`, tokens as `token[]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => write!(f, "{a}"),
            Shape::Token => f.write_str("token[]"),
            Shape::Tuple(t) => {
                f.write_str("(")?;
                for (i, s) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{s}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl From<ArrayShape> for Shape {
    fn from(a: ArrayShape) -> Shape {
        Shape::Array(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::PaddingValue;

    #[test]
    fn equality_compares_every_field() {
        use std::collections::HashSet;
        assert!(slices_equal::<i64>(&[], &[]));
        assert!(slices_equal(&[2, 3], &[2, 3]));
        assert!(!slices_equal(&[2, 3], &[3, 2]));
        assert!(!slices_equal(&[2], &[2, 1]));
        let base = ArrayShape::new(ElementType::F32, vec![2, 3]);
        let mut variants = vec![base.clone()];
        let mut v = base.clone();
        v.element_type = ElementType::F64;
        variants.push(v);
        let mut v = base.clone();
        v.dimensions = vec![3, 2];
        variants.push(v);
        let mut v = base.clone();
        v.dynamic_dimensions = vec![false, true];
        variants.push(v);
        let mut v = base.clone();
        v.layout.minor_to_major = vec![0, 1];
        variants.push(v);
        let mut v = base.clone();
        v.layout.padded_dimensions = vec![2, 4];
        variants.push(v);
        let mut v = base.clone();
        v.layout.padding_value = PaddingValue::Zero;
        variants.push(v);
        for (i, a) in variants.iter().enumerate() {
            for (j, b) in variants.iter().enumerate() {
                assert_eq!(a == b, i == j, "{a:?} vs {b:?}");
            }
        }
        // Hash agrees with equality: equal shapes collapse, the others stay apart.
        let mut set: HashSet<ArrayShape> = variants.iter().cloned().collect();
        set.insert(base.clone());
        assert_eq!(set.len(), variants.len());
        assert_eq!(
            ArrayShape::scalar(ElementType::Pred),
            ArrayShape::new(ElementType::Pred, vec![])
        );
    }

    #[test]
    fn array_leaves_are_depth_first_and_tokens_are_found() {
        let a = Shape::array(ElementType::F32, vec![2]);
        let b = Shape::array(ElementType::S8, vec![]);
        let t = Shape::Tuple(vec![a.clone(), Shape::Tuple(vec![b.clone(), Shape::Token])]);
        let types: Vec<ElementType> = t.array_leaves().iter().map(|x| x.element_type).collect();
        assert_eq!(types, vec![ElementType::F32, ElementType::S8]);
        assert!(t.has_token());
        assert!(!a.has_token());
        assert_eq!(a.array_leaves().len(), 1);
        assert!(Shape::Token.array_leaves().is_empty());
    }

    #[test]
    fn rank_and_true_rank() {
        let s = ArrayShape::new(ElementType::F32, vec![4, 1, 3]);
        assert_eq!(s.rank(), 3);
        assert_eq!(s.true_rank(), 2);
        assert_eq!(s.element_count(), 12);
        assert_eq!(ArrayShape::scalar(ElementType::F32).element_count(), 1);
        assert_eq!(
            ArrayShape::new(ElementType::F32, vec![0, 3]).element_count(),
            0
        );
    }

    #[test]
    fn negative_dimension_numbers() {
        // Seed 000: for [A x B x C], dimension -1 has size C and -2 has size B.
        let s = ArrayShape::new(ElementType::F32, vec![5, 6, 7]);
        assert_eq!(s.dimension_size(-1), Ok(7));
        assert_eq!(s.dimension_size(-2), Ok(6));
        assert_eq!(s.dimension_size(-3), Ok(5));
        assert_eq!(s.dimension_size(0), Ok(5));
        assert_eq!(s.dimension_size(2), Ok(7));
        assert!(s.dimension_size(3).is_err());
        assert!(s.dimension_size(-4).is_err());
    }

    #[test]
    fn display() {
        let s = ArrayShape::new(ElementType::F32, vec![2, 3]);
        assert_eq!(s.to_string(), "f32[2,3]{1,0}");
        let t = Shape::Tuple(vec![
            s.clone().with_layout(Layout::new(vec![0, 1])).into(),
            Shape::array(ElementType::S32, vec![]),
        ]);
        assert_eq!(t.to_string(), "(f32[2,3]{0,1}, s32[])");
        let p = s.with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero));
        assert_eq!(p.to_string(), "f32[2,3]{0,1:P(3,5)V(ZERO_PAD)}");
    }

    #[test]
    fn validation() {
        assert!(ArrayShape::new(ElementType::F32, vec![2, -1])
            .validate()
            .is_err());
        assert!(ArrayShape::new(ElementType::F32, vec![2, 3])
            .with_layout(Layout::new(vec![1]))
            .validate()
            .is_err());
    }
}
