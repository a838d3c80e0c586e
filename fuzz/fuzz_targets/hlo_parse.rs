//! HLO text parsing never panics, and whatever parses prints to text that parses back equal.
//! Run (from the repository root):
//!   cargo +nightly fuzz run hlo_parse fuzz/corpus/hlo_parse corpus/fuzz/hlo_parse
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(module) = conformance_spec::hlo::parse_module(text) {
        let printed = module.to_string();
        let again = conformance_spec::hlo::parse_module(&printed).expect("printed HLO re-parses");
        assert_eq!(again, module, "parse(print(m)) != m for:\n{printed}");
    }
    let _ = conformance_spec::hlo::parse_literal(text);
    let _ = conformance_spec::hlo::parse_shape(text);
});
