//! Copies: transpose (tiles, SIMD), reshape (zero copy), broadcast, iota, slice, pad, reverse,
//! concatenate, the engine's boxes and its parallel split.

use super::*;

#[test]
fn transpose_matches_naive_under_random_layouts() {
    let mut rng = Rng(1);
    let cases: Vec<(Vec<i64>, Vec<i64>)> = vec![
        (vec![1, 1], vec![1, 0]),
        (vec![31, 33], vec![1, 0]),
        (vec![1000, 3], vec![1, 0]),
        (vec![64, 96], vec![1, 0]),
        (vec![5, 40, 37], vec![2, 0, 1]),
        (vec![3, 4, 5, 6], vec![3, 1, 0, 2]),
        (vec![2, 33, 3, 35], vec![1, 3, 2, 0]),
    ];
    for (dims, perm) in cases {
        for ty in TYPES {
            for round in 0..3 {
                let a = if round == 0 {
                    ArrayShape::new(ty, dims.clone())
                } else {
                    shape(&mut rng, ty, &dims)
                };
                let rdims: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
                let r = if round == 0 {
                    ArrayShape::new(ty, rdims.clone())
                } else {
                    shape(&mut rng, ty, &rdims)
                };
                let bits = random_bits(&mut rng, ty, count(&dims));
                let mut want = vec![0u128; count(&rdims)];
                for_each(&rdims, |o| {
                    let mut i = vec![0i64; dims.len()];
                    for (d, &p) in perm.iter().enumerate() {
                        i[p as usize] = o[d];
                    }
                    want[rm(&rdims, o)] = bits[rm(&dims, &i)];
                });
                let m = module(
                    Opcode::Transpose,
                    std::slice::from_ref(&a),
                    Shape::Array(r.clone()),
                    vec![ints("dimensions", &perm)],
                    vec![],
                );
                check(
                    &m,
                    &[lit(&a, &bits).into()],
                    &lit(&r, &want).into(),
                    &format!("transpose {a} -> {r}"),
                );
            }
        }
    }
}

#[test]
fn simd_tile_equals_scalar_tile() {
    let t = transpose::TILE;
    for (s_i, d_a) in [(32usize, 32usize), (40, 33), (100, 77)] {
        let src: Vec<u8> = (0..(s_i * t + t) * 4).map(|i| (i * 7 + 3) as u8).collect();
        let mut a = vec![0u8; (d_a * t + t) * 4];
        let mut b = a.clone();
        transpose::tile_scalar::<4>(
            &src,
            0,
            s_i as i64,
            &mut a,
            0,
            d_a as i64,
            (0, t as i64),
            (0, t as i64),
        );
        #[cfg(target_arch = "x86_64")]
        {
            if crate::data_movement::simd::transpose_tile_f32(&src, 0, s_i, &mut b, 0, d_a) {
                assert_eq!(a, b, "s_i {s_i}, d_a {d_a}");
            } else {
                eprintln!("no AVX: SIMD tile not compared");
            }
        }
        let _ = &mut b;
        // The scalar kernel itself: element (i, a) moved.
        for i in 0..t {
            for k in 0..t {
                let s = (i * s_i + k) * 4;
                let d = (i + k * d_a) * 4;
                assert_eq!(a[d..d + 4], src[s..s + 4]);
            }
        }
    }
}

#[test]
fn reshape_matches_naive_and_bitcasts_share_the_buffer() {
    let mut rng = Rng(2);
    for (from, to) in [
        (vec![2, 3, 4], vec![6, 4]),
        (vec![6, 4], vec![2, 12]),
        (vec![5, 7], vec![35]),
        (vec![35], vec![7, 1, 5]),
        (vec![], vec![1, 1]),
    ] {
        for ty in TYPES {
            let a = shape(&mut rng, ty, &from);
            let r = shape(&mut rng, ty, &to);
            let bits = random_bits(&mut rng, ty, count(&from));
            let m = module(
                Opcode::Reshape,
                std::slice::from_ref(&a),
                Shape::Array(r.clone()),
                vec![],
                vec![],
            );
            // Row-major order is kept: the same bit sequence.
            check(
                &m,
                &[lit(&a, &bits).into()],
                &lit(&r, &bits).into(),
                &format!("reshape {a} -> {r}"),
            );
        }
    }
    // Zero copy: a row-major reshape of an owned buffer is a view of it.
    let a = ArrayShape::new(ElementType::F32, vec![4, 6]);
    let l = lit(&a, &random_bits(&mut rng, ElementType::F32, 24));
    let ptr = l.data().as_ptr();
    let m = module(
        Opcode::Reshape,
        std::slice::from_ref(&a),
        Shape::Array(ArrayShape::new(ElementType::F32, vec![2, 3, 4])),
        vec![],
        vec![],
    );
    let v = eval_direct(&m, vec![Value::owned(l)]);
    match v {
        Value::Array(r) => {
            assert_eq!(r.data().as_ptr(), ptr, "reshape copied the buffer");
            assert_eq!(r.shape().dimensions, vec![2, 3, 4]);
            let out = r.into_array_literal();
            assert_eq!(out.data().as_ptr(), ptr, "the literal was not moved out");
        }
        _ => panic!("reshape gave a non-array"),
    }
    // A transpose that is only a layout change also shares the buffer.
    let a = ArrayShape::new(ElementType::S8, vec![3, 5]);
    let l = lit(&a, &random_bits(&mut rng, ElementType::S8, 15));
    let ptr = l.data().as_ptr();
    let r = ArrayShape::new(ElementType::S8, vec![5, 3]).with_layout(Layout::new(vec![0, 1]));
    let m = module(
        Opcode::Transpose,
        std::slice::from_ref(&a),
        Shape::Array(r),
        vec![ints("dimensions", &[1, 0])],
        vec![],
    );
    match eval_direct(&m, vec![Value::owned(l)]) {
        Value::Array(v) => assert_eq!(v.data().as_ptr(), ptr, "transpose copied the buffer"),
        _ => panic!("transpose gave a non-array"),
    }
}

#[test]
fn broadcast_and_iota_match_naive() {
    let mut rng = Rng(3);
    for ty in TYPES {
        let a = shape(&mut rng, ty, &[3, 4]);
        let r = shape(&mut rng, ty, &[3, 2, 4]);
        let bits = random_bits(&mut rng, ty, 12);
        let mut want = vec![0u128; 24];
        for_each(&[3, 2, 4], |o| {
            want[rm(&[3, 2, 4], o)] = bits[rm(&[3, 4], &[o[0], o[2]])]
        });
        let m = module(
            Opcode::Broadcast,
            std::slice::from_ref(&a),
            Shape::Array(r.clone()),
            vec![ints("dimensions", &[0, 2])],
            vec![],
        );
        check(
            &m,
            &[lit(&a, &bits).into()],
            &lit(&r, &want).into(),
            "broadcast",
        );
        for d in (0..3).filter(|_| !ty.is_pred()) {
            let r = shape(&mut rng, ty, &[3, 40, 2]);
            let mut want = vec![0u128; 240];
            for_each(&[3, 40, 2], |o| {
                want[rm(&[3, 40, 2], o)] = crate::data_movement::iota::iota_bits(ty, o[d])
            });
            let m = module(
                Opcode::Iota,
                &[],
                Shape::Array(r.clone()),
                vec![int("iota_dimension", d as i64)],
                vec![],
            );
            check(&m, &[], &lit(&r, &want).into(), "iota");
        }
    }
    assert_eq!(
        crate::data_movement::iota::iota_bits(ElementType::F32, 3),
        3.0f32.to_bits() as u128
    );
    assert_eq!(
        crate::data_movement::iota::iota_bits(ElementType::S8, 200),
        200
    );
    let r = ArrayShape::new(ElementType::Pred, vec![3]);
    let m = module(
        Opcode::Iota,
        &[],
        Shape::Array(r),
        vec![int("iota_dimension", 0)],
        vec![],
    );
    assert!(
        Fast::new().execute(&m, &[]).is_err(),
        "pred iota is invalid"
    );
}

#[test]
fn slice_pad_reverse_concatenate_match_naive() {
    let mut rng = Rng(4);
    let dims = [7i64, 5, 4];
    for ty in TYPES {
        let a = shape(&mut rng, ty, &dims);
        let bits = random_bits(&mut rng, ty, count(&dims));
        let arg: Literal = lit(&a, &bits).into();
        // slice with strides
        let sl = [(1i64, 7i64, 3i64), (0, 5, 1), (1, 3, 2)];
        let rdims: Vec<i64> = sl.iter().map(|&(s, l, st)| (l - s + st - 1) / st).collect();
        let r = shape(&mut rng, ty, &rdims);
        let mut want = vec![0u128; count(&rdims)];
        for_each(&rdims, |o| {
            let i: Vec<i64> = (0..3).map(|d| sl[d].0 + o[d] * sl[d].2).collect();
            want[rm(&rdims, o)] = bits[rm(&dims, &i)];
        });
        let attr = Attribute {
            name: "slice".into(),
            value: AttrValue::Slice(
                sl.iter()
                    .map(|&(start, limit, stride)| SliceDim {
                        start,
                        limit,
                        stride,
                    })
                    .collect(),
            ),
        };
        let m = module(
            Opcode::Slice,
            std::slice::from_ref(&a),
            Shape::Array(r.clone()),
            vec![attr],
            vec![],
        );
        check(
            &m,
            std::slice::from_ref(&arg),
            &lit(&r, &want).into(),
            "slice",
        );
        // pad: negative low, interior, positive high
        let pc = [(-2i64, 1i64, 1i64), (1, -1, 0), (0, 2, 2)];
        let rdims: Vec<i64> = (0..3)
            .map(|d| pc[d].0 + pc[d].1 + dims[d] + (dims[d] - 1) * pc[d].2)
            .collect();
        let r = shape(&mut rng, ty, &rdims);
        let pv = random_bits(&mut rng, ty, 1)[0];
        let mut want = vec![pv; count(&rdims)];
        for_each(&dims, |i| {
            let o: Vec<i64> = (0..3).map(|d| pc[d].0 + i[d] * (pc[d].2 + 1)).collect();
            if (0..3).all(|d| o[d] >= 0 && o[d] < rdims[d]) {
                want[rm(&rdims, &o)] = bits[rm(&dims, i)];
            }
        });
        let attr = Attribute {
            name: "padding".into(),
            value: AttrValue::Padding(
                pc.iter()
                    .map(|&(low, high, interior)| PaddingDim {
                        low,
                        high,
                        interior,
                    })
                    .collect(),
            ),
        };
        let scalar = ArrayShape::scalar(ty);
        let m = module(
            Opcode::Pad,
            &[a.clone(), scalar.clone()],
            Shape::Array(r.clone()),
            vec![attr],
            vec![],
        );
        check(
            &m,
            &[arg.clone(), lit(&scalar, &[pv]).into()],
            &lit(&r, &want).into(),
            "pad",
        );
        // reverse
        let r = shape(&mut rng, ty, &dims);
        let mut want = vec![0u128; count(&dims)];
        for_each(&dims, |o| {
            let i = [dims[0] - 1 - o[0], o[1], dims[2] - 1 - o[2]];
            want[rm(&dims, o)] = bits[rm(&dims, &i)];
        });
        let m = module(
            Opcode::Reverse,
            std::slice::from_ref(&a),
            Shape::Array(r.clone()),
            vec![ints("dimensions", &[0, 2])],
            vec![],
        );
        check(
            &m,
            std::slice::from_ref(&arg),
            &lit(&r, &want).into(),
            "reverse",
        );
        // concatenate along 1: [7,5,4] ++ [7,2,4] ++ [7,0,4]
        let b_dims = [7i64, 2, 4];
        let b = shape(&mut rng, ty, &b_dims);
        let c = shape(&mut rng, ty, &[7, 0, 4]);
        let b_bits = random_bits(&mut rng, ty, count(&b_dims));
        let rdims = [7i64, 7, 4];
        let r = shape(&mut rng, ty, &rdims);
        let mut want = vec![0u128; count(&rdims)];
        for_each(&rdims, |o| {
            want[rm(&rdims, o)] = if o[1] < 5 {
                bits[rm(&dims, o)]
            } else {
                b_bits[rm(&b_dims, &[o[0], o[1] - 5, o[2]])]
            };
        });
        let m = module(
            Opcode::Concatenate,
            &[a.clone(), b.clone(), c.clone()],
            Shape::Array(r.clone()),
            vec![ints("dimensions", &[1])],
            vec![],
        );
        check(
            &m,
            &[arg.clone(), lit(&b, &b_bits).into(), lit(&c, &[]).into()],
            &lit(&r, &want).into(),
            "concatenate",
        );
    }
}

#[test]
fn engine_fills_only_its_box() {
    // A plan over a sub-box leaves the rest of the buffer alone.
    let result = ArrayShape::new(ElementType::S8, vec![3, 4]);
    let src: Vec<u8> = (1..=4).collect();
    let mut p = Plan::strided(1, &src, &[0, 1], &result);
    p.lo = vec![1, 1];
    p.hi = vec![3, 3];
    let mut dst = vec![0u8; 12];
    plan::execute(&p, &result, &mut dst, crate::parallel::Par::flag(false));
    assert_eq!(dst, vec![0, 0, 0, 0, 0, 2, 3, 0, 0, 2, 3, 0]);
    let _ = ArrayData::shape(&lit(&result, &[0; 12]));
}

#[test]
fn large_copies_split_across_threads_match_naive() {
    // Large enough for the engine's parallel split (and whole 32 x 32 SIMD tiles), odd sizes and
    // padded layouts so tasks end mid-tile.
    let mut rng = Rng(8);
    for ty in [ElementType::F32, ElementType::S8, ElementType::C128] {
        let dims = [517i64, 301];
        let a = shape(&mut rng, ty, &dims);
        let mut r = shape(&mut rng, ty, &[301, 517]);
        r.layout = Layout::default_for_rank(2).with_padding(vec![303, 520], PaddingValue::Highest);
        let bits = random_bits(&mut rng, ty, count(&dims));
        let mut want = vec![0u128; count(&dims)];
        for_each(&[301, 517], |o| {
            want[rm(&[301, 517], o)] = bits[rm(&dims, &[o[1], o[0]])]
        });
        let m = module(
            Opcode::Transpose,
            std::slice::from_ref(&a),
            Shape::Array(r.clone()),
            vec![ints("dimensions", &[1, 0])],
            vec![],
        );
        check(
            &m,
            &[lit(&a, &bits).into()],
            &lit(&r, &want).into(),
            "large transpose",
        );
    }
    // Gather of 3000 rows of 70 elements.
    let ty = ElementType::F32;
    let op_dims = [1000i64, 70];
    let a = ArrayShape::new(ty, op_dims.to_vec());
    let bits = random_bits(&mut rng, ty, count(&op_dims));
    let idx_dims = [3000i64, 1];
    let idx: Vec<i64> = (0..3000).map(|_| rng.range(-5, 1005)).collect();
    let out_dims = [3000i64, 70];
    let want = super::indexing::naive_gather(
        &op_dims,
        &bits,
        &idx_dims,
        &idx,
        &[1],
        &[0],
        &[0],
        1,
        &[1, 70],
        &out_dims,
    );
    let ishape = ArrayShape::new(ElementType::S32, idx_dims.to_vec());
    for r in [
        ArrayShape::new(ty, out_dims.to_vec()),
        shape(&mut rng, ty, &out_dims),
    ] {
        let m = module(
            Opcode::Gather,
            &[a.clone(), ishape.clone()],
            Shape::Array(r.clone()),
            vec![
                ints("offset_dims", &[1]),
                ints("collapsed_slice_dims", &[0]),
                ints("start_index_map", &[0]),
                int("index_vector_dim", 1),
                ints("slice_sizes", &[1, 70]),
            ],
            vec![],
        );
        let ibits: Vec<u128> = idx.iter().map(|&v| (v as i32 as u32) as u128).collect();
        check(
            &m,
            &[lit(&a, &bits).into(), lit(&ishape, &ibits).into()],
            &lit(&r, &want).into(),
            "large gather",
        );
    }
}
