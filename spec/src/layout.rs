//! Layouts: how an array is laid out in linear memory (seed 000, "Layout").
//!
//! A layout is `minor_to_major` (a permutation of the dimension numbers, most minor first) plus
//! optional `padded_dimensions` (the width each dimension is padded to) and a `padding_value`.
//! The default layout of a new shape is major-to-minor (`minor_to_major = [N−1, …, 0]`), the
//! row-major order.

use std::fmt;

/// What fills the padding positions of a padded layout (seed 000, `PaddingValue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PaddingValue {
    /// Padding contents are not specified.
    #[default]
    Unknown,
    Zero,
    One,
    /// The lowest value of the element type (−inf for floats with infinities).
    Lowest,
    /// The highest value of the element type (+inf for floats with infinities).
    Highest,
}

impl PaddingValue {
    /// XLA's proto enum names: `ZERO_PAD`, `ONE_PAD`, `LOWEST_PAD`, `HIGHEST_PAD`, `UNKNOWN_PAD`.
    pub fn proto_name(self) -> &'static str {
        match self {
            PaddingValue::Unknown => "UNKNOWN_PAD",
            PaddingValue::Zero => "ZERO_PAD",
            PaddingValue::One => "ONE_PAD",
            PaddingValue::Lowest => "LOWEST_PAD",
            PaddingValue::Highest => "HIGHEST_PAD",
        }
    }

    pub fn from_proto_name(name: &str) -> Option<PaddingValue> {
        [
            PaddingValue::Unknown,
            PaddingValue::Zero,
            PaddingValue::One,
            PaddingValue::Lowest,
            PaddingValue::Highest,
        ]
        .into_iter()
        .find(|p| p.proto_name() == name)
    }
}

/// The layout of an array shape (seed 000, `message Layout`).
#[derive(Clone, Debug, Eq, Default)]
pub struct Layout {
    /// Dimension numbers from the most minor (fastest varying in memory) to the most major.
    pub minor_to_major: Vec<i64>,
    /// Width each dimension is padded to, indexed by dimension number; empty when unpadded.
    pub padded_dimensions: Vec<i64>,
    pub padding_value: PaddingValue,
}

impl PartialEq for Layout {
    /// Field by field, without `memcmp` on empty vectors ([`crate::shape::slices_equal`]).
    fn eq(&self, other: &Layout) -> bool {
        use crate::shape::slices_equal;
        slices_equal(&self.minor_to_major, &other.minor_to_major)
            && slices_equal(&self.padded_dimensions, &other.padded_dimensions)
            && self.padding_value == other.padding_value
    }
}

/// Hashes the fields [`PartialEq`] compares, as a derived `Hash` would.
impl std::hash::Hash for Layout {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.minor_to_major.hash(state);
        self.padded_dimensions.hash(state);
        self.padding_value.hash(state);
    }
}

/// A layout that does not fit its shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("minor_to_major {minor_to_major:?} is not a permutation of 0..{rank}")]
    NotAPermutation {
        minor_to_major: Vec<i64>,
        rank: usize,
    },
    #[error("padded_dimensions has {got} entries but the shape has rank {rank}")]
    PaddedRank { got: usize, rank: usize },
    #[error("padded_dimensions[{dimension}] = {padded} is smaller than the dimension size {size}")]
    PaddedTooSmall {
        dimension: usize,
        padded: i64,
        size: i64,
    },
}

impl Layout {
    /// The default layout: major-to-minor, `minor_to_major = [rank−1, …, 1, 0]`.
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
            ..Layout::default()
        }
    }

    /// A layout with the given `minor_to_major` and no padding.
    pub fn new(minor_to_major: Vec<i64>) -> Layout {
        Layout {
            minor_to_major,
            ..Layout::default()
        }
    }

    /// The same layout with padding.
    pub fn with_padding(mut self, padded_dimensions: Vec<i64>, value: PaddingValue) -> Layout {
        self.padded_dimensions = padded_dimensions;
        self.padding_value = value;
        self
    }

    pub fn is_padded(&self) -> bool {
        !self.padded_dimensions.is_empty()
    }

    /// True for the default major-to-minor order without padding.
    pub fn is_default_for_rank(&self, rank: usize) -> bool {
        !self.is_padded() && *self == Layout::default_for_rank(rank)
    }

    /// The dimension numbers from the most major to the most minor.
    pub fn major_to_minor(&self) -> Vec<i64> {
        self.minor_to_major.iter().rev().copied().collect()
    }

    /// Checks the layout against the dimension sizes of an array shape.
    ///
    /// Errors: `minor_to_major` not a permutation of `0..rank`, `padded_dimensions` of the wrong
    /// length, or a padded width smaller than its dimension.
    pub fn validate(&self, dimensions: &[i64]) -> Result<(), LayoutError> {
        let rank = dimensions.len();
        let mut seen = vec![false; rank];
        let ok = self.minor_to_major.len() == rank
            && self.minor_to_major.iter().all(|&d| {
                let fresh = d >= 0 && (d as usize) < rank && !seen[d as usize];
                if fresh {
                    seen[d as usize] = true;
                }
                fresh
            });
        if !ok {
            return Err(LayoutError::NotAPermutation {
                minor_to_major: self.minor_to_major.clone(),
                rank,
            });
        }
        if self.is_padded() {
            if self.padded_dimensions.len() != rank {
                return Err(LayoutError::PaddedRank {
                    got: self.padded_dimensions.len(),
                    rank,
                });
            }
            for (dimension, (&padded, &size)) in
                self.padded_dimensions.iter().zip(dimensions).enumerate()
            {
                if padded < size {
                    return Err(LayoutError::PaddedTooSmall {
                        dimension,
                        padded,
                        size,
                    });
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Layout {
    /// HLO text form, e.g. `{1,0}`; padding is written as `{0,1:P(3,5)V(ZERO_PAD)}` (an extension of
    /// HLO's layout syntax, whose `:` section carries tiling and memory-space items).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, d) in self.minor_to_major.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        if self.is_padded() {
            f.write_str(":P(")?;
            for (i, d) in self.padded_dimensions.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{d}")?;
            }
            write!(f, ")V({})", self.padding_value.proto_name())?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_major_to_minor() {
        assert_eq!(Layout::default_for_rank(3).minor_to_major, vec![2, 1, 0]);
        assert_eq!(
            Layout::default_for_rank(0).minor_to_major,
            Vec::<i64>::new()
        );
        assert!(Layout::new(vec![1, 0]).is_default_for_rank(2));
        assert!(!Layout::new(vec![0, 1]).is_default_for_rank(2));
    }

    #[test]
    fn validation() {
        assert!(Layout::new(vec![0, 1]).validate(&[2, 3]).is_ok());
        assert!(Layout::new(vec![0, 0]).validate(&[2, 3]).is_err());
        assert!(Layout::new(vec![0]).validate(&[2, 3]).is_err());
        assert!(Layout::new(vec![0, 2]).validate(&[2, 3]).is_err());
        let padded = Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero);
        assert!(padded.validate(&[2, 3]).is_ok());
        assert!(padded.validate(&[4, 3]).is_err());
        let short = Layout::new(vec![0, 1]).with_padding(vec![3], PaddingValue::Zero);
        assert!(short.validate(&[2, 3]).is_err());
    }

    #[test]
    fn display() {
        assert_eq!(Layout::new(vec![0, 1]).to_string(), "{0,1}");
        let padded = Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero);
        assert_eq!(padded.to_string(), "{0,1:P(3,5)V(ZERO_PAD)}");
        assert_eq!(Layout::new(vec![]).to_string(), "{}");
    }
}
