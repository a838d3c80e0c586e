//! Operations whose called computations StableHLO takes as regions (seed 004: Reduce,
//! ReduceWindow, SelectAndScatter, Sort, Map). The HLO computation is written inline as the
//! region, its parameters as the block's arguments (scalars, in HLO's order: accumulators then
//! elements for reductions, `lhs_k, rhs_k` pairs for sort comparators). XLA's `topk` is here too:
//! it is a sort, and one of its two forms is written as one.

use super::types::{element_type, i64_array, leaf_types, padding, tensor_type};
use super::{array_operands, At, Emitter, Leaf, Value, R};
use crate::element_type::{ElementType, TypeKind};
use crate::hlo::contraction_numbers::Window;
use crate::hlo::ir::Opcode;
use crate::shape::ArrayShape;

/// Writes a reduction, windowed reduction, select-and-scatter, sort or map:
/// - `reduce(x.., init..), dimensions={..}, to_apply=%f` → `stablehlo.reduce` (variadic: N
///   inputs then N initial values, one result per input);
/// - `reduce-window(x.., init..), window={..}, to_apply=%f` → `stablehlo.reduce_window` with
///   `window_dimensions`, `window_strides`, `base_dilations` (HLO `lhs_dilate`),
///   `window_dilations` (`rhs_dilate`) and `padding`;
/// - `select-and-scatter(x, source, init), window={..}, select=%s, scatter=%t` →
///   `stablehlo.select_and_scatter` with `window_dimensions`, `window_strides`, `padding`;
/// - `sort(x..), dimensions={d}, is_stable=.., to_apply=%cmp` → `stablehlo.sort`;
/// - `map(x..), dimensions={..}, to_apply=%f` → `stablehlo.map`;
/// - `topk(x), k=K, largest=..` → see [`topk`].
///
/// Errors: operand counts that do not fit, a window whose rank differs from the operand's, a
/// window with `rhs_reversal` (reduce-window) or dilations (select-and-scatter), which the
/// StableHLO operations do not have, missing attributes or called computations.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    if instr.opcode == Opcode::TopK {
        return match operands[..] {
            [x] => topk(e, at, x),
            _ => Err(at.error(format!("expects 1 operand, found {}", operands.len()))),
        };
    }
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

/// Writes `topk(x), k=K, largest=L` (XLA HloTopKInstruction: along the last dimension, the K
/// largest elements in descending order, or the K smallest in ascending order, each with its s32
/// index; floats in seed 004's total order, equal elements by the lower index first):
/// - `largest=true` (HLO's default) → `chlo.top_k` with `k`, as JAX lowers `lax.top_k`; XLA
///   turns it back into the HLO `topk` instruction;
/// - `largest=false` → what XLA's own TopkDecomposer makes of that instruction, since CHLO's
///   top_k has no `largest`: a stable `stablehlo.sort` of `(x, iota)` along the last dimension
///   whose comparator is `compare(x_lhs, x_rhs), LT` in total order for floats (TOTALORDER:
///   −NaN < −inf < … < −0 < +0 < … < +inf < +NaN, subnormals as themselves; SIGNED or UNSIGNED
///   for integers), then the first K of both sorted arrays (`stablehlo.slice`). The stable sort
///   keeps equal keys in index order, which is the tie rule.
///
/// Errors: a rank-0 or dynamic operand, a missing or out-of-range `k`, an element type without
/// an order (pred, complex), a result that is not `(T[..., K], s32[..., K])`.
fn topk(e: &mut Emitter, at: At, x: &Leaf) -> R<Value> {
    let instr = at.instr;
    let shape = at.operand_shape(0)?;
    let rank = shape.rank();
    let Some(&n) = shape.dimensions.last() else {
        return Err(at.error("topk needs an operand of rank 1 or more"));
    };
    if shape.dynamic_dimensions.iter().any(|&d| d) {
        return Err(at.error(format!(
            "topk of the dynamic shape {shape} has no StableHLO form here"
        )));
    }
    let k = instr
        .attr_int("k")
        .ok_or_else(|| at.error("missing `k=`"))?;
    if !(0..=n).contains(&k) {
        return Err(at.error(format!("k={k} is outside 0..={n}")));
    }
    let compare_type = match shape.element_type.kind() {
        TypeKind::Float => "TOTALORDER",
        TypeKind::SignedInteger => "SIGNED",
        TypeKind::UnsignedInteger => "UNSIGNED",
        TypeKind::Pred | TypeKind::Complex => {
            return Err(at.error(format!(
                "topk orders real numbers; {} has no order",
                shape.element_type
            )))
        }
    };
    let mut out_dims = shape.dimensions.clone();
    *out_dims.last_mut().expect("rank ≥ 1") = k;
    let expected = [
        tensor_type(&ArrayShape::new(shape.element_type, out_dims.clone())),
        tensor_type(&ArrayShape::new(ElementType::S32, out_dims.clone())),
    ];
    if leaf_types(&instr.shape).map_err(|r| at.error(r))? != expected {
        return Err(at.error(format!(
            "the result {} is not ({}, {})",
            instr.shape, expected[0], expected[1]
        )));
    }
    if instr.attr_bool("largest").unwrap_or(true) {
        return e.op_shaped(
            instr,
            "chlo.top_k",
            &[x],
            &[("k", format!("{k} : i64"))],
            &[],
        );
    }
    let last = rank as i64 - 1;
    let index_type = tensor_type(&ArrayShape::new(ElementType::S32, shape.dimensions.clone()));
    let iota = e.op(
        "stablehlo.iota",
        &[],
        &[("iota_dimension", format!("{last} : i64"))],
        &[],
        std::slice::from_ref(&index_type),
    );
    // The comparator region: block arguments (x_lhs, x_rhs, i_lhs, i_rhs), the keys compared.
    let outer = std::mem::take(&mut e.lines);
    let scalar = format!("tensor<{}>", element_type(shape.element_type));
    let args: Vec<Leaf> = [&scalar, &scalar, "tensor<i32>", "tensor<i32>"]
        .into_iter()
        .map(|ty| Leaf {
            name: format!("%{}", e.fresh()),
            ty: ty.to_string(),
        })
        .collect();
    let less = e.op(
        "stablehlo.compare",
        &[&args[0], &args[1]],
        &[
            (
                "comparison_direction",
                "#stablehlo<comparison_direction LT>".to_string(),
            ),
            (
                "compare_type",
                format!("#stablehlo<comparison_type {compare_type}>"),
            ),
        ],
        &[],
        &["tensor<i1>".to_string()],
    );
    e.terminator("stablehlo.return", &[&less[0]]);
    let body = std::mem::replace(&mut e.lines, outer);
    let header: Vec<String> = args
        .iter()
        .map(|a| format!("{}: {}", a.name, a.ty))
        .collect();
    let mut region = format!("{{\n^bb0({}):\n", header.join(", "));
    for line in &body {
        region.push_str(&super::indent(line, "  "));
    }
    region.push('}');
    let sorted = e.op(
        "stablehlo.sort",
        &[x, &iota[0]],
        &[
            ("dimension", format!("{last} : i64")),
            ("is_stable", "true".to_string()),
        ],
        &[region],
        &[x.ty.clone(), index_type],
    );
    let zeros = vec![0; rank];
    let ones = vec![1; rank];
    let leaves = sorted
        .iter()
        .zip(&expected)
        .map(|(s, ty)| {
            Value::Leaf(
                e.op(
                    "stablehlo.slice",
                    &[s],
                    &[
                        ("start_indices", i64_array(&zeros)),
                        ("limit_indices", i64_array(&out_dims)),
                        ("strides", i64_array(&ones)),
                    ],
                    &[],
                    std::slice::from_ref(ty),
                )
                .remove(0),
            )
        })
        .collect();
    Ok(Value::Tuple(leaves))
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
