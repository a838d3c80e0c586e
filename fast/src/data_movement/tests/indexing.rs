//! Indexed data movement: dynamic-slice, dynamic-update-slice (clamping, in place), gather,
//! scatter (repeated indices, per-element bounds, variadic), get/set-dimension-size.

use super::*;

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
pub(super) fn naive_gather(
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
            // A scalar result (rank 0): one window of one element.
            (
                vec![2],
                0,
                vec![],
                vec![0, 1],
                vec![0, 1],
                vec![1, 1],
                vec![],
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
