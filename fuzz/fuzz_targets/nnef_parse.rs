//! The NNEF lexer, parser and semantic checks never panic (nor overflow the stack) on any text: documents,
//! standard-library fragment text and `graph.quant` entries.
//! Run (from the repository root), seeding with the real graphs:
//!   cargo +nightly fuzz run nnef_parse fuzz/corpus/nnef_parse ../shared/external/nnef/tvm-cases
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(document) = conformance_nnef::parse_document(&text) {
        // What parses is checked and evaluated: every rule broken is an error, never a panic.
        let _ = conformance_nnef::eval::evaluate(&document);
    }
    let _ = conformance_nnef::parse_fragments(&text);
    let _ = conformance_nnef::parse_quantization(&text);
});
