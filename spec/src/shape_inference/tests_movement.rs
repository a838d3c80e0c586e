//! Unit tests of data-movement, gather and scatter shape inference.

use super::*;
use crate::hlo::ir::{AttrValue, PaddingDim, SliceDim};
use crate::hlo::{parse_module, GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::shape::ArrayShape;
use ElementType::{F32, S32, S64, U8};

fn a(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

fn f32s(dims: &[i64]) -> Shape {
    a(F32, dims)
}

fn attr(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

fn dims(d: &[i64]) -> Attribute {
    attr("dimensions", AttrValue::Ints(d.to_vec()))
}

/// The error message of a failed inference (panics on success: the test expects an error).
fn err(r: Result<Shape, ShapeInferenceError>) -> String {
    match r {
        Ok(s) => panic!("expected an error, got `{s}`"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn transpose_permutes_dimensions() {
    let x = f32s(&[2, 3, 4]);
    let t = |p: &[i64]| infer_shape(Opcode::Transpose, &[&x], &[dims(p)]);
    assert_eq!(t(&[2, 0, 1]), Ok(f32s(&[4, 2, 3])));
    assert_eq!(t(&[0, 1, 2]), Ok(x.clone()));
    assert!(err(t(&[0, 1])).contains("permutation"));
    assert!(err(t(&[0, 1, 1])).contains("repeats dimension 1"));
    assert!(err(t(&[0, 1, 3])).contains("out of range"));
    assert!(err(infer_shape(Opcode::Transpose, &[&x], &[])).contains("missing `dimensions=`"));
}

#[test]
fn slice_with_strides() {
    // Seed 004, Slice: {0,1,2,3,4}[2:4] = {2,3}; b[2:4, 1:3] of f32[4,3] is f32[2,2].
    let s = |x: &Shape, d: &[(i64, i64, i64)]| {
        let v = d
            .iter()
            .map(|&(start, limit, stride)| SliceDim {
                start,
                limit,
                stride,
            })
            .collect();
        infer_shape(Opcode::Slice, &[x], &[attr("slice", AttrValue::Slice(v))])
    };
    assert_eq!(s(&f32s(&[5]), &[(2, 4, 1)]), Ok(f32s(&[2])));
    assert_eq!(
        s(&f32s(&[4, 3]), &[(2, 4, 1), (1, 3, 1)]),
        Ok(f32s(&[2, 2]))
    );
    assert_eq!(s(&f32s(&[10]), &[(1, 10, 3)]), Ok(f32s(&[3])));
    assert_eq!(s(&f32s(&[10]), &[(1, 8, 3)]), Ok(f32s(&[3])));
    assert_eq!(s(&f32s(&[10]), &[(4, 4, 2)]), Ok(f32s(&[0])));
    assert!(err(s(&f32s(&[5]), &[(-1, 4, 1)])).contains("non-negative"));
    assert!(err(s(&f32s(&[5]), &[(3, 2, 1)])).contains("less than the start"));
    assert!(err(s(&f32s(&[5]), &[(0, 6, 1)])).contains("exceeds the dimension size 5"));
    assert!(err(s(&f32s(&[5]), &[(0, 5, 0)])).contains("must be positive"));
    assert!(err(s(&f32s(&[5, 2]), &[(0, 5, 1)])).contains("1 entries for an operand of rank 2"));
    assert_eq!(
        infer_shape(Opcode::Slice, &[&f32s(&[])], &[]),
        Ok(f32s(&[]))
    );
}

#[test]
fn dynamic_slice_and_update() {
    let x = f32s(&[4, 3]);
    let i = a(S32, &[]);
    let sizes = |d: &[i64]| attr("dynamic_slice_sizes", AttrValue::Ints(d.to_vec()));
    let ds = |ops: &[&Shape], d: &[i64]| infer_shape(Opcode::DynamicSlice, ops, &[sizes(d)]);
    // Seed 004, DynamicSlice: f32[4,3] with sizes {2,2} gives f32[2,2].
    assert_eq!(ds(&[&x, &i, &i], &[2, 2]), Ok(f32s(&[2, 2])));
    // The older form: one rank-1 index vector.
    assert_eq!(ds(&[&x, &a(S64, &[2])], &[2, 2]), Ok(f32s(&[2, 2])));
    assert!(
        err(ds(&[&x, &i], &[2, 2])).contains("1 start index operand(s) for an operand of rank 2")
    );
    assert!(err(ds(&[&x, &i, &a(U8, &[])], &[2, 2])).contains("one type"));
    assert!(err(ds(&[&x, &i, &f32s(&[])], &[2, 2])).contains("integer type"));
    assert!(err(ds(&[&x, &i, &i], &[5, 2])).contains("at most the dimension size 4"));
    assert!(err(ds(&[&x, &i, &i], &[0, 2])).contains("greater than 0"));
    assert!(err(ds(&[&x, &i, &i], &[2])).contains("1 entries"));
    assert!(err(ds(&[&x, &a(S32, &[3]), &i], &[2, 2])).contains("must be a scalar"));
    let dus = |ops: &[&Shape]| infer_shape(Opcode::DynamicUpdateSlice, ops, &[]);
    // Seed 004, DynamicUpdateSlice: f32[4,3] updated by f32[3,2].
    let u = f32s(&[3, 2]);
    assert_eq!(dus(&[&x, &u, &i, &i]), Ok(x.clone()));
    assert!(err(dus(&[&x, &f32s(&[5, 2]), &i, &i])).contains("at most the operand's size 4"));
    assert!(err(dus(&[&x, &f32s(&[0, 2]), &i, &i])).contains("greater than 0"));
    assert!(err(dus(&[&x, &f32s(&[3]), &i])).contains("rank"));
    assert!(err(dus(&[&x, &a(ElementType::F64, &[3, 2]), &i, &i])).contains("element type"));
    assert!(err(dus(&[&x, &u, &i])).contains("start index operand"));
}

#[test]
fn concatenate_joins_one_dimension() {
    let c = |ops: &[&Shape], d: i64| infer_shape(Opcode::Concatenate, ops, &[dims(&[d])]);
    // Seed 004, Concatenate: {{1,2},{3,4},{5,6}} and {{7,8}} along 0 give f32[4,2].
    let (p, q) = (f32s(&[3, 2]), f32s(&[1, 2]));
    assert_eq!(c(&[&p, &q], 0), Ok(f32s(&[4, 2])));
    assert_eq!(c(&[&p], 1), Ok(p.clone()));
    assert_eq!(
        c(&[&f32s(&[2]), &f32s(&[2]), &f32s(&[2])], 0),
        Ok(f32s(&[6]))
    );
    assert!(err(c(&[&p, &q], 1)).contains("may differ only in dimension 1"));
    assert!(err(c(&[&p, &q], 2)).contains("out of range"));
    assert!(err(c(&[&f32s(&[]), &f32s(&[])], 0)).contains("rank-0"));
    assert!(err(c(&[&p, &a(S32, &[1, 2])], 0)).contains("element type"));
    assert!(err(c(&[], 0)).contains("at least 1"));
    assert!(err(infer_shape(
        Opcode::Concatenate,
        &[&p, &q],
        &[dims(&[0, 1])]
    ))
    .contains("exactly one dimension"));
}

#[test]
fn pad_edges_and_interior() {
    let v = f32s(&[]);
    let p = |x: &Shape, cfg: &[(i64, i64, i64)]| {
        let v2 = cfg
            .iter()
            .map(|&(low, high, interior)| PaddingDim {
                low,
                high,
                interior,
            })
            .collect();
        infer_shape(
            Opcode::Pad,
            &[x, &v],
            &[attr("padding", AttrValue::Padding(v2))],
        )
    };
    let x = f32s(&[2, 3]);
    // 2 + 1 + 2 and 3 + 2·1 − 2 + 1.
    assert_eq!(p(&x, &[(1, 2, 0), (1, -2, 1)]), Ok(f32s(&[5, 4])));
    assert_eq!(p(&x, &[(0, 0, 0), (0, 0, 0)]), Ok(x.clone()));
    assert_eq!(p(&f32s(&[0]), &[(1, 1, 5)]), Ok(f32s(&[2])));
    assert_eq!(p(&x, &[(-2, 0, 0), (0, 0, 0)]), Ok(f32s(&[0, 3])));
    assert!(err(p(&x, &[(-3, 0, 0), (0, 0, 0)])).contains("negative size -1"));
    assert!(err(p(&x, &[(0, 0, -1), (0, 0, 0)])).contains("interior padding -1"));
    assert!(err(p(&x, &[(0, 0, 0)])).contains("1 entries for an operand of rank 2"));
    let e = err(infer_shape(Opcode::Pad, &[&x, &f32s(&[1])], &[]));
    assert!(e.contains("must be a scalar"), "{e}");
    let e = err(infer_shape(Opcode::Pad, &[&x, &a(S32, &[])], &[]));
    assert!(e.contains("element type"), "{e}");
}

#[test]
fn reverse_iota_and_dimension_sizes() {
    let x = f32s(&[2, 3]);
    assert_eq!(
        infer_shape(Opcode::Reverse, &[&x], &[dims(&[1, 0])]),
        Ok(x.clone())
    );
    assert_eq!(
        infer_shape(Opcode::Reverse, &[&x], &[dims(&[])]),
        Ok(x.clone())
    );
    assert!(err(infer_shape(Opcode::Reverse, &[&x], &[dims(&[2])])).contains("out of range"));
    assert!(err(infer_shape(Opcode::Reverse, &[&x], &[dims(&[0, 0])])).contains("repeats"));

    // Seed 004, Iota: Iota(s32[4,8], 0) and Iota(s32[4,8], 1).
    let iota = |shape: &Shape, d: i64| {
        infer_shape_in(
            Opcode::Iota,
            &[],
            &[attr("iota_dimension", AttrValue::Int(d))],
            &InferenceContext::from_declared(shape),
        )
    };
    let s = a(S32, &[4, 8]);
    assert_eq!(iota(&s, 0), Ok(s.clone()));
    assert_eq!(iota(&s, 1), Ok(s.clone()));
    assert_eq!(
        iota(&a(ElementType::C64, &[3]), 0),
        Ok(a(ElementType::C64, &[3]))
    );
    assert!(err(iota(&s, 2)).contains("iota_dimension 2 is out of range"));
    assert!(err(iota(&s, -1)).contains("out of range"));
    assert!(err(iota(&a(S32, &[]), 0)).contains("out of range"));
    assert!(err(iota(&a(ElementType::Pred, &[3]), 0)).contains("pred"));
    assert!(infer_shape(
        Opcode::Iota,
        &[],
        &[attr("iota_dimension", AttrValue::Int(0))]
    )
    .unwrap_err()
    .is_not_inferable());

    let g = |x: &Shape, d: i64| infer_shape(Opcode::GetDimensionSize, &[x], &[dims(&[d])]);
    assert_eq!(g(&x, 1), Ok(a(S32, &[])));
    assert!(err(g(&x, 2)).contains("out of range"));
    let size = a(S32, &[]);
    let set = |s: &Shape, d: i64| infer_shape(Opcode::SetDimensionSize, &[&x, s], &[dims(&[d])]);
    let mut dynamic = ArrayShape::new(F32, vec![2, 3]);
    dynamic.dynamic_dimensions[1] = true;
    let out = set(&size, 1).unwrap();
    assert_eq!(out, Shape::Array(dynamic));
    assert_eq!(out.to_string(), "f32[2,<=3]{1,0}");
    assert!(err(set(&a(S64, &[]), 0)).contains("s32 scalar"));
    assert!(err(set(&a(S32, &[1]), 0)).contains("s32 scalar"));
    assert!(err(set(&size, 5)).contains("out of range"));
}

#[test]
fn broadcast_and_reshape_follow_the_seed() {
    // Seed 004, Broadcast: a scalar with broadcast_sizes {2,3} gives f32[2,3]; new dimensions are
    // major (dimensions={n..n+rank-1}).
    let ctx = |out: &'static [i64]| InferenceContext {
        result_dimensions: Some(out),
        ..Default::default()
    };
    let b = |x: &Shape, out: &'static [i64], d: &[i64]| {
        infer_shape_in(Opcode::Broadcast, &[x], &[dims(d)], &ctx(out))
    };
    assert_eq!(b(&f32s(&[]), &[2, 3], &[]), Ok(f32s(&[2, 3])));
    assert_eq!(b(&f32s(&[3]), &[2, 3], &[1]), Ok(f32s(&[2, 3])));
    assert!(err(b(&f32s(&[3]), &[2, -3], &[1])).contains("negative"));
    // Reshape (seed 004): the element counts must agree; 1x1 to a scalar and back.
    let r = |x: &Shape, out: &'static [i64]| infer_shape_in(Opcode::Reshape, &[x], &[], &ctx(out));
    assert_eq!(r(&f32s(&[4, 2, 3]), &[8, 3]), Ok(f32s(&[8, 3])));
    assert_eq!(r(&f32s(&[1, 1]), &[]), Ok(f32s(&[])));
    assert_eq!(r(&f32s(&[]), &[1, 1]), Ok(f32s(&[1, 1])));
    assert!(err(r(&f32s(&[4, 2, 3]), &[5, 5])).contains("element counts differ"));
    assert!(err(r(&f32s(&[0]), &[-1, 0])).contains("element counts differ"));
}

fn gather_attrs(d: &GatherDimensionNumbers, slice_sizes: &[i64]) -> Vec<Attribute> {
    let mut v = d.attributes();
    v.push(attr("slice_sizes", AttrValue::Ints(slice_sizes.to_vec())));
    v
}

fn gdn(offset: &[i64], collapsed: &[i64], map: &[i64], ivd: i64) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: offset.to_vec(),
        collapsed_slice_dims: collapsed.to_vec(),
        start_index_map: map.to_vec(),
        index_vector_dim: ivd,
    }
}

#[test]
fn gather_seed_examples() {
    let gather = |x: &Shape, i: &Shape, d: &GatherDimensionNumbers, s: &[i64]| {
        infer_shape(Opcode::Gather, &[x, i], &gather_attrs(d, s))
    };
    let x = f32s(&[16, 11]);
    // Seed 004, Gather: five [8,6] slices of a [16,11] array from s64[5,2] indices.
    let d = gdn(&[1, 2], &[], &[0, 1], 1);
    assert_eq!(
        gather(&x, &a(S64, &[5, 2]), &d, &[8, 6]),
        Ok(f32s(&[5, 8, 6]))
    );
    // ... from s64[4,5,2] indices: batch dimensions G0, G1.
    let d = gdn(&[2, 3], &[], &[0, 1], 2);
    assert_eq!(
        gather(&x, &a(S64, &[4, 5, 2]), &d, &[8, 6]),
        Ok(f32s(&[4, 5, 8, 6]))
    );
    // tf.gather_nd: one index component X, slice [1,11] with dimension 0 collapsed.
    let d = gdn(&[2], &[0], &[0], 2);
    assert_eq!(
        gather(&x, &a(S64, &[4, 5, 1]), &d, &[1, 11]),
        Ok(f32s(&[4, 5, 11]))
    );
    // The same with an implicit index vector (index_vector_dim = rank).
    assert_eq!(
        gather(&x, &a(S32, &[4, 5]), &d, &[1, 11]),
        Ok(f32s(&[4, 5, 11]))
    );
    // Offset dimensions first, batch dimensions last.
    let d = gdn(&[0], &[0], &[0], 1);
    assert_eq!(
        gather(&x, &a(S32, &[7, 1]), &d, &[1, 11]),
        Ok(f32s(&[11, 7]))
    );
}

#[test]
fn gather_rejects_each_broken_rule() {
    let x = f32s(&[16, 11]);
    let i = a(S64, &[5, 2]);
    let g = |d: &GatherDimensionNumbers, s: &[i64]| {
        err(infer_shape(Opcode::Gather, &[&x, &i], &gather_attrs(d, s)))
    };
    let e = g(&gdn(&[2, 1], &[], &[0, 1], 1), &[8, 6]);
    assert_eq!(e, "gather: offset_dims must be sorted ascending, got {2,1}");
    assert!(g(&gdn(&[1, 1], &[], &[0, 1], 1), &[8, 6]).contains("offset_dims repeats"));
    assert!(
        g(&gdn(&[1, 3], &[], &[0, 1], 1), &[8, 6]).contains("offset_dims entry 3 is out of range")
    );
    assert!(g(&gdn(&[1, 2], &[], &[0, 1], 3), &[8, 6]).contains("index_vector_dim 3"));
    assert!(g(&gdn(&[1, 2], &[], &[0], 1), &[8, 6]).contains("start_index_map {0} has 1 entries"));
    assert!(g(&gdn(&[1, 2], &[], &[0, 0], 1), &[8, 6]).contains("start_index_map repeats"));
    assert!(g(&gdn(&[1, 2], &[], &[0, 2], 1), &[8, 6]).contains("start_index_map entry 2"));
    assert!(
        g(&gdn(&[1], &[1, 0], &[0, 1], 1), &[1, 1]).contains("collapsed_slice_dims must be sorted")
    );
    assert!(g(&gdn(&[1], &[], &[0, 1], 1), &[8, 6]).contains("operand-rank (2) entries"));
    assert!(g(&gdn(&[1, 2], &[], &[0, 1], 1), &[8]).contains("slice_sizes {8} has 1 entries"));
    assert!(g(&gdn(&[1, 2], &[], &[0, 1], 1), &[17, 6]).contains("slice_sizes[0] = 17"));
    assert!(g(&gdn(&[1], &[0], &[0, 1], 1), &[2, 6])
        .contains("collapsed slice dimension 0 must have slice size 1"));
    let fi = f32s(&[5, 2]);
    let e = err(infer_shape(
        Opcode::Gather,
        &[&x, &fi],
        &gather_attrs(&gdn(&[1, 2], &[], &[0, 1], 1), &[8, 6]),
    ));
    assert!(e.contains("integer type"), "{e}");
    let e = err(infer_shape(Opcode::Gather, &[&x, &i], &[]));
    assert!(e.contains("missing `offset_dims=`"), "{e}");
    let mut batched = gather_attrs(&gdn(&[1, 2], &[], &[0, 1], 1), &[8, 6]);
    batched.push(attr("operand_batching_dims", AttrValue::Raw("{0}".into())));
    assert!(infer_shape(Opcode::Gather, &[&x, &i], &batched)
        .unwrap_err()
        .is_not_inferable());
}

fn sdn(window: &[i64], inserted: &[i64], map: &[i64], ivd: i64) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: window.to_vec(),
        inserted_window_dims: inserted.to_vec(),
        scatter_dims_to_operand_dims: map.to_vec(),
        index_vector_dim: ivd,
    }
}

#[test]
fn scatter_shapes_and_rules() {
    let x = f32s(&[3, 3]);
    let idx = a(S32, &[2]);
    let upd = f32s(&[2, 3]);
    // Rows 0 and 2 of a 3x3 operand updated by a 2x3 array (indices s32[2], implicit vector).
    let d = sdn(&[1], &[0], &[0], 1);
    let s = |ops: &[&Shape], d: &ScatterDimensionNumbers| {
        infer_shape(Opcode::Scatter, ops, &d.attributes())
    };
    assert_eq!(s(&[&x, &idx, &upd], &d), Ok(x.clone()));
    // Windows smaller than the operand are allowed.
    assert_eq!(s(&[&x, &idx, &f32s(&[2, 2])], &d), Ok(x.clone()));
    // Variadic: a tuple result.
    let xi = a(S32, &[3, 3]);
    let ui = a(S32, &[2, 3]);
    assert_eq!(
        s(&[&x, &xi, &idx, &upd, &ui], &d),
        Ok(Shape::Tuple(vec![x.clone(), xi.clone()]))
    );
    // Broken rules.
    assert!(err(s(&[&x, &idx], &d)).contains("2N + 1"));
    assert!(err(s(&[&x, &idx, &f32s(&[2, 4])], &d)).contains("more than operand dimension 1 (3)"));
    assert!(err(s(&[&x, &idx, &f32s(&[3, 3])], &d)).contains("scatter dimension 0 has size 3"));
    assert!(err(s(&[&x, &idx, &f32s(&[2, 3, 1])], &d)).contains("need rank 2"));
    assert!(err(s(&[&x, &idx, &upd], &sdn(&[1], &[0], &[0], 2))).contains("index_vector_dim 2"));
    assert!(err(s(&[&x, &idx, &upd], &sdn(&[1], &[0], &[0, 1], 1))).contains("has 2 entries"));
    assert!(err(s(&[&x, &idx, &upd], &sdn(&[1], &[0], &[2], 1)))
        .contains("scatter_dims_to_operand_dims entry 2"));
    assert!(
        err(s(&[&x, &idx, &upd], &sdn(&[1], &[], &[0], 1))).contains("operand-rank (2) entries")
    );
    let e = err(s(
        &[&f32s(&[3, 3, 3]), &idx, &f32s(&[2, 3])],
        &sdn(&[1], &[2, 0], &[0], 1),
    ));
    assert!(
        e.contains("inserted_window_dims must be sorted ascending, got {2,0}"),
        "{e}"
    );
    assert!(
        err(s(&[&x, &idx, &f32s(&[3, 2])], &sdn(&[1, 0], &[], &[0], 1)))
            .contains("update_window_dims must be sorted")
    );
    assert!(err(s(&[&x, &idx, &ui], &d)).contains("element type"));
    assert!(err(s(&[&x, &f32s(&[2]), &upd], &d)).contains("integer type"));
    assert!(err(s(&[&x, &a(S32, &[4, 3]), &idx, &upd, &ui], &d)).contains("same dimensions"));
}

#[test]
fn scatter_checks_the_update_computation() {
    let x = f32s(&[3]);
    let idx = a(S32, &[1]);
    let upd = f32s(&[1]);
    let d = sdn(&[], &[0], &[0], 1);
    let with = |params: &[Shape], root: &Shape| {
        let context = InferenceContext {
            callee: Some((params, root)),
            ..Default::default()
        };
        infer_shape_in(
            Opcode::Scatter,
            &[&x, &idx, &upd],
            &d.attributes(),
            &context,
        )
    };
    let s = f32s(&[]);
    assert_eq!(with(&[s.clone(), s.clone()], &s), Ok(x.clone()));
    assert!(err(with(std::slice::from_ref(&s), &s)).contains("takes 1 parameter(s)"));
    assert!(err(with(&[s.clone(), a(S32, &[])], &s)).contains("parameter 1"));
    assert!(err(with(&[s.clone(), s.clone()], &f32s(&[1]))).contains("returns"));
    // Variadic: 2N parameters, an N-tuple root.
    let (xi, ui, si) = (a(S32, &[3]), a(S32, &[1]), a(S32, &[]));
    let params = [s.clone(), si.clone(), s.clone(), si.clone()];
    let root = Shape::Tuple(vec![s.clone(), si.clone()]);
    let context = InferenceContext {
        callee: Some((&params, &root)),
        ..Default::default()
    };
    assert_eq!(
        infer_shape_in(
            Opcode::Scatter,
            &[&x, &xi, &idx, &upd, &ui],
            &d.attributes(),
            &context
        ),
        Ok(Shape::Tuple(vec![x.clone(), xi.clone()]))
    );
}

#[test]
fn verifier_checks_data_movement_modules() {
    let text = "HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[4,3]{0,1} parameter(0)
  i = s32[] parameter(1)
  t = f32[3,4] transpose(x), dimensions={1,0}
  s = f32[2,2] slice(x), slice={[0:4:2], [1:3]}
  d = f32[2,2] dynamic-slice(x, i, i), dynamic_slice_sizes={2,2}
  u = f32[4,3] dynamic-update-slice(x, d, i, i)
  c = f32[8,3] concatenate(x, u), dimensions={0}
  z = f32[] constant(0)
  p = f32[9,3] pad(c, z), padding=1_0x0_0_0
  r = f32[9,3] reverse(p), dimensions={0,1}
  k = s32[4,3] iota(), iota_dimension=1
  g = f32[2,3] gather(x, i), offset_dims={0,1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=0, slice_sizes={2,3}
  v = f32[2,3]{0,1} copy(g)
  w = f32[4,3] scatter(x, i, v), update_window_dims={0,1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=add
  n = s32[] get-dimension-size(w), dimensions={0}
  y = f32[<=4,3] set-dimension-size(w, n), dimensions={0}
  ROOT o = (f32[3,4], f32[9,3], s32[4,3], f32[<=4,3]) tuple(t, r, k, y)
}";
    verify_module(&parse_module(text).unwrap()).unwrap();
    let bad = text.replace("f32[9,3] reverse", "f32[3,9] reverse");
    let e = verify_module(&parse_module(&bad).unwrap()).unwrap_err();
    assert_eq!(e.instruction.as_deref(), Some("r"));
    let bad_update = text.replace(
        "add { a = f32[] parameter(0)",
        "add { a = s32[] parameter(0)",
    );
    let bad_update = bad_update.replace("ROOT s = f32[] add(a, b)", "ROOT s = f32[] parameter(2)");
    assert!(verify_module(&parse_module(&bad_update).unwrap()).is_err());
    let bad_region = "HloModule m
upd { a = s32[] parameter(0)  ROOT b = s32[] parameter(1) }
ENTRY e {
  x = f32[3] parameter(0)
  i = s32[1] parameter(1)
  u = f32[1] parameter(2)
  ROOT w = f32[3] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=upd
}";
    let e = verify_module(&parse_module(bad_region).unwrap()).unwrap_err();
    assert!(
        e.message
            .contains("parameter 0 of the update computation is `s32[]`"),
        "{e}"
    );
}
