//! Data movement with index operands (seed 004: DynamicSlice, DynamicUpdateSlice, Gather,
//! Scatter). StableHLO's forms have HLO's semantics: start indices are clamped so the slice
//! fits (dynamic-slice, dynamic-update-slice, gather), out-of-bounds scatter windows are
//! skipped.

use super::types::{i64_array, int_list};
use super::{array_operands, At, Emitter, Value, R};
use crate::hlo::dimension_numbers::{
    has_batching_dims, GatherDimensionNumbers, ScatterDimensionNumbers,
};
use crate::hlo::ir::Opcode;

/// Writes `dynamic-slice`, `dynamic-update-slice`, `gather` or `scatter`:
/// - `dynamic-slice(x, i0, i1, ...), dynamic_slice_sizes={..}` → `stablehlo.dynamic_slice`
///   (`slice_sizes`), one scalar start index per dimension;
/// - `dynamic-update-slice(x, u, i0, ...)` → `stablehlo.dynamic_update_slice`;
/// - `gather(x, idx), offset_dims=.., collapsed_slice_dims=.., start_index_map=..,
///   index_vector_dim=.., slice_sizes=.., indices_are_sorted=..` → `stablehlo.gather` with
///   `#stablehlo.gather<...>`;
/// - `scatter(x.., idx, u..), update_window_dims=.., inserted_window_dims=..,
///   scatter_dims_to_operand_dims=.., index_vector_dim=.., to_apply=%c` → `stablehlo.scatter`
///   with `#stablehlo.scatter<...>` and `%c` as its update region.
///
/// Errors: missing or mistyped attributes, start indices that are not scalars, operand counts
/// that do not fit, and the batching dimensions of XLA's newer gather/scatter form (not
/// modelled by the IR's dimension numbers).
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    let scalar_indices = |from: usize| -> R<()> {
        for k in from..operands.len() {
            if !at.operand_shape(k)?.dimensions.is_empty() {
                return Err(at.error(format!(
                    "operand {k} is not a scalar start index (the form with one index vector \
                     operand is not printed)"
                )));
            }
        }
        Ok(())
    };
    match instr.opcode {
        Opcode::DynamicSlice => {
            let rank = at.operand_shape(0)?.rank();
            if operands.len() != rank + 1 {
                return Err(at.error(format!(
                    "expects the operand and {rank} start indices, found {} operands",
                    operands.len()
                )));
            }
            scalar_indices(1)?;
            let sizes = instr
                .attr_ints("dynamic_slice_sizes")
                .ok_or_else(|| at.error("missing `dynamic_slice_sizes={...}`"))?;
            e.op_shaped(
                instr,
                "stablehlo.dynamic_slice",
                &operands,
                &[("slice_sizes", i64_array(sizes))],
                &[],
            )
        }
        Opcode::DynamicUpdateSlice => {
            let rank = at.operand_shape(0)?.rank();
            if operands.len() != rank + 2 {
                return Err(at.error(format!(
                    "expects the operand, the update and {rank} start indices, found {} operands",
                    operands.len()
                )));
            }
            scalar_indices(2)?;
            e.op_shaped(instr, "stablehlo.dynamic_update_slice", &operands, &[], &[])
        }
        Opcode::Gather => {
            if operands.len() != 2 {
                return Err(at.error(format!("expects 2 operands, found {}", operands.len())));
            }
            if has_batching_dims(&instr.attributes) {
                return Err(at.error("gather batching dimensions are not modelled"));
            }
            let g = GatherDimensionNumbers::from_instruction(instr).map_err(|r| at.error(r))?;
            let sizes = instr
                .attr_ints("slice_sizes")
                .ok_or_else(|| at.error("missing `slice_sizes={...}`"))?;
            let sorted = instr.attr_bool("indices_are_sorted").unwrap_or(false);
            let numbers = format!(
                "#stablehlo.gather<offset_dims = {}, collapsed_slice_dims = {}, start_index_map \
                 = {}, index_vector_dim = {}>",
                int_list(&g.offset_dims),
                int_list(&g.collapsed_slice_dims),
                int_list(&g.start_index_map),
                g.index_vector_dim
            );
            e.op_shaped(
                instr,
                "stablehlo.gather",
                &operands,
                &[
                    ("dimension_numbers", numbers),
                    ("slice_sizes", i64_array(sizes)),
                    ("indices_are_sorted", sorted.to_string()),
                ],
                &[],
            )
        }
        Opcode::Scatter => {
            if operands.len() < 3 || operands.len() % 2 == 0 {
                return Err(at.error(format!(
                    "expects N operands, the indices and N updates, found {} operands",
                    operands.len()
                )));
            }
            if has_batching_dims(&instr.attributes) {
                return Err(at.error("scatter batching dimensions are not modelled"));
            }
            let s = ScatterDimensionNumbers::from_instruction(instr).map_err(|r| at.error(r))?;
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            let numbers = format!(
                "#stablehlo.scatter<update_window_dims = {}, inserted_window_dims = {}, \
                 scatter_dims_to_operand_dims = {}, index_vector_dim = {}>",
                int_list(&s.update_window_dims),
                int_list(&s.inserted_window_dims),
                int_list(&s.scatter_dims_to_operand_dims),
                s.index_vector_dim
            );
            let flag = |name: &str| instr.attr_bool(name).unwrap_or(false).to_string();
            e.op_shaped(
                instr,
                "stablehlo.scatter",
                &operands,
                &[
                    ("scatter_dimension_numbers", numbers),
                    ("indices_are_sorted", flag("indices_are_sorted")),
                    ("unique_indices", flag("unique_indices")),
                ],
                &[region],
            )
        }
        op => Err(at.error(format!("`{op}` is not an indexing opcode"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::print;

    #[test]
    fn dynamic_slices() {
        let text = print(
            "HloModule m
ENTRY e {
  a = s8[4,5] parameter(0)
  i = u32[] parameter(1)
  j = u32[] parameter(2)
  d = s8[2,3] dynamic-slice(a, i, j), dynamic_slice_sizes={2,3}
  ROOT u = s8[4,5] dynamic-update-slice(a, d, j, i)
}",
        );
        for expected in [
            r#"%0 = "stablehlo.dynamic_slice"(%arg0, %arg1, %arg2) <{slice_sizes = array<i64: 2, 3>}> : (tensor<4x5xi8>, tensor<ui32>, tensor<ui32>) -> tensor<2x3xi8>"#,
            r#"%1 = "stablehlo.dynamic_update_slice"(%arg0, %0, %arg2, %arg1) : (tensor<4x5xi8>, tensor<2x3xi8>, tensor<ui32>, tensor<ui32>) -> tensor<4x5xi8>"#,
        ] {
            assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        }
    }

    #[test]
    fn gather_and_scatter_carry_their_dimension_numbers() {
        let text = print(
            "HloModule m
upd {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,3] parameter(0)
  i = s32[2,1] parameter(1)
  g = f32[2,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  ROOT s = f32[5,3] scatter(x, i, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=upd
}",
        );
        let expected = r#"    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, indices_are_sorted = false}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    %4 = "stablehlo.scatter"(%arg0, %arg1, %0) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = true}> ({
    ^bb0(%1: tensor<f32>, %2: tensor<f32>):
      %3 = "stablehlo.add"(%1, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
"#;
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }
}
