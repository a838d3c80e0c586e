//! What the integration tests of the `conformance` binary share.

use std::process::Command;

/// Runs the `conformance` binary with `args` (CI mode: no progress bars) and returns its exit
/// status (-1 when killed by a signal), standard output and standard error.
pub fn conformance(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(args)
        .env("CI", "true")
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
