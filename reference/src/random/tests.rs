//! The algorithms against the known-answer vectors of Random123 (the SC 2011 paper's reference
//! distribution, `kat_vectors`), and the layout against outputs of XLA's CPU backend (jaxlib
//! 0.10.2, `stablehlo.rng_bit_generator`, recorded once; docs/random.md says how).

use super::philox::philox4x32;
use super::threefry::threefry2x32;
use super::*;
use conformance_spec::ElementType;

#[test]
fn threefry_matches_the_known_answer_vectors() {
    assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
    assert_eq!(
        threefry2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
        [0x1cb9_96fc, 0xbb00_2be7]
    );
    assert_eq!(
        threefry2x32([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]),
        [0xc492_3a9c, 0x483d_f7a0]
    );
}

#[test]
fn philox_matches_the_known_answer_vectors() {
    assert_eq!(
        philox4x32([0, 0], [0, 0, 0, 0]),
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
    );
    assert_eq!(
        philox4x32([u32::MAX; 2], [u32::MAX; 4]),
        [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]
    );
    assert_eq!(
        philox4x32(
            [0xa409_3822, 0x299f_31d0],
            [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344]
        ),
        [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
    );
}

fn shape(t: ElementType, dims: &[i64]) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec())
}

fn bits(v: &[u64]) -> Vec<u128> {
    v.iter().map(|&x| u128::from(x)).collect()
}

#[test]
fn threefry_layout_matches_xla() {
    // Odd dimensions only: the split dimension is the largest (5), halves of 3; the counter
    // wraps past 2^64.
    let (state, data) = generate(
        RngAlgorithm::ThreeFry,
        &[0x0123_4567_89ab_cdef, u64::MAX - 1],
        &shape(ElementType::U32, &[3, 5]),
    );
    assert_eq!(state, vec![0x0123_4567_89ab_cdef, 7]);
    assert_eq!(
        data,
        bits(&[
            2968789339, 3784990900, 188576916, 2901984476, 2862930057, 1973758215, 3554510355,
            902882801, 2396094436, 2083461592, 3732519869, 387185944, 2963079838, 2105865281,
            1822680882
        ])
    );
    // Narrow outputs truncate the 32-bit ones.
    let (state, data) = generate(
        RngAlgorithm::ThreeFry,
        &[42, 7],
        &shape(ElementType::U8, &[2, 3]),
    );
    assert_eq!(state, vec![42, 10]);
    assert_eq!(data, bits(&[101, 179, 166, 17, 6, 119]));
    // A scalar uses one counter, word 0.
    let (state, data) = generate(
        RngAlgorithm::ThreeFry,
        &[1, 2],
        &shape(ElementType::U32, &[]),
    );
    assert_eq!((state, data), (vec![1, 3], bits(&[43444564])));
    // No elements, no counters.
    let (state, data) = generate(
        RngAlgorithm::ThreeFry,
        &[1, 2],
        &shape(ElementType::U32, &[0, 3]),
    );
    assert_eq!((state, data), (vec![1, 2], vec![]));
}

#[test]
fn philox_layout_matches_xla() {
    // A u64[2] state: the 128-bit counter is state[1] + 2^64·state[0]; only its low word is
    // kept in the new state.
    let (state, data) = generate(
        RngAlgorithm::Philox,
        &[5, u64::MAX],
        &shape(ElementType::U64, &[3]),
    );
    assert_eq!(state, vec![5, 1]);
    assert_eq!(
        data,
        bits(&[
            17333022358970737082,
            17879676503325561529,
            15612657552152258155
        ])
    );
    // A u64[3] state: the counter carries into state[2] and wraps at 2^128.
    let (state, data) = generate(
        RngAlgorithm::Philox,
        &[9, u64::MAX - 1, u64::MAX],
        &shape(ElementType::U16, &[5]),
    );
    assert_eq!(state, vec![9, 0, 0]);
    assert_eq!(data, bits(&[38784, 51274, 49025, 49475, 50113]));
}
