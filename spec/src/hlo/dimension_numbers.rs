//! The dimension numbers of `gather` and `scatter` (seed 004, Gather and Scatter; XLA's
//! `GatherDimensionNumbers` / `ScatterDimensionNumbers`), read from and written to HLO attributes
//! the same way by shape inference, the builder, the backends and the generators.
//!
//! These structs only carry the numbers; which combinations are valid for given operand shapes is
//! checked by [`crate::shape_inference::gather_output_dimensions`] and
//! [`crate::shape_inference::check_scatter`].

use super::ir::{AttrValue, Attribute, HloInstruction};

/// `gather`'s dimension numbers (seed 004, Gather): `offset_dims={...}`,
/// `collapsed_slice_dims={...}`, `start_index_map={...}`, `index_vector_dim=N`.
///
/// `slice_sizes={...}` and `indices_are_sorted=` are separate attributes of the instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDimensionNumbers {
    /// Output dimensions that index into a slice (ascending); the others are batch dimensions.
    pub offset_dims: Vec<i64>,
    /// Operand dimensions whose slice size is 1 and that the output omits (ascending).
    pub collapsed_slice_dims: Vec<i64>,
    /// `start_index_map[k]`: the operand dimension that component `k` of an index vector starts.
    pub start_index_map: Vec<i64>,
    /// The dimension of `start_indices` holding the index vectors; equal to its rank when the
    /// index vectors are implicit (a trailing dimension of size 1).
    pub index_vector_dim: i64,
}

/// `scatter`'s dimension numbers (seed 004, Scatter): `update_window_dims={...}`,
/// `inserted_window_dims={...}`, `scatter_dims_to_operand_dims={...}`, `index_vector_dim=N`.
///
/// `indices_are_sorted=`, `unique_indices=` and `to_apply=` are separate attributes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDimensionNumbers {
    /// Dimensions of `updates` that are window dimensions (ascending); the others are scatter
    /// dimensions (`update_scatter_dims`).
    pub update_window_dims: Vec<i64>,
    /// Operand dimensions a window does not cover (size 1, implicit in `updates`) (ascending).
    pub inserted_window_dims: Vec<i64>,
    /// `scatter_dims_to_operand_dims[k]`: the operand dimension component `k` of an index vector
    /// starts.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// The dimension of `scatter_indices` holding the index vectors; equal to its rank when the
    /// index vectors are implicit.
    pub index_vector_dim: i64,
}

fn find<'a>(attributes: &'a [Attribute], name: &str) -> Option<&'a AttrValue> {
    attributes.iter().find(|a| a.name == name).map(|a| &a.value)
}

/// A required `name={...}` list.
pub(crate) fn ints(attributes: &[Attribute], name: &str) -> Result<Vec<i64>, String> {
    match find(attributes, name) {
        Some(AttrValue::Ints(v)) => Ok(v.clone()),
        Some(v) => Err(format!("`{name}={v}` is not a list of integers")),
        None => Err(format!("missing `{name}=`")),
    }
}

/// A required `name=N`.
pub(crate) fn int(attributes: &[Attribute], name: &str) -> Result<i64, String> {
    match find(attributes, name) {
        Some(AttrValue::Int(v)) => Ok(*v),
        Some(v) => Err(format!("`{name}={v}` is not an integer")),
        None => Err(format!("missing `{name}=`")),
    }
}

/// An optional `name=true|false` (absent: false, as XLA prints only `true`).
pub(crate) fn flag(attributes: &[Attribute], name: &str) -> Result<bool, String> {
    match find(attributes, name) {
        Some(AttrValue::Bool(v)) => Ok(*v),
        Some(v) => Err(format!("`{name}={v}` is not `true` or `false`")),
        None => Ok(false),
    }
}

/// True when one of the batching-dimension attributes of XLA's newer gather/scatter form
/// (`operand_batching_dims`, `start_indices_batching_dims`, `input_batching_dims`,
/// `scatter_indices_batching_dims`) is present and non-empty. Those forms are not modelled.
pub fn has_batching_dims(attributes: &[Attribute]) -> bool {
    attributes.iter().any(|a| {
        a.name.ends_with("batching_dims")
            && match &a.value {
                AttrValue::Ints(v) => !v.is_empty(),
                AttrValue::Raw(s) => s.chars().any(|c| c.is_ascii_digit()),
                _ => true,
            }
    })
}

fn ints_attr(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

fn int_attr(name: &str, v: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Int(v),
    }
}

impl GatherDimensionNumbers {
    /// Reads the four attributes from an attribute list.
    ///
    /// Errors: a missing attribute or one of the wrong type (a message naming it).
    pub fn from_attributes(attributes: &[Attribute]) -> Result<Self, String> {
        Ok(GatherDimensionNumbers {
            offset_dims: ints(attributes, "offset_dims")?,
            collapsed_slice_dims: ints(attributes, "collapsed_slice_dims")?,
            start_index_map: ints(attributes, "start_index_map")?,
            index_vector_dim: int(attributes, "index_vector_dim")?,
        })
    }

    /// Reads the dimension numbers of a `gather` instruction (see
    /// [`GatherDimensionNumbers::from_attributes`]).
    pub fn from_instruction(instr: &HloInstruction) -> Result<Self, String> {
        Self::from_attributes(&instr.attributes)
    }

    /// The attributes in XLA's print order: `offset_dims`, `collapsed_slice_dims`,
    /// `start_index_map`, `index_vector_dim`.
    pub fn attributes(&self) -> Vec<Attribute> {
        vec![
            ints_attr("offset_dims", &self.offset_dims),
            ints_attr("collapsed_slice_dims", &self.collapsed_slice_dims),
            ints_attr("start_index_map", &self.start_index_map),
            int_attr("index_vector_dim", self.index_vector_dim),
        ]
    }

    /// The operand dimensions that are not collapsed, ascending: `remapped_offset_dims` of seed
    /// 004 maps `offset_dims[k]`'s index to operand dimension `offset_operand_dims(..)[k]`.
    pub fn offset_operand_dims(&self, operand_rank: usize) -> Vec<usize> {
        (0..operand_rank)
            .filter(|&d| !self.collapsed_slice_dims.contains(&(d as i64)))
            .collect()
    }

    /// The output dimensions that are not offset dimensions (`batch_dims`), ascending.
    pub fn batch_dims(&self, output_rank: usize) -> Vec<usize> {
        (0..output_rank)
            .filter(|&d| !self.offset_dims.contains(&(d as i64)))
            .collect()
    }
}

impl ScatterDimensionNumbers {
    /// Reads the four attributes from an attribute list.
    ///
    /// Errors: a missing attribute or one of the wrong type (a message naming it).
    pub fn from_attributes(attributes: &[Attribute]) -> Result<Self, String> {
        Ok(ScatterDimensionNumbers {
            update_window_dims: ints(attributes, "update_window_dims")?,
            inserted_window_dims: ints(attributes, "inserted_window_dims")?,
            scatter_dims_to_operand_dims: ints(attributes, "scatter_dims_to_operand_dims")?,
            index_vector_dim: int(attributes, "index_vector_dim")?,
        })
    }

    /// Reads the dimension numbers of a `scatter` instruction (see
    /// [`ScatterDimensionNumbers::from_attributes`]).
    pub fn from_instruction(instr: &HloInstruction) -> Result<Self, String> {
        Self::from_attributes(&instr.attributes)
    }

    /// The attributes in XLA's print order: `update_window_dims`, `inserted_window_dims`,
    /// `scatter_dims_to_operand_dims`, `index_vector_dim`.
    pub fn attributes(&self) -> Vec<Attribute> {
        vec![
            ints_attr("update_window_dims", &self.update_window_dims),
            ints_attr("inserted_window_dims", &self.inserted_window_dims),
            ints_attr(
                "scatter_dims_to_operand_dims",
                &self.scatter_dims_to_operand_dims,
            ),
            int_attr("index_vector_dim", self.index_vector_dim),
        ]
    }

    /// The operand dimensions that are not inserted, ascending: seed 004's
    /// `window_dims_to_operand_dims` maps window index `k` to operand dimension
    /// `window_operand_dims(..)[k]`.
    pub fn window_operand_dims(&self, operand_rank: usize) -> Vec<usize> {
        (0..operand_rank)
            .filter(|&d| !self.inserted_window_dims.contains(&(d as i64)))
            .collect()
    }

    /// The dimensions of `updates` that are not window dimensions (`update_scatter_dims`),
    /// ascending.
    pub fn update_scatter_dims(&self, updates_rank: usize) -> Vec<usize> {
        (0..updates_rank)
            .filter(|&d| !self.update_window_dims.contains(&(d as i64)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_round_trips_through_attributes() {
        let g = GatherDimensionNumbers {
            offset_dims: vec![1, 2],
            collapsed_slice_dims: vec![0],
            start_index_map: vec![0, 1],
            index_vector_dim: 1,
        };
        let attrs = g.attributes();
        assert_eq!(attrs[0].name, "offset_dims");
        assert_eq!(
            GatherDimensionNumbers::from_attributes(&attrs),
            Ok(g.clone())
        );
        assert_eq!(g.offset_operand_dims(3), vec![1, 2]);
        assert_eq!(g.batch_dims(3), vec![0]);
        let e = GatherDimensionNumbers::from_attributes(&attrs[1..]).unwrap_err();
        assert!(e.contains("missing `offset_dims=`"), "{e}");
    }

    #[test]
    fn scatter_round_trips_through_attributes() {
        let s = ScatterDimensionNumbers {
            update_window_dims: vec![1],
            inserted_window_dims: vec![0],
            scatter_dims_to_operand_dims: vec![0],
            index_vector_dim: 1,
        };
        let attrs = s.attributes();
        assert_eq!(
            ScatterDimensionNumbers::from_attributes(&attrs),
            Ok(s.clone())
        );
        assert_eq!(s.window_operand_dims(2), vec![1]);
        assert_eq!(s.update_scatter_dims(2), vec![0]);
        let mut bad = attrs.clone();
        bad[3].value = AttrValue::Ints(vec![1]);
        let e = ScatterDimensionNumbers::from_attributes(&bad).unwrap_err();
        assert!(e.contains("is not an integer"), "{e}");
    }

    #[test]
    fn batching_dims_are_detected() {
        let empty = Attribute {
            name: "operand_batching_dims".into(),
            value: AttrValue::Raw("{}".into()),
        };
        assert!(!has_batching_dims(&[empty]));
        let some = Attribute {
            name: "operand_batching_dims".into(),
            value: AttrValue::Raw("{0}".into()),
        };
        assert!(has_batching_dims(&[some]));
        assert!(!has_batching_dims(&[]));
    }
}
