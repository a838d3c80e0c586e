//! Single-operation cases of the data-movement family (seed 004: Broadcast, BroadcastInDim,
//! Reshape, Collapse, Transpose, Slice, DynamicSlice, DynamicUpdateSlice, ConcatInDim, Pad, Rev,
//! Iota, Gather, Scatter, Tuple, GetTupleElement, GetDimensionSize, SetDimensionSize, Copy), valid
//! by construction: attributes are drawn from what the operand shapes allow, never generated and
//! rejected. Every parameter and the result get random layouts (permutations and padding), so
//! each case checks the operation under layouts as well.
//!
//! Index operands (dynamic-slice starts, gather and scatter indices) are mostly in range, and
//! sometimes negative or past the end, to exercise the clamping and skipping rules.

mod dynamic;
mod indexing;
mod reshaping;
mod slicing;

use super::elementwise::{module_name, Built, CaseSpec};
use super::rng::Rng;
use super::shapes;
use super::values::{self, ValueHints};
use conformance_spec::catalog::Signature;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{AttrValue, Attribute, HloComputation, HloModule};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// Integer types an index operand may have (seed 004: any integral type).
pub(crate) const INDEX_TYPES: &[ElementType] = &[
    ElementType::S8,
    ElementType::S16,
    ElementType::S32,
    ElementType::S64,
    ElementType::U8,
    ElementType::U16,
    ElementType::U32,
    ElementType::U64,
];

/// Building state shared by the family's generators.
pub(crate) struct Gen<'a, 'r> {
    pub rng: &'a mut Rng<'r>,
    pub spec: &'a CaseSpec<'a>,
    pub b: ComputationBuilder,
    pub args: Vec<Literal>,
    /// Called computations (scatter's update computation).
    pub called: Vec<HloComputation>,
}

impl<'a, 'r> Gen<'a, 'r> {
    /// A fresh building state for one case of `spec`, computation `main`.
    pub fn new(rng: &'a mut Rng<'r>, spec: &'a CaseSpec<'a>) -> Gen<'a, 'r> {
        Gen {
            rng,
            spec,
            b: ComputationBuilder::new("main"),
            args: Vec::new(),
            called: Vec::new(),
        }
    }

    /// The case: the module of entry computation `main` rooted at `root` (named after the
    /// entry `spec.op`), with the called computations, verified, and its arguments.
    ///
    /// Errors: the module does not build or verify (a generator bug, with the module's text).
    pub fn into_built(self, root: usize) -> Result<Built, String> {
        let id = &self.spec.op.id;
        let computation = self.b.try_build(root).map_err(|e| e.to_string())?;
        let module = HloModule::with_entry(&module_name(id), computation, self.called);
        conformance_spec::shape_inference::verify_module(&module)
            .map_err(|e| format!("{id}: generated an invalid module: {e}\n{module}"))?;
        Ok(Built {
            module,
            args: self.args,
        })
    }
}

impl Gen<'_, '_> {
    /// Random dimensions within the sweep's limits, of rank at least `min_rank` (missing
    /// dimensions are added as minor ones of size 1 to 3; never a redraw, so a choice sequence
    /// that runs out of choices still ends).
    pub fn dims(&mut self, min_rank: usize) -> Vec<i64> {
        let mut d = shapes::dimensions(self.rng, self.spec.shapes);
        while d.len() < min_rank {
            d.push(self.rng.range_i64(1, 3));
        }
        d
    }

    /// A random layout for `dims`.
    pub fn layout(&mut self, dims: &[i64]) -> conformance_spec::layout::Layout {
        shapes::layout(self.rng, dims, self.spec.shapes)
    }

    /// A parameter of `ty` and `dims` with a random layout and values from the sweep's classes.
    pub fn data(&mut self, ty: ElementType, dims: &[i64]) -> Result<usize, String> {
        let n: i64 = dims.iter().product();
        let bits: Vec<u128> = (0..n)
            .map(|_| values::element(self.rng, ty, &ValueHints::default(), self.spec.values))
            .collect();
        self.param_bits(ty, dims, &bits)
    }

    /// As [`Gen::data`], in the default (row-major) layout without padding: the layout frameworks
    /// give their arrays.
    pub fn data_row_major(&mut self, ty: ElementType, dims: &[i64]) -> Result<usize, String> {
        let n: i64 = dims.iter().product();
        let bits: Vec<u128> = (0..n)
            .map(|_| values::element(self.rng, ty, &ValueHints::default(), self.spec.values))
            .collect();
        let shape = ArrayShape::new(ty, dims.to_vec());
        let lit = ArrayLiteral::from_bits(shape.clone(), &bits).map_err(|e| e.to_string())?;
        self.args.push(lit.into());
        self.b
            .parameter(Shape::Array(shape))
            .map_err(|e| e.to_string())
    }

    /// A literal of `shape` (its element type, dimensions and layout) holding values from the
    /// sweep's classes: another device's or another queue entry's values for a shape already
    /// drawn.
    pub fn values(&mut self, shape: &ArrayShape) -> Result<ArrayLiteral, String> {
        let ty = shape.element_type;
        let bits: Vec<u128> = (0..shape.element_count())
            .map(|_| values::element(self.rng, ty, &ValueHints::default(), self.spec.values))
            .collect();
        Ok(
            ArrayLiteral::from_bits(ArrayShape::new(ty, shape.dimensions.clone()), &bits)
                .map_err(|e| e.to_string())?
                .relayout(shape.layout.clone()),
        )
    }

    /// A parameter holding `bits` (row-major) with a random layout.
    pub fn param_bits(
        &mut self,
        ty: ElementType,
        dims: &[i64],
        bits: &[u128],
    ) -> Result<usize, String> {
        let layout = self.layout(dims);
        let shape = ArrayShape::new(ty, dims.to_vec());
        let lit = ArrayLiteral::from_bits(shape.clone(), bits)
            .map_err(|e| e.to_string())?
            .relayout(layout.clone());
        self.args.push(lit.into());
        self.b
            .parameter(Shape::Array(shape.with_layout(layout)))
            .map_err(|e| e.to_string())
    }

    /// A parameter of index type `ty` holding `values` (row-major), wrapped into the type.
    pub fn index_param(
        &mut self,
        ty: ElementType,
        dims: &[i64],
        values: &[i128],
    ) -> Result<usize, String> {
        let bits: Option<Vec<u128>> = values
            .iter()
            .map(|&v| ty.integer_to_bits(v).map(u128::from))
            .collect();
        let bits = bits.ok_or_else(|| format!("{ty} is not an index type"))?;
        self.param_bits(ty, dims, &bits)
    }

    /// A random index type.
    pub fn index_type(&mut self) -> ElementType {
        *self.rng.pick(INDEX_TYPES)
    }

    /// A start index for a window of `size` in a dimension of `dim`: mostly a valid start, one
    /// time in five outside `[0, dim - size]` (negative, or past the end), wrapped into `ty` by
    /// the caller (a negative value in an unsigned type becomes a large one).
    pub fn start_index(&mut self, dim: i64, size: i64) -> i128 {
        let last = (dim - size).max(0);
        if self.rng.chance(0.2) {
            let v = if self.rng.chance(0.5) {
                -self.rng.range_i64(1, 3)
            } else {
                last + self.rng.range_i64(1, 3)
            };
            v as i128
        } else {
            self.rng.range_i64(0, last) as i128
        }
    }

    /// Adds an instruction with a declared shape (random layout for arrays).
    pub fn add(
        &mut self,
        opcode: conformance_spec::hlo::Opcode,
        shape: Shape,
        operands: Vec<usize>,
        attributes: Vec<Attribute>,
    ) -> Result<usize, String> {
        let shape = match shape {
            Shape::Array(a) => {
                let layout = self.layout(&a.dimensions);
                Shape::Array(a.with_layout(layout))
            }
            other => other,
        };
        self.b
            .add_instruction(opcode, shape, operands, attributes)
            .map_err(|e| format!("{opcode}: {e}"))
    }
}

/// `name={...}` of integers.
pub(crate) fn ints(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

/// `name=N`.
pub(crate) fn int(name: &str, v: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Int(v),
    }
}

/// `name=true|false`.
pub(crate) fn boolean(name: &str, v: bool) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Bool(v),
    }
}

/// An array shape with the default layout (the caller's `add` gives it a random one).
pub(crate) fn array(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims.to_vec()))
}

/// Builds one case of a data-movement entry.
///
/// Errors: the entry's signature is not a data-movement one, or the generator built an invalid
/// module (a bug, with the reason).
pub fn build(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let mut g = Gen::new(rng, spec);
    let ty = spec.element_type;
    let root = match spec.op.signature {
        Signature::Broadcast => reshaping::broadcast(&mut g, ty)?,
        Signature::BroadcastInDim => reshaping::broadcast_in_dim(&mut g, ty)?,
        Signature::Reshape => reshaping::reshape(&mut g, ty)?,
        Signature::ReshapeReordering => reshaping::reshape_reordering(&mut g, ty)?,
        Signature::Collapse => reshaping::collapse(&mut g, ty)?,
        Signature::Transpose => reshaping::transpose(&mut g, ty)?,
        Signature::Reverse => reshaping::reverse(&mut g, ty)?,
        Signature::Copy => reshaping::copy(&mut g, ty)?,
        Signature::Iota => reshaping::iota(&mut g, ty)?,
        Signature::Tuple => reshaping::tuple(&mut g, ty)?,
        Signature::GetTupleElement => reshaping::get_tuple_element(&mut g, ty)?,
        Signature::GetDimensionSize if g.rng.chance(0.5) => {
            reshaping::get_dimension_size(&mut g, ty)?
        }
        Signature::GetDimensionSize => dynamic::chain(&mut g, ty, true)?,
        Signature::SetDimensionSize => dynamic::chain(&mut g, ty, false)?,
        Signature::Slice => slicing::slice(&mut g, ty)?,
        Signature::DynamicSlice => slicing::dynamic_slice(&mut g, ty)?,
        Signature::DynamicUpdateSlice => slicing::dynamic_update_slice(&mut g, ty)?,
        Signature::Concatenate => slicing::concatenate(&mut g, ty)?,
        Signature::Pad => slicing::pad(&mut g, ty)?,
        Signature::Gather => indexing::gather(&mut g, ty)?,
        Signature::Scatter => indexing::scatter(&mut g, ty)?,
        other => {
            return Err(format!(
                "{}: {other:?} is not a data-movement signature",
                spec.op.id
            ))
        }
    };
    g.into_built(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every data-movement entry of the catalog, on every element type it lists, builds valid
    /// modules whose arguments match their parameters, and the reference runs them.
    #[test]
    fn every_entry_builds_valid_cases() {
        let built = crate::generate::test_support::build_every_entry(
            |op| {
                !op.signature.is_elementwise()
                    && !crate::generate::contraction::is_contraction(op.signature)
                    && !crate::generate::control_flow::is_control_flow(op.signature)
                    && !crate::generate::linalg::is_linalg(op.signature)
                    && !crate::generate::random_ops::is_random(op.signature)
                    && !crate::generate::collective::is_collective(op.signature)
                    && !crate::generate::host_transfer::is_host_transfer(op.signature)
            },
            6,
            build,
        );
        assert!(built > 1000, "only {built} data-movement cases built");
    }
}
