use super::*;
use crate::hlo::parse_module;

/// The logical form of the root of a module whose parameters are the operands; `sizes` gives
/// each parameter's runtime sizes (`None`: its static sizes).
fn form(hlo: &str, sizes: &[Option<&[i64]>]) -> Result<LogicalForm, DynamicError> {
    let m = parse_module(hlo).unwrap();
    let c = m.entry_computation();
    let root = c.root_instruction();
    let shapes: Vec<ArrayShape> = root
        .operands
        .iter()
        .map(|&o| c.instructions[o].shape.as_array().unwrap().clone())
        .collect();
    let operands: Vec<OperandSizes> = shapes
        .iter()
        .zip(sizes)
        .map(|(bound, s)| OperandSizes {
            bound,
            logical: s.unwrap_or(&bound.dimensions),
        })
        .collect();
    logical_form(root, &operands)
}

fn result_dims(hlo: &str, sizes: &[Option<&[i64]>]) -> Vec<i64> {
    let f = form(hlo, sizes).unwrap_or_else(|e| panic!("{e}"));
    f.instruction.shape.as_array().unwrap().dimensions.clone()
}

fn module(params: &str, root: &str) -> String {
    format!("HloModule m\nENTRY e {{\n{params}\n  ROOT r = {root}\n}}\n")
}

#[test]
fn sizes_follow_the_operation() {
    let p = "  x = f32[<=10,3]{0,1} parameter(0)";
    // Transpose moves the size; the declared layout is kept.
    let f = form(
        &module(p, "f32[3,<=10] transpose(x), dimensions={1,0}"),
        &[Some(&[4, 3])],
    )
    .unwrap();
    assert_eq!(f.instruction.shape.to_string(), "f32[3,4]{1,0}");
    // Reverse and copy keep it; broadcast maps it to the output dimension.
    assert_eq!(
        result_dims(
            &module(p, "f32[<=10,3] reverse(x), dimensions={0}"),
            &[Some(&[4, 3])]
        ),
        vec![4, 3]
    );
    assert_eq!(
        result_dims(
            &module(p, "f32[2,3,<=10] broadcast(x), dimensions={2,1}"),
            &[Some(&[4, 3])]
        ),
        vec![2, 3, 4]
    );
    // Pad: lo + hi + n + (n - 1) * interior; n = 0 leaves the edges only.
    let pad = module(
        "  x = f32[<=10] parameter(0)\n  z = f32[] parameter(1)",
        "f32[31] pad(x, z), padding=1_2_2",
    );
    assert_eq!(result_dims(&pad, &[Some(&[4]), None]), vec![13]);
    assert_eq!(result_dims(&pad, &[Some(&[0]), None]), vec![3]);
    // Concatenate adds the runtime sizes.
    let cat = module(
        "  x = f32[<=10] parameter(0)\n  y = f32[6] parameter(1)",
        "f32[16] concatenate(x, y), dimensions={0}",
    );
    assert_eq!(result_dims(&cat, &[Some(&[3]), None]), vec![9]);
}

#[test]
fn element_wise_operands_meet_at_the_smallest_size() {
    let add = module(
        "  x = f32[<=10,2] parameter(0)\n  y = f32[10,2] parameter(1)",
        "f32[<=10,2] add(x, y)",
    );
    let f = form(&add, &[Some(&[4, 2]), None]).unwrap();
    assert_eq!(f.operand_dimensions, vec![vec![4, 2], vec![4, 2]]);
    assert_eq!(
        f.instruction.shape.as_array().unwrap().dimensions,
        vec![4, 2]
    );
    // A scalar clamp bound is read whole.
    let clamp = module(
        "  lo = f32[] parameter(0)\n  x = f32[<=10] parameter(1)\n  hi = f32[] parameter(2)",
        "f32[<=10] clamp(lo, x, hi)",
    );
    let f = form(&clamp, &[None, Some(&[7]), None]).unwrap();
    assert_eq!(f.operand_dimensions, vec![vec![], vec![7], vec![]]);
}

#[test]
fn slices_are_cut_at_the_runtime_size() {
    let p = "  x = f32[<=10] parameter(0)";
    let full = module(p, "f32[10] slice(x), slice={[0:10]}");
    assert_eq!(result_dims(&full, &[Some(&[6])]), vec![6]);
    let strided = module(p, "f32[4] slice(x), slice={[1:9:2]}");
    // Elements 1, 3, 5 of six.
    assert_eq!(result_dims(&strided, &[Some(&[6])]), vec![3]);
    assert_eq!(result_dims(&strided, &[Some(&[9])]), vec![4]);
    // A start beyond the runtime size: empty.
    let late = module(p, "f32[2] slice(x), slice={[7:9]}");
    assert_eq!(result_dims(&late, &[Some(&[6])]), vec![0]);
}

#[test]
fn full_bound_slice_sizes_follow_the_runtime_size() {
    let ds = |sizes: &str| {
        module(
            "  x = f32[<=10,4] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)",
            &format!("f32[{sizes}] dynamic-slice(x, i, j), dynamic_slice_sizes={{{sizes}}}"),
        )
    };
    assert_eq!(
        result_dims(&ds("10,2"), &[Some(&[6, 4]), None, None]),
        vec![6, 2]
    );
    assert_eq!(
        result_dims(&ds("3,4"), &[Some(&[6, 4]), None, None]),
        vec![3, 4]
    );
    // Larger than the runtime size but not the bound: invalid for these sizes.
    let e = form(&ds("8,4"), &[Some(&[6, 4]), None, None]).unwrap_err();
    assert!(e.to_string().contains("[6, 4]"), "{e}");
    let gather = module(
        "  x = f32[<=10,4] parameter(0)\n  i = s32[5,1] parameter(1)",
        "f32[5,10] gather(x, i), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, slice_sizes={10,1}",
    );
    assert_eq!(result_dims(&gather, &[Some(&[7, 4]), None]), vec![5, 7]);
    assert_eq!(
        result_dims(&gather, &[Some(&[7, 4]), Some(&[2, 1])]),
        vec![2, 7]
    );
}

#[test]
fn reshape_groups_by_common_factors() {
    // Combine: [2, <=3] of size 2 → 4 of 6.
    let combine = module("  x = f32[2,<=3] parameter(0)", "f32[<=6] reshape(x)");
    assert_eq!(result_dims(&combine, &[Some(&[2, 2])]), vec![4]);
    // Split: the marked dimension takes the size.
    let split = module("  x = f32[<=6] parameter(0)", "f32[2,<=3] reshape(x)");
    assert_eq!(result_dims(&split, &[Some(&[4])]), vec![2, 2]);
    // Unmarked: the most major dimension; a count that does not divide is invalid.
    let major = module("  x = f32[<=6,5] parameter(0)", "f32[2,3,5] reshape(x)");
    assert_eq!(result_dims(&major, &[Some(&[3, 5])]), vec![1, 3, 5]);
    assert!(form(&major, &[Some(&[4, 5])]).is_err());
    // Size-1 dimensions and a static group.
    let ones = module("  x = f32[1,<=8,3] parameter(0)", "f32[8,1,3] reshape(x)");
    assert_eq!(result_dims(&ones, &[Some(&[1, 5, 3])]), vec![5, 1, 3]);
    assert_eq!(
        common_factors(&[2, 3, 4], &[6, 2, 2]),
        vec![(0..2, 0..1), (2..3, 1..3)]
    );
    assert_eq!(common_factors(&[1], &[1]), vec![(0..1, 0..1)]);
    assert_eq!(common_factors(&[6], &[6, 1]), vec![(0..1, 0..2)]);
    assert_eq!(common_factors(&[1, 6], &[6]), vec![(0..2, 0..1)]);
    // A trailing dynamic size-1 dimension that is empty empties the flattened result.
    let flat = module("  x = f32[3,2,<=1] parameter(0)", "f32[6] reshape(x)");
    assert_eq!(result_dims(&flat, &[Some(&[3, 2, 0])]), vec![0]);
    // An empty dynamic dimension of bound 1.
    let empty = module("  x = f32[<=1] parameter(0)", "f32[1] reshape(x)");
    assert_eq!(result_dims(&empty, &[Some(&[0])]), vec![0]);
}

#[test]
fn pass_through_opcodes() {
    assert!(passes_values_through(Opcode::Tuple));
    assert!(passes_values_through(Opcode::SetDimensionSize));
    assert!(!passes_values_through(Opcode::Copy));
    assert!(!passes_values_through(Opcode::Reshape));
}
