//! The numerical family (seed 004: Fft, Cholesky, TriangularSolve, BatchNormTraining,
//! BatchNormInference, BatchNormGrad) in StableHLO's generic form.

use super::types::i64_array;
use super::{array_operands, At, Emitter, Value, R};
use crate::hlo::ir::Opcode;

/// The text of an f32 attribute value as MLIR reads it: a decimal float literal with a `.`
/// (MLIR's float literal needs one) holding the shortest digits that give the value back.
pub(crate) fn f32_literal(v: f32) -> String {
    if !v.is_finite() {
        // MLIR writes non-finite float attributes by their bits.
        return format!("0x{:08X}", v.to_bits());
    }
    let text = format!("{v:e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}e{exponent}")
}

/// Writes one instruction of the family:
/// - `fft(x), fft_type=T, fft_length={...}` → `stablehlo.fft` (`fft_type = #stablehlo<fft_type
///   T>`, `fft_length = array<i64: ...>`);
/// - `cholesky(a), lower=b` → `stablehlo.cholesky` (`lower`, false when absent);
/// - `triangular-solve(a, b), ...` → `stablehlo.triangular_solve` (`left_side`, `lower`,
///   `unit_diagonal`, false when absent; `transpose_a = #stablehlo<transpose T>`,
///   NO_TRANSPOSE when absent);
/// - `batch-norm-*(...), epsilon=e, feature_index=f` → `stablehlo.batch_norm_*` (`epsilon` an
///   f32 attribute, `feature_index` an i64 attribute; several results for training and grad);
/// - `rng-bit-generator(s), algorithm=rng_x` → `stablehlo.rng_bit_generator` (`rng_algorithm =
///   #stablehlo<rng_algorithm X>`, two results);
/// - `rng(a, b), distribution=rng_x` → a `stablehlo.constant` of the result's dimensions and
///   `stablehlo.rng(a, b, shape)` (`rng_distribution = #stablehlo<rng_distribution X>`).
///
/// Errors: a missing or malformed attribute, a tuple operand.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    let flag = |name: &str| instr.attr_bool(name).unwrap_or(false).to_string();
    match instr.opcode {
        Opcode::Fft => {
            let kind = instr
                .attr_enum("fft_type")
                .ok_or_else(|| at.error("missing `fft_type=`"))?;
            let lengths = instr
                .attr_ints("fft_length")
                .ok_or_else(|| at.error("missing `fft_length={...}`"))?;
            e.op_shaped(
                instr,
                "stablehlo.fft",
                &operands,
                &[
                    ("fft_type", format!("#stablehlo<fft_type {kind}>")),
                    ("fft_length", i64_array(lengths)),
                ],
                &[],
            )
        }
        Opcode::Cholesky => e.op_shaped(
            instr,
            "stablehlo.cholesky",
            &operands,
            &[("lower", flag("lower"))],
            &[],
        ),
        Opcode::TriangularSolve => {
            let transpose = instr.attr_enum("transpose_a").unwrap_or("NO_TRANSPOSE");
            e.op_shaped(
                instr,
                "stablehlo.triangular_solve",
                &operands,
                &[
                    ("left_side", flag("left_side")),
                    ("lower", flag("lower")),
                    ("unit_diagonal", flag("unit_diagonal")),
                    ("transpose_a", format!("#stablehlo<transpose {transpose}>")),
                ],
                &[],
            )
        }
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad => {
            let epsilon = instr
                .attr_f64("epsilon")
                .ok_or_else(|| at.error("missing `epsilon=`"))?;
            let feature = instr
                .attr_int("feature_index")
                .ok_or_else(|| at.error("missing `feature_index=`"))?;
            let name = match instr.opcode {
                Opcode::BatchNormTraining => "stablehlo.batch_norm_training",
                Opcode::BatchNormInference => "stablehlo.batch_norm_inference",
                _ => "stablehlo.batch_norm_grad",
            };
            e.op_shaped(
                instr,
                name,
                &operands,
                &[
                    ("epsilon", format!("{} : f32", f32_literal(epsilon as f32))),
                    ("feature_index", format!("{feature} : i64")),
                ],
                &[],
            )
        }
        Opcode::CustomCall => custom_call(e, at, &operands),
        Opcode::Rng => {
            let distribution = match instr.attr_enum("distribution") {
                Some("rng_uniform") => "UNIFORM",
                Some("rng_normal") => "NORMAL",
                _ => return Err(at.error("missing `distribution=` (rng_uniform or rng_normal)")),
            };
            let dims = instr
                .shape
                .as_array()
                .ok_or_else(|| at.error("rng's result must be an array"))?
                .dimensions
                .clone();
            // The result shape as the operand StableHLO wants: a constant i64 vector.
            let items: Vec<String> = dims.iter().map(i64::to_string).collect();
            let value = if dims.is_empty() {
                "dense<> : tensor<0xi64>".to_string()
            } else {
                format!("dense<[{}]> : tensor<{}xi64>", items.join(", "), dims.len())
            };
            let shape = e.op(
                "stablehlo.constant",
                &[],
                &[("value", value)],
                &[],
                &[format!("tensor<{}xi64>", dims.len())],
            );
            let mut all = operands.clone();
            all.extend(shape.iter());
            e.op_shaped(
                instr,
                "stablehlo.rng",
                &all,
                &[(
                    "rng_distribution",
                    format!("#stablehlo<rng_distribution {distribution}>"),
                )],
                &[],
            )
        }
        Opcode::RngBitGenerator => {
            let algorithm =
                crate::random::RngAlgorithm::of(&instr.attributes).map_err(|m| at.error(m))?;
            e.op_shaped(
                instr,
                "stablehlo.rng_bit_generator",
                &operands,
                &[(
                    "rng_algorithm",
                    format!("#stablehlo<rng_algorithm {}>", algorithm.stablehlo_name()),
                )],
                &[],
            )
        }
        other => Err(at.error(format!("`{other}` is not in the numerical family"))),
    }
}

/// `custom-call(...), custom_call_target="lapack_..._ffi"` → `stablehlo.custom_call` as XLA
/// reads a typed-FFI call (docs/custom-calls.md, "Common form"): `call_target_name`,
/// `api_version = 4` (typed FFI), the options as the `backend_config` dictionary,
/// `mhlo.frontend_attributes = {num_batch_dims = "N"}`, and LAPACK's column-major
/// `operand_layouts`/`result_layouts` (matrices `[r−2, r−1, r−3, …, 0]`, other arrays
/// descending): the layouts tell XLA how the kernel reads its buffers, whatever the HLO's
/// layouts (the semantics are on logical indices). Errors: a target outside the registry (named),
/// malformed options.
fn custom_call(e: &mut Emitter, at: At, operands: &[&super::Leaf]) -> R<Value> {
    let instr = at.instr;
    let call = crate::custom_call::LapackCall::from_instruction(instr).map_err(|m| at.error(m))?;
    let layout = |shape: &crate::shape::ArrayShape| {
        let rank = shape.dimensions.len();
        let mut order: Vec<i64> = Vec::with_capacity(rank);
        if rank == call.num_batch_dims + 2 {
            order.extend([rank as i64 - 2, rank as i64 - 1]);
            order.extend((0..rank as i64 - 2).rev());
        } else {
            order.extend((0..rank as i64).rev());
        }
        if order.is_empty() {
            "dense<> : tensor<0xindex>".to_string()
        } else {
            let items: Vec<String> = order.iter().map(i64::to_string).collect();
            format!("dense<[{}]> : tensor<{rank}xindex>", items.join(", "))
        }
    };
    let operand_shapes: Vec<String> = instr
        .operands
        .iter()
        .map(|&o| {
            at.comp
                .instructions
                .get(o)
                .and_then(|i| i.shape.as_array())
                .map(layout)
                .ok_or_else(|| at.error("a custom call's operands must be arrays"))
        })
        .collect::<R<_>>()?;
    let result_shapes: Vec<String> = instr.shape.array_leaves().into_iter().map(layout).collect();
    e.op_shaped(
        instr,
        "stablehlo.custom_call",
        operands,
        &[
            ("api_version", "4 : i32".into()),
            ("backend_config", call.backend_config()),
            ("call_target_name", format!("\"{}\"", call.target())),
            (
                "mhlo.frontend_attributes",
                format!("{{num_batch_dims = \"{}\"}}", call.num_batch_dims),
            ),
            (
                "operand_layouts",
                format!("[{}]", operand_shapes.join(", ")),
            ),
            ("result_layouts", format!("[{}]", result_shapes.join(", "))),
        ],
        &[],
    )
}

#[cfg(test)]
mod tests {
    use super::f32_literal;

    #[test]
    fn f32_literals_have_a_point_and_give_the_value_back() {
        assert_eq!(f32_literal(0.001), "1.0e-3");
        assert_eq!(f32_literal(1e-5), "1.0e-5");
        assert_eq!(f32_literal(0.0), "0.0e0");
        assert_eq!(f32_literal(1.5), "1.5e0");
        assert_eq!(f32_literal(f32::INFINITY), "0x7F800000");
        for v in [0.001f32, 1e-5, 3.0e-38, 123456.79] {
            assert_eq!(f32_literal(v).parse::<f32>().ok(), Some(v));
        }
    }
}
