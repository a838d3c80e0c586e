//! `conformance run`: a sweep of generated cases over the catalog, on every backend, compared with
//! the reference; results appended to JSONL (flushed per case) and summarized op × element type.
//!
//! Case `i` of a sweep is a pure function of (seed, i, catalog, generator config), so a sweep can
//! be split into shards (`--shard k/n` runs the indices `i ≡ k−1 mod n`) and resumed from its
//! results file (`--resume` skips the indices already recorded there).

use crate::backends;
use crate::check::{BackendOutcome, Verdict};
use crate::executor::{self, Finished, NextIndex, Stage};
use crate::generate::{self, Filters, GeneratorConfig};
use crate::graph;
use crate::known::{self, KnownDeviation};
use crate::minimize;
use crate::results::{self, write_line, CaseRecord, ResultLine, RunEnd, RunStart};
pub use crate::summary::print_summary;
use conformance_spec::catalog::Catalog;
use conformance_spec::Backend;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a sweep runs.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// The case indices `0..N` (of which a shard runs its share).
    Cases(u64),
    /// Cases until this much wall time has passed.
    Time(Duration),
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Cases(n) => write!(f, "cases:{n}"),
            Budget::Time(t) => write!(f, "time:{}", t.as_secs_f64()),
        }
    }
}

/// Options of a sweep.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub seed: u64,
    pub budget: Budget,
    pub filters: Filters,
    /// Backend names; the first is the one the others are compared with.
    pub backends: Vec<String>,
    pub results: Option<PathBuf>,
    /// Continue the sweep recorded in `results`: skip the case indices it already holds.
    pub resume: bool,
    /// Add this run to a `results` file that already holds another run (without it, a non-empty
    /// results file is refused unless `resume` is set).
    pub append: bool,
    /// `(k, n)`: run only the case indices `i` with `i mod n == k − 1` (1 ≤ k ≤ n).
    pub shard: Option<(u64, u64)>,
    /// A case taking longer than this (all backends together) is recorded as timed out.
    pub case_timeout: Option<Duration>,
    /// Minimize each failing case into a corpus file under `corpus_dir`.
    pub minimize: bool,
    /// Where `--minimize` writes (`corpus/regressions`).
    pub corpus_dir: PathBuf,
    /// Show a progress bar (otherwise plain progress lines every few seconds).
    pub progress_bar: bool,
    pub generator: GeneratorConfig,
    /// Run only this case index of the sweep (to replay one case).
    pub only_case: Option<u64>,
    /// Worker threads (default: the number of CPUs).
    pub workers: Option<usize>,
    /// Generate multi-operation graphs (2–20 instructions) instead of single operations.
    pub graphs: bool,
}

impl RunOptions {
    /// Options for `seed` and `budget` with everything else at its default.
    pub fn new(seed: u64, budget: Budget) -> RunOptions {
        RunOptions {
            seed,
            budget,
            filters: Filters::default(),
            backends: vec!["reference".into(), "fast".into()],
            results: None,
            resume: false,
            append: false,
            shard: None,
            case_timeout: None,
            minimize: false,
            corpus_dir: PathBuf::from("corpus/regressions"),
            progress_bar: false,
            generator: GeneratorConfig::default(),
            only_case: None,
            workers: None,
            graphs: false,
        }
    }
}

/// Counts of one summary cell (row × element type × backend).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CellStats {
    pub cases: u64,
    pub pass: u64,
    pub fail: u64,
    pub error: u64,
    pub unsupported: u64,
    pub timeout: u64,
    pub masked_elements: u64,
    pub max_ulps: u64,
    /// Elements set aside because the backend flushes subnormals ([`crate::oracles::subnormals`]), and
    /// the cases they are in.
    #[serde(default)]
    pub flushed_subnormals: u64,
    #[serde(default)]
    pub flushing_cases: u64,
    /// Elements set aside as fused multiply-adds ([`crate::oracles::fused`]), and the cases
    /// they are in.
    #[serde(default)]
    pub fused_multiply_adds: u64,
    #[serde(default)]
    pub fusing_cases: u64,
    /// Failures and errors (counted in `fail` and `error`) explained by an accepted corpus
    /// deviation ([`KnownDeviation`]).
    #[serde(default)]
    pub known: u64,
    /// Of `known`, the errors (the rest are failures).
    #[serde(default)]
    pub known_errors: u64,
    /// Wall time of the backend's execute calls, microseconds.
    #[serde(default)]
    pub micros: u64,
}

/// What a sweep found.
#[derive(Debug, Default)]
pub struct RunSummary {
    pub cases: u64,
    pub elapsed: Duration,
    /// (row, dtype, backend) → stats, rows in catalog order via `row_order`.
    pub cells: BTreeMap<(String, String, String), CellStats>,
    pub row_order: Vec<String>,
    /// Records of cases that did not pass (first 50).
    pub failures: Vec<CaseRecord>,
    /// Generator or reference failures (bugs of this project), with their case coordinates.
    pub internal_errors: Vec<String>,
    /// Accepted deviations of the corpus, which explain failures ([`KnownDeviation`]).
    pub known: Vec<KnownDeviation>,
    /// (backend, class of difference or `error`) → known failures and errors of that backend.
    pub known_by_class: BTreeMap<(String, String), u64>,
}

impl RunSummary {
    /// Exit status per DESIGN.md: 0 all agree, 1 discrepancies found, 3 internal error.
    pub fn exit_code(&self) -> i32 {
        if !self.internal_errors.is_empty() {
            3
        } else if self
            .cells
            .values()
            .any(|c| c.fail > c.known - c.known_errors || c.error > c.known_errors || c.timeout > 0)
        {
            1
        } else {
            0
        }
    }
}

/// Runs a sweep on the backends named in `options`. `log` receives progress lines when no progress
/// bar is shown.
///
/// Errors: bad filters or backend names, a shard outside `1..=n`, zero cases or zero worker
/// threads, a results file that cannot be written or (with `--resume`) read, one written by a
/// different sweep, or one that already holds a run when neither `resume` nor `append` is set
/// (exit status 2).
pub fn run(
    catalog: &Catalog,
    options: &RunOptions,
    log: &mut dyn Write,
) -> Result<RunSummary, String> {
    // A worker's reply may take as long as a whole case.
    let limits = backends::process::Limits {
        request: options
            .case_timeout
            .unwrap_or(backends::process::Limits::default().request),
        ..Default::default()
    };
    let mut owned: Vec<Arc<dyn Backend>> = Vec::with_capacity(options.backends.len());
    for (k, name) in options.backends.iter().enumerate() {
        // A compiler under test that is not installed here is one line, not a sweep of errors;
        // the reference must run.
        if k > 0 {
            if let Err(e) = backends::installed(name) {
                let _ = writeln!(log, "{e}; the sweep goes on without it");
                continue;
            }
        }
        owned.push(Arc::from(backends::by_name_with(name, limits)?));
    }
    run_with_backends(catalog, options, owned, log)
}

/// [`run`] on backend objects (the reference first) instead of names: tests plant bugs this way.
/// `options.backends` is ignored; the backends' own names are recorded.
///
/// Errors: as [`run`].
pub fn run_with_backends(
    catalog: &Catalog,
    options: &RunOptions,
    backends: Vec<Arc<dyn Backend>>,
    log: &mut dyn Write,
) -> Result<RunSummary, String> {
    let combos = generate::plan_sweep(catalog, &options.filters, &options.generator)?;
    if combos.is_empty() {
        return Err("the filters select no (operation, element type) combination".to_string());
    }
    if backends.len() < 2 {
        return Err(
            "--backends needs at least two backends (the first is the reference)".to_string(),
        );
    }
    if matches!(options.budget, Budget::Cases(0)) {
        return Err("--cases: expected a positive number of cases, got 0".to_string());
    }
    if options.workers == Some(0) {
        return Err("--jobs: expected a positive number of worker threads, got 0".to_string());
    }
    let (shard_k, shard_n) = options.shard.unwrap_or((1, 1));
    if shard_n == 0 || shard_k == 0 || shard_k > shard_n {
        return Err(format!(
            "--shard {shard_k}/{shard_n}: expected K/N with 1 <= K <= N"
        ));
    }
    let names: Vec<String> = backends.iter().map(|b| b.name().to_string()).collect();
    let mut options = options.clone();
    options.backends = names.clone();
    let options = Arc::new(options);
    let start_line = RunStart {
        version: env!("CARGO_PKG_VERSION").to_string(),
        seed: options.seed,
        shard: options.shard,
        ops: options.filters.ops.clone(),
        dtypes: options.filters.dtypes.clone(),
        backends: names.clone(),
        catalog_hash: catalog.hash(),
        budget: options.budget.to_string(),
        swarm: options.generator.swarm.as_ref().map(|s| s.to_string()),
        graphs: options.graphs,
        inputs_per_module: options.generator.inputs_per_module,
        constant_operands: (options.generator.constant_operands
            != crate::generate::ConstantOperands::Off)
            .then(|| options.generator.constant_operands.name().to_string()),
        tuple_root: options.generator.tuple_root,
        started_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        resumed: false,
    };
    let (mut results, done) = open_results(&options, start_line)?;

    let mut summary = RunSummary {
        known: known::load(&options.corpus_dir),
        ..RunSummary::default()
    };
    if options.graphs {
        summary.row_order.push("graph".to_string());
    }
    for c in &combos {
        let op = &catalog.ops()[c.op_index];
        let row = match c.target_type {
            Some(t) => format!("{}->{}", op.id, t),
            None => op.id.clone(),
        };
        if !summary.row_order.contains(&row) {
            summary.row_order.push(row);
        }
    }
    let start = Instant::now();
    let bar = options.progress_bar.then(|| {
        let pb = match options.budget {
            Budget::Cases(n) => indicatif::ProgressBar::new(n.div_ceil(shard_n)),
            Budget::Time(_) => indicatif::ProgressBar::new_spinner(),
        };
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos} cases {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let next = index_source(&options, shard_k, shard_n, done, start);
    let catalog = Arc::new(catalog.clone());
    let combos = Arc::new(combos);
    let minimized = Arc::new(Mutex::new(HashMap::new()));
    let known_deviations = Arc::new(summary.known.clone());
    let job = {
        let (options, catalog, backends) = (options.clone(), catalog.clone(), backends.clone());
        Arc::new(move |index: u64, stage: &Stage| {
            let seen = Seen {
                minimized: &minimized,
                known: &known_deviations,
            };
            run_case(&catalog, &combos, &options, &backends, &seen, index, stage)
        })
    };
    let workers = options
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let mut last_line = Instant::now();
    let mut write_error = None;
    executor::execute(workers, next, job, options.case_timeout, |finished| {
        let record = match finished {
            Finished::Done { value: Ok(r), .. } => r,
            Finished::Done { value: Err(e), .. } => {
                summary.cases += 1;
                summary.internal_errors.push(e);
                return;
            }
            Finished::Panicked { index, message } => {
                summary.cases += 1;
                summary.internal_errors.push(format!(
                    "the harness panicked on case {index} (seed {}): {message}",
                    options.seed
                ));
                return;
            }
            Finished::TimedOut {
                index,
                stage,
                after,
            } => timeout_record(&catalog, &options, index, stage, after),
        };
        summary.cases += 1;
        if let Some(w) = results.as_mut() {
            if let Err(e) = write_line(w, &ResultLine::Case(record.clone())) {
                write_error.get_or_insert(e);
            }
        }
        tally(&mut summary, record);
        if let Some(pb) = &bar {
            pb.set_position(summary.cases);
            pb.set_message(failure_message(&summary));
        } else if last_line.elapsed() > Duration::from_secs(10) {
            let _ = writeln!(
                log,
                "{} cases, {:.0}s, {}",
                summary.cases,
                start.elapsed().as_secs_f64(),
                failure_message(&summary)
            );
            last_line = Instant::now();
        }
    });
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    summary.elapsed = start.elapsed();
    summary.failures.sort_by_key(|r| r.index);
    if let Some(w) = results.as_mut() {
        let end = RunEnd {
            cases: summary.cases,
            elapsed_secs: summary.elapsed.as_secs_f64(),
        };
        if let Err(e) = write_line(w, &ResultLine::RunEnd(end)) {
            write_error.get_or_insert(e);
        }
    }
    match write_error {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// Opens the results file (appending), checks a resumed file's sweep parameters, truncates a
/// killed run's partial last line, writes the run-start line, and returns the indices already done.
/// A file that already holds something is refused (before anything is written to it) unless the
/// run resumes it or appends to it deliberately.
fn open_results(
    options: &RunOptions,
    mut start_line: RunStart,
) -> Result<(Option<std::fs::File>, HashSet<u64>), String> {
    let mut done = HashSet::new();
    let Some(path) = &options.results else {
        if options.resume {
            return Err("--resume needs --results FILE.jsonl".to_string());
        }
        return Ok((None, done));
    };
    if options.resume && path.exists() {
        let text = crate::text_input::read_text(path)?;
        let lines =
            results::parse(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
        for line in &lines {
            match line {
                ResultLine::RunStart(s) => {
                    let same = s.seed == start_line.seed
                        && s.shard == start_line.shard
                        && s.ops == start_line.ops
                        && s.dtypes == start_line.dtypes
                        && s.backends == start_line.backends
                        && s.catalog_hash == start_line.catalog_hash
                        && s.swarm == start_line.swarm
                        && s.graphs == start_line.graphs
                        && s.inputs_per_module == start_line.inputs_per_module
                        && s.constant_operands == start_line.constant_operands
                        && s.tuple_root == start_line.tuple_root;
                    if !same {
                        return Err(format!(
                            "{}: --resume: the file records a different sweep (seed {}, shard {:?}, ops {:?}, dtypes {:?}, backends {:?}, catalog {}); run with the same options or another file",
                            path.display(), s.seed, s.shard, s.ops, s.dtypes, s.backends, s.catalog_hash
                        ));
                    }
                }
                ResultLine::Case(c) => {
                    done.insert(c.index);
                }
                ResultLine::RunEnd(_) => {}
            }
        }
        let keep = results::complete_prefix_len(&text) as u64;
        if keep < text.len() as u64 {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| format!("{}: cannot open results file: {e}", path.display()))?;
            f.set_len(keep)
                .map_err(|e| format!("{}: cannot truncate a partial line: {e}", path.display()))?;
        }
        start_line.resumed = true;
    } else if !options.append {
        // A second sweep in one file is allowed (a report merges them), but only when asked for:
        // a forgotten `--resume` would otherwise silently add a whole second run.
        results::refuse_non_empty(
            path,
            "pass --resume to continue that sweep, --append to add this run to the file, or give \
             another file",
        )?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: cannot open results file: {e}", path.display()))?;
    write_line(&mut file, &ResultLine::RunStart(start_line))?;
    Ok((Some(file), done))
}

/// The case indices of this run, in order: the shard's indices, minus those done, until the
/// budget is spent.
fn index_source(
    options: &RunOptions,
    shard_k: u64,
    shard_n: u64,
    done: HashSet<u64>,
    start: Instant,
) -> NextIndex {
    if let Some(i) = options.only_case {
        let mut given = false;
        return Box::new(move || {
            (!given).then(|| {
                given = true;
                i
            })
        });
    }
    let budget = options.budget;
    let mut position: u64 = 0;
    Box::new(move || loop {
        let index = position.checked_mul(shard_n)?.checked_add(shard_k - 1)?;
        match budget {
            Budget::Cases(n) if index >= n => return None,
            Budget::Time(limit) if start.elapsed() >= limit => return None,
            _ => {}
        }
        position += 1;
        if !done.contains(&index) {
            return Some(index);
        }
    })
}

/// The failures of a record, as a key: the same key is the same failure for `--minimize`
/// (operation, element type, and per failing backend its verdict and classes of difference, or
/// its error message with the numbers left out).
fn failure_key(record: &CaseRecord) -> String {
    let mut key = format!("{} {}", record.row, record.dtype);
    for o in record
        .outcomes
        .iter()
        .filter(|o| o.verdict != Verdict::Pass)
    {
        key += &format!(" | {} {:?}", o.backend, o.verdict);
        if let Some(c) = &o.comparison {
            for class in c.classes.keys() {
                key += &format!(" {class:?}");
            }
        }
        if let Some(e) = &o.error {
            let first = e.lines().next().unwrap_or_default();
            key.extend(first.chars().filter(|c| !c.is_ascii_digit()).take(200));
        }
    }
    key
}

/// What a sweep has already seen, for `--minimize`: the corpus files it wrote, by
/// [`failure_key`], and the accepted deviations of `--corpus-dir`.
struct Seen<'a> {
    minimized: &'a Mutex<HashMap<String, String>>,
    known: &'a [KnownDeviation],
}

/// Generates case `index` and checks it on every backend (then minimizes it with `--minimize`,
/// unless every failure and error of it is an accepted deviation, or an earlier case of the
/// sweep with the same [`failure_key`] was minimized: the record then names that file).
/// Errors: the generator failed or panicked (a bug of this project).
fn run_case(
    catalog: &Catalog,
    combos: &[generate::Combo],
    options: &RunOptions,
    backends: &[Arc<dyn Backend>],
    seen: &Seen<'_>,
    index: u64,
    stage: &Stage,
) -> Result<CaseRecord, String> {
    let minimized = seen.minimized;
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        generate_case(catalog, combos, options, index)
    }))
    .map_err(|_| format!("generator panicked (seed {}, case {index})", options.seed))??;
    let refs: Vec<&dyn Backend> = backends.iter().map(|b| b.as_ref()).collect();
    let (outcome, fault) = if options.graphs {
        let g = graph::check_graph(catalog, &generated.module, &generated.args, &refs, stage);
        (g.outcome, g.fault)
    } else {
        let op = catalog.op(&generated.op_id).ok_or("op vanished")?;
        graph::check_operation(
            catalog,
            op,
            &generated.module,
            &generated.args,
            &refs,
            stage,
        )
    };
    let passed = outcome.reference_error.is_none()
        && outcome
            .outcomes
            .iter()
            .all(|o| o.verdict == Verdict::Pass || o.verdict == Verdict::Unsupported);
    let mut record = CaseRecord {
        seed: generated.seed,
        index: generated.index,
        op: fault
            .as_ref()
            .map_or(generated.op_id.clone(), |f| f.op.clone()),
        row: generated.row.clone(),
        dtype: generated.element_type.to_string(),
        target: generated.target_type.map(|t| t.to_string()),
        instruction: fault.as_ref().map(|f| f.instruction.clone()),
        hlo: (!passed).then(|| generated.module.to_string()),
        replay: replay_command(options, generated.index),
        minimized: None,
        reference_micros: outcome.reference_micros,
        reference_error: outcome.reference_error,
        outcomes: outcome.outcomes,
    };
    // Failures and errors an accepted deviation explains are not minimized again.
    let all_known = record
        .outcomes
        .iter()
        .filter(|o| !matches!(o.verdict, Verdict::Pass | Verdict::Unsupported))
        .all(|o| !known::explaining(seen.known, &record.op, &record.dtype, o).is_empty());
    let nothing_new = passed || (record.reference_error.is_none() && all_known);
    let key = failure_key(&record);
    let earlier = minimized
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    if let (true, Some(path)) = (options.minimize && !nothing_new, earlier) {
        record.minimized = Some(format!("(the same failure as {path})"));
    } else if options.minimize && !nothing_new && record.reference_error.is_none() {
        let provenance = minimize::Provenance {
            seed: options.seed,
            case_index: index,
            generator: options.generator.describe(),
            command: record.replay.clone(),
        };
        // A graph is minimized from its instruction at fault (the graph truncated there), in
        // the computation it is in (a loop body, a branch) with the arguments it had there.
        let (scope, scope_args) = match fault.as_ref().and_then(|f| f.scope.as_deref()) {
            Some((m, a)) => (m, a.as_slice()),
            None => (&generated.module, generated.args.as_slice()),
        };
        let module = match &fault {
            Some(f) => {
                let entry = scope.entry_computation();
                match entry
                    .instructions
                    .iter()
                    .position(|i| i.name == f.instruction)
                {
                    Some(i) => graph::truncated(scope, i),
                    None => scope.clone(),
                }
            }
            None => generated.module.clone(),
        };
        match minimize::minimize_and_save(
            catalog,
            &module,
            scope_args,
            &refs,
            &record,
            seen.known,
            provenance,
            &options.corpus_dir,
        ) {
            Ok(path) => {
                minimized
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, path.display().to_string());
                record.minimized = Some(path.display().to_string())
            }
            Err(e) => record.minimized = Some(format!("(minimization failed: {e})")),
        }
    }
    Ok(record)
}

/// Case `index` of the sweep: a single-operation case, or a graph with `--graphs`.
///
/// Errors: the generator failed (a bug of this project).
fn generate_case(
    catalog: &Catalog,
    combos: &[generate::Combo],
    options: &RunOptions,
    index: u64,
) -> Result<generate::Case, String> {
    if options.graphs {
        let mut rng = generate::rng::Rng::for_member(
            options.seed,
            index,
            options.generator.inputs_per_module,
        );
        generate::graph::build_case(
            catalog,
            combos,
            &options.generator,
            &mut rng,
            options.seed,
            index,
        )
        .map_err(|e| e.to_string())
    } else {
        generate::case(catalog, combos, &options.generator, options.seed, index)
    }
}

/// The record of a case that ran past `--case-timeout` in `stage` (see [`check`]).
fn timeout_record(
    catalog: &Catalog,
    options: &RunOptions,
    index: u64,
    stage: usize,
    after: Duration,
) -> CaseRecord {
    let combos =
        generate::plan_sweep(catalog, &options.filters, &options.generator).unwrap_or_default();
    let generated = generate_case(catalog, &combos, options, index).ok();
    let message = format!("timed out after {:.1}s", after.as_secs_f64());
    let (op, row, dtype, target) = match &generated {
        Some(g) => (
            g.op_id.clone(),
            g.row.clone(),
            g.element_type.to_string(),
            g.target_type.map(|t| t.to_string()),
        ),
        None => ("?".into(), "?".into(), "?".into(), None),
    };
    let mut record = CaseRecord {
        seed: options.seed,
        index,
        op,
        row,
        dtype,
        target,
        instruction: None,
        hlo: generated.as_ref().map(|g| g.module.to_string()),
        replay: replay_command(options, index),
        minimized: None,
        reference_micros: 0,
        reference_error: None,
        outcomes: vec![],
    };
    match stage {
        0 => record.reference_error = Some(format!("generator {message}")),
        1 => record.reference_error = Some(format!("reference {message}")),
        s => record.outcomes.push(BackendOutcome {
            backend: options.backends.get(s - 1).cloned().unwrap_or_default(),
            verdict: Verdict::Timeout,
            comparison: None,
            error: Some(message),
            micros: after.as_micros() as u64,
        }),
    }
    record
}

fn failure_message(s: &RunSummary) -> String {
    let fails: u64 = s
        .cells
        .values()
        .map(|c| c.fail - c.known + c.error + c.timeout)
        .sum();
    let known: u64 = s.cells.values().map(|c| c.known).sum();
    if known > 0 {
        format!("{fails} disagreements (+{known} known)")
    } else {
        format!("{fails} disagreements")
    }
}

fn tally(summary: &mut RunSummary, record: CaseRecord) {
    let mut failed = false;
    if let Some(e) = &record.reference_error {
        summary.internal_errors.push(format!(
            "reference failed on {} {} (seed {}, case {}): {e}",
            record.row, record.dtype, record.seed, record.index
        ));
        failed = true;
    }
    for o in &record.outcomes {
        let explaining = known::explaining(&summary.known, &record.op, &record.dtype, o);
        let known = !explaining.is_empty();
        for k in &explaining {
            let class = k
                .class
                .map_or("error".to_string(), |c| c.name().to_string());
            *summary
                .known_by_class
                .entry((o.backend.clone(), class))
                .or_default() += 1;
        }
        let cell = summary
            .cells
            .entry((record.row.clone(), record.dtype.clone(), o.backend.clone()))
            .or_default();
        cell.cases += 1;
        cell.micros += o.micros;
        if known {
            cell.known += 1;
            cell.known_errors += u64::from(o.verdict == Verdict::Error);
        }
        match o.verdict {
            Verdict::Pass => cell.pass += 1,
            Verdict::Fail => cell.fail += 1,
            Verdict::Error => cell.error += 1,
            Verdict::Unsupported => cell.unsupported += 1,
            Verdict::Timeout => cell.timeout += 1,
        }
        if let Some(c) = &o.comparison {
            cell.max_ulps = cell.max_ulps.max(c.max_ulps);
            cell.masked_elements += c.masked as u64;
            if c.flushed_subnormals > 0 {
                cell.flushed_subnormals += c.flushed_subnormals;
                cell.flushing_cases += 1;
            }
            if c.fused_multiply_adds > 0 {
                cell.fused_multiply_adds += c.fused_multiply_adds;
                cell.fusing_cases += 1;
            }
        }
        failed |= !known && matches!(o.verdict, Verdict::Fail | Verdict::Error | Verdict::Timeout);
    }
    if failed && summary.failures.len() < 50 {
        summary.failures.push(record);
    }
}

/// The command that re-runs exactly case `index` of this sweep.
pub fn replay_command(options: &RunOptions, index: u64) -> String {
    let mut cmd = format!("conformance run --seed {}", options.seed);
    if !options.filters.ops.is_empty() {
        cmd += &format!(" --ops {}", options.filters.ops.join(","));
    }
    if !options.filters.dtypes.is_empty() {
        cmd += &format!(" --dtypes {}", options.filters.dtypes.join(","));
    }
    if options.generator.swarm.is_some() {
        cmd += " --swarm";
    }
    if options.graphs {
        cmd += " --graphs";
    }
    if options.generator.constant_operands != crate::generate::ConstantOperands::Off {
        cmd += &format!(
            " --constant-operands {}",
            options.generator.constant_operands.name()
        );
    }
    if options.generator.tuple_root {
        cmd += " --tuple-root";
    }
    cmd += &format!(
        " --inputs-per-module {}",
        options.generator.inputs_per_module
    );
    cmd += &format!(
        " --backends {} --only-case {index}",
        options.backends.join(",")
    );
    cmd
}

/// True when progress should be a bar: standard error is a terminal and this is not CI.
pub fn wants_progress_bar() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::DiffClass;
    use conformance_spec::element_type::TypeKind;

    fn failing(backend: &str, op: &str, dtype: &str, classes: &[DiffClass]) -> CaseRecord {
        CaseRecord {
            seed: 1,
            index: 0,
            op: op.into(),
            row: op.into(),
            dtype: dtype.into(),
            target: None,
            instruction: None,
            hlo: None,
            replay: String::new(),
            minimized: None,
            reference_micros: 0,
            reference_error: None,
            outcomes: vec![crate::known::tests::failing(backend, classes)],
        }
    }

    #[test]
    fn minimization_targets_the_first_disagreement_no_accepted_deviation_explains() {
        // xla's ulp is known, its nan is not; iree's failure is new too: the target is xla's
        // nan, and with xla's nan known as well, iree's exact.
        let mut record = failing("xla", "power", "c64", &[DiffClass::Ulp, DiffClass::Nan]);
        record
            .outcomes
            .push(crate::known::tests::failing("iree", &[DiffClass::Exact]));
        let known = |class| KnownDeviation {
            backend: "xla".into(),
            op: "power".into(),
            kinds: vec![TypeKind::Complex],
            class: Some(class),
            error: None,
            path: "corpus/regressions/power-c64-xla.yaml".into(),
        };
        let t = crate::minimize::new_target_of(&record, &[known(DiffClass::Ulp)]).unwrap();
        assert_eq!((t.backend, t.class), (1, Some(DiffClass::Nan)));
        let both = [known(DiffClass::Ulp), known(DiffClass::Nan)];
        let t = crate::minimize::new_target_of(&record, &both).unwrap();
        assert_eq!((t.backend, t.class), (2, Some(DiffClass::Exact)));
        // Nothing known: the first disagreement's first class.
        let t = crate::minimize::new_target_of(&record, &[]).unwrap();
        assert_eq!((t.backend, t.class), (1, Some(DiffClass::Ulp)));
        // Everything known: the first disagreement, as `target_of` gives it.
        let mut all = both.to_vec();
        all.push(KnownDeviation {
            backend: "iree".into(),
            class: Some(DiffClass::Exact),
            ..known(DiffClass::Exact)
        });
        let t = crate::minimize::new_target_of(&record, &all).unwrap();
        assert_eq!((t.backend, t.class), (1, Some(DiffClass::Ulp)));
    }

    #[test]
    fn failures_matching_an_accepted_deviation_are_known_and_exit_zero() {
        let mut summary = RunSummary {
            known: vec![KnownDeviation {
                backend: "xla".into(),
                op: "power".into(),
                kinds: vec![TypeKind::SignedInteger],
                class: Some(DiffClass::Exact),
                error: None,
                path: "corpus/regressions/power-xla-s8.yaml".into(),
            }],
            ..RunSummary::default()
        };
        // Same backend, operation, kind (s64 against a recorded s8) and class: known.
        tally(
            &mut summary,
            failing("xla", "power", "s64", &[DiffClass::Exact]),
        );
        assert_eq!(summary.exit_code(), 0);
        assert!(summary.failures.is_empty());
        // An extra class (the matching rules are tested in `known`): a new discrepancy.
        let mut s = RunSummary {
            known: summary.known.clone(),
            ..RunSummary::default()
        };
        tally(
            &mut s,
            failing("xla", "power", "s64", &[DiffClass::Exact, DiffClass::Nan]),
        );
        assert_eq!(s.exit_code(), 1);
        assert_eq!(s.failures.len(), 1);
        assert_eq!(s.cells.values().map(|c| c.known).sum::<u64>(), 0);
    }

    #[test]
    fn a_known_error_next_to_a_new_failure_still_exits_one() {
        // One error explained by an accepted deviation and one unexplained failure in the same
        // cell: `known` is 1, `fail` is 1, so the failure is new and the sweep exits 1; the
        // known error alone exits 0.
        let known = vec![KnownDeviation {
            backend: "iree".into(),
            op: "tanh".into(),
            kinds: vec![TypeKind::Float],
            class: None,
            error: Some("undefined symbol: tanh".into()),
            path: "corpus/regressions/tanh-f64-iree-f64-no-libm-tanh.yaml".into(),
        }];
        let mut erring = failing("iree", "tanh", "f64", &[]);
        erring.outcomes[0].verdict = Verdict::Error;
        erring.outcomes[0].comparison = None;
        erring.outcomes[0].error = Some("iree-compile: undefined symbol: tanh".into());
        let mut only_known = RunSummary {
            known: known.clone(),
            ..RunSummary::default()
        };
        tally(&mut only_known, erring.clone());
        assert_eq!(only_known.exit_code(), 0);
        let mut s = RunSummary {
            known,
            ..RunSummary::default()
        };
        tally(&mut s, erring);
        tally(&mut s, failing("iree", "tanh", "f64", &[DiffClass::Ulp]));
        let cell = s.cells.values().next().unwrap();
        assert_eq!(
            (cell.fail, cell.error, cell.known, cell.known_errors),
            (1, 1, 1, 1)
        );
        assert_eq!(s.exit_code(), 1);
    }
}
