//! Contractions (seed 004: Dot, DotGeneral, Conv / ConvWithGeneralPadding): `stablehlo.dot_general`
//! and `stablehlo.convolution`. Mixed precision (bf16 operands, f32 result; s8 → s32) is written
//! as HLO types it: StableHLO takes the result type as given.

use super::types::{bool_array, i64_array, int_list, padding};
use super::{array_operands, At, Emitter, Value, R};
use crate::hlo::contraction_numbers::{ConvolutionDimensionNumbers, DotDimensionNumbers, Window};
use crate::hlo::ir::Opcode;

/// Writes `dot` or `convolution`:
/// - `dot(a, b), lhs_batch_dims=.., lhs_contracting_dims=.., rhs_batch_dims=..,
///   rhs_contracting_dims=..` → `stablehlo.dot_general` with `#stablehlo.dot<...>` (the result
///   dimensions are batch, lhs free, rhs free in both);
/// - `convolution(x, k), window={...}, dim_labels=..., feature_group_count=N,
///   batch_group_count=M` → `stablehlo.convolution` with the dimension numbers in their raw form
///   (`#stablehlo.conv<raw input_batch_dimension = .., ...>`), `window_strides`, `padding`,
///   `lhs_dilation` (HLO `lhs_dilate`), `rhs_dilation` (`rhs_dilate`) and `window_reversal`
///   (`rhs_reversal`), one entry per spatial dimension.
///
/// Errors: two operands expected; malformed dimension numbers or window; a window whose sizes
/// differ from the kernel's spatial dimensions (StableHLO has no window size: it is the
/// kernel's).
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    if operands.len() != 2 {
        return Err(at.error(format!("expects 2 operands, found {}", operands.len())));
    }
    match instr.opcode {
        Opcode::Dot => {
            let d = DotDimensionNumbers::from_instruction(instr).map_err(|r| at.error(r))?;
            let mut fields = Vec::new();
            for (name, v) in [
                ("lhs_batching_dimensions", &d.lhs_batch_dimensions),
                ("rhs_batching_dimensions", &d.rhs_batch_dimensions),
                ("lhs_contracting_dimensions", &d.lhs_contracting_dimensions),
                ("rhs_contracting_dimensions", &d.rhs_contracting_dimensions),
            ] {
                if !v.is_empty() {
                    fields.push(format!("{name} = {}", int_list(v)));
                }
            }
            e.op_shaped(
                instr,
                "stablehlo.dot_general",
                &operands,
                &[(
                    "dot_dimension_numbers",
                    format!("#stablehlo.dot<{}>", fields.join(", ")),
                )],
                &[],
            )
        }
        Opcode::Convolution => {
            let window = Window::from_instruction(instr).map_err(|r| at.error(r))?;
            let d =
                ConvolutionDimensionNumbers::from_instruction(instr).map_err(|r| at.error(r))?;
            d.validate().map_err(|r| at.error(r))?;
            let n = d.input_spatial_dimensions.len();
            if window.dimensions.len() != n {
                return Err(at.error(format!(
                    "the window has {} dimensions, the dimension labels {n} spatial dimensions",
                    window.dimensions.len()
                )));
            }
            let kernel = at.operand_shape(1)?;
            for (k, (w, &kd)) in window
                .dimensions
                .iter()
                .zip(&d.kernel_spatial_dimensions)
                .enumerate()
            {
                let size = usize::try_from(kd)
                    .ok()
                    .and_then(|kd| kernel.dimensions.get(kd))
                    .copied();
                if size != Some(w.size) {
                    return Err(at.error(format!(
                        "window size {} of spatial dimension {k} differs from the kernel's \
                         dimension {kd} ({size:?})",
                        w.size
                    )));
                }
            }
            let raw = format!(
                "#stablehlo.conv<raw input_batch_dimension = {}, input_feature_dimension = {}, \
                 input_spatial_dimensions = {}, kernel_input_feature_dimension = {}, \
                 kernel_output_feature_dimension = {}, kernel_spatial_dimensions = {}, \
                 output_batch_dimension = {}, output_feature_dimension = {}, \
                 output_spatial_dimensions = {}>",
                d.input_batch_dimension,
                d.input_feature_dimension,
                int_list(&d.input_spatial_dimensions),
                d.kernel_input_feature_dimension,
                d.kernel_output_feature_dimension,
                int_list(&d.kernel_spatial_dimensions),
                d.output_batch_dimension,
                d.output_feature_dimension,
                int_list(&d.output_spatial_dimensions),
            );
            let group = |name: &str| instr.attr_int(name).unwrap_or(1);
            let w = &window.dimensions;
            let mut attributes = vec![("dimension_numbers", raw)];
            if n > 0 {
                let field = |f: fn(&crate::hlo::WindowDimension) -> i64| -> Vec<i64> {
                    w.iter().map(f).collect()
                };
                let pads: Vec<(i64, i64)> =
                    w.iter().map(|x| (x.padding_low, x.padding_high)).collect();
                let reversal: Vec<bool> = w.iter().map(|x| x.window_reversal).collect();
                attributes.extend([
                    ("window_strides", i64_array(&field(|x| x.stride))),
                    ("padding", padding(&pads)),
                    ("lhs_dilation", i64_array(&field(|x| x.base_dilation))),
                    ("rhs_dilation", i64_array(&field(|x| x.window_dilation))),
                    ("window_reversal", bool_array(&reversal)),
                ]);
            }
            attributes.extend([
                (
                    "feature_group_count",
                    format!("{} : i64", group("feature_group_count")),
                ),
                (
                    "batch_group_count",
                    format!("{} : i64", group("batch_group_count")),
                ),
            ]);
            e.op_shaped(instr, "stablehlo.convolution", &operands, &attributes, &[])
        }
        op => Err(at.error(format!("`{op}` is not a contraction opcode"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{print, print_err};

    #[test]
    fn dot_general_with_batch_dimensions_and_mixed_precision() {
        let text = print(
            "HloModule m
ENTRY e {
  a = bf16[2,3,4] parameter(0)
  b = bf16[2,4,5] parameter(1)
  ROOT d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}",
        );
        let expected = r#"%0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xf32>"#;
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        let outer = print(
            "HloModule m
ENTRY e {
  a = s8[2] parameter(0)
  b = s8[3] parameter(1)
  ROOT d = s32[2,3] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}
}",
        );
        assert!(
            outer.contains(r#"<{dot_dimension_numbers = #stablehlo.dot<>}> : (tensor<2xi8>, tensor<3xi8>) -> tensor<2x3xi32>"#),
            "{outer}"
        );
    }

    #[test]
    fn convolution_window_and_dimension_labels() {
        let text = print(
            "HloModule m
ENTRY e {
  x = f32[1,5,5,2] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,1,9,4] convolution(x, k), window={size=3x3 stride=2x1 pad=1_0x0_2 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f
}",
        );
        let expected = r#"%0 = "stablehlo.convolution"(%arg0, %arg1) <{dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, window_strides = array<i64: 2, 1>, padding = dense<[[1, 0], [0, 2]]> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 2>, rhs_dilation = array<i64: 2, 1>, window_reversal = array<i1: false, true>, feature_group_count = 1 : i64, batch_group_count = 1 : i64}> : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x1x9x4xf32>"#;
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        let e = print_err(
            "HloModule m
ENTRY e {
  x = f32[1,5,2] parameter(0)
  k = f32[3,2,4] parameter(1)
  ROOT c = f32[1,4,4] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f
}",
        );
        assert!(e.contains("window size 2"), "{e}");
    }
}
