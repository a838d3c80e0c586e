//! Data-movement methods of [`ComputationBuilder`], XlaBuilder-style (seed 004): each appends
//! the HLO instruction(s) XlaBuilder would emit, with shapes from `shape_inference` (default
//! layout unless the method takes one).

use super::{BuildError, ComputationBuilder};
use crate::hlo::dimension_numbers::{GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::hlo::ir::{AttrValue, Attribute, HloComputation, Opcode, PaddingDim, SliceDim};
use crate::layout::Layout;
use crate::shape::{ArrayShape, Shape};
use crate::shape_inference::InferenceContext;

fn attribute(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

fn dimensions(d: &[i64]) -> Attribute {
    attribute("dimensions", AttrValue::Ints(d.to_vec()))
}

impl ComputationBuilder {
    fn plain_inferred(
        &mut self,
        opcode: Opcode,
        operands: Vec<usize>,
        attributes: Vec<Attribute>,
    ) -> Result<usize, BuildError> {
        self.inferred(opcode, operands, attributes, &InferenceContext::default())
    }

    /// XlaBuilder's `Broadcast(operand, broadcast_sizes)` (seed 004, Broadcast): new major
    /// dimensions of sizes `broadcast_sizes` before the operand's; HLO
    /// `broadcast(operand), dimensions={n, ..., n+rank-1}` with `n = broadcast_sizes.len()`.
    ///
    /// Errors: a negative size; a non-array operand.
    pub fn broadcast_major(
        &mut self,
        operand: usize,
        broadcast_sizes: &[i64],
    ) -> Result<usize, BuildError> {
        let x = self.array(operand)?;
        let n = broadcast_sizes.len() as i64;
        let mapping: Vec<i64> = (n..n + x.rank() as i64).collect();
        let mut out = broadcast_sizes.to_vec();
        out.extend_from_slice(&x.dimensions);
        self.broadcast(operand, &out, &mapping)
    }

    /// XlaBuilder's `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)` (seed 004,
    /// BroadcastInDim): operand dimension `i` maps to output dimension
    /// `broadcast_dimensions[i]`, whose size it must equal or be 1 (a degenerate dimension, which
    /// expands). Emits `broadcast`, preceded by a `reshape` dropping the expanding size-1
    /// dimensions when there are any (HLO `broadcast` keeps sizes, as in XLA).
    ///
    /// Errors: `broadcast_dimensions` of the wrong length, out of range or repeated; a size that
    /// is neither equal nor 1; a negative output size.
    pub fn broadcast_in_dim(
        &mut self,
        operand: usize,
        out_dimensions: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<usize, BuildError> {
        let x = self.array(operand)?.clone();
        if broadcast_dimensions.len() != x.rank() {
            return Err(BuildError::Invalid(format!(
                "broadcast_in_dim: broadcast_dimensions {broadcast_dimensions:?} must have one entry per operand dimension ({})",
                x.rank()
            )));
        }
        let mut keep = Vec::new();
        for (i, &d) in broadcast_dimensions.iter().enumerate() {
            let Some(&size) = usize::try_from(d).ok().and_then(|d| out_dimensions.get(d)) else {
                return Err(BuildError::Invalid(format!(
                    "broadcast_in_dim: broadcast dimension {d} is out of range for output rank {}",
                    out_dimensions.len()
                )));
            };
            if broadcast_dimensions[..i].contains(&d) {
                return Err(BuildError::Invalid(format!(
                    "broadcast_in_dim: output dimension {d} appears twice in {broadcast_dimensions:?}"
                )));
            }
            if x.dimensions[i] == size {
                keep.push(i);
            } else if x.dimensions[i] != 1 {
                return Err(BuildError::Invalid(format!(
                    "broadcast_in_dim: operand dimension {i} has size {}, neither 1 nor the output size {size}",
                    x.dimensions[i]
                )));
            }
        }
        if keep.len() == x.rank() {
            return self.broadcast(operand, out_dimensions, broadcast_dimensions);
        }
        let kept: Vec<i64> = keep.iter().map(|&i| x.dimensions[i]).collect();
        let mapping: Vec<i64> = keep.iter().map(|&i| broadcast_dimensions[i]).collect();
        let reshaped = self.reshape(operand, &kept)?;
        self.broadcast(reshaped, out_dimensions, &mapping)
    }

    /// `reshape` to `new_sizes` (seed 004, Reshape: the row-major element order is kept; the
    /// element counts must agree).
    ///
    /// Errors: element counts differ; a negative size.
    pub fn reshape(&mut self, operand: usize, new_sizes: &[i64]) -> Result<usize, BuildError> {
        let context = InferenceContext {
            result_dimensions: Some(new_sizes),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::Reshape, vec![operand], vec![], &context)
    }

    /// XlaBuilder's `Reshape(operand, dimensions, new_sizes)` (seed 004, Reshape): the operand is
    /// flattened with `dimensions[0]` varying slowest, then reshaped. Emits `transpose` (unless
    /// `dimensions` is the identity) then `reshape`.
    ///
    /// Errors: `dimensions` not a permutation of the operand's; element counts differ.
    pub fn reshape_reordering(
        &mut self,
        operand: usize,
        dimensions: &[i64],
        new_sizes: &[i64],
    ) -> Result<usize, BuildError> {
        let identity = dimensions.iter().enumerate().all(|(i, &d)| d == i as i64);
        let x = if identity && dimensions.len() == self.array(operand)?.rank() {
            operand
        } else {
            self.transpose(operand, dimensions)?
        };
        self.reshape(x, new_sizes)
    }

    /// XlaBuilder's `Collapse(operand, dimensions)` (seed 004, Collapse): the consecutive,
    /// ascending `dimensions` are replaced by one dimension of their product's size; a `reshape`.
    ///
    /// Errors: `dimensions` empty, not consecutive ascending, or out of range.
    pub fn collapse(&mut self, operand: usize, dimensions: &[i64]) -> Result<usize, BuildError> {
        let x = self.array(operand)?;
        let consecutive = dimensions.windows(2).all(|w| w[1] == w[0] + 1);
        let (Some(&first), Some(&last)) = (dimensions.first(), dimensions.last()) else {
            return Err(BuildError::Invalid(
                "collapse: dimensions must not be empty".into(),
            ));
        };
        if !consecutive || first < 0 || last as usize >= x.rank() {
            return Err(BuildError::Invalid(format!(
                "collapse: dimensions {dimensions:?} must be a consecutive ascending subset of 0..{}",
                x.rank()
            )));
        }
        let (first, last) = (first as usize, last as usize);
        let mut out: Vec<i64> = x.dimensions[..first].to_vec();
        out.push(x.dimensions[first..=last].iter().product());
        out.extend_from_slice(&x.dimensions[last + 1..]);
        self.reshape(operand, &out)
    }

    /// `transpose`, `dimensions=permutation`: output dimension `i` is operand dimension
    /// `permutation[i]` (seed 004, Transpose).
    ///
    /// Errors: not a permutation of the operand's dimensions.
    pub fn transpose(&mut self, operand: usize, permutation: &[i64]) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::Transpose,
            vec![operand],
            vec![dimensions(permutation)],
        )
    }

    /// `slice`, `slice={[start:limit:stride], ...}` (seed 004, Slice).
    ///
    /// Errors: see [`crate::shape_inference::slice_dimensions`].
    pub fn slice(&mut self, operand: usize, slice: &[SliceDim]) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::Slice,
            vec![operand],
            vec![attribute("slice", AttrValue::Slice(slice.to_vec()))],
        )
    }

    /// `dynamic-slice(operand, start_indices...)`, `dynamic_slice_sizes=slice_sizes` (seed 004,
    /// DynamicSlice): one integer scalar instruction per operand dimension; starts are clamped
    /// at run time.
    ///
    /// Errors: wrong number or type of start indices; sizes not in `[1, dimension size]`.
    pub fn dynamic_slice(
        &mut self,
        operand: usize,
        start_indices: &[usize],
        slice_sizes: &[i64],
    ) -> Result<usize, BuildError> {
        let mut operands = vec![operand];
        operands.extend_from_slice(start_indices);
        self.plain_inferred(
            Opcode::DynamicSlice,
            operands,
            vec![attribute(
                "dynamic_slice_sizes",
                AttrValue::Ints(slice_sizes.to_vec()),
            )],
        )
    }

    /// `dynamic-update-slice(operand, update, start_indices...)` (seed 004, DynamicUpdateSlice).
    ///
    /// Errors: wrong number or type of start indices; an update larger than the operand, of
    /// another rank or element type, or with an empty dimension.
    pub fn dynamic_update_slice(
        &mut self,
        operand: usize,
        update: usize,
        start_indices: &[usize],
    ) -> Result<usize, BuildError> {
        let mut operands = vec![operand, update];
        operands.extend_from_slice(start_indices);
        self.plain_inferred(Opcode::DynamicUpdateSlice, operands, vec![])
    }

    /// `concatenate(operands...)`, `dimensions={dimension}` (seed 004, Concatenate / ConcatInDim).
    ///
    /// Errors: no operands; rank 0; operands differing in another dimension or in element type.
    pub fn concatenate(&mut self, operands: &[usize], dimension: i64) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::Concatenate,
            operands.to_vec(),
            vec![dimensions(&[dimension])],
        )
    }

    /// `pad(operand, padding_value), padding=...` (seed 004, Pad): per dimension edge padding
    /// `low`/`high` (negative: removes elements) and `interior` padding.
    ///
    /// Errors: see [`crate::shape_inference::pad_dimensions`]; a non-scalar padding value or one
    /// of another element type.
    pub fn pad(
        &mut self,
        operand: usize,
        padding_value: usize,
        padding: &[PaddingDim],
    ) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::Pad,
            vec![operand, padding_value],
            vec![attribute("padding", AttrValue::Padding(padding.to_vec()))],
        )
    }

    /// `reverse`, `dimensions=...` (seed 004, Rev).
    ///
    /// Errors: a dimension out of range or repeated.
    pub fn reverse(&mut self, operand: usize, dims: &[i64]) -> Result<usize, BuildError> {
        self.plain_inferred(Opcode::Reverse, vec![operand], vec![dimensions(dims)])
    }

    /// `iota(), iota_dimension=d` of `shape` (seed 004, Iota), keeping the shape's layout.
    ///
    /// Errors: an invalid shape; `d` outside `[0, rank)`; a non-numeric element type (pred).
    pub fn iota(&mut self, shape: ArrayShape, iota_dimension: i64) -> Result<usize, BuildError> {
        let declared = Shape::Array(shape.clone());
        declared.validate()?;
        let context = InferenceContext {
            given: Some(&declared),
            ..InferenceContext::default()
        };
        let i = self.inferred(
            Opcode::Iota,
            vec![],
            vec![attribute("iota_dimension", AttrValue::Int(iota_dimension))],
            &context,
        )?;
        self.set_layout(i, shape.layout)?;
        Ok(i)
    }

    /// `gather(operand, start_indices)` with `dimension_numbers`, `slice_sizes` and
    /// `indices_are_sorted` (seed 004, Gather).
    ///
    /// Errors: see [`crate::shape_inference::gather_output_dimensions`]; non-integer indices.
    pub fn gather(
        &mut self,
        operand: usize,
        start_indices: usize,
        dimension_numbers: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<usize, BuildError> {
        let mut attributes = dimension_numbers.attributes();
        attributes.push(attribute(
            "slice_sizes",
            AttrValue::Ints(slice_sizes.to_vec()),
        ));
        attributes.push(attribute(
            "indices_are_sorted",
            AttrValue::Bool(indices_are_sorted),
        ));
        self.plain_inferred(Opcode::Gather, vec![operand, start_indices], attributes)
    }

    /// `scatter(operands..., scatter_indices, updates...)` with `dimension_numbers`,
    /// `indices_are_sorted`, `unique_indices` and `to_apply=update_computation` (seed 004,
    /// Scatter). The update computation must be added to the module (e.g. as one of the `others`
    /// of [`crate::hlo::HloModule::with_entry`]); its signature is checked here: 2N scalars (the
    /// operands' element types, twice), returning a scalar (N = 1) or an N-tuple of scalars. The
    /// result is the operand's shape for N = 1, the tuple of the operands' shapes for N > 1.
    ///
    /// Errors: see [`crate::shape_inference::check_scatter`]; mismatched operand and update
    /// counts or types; an update computation of the wrong signature.
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &mut self,
        operands: &[usize],
        scatter_indices: usize,
        updates: &[usize],
        update_computation: &HloComputation,
        dimension_numbers: &ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
    ) -> Result<usize, BuildError> {
        if operands.len() != updates.len() {
            return Err(BuildError::Invalid(format!(
                "scatter: {} operand(s) but {} update array(s)",
                operands.len(),
                updates.len()
            )));
        }
        if update_computation.root >= update_computation.instructions.len() {
            return Err(BuildError::Invalid(format!(
                "scatter: update computation `{}` has no valid root",
                update_computation.name
            )));
        }
        let mut all = operands.to_vec();
        all.push(scatter_indices);
        all.extend_from_slice(updates);
        let mut attributes = dimension_numbers.attributes();
        attributes.push(attribute(
            "indices_are_sorted",
            AttrValue::Bool(indices_are_sorted),
        ));
        attributes.push(attribute("unique_indices", AttrValue::Bool(unique_indices)));
        attributes.push(attribute(
            "to_apply",
            AttrValue::Computation(update_computation.name.clone()),
        ));
        let params = update_computation.parameter_shapes();
        let root = update_computation.root_instruction().shape.clone();
        let context = InferenceContext {
            callee: Some((&params, &root)),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::Scatter, all, attributes, &context)
    }

    /// `get-dimension-size(operand), dimensions={dimension}` (seed 004, GetDimensionSize): `s32[]`.
    ///
    /// Errors: `dimension` outside `[0, rank)`.
    pub fn get_dimension_size(
        &mut self,
        operand: usize,
        dimension: i64,
    ) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::GetDimensionSize,
            vec![operand],
            vec![dimensions(&[dimension])],
        )
    }

    /// `set-dimension-size(operand, size), dimensions={dimension}` (seed 004, SetDimensionSize):
    /// `size` an `s32[]`; the result's dimension is dynamic, bounded by the operand's size.
    ///
    /// Errors: `size` not an `s32[]`; `dimension` outside `[0, rank)`.
    pub fn set_dimension_size(
        &mut self,
        operand: usize,
        size: usize,
        dimension: i64,
    ) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::SetDimensionSize,
            vec![operand, size],
            vec![dimensions(&[dimension])],
        )
    }

    /// `copy(operand)`: the operand's shape and layout.
    pub fn copy(&mut self, operand: usize) -> Result<usize, BuildError> {
        self.plain_inferred(Opcode::Copy, vec![operand], vec![])
    }

    /// A layout-changing `copy`: the operand's array shape with `layout`.
    ///
    /// Errors: a non-array operand; a layout that does not fit.
    pub fn copy_with_layout(
        &mut self,
        operand: usize,
        layout: Layout,
    ) -> Result<usize, BuildError> {
        self.array(operand)?;
        let i = self.copy(operand)?;
        self.set_layout(i, layout)?;
        Ok(i)
    }

    /// `tuple(elements...)`.
    pub fn tuple(&mut self, elements: &[usize]) -> Result<usize, BuildError> {
        self.plain_inferred(Opcode::Tuple, elements.to_vec(), vec![])
    }

    /// `get-tuple-element(tuple), index=i`.
    ///
    /// Errors: not a tuple; `index` out of range.
    pub fn get_tuple_element(&mut self, tuple: usize, index: i64) -> Result<usize, BuildError> {
        self.plain_inferred(
            Opcode::GetTupleElement,
            vec![tuple],
            vec![attribute("index", AttrValue::Int(index))],
        )
    }
}
