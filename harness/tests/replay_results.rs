//! From a program and the user's own inputs to a corpus case and a report:
//! `conformance minimize FILE --inputs in.npz` minimizes a disagreement that only those inputs
//! show and writes a corpus case naming them, and `conformance replay FILE --results out.jsonl`
//! writes a results file that `conformance report` renders.
//!
//! The backend under test is the faulty worker (`workers/faulty/faulty_worker.py`) with one bug
//! planted in its arithmetic: an f32 `add` whose sum is exactly 2000 comes back one unit in the
//! last place too large. Inputs generated from a seed never hit that sum; `in.npz` does.

use conformance::corpus::CorpusCase;
use conformance::results::{self, ResultLine};
use npyz::WriterBuilder;
use std::path::{Path, PathBuf};

mod common;
use common::conformance;

const ADD: &str = "HloModule add_f32

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT r = f32[4]{0} add(x, y)
}
";

/// The same program as StableHLO, as `jax.jit(f).lower(x, y).as_text()` prints it.
const ADD_MLIR: &str = "module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
";

/// Multiplies where [`ADD`] adds: the planted bug does not touch it.
const MULTIPLY: &str = "HloModule multiply_f32

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT r = f32[4]{0} multiply(x, y)
}
";

/// Two values to check: the sum (wrong on the planted backend) and the product (right).
const ADD_AND_MULTIPLY: &str = "HloModule add_and_multiply

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  s = f32[4]{0} add(x, y)
  p = f32[4]{0} multiply(x, y)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(s, p)
}
";

const X: [f32; 4] = [1.0, 2.5, -3.0, 1999.0];
const Y: [f32; 4] = [1.0, 1.0, 0.5, 1.0];

/// The faulty worker with the bug planted: run by `python3 planted.py`.
const PLANTED: &str = r#"import sys
sys.path.insert(0, sys.argv[1])
import faulty_worker as w

faithful = w.f32_op


def planted(opcode, a, b=None):
    bits = faithful(opcode, a, b)
    if opcode == "add" and w._f32_value(bits) == 2000.0:
        return bits + 1
    return bits


w.f32_op = planted
sys.exit(w.main(sys.argv[2:]))
"#;

/// A scratch folder with the programs, their inputs and the planted worker.
struct Setup {
    dir: tempfile::TempDir,
    /// `--worker planted=...`.
    worker: String,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let faulty = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workers/faulty");
        let script = dir.path().join("planted.py");
        std::fs::write(&script, PLANTED).unwrap();
        let worker = format!(
            "planted=python3 {} {}",
            script.display(),
            faulty.canonicalize().unwrap().display()
        );
        let s = Setup { dir, worker };
        std::fs::write(s.path("add.hlo"), ADD).unwrap();
        write_npz(&s.path("in.npz"), &[("arg0", &X), ("arg1", &Y)]);
        s
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    /// `conformance <args> --worker planted=... --backends reference,planted`.
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--worker", &self.worker, "--backends", "reference,planted"]);
        conformance(&all)
    }

    /// The corpus files written into `dir`.
    fn corpus_files(&self, dir: &str) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.path(dir)) else {
            return vec![];
        };
        let mut files: Vec<PathBuf> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        files
    }
}

/// Writes f32 vectors into a new `.npz` archive.
fn write_npz(path: &Path, arrays: &[(&str, &[f32])]) {
    let mut zip = npyz::npz::NpzWriter::create(path).unwrap();
    for (name, values) in arrays {
        let mut w = zip
            .array::<f32>(name, Default::default())
            .unwrap()
            .default_dtype()
            .shape(&[values.len() as u64])
            .begin_nd()
            .unwrap();
        w.extend(values.iter().copied()).unwrap();
        w.finish().unwrap();
    }
    zip.zip_writer().finish().unwrap();
}

/// Writes one f32 vector as a `.npy` file.
fn write_npy(path: &Path, values: &[f32]) {
    let mut file = std::fs::File::create(path).unwrap();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[values.len() as u64])
        .writer(&mut file)
        .begin_nd()
        .unwrap();
    w.extend(values.iter().copied()).unwrap();
    w.finish().unwrap();
}

/// The one corpus case written into `dir` by a minimize whose output was `out`.
fn written_case(s: &Setup, dir: &str, out: &str) -> (PathBuf, CorpusCase) {
    let files = s.corpus_files(dir);
    let [file] = files.as_slice() else {
        panic!("one corpus file in {dir}, found {files:?}:\n{out}")
    };
    assert!(out.contains(&file.display().to_string()), "{out}");
    (file.clone(), CorpusCase::load(file).unwrap())
}

#[test]
fn minimize_with_inputs_writes_a_case_that_names_them_and_replays_as_a_failure() {
    let s = Setup::new();
    // With inputs generated from the seed the backends agree: nothing to minimize, nothing
    // written.
    let (code, out, err) = s.run(&[
        "minimize",
        &s.arg("add.hlo"),
        "--corpus-dir",
        &s.arg("generated"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("nothing to minimize"), "{out}");
    assert!(s.corpus_files("generated").is_empty());

    // With the user's inputs the planted bug shows, and is minimized.
    let (code, out, err) = s.run(&[
        "minimize",
        &s.arg("add.hlo"),
        "--inputs",
        &s.arg("in.npz"),
        "--corpus-dir",
        &s.arg("corpus"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("minimized in"), "{out}");
    let (file, case) = written_case(&s, "corpus", &out);
    assert_eq!(
        (case.op.as_str(), case.dtype.as_str(), case.backend.as_str()),
        ("add", "f32", "planted")
    );
    assert!(!case.accepted);
    assert_eq!(
        case.provenance.generator,
        format!("inputs from {}", s.arg("in.npz"))
    );
    let command = format!(
        "conformance replay {} --inputs {} --backends reference,planted",
        s.arg("add.hlo"),
        s.arg("in.npz")
    );
    assert_eq!(case.provenance.command, command);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("generated by"), "{text}");
    // The minimized case keeps the one sum of 2000.
    let module = case.module().unwrap();
    let elements = module
        .entry_computation()
        .root_instruction()
        .shape
        .as_array()
        .unwrap();
    assert_eq!(elements.element_count(), 1, "{}", case.hlo);

    // The corpus file replays to the failure it records...
    let (code, out, err) = s.run(&["replay", &file.display().to_string()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("planted: Fail"), "{out}");
    // ...and so does the provenance's command, on the original program and inputs.
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let (code, out, err) = conformance(&[&words[..], &["--worker", &s.worker]].concat());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("planted: Fail"), "{out}");
}

#[test]
fn minimize_takes_npy_files_stablehlo_and_folders() {
    let s = Setup::new();
    // One .npy file per parameter, in order.
    write_npy(&s.path("x.npy"), &X);
    write_npy(&s.path("y.npy"), &Y);
    let inputs = format!("{},{}", s.arg("x.npy"), s.arg("y.npy"));
    let (code, out, err) = s.run(&[
        "minimize",
        &s.arg("add.hlo"),
        "--inputs",
        &inputs,
        "--corpus-dir",
        &s.arg("npy"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (_, case) = written_case(&s, "npy", &out);
    assert_eq!(
        case.provenance.generator,
        format!("inputs from {}, {}", s.arg("x.npy"), s.arg("y.npy"))
    );
    assert!(
        case.provenance
            .command
            .contains(&format!("--inputs {inputs} ")),
        "{}",
        case.provenance.command
    );

    // A StableHLO file.
    std::fs::write(s.path("add.mlir"), ADD_MLIR).unwrap();
    let (code, out, err) = s.run(&[
        "minimize",
        &s.arg("add.mlir"),
        "--inputs",
        &s.arg("in.npz"),
        "--corpus-dir",
        &s.arg("mlir"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (_, case) = written_case(&s, "mlir", &out);
    assert_eq!(case.op, "add");
    assert!(
        case.provenance.command.starts_with(&format!(
            "conformance replay {} --inputs",
            s.arg("add.mlir")
        )),
        "{}",
        case.provenance.command
    );

    // A program folder: its module.hlo with its own inputs.npz.
    let program = s.path("program");
    std::fs::create_dir(&program).unwrap();
    std::fs::write(program.join("module.hlo"), ADD).unwrap();
    std::fs::copy(s.path("in.npz"), program.join("inputs.npz")).unwrap();
    let (code, out, err) = s.run(&[
        "minimize",
        &s.arg("program"),
        "--corpus-dir",
        &s.arg("folder"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (_, case) = written_case(&s, "folder", &out);
    assert_eq!(
        case.provenance.generator,
        format!("inputs from {}", program.join("inputs.npz").display())
    );
    assert_eq!(
        case.provenance.command,
        format!(
            "conformance replay {} --backends reference,planted",
            s.arg("program")
        )
    );

    // An XLA dump folder: the first module that disagrees (the second: the first multiplies).
    let dump = s.path("dump");
    std::fs::create_dir(&dump).unwrap();
    let first = dump.join("module_0001.jit_f.before_optimizations.txt");
    let second = dump.join("module_0001.jit_f.cpu_after_optimizations.txt");
    std::fs::write(&first, MULTIPLY).unwrap();
    std::fs::write(&second, ADD).unwrap();
    let (code, out, err) = s.run(&[
        "minimize",
        &s.arg("dump"),
        "--inputs",
        &s.arg("in.npz"),
        "--corpus-dir",
        &s.arg("dumped"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("== ").count(), 2, "{out}");
    let (_, case) = written_case(&s, "dumped", &out);
    assert!(
        case.provenance
            .command
            .starts_with(&format!("conformance replay {} ", second.display())),
        "{}",
        case.provenance.command
    );
}

#[test]
fn replay_results_are_a_report_input() {
    let s = Setup::new();
    let results_file = s.path("out.jsonl");
    let (code, out, err) = s.run(&[
        "replay",
        &s.arg("add.hlo"),
        "--inputs",
        &s.arg("in.npz"),
        "--results",
        &s.arg("out.jsonl"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    // What replay prints is unchanged, followed by the file written.
    assert!(out.contains("planted: Fail"), "{out}");
    assert!(
        out.contains(&format!("{}: 1 case(s) written", results_file.display())),
        "{out}"
    );
    let lines = results::read(&results_file).unwrap();
    let [ResultLine::RunStart(start), ResultLine::Case(case), ResultLine::RunEnd(end)] =
        lines.as_slice()
    else {
        panic!("run-start, case, run-end: {lines:?}")
    };
    assert_eq!(start.backends, ["reference", "planted"]);
    assert_eq!(
        start.ops,
        [format!(
            "replay {} --inputs {}",
            s.arg("add.hlo"),
            s.arg("in.npz")
        )]
    );
    assert_eq!(end.cases, 1);
    assert_eq!(
        (case.op.as_str(), case.row.as_str(), case.dtype.as_str()),
        ("add", "add", "f32")
    );
    assert_eq!(
        case.replay,
        format!(
            "conformance replay {} --inputs {} --backends reference,planted",
            s.arg("add.hlo"),
            s.arg("in.npz")
        )
    );
    assert!(case.hlo.as_deref().is_some_and(|h| h.contains("add(")));
    let [outcome] = case.outcomes.as_slice() else {
        panic!("one backend compared: {:?}", case.outcomes)
    };
    assert_eq!(outcome.backend, "planted");
    assert_eq!(format!("{:?}", outcome.verdict), "Fail");

    // `conformance report` renders it.
    let html = s.path("report/index.html");
    let (code, out, err) = conformance(&[
        "report",
        &s.arg("out.jsonl"),
        "-o",
        &html.display().to_string(),
        "--corpus-dir",
        &s.arg("no-corpus"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("1 cases") && out.contains("1 failing cell(s)"),
        "{out}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("planted"), "the backend");
    assert!(page.contains(">add<"), "the op as a matrix row");
    assert!(page.contains(&case.replay), "the replay command");

    // An existing results file is refused, naming it, and left as it was.
    let before = std::fs::read(&results_file).unwrap();
    let (code, out, err) = s.run(&[
        "replay",
        &s.arg("add.hlo"),
        "--inputs",
        &s.arg("in.npz"),
        "--results",
        &s.arg("out.jsonl"),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!(
            "{}: the results file is not empty",
            results_file.display()
        )),
        "{err}"
    );
    assert!(out.is_empty(), "refused before replaying: {out}");
    assert_eq!(std::fs::read(&results_file).unwrap(), before);
}

#[test]
fn replay_of_a_dump_folder_writes_every_module_into_one_results_file() {
    let s = Setup::new();
    let dump = s.path("dump");
    std::fs::create_dir(&dump).unwrap();
    let first = dump.join("module_0007.jit_f.before_optimizations.txt");
    let second = dump.join("module_0007.jit_f.cpu_after_optimizations.txt");
    std::fs::write(&first, ADD).unwrap();
    std::fs::write(&second, ADD_AND_MULTIPLY).unwrap();
    let (code, out, err) = s.run(&[
        "replay",
        &s.arg("dump"),
        "--inputs",
        &s.arg("in.npz"),
        "--results",
        &s.arg("dump.jsonl"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(out.matches("== ").count(), 2, "{out}");
    let lines = results::read(&s.path("dump.jsonl")).unwrap();
    assert!(matches!(lines.first(), Some(ResultLine::RunStart(_))));
    assert!(matches!(lines.last(), Some(ResultLine::RunEnd(e)) if e.cases == 3));
    let cases: Vec<_> = lines
        .iter()
        .filter_map(|l| match l {
            ResultLine::Case(c) => Some(c),
            _ => None,
        })
        .collect();
    // One case per checked value, in order: the first module's root, then the second's leaves.
    let seen: Vec<(u64, &str, String)> = cases
        .iter()
        .map(|c| {
            (
                c.index,
                c.op.as_str(),
                format!("{:?}", c.outcomes[0].verdict),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (0, "add", "Fail".to_string()),
            (1, "add", "Fail".to_string()),
            (2, "multiply", "Pass".to_string())
        ]
    );
    for (c, module) in cases.iter().zip([&first, &second, &second]) {
        let expected = format!("conformance replay {} --inputs", module.display());
        assert!(c.replay.starts_with(&expected), "{}", c.replay);
    }
    let (code, out, err) = conformance(&[
        "report",
        &s.arg("dump.jsonl"),
        "-o",
        &s.arg("dump.html"),
        "--corpus-dir",
        &s.arg("no-corpus"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 cases"), "{out}");
    let page = std::fs::read_to_string(s.path("dump.html")).unwrap();
    assert!(page.contains(">multiply<"), "the second module's product");
}

#[test]
fn bad_paths_are_usage_errors_that_write_nothing() {
    let s = Setup::new();
    let refused = |args: &[&str], expected: &str| {
        let (code, out, err) = s.run(args);
        assert_eq!(code, 2, "{args:?}:\n{out}{err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    let missing_dir = s.arg("no/such/dir/out.jsonl");
    refused(
        &["replay", &s.arg("add.hlo"), "--results", &missing_dir],
        &format!("{missing_dir}: cannot open results file"),
    );
    // A folder is not a results file.
    std::fs::create_dir(s.path("folder.jsonl")).unwrap();
    refused(
        &[
            "replay",
            &s.arg("add.hlo"),
            "--results",
            &s.arg("folder.jsonl"),
        ],
        &format!("{}: cannot open results file", s.arg("folder.jsonl")),
    );
    // A program or inputs that cannot be read: nothing is left behind in the results file's
    // place.
    let new = s.arg("new.jsonl");
    refused(
        &["replay", &s.arg("missing.hlo"), "--results", &new],
        &s.arg("missing.hlo"),
    );
    refused(
        &[
            "replay",
            &s.arg("add.hlo"),
            "--inputs",
            &s.arg("missing.npz"),
            "--results",
            &new,
        ],
        &s.arg("missing.npz"),
    );
    assert!(!s.path("new.jsonl").exists());
    // Minimize: the same inputs and programs.
    refused(
        &[
            "minimize",
            &s.arg("add.hlo"),
            "--inputs",
            &s.arg("missing.npz"),
            "--corpus-dir",
            &s.arg("corpus"),
        ],
        &s.arg("missing.npz"),
    );
    refused(
        &[
            "minimize",
            &s.arg("missing.mlir"),
            "--corpus-dir",
            &s.arg("corpus"),
        ],
        &s.arg("missing.mlir"),
    );
    // Inputs of the wrong number for the program.
    write_npy(&s.path("x.npy"), &X);
    refused(
        &[
            "minimize",
            &s.arg("add.hlo"),
            "--inputs",
            &s.arg("x.npy"),
            "--corpus-dir",
            &s.arg("corpus"),
        ],
        "1 .npy file(s) for 2 parameter(s)",
    );
    assert!(s.corpus_files("corpus").is_empty());
}
