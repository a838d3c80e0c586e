//! Contraction, reduction and window methods of [`ComputationBuilder`], XlaBuilder-style (seed
//! 004: Dot, DotGeneral, ConvWithGeneralPadding, Reduce, ReduceWindow, SelectAndScatter): each
//! appends one HLO instruction with its shape from `shape_inference` (default layout). Called
//! computations are passed whole, so that their signatures are checked; the instruction refers
//! to them by name (the caller adds them to the module, e.g. with [`ComputationBuilder::with_entry`]).

use super::{BuildError, ComputationBuilder};
use crate::element_type::ElementType;
use crate::hlo::contraction_numbers::{ConvolutionDimensionNumbers, DotDimensionNumbers, Window};
use crate::hlo::ir::{AttrValue, Attribute, HloComputation, Opcode};
use crate::shape::Shape;
use crate::shape_inference::{check_select_computation, InferenceContext};

fn attribute(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

/// The parameter shapes and root shape of a called computation.
///
/// Errors: a root index outside the computation.
fn signature(what: &str, c: &HloComputation) -> Result<(Vec<Shape>, Shape), BuildError> {
    match c.instructions.get(c.root) {
        Some(root) => Ok((c.parameter_shapes(), root.shape.clone())),
        None => Err(BuildError::Invalid(format!(
            "{what} computation `{}` has no valid root",
            c.name
        ))),
    }
}

fn with_result_type(result: Option<ElementType>) -> InferenceContext<'static> {
    InferenceContext {
        new_element_type: result,
        ..InferenceContext::default()
    }
}

impl ComputationBuilder {
    /// XlaBuilder's `Dot(lhs, rhs)` (seed 004, Dot): vector·vector (`[n]·[n]` → scalar),
    /// matrix·vector (`[m, k]·[k]` → `[m]`), matrix·matrix (`[m, k]·[k, n]` → `[m, n]`),
    /// contracting the last lhs dimension with the first rhs dimension. `result` is the result
    /// element type (XlaBuilder's `preferred_element_type`; `None`: the operands' type).
    ///
    /// Errors: an operand of rank other than 1 or 2; see
    /// [`ComputationBuilder::dot_general`].
    pub fn dot(
        &mut self,
        lhs: usize,
        rhs: usize,
        result: Option<ElementType>,
    ) -> Result<usize, BuildError> {
        let (lr, rr) = (self.array(lhs)?.rank(), self.array(rhs)?.rank());
        if !(1..=2).contains(&lr) || !(1..=2).contains(&rr) {
            return Err(BuildError::Invalid(format!(
                "dot: operands must have rank 1 or 2 (seed 004, Dot), got ranks {lr} and {rr}"
            )));
        }
        self.dot_general(lhs, rhs, &DotDimensionNumbers::for_dot(lr), result)
    }

    /// XlaBuilder's `DotGeneral(lhs, rhs, dimension_numbers)` (seed 004, DotGeneral): HLO
    /// `dot(lhs, rhs), lhs_batch_dims=..., lhs_contracting_dims=..., rhs_batch_dims=...,
    /// rhs_contracting_dims=...`. Result dimensions: batch, lhs free, rhs free; element type
    /// `result` (`None`: the operands' type; see
    /// [`crate::shape_inference::contraction_result_type`] for the wider types allowed).
    ///
    /// Errors: see [`crate::shape_inference::dot_output_dimensions`] and
    /// [`crate::shape_inference::contraction_result_type`]; operands of different element types.
    pub fn dot_general(
        &mut self,
        lhs: usize,
        rhs: usize,
        dimension_numbers: &DotDimensionNumbers,
        result: Option<ElementType>,
    ) -> Result<usize, BuildError> {
        self.inferred(
            Opcode::Dot,
            vec![lhs, rhs],
            dimension_numbers.to_attributes(),
            &with_result_type(result),
        )
    }

    /// XlaBuilder's `ConvGeneralDilated` (seed 004, ConvWithGeneralPadding): HLO
    /// `convolution(lhs, rhs), window={...}, dim_labels=...`, plus `feature_group_count=` and
    /// `batch_group_count=` when not 1 (as XLA prints them). The window carries strides, low/high
    /// padding (negative cuts), lhs (base) and rhs (window) dilations and window reversal, one
    /// dimension per spatial dimension; its sizes must be the kernel's spatial sizes. Element type
    /// `result` as in [`ComputationBuilder::dot_general`].
    ///
    /// Errors: see [`crate::shape_inference::convolution_output_dimensions`].
    #[allow(clippy::too_many_arguments)]
    pub fn convolution(
        &mut self,
        lhs: usize,
        rhs: usize,
        window: &Window,
        dimension_numbers: &ConvolutionDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
        result: Option<ElementType>,
    ) -> Result<usize, BuildError> {
        let mut attributes = vec![window.to_attribute(), dimension_numbers.to_attribute()];
        if feature_group_count != 1 {
            attributes.push(attribute(
                "feature_group_count",
                AttrValue::Int(feature_group_count),
            ));
        }
        if batch_group_count != 1 {
            attributes.push(attribute(
                "batch_group_count",
                AttrValue::Int(batch_group_count),
            ));
        }
        self.inferred(
            Opcode::Convolution,
            vec![lhs, rhs],
            attributes,
            &with_result_type(result),
        )
    }

    /// XlaBuilder's `Reduce(operands, init_values, computation, dimensions_to_reduce)` (seed 004,
    /// Reduce): HLO `reduce(operands..., inits...), dimensions={...}, to_apply=%computation`. The
    /// computation takes 2N scalars (accumulators, then elements) and returns N (a tuple when
    /// N > 1); the result is a tuple when N > 1.
    ///
    /// Errors: different operand and init counts; see
    /// [`crate::shape_inference::reduce_output_dimensions`] and
    /// [`crate::shape_inference::check_reducer`].
    pub fn reduce(
        &mut self,
        operands: &[usize],
        init_values: &[usize],
        computation: &HloComputation,
        dimensions: &[i64],
    ) -> Result<usize, BuildError> {
        let all = Self::operands_and_inits("reduce", operands, init_values)?;
        let (params, root) = signature("reduce", computation)?;
        let attributes = vec![
            attribute("dimensions", AttrValue::Ints(dimensions.to_vec())),
            attribute("to_apply", AttrValue::Computation(computation.name.clone())),
        ];
        let context = InferenceContext {
            callee: Some((&params, &root)),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::Reduce, all, attributes, &context)
    }

    /// XlaBuilder's `ReduceWindow` (seed 004, ReduceWindow): HLO `reduce-window(operands...,
    /// inits...), window={...}, to_apply=%computation`, the window having one dimension per
    /// operand dimension (`lhs_dilate` = base dilation, `rhs_dilate` = window dilation; no
    /// reversal). The computation as in [`ComputationBuilder::reduce`].
    ///
    /// Errors: different operand and init counts; see
    /// [`crate::shape_inference::window_output_dimensions`] and
    /// [`crate::shape_inference::check_reducer`].
    pub fn reduce_window(
        &mut self,
        operands: &[usize],
        init_values: &[usize],
        computation: &HloComputation,
        window: &Window,
    ) -> Result<usize, BuildError> {
        let all = Self::operands_and_inits("reduce-window", operands, init_values)?;
        let (params, root) = signature("reduce-window", computation)?;
        let attributes = vec![
            window.to_attribute(),
            attribute("to_apply", AttrValue::Computation(computation.name.clone())),
        ];
        let context = InferenceContext {
            callee: Some((&params, &root)),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::ReduceWindow, all, attributes, &context)
    }

    /// XlaBuilder's `SelectAndScatter(operand, select, window, source, init_value, scatter)`
    /// (seed 004, SelectAndScatter): HLO `select-and-scatter(operand, source, init_value),
    /// window={...}, select=%select, scatter=%scatter`. `select` is `(T, T) -> pred`, `scatter`
    /// `(T, T) -> T`; `source` has the dimensions of the window positions over `operand`; the
    /// result has the operand's shape.
    ///
    /// Errors: a `select` or `scatter` computation of the wrong signature; see
    /// [`crate::shape_inference::window_output_dimensions`].
    pub fn select_and_scatter(
        &mut self,
        operand: usize,
        select: &HloComputation,
        window: &Window,
        source: usize,
        init_value: usize,
        scatter: &HloComputation,
    ) -> Result<usize, BuildError> {
        let element_type = self.array(operand)?.element_type;
        let (select_params, select_root) = signature("select", select)?;
        check_select_computation(&select_params, &select_root, element_type)
            .map_err(|m| BuildError::Invalid(format!("select-and-scatter: {m}")))?;
        let (params, root) = signature("scatter", scatter)?;
        let attributes = vec![
            window.to_attribute(),
            attribute("select", AttrValue::Computation(select.name.clone())),
            attribute("scatter", AttrValue::Computation(scatter.name.clone())),
        ];
        let context = InferenceContext {
            callee: Some((&params, &root)),
            ..InferenceContext::default()
        };
        self.inferred(
            Opcode::SelectAndScatter,
            vec![operand, source, init_value],
            attributes,
            &context,
        )
    }

    fn operands_and_inits(
        what: &str,
        operands: &[usize],
        init_values: &[usize],
    ) -> Result<Vec<usize>, BuildError> {
        if operands.is_empty() || operands.len() != init_values.len() {
            return Err(BuildError::Invalid(format!(
                "{what}: {} operand(s) and {} init value(s); expected the same number, at least 1",
                operands.len(),
                init_values.len()
            )));
        }
        let mut all = operands.to_vec();
        all.extend_from_slice(init_values);
        Ok(all)
    }
}
