//! The catalog loader never panics on any YAML text.
//! Run (from the repository root):
//!   cargo +nightly fuzz run catalog_yaml fuzz/corpus/catalog_yaml corpus/fuzz/catalog_yaml
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = conformance_spec::catalog::Catalog::from_sources(&[(
        "fuzz.yaml".to_string(),
        text.to_string(),
    )]);
});
