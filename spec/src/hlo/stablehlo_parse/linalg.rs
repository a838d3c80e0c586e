//! Reading the numerical family (`stablehlo.fft`, `stablehlo.cholesky`,
//! `stablehlo.triangular_solve`, `stablehlo.batch_norm_*`) into the IR's instructions with HLO's
//! attributes (seed 004: Fft, Cholesky, TriangularSolve, BatchNorm*), the LAPACK custom calls of
//! the registry, and `stablehlo.rng_bit_generator` (RngBitGenerator).

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
        "stablehlo.custom_call" => custom_call(l, s, op),
        "stablehlo.rng_bit_generator" => rng_bit_generator(l, s, op),
        "stablehlo.rng" => rng(l, s, op),
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

/// `stablehlo.custom_call` to a target of the registry (`crate::custom_call`,
/// docs/custom-calls.md), in JAX's form (`backend_config = ""` plus the dictionary
/// `mhlo.backend_config`) or the typed-FFI form (`api_version = 4`, `backend_config` the
/// dictionary): a `custom-call` with `custom_call_target`, the options as HLO's
/// `backend_config={...}` and `num_batch_dims` in `frontend_attributes`. The layouts and
/// aliases are the target's own (LAPACK's column-major buffers, in place), not values: they are
/// not kept. Errors: a target outside the registry (named, at `call_target_name`), malformed
/// options, results that do not fit the routine.
fn custom_call(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    use crate::custom_call::{parse_target, unknown_target_message, LapackCall};
    let at = op.attr_pos("call_target_name");
    let target = match op.attr("call_target_name") {
        Some(Attr::Symbol(t) | Attr::Str(t)) => t.clone(),
        _ => return Err(l.err(op.pos, "`stablehlo.custom_call` needs `call_target_name`")),
    };
    if parse_target(&target).is_none() {
        return Err(l.err(at, unknown_target_message(&target)));
    }
    l.check_attributes(
        op,
        &[
            "call_target_name",
            "api_version",
            "backend_config",
            "operand_layouts",
            "result_layouts",
            "output_operand_aliases",
            "has_side_effect",
        ],
    )?;
    if matches!(op.attr("has_side_effect"), Some(Attr::Bool(true))) {
        return Err(l.err(
            op.attr_pos("has_side_effect"),
            format!("`{target}` has no side effect; `has_side_effect = true` is not its call"),
        ));
    }
    let options = match (op.attr("mhlo.backend_config"), op.attr("backend_config")) {
        (Some(Attr::Dict(d)), _) | (None, Some(Attr::Dict(d))) => d.as_slice(),
        _ => &[],
    };
    let mut items = Vec::with_capacity(options.len());
    for (k, v) in options {
        match v {
            Attr::Int(code) => items.push(format!("{k} = {code} : ui8")),
            _ => {
                return Err(l.err(
                    op.attr_pos("mhlo.backend_config"),
                    format!(
                    "`{target}`: option `{k}` must be an integer (a LAPACK option letter as ui8)"
                ),
                ))
            }
        }
    }
    let batch = match op.attr("mhlo.frontend_attributes") {
        Some(Attr::Dict(d)) => d.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("num_batch_dims", Attr::Str(n)) => Some(n.clone()),
            _ => None,
        }),
        _ => None,
    }
    .unwrap_or_else(|| "0".into());
    let operands = s_operands(l, s, op)?;
    let attrs = vec![
        attr("custom_call_target", AttrValue::Str(target.clone())),
        attr(
            "api_version",
            AttrValue::Raw("API_VERSION_TYPED_FFI".into()),
        ),
        attr(
            "frontend_attributes",
            AttrValue::Raw(format!("{{num_batch_dims=\"{batch}\"}}")),
        ),
        attr(
            "backend_config",
            AttrValue::Raw(format!("{{{}}}", items.join(", "))),
        ),
    ];
    let probe = crate::hlo::ir::HloInstruction {
        name: String::new(),
        opcode: Opcode::CustomCall,
        shape: Shape::Tuple(vec![]),
        operands: vec![],
        parameter_number: None,
        literal: None,
        attributes: attrs.clone(),
    };
    LapackCall::from_instruction(&probe).map_err(|m| l.err(op.pos, m))?;
    let results = op.result_types.len();
    if results == 1 {
        return single(l, s, op, Opcode::CustomCall, operands, attrs);
    }
    let mut leaves = Vec::with_capacity(results);
    for k in 0..results {
        leaves.push(l.result_shape(op, k)?);
    }
    let base = base_name(op);
    let i = l.add(
        s,
        Opcode::CustomCall,
        Shape::Tuple(leaves),
        operands,
        attrs,
        &base,
        op.pos,
    )?;
    Ok(elements(i, results, &base))
}

/// Every operand of `op`, resolved.
fn s_operands(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<usize>> {
    operands_n(l, s, op, op.operands.len())
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

/// `stablehlo.rng_bit_generator` (seed 004, RngBitGenerator): `rng-bit-generator` with
/// `algorithm=rng_default|rng_three_fry|rng_philox` and the tuple (state, data) as its shape.
/// Errors: a missing or unknown `rng_algorithm`, results other than two.
fn rng_bit_generator(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    use crate::random::RngAlgorithm;
    l.check_attributes(op, &["rng_algorithm"])?;
    let operands = operands_n(l, s, op, 1)?;
    let algorithm = match op.attr("rng_algorithm") {
        None => RngAlgorithm::Default,
        Some(Attr::Enum(_, v)) => RngAlgorithm::from_name(v).ok_or_else(|| {
            l.err(
                op.attr_pos("rng_algorithm"),
                format!("`rng_algorithm` {v} is not DEFAULT, THREE_FRY or PHILOX"),
            )
        })?,
        Some(_) => {
            return Err(l.err(
                op.attr_pos("rng_algorithm"),
                "`rng_algorithm` expects #stablehlo<rng_algorithm DEFAULT|THREE_FRY|PHILOX>",
            ))
        }
    };
    if op.result_types.len() != 2 {
        return Err(l.err(
            op.pos,
            format!(
                "`stablehlo.rng_bit_generator` has 2 results (state, data), the text types {}",
                op.result_types.len()
            ),
        ));
    }
    let leaves = vec![l.result_shape(op, 0)?, l.result_shape(op, 1)?];
    let base = base_name(op);
    let attrs = vec![attr(
        "algorithm",
        AttrValue::Raw(algorithm.hlo_name().into()),
    )];
    let i = l.add(
        s,
        Opcode::RngBitGenerator,
        Shape::Tuple(leaves),
        operands,
        attrs,
        &base,
        op.pos,
    )?;
    Ok(elements(i, 2, &base))
}

/// `stablehlo.rng(a, b, shape)` (seed 004, RngUniform, RngNormal): `rng(a, b)` with
/// `distribution=rng_uniform|rng_normal`; the result type gives the shape (the `shape` operand,
/// a constant in static programs, is not kept as an operand). Errors: a missing or unknown
/// `rng_distribution`, operands other than three.
fn rng(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["rng_distribution"])?;
    let operands = operands_n(l, s, op, 3)?;
    let distribution = match op.attr("rng_distribution") {
        Some(Attr::Enum(_, v)) if v == "UNIFORM" => "rng_uniform",
        Some(Attr::Enum(_, v)) if v == "NORMAL" => "rng_normal",
        _ => return Err(l.err(
            op.attr_pos("rng_distribution"),
            "`stablehlo.rng` needs `rng_distribution` #stablehlo<rng_distribution UNIFORM|NORMAL>",
        )),
    };
    single(
        l,
        s,
        op,
        Opcode::Rng,
        operands[..2].to_vec(),
        vec![attr("distribution", AttrValue::Enum(distribution.into()))],
    )
}
