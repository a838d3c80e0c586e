//! Graph differential fuzzing: the bytes choose an optional swarm configuration and a DAG of
//! 2–20 element-wise instructions with random layouts between them
//! (`conformance::fuzzing::diff_graph_case`); the graph runs on the exact reference and the fast
//! backend, a disagreement is localized to the instruction at fault (`graph::check_graph`) and is
//! a crash whose message names it, with the HLO module, inputs and differing elements.
//!
//! Run (from the repository root):
//!   cargo +nightly fuzz run diff_graph fuzz/corpus/diff_graph corpus/fuzz/diff_graph
//! Minimize a crash (from its instruction at fault) into a regression file instead of failing:
//!   CONFORMANCE_MINIMIZE_DIR=corpus/regressions cargo +nightly fuzz run diff_graph ARTIFACT
#![no_main]
use conformance::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(dir) = fuzzing::minimize_dir() {
        match fuzzing::diff_graph_minimize(data, &dir) {
            Ok(path) => eprintln!("diff_graph: minimized to {}", path.display()),
            Err(e) => eprintln!("diff_graph: not minimized: {e}"),
        }
    } else if let Err(discrepancy) = fuzzing::diff_graph(data) {
        panic!("{discrepancy}");
    }
});
