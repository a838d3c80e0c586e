//! Every data-movement operation against a naive implementation written here (logical multi-index
//! loops over row-major bit vectors), under random layouts with padding, for elements of 1, 2, 4
//! and 16 bytes; results are compared byte for byte with the literal the naive values give in the
//! declared layout (so padding positions are checked too), sequentially and split across threads.

use super::plan::{self, Plan};
use super::transpose;
use crate::value::{ArrayData, Value};
use crate::Fast;
use conformance_spec::hlo::{
    AttrValue, Attribute, HloComputation, HloInstruction, PaddingDim, SliceDim,
};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{
    ArrayShape, Backend, ElementType, HloModule, Layout, Literal, Opcode, PaddingValue, Shape,
};

/// xorshift64*: deterministic test randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

const TYPES: [ElementType; 5] = [
    ElementType::Pred,
    ElementType::S8,
    ElementType::F16,
    ElementType::F32,
    ElementType::C128,
];

/// A random layout for `dims`: any dimension order, padded half of the time.
fn random_layout(rng: &mut Rng, dims: &[i64]) -> Layout {
    let mut m2m: Vec<i64> = (0..dims.len() as i64).collect();
    for i in (1..m2m.len()).rev() {
        m2m.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let layout = Layout::new(m2m);
    if rng.below(2) == 0 && !dims.is_empty() {
        let padded = dims.iter().map(|&d| d + rng.range(0, 2)).collect();
        let value = [
            PaddingValue::Zero,
            PaddingValue::One,
            PaddingValue::Lowest,
            PaddingValue::Highest,
        ][rng.below(4) as usize];
        layout.with_padding(padded, value)
    } else {
        layout
    }
}

fn shape(rng: &mut Rng, ty: ElementType, dims: &[i64]) -> ArrayShape {
    ArrayShape::new(ty, dims.to_vec()).with_layout(random_layout(rng, dims))
}

fn random_bits(rng: &mut Rng, ty: ElementType, n: usize) -> Vec<u128> {
    (0..n)
        .map(|_| {
            if ty.is_pred() {
                rng.below(2) as u128
            } else {
                let b = (rng.next() as u128) << 64 | rng.next() as u128;
                let w = ty.bit_width();
                if w == 128 {
                    b
                } else {
                    b & ((1u128 << w) - 1)
                }
            }
        })
        .collect()
}

fn count(dims: &[i64]) -> usize {
    dims.iter().product::<i64>() as usize
}

/// Row-major linear index of a multi-index.
fn rm(dims: &[i64], idx: &[i64]) -> usize {
    idx.iter().zip(dims).fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
}

fn for_each(dims: &[i64], f: impl FnMut(&[i64])) {
    conformance_spec::index::for_each_index(dims, f)
}

fn ints(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

fn int(name: &str, v: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Int(v),
    }
}

fn instr(
    name: &str,
    opcode: Opcode,
    shape: Shape,
    operands: Vec<usize>,
    attributes: Vec<Attribute>,
) -> HloInstruction {
    HloInstruction {
        name: name.into(),
        opcode,
        shape,
        operands,
        parameter_number: None,
        literal: None,
        attributes,
    }
}

fn param(k: usize, s: Shape) -> HloInstruction {
    let mut p = instr(&format!("p{k}"), Opcode::Parameter, s, vec![], vec![]);
    p.parameter_number = Some(k as i64);
    p
}

/// `ROOT r = result op(p0, ...)`, with extra computations (called ones) before the entry.
fn module(
    op: Opcode,
    operands: &[ArrayShape],
    result: Shape,
    attributes: Vec<Attribute>,
    mut called: Vec<HloComputation>,
) -> HloModule {
    let mut v: Vec<HloInstruction> = operands
        .iter()
        .enumerate()
        .map(|(i, s)| param(i, Shape::Array(s.clone())))
        .collect();
    v.push(instr(
        "r",
        op,
        result,
        (0..operands.len()).collect(),
        attributes,
    ));
    let root = v.len() - 1;
    let entry = called.len();
    called.push(HloComputation {
        name: "main".into(),
        instructions: v,
        root,
    });
    HloModule {
        name: "t".into(),
        header_attributes: vec![],
        computations: called,
        entry,
    }
}

/// Runs the module sequentially and across threads; both must equal `expected` byte for byte.
fn check(m: &HloModule, args: &[Literal], expected: &Literal, what: &str) {
    for fast in [Fast::sequential(), Fast::with_parallel_threshold(1)] {
        let got = fast
            .execute(m, args)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(
            &got,
            expected,
            "{what} (threshold {})",
            fast.parallel_threshold()
        );
    }
}

fn lit(s: &ArrayShape, bits: &[u128]) -> ArrayLiteral {
    ArrayLiteral::from_bits(s.clone(), bits).expect("bits fit")
}

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
            if super::simd::transpose_tile_f32(&src, 0, s_i, &mut b, 0, d_a) {
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

/// Runs the root instruction of `m`'s entry on operand values, through [`super::evaluate`].
fn eval_direct<'a>(m: &'a HloModule, operands: Vec<Value<'a>>) -> Value<'a> {
    let comp = m.entry_computation();
    let instr = comp.root_instruction();
    let call =
        |_: &'a HloComputation,
         _: &[Value<'a>]|
         -> Result<Value<'a>, conformance_spec::BackendError> { unreachable!("no calls") };
    super::evaluate(super::Ctx {
        module: m,
        instr,
        operands,
        exec: crate::parallel::Exec::new(usize::MAX),
        call: &call,
    })
    .expect("evaluates")
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
        for d in 0..3 {
            let r = shape(&mut rng, ty, &[3, 40, 2]);
            let mut want = vec![0u128; 240];
            for_each(&[3, 40, 2], |o| {
                want[rm(&[3, 40, 2], o)] = super::iota::iota_bits(ty, o[d])
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
        super::iota::iota_bits(ElementType::F32, 3),
        3.0f32.to_bits() as u128
    );
    assert_eq!(super::iota::iota_bits(ElementType::S8, 200), 200);
    assert_eq!(super::iota::iota_bits(ElementType::Pred, 2), 1);
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
fn dynamic_slice_and_update_clamp_their_starts() {
    let mut rng = Rng(5);
    let dims = [6i64, 5];
    for ty in TYPES {
        for starts in [
            [1i64, 2],
            [-3, 4],
            [5, 100],
            [i32::MIN as i64, i32::MAX as i64],
        ] {
            let a = shape(&mut rng, ty, &dims);
            let bits = random_bits(&mut rng, ty, 30);
            let size = [3i64, 2];
            let cl: Vec<i64> = (0..2)
                .map(|d| starts[d].clamp(0, dims[d] - size[d]))
                .collect();
            let r = shape(&mut rng, ty, &size);
            let mut want = vec![0u128; 6];
            for_each(&size, |o| {
                want[rm(&size, o)] = bits[rm(&dims, &[o[0] + cl[0], o[1] + cl[1]])]
            });
            let s32 = ArrayShape::scalar(ElementType::S32);
            let idx = |v: i64| -> Literal { lit(&s32, &[(v as i32 as u32) as u128]).into() };
            let m = module(
                Opcode::DynamicSlice,
                &[a.clone(), s32.clone(), s32.clone()],
                Shape::Array(r.clone()),
                vec![ints("dynamic_slice_sizes", &size)],
                vec![],
            );
            let arg: Literal = lit(&a, &bits).into();
            check(
                &m,
                &[arg.clone(), idx(starts[0]), idx(starts[1])],
                &lit(&r, &want).into(),
                "dynamic-slice",
            );
            // update
            let u = shape(&mut rng, ty, &size);
            let u_bits = random_bits(&mut rng, ty, 6);
            let r = shape(&mut rng, ty, &dims);
            let mut want = bits.clone();
            for_each(&size, |i| {
                want[rm(&dims, &[i[0] + cl[0], i[1] + cl[1]])] = u_bits[rm(&size, i)]
            });
            let m = module(
                Opcode::DynamicUpdateSlice,
                &[a.clone(), u.clone(), s32.clone(), s32.clone()],
                Shape::Array(r.clone()),
                vec![],
                vec![],
            );
            check(
                &m,
                &[arg, lit(&u, &u_bits).into(), idx(starts[0]), idx(starts[1])],
                &lit(&r, &want).into(),
                "dynamic-update-slice",
            );
        }
    }
}

#[test]
fn dynamic_update_slice_updates_a_unique_buffer_in_place() {
    let a = ArrayShape::new(ElementType::S32, vec![4, 4]);
    let l = lit(&a, &(0..16).collect::<Vec<_>>());
    let ptr = l.data().as_ptr();
    let u = ArrayShape::new(ElementType::S32, vec![1, 2]);
    let s32 = ArrayShape::scalar(ElementType::S32);
    let m = module(
        Opcode::DynamicUpdateSlice,
        &[a.clone(), u.clone(), s32.clone(), s32.clone()],
        Shape::Array(a.clone()),
        vec![],
        vec![],
    );
    let args = vec![
        Value::owned(l),
        Value::owned(lit(&u, &[100, 101])),
        Value::owned(lit(&s32, &[1])),
        Value::owned(lit(&s32, &[3])),
    ];
    match eval_direct(&m, args) {
        Value::Array(r) => {
            assert_eq!(r.data().as_ptr(), ptr, "the update was not done in place");
            let out = r.into_array_literal();
            assert_eq!(out.to_i128s().unwrap()[6..8], [100, 101]);
        }
        _ => panic!("not an array"),
    }
}

/// Naive gather (seed 004, Gather), row-major bits.
#[allow(clippy::too_many_arguments)]
fn naive_gather(
    op_dims: &[i64],
    bits: &[u128],
    idx_dims: &[i64],
    idx: &[i64],
    offset_dims: &[i64],
    collapsed: &[i64],
    start_index_map: &[i64],
    ivd: usize,
    slice_sizes: &[i64],
    out_dims: &[i64],
) -> Vec<u128> {
    let mut out = vec![0u128; count(out_dims)];
    let batch: Vec<usize> = (0..out_dims.len())
        .filter(|d| !offset_dims.contains(&(*d as i64)))
        .collect();
    let window: Vec<usize> = (0..op_dims.len())
        .filter(|d| !collapsed.contains(&(*d as i64)))
        .collect();
    for_each(out_dims, |o| {
        let g: Vec<i64> = batch.iter().map(|&d| o[d]).collect();
        let mut start = vec![0i64; op_dims.len()];
        for (k, &d) in start_index_map.iter().enumerate() {
            let mut ii = g.clone();
            if ivd <= ii.len() && ivd < idx_dims.len() {
                ii.insert(ivd, k as i64);
            }
            let v = idx[rm(idx_dims, &ii)];
            start[d as usize] = v.clamp(0, op_dims[d as usize] - slice_sizes[d as usize]);
        }
        let mut i = start;
        for (k, &od) in offset_dims.iter().enumerate() {
            i[window[k]] += o[od as usize];
        }
        out[rm(out_dims, o)] = bits[rm(op_dims, &i)];
    });
    out
}

#[test]
fn gather_matches_naive() {
    let mut rng = Rng(6);
    for ty in TYPES {
        // Rows of a matrix (the benchmark's form) and a 2-D window with clamping.
        let op_dims = [9i64, 6];
        let a = shape(&mut rng, ty, &op_dims);
        let bits = random_bits(&mut rng, ty, 54);
        let s32 = |d: &[i64], rng: &mut Rng| {
            ArrayShape::new(ElementType::S32, d.to_vec()).with_layout(random_layout(rng, d))
        };
        // (idx_dims, ivd, offset_dims, collapsed, start_index_map, slice_sizes, out_dims)
        type Case = (
            Vec<i64>,
            usize,
            Vec<i64>,
            Vec<i64>,
            Vec<i64>,
            Vec<i64>,
            Vec<i64>,
        );
        let cases: Vec<Case> = vec![
            (
                vec![5, 1],
                1,
                vec![1],
                vec![0],
                vec![0],
                vec![1, 6],
                vec![5, 6],
            ),
            (
                vec![4, 2],
                1,
                vec![1, 2],
                vec![],
                vec![0, 1],
                vec![3, 4],
                vec![4, 3, 4],
            ),
            (
                vec![2, 3],
                0,
                vec![0],
                vec![1],
                vec![1, 0],
                vec![5, 1],
                vec![5, 3],
            ),
            (
                vec![3, 2],
                2,
                vec![0, 3],
                vec![],
                vec![1],
                vec![2, 3],
                vec![2, 3, 2, 3],
            ),
        ];
        for (idx_dims, ivd, offset_dims, collapsed, sim, ss, out_dims) in cases {
            let ishape = s32(&idx_dims, &mut rng);
            let idx: Vec<i64> = (0..count(&idx_dims)).map(|_| rng.range(-3, 11)).collect();
            let want = naive_gather(
                &op_dims,
                &bits,
                &idx_dims,
                &idx,
                &offset_dims,
                &collapsed,
                &sim,
                ivd,
                &ss,
                &out_dims,
            );
            let r = shape(&mut rng, ty, &out_dims);
            let m = module(
                Opcode::Gather,
                &[a.clone(), ishape.clone()],
                Shape::Array(r.clone()),
                vec![
                    ints("offset_dims", &offset_dims),
                    ints("collapsed_slice_dims", &collapsed),
                    ints("start_index_map", &sim),
                    int("index_vector_dim", ivd as i64),
                    ints("slice_sizes", &ss),
                ],
                vec![],
            );
            let ibits: Vec<u128> = idx.iter().map(|&v| (v as i32 as u32) as u128).collect();
            check(
                &m,
                &[lit(&a, &bits).into(), lit(&ishape, &ibits).into()],
                &lit(&r, &want).into(),
                "gather",
            );
        }
    }
}

/// The update computation `(x, y) -> op(x, y)` on scalars of `ty`, or `replace` when `op` is None.
fn combiner(ty: ElementType, op: Option<Opcode>) -> HloComputation {
    let s = Shape::Array(ArrayShape::scalar(ty));
    let mut v = vec![param(0, s.clone()), param(1, s.clone())];
    if let Some(op) = op {
        v.push(instr("c", op, s, vec![0, 1], vec![]));
    }
    HloComputation {
        name: "comb".into(),
        root: v.len() - 1,
        instructions: v,
    }
}

#[test]
fn scatter_matches_naive_with_repeated_indices_and_out_of_bounds_elements() {
    let mut rng = Rng(7);
    let op_dims = [6i64, 4];
    // Windows of 1 x 3 rows at (index, col 2): partly out of bounds in dimension 1 (cols 2..5).
    for (ty, op) in [
        (ElementType::S32, Some(Opcode::Add)),
        (ElementType::S8, Some(Opcode::Maximum)),
        (ElementType::F32, None),
        (ElementType::C128, None),
        (ElementType::F16, Some(Opcode::Add)), // general path (not a direct combiner)
        (ElementType::Pred, Some(Opcode::Or)),
    ] {
        let a = shape(&mut rng, ty, &op_dims);
        let bits = random_bits(&mut rng, ty, 24);
        let idx_dims = [5i64, 2];
        let idx: Vec<i64> = (0..5)
            .flat_map(|k| [[1i64, 2], [3, 0], [1, 2], [-1, 0], [5, 1]][k])
            .collect();
        let ishape = ArrayShape::new(ElementType::S32, idx_dims.to_vec());
        let up_dims = [5i64, 3];
        let u = shape(&mut rng, ty, &up_dims);
        let u_bits = if ty == ElementType::F16 {
            // Small integers: sums are exact whatever the order.
            (0..15)
                .map(|i| ElementType::F16.float_format().unwrap().encode(i as f64) as u128)
                .collect()
        } else {
            random_bits(&mut rng, ty, 15)
        };
        let bits = if ty == ElementType::F16 {
            (0..24)
                .map(|i| ElementType::F16.float_format().unwrap().encode(i as f64) as u128)
                .collect()
        } else {
            bits
        };
        let mut want = bits.clone();
        for_each(&up_dims, |uix| {
            let b = uix[0] as usize;
            let t = [idx[2 * b], idx[2 * b + 1] + uix[1]];
            if t[0] < 0 || t[0] >= op_dims[0] || t[1] < 0 || t[1] >= op_dims[1] {
                return;
            }
            let p = rm(&op_dims, &t);
            let (x, y) = (want[p], u_bits[rm(&up_dims, uix)]);
            want[p] = match op {
                None => y,
                Some(Opcode::Add) if ty == ElementType::S32 => {
                    (x as u32).wrapping_add(y as u32) as u128
                }
                Some(Opcode::Add) => {
                    let f = ElementType::F16.float_format().unwrap();
                    f.encode(f.decode(x as u64) + f.decode(y as u64)) as u128
                }
                Some(Opcode::Maximum) => (x as u8 as i8).max(y as u8 as i8) as u8 as u128,
                Some(Opcode::Or) => x | y,
                _ => unreachable!(),
            };
        });
        let r = shape(&mut rng, ty, &op_dims);
        let m = module(
            Opcode::Scatter,
            &[a.clone(), ishape.clone(), u.clone()],
            Shape::Array(r.clone()),
            vec![
                ints("update_window_dims", &[1]),
                ints("inserted_window_dims", &[0]),
                ints("scatter_dims_to_operand_dims", &[0, 1]),
                int("index_vector_dim", 1),
                Attribute {
                    name: "to_apply".into(),
                    value: AttrValue::Computation("comb".into()),
                },
            ],
            vec![combiner(ty, op)],
        );
        let ibits: Vec<u128> = idx.iter().map(|&v| (v as i32 as u32) as u128).collect();
        check(
            &m,
            &[
                lit(&a, &bits).into(),
                lit(&ishape, &ibits).into(),
                lit(&u, &u_bits).into(),
            ],
            &lit(&r, &want).into(),
            &format!("scatter {ty} {op:?}"),
        );
    }
}

#[test]
fn variadic_scatter_updates_every_operand() {
    // Two operands, replace both: (x0, x1, y0, y1) -> (y0, y1).
    let s32 = ArrayShape::new(ElementType::S32, vec![4]);
    let f16 = ArrayShape::new(ElementType::F16, vec![4]);
    let is = ArrayShape::new(ElementType::S32, vec![2, 1]);
    let us32 = ArrayShape::new(ElementType::S32, vec![2]);
    let uf16 = ArrayShape::new(ElementType::F16, vec![2]);
    let sc = |t| Shape::Array(ArrayShape::scalar(t));
    let comp = HloComputation {
        name: "comb".into(),
        instructions: vec![
            param(0, sc(ElementType::S32)),
            param(1, sc(ElementType::F16)),
            param(2, sc(ElementType::S32)),
            param(3, sc(ElementType::F16)),
            instr("a", Opcode::Add, sc(ElementType::S32), vec![0, 2], vec![]),
            instr(
                "t",
                Opcode::Tuple,
                Shape::Tuple(vec![sc(ElementType::S32), sc(ElementType::F16)]),
                vec![4, 3],
                vec![],
            ),
        ],
        root: 5,
    };
    let m = module(
        Opcode::Scatter,
        &[
            s32.clone(),
            f16.clone(),
            is.clone(),
            us32.clone(),
            uf16.clone(),
        ],
        Shape::Tuple(vec![Shape::Array(s32.clone()), Shape::Array(f16.clone())]),
        vec![
            ints("update_window_dims", &[]),
            ints("inserted_window_dims", &[0]),
            ints("scatter_dims_to_operand_dims", &[0]),
            int("index_vector_dim", 1),
            Attribute {
                name: "to_apply".into(),
                value: AttrValue::Computation("comb".into()),
            },
        ],
        vec![comp],
    );
    let args: Vec<Literal> = vec![
        lit(&s32, &[1, 2, 3, 4]).into(),
        lit(&f16, &[0x3c00, 0x4000, 0x4200, 0x4400]).into(),
        lit(&is, &[2, 2]).into(),
        lit(&us32, &[10, 20]).into(),
        lit(&uf16, &[0x4800, 0x4900]).into(),
    ];
    let want = Literal::Tuple(vec![
        lit(&s32, &[1, 2, 33, 4]).into(),
        lit(&f16, &[0x3c00, 0x4000, 0x4900, 0x4400]).into(),
    ]);
    check(&m, &args, &want, "variadic scatter");
}

#[test]
fn dimension_sizes_pass_through() {
    let a = ArrayShape::new(ElementType::F32, vec![10, 3]);
    let mut dynamic = a.clone();
    dynamic.dynamic_dimensions = vec![true, false];
    let s32 = ArrayShape::scalar(ElementType::S32);
    let v = vec![
        param(0, Shape::Array(a.clone())),
        param(1, Shape::Array(s32.clone())),
        instr(
            "s",
            Opcode::SetDimensionSize,
            Shape::Array(dynamic),
            vec![0, 1],
            vec![ints("dimensions", &[0])],
        ),
        instr(
            "g",
            Opcode::GetDimensionSize,
            Shape::Array(s32.clone()),
            vec![2],
            vec![ints("dimensions", &[0])],
        ),
        instr(
            "h",
            Opcode::GetDimensionSize,
            Shape::Array(s32.clone()),
            vec![2],
            vec![ints("dimensions", &[1])],
        ),
        instr(
            "t",
            Opcode::Tuple,
            Shape::Tuple(vec![Shape::Array(s32.clone()); 2]),
            vec![3, 4],
            vec![],
        ),
    ];
    let m = HloModule {
        name: "t".into(),
        header_attributes: vec![],
        computations: vec![HloComputation {
            name: "main".into(),
            instructions: v,
            root: 5,
        }],
        entry: 0,
    };
    let args = [lit(&a, &[0; 30]).into(), lit(&s32, &[5]).into()];
    let want = Literal::Tuple(vec![lit(&s32, &[5]).into(), lit(&s32, &[3]).into()]);
    check(&m, &args, &want, "get/set-dimension-size");
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
    plan::execute(&p, &result, &mut dst, false);
    assert_eq!(dst, vec![0, 0, 0, 0, 0, 2, 3, 0, 0, 2, 3, 0]);
    let _ = ArrayData::shape(&lit(&result, &[0; 12]));
}
