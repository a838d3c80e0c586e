//! Reading the numerical family (`stablehlo.fft`, `stablehlo.cholesky`,
//! `stablehlo.triangular_solve`, `stablehlo.batch_norm_*`) into the IR's instructions with HLO's
//! attributes (seed 004: Fft, Cholesky, TriangularSolve, BatchNorm*).

use super::attrs::Attr;
use super::lower::{attr, int_attr, ints_attr, Binding, LResult, Lowering, Scope};
use super::ops::{base_name, elements, operands_n, opt_bool, req_int, req_ints, single};
use super::syntax::Op;
use crate::hlo::attributes::{FFT_TYPES, TRANSPOSE_TYPES};
use crate::hlo::ir::{AttrValue, Opcode};
use crate::shape::Shape;

/// Lowers `op` when it is one of the family; `None` for other operations.
pub(crate) fn lower(l: &mut Lowering, s: &mut Scope, op: &Op) -> Option<LResult<Vec<Binding>>> {
    Some(match op.name.as_str() {
        "stablehlo.fft" => fft(l, s, op),
        "stablehlo.cholesky" => cholesky(l, s, op),
        "stablehlo.triangular_solve" => triangular_solve(l, s, op),
        "stablehlo.batch_norm_training" => batch_norm(l, s, op, Opcode::BatchNormTraining, 3, 3),
        "stablehlo.batch_norm_inference" => batch_norm(l, s, op, Opcode::BatchNormInference, 5, 1),
        "stablehlo.batch_norm_grad" => batch_norm(l, s, op, Opcode::BatchNormGrad, 5, 3),
        _ => return None,
    })
}

/// An enumerator attribute (`#stablehlo<fft_type RFFT>`, or `RFFT` from the pretty form) that
/// must be one of `allowed`.
fn enumerator(l: &Lowering, op: &Op, name: &str, allowed: &[&str]) -> LResult<Option<String>> {
    match op.attr(name) {
        None => Ok(None),
        Some(Attr::Enum(_, v)) if allowed.contains(&v.as_str()) => Ok(Some(v.clone())),
        Some(_) => Err(l.err(
            op.attr_pos(name),
            format!("`{name}` expects one of {}", allowed.join(", ")),
        )),
    }
}

fn fft(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["fft_type", "fft_length"])?;
    let operands = operands_n(l, s, op, 1)?;
    let kind = enumerator(l, op, "fft_type", FFT_TYPES)?
        .ok_or_else(|| l.err(op.pos, "`stablehlo.fft` needs `fft_type`"))?;
    let lengths = req_ints(l, op, "fft_length")?;
    let attrs = vec![
        attr("fft_type", AttrValue::Enum(kind)),
        ints_attr("fft_length", &lengths),
    ];
    single(l, s, op, Opcode::Fft, operands, attrs)
}

fn cholesky(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["lower"])?;
    let operands = operands_n(l, s, op, 1)?;
    let lower = opt_bool(l, op, "lower", false)?;
    single(
        l,
        s,
        op,
        Opcode::Cholesky,
        operands,
        vec![attr("lower", AttrValue::Bool(lower))],
    )
}

fn triangular_solve(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["left_side", "lower", "unit_diagonal", "transpose_a"])?;
    let operands = operands_n(l, s, op, 2)?;
    let mut attrs = Vec::new();
    for name in ["left_side", "lower", "unit_diagonal"] {
        attrs.push(attr(name, AttrValue::Bool(opt_bool(l, op, name, false)?)));
    }
    let transpose =
        enumerator(l, op, "transpose_a", TRANSPOSE_TYPES)?.unwrap_or_else(|| "NO_TRANSPOSE".into());
    attrs.push(attr("transpose_a", AttrValue::Enum(transpose)));
    single(l, s, op, Opcode::TriangularSolve, operands, attrs)
}

/// `epsilon` as HLO text keeps it: the shortest decimal of its f32 value. MLIR writes an f32
/// attribute as a decimal literal, or as a hexadecimal integer holding its bits (`0x7F800000`,
/// for values without a decimal form).
fn epsilon(l: &Lowering, op: &Op) -> LResult<String> {
    let at = op.attr_pos("epsilon");
    let value = match op.attr("epsilon") {
        Some(Attr::Float(text)) => text.parse::<f32>().ok(),
        Some(Attr::Int(bits)) => u32::try_from(*bits).ok().map(f32::from_bits),
        None => return Err(l.err(op.pos, format!("`{}` needs `epsilon`", op.name))),
        Some(_) => None,
    }
    .ok_or_else(|| l.err(at, "`epsilon` is not an f32 value"))?;
    Ok(format!("{value}"))
}

fn batch_norm(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    opcode: Opcode,
    arity: usize,
    results: usize,
) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["epsilon", "feature_index"])?;
    let operands = operands_n(l, s, op, arity)?;
    let attrs = vec![
        attr("epsilon", AttrValue::Raw(epsilon(l, op)?)),
        int_attr("feature_index", req_int(l, op, "feature_index")?),
    ];
    if results == 1 {
        return single(l, s, op, opcode, operands, attrs);
    }
    if op.result_types.len() != results {
        return Err(l.err(
            op.pos,
            format!(
                "`{}` has {results} results, the text types {}",
                op.name,
                op.result_types.len()
            ),
        ));
    }
    let mut leaves = Vec::with_capacity(results);
    for k in 0..results {
        leaves.push(l.result_shape(op, k)?);
    }
    let base = base_name(op);
    let i = l.add(
        s,
        opcode,
        Shape::Tuple(leaves),
        operands,
        attrs,
        &base,
        op.pos,
    )?;
    Ok(elements(i, results, &base))
}
