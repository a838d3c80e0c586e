//! The `conformance` binary: exit statuses, filters, determinism, and clear errors on bad input.

mod common;
use common::conformance;

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("conformance-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_passing_sweep_exits_zero_and_prints_the_summary() {
    let (code, out, err) = conformance(&[
        "run",
        "--ops",
        "add,compare-LT",
        "--dtypes",
        "f32,s8,bf16",
        "--cases",
        "60",
    ]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("fast vs reference"), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("add "))
        .expect("an add row");
    assert!(row.contains("10"), "{row}"); // 60 cases over 6 combos: 10 each
    assert!(out.contains("60 cases"), "{out}");
    assert!(out.contains("0 fail"), "{out}");
}

#[test]
fn bad_arguments_exit_two_with_a_message() {
    let (code, _, err) = conformance(&["run", "--ops", "no-such-op"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no-such-op") && err.contains("matches no catalog entry"),
        "{err}"
    );
    let (code, _, err) = conformance(&["run", "--dtypes", "f7"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown element type or class `f7`"), "{err}");
    let (code, _, err) = conformance(&["run", "--backends", "reference,nope", "--cases", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown backend `nope`"), "{err}");
    let (code, _, _) = conformance(&["run", "--cases", "notanumber"]);
    assert_eq!(code, 2);
    let (code, _, _) = conformance(&["frobnicate"]);
    assert_eq!(code, 2);
}

#[test]
fn sweeps_are_deterministic_and_results_are_jsonl() {
    let a = temp("a.jsonl");
    let b = temp("b.jsonl");
    for p in [&a, &b] {
        let _ = std::fs::remove_file(p);
        let (code, out, err) = conformance(&[
            "run",
            "--ops",
            "exponential,sine",
            "--dtypes",
            "float",
            "--seed",
            "7",
            "--cases",
            "40",
            "--results",
            p.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}{err}");
    }
    // Case lines (workers finish in any order: sorted by index), timings zeroed.
    let strip = |p: &std::path::Path| -> Vec<serde_json::Value> {
        let mut cases: Vec<serde_json::Value> = std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("each line is JSON"))
            .filter(|v| v["type"] == "case")
            .map(|mut v| {
                v["reference_micros"] = 0.into();
                for o in v["outcomes"].as_array_mut().unwrap() {
                    o["micros"] = 0.into();
                }
                v
            })
            .collect();
        cases.sort_by_key(|v| v["index"].as_u64());
        cases
    };
    let (ra, rb) = (strip(&a), strip(&b));
    assert_eq!(ra.len(), 40);
    assert_eq!(ra, rb);
    assert_eq!(ra[3]["index"], 3);
    assert_eq!(ra[3]["seed"], 7);
}

#[test]
fn only_case_replays_one_case() {
    let p = temp("one.jsonl");
    let _ = std::fs::remove_file(&p);
    let (code, _, err) = conformance(&[
        "run",
        "--ops",
        "tanh",
        "--seed",
        "3",
        "--only-case",
        "17",
        "--results",
        p.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&p).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| {
            if l.contains("\"type\":\"case\"") {
                "case"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(kinds, vec!["other", "case", "other"], "{text}");
    assert!(text.contains("\"index\":17"), "{text}");
    assert!(text.contains("\"type\":\"run-start\"") && text.contains("\"type\":\"run-end\""));
}

#[test]
fn check_names_file_line_and_column() {
    let bad = temp("bad.hlo");
    std::fs::write(&bad, "HloModule m\n\nENTRY main {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] frobnicate(p)\n}\n").unwrap();
    let (code, _, err) = conformance(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.hlo:5:"), "{err}");
    assert!(err.contains("frobnicate"), "{err}");
    let good = temp("good.hlo");
    std::fs::write(&good, "HloModule m\n\nENTRY main {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] exponential(p)\n}\n").unwrap();
    let (code, out, err) = conformance(&["check", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"));
    let yaml = temp("broken.yaml");
    std::fs::write(
        &yaml,
        "family: broken\nsource: x\nops:\n  - id: [unclosed\n",
    )
    .unwrap();
    let (code, _, err) = conformance(&["check", yaml.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("broken.yaml:"), "{err}");
}

#[test]
fn spec_lists_and_shows_entries() {
    let (code, out, _) = conformance(&["spec"]);
    assert_eq!(code, 0);
    assert!(out.lines().count() >= 60, "{out}");
    let (code, out, _) = conformance(&["spec", "clamp"]);
    assert_eq!(code, 0);
    assert!(out.contains("seed 004"), "{out}");
    let (code, _, err) = conformance(&["spec", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no catalog entry"), "{err}");
}

#[test]
fn replay_runs_corpus_files_and_jax_dumps() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // A JAX dump with several instructions: checked as a graph with generated inputs.
    let dump = root.join("spec/tests/data/jax/unary_chain.hlo");
    let (code, out, err) = conformance(&["replay", dump.to_str().unwrap(), "--seed", "4"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fast: Pass"), "{out}");
    // A corpus regression.
    let corpus = conformance::corpus::files(&root.join("corpus/regressions"));
    let (code, out, err) = conformance(&["replay", corpus[0].to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    // A single map is judged as `run` judges it: stepped into element by element, where tanh's
    // error squared and a NaN payload of the backend's choice are explained.
    let map = root.join("harness/tests/data/map_tanh_squared_nan.yaml");
    let (code, out, err) = conformance(&["replay", map.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fast: Pass"), "{out}");
    // A call-rooted dump is checked through its callee; a tuple root leaf by leaf.
    let clip = root.join("spec/tests/data/jax/clip.hlo");
    let (code, out, err) = conformance(&["replay", clip.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fast: Pass"), "{out}");
    let tuple = root.join("spec/tests/data/jax/bitcast.hlo");
    let (code, out, err) = conformance(&["replay", tuple.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("`bitcast_convert_type.2` (bitcast-convert):")
            && out.contains("`bitcast_convert_type.3` (bitcast-convert):")
            && out.matches("fast: Pass").count() == 2,
        "{out}"
    );
    // An instruction the reference cannot run is refused with exit 2, naming the file:line:col of
    // its opcode and the instruction.
    let opaque = temp("opaque.hlo");
    std::fs::write(
        &opaque,
        "HloModule m\n\nENTRY main {\n  x = f32[3] parameter(0)\n  \
         ROOT c = f32[3] custom-call(x), custom_call_target=\"my_kernel\"\n}\n",
    )
    .unwrap();
    let (code, _, err) = conformance(&["replay", opaque.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("opaque.hlo:5:19: unsupported: `custom-call` (instruction `c`"),
        "{err}"
    );
    // The target is named: what a custom call computes is its target's.
    assert!(
        err.contains("custom call target `my_kernel` is not in the registry"),
        "{err}"
    );
}

#[test]
fn nnef_check_prints_shapes_and_names_errors_by_line_and_column() {
    let dir = std::env::temp_dir().join(format!("conformance-nnef-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.nnef");
    std::fs::write(
        &good,
        "version 1.0;\ngraph G( input ) -> ( output )\n{\n    input = external<scalar>(shape = [1, 3, 8, 8]);\n    output = max_pool(input, size = [1, 1, 2, 2], stride = [1, 1, 2, 2]);\n}\n",
    )
    .unwrap();
    let (code, out, _) = conformance(&["nnef", "check", good.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("output: scalar[1,3,4,4]"), "{out}");
    let (code, out, _) = conformance(&["nnef", "lower", good.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("reduce-window"), "{out}");
    let (code, out, _) = conformance(&["nnef", "run", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fast: Pass"), "{out}");
    // One error, at its line:col, exit 2; never a panic.
    let bad = dir.join("bad.nnef");
    std::fs::write(
        &bad,
        "version 1.0;\ngraph G( input ) -> ( output )\n{\n    input = external<scalar>(shape = [1, 3]);\n    output = relu(input, alpha = 2.0);\n}\n",
    )
    .unwrap();
    let (code, _, err) = conformance(&["nnef", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.nnef:5:26: operation 'relu' has no parameter called 'alpha'"),
        "{err}"
    );
    let (code, _, err) = conformance(&[
        "nnef",
        "run",
        "--input-shape",
        "input=1,x",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("expected non-negative extents"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn external_backends_from_the_command_line() {
    // A worker registered with --worker, compared with the reference through --backend.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let worker = format!(
        "faulty=python3 {}",
        root.join("workers/faulty/faulty_worker.py").display()
    );
    let (code, out, err) = conformance(&[
        "run",
        "--worker",
        &worker,
        "--backend",
        "faulty",
        "--ops",
        "negate",
        "--dtypes",
        "f32",
        "--cases",
        "20",
    ]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("faulty vs reference"), "{out}");
    // Bad worker options and unknown backends are usage errors naming what is wrong.
    let (code, _, err) = conformance(&["run", "--worker", "nocommand", "--backend", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("NAME=COMMAND"), "{err}");
    let (code, _, err) = conformance(&["run", "--backend", "nonesuch", "--cases", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown backend `nonesuch`"), "{err}");
    let (code, _, err) = conformance(&["run", "--backend", "xla", "--backends", "reference,fast"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_backend_that_is_not_installed_is_one_line_and_the_sweep_goes_on() {
    // An interpreter without IREE (a bare python3 that imports nothing but the standard
    // library) stands for a machine where `iree` was never installed.
    let bare = std::env::temp_dir().join(format!("conformance-bare-python-{}", std::process::id()));
    std::fs::write(&bare, "#!/bin/sh\nexec python3 -S -I \"$@\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bare, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["run", "--backends", "reference,fast,iree", "--ops", "add"])
        .args(["--dtypes", "f32", "--cases", "8"])
        .env("CI", "true")
        .env("CONFORMANCE_PYTHON", &bare)
        .output()
        .unwrap();
    let (out_text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{out_text}\nstderr:\n{err}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("`iree`")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("is not installed") && lines[0].contains("goes on without it"),
        "{err}"
    );
    assert!(out_text.contains("fast vs reference"), "{out_text}");
    assert!(!out_text.contains("iree vs reference"), "{out_text}");
    let _ = std::fs::remove_file(&bare);
}

#[test]
fn bench_lists_its_cases_and_rejects_unknown_ones() {
    let (code, out, _) = conformance(&["bench", "--list"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("dot_f32_2048") && out.contains("gather_1m_rows_64_f32"),
        "{out}"
    );
    let (code, _, err) = conformance(&[
        "bench",
        "--cases",
        "nonesuch",
        "--backends",
        "fast,reference",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown bench case"), "{err}");
    let (code, out, err) = conformance(&[
        "bench",
        "--cases",
        "dot_f32_256",
        "--backends",
        "fast,fast",
        "--repeat",
        "1",
        "--min-time",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("fast/fast") && out.contains("dot_f32_256"),
        "{out}"
    );
}

#[test]
fn eval_prints_and_writes_a_backends_outputs_and_refuses_bad_inputs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let program = root.join("corpus/programs/fori_loop");
    let out = temp("fori_exact.npz");
    let (code, stdout, err) = conformance(&[
        "eval",
        program.to_str().unwrap(),
        "--outputs",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("out0: f32[32]"), "{stdout}");
    let archive = npyz::npz::NpzArchive::open(&out).unwrap();
    assert_eq!(archive.array_names().collect::<Vec<_>>(), vec!["out0"]);
    // The same with the inputs given explicitly, on fast, printed in full.
    let (code, stdout, err) = conformance(&[
        "eval",
        program.join("module.hlo").to_str().unwrap(),
        "--backend",
        "fast",
        "--inputs",
        program.join("inputs.npz").to_str().unwrap(),
        "--print",
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.starts_with("out0 = f32[32] {"), "{stdout}");
    // Inputs that do not fit the parameters: exit 2 naming the file and the array.
    let (code, _, err) = conformance(&[
        "eval",
        program.join("module.hlo").to_str().unwrap(),
        "--inputs",
        root.join("corpus/programs/top_k/inputs.npz")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("top_k/inputs.npz: array `arg0`: shape [8, 100]"),
        "{err}"
    );
    let (code, _, err) =
        conformance(&["eval", program.to_str().unwrap(), "--inputs", "a.npy,b.npy"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("2 .npy file(s) for 1 parameter(s)"), "{err}");
    let (code, _, err) = conformance(&["eval", program.to_str().unwrap(), "--backend", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn replay_refuses_to_generate_huge_inputs() {
    let big = temp("big.hlo");
    std::fs::write(
        &big,
        "HloModule big\nENTRY e {\n  x = f32[100000,100000] parameter(0)\n  \
         ROOT n = f32[100000,100000] negate(x)\n}\n",
    )
    .unwrap();
    let (code, _, err) = conformance(&["replay", big.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("parameter `x`")
            && err.contains("10000000000 elements")
            && err.contains("--inputs"),
        "{err}"
    );
}

#[test]
fn an_unknown_instruction_set_cap_exits_two_and_a_known_one_runs_fast_with_it() {
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["run", "--ops", "add", "--dtypes", "f32", "--cases", "4"])
        .env("CI", "true")
        .env("CONFORMANCE_FAST_ISA", "sse9")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(
        err.contains("CONFORMANCE_FAST_ISA") && err.contains("scalar, avx2 or avx512"),
        "{err}"
    );
    let good = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args([
            "run",
            "--ops",
            "add,exponential",
            "--dtypes",
            "f32",
            "--cases",
            "20",
        ])
        .env("CI", "true")
        .env("CONFORMANCE_FAST_ISA", "scalar")
        .output()
        .unwrap();
    assert_eq!(
        good.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
}
