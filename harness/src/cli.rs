//! Command-line interface: `conformance run | replay | minimize | report | spec | check | nnef`.
//!
//! Exit status (DESIGN.md): 0 all agree, 1 discrepancies found, 2 bad input or usage,
//! 3 internal error.

use crate::generate::{Filters, GeneratorConfig, SwarmConfig};
use crate::run::{self, Budget, RunOptions};
use clap::{Parser, Subcommand};
use conformance_spec::catalog::Catalog;
use std::path::PathBuf;
use std::time::Duration;

/// Tells tensor-compiler authors where their backend disagrees with XLA's operation semantics.
#[derive(Parser, Debug)]
#[command(name = "conformance", version, about)]
pub struct Cli {
    /// Catalog directory to use instead of the built-in catalog (spec/ops).
    #[arg(long, global = true, value_name = "DIR")]
    pub catalog: Option<PathBuf>,
    /// Register a backend run as a worker process (docs/protocol.md), usable by NAME in
    /// --backends / --backend, e.g. `--worker mine='./my_worker --threads 4'` (repeatable).
    #[arg(long, global = true, value_name = "NAME=COMMAND", value_parser = crate::backends::parse_worker)]
    pub worker: Vec<(String, Vec<String>)>,
    /// Trips of one `while` loop the backends built here run before giving up with a `no exit`
    /// verdict (seed 004, While: nothing bounds a loop).
    #[arg(long, global = true, value_name = "N", default_value_t = conformance_spec::backend::DEFAULT_MAX_WHILE_ITERATIONS)]
    pub max_iterations: u64,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate cases from the catalog and compare backends with the reference.
    Run(RunArgs),
    /// Replay a corpus file, or run an HLO text file (a JAX dump, say) with generated inputs,
    /// and print the per-element differences.
    Replay(ReplayArgs),
    /// Run one backend on a program (the reference by default: its exact, correctly rounded
    /// results) and print or write its outputs.
    Eval(EvalArgs),
    /// Minimize the first disagreement of a program (a corpus, HLO or StableHLO file, a program
    /// or XLA dump folder), on its inputs or the given ones, and write it to the corpus.
    Minimize(MinimizeArgs),
    /// Build a self-contained HTML pass matrix from results files.
    Report(ReportArgs),
    /// List the catalog's operations, or show one entry.
    Spec {
        /// A catalog id (e.g. `exponential`, `compare-LT`).
        id: Option<String>,
    },
    /// NNEF documents: check (parse, validate, shapes), lower to HLO, run on backends.
    Nnef {
        #[command(subcommand)]
        command: crate::nnef_cmd::NnefCommand,
    },
    /// Time the same HLO cases (dot, convolution, element-wise, reduce, transpose, gather) on
    /// several backends and print the ratio of the first backend's time to the last's.
    Bench(BenchArgs),
    /// Validate input files: HLO text (`.hlo`, `.txt`: parsed, then verified — shapes, element
    /// types, called computations — each error at its file:line:col), StableHLO MLIR (`.mlir`:
    /// read into the same IR, then verified the same way) or catalog YAML (`.yaml`).
    /// Exit 2 when any file is invalid.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Catalog ids or patterns (`*` wildcard), comma-separated; default: every operation.
    #[arg(long, value_delimiter = ',')]
    pub ops: Vec<String>,
    /// Element types or classes (f32, bf16, s8, pred, float, integer, complex, f8, all), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub dtypes: Vec<String>,
    /// Sweep seed: a case is a pure function of (seed, case index, catalog, generator config).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of cases, at least 1 (default: ten rounds over every selected (operation, element
    /// type) combination).
    #[arg(long, conflicts_with = "time")]
    pub cases: Option<u64>,
    /// Run for this many seconds instead of a number of cases.
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f64>,
    /// Backends, comma-separated; the first is the one the others are compared with.
    #[arg(long, value_delimiter = ',', default_value = "reference,fast")]
    pub backends: Vec<String>,
    /// Backends to compare with the exact reference (comma-separated or repeated): `--backend
    /// xla` is `--backends reference,xla`, `--backend fast,xla` is `--backends reference,fast,xla`.
    #[arg(long, value_delimiter = ',', conflicts_with = "backends")]
    pub backend: Vec<String>,
    /// Write one JSON line per case to this file (flushed per case). A file that already holds
    /// a run is refused unless --resume or --append says what to do with it.
    #[arg(long, value_name = "FILE.jsonl")]
    pub results: Option<PathBuf>,
    /// Run only this case index of the sweep (replays one case).
    #[arg(long, value_name = "N")]
    pub only_case: Option<u64>,
    /// Never show a progress bar.
    #[arg(long)]
    pub no_progress: bool,
    /// Run only shard K of N: the case indices i with i mod N = K-1 (the N shards together are
    /// exactly the unsharded sweep).
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Continue the sweep recorded in --results, skipping the cases it already holds.
    #[arg(long, requires = "results")]
    pub resume: bool,
    /// Add this run to a --results file that already holds another one (`conformance report`
    /// merges them), instead of refusing to write into a non-empty file.
    #[arg(long, requires = "results", conflicts_with = "resume")]
    pub append: bool,
    /// Record a case as timed out when its backends take longer than this (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub case_timeout: f64,
    /// Minimize each failing case and write it to the corpus directory.
    #[arg(long)]
    pub minimize: bool,
    /// Where --minimize writes corpus files.
    #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
    pub corpus_dir: PathBuf,
    /// Swarm testing: enable a random subset (drawn from the seed) of the selected operations,
    /// element types, layout features and value classes.
    #[arg(long)]
    pub swarm: bool,
    /// Worker threads, at least 1 (default: the number of CPUs).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Generate multi-operation graphs (2-20 element-wise instructions, random layouts between
    /// them) instead of single operations; a disagreement is localized to its instruction.
    #[arg(long)]
    pub graphs: bool,
    /// Consecutive cases that share one module and differ only in their inputs, so a compiler
    /// under test compiles once per group (its worker caches modules by text). Default: 8 when
    /// a backend runs in a worker process (xla, iree, ...), else 1.
    #[arg(long, value_name = "K")]
    pub inputs_per_module: Option<u64>,
    /// Pass operands as `constant` instructions in the module instead of parameters: `some`
    /// (a random non-empty subset per case) or `all`, so that a compiler also evaluates each
    /// operation through its constant folder (XLA's folds with its HloEvaluator, not its CPU
    /// kernels). `--swarm` turns `some` on in some sweeps.
    #[arg(long, value_enum, value_name = "MODE", default_value = "off")]
    pub constant_operands: crate::generate::ConstantOperands,
    /// Wrap every case's entry root in a one-element tuple, as JAX's entry computations return
    /// their results (`ROOT tuple = (f32[..]) tuple(x)`); failures are localized and minimized
    /// through the tuple. `--swarm` turns it on in some sweeps.
    #[arg(long)]
    pub tuple_root: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Backends, comma-separated; the ratio is the first's time over the last's.
    #[arg(long, value_delimiter = ',', default_value = "fast,xla")]
    pub backends: Vec<String>,
    /// Cases, comma-separated (default: all; see `conformance bench --list`).
    #[arg(long, value_delimiter = ',')]
    pub cases: Vec<String>,
    /// List the cases and exit.
    #[arg(long)]
    pub list: bool,
    /// Timed runs per case and backend, at least (after one warm-up run).
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// Keep repeating until this many seconds have passed per case and backend.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub min_time: f64,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A corpus YAML file, an HLO text file, a StableHLO file (`.mlir`, as `jax.jit(f).lower(x)
    /// .as_text()` prints it), a program folder (module.hlo with inputs.npz) or an XLA dump
    /// folder (`--xla_dump_to`).
    pub file: PathBuf,
    /// Backends, comma-separated; the first is the one the others are compared with.
    #[arg(long, value_delimiter = ',', default_value = "reference,fast")]
    pub backends: Vec<String>,
    /// Seed for the inputs of an HLO file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Accepted deviations: a failure that an accepted corpus file of DIR records (same backend,
    /// operation, kind of element type and class) is reported as known and does not fail.
    #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
    pub corpus_dir: PathBuf,
    /// The program's arguments: one .npz archive (arrays `arg0`, `arg1`, ... or named after the
    /// parameters) or one .npy file per parameter, in order (comma-separated or repeated);
    /// bf16 and f8 arrays as ml_dtypes saves them (raw `V2`/`V1`), bit-exact.
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    pub inputs: Vec<PathBuf>,
    /// Write every backend's results to this .npz archive, as `<backend>.out0`, `<backend>.out1`,
    /// ... (the root's arrays, depth first).
    #[arg(long, value_name = "FILE.npz")]
    pub outputs: Option<PathBuf>,
    /// Write the verdicts as a results file (the format of `run --results`; `conformance report`
    /// renders it): one case per checked value (each leaf of a tuple root), of every module of an
    /// XLA dump folder. A file that already holds something is refused (nothing is written).
    #[arg(long, value_name = "FILE.jsonl")]
    pub results: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// A program: an HLO text file, a corpus YAML file or a program folder (module.hlo with
    /// inputs.npz).
    pub file: PathBuf,
    /// The backend to run (`reference` gives every float result correctly rounded).
    #[arg(long, default_value = "reference")]
    pub backend: String,
    /// The program's arguments, as for `replay --inputs` (default: the file's own, the folder's
    /// inputs.npz, or generated from --seed).
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    pub inputs: Vec<PathBuf>,
    /// Write the results to this .npz archive as `out0`, `out1`, ... (the root's arrays, depth
    /// first).
    #[arg(long, value_name = "FILE.npz")]
    pub outputs: Option<PathBuf>,
    /// Print every result in full (HLO literal syntax), not only its shape.
    #[arg(long)]
    pub print: bool,
    /// Seed for generated inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct MinimizeArgs {
    /// A corpus YAML file, an HLO text file, a StableHLO file (`.mlir`), a program folder
    /// (module.hlo with inputs.npz) or an XLA dump folder (`--xla_dump_to`: its first module
    /// that disagrees).
    pub file: PathBuf,
    /// Backends, comma-separated; the first is the one the others are compared with.
    #[arg(long, value_delimiter = ',', default_value = "reference,fast")]
    pub backends: Vec<String>,
    /// Seed for the inputs of an HLO file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The program's arguments, as for `replay --inputs`: one .npz archive or one .npy file per
    /// parameter (default: the file's own, the folder's inputs.npz, or generated from --seed).
    /// The corpus file's provenance names them.
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    pub inputs: Vec<PathBuf>,
    /// Where the minimized corpus file is written.
    #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
    pub corpus_dir: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Results files of `conformance run --results` (several shards merge). An empty file, or a
    /// truncated last line (a run killed while writing it: skipped), is warned about on stderr,
    /// naming the file and line.
    #[arg(required = true)]
    pub results: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long, default_value = "reports/out/index.html")]
    pub output: PathBuf,
    /// Corpus whose accepted deviations (`accepted: true`) mark the failures they explain as
    /// known (the directory `run` reads them from).
    #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
    pub corpus_dir: PathBuf,
}

/// Parses `K/N` with 1 <= K <= N.
fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("expected K/N (e.g. 2/8), got `{text}`"))?;
    let k: u64 = k
        .trim()
        .parse()
        .map_err(|_| format!("expected K/N with integers, got `{text}`"))?;
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| format!("expected K/N with integers, got `{text}`"))?;
    if k == 0 || n == 0 || k > n {
        return Err(format!("expected K/N with 1 <= K <= N, got `{text}`"));
    }
    Ok((k, n))
}

/// Without `--cases` or `--time`, a sweep visits every selected combination this many times.
pub const DEFAULT_ROUNDS: u64 = 10;

/// Runs the CLI and returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err((code, msg)) => {
            eprintln!("error: {msg}");
            code
        }
    }
}

fn load_catalog(dir: &Option<PathBuf>) -> Result<Catalog, (i32, String)> {
    match dir {
        Some(d) => Catalog::load_dir(d).map_err(|e| (2, e.to_string())),
        None => Catalog::builtin().map_err(|e| (3, format!("built-in catalog: {e}"))),
    }
}

fn dispatch(cli: Cli) -> Result<i32, (i32, String)> {
    conformance_spec::backend::set_max_while_iterations(cli.max_iterations);
    // fast reads its instruction-set cap once and ignores a value it does not know: say so here.
    if let Ok(v) = std::env::var(conformance_fast::kernels::ISA_ENV) {
        conformance_fast::kernels::Isa::parse(&v)
            .map_err(|e| (2, format!("{}: {e}", conformance_fast::kernels::ISA_ENV)))?;
    }
    for (name, command) in cli.worker {
        crate::backends::register_worker(name, command);
    }
    match cli.command {
        Command::Run(args) => {
            if args.cases == Some(0) {
                return Err((
                    2,
                    "--cases: expected a positive number of cases, got 0".to_string(),
                ));
            }
            if args.jobs == Some(0) {
                return Err((
                    2,
                    "--jobs: expected a positive number of worker threads, got 0".to_string(),
                ));
            }
            let catalog = load_catalog(&cli.catalog)?;
            let filters = Filters {
                ops: args.ops,
                dtypes: args.dtypes,
            };
            let mut generator = GeneratorConfig {
                constant_operands: args.constant_operands,
                tuple_root: args.tuple_root,
                ..GeneratorConfig::default()
            };
            if args.swarm {
                let combos = crate::generate::plan(&catalog, &filters).map_err(|e| (2, e))?;
                let swarm = SwarmConfig::from_seed(args.seed, &catalog, &combos);
                generator = swarm.apply(&generator);
            }
            let combos =
                crate::generate::plan_sweep(&catalog, &filters, &generator).map_err(|e| (2, e))?;
            if !(args.case_timeout.is_finite() && args.case_timeout > 0.0) {
                return Err((
                    2,
                    format!(
                        "--case-timeout: expected a positive number of seconds, got {}",
                        args.case_timeout
                    ),
                ));
            }
            let budget = match (args.cases, args.time) {
                (Some(n), _) => Budget::Cases(n),
                (None, Some(t)) if t.is_finite() && t > 0.0 => {
                    Budget::Time(Duration::from_secs_f64(t))
                }
                (None, Some(t)) => {
                    return Err((
                        2,
                        format!("--time: expected a positive number of seconds, got {t}"),
                    ))
                }
                (None, None) => Budget::Cases(DEFAULT_ROUNDS * combos.len() as u64),
            };
            let backends: Vec<String> = if args.backend.is_empty() {
                args.backends
            } else {
                std::iter::once("reference".to_string())
                    .chain(args.backend)
                    .collect()
            };
            generator.inputs_per_module = match args.inputs_per_module {
                Some(0) => {
                    return Err((
                        2,
                        "--inputs-per-module: expected at least 1, got 0".to_string(),
                    ))
                }
                Some(k) => k,
                None if backends.iter().any(|b| crate::backends::compiles(b)) => {
                    crate::backends::DEFAULT_INPUTS_PER_MODULE
                }
                None => 1,
            };
            let options = RunOptions {
                seed: args.seed,
                budget,
                filters,
                backends,
                results: args.results,
                resume: args.resume,
                append: args.append,
                shard: args.shard,
                case_timeout: Some(Duration::from_secs_f64(args.case_timeout)),
                minimize: args.minimize,
                corpus_dir: args.corpus_dir,
                progress_bar: !args.no_progress && run::wants_progress_bar(),
                generator,
                only_case: args.only_case,
                workers: args.jobs,
                graphs: args.graphs,
            };
            if let Some(s) = &options.generator.swarm {
                eprintln!("swarm: {s}");
            }
            let mut stderr = std::io::stderr();
            let summary = run::run(&catalog, &options, &mut stderr).map_err(|e| (2, e))?;
            let mut stdout = std::io::stdout();
            run::print_summary(&summary, &options, &mut stdout).map_err(|e| (3, e.to_string()))?;
            Ok(summary.exit_code())
        }
        Command::Bench(args) => {
            if args.list {
                for c in crate::bench::CASES {
                    println!("{c}");
                }
                return Ok(0);
            }
            if !(args.min_time.is_finite() && args.min_time >= 0.0) {
                return Err((
                    2,
                    format!(
                        "--min-time: expected a number of seconds >= 0, got {}",
                        args.min_time
                    ),
                ));
            }
            crate::bench::bench_command(
                &args.backends,
                &args.cases,
                args.repeat,
                Duration::from_secs_f64(args.min_time),
                &mut std::io::stdout(),
            )
        }
        Command::Replay(args) => {
            let catalog = load_catalog(&cli.catalog)?;
            let known = crate::known::load(&args.corpus_dir);
            crate::replay::replay_command(&catalog, &args, &known)
        }
        Command::Eval(args) => {
            let catalog = load_catalog(&cli.catalog)?;
            crate::eval::eval_command(&catalog, &args)
        }
        Command::Minimize(args) => {
            let catalog = load_catalog(&cli.catalog)?;
            crate::replay::minimize_command(&catalog, &args)
        }
        Command::Report(args) => {
            let known = crate::known::load(&args.corpus_dir);
            let stats = crate::report::write_report(&args.results, &args.output, &known)
                .map_err(|e| (2, e.to_string()))?;
            for w in &stats.warnings {
                eprintln!("warning: {w}");
            }
            println!(
                "{}: {} bytes, {} cases, {} backend pair(s), {} failing cell(s), {} known failure(s)",
                stats.output.display(),
                stats.bytes,
                stats.cases,
                stats.pairs,
                stats.failing_cells,
                stats.known
            );
            Ok(0)
        }
        Command::Spec { id } => {
            let catalog = load_catalog(&cli.catalog)?;
            // Output to a closed pipe (`conformance spec | head`) ends quietly rather than panicking.
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            macro_rules! println {
                ($($arg:tt)*) => {
                    if writeln!(out, $($arg)*).is_err() {
                        return Ok(0);
                    }
                };
            }
            match id {
                None => {
                    for op in catalog.ops() {
                        println!(
                            "{:28} {:10} {}",
                            op.id,
                            catalog.family_of(&op.id).unwrap_or(""),
                            op.summary
                        );
                    }
                    Ok(0)
                }
                Some(id) => {
                    let op = catalog.op(&id).ok_or_else(|| {
                        (
                            2,
                            format!("no catalog entry `{id}` (see `conformance spec`)"),
                        )
                    })?;
                    let types: Vec<String> = catalog
                        .element_types(op)
                        .iter()
                        .map(|t| t.to_string())
                        .collect();
                    println!(
                        "{} ({}; XlaBuilder {})\n  {}\n  source: {}\n  element types: {}",
                        op.id,
                        op.opcode,
                        op.builder,
                        op.summary,
                        op.source,
                        types.join(", ")
                    );
                    for s in &op.special_values {
                        println!("  special: ({}) = {}", s.inputs.join(", "), s.output);
                    }
                    for m in &op.implementation_defined {
                        println!("  implementation-defined [{}]: {}", m.mask, m.description);
                    }
                    println!("  tolerance (ULPs): {:?}", op.tolerance.ulp);
                    println!("  examples: {}", op.examples.len());
                    Ok(0)
                }
            }
        }
        Command::Nnef { command } => {
            let catalog = load_catalog(&cli.catalog)?;
            crate::nnef_cmd::nnef_command(&catalog, command)
        }
        Command::Check { files } => {
            let mut bad = 0;
            for f in &files {
                match crate::validate::check_file(f) {
                    Ok(()) => println!("{}: ok", f.display()),
                    Err(e) => {
                        eprintln!("{e}");
                        bad += 1;
                    }
                }
            }
            Ok(if bad > 0 { 2 } else { 0 })
        }
    }
}
