//! ComputationBuilder's data-movement methods (seed 004): the modules they build verify and
//! round-trip through HLO text, and their shapes follow the seed's worked examples.

use conformance_spec::hlo::{
    parse_module, BuildError, ComputationBuilder, GatherDimensionNumbers, HloComputation,
    HloModule, Opcode, PaddingDim, ScatterDimensionNumbers, SliceDim,
};
use conformance_spec::layout::Layout;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape_inference::verify_module;
use conformance_spec::{ArrayShape, ElementType, Shape};
use ElementType::{F32, S32, S64};

fn f32s(dims: &[i64]) -> Shape {
    Shape::array(F32, dims.to_vec())
}

/// Builds a module with `others` as called computations, checks that it verifies and
/// round-trips through text, and returns it.
fn finish_with(b: ComputationBuilder, root: usize, others: Vec<HloComputation>) -> HloModule {
    let m = HloModule::with_entry("m", b.build(root), others);
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{m}"));
    assert_eq!(parse_module(&m.to_string()).as_ref(), Ok(&m), "{m}");
    m
}

fn finish(b: ComputationBuilder, root: usize) -> HloModule {
    finish_with(b, root, vec![])
}

fn root_shape(m: &HloModule) -> &Shape {
    &m.entry_computation().root_instruction().shape
}

fn opcodes(m: &HloModule) -> Vec<Opcode> {
    m.entry_computation()
        .instructions
        .iter()
        .map(|i| i.opcode)
        .collect()
}

#[test]
fn broadcast_forms() {
    // Seed 004, Broadcast: a scalar with broadcast_sizes {2,3} gives f32[2,3].
    let mut b = ComputationBuilder::new("main");
    let s = b.parameter(f32s(&[])).unwrap();
    let r = b.broadcast_major(s, &[2, 3]).unwrap();
    let m = finish(b, r);
    assert_eq!(root_shape(&m), &f32s(&[2, 3]));
    // New dimensions are major: f32[3] → f32[4,3] with dimensions={1}.
    let mut b = ComputationBuilder::new("main");
    let v = b.parameter(f32s(&[3])).unwrap();
    let r = b.broadcast_major(v, &[4]).unwrap();
    let m = finish(b, r);
    assert_eq!(root_shape(&m), &f32s(&[4, 3]));
    assert_eq!(
        m.entry_computation()
            .root_instruction()
            .attr_ints("dimensions"),
        Some(&[1i64][..])
    );
    // Seed 004, BroadcastInDim: a size-1 dimension expands (lowered to reshape + broadcast).
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[2, 1])).unwrap();
    let r = b.broadcast_in_dim(x, &[2, 4, 3], &[0, 2]).unwrap();
    let m = finish(b, r);
    assert_eq!(root_shape(&m), &f32s(&[2, 4, 3]));
    assert_eq!(
        opcodes(&m),
        vec![Opcode::Parameter, Opcode::Reshape, Opcode::Broadcast]
    );
    // Equal sizes need only the broadcast.
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[3])).unwrap();
    let r = b.broadcast_in_dim(x, &[3, 2], &[0]).unwrap();
    let m = finish(b, r);
    assert_eq!(opcodes(&m), vec![Opcode::Parameter, Opcode::Broadcast]);
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[2])).unwrap();
    assert!(matches!(
        b.broadcast_in_dim(x, &[3], &[0]),
        Err(BuildError::Invalid(_))
    ));
    assert!(b.broadcast_in_dim(x, &[2, 2], &[2]).is_err());
    assert!(b.broadcast_in_dim(x, &[2, 2], &[]).is_err());
}

#[test]
fn reshape_collapse_and_reordering() {
    // Seed 004, Reshape and Collapse of v = f32[4x2x3].
    let build = |f: &dyn Fn(&mut ComputationBuilder, usize) -> Result<usize, BuildError>| {
        let mut b = ComputationBuilder::new("main");
        let v = b.parameter(f32s(&[4, 2, 3])).unwrap();
        let r = f(&mut b, v).unwrap();
        finish(b, r)
    };
    assert_eq!(
        root_shape(&build(&|b, v| b.reshape(v, &[24]))),
        &f32s(&[24])
    );
    assert_eq!(
        root_shape(&build(&|b, v| b.collapse(v, &[0, 1]))),
        &f32s(&[8, 3])
    );
    assert_eq!(
        root_shape(&build(&|b, v| b.collapse(v, &[1, 2]))),
        &f32s(&[4, 6])
    );
    assert_eq!(
        root_shape(&build(&|b, v| b.collapse(v, &[0, 1, 2]))),
        &f32s(&[24])
    );
    let m = build(&|b, v| b.reshape_reordering(v, &[1, 2, 0], &[2, 6, 2]));
    assert_eq!(root_shape(&m), &f32s(&[2, 6, 2]));
    assert_eq!(
        opcodes(&m),
        vec![Opcode::Parameter, Opcode::Transpose, Opcode::Reshape]
    );
    let m = build(&|b, v| b.reshape_reordering(v, &[0, 1, 2], &[8, 3]));
    assert_eq!(opcodes(&m), vec![Opcode::Parameter, Opcode::Reshape]);
    // Seed 004: f32[1x1] to a scalar and back.
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[1, 1])).unwrap();
    let s = b.reshape(x, &[]).unwrap();
    let r = b.reshape(s, &[1, 1]).unwrap();
    finish(b, r);
    let mut b = ComputationBuilder::new("main");
    let v = b.parameter(f32s(&[4, 2, 3])).unwrap();
    assert!(b.collapse(v, &[0, 2]).is_err());
    assert!(b.collapse(v, &[1, 0]).is_err());
    assert!(b.collapse(v, &[]).is_err());
    assert!(b.reshape(v, &[5]).is_err());
    assert!(b.reshape_reordering(v, &[0, 0, 1], &[24]).is_err());
}

#[test]
fn slicing_family() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[4, 3])).unwrap();
    let i = b.parameter(Shape::array(S32, vec![])).unwrap();
    // Seed 004, Slice: b[2:4, 1:3] is f32[2,2]; with a stride.
    let s = b
        .slice(
            x,
            &[
                SliceDim {
                    start: 2,
                    limit: 4,
                    stride: 1,
                },
                SliceDim {
                    start: 0,
                    limit: 3,
                    stride: 2,
                },
            ],
        )
        .unwrap();
    assert_eq!(b.shape(s).unwrap(), &f32s(&[2, 2]));
    // Seed 004, DynamicSlice {2,2} of f32[4,3]; DynamicUpdateSlice of f32[3,2] into it.
    let d = b.dynamic_slice(x, &[i, i], &[2, 2]).unwrap();
    assert_eq!(b.shape(d).unwrap(), &f32s(&[2, 2]));
    let u = b.parameter(f32s(&[3, 2])).unwrap();
    let w = b.dynamic_update_slice(x, u, &[i, i]).unwrap();
    // Seed 004, Concatenate: f32[3,2] and f32[1,2] along 0.
    let c = b.concatenate(&[s, d], 1).unwrap();
    assert_eq!(b.shape(c).unwrap(), &f32s(&[2, 4]));
    let r = b.reverse(w, &[0, 1]).unwrap();
    let t = b.transpose(r, &[1, 0]).unwrap();
    let z = b.constant(Literal::Array(ArrayLiteral::zeros(ArrayShape::scalar(F32))));
    let p = b
        .pad(
            t,
            z,
            &[
                PaddingDim {
                    low: 1,
                    high: -1,
                    interior: 1,
                },
                PaddingDim {
                    low: 0,
                    high: 2,
                    interior: 0,
                },
            ],
        )
        .unwrap();
    // 3 + 2·1 and 4 + 2.
    assert_eq!(b.shape(p).unwrap(), &f32s(&[5, 6]));
    let root = b.tuple(&[c, p]).unwrap();
    let m = finish(b, root);
    assert_eq!(
        root_shape(&m),
        &Shape::Tuple(vec![f32s(&[2, 4]), f32s(&[5, 6])])
    );
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[4, 3])).unwrap();
    let i = b.parameter(Shape::array(S32, vec![])).unwrap();
    assert!(b.dynamic_slice(x, &[i], &[2, 2]).is_err());
    assert!(b.dynamic_slice(x, &[i, i], &[5, 2]).is_err());
    assert!(b.concatenate(&[], 0).is_err());
    assert!(b.transpose(x, &[0, 0]).is_err());
    assert!(b.reverse(x, &[2]).is_err());
}

#[test]
fn iota_dimension_sizes_copies_and_tuples() {
    let mut b = ComputationBuilder::new("main");
    // Seed 004, Iota(s32[4,8], 1), in a column-major layout.
    let k = b
        .iota(
            ArrayShape::new(S32, vec![4, 8]).with_layout(Layout::new(vec![0, 1])),
            1,
        )
        .unwrap();
    let n = b.get_dimension_size(k, 1).unwrap();
    assert_eq!(b.shape(n).unwrap(), &Shape::array(S32, vec![]));
    let y = b.set_dimension_size(k, n, 1).unwrap();
    assert_eq!(b.shape(y).unwrap().to_string(), "s32[4,<=8]{1,0}");
    let c = b.copy_with_layout(k, Layout::new(vec![1, 0])).unwrap();
    let c2 = b.copy(c).unwrap();
    let t = b.tuple(&[c2, y]).unwrap();
    let g = b.get_tuple_element(t, 1).unwrap();
    assert!(b.get_tuple_element(t, 2).is_err());
    assert!(b
        .iota(ArrayShape::new(ElementType::Pred, vec![3]), 0)
        .is_err());
    assert!(b.iota(ArrayShape::new(S32, vec![3]), 1).is_err());
    assert!(b.get_dimension_size(k, 2).is_err());
    assert!(b.set_dimension_size(k, k, 0).is_err());
    let m = finish(b, g);
    let e = m.entry_computation();
    assert_eq!(e.instructions[k].shape.to_string(), "s32[4,8]{0,1}");
    assert_eq!(e.instructions[c].shape.to_string(), "s32[4,8]{1,0}");
}

#[test]
fn gather_seed_example_builds() {
    // Seed 004, Gather: five [8,6] slices of a [16,11] array.
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[16, 11])).unwrap();
    let i = b.parameter(Shape::array(S64, vec![5, 2])).unwrap();
    let d = GatherDimensionNumbers {
        offset_dims: vec![1, 2],
        collapsed_slice_dims: vec![],
        start_index_map: vec![0, 1],
        index_vector_dim: 1,
    };
    let g = b.gather(x, i, &d, &[8, 6], false).unwrap();
    let bad = GatherDimensionNumbers {
        offset_dims: vec![2, 1],
        ..d.clone()
    };
    let e = b.gather(x, i, &bad, &[8, 6], false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "gather: offset_dims must be sorted ascending, got {2,1}"
    );
    let m = finish(b, g);
    assert_eq!(root_shape(&m), &f32s(&[5, 8, 6]));
    let read = GatherDimensionNumbers::from_instruction(m.entry_computation().root_instruction());
    assert_eq!(read, Ok(d));
}

/// `(a, b) -> b` over scalars of `types` (N = types.len()): the update computation that replaces.
fn replace_computation(types: &[ElementType]) -> HloComputation {
    let mut b = ComputationBuilder::new("replace");
    let mut params = Vec::new();
    for _ in 0..2 {
        for &t in types {
            params.push(b.parameter(Shape::array(t, vec![])).unwrap());
        }
    }
    let n = types.len();
    let root = if n == 1 {
        params[1]
    } else {
        b.tuple(&params[n..]).unwrap()
    };
    b.build(root)
}

#[test]
fn scatter_with_an_update_computation() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[3, 3])).unwrap();
    let i = b.parameter(Shape::array(S32, vec![2])).unwrap();
    let u = b.parameter(f32s(&[2, 3])).unwrap();
    let d = ScatterDimensionNumbers {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
    };
    let upd = replace_computation(&[F32]);
    let s = b.scatter(&[x], i, &[u], &upd, &d, false, false).unwrap();
    assert_eq!(b.shape(s).unwrap(), &f32s(&[3, 3]));
    // The wrong update computation is rejected.
    let wrong = replace_computation(&[S32]);
    let e = b
        .scatter(&[x], i, &[u], &wrong, &d, false, false)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("parameter 0 of the update computation"),
        "{e}"
    );
    assert!(b.scatter(&[x], i, &[], &upd, &d, false, false).is_err());
    let m = finish_with(b, s, vec![upd]);
    let read = ScatterDimensionNumbers::from_instruction(m.entry_computation().root_instruction());
    assert_eq!(read, Ok(d));
}

#[test]
fn variadic_scatter_gives_a_tuple() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[4])).unwrap();
    let y = b.parameter(Shape::array(S32, vec![4])).unwrap();
    let i = b.parameter(Shape::array(S32, vec![3, 1])).unwrap();
    let ux = b.parameter(f32s(&[3])).unwrap();
    let uy = b.parameter(Shape::array(S32, vec![3])).unwrap();
    let d = ScatterDimensionNumbers {
        update_window_dims: vec![],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
    };
    let upd = replace_computation(&[F32, S32]);
    let s = b
        .scatter(&[x, y], i, &[ux, uy], &upd, &d, true, true)
        .unwrap();
    let m = finish_with(b, s, vec![upd]);
    assert_eq!(
        root_shape(&m),
        &Shape::Tuple(vec![f32s(&[4]), Shape::array(S32, vec![4])])
    );
}
