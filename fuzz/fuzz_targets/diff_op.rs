//! Single-operation differential fuzzing: the bytes choose a catalog combo (operation × element
//! type), optionally a swarm configuration, shapes, layouts and values
//! (`conformance::fuzzing::diff_op_case`); the case runs on the exact reference and the fast
//! backend, and any `fail` or `error` verdict is a crash whose message holds the HLO module, the
//! inputs, the differing elements and the commands that reproduce and minimize it.
//!
//! Run (from the repository root):
//!   cargo +nightly fuzz run diff_op fuzz/corpus/diff_op corpus/fuzz/diff_op
//! Minimize a crash into a regression file instead of failing:
//!   CONFORMANCE_MINIMIZE_DIR=corpus/regressions cargo +nightly fuzz run diff_op ARTIFACT
#![no_main]
use conformance::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(dir) = fuzzing::minimize_dir() {
        match fuzzing::diff_op_minimize(data, &dir) {
            Ok(path) => eprintln!("diff_op: minimized to {}", path.display()),
            Err(e) => eprintln!("diff_op: not minimized: {e}"),
        }
    } else if let Err(discrepancy) = fuzzing::diff_op(data) {
        panic!("{discrepancy}");
    }
});
