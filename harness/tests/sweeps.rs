//! Sweeps: shards add up to the unsharded sweep, and a run killed with SIGKILL resumes without
//! losing or repeating a case.

use conformance::generate::Filters;
use conformance::results::{self, CaseRecord, ResultLine};
use conformance::run::{run, Budget, RunOptions};
use conformance_spec::catalog::Catalog;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("conformance-sweeps-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn cases(path: &Path) -> Vec<CaseRecord> {
    results::read(path)
        .unwrap()
        .into_iter()
        .filter_map(|l| match l {
            ResultLine::Case(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// index → (row, dtype, verdicts) of every case in a file.
fn by_index(records: &[CaseRecord]) -> BTreeMap<u64, String> {
    records
        .iter()
        .map(|c| {
            let verdicts: Vec<String> = c
                .outcomes
                .iter()
                .map(|o| format!("{}:{:?}", o.backend, o.verdict))
                .collect();
            (
                c.index,
                format!("{} {} {}", c.row, c.dtype, verdicts.join(",")),
            )
        })
        .collect()
}

#[test]
fn the_union_of_the_shards_is_the_unsharded_sweep() {
    let catalog = Catalog::builtin().unwrap();
    let base = {
        let mut o = RunOptions::new(5, Budget::Cases(90));
        o.filters = Filters {
            ops: vec!["add".into(), "exponential".into(), "compare-LT".into()],
            dtypes: vec![],
        };
        o
    };
    let whole = temp("whole.jsonl");
    let mut o = base.clone();
    o.results = Some(whole.clone());
    run(&catalog, &o, &mut std::io::sink()).unwrap();
    let shards = temp("shards.jsonl");
    let mut seen_per_shard = Vec::new();
    for k in 1..=4 {
        let mut o = base.clone();
        o.results = Some(shards.clone());
        o.append = true; // the four shards go to one file, deliberately
        o.shard = Some((k, 4));
        let s = run(&catalog, &o, &mut std::io::sink()).unwrap();
        seen_per_shard.push(s.cases);
    }
    let a = by_index(&cases(&whole));
    let all_shards = cases(&shards);
    let b = by_index(&all_shards);
    assert_eq!(a.len(), 90);
    assert_eq!(all_shards.len(), 90, "no case in two shards");
    assert_eq!(a, b);
    assert_eq!(seen_per_shard, vec![23, 23, 22, 22]);
    for c in &all_shards {
        assert!(c.replay.contains(&format!("--only-case {}", c.index)));
    }
    let _ = std::fs::remove_file(&whole);
    let _ = std::fs::remove_file(&shards);
}

#[test]
fn a_sweep_killed_by_sigkill_resumes_without_losing_or_repeating_a_case() {
    let file = temp("killed.jsonl");
    let total = 4000u64;
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "run",
            "--seed",
            "9",
            "--ops",
            "add,multiply,log",
            "--dtypes",
            "f32,bf16,c64",
            "--cases",
            &total.to_string(),
            "--no-progress",
            "--results",
            file.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(args(&[]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some cases are on disk.
    let start = Instant::now();
    loop {
        let n = std::fs::read_to_string(&file)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n > 200 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    let before = cases(&file).len() as u64;
    assert!(
        before > 0 && before < total,
        "{before} cases before the kill"
    );
    let status = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(args(&["--resume"]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.code().is_some_and(|c| c == 0 || c == 1), "{status}");
    let after = cases(&file);
    let mut indices: Vec<u64> = after.iter().map(|c| c.index).collect();
    indices.sort();
    assert_eq!(
        indices,
        (0..total).collect::<Vec<_>>(),
        "each case exactly once"
    );
    let lines = results::read(&file).unwrap();
    let starts: Vec<bool> = lines
        .iter()
        .filter_map(|l| match l {
            ResultLine::RunStart(s) => Some(s.resumed),
            _ => None,
        })
        .collect();
    assert_eq!(starts, vec![false, true]);
    // A resumed run of another sweep is refused.
    let mut other = args(&["--resume"]);
    other[2] = "10".into();
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different sweep"));
    let _ = std::fs::remove_file(&file);
}
