//! `rng-bit-generator` of the fast backend against the reference's (both under XLA's counter
//! layout, `conformance_spec::random`): every algorithm and state size, every output type width,
//! shapes with even, odd, unit and zero dimensions, scalars, any layout of the state and the data,
//! counters that wrap, and arrays large enough for the parallel path. Bits must agree exactly.

use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, BackendError, ElementType, Layout, Literal};

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A permutation of `0..rank` for `minor_to_major`, from `seed`.
fn layout(rank: usize, seed: &mut u64) -> Layout {
    let mut m: Vec<i64> = (0..rank as i64).collect();
    for i in (1..rank).rev() {
        let j = (splitmix(seed) % (i as u64 + 1)) as usize;
        m.swap(i, j);
    }
    Layout::new(m)
}

fn run(
    backend: &dyn Backend,
    algorithm: &str,
    state: &[u64],
    data: &ArrayShape,
) -> Result<Literal, BackendError> {
    let s = ArrayShape::new(ElementType::U64, vec![state.len() as i64]);
    let text = format!(
        "HloModule rbg\n\nENTRY main {{\n  s = {s} parameter(0)\n  ROOT r = ({s}, {data}) rng-bit-generator(s), algorithm={algorithm}\n}}\n"
    );
    // The parser verifies shapes: a module it refuses is invalid input as much as one a backend
    // refuses.
    let module = parse_module(&text).map_err(|e| BackendError::Invalid(e.to_string()))?;
    let bits: Vec<u128> = state.iter().map(|&w| u128::from(w)).collect();
    let arg = ArrayLiteral::from_bits(s, &bits).expect("state literal");
    backend.execute(&module, &[Literal::Array(arg)])
}

fn same(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Tuple(x), Literal::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Literal::Array(x), Literal::Array(y)) => {
            x.shape() == y.shape() && x.logical_bits() == y.logical_bits()
        }
        _ => false,
    }
}

const TYPES: [ElementType; 8] = [
    ElementType::U8,
    ElementType::S16,
    ElementType::F16,
    ElementType::U32,
    ElementType::F32,
    ElementType::S64,
    ElementType::F64,
    ElementType::Bf16,
];

#[test]
fn fast_matches_the_reference_bit_for_bit() {
    let shapes: &[&[i64]] = &[
        &[],
        &[1],
        &[2],
        &[5],
        &[3, 2],
        &[3, 5],
        &[7, 1, 3],
        &[2, 3, 4],
        &[0, 3],
        &[1, 1],
        &[5, 3, 2],
        &[9, 7],
    ];
    let mut seed = 7u64;
    let mut checked = 0;
    for (algorithm, sizes) in [
        ("rng_three_fry", &[2usize][..]),
        ("rng_philox", &[2, 3][..]),
        ("rng_default", &[2, 3][..]),
    ] {
        for &words in sizes {
            for ty in TYPES {
                for dims in shapes {
                    let mut state: Vec<u64> = (0..words).map(|_| splitmix(&mut seed)).collect();
                    // Counters about to wrap (past 2^64, and past 2^128 for a 3-word state).
                    if splitmix(&mut seed).is_multiple_of(3) {
                        state[1] = u64::MAX - 1;
                        if words == 3 {
                            state[2] = u64::MAX;
                        }
                    }
                    let data = ArrayShape::new(ty, dims.to_vec())
                        .with_layout(layout(dims.len(), &mut seed));
                    let want = run(&Reference, algorithm, &state, &data).expect("reference runs");
                    let got = run(&Fast::new(), algorithm, &state, &data).expect("fast runs");
                    assert!(
                        same(&want, &got),
                        "{algorithm} state {state:x?} data {data}:\nreference {want}\nfast {got}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 5 * TYPES.len() * shapes.len());
}

#[test]
fn large_outputs_take_the_parallel_path_and_still_agree() {
    for (algorithm, ty, dims) in [
        ("rng_three_fry", ElementType::U32, vec![513, 257]),
        ("rng_three_fry", ElementType::U64, vec![100_003]),
        ("rng_philox", ElementType::U8, vec![3, 70_001]),
        ("rng_philox", ElementType::F64, vec![65_537]),
    ] {
        let state = [0x0123_4567_89ab_cdef, u64::MAX - 5, 3];
        let words = if algorithm == "rng_three_fry" { 2 } else { 3 };
        let data = ArrayShape::new(ty, dims.clone());
        let want = run(&Reference, algorithm, &state[..words], &data).expect("reference");
        let got = run(&Fast::new(), algorithm, &state[..words], &data).expect("fast");
        assert!(same(&want, &got), "{algorithm} {ty} {dims:?}");
    }
}

#[test]
fn bad_states_are_refused_not_guessed() {
    let data = ArrayShape::new(ElementType::U32, vec![4]);
    for (algorithm, state) in [
        ("rng_three_fry", &[1u64, 2, 3][..]),
        ("rng_philox", &[1u64][..]),
        ("rng_philox", &[1u64, 2, 3, 4][..]),
    ] {
        for b in [&Reference as &dyn Backend, &Fast::new()] {
            match run(b, algorithm, state, &data) {
                Err(BackendError::Invalid(m)) => assert!(m.contains(algorithm), "{m}"),
                other => panic!("{} {algorithm} {state:?}: {other:?}", b.name()),
            }
        }
    }
}
