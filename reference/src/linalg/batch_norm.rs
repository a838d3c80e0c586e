//! `batch-norm-training`, `batch-norm-inference`, `batch-norm-grad` (seed 004, BatchNormTraining,
//! BatchNormInference, BatchNormGrad), exact.
//!
//! Per feature `l` (index `feature_index` of `x`, `N` elements each) with the exact rational
//! `μ_l = Σx/N` and `σ²_l = Σ(x − μ_l)²/N` (training; inference and grad take the given `mean`
//! and `variance`), `s_l = σ²_l + ε` with `ε` the f32 value of the attribute:
//! - training / inference: `y = γ_l·(x − μ_l)/√s_l + β_l`; training also returns `μ_l`, `σ²_l`;
//! - grad: `c_l = (1/N)·Σ ∇y·(x − μ_l)/s_l`, `d_l = (1/N)·Σ ∇y`,
//!   `∇x = γ_l/√s_l·(∇y − d_l − c_l·(x − μ_l))`, `∇γ_l = Σ ∇y·(x − μ_l)/√s_l`, `∇β_l = Σ ∇y`.
//!
//! Every output is `a/√s + b` with rational `a`, `b`, `s`, rounded once
//! ([`exact::round_affine_sqrt`]), or a rational rounded once. A feature whose inputs hold NaN or
//! ±inf, whose `s_l ≤ 0`, or (training) that has no elements gets NaN outputs (masked).

use super::exact;
use super::{element_format, extent, invalid, row_major_bits};
use crate::contraction::{array_from_row_major, collate, result_shapes};
use crate::interpreter::{self, Context};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;
use rayon::prelude::*;
use rug::Rational;

/// Which batch-norm operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `batch-norm-training(x, scale, offset)`.
    Training,
    /// `batch-norm-inference(x, scale, offset, mean, variance)`.
    Inference,
    /// `batch-norm-grad(x, scale, mean, variance, grad_output)`.
    Grad,
}

impl Kind {
    /// The HLO opcode name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Training => "batch-norm-training",
            Kind::Inference => "batch-norm-inference",
            Kind::Grad => "batch-norm-grad",
        }
    }
}

/// The exact inputs and statistics of one (finite) feature.
pub struct Feature {
    /// The feature's `x` values (in row-major order of `x`).
    pub x: Vec<Rational>,
    /// `γ_l` (`scale`).
    pub gamma: Rational,
    /// `β_l` (`offset`; 0 for grad).
    pub beta: Rational,
    /// `μ_l` (computed for training, given otherwise).
    pub mu: Rational,
    /// `σ²_l` (computed for training, given otherwise).
    pub var: Rational,
    /// `s_l = σ²_l + ε > 0`.
    pub s: Rational,
    /// `∇y` of the feature's elements (grad only; empty otherwise).
    pub dy: Vec<Rational>,
}

/// A validated batch-norm instruction with its exact per-feature data.
pub struct Prepared {
    /// Which operation.
    pub kind: Kind,
    /// The element format (f32 or f64).
    pub fmt: FloatFormat,
    /// Dimensions of `x`.
    pub dims: Vec<i64>,
    /// Per feature, the row-major offsets of its elements in `x`.
    pub groups: Vec<Vec<usize>>,
    /// Per feature, its data, or `None` when its outputs are implementation-defined (NaN or ±inf
    /// inputs, `s ≤ 0`, no elements in training).
    pub features: Vec<Option<Feature>>,
}

/// The exact values of an operand's elements (`None` for NaN and ±inf).
fn exact_values(fmt: FloatFormat, a: &ArrayLiteral) -> Vec<Option<Rational>> {
    row_major_bits(a)
        .into_iter()
        .map(|b| exact::rational(fmt, b as u64))
        .collect()
}

/// Validates a batch-norm instruction and computes its exact per-feature data.
///
/// Errors: [`BackendError::Unsupported`] for an element type other than f32 and f64;
/// [`BackendError::Invalid`] for a wrong operand count, mismatched types or dimensions, a missing
/// or out-of-range `feature_index`, or a missing `epsilon`.
pub fn prepare(
    kind: Kind,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Prepared, BackendError> {
    let op = kind.name();
    let count = match kind {
        Kind::Training => 3,
        _ => 5,
    };
    if operands.len() != count {
        return invalid(format!(
            "{op} takes {count} operands, {} given",
            operands.len()
        ));
    }
    let arrays = (0..count)
        .map(|i| interpreter::array(instr, operands, i))
        .collect::<Result<Vec<_>, _>>()?;
    let x = arrays[0];
    let (fmt, _) = element_format(op, x.element_type(), false)?;
    let dims = x.dimensions().to_vec();
    let fi = match instr.attr_int("feature_index") {
        Some(f) if f >= 0 && (f as usize) < dims.len() => f as usize,
        other => {
            return invalid(format!(
                "{op}: feature_index {other:?} is not a dimension of x {dims:?}"
            ))
        }
    };
    let Some(eps) = instr.attr_f64("epsilon") else {
        return invalid(format!("{op}: missing epsilon"));
    };
    // XLA stores epsilon as an f32: the attribute's value rounded to f32.
    let epsilon = Rational::from_f64(f64::from(eps as f32))
        .ok_or_else(|| BackendError::Invalid(format!("{op}: epsilon {eps} is not finite")))?;
    let features = extent(dims[fi]);
    // In grad, operand 4 (grad_output) has x's shape; every other operand is [F].
    for (i, a) in arrays.iter().enumerate().skip(1) {
        let expected: Vec<i64> = if kind == Kind::Grad && i == 4 {
            dims.clone()
        } else {
            vec![dims[fi]]
        };
        if a.element_type() != x.element_type() || a.dimensions() != expected.as_slice() {
            return invalid(format!(
                "{op}: operand {i} is {}, expected {}{expected:?}",
                a.shape(),
                x.element_type()
            ));
        }
    }
    let inner: usize = super::product(&dims[fi + 1..]);
    let mut groups = vec![Vec::new(); features];
    for o in 0..super::product(&dims) {
        groups[(o / inner.max(1)) % features.max(1)].push(o);
    }
    let values: Vec<Vec<Option<Rational>>> = arrays.iter().map(|a| exact_values(fmt, a)).collect();
    let feature = |l: usize| -> Option<Feature> {
        let g = &groups[l];
        let xs: Vec<Rational> = g
            .iter()
            .map(|&o| values[0][o].clone())
            .collect::<Option<_>>()?;
        let gamma = values[1][l].clone()?;
        let (beta, mu, var, dy) = match kind {
            Kind::Training => {
                if xs.is_empty() {
                    return None;
                }
                let n = Rational::from(xs.len());
                let mu = xs.iter().sum::<Rational>() / &n;
                let var = xs
                    .iter()
                    .map(|x| Rational::from(x - &mu).square())
                    .sum::<Rational>()
                    / n;
                (values[2][l].clone()?, mu, var, Vec::new())
            }
            Kind::Inference => (
                values[2][l].clone()?,
                values[3][l].clone()?,
                values[4][l].clone()?,
                Vec::new(),
            ),
            Kind::Grad => (
                Rational::new(),
                values[2][l].clone()?,
                values[3][l].clone()?,
                g.iter()
                    .map(|&o| values[4][o].clone())
                    .collect::<Option<_>>()?,
            ),
        };
        let s = Rational::from(&var + &epsilon);
        if s <= 0 {
            return None;
        }
        Some(Feature {
            x: xs,
            gamma,
            beta,
            mu,
            var,
            s,
            dy,
        })
    };
    let features = (0..features).into_par_iter().map(feature).collect();
    Ok(Prepared {
        kind,
        fmt,
        dims,
        groups,
        features,
    })
}

/// The grad statistics of a feature: `(Σ ∇y·(x − μ), c, d)` (exact).
pub fn grad_sums(f: &Feature) -> (Rational, Rational, Rational) {
    let n = Rational::from(f.x.len().max(1));
    let p: Rational =
        f.x.iter()
            .zip(&f.dy)
            .map(|(x, dy)| Rational::from(x - &f.mu) * dy)
            .sum();
    let c = Rational::from(&p / &n) / &f.s;
    let d = f.dy.iter().sum::<Rational>() / n;
    (p, c, d)
}

/// The rounded outputs of one feature: its elements of the first result, and (training, grad)
/// its two per-feature results.
fn feature_outputs(
    kind: Kind,
    fmt: FloatFormat,
    f: &Feature,
) -> Result<(Vec<u64>, u64, u64), BackendError> {
    let zero = Rational::new();
    match kind {
        Kind::Training | Kind::Inference => {
            let ys =
                f.x.iter()
                    .map(|x| {
                        let a = Rational::from(x - &f.mu) * &f.gamma;
                        exact::round_affine_sqrt(fmt, &a, &f.s, &f.beta, true)
                    })
                    .collect::<Result<_, _>>()?;
            Ok((
                ys,
                exact::round_rational(fmt, &f.mu),
                exact::round_rational(fmt, &f.var),
            ))
        }
        Kind::Grad => {
            let (p, c, d) = grad_sums(f);
            let dxs =
                f.x.iter()
                    .zip(&f.dy)
                    .map(|(x, dy)| {
                        let inner = Rational::from(dy - &d) - Rational::from(x - &f.mu) * &c;
                        exact::round_affine_sqrt(fmt, &(inner * &f.gamma), &f.s, &zero, true)
                    })
                    .collect::<Result<_, _>>()?;
            let dgamma = exact::round_affine_sqrt(fmt, &p, &f.s, &zero, true)?;
            let dbeta = exact::round_rational(fmt, &f.dy.iter().sum::<Rational>());
            Ok((dxs, dgamma, dbeta))
        }
    }
}

/// Runs one of the three operations into the instruction's result shape(s).
fn run(kind: Kind, instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, BackendError> {
    let p = prepare(kind, instr, operands)?;
    let leaves = if kind == Kind::Inference { 1 } else { 3 };
    let shapes = result_shapes(kind.name(), instr, leaves)?;
    let x_type = interpreter::array(instr, operands, 0)?.element_type();
    let features = p.groups.len() as i64;
    for (i, s) in shapes.iter().enumerate() {
        let dims: Vec<i64> = if i == 0 {
            p.dims.clone()
        } else {
            vec![features]
        };
        if s.element_type != x_type || s.dimensions != dims {
            return invalid(format!(
                "{}: result {i} is {s}, expected {x_type}{dims:?}",
                kind.name()
            ));
        }
    }
    let nan = p.fmt.nan_bits();
    let outputs: Vec<Option<(Vec<u64>, u64, u64)>> = p
        .features
        .par_iter()
        .map(|f| {
            f.as_ref()
                .map(|f| feature_outputs(kind, p.fmt, f))
                .transpose()
        })
        .collect::<Result<_, _>>()?;
    let mut first = vec![u128::from(nan); super::product(&p.dims)];
    let mut second = vec![u128::from(nan); p.groups.len()];
    let mut third = second.clone();
    for (l, out) in outputs.into_iter().enumerate() {
        let Some((ys, a, b)) = out else { continue };
        for (&o, y) in p.groups[l].iter().zip(ys) {
            first[o] = u128::from(y);
        }
        second[l] = u128::from(a);
        third[l] = u128::from(b);
    }
    let mut arrays = vec![array_from_row_major(shapes[0], &first)];
    if leaves == 3 {
        arrays.push(array_from_row_major(shapes[1], &second));
        arrays.push(array_from_row_major(shapes[2], &third));
    }
    Ok(collate(arrays))
}

/// The handler of `batch-norm-training`: the tuple `(y, batch_mean, batch_var)`.
pub(crate) fn batch_norm_training(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    super::arity(instr, operands, 3)?;
    run(Kind::Training, instr, operands)
}

/// The handler of `batch-norm-inference`: `y`.
pub(crate) fn batch_norm_inference(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    super::arity(instr, operands, 5)?;
    run(Kind::Inference, instr, operands)
}

/// The handler of `batch-norm-grad`: the tuple `(grad_operand, grad_scale, grad_offset)`.
pub(crate) fn batch_norm_grad(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    super::arity(instr, operands, 5)?;
    run(Kind::Grad, instr, operands)
}

#[cfg(test)]
#[path = "batch_norm_tests.rs"]
mod tests;
