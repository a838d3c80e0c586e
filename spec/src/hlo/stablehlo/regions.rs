//! Operations whose called computations StableHLO takes as regions (seed 004: Reduce,
//! ReduceWindow, SelectAndScatter, Sort, Map). The HLO computation is written inline as the
//! region, its parameters as the block's arguments (scalars, in HLO's order: accumulators then
//! elements for reductions, `lhs_k, rhs_k` pairs for sort comparators).

use super::types::{i64_array, padding};
use super::{array_operands, At, Emitter, Value, R};
use crate::hlo::contraction_numbers::Window;
use crate::hlo::ir::Opcode;

/// Writes a reduction, windowed reduction, select-and-scatter, sort or map:
/// - `reduce(x.., init..), dimensions={..}, to_apply=%f` → `stablehlo.reduce` (variadic: N
///   inputs then N initial values, one result per input);
/// - `reduce-window(x.., init..), window={..}, to_apply=%f` → `stablehlo.reduce_window` with
///   `window_dimensions`, `window_strides`, `base_dilations` (HLO `lhs_dilate`),
///   `window_dilations` (`rhs_dilate`) and `padding`;
/// - `select-and-scatter(x, source, init), window={..}, select=%s, scatter=%t` →
///   `stablehlo.select_and_scatter` with `window_dimensions`, `window_strides`, `padding`;
/// - `sort(x..), dimensions={d}, is_stable=.., to_apply=%cmp` → `stablehlo.sort`;
/// - `map(x..), dimensions={..}, to_apply=%f` → `stablehlo.map`.
///
/// Errors: operand counts that do not fit, a window whose rank differs from the operand's, a
/// window with `rhs_reversal` (reduce-window) or dilations (select-and-scatter), which the
/// StableHLO operations do not have, missing attributes or called computations.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    let window = || -> R<Window> {
        let w = Window::from_instruction(instr).map_err(|r| at.error(r))?;
        let rank = at.operand_shape(0)?.rank();
        if w.dimensions.len() != rank {
            return Err(at.error(format!(
                "the window has {} dimensions, the operand {rank}",
                w.dimensions.len()
            )));
        }
        if w.dimensions.iter().any(|d| d.window_reversal) {
            return Err(at.error("a window with `rhs_reversal` has no StableHLO form here"));
        }
        Ok(w)
    };
    let paired = || -> R<()> {
        if operands.is_empty() || operands.len() % 2 != 0 {
            return Err(at.error(format!(
                "expects N inputs and N initial values, found {} operands",
                operands.len()
            )));
        }
        Ok(())
    };
    match instr.opcode {
        Opcode::Reduce => {
            paired()?;
            let dims = instr
                .attr_ints("dimensions")
                .ok_or_else(|| at.error("missing `dimensions={...}`"))?;
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.reduce",
                &operands,
                &[("dimensions", i64_array(dims))],
                &[region],
            )
        }
        Opcode::ReduceWindow => {
            paired()?;
            let w = window()?;
            let d = &w.dimensions;
            let field = |f: fn(&crate::hlo::WindowDimension) -> i64| -> String {
                i64_array(&d.iter().map(f).collect::<Vec<_>>())
            };
            let mut attributes = vec![
                ("window_dimensions", field(|x| x.size)),
                ("window_strides", field(|x| x.stride)),
                ("base_dilations", field(|x| x.base_dilation)),
                ("window_dilations", field(|x| x.window_dilation)),
            ];
            if !d.is_empty() {
                let pads: Vec<(i64, i64)> =
                    d.iter().map(|x| (x.padding_low, x.padding_high)).collect();
                attributes.push(("padding", padding(&pads)));
            }
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.reduce_window",
                &operands,
                &attributes,
                &[region],
            )
        }
        Opcode::SelectAndScatter => {
            if operands.len() != 3 {
                return Err(at.error(format!(
                    "expects the operand, the source and the initial value, found {} operands",
                    operands.len()
                )));
            }
            let w = window()?;
            let d = &w.dimensions;
            if d.iter()
                .any(|x| x.base_dilation != 1 || x.window_dilation != 1)
            {
                return Err(
                    at.error("a select-and-scatter window with dilations has no StableHLO form")
                );
            }
            let sizes: Vec<i64> = d.iter().map(|x| x.size).collect();
            let strides: Vec<i64> = d.iter().map(|x| x.stride).collect();
            let mut attributes = vec![
                ("window_dimensions", i64_array(&sizes)),
                ("window_strides", i64_array(&strides)),
            ];
            if !d.is_empty() {
                let pads: Vec<(i64, i64)> =
                    d.iter().map(|x| (x.padding_low, x.padding_high)).collect();
                attributes.push(("padding", padding(&pads)));
            }
            let (select, _) = e.region(instr, at.called("select")?, None)?;
            let (scatter, _) = e.region(instr, at.called("scatter")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.select_and_scatter",
                &operands,
                &attributes,
                &[select, scatter],
            )
        }
        Opcode::Sort => {
            if operands.is_empty() {
                return Err(at.error("expects at least one operand"));
            }
            let d = match instr.attr_ints("dimensions") {
                Some([d]) => *d,
                _ => return Err(at.error("expects `dimensions={d}` with one dimension")),
            };
            let stable = instr.attr_bool("is_stable").unwrap_or(false);
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.sort",
                &operands,
                &[
                    ("dimension", format!("{d} : i64")),
                    ("is_stable", stable.to_string()),
                ],
                &[region],
            )
        }
        Opcode::Map => {
            if operands.is_empty() {
                return Err(at.error("expects at least one operand"));
            }
            let dims: Vec<i64> = match instr.attr_ints("dimensions") {
                Some(d) => d.to_vec(),
                None => (0..at.operand_shape(0)?.rank() as i64).collect(),
            };
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.map",
                &operands,
                &[("dimensions", i64_array(&dims))],
                &[region],
            )
        }
        op => Err(at.error(format!("`{op}` is not a region-taking opcode"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{print, print_err};

    #[test]
    fn variadic_reduce_returns_one_result_per_input() {
        let text = print(
            "HloModule m
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  c = pred[] compare(a, b), direction=GE
  x = f32[] select(c, a, b)
  y = s32[] select(c, i, j)
  ROOT t = (f32[], s32[]) tuple(x, y)
}
ENTRY e {
  v = f32[3,4] parameter(0)
  k = s32[3,4] parameter(1)
  m = f32[] constant(-inf)
  n = s32[] constant(-1)
  r = (f32[3], s32[3]) reduce(v, k, m, n), dimensions={1}, to_apply=argmax
  ROOT g = s32[3] get-tuple-element(r), index=1
}",
        );
        let expected = r#"    %0 = "stablehlo.constant"() <{value = dense<"0x000080FF"> : tensor<f32>}> : () -> tensor<f32>
    %1 = "stablehlo.constant"() <{value = dense<"0xFFFFFFFF"> : tensor<i32>}> : () -> tensor<i32>
    %9:2 = "stablehlo.reduce"(%arg0, %arg1, %0, %1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%2: tensor<f32>, %3: tensor<i32>, %4: tensor<f32>, %5: tensor<i32>):
      %6 = "stablehlo.compare"(%2, %4) <{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %7 = "stablehlo.select"(%6, %2, %4) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %8 = "stablehlo.select"(%6, %3, %5) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%7, %8) : (tensor<f32>, tensor<i32>) -> ()
    }) : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    "func.return"(%9#1) : (tensor<3xi32>) -> ()
"#;
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }

    #[test]
    fn windows_of_reduce_window_and_select_and_scatter() {
        let text = print(
            "HloModule m
add {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT s = s8[] add(a, b)
}
ge {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
ENTRY e {
  x = s8[4,6] parameter(0)
  z = s8[] constant(0)
  w = s8[4,3] reduce-window(x, z), window={size=2x2 stride=1x2 pad=1_0x0_0 lhs_dilate=1x1 rhs_dilate=1x1}, to_apply=add
  ROOT s = s8[4,6] select-and-scatter(x, w, z), window={size=2x2 stride=1x2 pad=1_0x0_0}, select=ge, scatter=add
}",
        );
        for expected in [
            r#""stablehlo.reduce_window"(%arg0, %0) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>}> ({"#,
            r#""stablehlo.select_and_scatter"(%arg0, %4, %0) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>}> ({
    ^bb0(%5: tensor<i8>, %6: tensor<i8>):
      %7 = "stablehlo.compare"(%5, %6) <{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type SIGNED>}> : (tensor<i8>, tensor<i8>) -> tensor<i1>
      "stablehlo.return"(%7) : (tensor<i1>) -> ()
    }, {
    ^bb0(%8: tensor<i8>, %9: tensor<i8>):"#,
        ] {
            assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        }
        let e = print_err(
            "HloModule m
add {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT s = s8[] add(a, b)
}
ENTRY e {
  x = s8[4] parameter(0)
  z = s8[] constant(0)
  ROOT w = s8[3] reduce-window(x, z), window={size=2 rhs_reversal=1}, to_apply=add
}",
        );
        assert!(e.contains("rhs_reversal"), "{e}");
    }

    #[test]
    fn sort_and_map() {
        let text = print(
            "HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
neg {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY e {
  x = f32[2,5] parameter(0)
  s = f32[2,5] sort(x), dimensions={1}, is_stable=true, to_apply=lt
  ROOT m = f32[2,5] map(s), dimensions={0,1}, to_apply=neg
}",
        );
        assert!(
            text.contains(
                r#"%3 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#"%6 = "stablehlo.map"(%3) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%4: tensor<f32>):"#
            ),
            "{text}"
        );
    }
}
