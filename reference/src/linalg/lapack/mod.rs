//! LAPACK custom calls (`custom-call` with a `lapack_<t><routine>_ffi` target; the registry is
//! `conformance_spec::custom_call`, the semantics `docs/custom-calls.md`), evaluated exactly or at
//! a precision far beyond the result format's, each result rounded once.
//!
//! Where the routine's result is unique (potrf's factor, trsm's solution, orgqr's product of
//! given reflectors) there is one answer. Where it is not (getrf's pivots on near-ties, geqrf's
//! reflector signs, syevd's and gesdd/gesvd's vector signs and bases of clustered subspaces), the
//! reference has a canonical choice ([`evaluate`] with `got = None`, what the interpreter
//! returns) and, given a backend's result, the exact decomposition *in that backend's gauge*
//! ([`evaluate`] with `got = Some(..)`): the same pivots when they are admissible, the same
//! signs, the reference's invariant subspace rotated onto the backend's basis. Comparing a
//! backend with that, elementwise within the error bound, compares exactly what is unique.
//!
//! Every routine reports, per output element, the ingredients of its error bound
//! ([`ErrorScale`] under the catalog's `error_bound: lapack`): `n` is the bound's whole growth
//! factor `c·f(dimensions)` (documented per routine), `kappa` the condition number, `scale` the
//! magnitude in result units; `scale = 0` (with `masked = false`) means the element is exact
//! (integers, copied elements); `masked` an implementation-defined element.

pub mod getrf;
pub mod householder;
pub mod potrf;
pub mod spectral;
pub mod trsm;

use super::ErrorScale;
use crate::interpreter::{self, Context};
use conformance_spec::custom_call::{LapackCall, Routine};
use conformance_spec::hlo::ir::{HloInstruction, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::BackendError;

/// One evaluation of a LAPACK call: the whole result (a tuple for potrf, getrf, geqrf, syevd,
/// gesdd/gesvd; an array for trsm and orgqr) and, per array leaf (in order) and per element
/// (logical row-major), its [`ErrorScale`].
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub result: Literal,
    pub scales: Vec<Vec<ErrorScale>>,
}

/// An exact element's scale (integers, copied elements): compared under the entry's budget.
pub(crate) fn exact_scale(n: u64) -> ErrorScale {
    ErrorScale {
        n,
        kappa: 1.0,
        scale: 0.0,
        masked: false,
    }
}

/// An implementation-defined element's scale.
pub(crate) fn masked_scale(n: u64) -> ErrorScale {
    ErrorScale {
        n,
        kappa: f64::INFINITY,
        scale: f64::INFINITY,
        masked: true,
    }
}

/// Evaluates `call` on `operands` (validated against `shape`, the instruction's result shape,
/// whose layouts the result takes). `got`: a backend's result of the same shape whose gauge
/// (pivots, signs, subspace bases) the evaluation adopts where the semantics leave it free;
/// `None` for the canonical choice. `want_scales`: compute [`Evaluation::scales`] (empty
/// otherwise).
///
/// Errors: [`BackendError::Invalid`] for operands that do not fit the call;
/// [`BackendError::Unsupported`] for an element type a routine's reference does not evaluate.
pub fn evaluate(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let shapes: Vec<_> = operands.iter().map(|a| a.shape()).collect();
    let expected = call.result_shape(&shapes).map_err(BackendError::Invalid)?;
    if !expected.compatible(shape) {
        return Err(BackendError::Invalid(format!(
            "`{}`: result shape {shape} does not match {expected} (docs/custom-calls.md)",
            call.target()
        )));
    }
    let mut e = match call.routine {
        Routine::Potrf => potrf::evaluate(call, operands, shape, got, want_scales),
        Routine::Trsm => trsm::evaluate(call, operands, shape, got, want_scales),
        Routine::Getrf => getrf::evaluate(call, operands, shape, got, want_scales),
        Routine::Geqrf => householder::geqrf(call, operands, shape, got, want_scales),
        Routine::Orgqr => householder::orgqr(call, operands, shape, got, want_scales),
        Routine::Syevd => spectral::syevd(call, operands, shape, got, want_scales),
        Routine::Gesdd | Routine::Gesvd => spectral::svd(call, operands, shape, got, want_scales),
    }?;
    if let Some(g) = got {
        // getrf: only values LAPACK could return (a row of the remaining block; 0..=k).
        let dims = |leaf: usize| {
            shape
                .array_leaves()
                .get(leaf)
                .map(|a| {
                    a.dimensions
                        .iter()
                        .map(|&d| d.max(0) as usize)
                        .collect::<Vec<usize>>()
                })
                .unwrap_or_default()
        };
        let (lu, ipiv) = (dims(0), dims(1));
        let m = lu.len().checked_sub(2).map_or(0, |r| lu[r]);
        let k = ipiv.last().copied().unwrap_or(0);
        let getrf = call.routine == Routine::Getrf;
        let valid = |leaf: usize, index: usize, value: i64| -> bool {
            match (getrf, leaf) {
                (false, _) => true,
                (true, 1) => value > (index % k.max(1)) as i64 && value <= m as i64,
                (true, _) => (0..=k as i64).contains(&value),
            }
        };
        adopt_masked_integers(&mut e, g, valid);
    }
    Ok(e)
}

/// In the gauge of `got`: each masked element of an integer leaf (`ipiv`, `info` where the
/// precision or a non-finite input leaves them implementation-defined) takes the backend's value,
/// so that the result agrees there whether or not a comparison honours the mask of an integer
/// element. Float leaves are left alone (masked float elements are skipped by the bound).
/// `valid(leaf, element, value)`: whether the backend's value is one the routine can return.
fn adopt_masked_integers(
    e: &mut Evaluation,
    got: &Literal,
    valid: impl Fn(usize, usize, i64) -> bool,
) {
    let got_leaves = got.array_leaves();
    let mine = e.result.array_leaves();
    let mut replaced: Vec<Option<ArrayLiteral>> = vec![None; mine.len()];
    for (i, (leaf, scales)) in mine.iter().zip(&e.scales).enumerate() {
        let ty = leaf.element_type();
        if ty.float_format().is_some() || !scales.iter().any(|s| s.masked) {
            continue;
        }
        let Some(g) = got_leaves.get(i) else { continue };
        if g.element_type() != ty || g.shape().element_count() != leaf.shape().element_count() {
            continue;
        }
        let (mut bits, theirs) = (leaf.logical_bits(), g.logical_bits());
        if bits.len() != scales.len() || theirs.len() != bits.len() {
            continue;
        }
        for (o, ((b, t), s)) in bits.iter_mut().zip(&theirs).zip(scales).enumerate() {
            if s.masked && valid(i, o, i64::from(*t as u32 as i32)) {
                *b = *t;
            }
        }
        replaced[i] = Some(crate::contraction::array_from_row_major(
            leaf.shape(),
            &bits,
        ));
    }
    if replaced.iter().all(Option::is_none) {
        return;
    }
    e.result = match &e.result {
        Literal::Tuple(parts) => Literal::Tuple(
            parts
                .iter()
                .zip(replaced)
                .map(|(p, r)| r.map_or_else(|| p.clone(), Literal::Array))
                .collect(),
        ),
        Literal::Array(a) => Literal::Array(
            replaced
                .into_iter()
                .next()
                .flatten()
                .unwrap_or_else(|| a.clone()),
        ),
        other => other.clone(),
    };
}

/// The interpreter's handler for `custom-call`: the canonical evaluation. An unknown target is
/// [`BackendError::Unsupported`] naming it.
pub(crate) fn custom_call(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let call = LapackCall::from_instruction(instr).map_err(|e| {
        if conformance_spec::custom_call::routine_of(instr).is_none() {
            BackendError::Unsupported(e)
        } else {
            BackendError::Invalid(e)
        }
    })?;
    let arrays = (0..operands.len())
        .map(|i| interpreter::array(instr, operands, i))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(evaluate(&call, &arrays, &instr.shape, None, false)?.result)
}

/// For a module whose entry root is a LAPACK custom call: the reference's evaluation in the gauge
/// of `got` (a backend's result; `None`: canonical), with error scales. `Ok(None)` when the root
/// is not a custom call to a known target. The root's operands are evaluated by the reference.
///
/// Errors: those of [`interpreter::execute`] and [`evaluate`].
pub fn aligned(
    module: &HloModule,
    args: &[Literal],
    got: Option<&Literal>,
) -> Result<Option<Evaluation>, BackendError> {
    let root = module.entry_computation().root_instruction();
    if root.opcode != Opcode::CustomCall {
        return Ok(None);
    }
    let Ok(call) = LapackCall::from_instruction(root) else {
        return Ok(None);
    };
    let operands = interpreter::root_operands(module, args)?;
    let refs: Vec<&Literal> = operands.iter().collect();
    let arrays = (0..refs.len())
        .map(|i| interpreter::array(root, &refs, i))
        .collect::<Result<Vec<_>, _>>()?;
    evaluate(&call, &arrays, &root.shape, got, true).map(Some)
}
