//! Building computations in code, the way XlaBuilder does (seed 004).
//!
//! Each method appends an instruction whose shape comes from `shape_inference` (default layout,
//! unless [`ComputationBuilder::set_layout`] changes it) and returns its index. XlaBuilder's
//! implicit broadcasting — scalars, `broadcast_dimensions` for operands of different ranks,
//! degenerate (size-1) dimensions — is lowered to explicit `broadcast` (and `reshape`)
//! instructions before the operation, since HLO element-wise instructions take operands of
//! identical dimensions.
//!
//! Data movement (seed 004: Broadcast, BroadcastInDim, Reshape, Collapse, Transpose, Slice,
//! DynamicSlice, DynamicUpdateSlice, ConcatInDim, Pad, Rev, Iota, Gather, Scatter,
//! GetDimensionSize, SetDimensionSize, Copy, Tuple, GetTupleElement) is in `data_movement`;
//! contractions, reductions and windows (Dot, DotGeneral, ConvWithGeneralPadding, Reduce,
//! ReduceWindow, SelectAndScatter) in `contraction`.

mod contraction;
mod data_movement;

use super::ir::{AttrValue, Attribute, HloComputation, HloInstruction, HloModule, Opcode};
use crate::element_type::ElementType;
use crate::layout::Layout;
use crate::literal::Literal;
use crate::shape::{ArrayShape, Shape, ShapeError};
use crate::shape_inference::{
    broadcast_binary_dimensions, infer_shape_in, is_elementwise_binary, is_elementwise_unary,
    shapes_compatible, InferenceContext, ShapeInferenceError,
};

/// Why an instruction cannot be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// An operand (or instruction) index this builder did not return.
    #[error("operand index {0} is not an instruction of this computation")]
    UnknownOperand(usize),
    /// Shape inference rejected the operands or attributes.
    #[error(transparent)]
    Inference(#[from] ShapeInferenceError),
    /// A shape or layout that is not well formed (`Shape::validate`).
    #[error("invalid shape: {0}")]
    Shape(#[from] ShapeError),
    /// [`ComputationBuilder::add_instruction`]: the declared shape differs from the inferred one
    /// (in dimensions or element types).
    #[error("declared shape `{declared}` does not match the inferred `{inferred}`")]
    ShapeMismatch {
        declared: Box<Shape>,
        inferred: Box<Shape>,
    },
    /// Anything else (wrong opcode for the method, incompatible broadcast, ...), as a message.
    #[error("{0}")]
    Invalid(String),
}

/// Builds one computation. Parameters are named `p0`, `p1`, ... in call order; other instructions
/// `<opcode>.<index>`.
#[derive(Clone, Debug)]
pub struct ComputationBuilder {
    name: String,
    instructions: Vec<HloInstruction>,
    parameters: i64,
}

impl ComputationBuilder {
    /// An empty computation named `name` (an HLO name: `[A-Za-z0-9_.-]+`).
    pub fn new(name: impl Into<String>) -> ComputationBuilder {
        ComputationBuilder {
            name: name.into(),
            instructions: Vec::new(),
            parameters: 0,
        }
    }

    /// The instructions added so far.
    pub fn instructions(&self) -> &[HloInstruction] {
        &self.instructions
    }

    /// The shape of instruction `i`.
    pub fn shape(&self, i: usize) -> Result<&Shape, BuildError> {
        self.instructions
            .get(i)
            .map(|x| &x.shape)
            .ok_or(BuildError::UnknownOperand(i))
    }

    fn array(&self, i: usize) -> Result<&ArrayShape, BuildError> {
        let s = self.shape(i)?;
        s.as_array()
            .ok_or_else(|| BuildError::Invalid(format!("operand #{i} has non-array shape `{s}`")))
    }

    fn push(&mut self, mut instr: HloInstruction) -> usize {
        let index = self.instructions.len();
        if instr.name.is_empty() {
            instr.name = format!("{}.{index}", instr.opcode.name());
        }
        self.instructions.push(instr);
        index
    }

    fn plain(
        opcode: Opcode,
        shape: Shape,
        operands: Vec<usize>,
        attributes: Vec<Attribute>,
    ) -> HloInstruction {
        HloInstruction {
            name: String::new(),
            opcode,
            shape,
            operands,
            parameter_number: None,
            literal: None,
            attributes,
        }
    }

    /// Adds the next parameter (`parameter(N)` for the N-th call), named `pN`.
    ///
    /// Errors: an invalid shape (`Shape::validate`).
    pub fn parameter(&mut self, shape: Shape) -> Result<usize, BuildError> {
        shape.validate()?;
        let n = self.parameters;
        self.parameters += 1;
        Ok(self.push(HloInstruction {
            name: format!("p{n}"),
            parameter_number: Some(n),
            ..Self::plain(Opcode::Parameter, shape, vec![], vec![])
        }))
    }

    /// Adds a `constant` with the literal's shape.
    pub fn constant(&mut self, literal: Literal) -> usize {
        let shape = literal.shape();
        self.push(HloInstruction {
            literal: Some(literal),
            ..Self::plain(Opcode::Constant, shape, vec![], vec![])
        })
    }

    /// Adds an instruction with the inferred shape.
    fn inferred(
        &mut self,
        opcode: Opcode,
        operands: Vec<usize>,
        attributes: Vec<Attribute>,
        context: &InferenceContext,
    ) -> Result<usize, BuildError> {
        let shapes: Vec<&Shape> = operands
            .iter()
            .map(|&i| self.shape(i))
            .collect::<Result<_, _>>()?;
        let shape = infer_shape_in(opcode, &shapes, &attributes, context)?;
        Ok(self.push(Self::plain(opcode, shape, operands, attributes)))
    }

    /// An element-wise unary operation (seed 004, "Element-wise unary functions"): `abs`,
    /// `exponential`, `is-finite`, `real`, ...
    ///
    /// Errors: not an element-wise unary opcode; an operand that does not fit.
    pub fn unary(&mut self, opcode: Opcode, operand: usize) -> Result<usize, BuildError> {
        if !is_elementwise_unary(opcode) {
            return Err(BuildError::Invalid(format!(
                "{opcode} is not an element-wise unary operation"
            )));
        }
        self.inferred(opcode, vec![operand], vec![], &InferenceContext::default())
    }

    /// An element-wise binary operation on operands of the same dimensions and element type.
    ///
    /// Errors: not an element-wise binary opcode; operands that do not match.
    pub fn binary(&mut self, opcode: Opcode, lhs: usize, rhs: usize) -> Result<usize, BuildError> {
        if !is_elementwise_binary(opcode) {
            return Err(BuildError::Invalid(format!(
                "{opcode} is not an element-wise binary operation"
            )));
        }
        self.inferred(opcode, vec![lhs, rhs], vec![], &InferenceContext::default())
    }

    /// XlaBuilder's `Op(lhs, rhs, broadcast_dimensions)` (seed 004, "Element-wise binary arithmetic
    /// operations" and XLA's broadcasting rules; see
    /// [`crate::shape_inference::broadcast_binary_dimensions`]): a scalar operand is broadcast; a
    /// lower-rank operand is broadcast with `broadcast_dimensions` mapping its dimensions into the
    /// higher-rank operand's; degenerate (size-1) dimensions then expand. Emits `broadcast` (and
    /// `reshape`, for degenerate dimensions) instructions, then the operation.
    ///
    /// Errors: incompatible dimensions or `broadcast_dimensions`; see [`ComputationBuilder::binary`].
    pub fn binary_broadcast(
        &mut self,
        opcode: Opcode,
        lhs: usize,
        rhs: usize,
        broadcast_dimensions: &[i64],
    ) -> Result<usize, BuildError> {
        if !is_elementwise_binary(opcode) {
            return Err(BuildError::Invalid(format!(
                "{opcode} is not an element-wise binary operation"
            )));
        }
        let (l, r) = self.broadcast_operands(lhs, rhs, broadcast_dimensions)?;
        self.binary(opcode, l, r)
    }

    /// Broadcasts two operands to their common dimensions, as XlaBuilder's `BinaryOp` does.
    fn broadcast_operands(
        &mut self,
        lhs: usize,
        rhs: usize,
        broadcast_dimensions: &[i64],
    ) -> Result<(usize, usize), BuildError> {
        let (ld, rd) = (
            self.array(lhs)?.dimensions.clone(),
            self.array(rhs)?.dimensions.clone(),
        );
        let out = broadcast_binary_dimensions(&ld, &rd, broadcast_dimensions)
            .map_err(BuildError::Invalid)?;
        let mapping = |d: &[i64]| -> Vec<i64> {
            if d.len() == out.len() {
                (0..out.len() as i64).collect()
            } else if d.is_empty() {
                vec![]
            } else {
                broadcast_dimensions.to_vec()
            }
        };
        let l = self.broadcast_to(lhs, &out, &mapping(&ld))?;
        let r = self.broadcast_to(rhs, &out, &mapping(&rd))?;
        Ok((l, r))
    }

    /// Broadcasts `operand` to `out` (XlaBuilder's in-dimension broadcast to the output rank, then
    /// its degenerate-dimension broadcast sequence: reshape away the size-1 dimensions that expand,
    /// then broadcast).
    fn broadcast_to(
        &mut self,
        operand: usize,
        out: &[i64],
        mapping: &[i64],
    ) -> Result<usize, BuildError> {
        let mut x = operand;
        let mut dims = self.array(x)?.dimensions.clone();
        if dims.len() < out.len() {
            // Rank expansion: mapped dimensions keep their sizes, the others take the output's.
            let mut to = out.to_vec();
            for (i, &d) in mapping.iter().enumerate() {
                to[d as usize] = dims[i];
            }
            x = self.broadcast(x, &to, mapping)?;
            dims = to;
        }
        if dims == out {
            return Ok(x);
        }
        // Degenerate dimensions: keep those that already match, reshape the others away, broadcast.
        let keep: Vec<i64> = (0..out.len())
            .filter(|&i| dims[i] == out[i])
            .map(|i| i as i64)
            .collect();
        let kept: Vec<i64> = keep.iter().map(|&i| dims[i as usize]).collect();
        let ty = self.array(x)?.element_type;
        let reshaped =
            self.add_instruction(Opcode::Reshape, Shape::array(ty, kept), vec![x], vec![])?;
        self.broadcast(reshaped, out, &keep)
    }

    /// `compare` with `direction=` (EQ, NE, GE, GT, LE, LT) and optional `type=` (FLOAT,
    /// TOTALORDER, SIGNED, UNSIGNED) (seed 004, "Element-wise comparison operations"). Operands are
    /// broadcast as in [`ComputationBuilder::binary_broadcast`] with no `broadcast_dimensions`
    /// (equal shapes, a scalar, or degenerate dimensions).
    ///
    /// Errors: unknown direction or type, a type that does not fit the operands, incompatible shapes.
    pub fn compare(
        &mut self,
        lhs: usize,
        rhs: usize,
        direction: &str,
        comparison_type: Option<&str>,
    ) -> Result<usize, BuildError> {
        self.compare_broadcast(lhs, rhs, &[], direction, comparison_type)
    }

    /// XlaBuilder's comparison form with `broadcast_dimensions` for operands of different rank
    /// (seed 004, "Element-wise comparison operations"), lowered as in
    /// [`ComputationBuilder::binary_broadcast`].
    ///
    /// Errors: as [`ComputationBuilder::compare`] and [`ComputationBuilder::binary_broadcast`].
    pub fn compare_broadcast(
        &mut self,
        lhs: usize,
        rhs: usize,
        broadcast_dimensions: &[i64],
        direction: &str,
        comparison_type: Option<&str>,
    ) -> Result<usize, BuildError> {
        let (l, r) = self.broadcast_operands(lhs, rhs, broadcast_dimensions)?;
        let mut attributes = vec![Attribute {
            name: "direction".into(),
            value: AttrValue::Enum(direction.into()),
        }];
        if let Some(t) = comparison_type {
            attributes.push(Attribute {
                name: "type".into(),
                value: AttrValue::Enum(t.into()),
            });
        }
        self.inferred(
            Opcode::Compare,
            vec![l, r],
            attributes,
            &InferenceContext::default(),
        )
    }

    /// `select(pred, on_true, on_false)` (seed 004, Select); a scalar `pred` is broadcast to the
    /// operands' dimensions first, as XlaBuilder does.
    ///
    /// Errors: `pred` not of type pred, mismatched operands.
    pub fn select(
        &mut self,
        pred: usize,
        on_true: usize,
        on_false: usize,
    ) -> Result<usize, BuildError> {
        let p = self.array(pred)?;
        let t = self.array(on_true)?;
        let pred = if p.is_scalar() && !t.is_scalar() {
            let out = t.dimensions.clone();
            self.broadcast(pred, &out, &[])?
        } else {
            pred
        };
        self.inferred(
            Opcode::Select,
            vec![pred, on_true, on_false],
            vec![],
            &InferenceContext::default(),
        )
    }

    /// `clamp(min, operand, max)` (seed 004, Clamp); `min` and `max` may be scalars.
    ///
    /// Errors: mismatched element types or dimensions.
    pub fn clamp(&mut self, min: usize, operand: usize, max: usize) -> Result<usize, BuildError> {
        self.inferred(
            Opcode::Clamp,
            vec![min, operand, max],
            vec![],
            &InferenceContext::default(),
        )
    }

    /// `convert` to `to` (seed 004, ConvertElementType).
    ///
    /// Errors: a non-array operand; complex to real.
    pub fn convert(&mut self, operand: usize, to: ElementType) -> Result<usize, BuildError> {
        let context = InferenceContext {
            new_element_type: Some(to),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::Convert, vec![operand], vec![], &context)
    }

    /// `bitcast-convert` to `to` (seed 004, BitcastConvertType): from B to B' < B bits adds a
    /// minor-most dimension of size B/B'; from B to B' > B bits requires the last dimension to be
    /// B'/B and drops it.
    ///
    /// Errors: a last dimension that does not fit; complex and real types mixed.
    pub fn bitcast_convert(
        &mut self,
        operand: usize,
        to: ElementType,
    ) -> Result<usize, BuildError> {
        let context = InferenceContext {
            new_element_type: Some(to),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::BitcastConvert, vec![operand], vec![], &context)
    }

    /// `reduce-precision` with `exponent_bits=` and `mantissa_bits=` (seed 004, ReducePrecision).
    ///
    /// Errors: `exponent_bits < 1`, `mantissa_bits < 0`, a non-float operand.
    pub fn reduce_precision(
        &mut self,
        operand: usize,
        exponent_bits: i64,
        mantissa_bits: i64,
    ) -> Result<usize, BuildError> {
        let attributes = vec![
            Attribute {
                name: "exponent_bits".into(),
                value: AttrValue::Int(exponent_bits),
            },
            Attribute {
                name: "mantissa_bits".into(),
                value: AttrValue::Int(mantissa_bits),
            },
        ];
        self.inferred(
            Opcode::ReducePrecision,
            vec![operand],
            attributes,
            &InferenceContext::default(),
        )
    }

    /// HLO `broadcast` to `out_dimensions`, operand dimension `i` becoming output dimension
    /// `broadcast_dimensions[i]` (`dimensions=` in HLO text; sizes must be equal).
    ///
    /// Errors: see [`crate::shape_inference::check_broadcast`].
    pub fn broadcast(
        &mut self,
        operand: usize,
        out_dimensions: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<usize, BuildError> {
        if let Some(&d) = out_dimensions.iter().find(|&&d| d < 0) {
            return Err(BuildError::Invalid(format!(
                "output dimension size {d} is negative"
            )));
        }
        let attributes = vec![Attribute {
            name: "dimensions".into(),
            value: AttrValue::Ints(broadcast_dimensions.to_vec()),
        }];
        let context = InferenceContext {
            result_dimensions: Some(out_dimensions),
            ..InferenceContext::default()
        };
        self.inferred(Opcode::Broadcast, vec![operand], attributes, &context)
    }

    /// Adds any instruction with a declared shape. Where `shape_inference` implements the opcode
    /// (with the declared shape as context: element type, dimensions, the callee is unknown here),
    /// the declared shape must match it; otherwise it is taken as given.
    ///
    /// Errors: `parameter`/`constant` (use [`ComputationBuilder::parameter`],
    /// [`ComputationBuilder::constant`]), unknown operands, an invalid shape, a shape that does
    /// not match inference, or operands inference rejects.
    pub fn add_instruction(
        &mut self,
        opcode: Opcode,
        shape: Shape,
        operands: Vec<usize>,
        attributes: Vec<Attribute>,
    ) -> Result<usize, BuildError> {
        if matches!(opcode, Opcode::Parameter | Opcode::Constant) {
            return Err(BuildError::Invalid(format!(
                "use ComputationBuilder::{} for {opcode}",
                opcode.name()
            )));
        }
        shape.validate()?;
        let shapes: Vec<&Shape> = operands
            .iter()
            .map(|&i| self.shape(i))
            .collect::<Result<_, _>>()?;
        match infer_shape_in(
            opcode,
            &shapes,
            &attributes,
            &InferenceContext::from_declared(&shape),
        ) {
            Ok(inferred) if !shapes_compatible(&inferred, &shape) => {
                return Err(BuildError::ShapeMismatch {
                    declared: Box::new(shape),
                    inferred: Box::new(inferred),
                })
            }
            Err(e) if !e.is_not_inferable() => return Err(e.into()),
            _ => {}
        }
        Ok(self.push(Self::plain(opcode, shape, operands, attributes)))
    }

    /// Gives instruction `instr` (an array) a layout.
    ///
    /// Errors: unknown instruction, non-array shape, or a layout that does not fit its dimensions.
    pub fn set_layout(&mut self, instr: usize, layout: Layout) -> Result<(), BuildError> {
        let i = self
            .instructions
            .get_mut(instr)
            .ok_or(BuildError::UnknownOperand(instr))?;
        let Shape::Array(a) = &mut i.shape else {
            return Err(BuildError::Invalid(format!(
                "instruction #{instr} is not an array"
            )));
        };
        layout.validate(&a.dimensions).map_err(ShapeError::from)?;
        a.layout = layout;
        if let Some(Literal::Array(l)) = &i.literal {
            // A constant's literal keeps the instruction's shape (and so its layout).
            let relaid = l.relayout(a.layout.clone());
            i.literal = Some(Literal::Array(relaid));
        }
        Ok(())
    }

    /// The computation with instruction `root` as its root.
    ///
    /// Errors: `root` is not an instruction of this builder (nothing built yet, or a foreign index).
    pub fn try_build(self, root: usize) -> Result<HloComputation, BuildError> {
        if root >= self.instructions.len() {
            return Err(BuildError::UnknownOperand(root));
        }
        Ok(HloComputation {
            name: self.name,
            instructions: self.instructions,
            root,
        })
    }

    /// The computation with instruction `root` (an index this builder returned) as its root.
    ///
    /// # Panics
    /// When `root` is not an index returned by this builder — a programming error; use
    /// [`ComputationBuilder::try_build`] to get an error instead.
    pub fn build(self, root: usize) -> HloComputation {
        match self.try_build(root) {
            Ok(c) => c,
            Err(e) => panic!("ComputationBuilder::build: {e}"),
        }
    }
}

impl HloModule {
    /// A module named `name` whose entry is `entry`; `others` (called computations) come first, in
    /// order, as XLA prints them. Header attributes are empty.
    pub fn with_entry(name: &str, entry: HloComputation, others: Vec<HloComputation>) -> HloModule {
        let mut computations = others;
        let index = computations.len();
        computations.push(entry);
        HloModule {
            name: name.to_string(),
            header_attributes: Vec::new(),
            computations,
            entry: index,
        }
    }
}
