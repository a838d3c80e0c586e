//! The real JAX programs of `corpus/programs/` (loops, branches, sorts, top-k, argmax, cumsum,
//! threefry; dumped by scripts/dump_programs.py) replay with their own inputs on the exact
//! reference and the fast backend, and agree (exit 0); and a construct the harness cannot check
//! is named with its file:line:col and exits 2 wherever it sits.

use std::path::PathBuf;
use std::process::Command;

fn conformance(args: &[&str]) -> (i32, String, String) {
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

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/programs");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    out.sort();
    out
}

#[test]
fn every_program_replays_on_reference_and_fast() {
    let programs = programs();
    assert!(programs.len() >= 15, "{} programs", programs.len());
    let mut failures = Vec::new();
    for p in &programs {
        let (code, out, err) = conformance(&[
            "replay",
            p.to_str().unwrap(),
            "--backends",
            "reference,fast",
        ]);
        if code != 0 || out.contains(": Fail") {
            failures.push(format!("{} (exit {code}):\n{out}{err}", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn programs_are_checked_with_their_own_inputs() {
    // The loop of `while_collatz` ends only for its own (positive) inputs; generated ones would
    // include zeros and never reach 1.
    let p = programs()
        .into_iter()
        .find(|p| p.ends_with("while_collatz"))
        .expect("while_collatz is in the corpus");
    let (code, out, err) = conformance(&[
        "replay",
        p.to_str().unwrap(),
        "--backends",
        "reference,fast",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // A module file alone gets generated inputs: the loop does not end within the limit, which
    // is a verdict on the input (exit 2), not an internal error.
    let (code, out, err) = conformance(&[
        "--max-iterations",
        "1000",
        "replay",
        p.join("module.hlo").to_str().unwrap(),
        "--backends",
        "reference,fast",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("does not terminate"), "{err}");
}

#[test]
fn an_unsupported_construct_inside_a_loop_body_is_named_with_its_position() {
    let text = "HloModule m

body {
  s = (s32[], c64[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = c64[4]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  n = s32[] add(i, one)
  w = c64[4]{0} fft(v), fft_type=FFT, fft_length={4}
  ROOT t = (s32[], c64[4]{0}) tuple(n, w)
}

cond {
  s = (s32[], c64[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  c = s32[] constant(3)
  ROOT lt = pred[] compare(i, c), direction=LT
}

ENTRY main {
  z = s32[] constant(0)
  x = c64[4]{0} parameter(0)
  init = (s32[], c64[4]{0}) tuple(z, x)
  w = (s32[], c64[4]{0}) while(init), condition=cond, body=body
  ROOT r = c64[4]{0} get-tuple-element(w), index=1
}
";
    let dir = std::env::temp_dir().join(format!("conformance-programs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fft_in_loop.hlo");
    std::fs::write(&file, text).unwrap();
    let (code, out, err) = conformance(&["replay", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    let at = format!("{}:9:17: unsupported: `fft`", file.display());
    assert!(err.contains(&at), "{err}");
    assert!(err.contains("computation `body`"), "{err}");
    assert!(!err.contains("get-tuple-element"), "{err}");
}
