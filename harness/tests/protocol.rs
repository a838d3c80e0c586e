//! The worker protocol (docs/protocol.md) against `workers/faulty/faulty_worker.py`, a small real
//! backend that misbehaves on request: results round-trip with layouts; crashes, hangs, garbage,
//! wrong ids and shapes, error replies and failed handshakes are each recorded as what they are,
//! the worker is restarted, and a sweep through a crashing worker loses no case.

use conformance::backends::process::{Limits, ProcessBackend};
use conformance::check::Verdict;
use conformance::run::{self, Budget, RunOptions};
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{Backend, BackendError, ElementType, SubnormalMode};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn faulty_command(flags: &[&str]) -> Vec<String> {
    let mut c = vec![
        "python3".to_string(),
        root()
            .join("workers/faulty/faulty_worker.py")
            .to_string_lossy()
            .into_owned(),
    ];
    c.extend(flags.iter().map(|s| s.to_string()));
    c
}

fn faulty(flags: &[&str], limits: Limits) -> ProcessBackend {
    ProcessBackend::new("faulty", faulty_command(flags), limits)
}

fn quick() -> Limits {
    Limits {
        handshake: Duration::from_secs(20),
        request: Duration::from_secs(3),
    }
}

const ADD: &str = "HloModule m\nENTRY e {\n  a = f32[2,3]{0,1} parameter(0)\n  b = f32[2,3] parameter(1)\n  ROOT r = f32[2,3]{0,1} add(a, b)\n}\n";

fn add_args() -> Vec<Literal> {
    let mut s = ArrayShape::new(ElementType::F32, vec![2, 3]);
    let a = ArrayLiteral::from_f64s(s.clone(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    s.layout = conformance_spec::layout::Layout::new(vec![0, 1]);
    let a = a.relayout(s.layout.clone());
    let b = ArrayLiteral::from_f64s(
        ArrayShape::new(ElementType::F32, vec![2, 3]),
        &[0.5, 0.25, -3.0, 1e-45, 0.0, f64::INFINITY],
    )
    .unwrap();
    vec![Literal::Array(a), Literal::Array(b)]
}

fn expected_add() -> Vec<f64> {
    vec![1.5, 2.25, 0.0, 4.0 + 1e-45, 5.0, f64::INFINITY]
}

fn assert_add_ok(b: &ProcessBackend) {
    let m = parse_module(ADD).unwrap();
    let got = b.execute(&m, &add_args()).expect("the add runs");
    let a = got.as_array().unwrap();
    assert_eq!(
        a.shape().layout.minor_to_major,
        vec![0, 1],
        "the root's layout"
    );
    let want: Vec<f64> = expected_add().iter().map(|&x| x as f32 as f64).collect();
    assert_eq!(a.to_f64s().unwrap(), want);
}

fn failure_of(r: Result<Literal, BackendError>) -> String {
    match r {
        Err(BackendError::Failure(m)) => m,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn handshake_capabilities_and_results_round_trip() {
    let b = faulty(&[], quick());
    let hello = b.hello().unwrap();
    assert_eq!(hello.protocol, 1);
    let caps = b.capabilities();
    assert_eq!(caps.element_types, vec![ElementType::F32, ElementType::S32]);
    assert!(caps.any_layout);
    assert_eq!(caps.subnormals, SubnormalMode::Preserve);
    assert_add_ok(&b);
    assert_add_ok(&b);
    // Outside the capabilities: not sent, unsupported.
    let m = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT r = f32[2] exponential(a)\n}\n",
    )
    .unwrap();
    let arg = Literal::Array(
        ArrayLiteral::from_f64s(ArrayShape::new(ElementType::F32, vec![2]), &[1.0, 2.0]).unwrap(),
    );
    match b.execute(&m, std::slice::from_ref(&arg)) {
        Err(BackendError::Unsupported(m)) => assert!(m.contains("exponential"), "{m}"),
        other => panic!("{other:?}"),
    }
    // f64 is outside the element types.
    let m = parse_module(
        "HloModule m\nENTRY e {\n  a = f64[2] parameter(0)\n  ROOT r = f64[2] negate(a)\n}\n",
    )
    .unwrap();
    assert!(matches!(
        b.execute(&m, &[arg]),
        Err(BackendError::Unsupported(_))
    ));
}

#[test]
fn a_crash_is_a_failure_with_the_stderr_tail_and_the_worker_restarts() {
    let state = tempfile("crash");
    let b = faulty(
        &["--crash-on", "2", "--state", &state, "--stderr-noise"],
        quick(),
    );
    let m = parse_module(ADD).unwrap();
    assert_add_ok(&b);
    let msg = failure_of(b.execute(&m, &add_args()));
    assert!(
        msg.contains("crashed") && msg.contains("exit status: 3"),
        "{msg}"
    );
    assert!(msg.contains("standard error"), "{msg}");
    assert_add_ok(&b);
}

#[test]
fn a_hang_is_killed_at_the_limit_and_the_next_request_gets_a_new_worker() {
    let state = tempfile("hang");
    let b = faulty(&["--hang-on", "1", "--state", &state], quick());
    let m = parse_module(ADD).unwrap();
    let start = Instant::now();
    let msg = failure_of(b.execute(&m, &add_args()));
    assert!(msg.contains("timed out"), "{msg}");
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_add_ok(&b);
}

#[test]
fn malformed_replies_are_failures_and_restart_the_worker() {
    for flag in ["--garbage-on", "--bad-length-on", "--wrong-id-on"] {
        let state = tempfile(flag);
        let b = faulty(&[flag, "1", "--state", &state], quick());
        let m = parse_module(ADD).unwrap();
        let msg = failure_of(b.execute(&m, &add_args()));
        assert!(msg.contains("malformed reply"), "{flag}: {msg}");
        assert_add_ok(&b);
    }
}

/// A well-formed result of other dimensions than the module's is the backend's wrong answer, a
/// failure, but the stream is intact: the same worker answers the next request.
#[test]
fn a_result_unlike_the_module_is_a_failure_and_the_worker_stays() {
    let state = tempfile("wrong-shape");
    let b = faulty(&["--wrong-shape-on", "1", "--state", &state], quick());
    let m = parse_module(ADD).unwrap();
    let msg = failure_of(b.execute(&m, &add_args()));
    assert!(msg.contains("unlike the module's"), "{msg}");
    assert!(!msg.contains("restarted"), "{msg}");
    assert_add_ok(&b);
}

#[test]
fn an_error_reply_is_the_workers_failure_and_the_worker_stays() {
    let b = faulty(&["--error-on", "1"], quick());
    let m = parse_module(ADD).unwrap();
    let msg = failure_of(b.execute(&m, &add_args()));
    assert!(!msg.contains("malformed"), "{msg}");
    assert_add_ok(&b);
}

#[test]
fn failed_handshakes_are_named_and_stop_restarts_after_three() {
    let b = faulty(&["--bad-hello"], quick());
    let m = parse_module(ADD).unwrap();
    for _ in 0..3 {
        let msg = failure_of(b.execute(&m, &add_args()));
        assert!(msg.contains("protocol 99"), "{msg}");
    }
    let msg = failure_of(b.execute(&m, &add_args()));
    assert!(msg.contains("not restarted"), "{msg}");

    let silent = faulty(
        &["--no-hello"],
        Limits {
            handshake: Duration::from_secs(2),
            request: Duration::from_secs(2),
        },
    );
    let msg = failure_of(silent.execute(&m, &add_args()));
    assert!(msg.contains("no hello"), "{msg}");

    let missing = ProcessBackend::new("missing", vec!["/nonexistent/worker".into()], quick());
    let msg = failure_of(missing.execute(&m, &add_args()));
    assert!(msg.contains("could not be started"), "{msg}");
}

/// A sweep through a worker that crashes on its 3rd request and hangs on its 6th: every case has
/// a result line, the two are recorded as errors naming what happened, the others pass.
#[test]
fn a_sweep_through_a_misbehaving_worker_loses_no_case() {
    let catalog = Catalog::builtin().unwrap();
    let state = tempfile("sweep");
    let worker: Arc<dyn Backend> = Arc::new(faulty(
        &["--crash-on", "3", "--hang-on", "6", "--state", &state],
        Limits {
            handshake: Duration::from_secs(20),
            request: Duration::from_secs(3),
        },
    ));
    let reference: Arc<dyn Backend> = Arc::new(conformance_reference::Reference);
    let results = std::env::temp_dir().join(format!("protocol-sweep-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&results);
    let mut options = RunOptions::new(1, Budget::Cases(24));
    options.filters.ops = vec!["negate".into(), "add".into()];
    options.filters.dtypes = vec!["f32".into(), "s32".into()];
    options.results = Some(results.clone());
    options.workers = Some(1);
    options.case_timeout = Some(Duration::from_secs(20));
    let mut log = Vec::new();
    let summary = run::run_with_backends(&catalog, &options, vec![reference, worker], &mut log)
        .expect("the sweep runs");
    assert_eq!(summary.cases, 24);
    let lines = std::fs::read_to_string(&results).unwrap();
    let cases = lines.lines().filter(|l| l.contains("\"outcomes\"")).count();
    assert_eq!(cases, 24, "one result line per case");
    let count = |v: Verdict| -> u64 {
        summary
            .cells
            .values()
            .map(|c| match v {
                Verdict::Pass => c.pass,
                Verdict::Error => c.error,
                Verdict::Timeout => c.timeout,
                Verdict::Fail => c.fail,
                Verdict::Unsupported => c.unsupported,
            })
            .sum()
    };
    assert_eq!(count(Verdict::Error), 2, "the crash and the hang");
    assert_eq!(count(Verdict::Fail), 0);
    // Cases outside the worker's opcodes (an `add` with a broadcast operand) are unsupported.
    assert_eq!(count(Verdict::Pass) + count(Verdict::Unsupported), 22);
    assert!(count(Verdict::Pass) >= 18);
    assert!(
        lines.contains("crashed") && lines.contains("timed out"),
        "{lines}"
    );
    let _ = std::fs::remove_file(&results);
}

fn tempfile(tag: &str) -> String {
    let p = std::env::temp_dir().join(format!(
        "faulty-state-{}-{}-{:?}",
        tag.trim_start_matches('-'),
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_file(&p);
    p.to_string_lossy().into_owned()
}

/// The workers' own unit tests (Python `unittest`): the faulty worker's with any python3, the XLA
/// worker's with the project's `.venv` (jax/jaxlib).
#[test]
fn the_workers_own_unit_tests_pass() {
    let runs = [
        ("python3".to_string(), "workers/faulty"),
        (
            root()
                .join(".venv/bin/python")
                .to_string_lossy()
                .into_owned(),
            "workers/xla",
        ),
    ];
    for (python, dir) in runs {
        let out = std::process::Command::new(&python)
            .args(["-B", "-m", "unittest", "discover", "-s", dir])
            .current_dir(root())
            .output()
            .unwrap_or_else(|e| panic!("{python}: {e} (run scripts/setup-python.sh)"));
        assert!(
            out.status.success(),
            "{dir}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
