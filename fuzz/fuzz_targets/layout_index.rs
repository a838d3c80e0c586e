//! IndexUtil against a naive model: the bytes choose a shape (rank 0–5, sizes 0–4), a
//! `minor_to_major` permutation and optional padding (`padded_dimensions` ≥ sizes, a padding
//! value); multi-index <-> linear index maps, strides, physical positions and literal storage must
//! agree with an odometer walking the padded buffer in physical order, be inverse, and stay in
//! range (`conformance::fuzzing::layout_index`; seed 000, "Indexing into arrays").
//!
//! Run (from the repository root):
//!   cargo +nightly fuzz run layout_index fuzz/corpus/layout_index corpus/fuzz/layout_index
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = conformance::fuzzing::layout_index(data) {
        panic!("layout_index: {e}");
    }
});
