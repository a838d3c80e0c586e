//! Results are bit-identical whatever the number of threads and the parallel threshold.

mod common;

use common::{attr_enum, single_op};
use conformance_fast::Fast;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Literal, Opcode};

/// 300,007 elements: not a multiple of the chunk or vector sizes.
const N: usize = 300_007;

fn random(ty: ElementType, seed: u64) -> Literal {
    let mut s = seed | 1;
    let bits: Vec<u128> = (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let b = s as u128 & ((1u128 << ty.bit_width()) - 1);
            if ty == ElementType::F32 {
                // Mostly moderate values (the interesting range of exp/tanh), some raw patterns.
                if s.is_multiple_of(8) {
                    b
                } else {
                    (((s >> 8) % 20_000) as f32 / 100.0 - 100.0).to_bits() as u128
                }
            } else {
                b
            }
        })
        .collect();
    ArrayLiteral::from_bits(ArrayShape::new(ty, vec![N as i64]), &bits)
        .unwrap()
        .into()
}

#[test]
fn thread_count_does_not_change_any_bit() {
    use ElementType::*;
    let cases: Vec<(Opcode, ElementType, usize, ElementType, Vec<_>)> = vec![
        (Opcode::Exponential, F32, 1, F32, vec![]),
        (Opcode::Tanh, F32, 1, F32, vec![]),
        (Opcode::Logistic, F32, 1, F32, vec![]),
        (Opcode::Sine, F32, 1, F32, vec![]),
        (Opcode::Add, F32, 2, F32, vec![]),
        (Opcode::Multiply, Bf16, 2, Bf16, vec![]),
        (Opcode::Log, F16, 1, F16, vec![]),
        (Opcode::Divide, S32, 2, S32, vec![]),
        (Opcode::Convert, F32, 1, F8E4M3FN, vec![]),
        (
            Opcode::Compare,
            F64,
            2,
            Pred,
            vec![attr_enum("direction", "GT")],
        ),
    ];
    let pools: Vec<rayon::ThreadPool> = [1, 2, 3]
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    for (op, ty, arity, out, attrs) in cases {
        let shape = ArrayShape::new(ty, vec![N as i64]);
        let m = single_op(
            op,
            &vec![shape.clone(); arity],
            ArrayShape::new(out, vec![N as i64]),
            attrs,
        );
        let args: Vec<Literal> = (0..arity).map(|k| random(ty, 11 + k as u64)).collect();
        let reference = Fast::sequential().execute(&m, &args).unwrap();
        for fast in [
            Fast::new(),
            Fast::with_parallel_threshold(1),
            Fast::with_parallel_threshold(1000),
            Fast::new().with_split_tasks(),
            Fast::new().with_isa(conformance_fast::kernels::Isa::Scalar),
            Fast::new().with_isa(conformance_fast::kernels::Isa::Avx2Fma),
        ] {
            for pool in &pools {
                let got = pool.install(|| fast.execute(&m, &args)).unwrap();
                assert_eq!(
                    got,
                    reference,
                    "{op} {ty}: {} differs with {} threads",
                    fast.name(),
                    pool.current_num_threads()
                );
            }
        }
    }
}
