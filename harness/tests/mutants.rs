//! The test command of mutation testing (`.cargo/mutants.toml`, `scripts/mutants`, docs/mutants.md):
//! differential sweeps of the reference against fast, one per op family of the catalog, with fixed
//! seeds and case budgets — what `conformance run` does, nothing of fast's own unit tests.
//!
//! cargo-mutants changes one place of `fast/src/` at a time and runs this binary. A sweep that
//! finds a disagreement (or an error, a timeout, a panic) catches the mutant; a mutant no sweep
//! catches is a hole in the harness's generators, or an equivalent change (docs/mutants.md).
//!
//! Each family is swept two ways: the default generator and swarm configurations (a random subset
//! of shapes, layouts and value classes per sweep, seed 004's corners more often); multi-operation
//! graphs of every op that chains are one more sweep. Budgets are cases, not seconds, so a run is reproducible. On the
//! unmutated tree every sweep passes (that is the baseline cargo-mutants checks first).
//!
//! Run: `cargo test -p conformance --test mutants` (about a minute on 2 cores), or one family with
//! `-- elementwise`.

use conformance::generate::{plan, SwarmConfig};
use conformance::run::{run, Budget, RunOptions};
use conformance_spec::catalog::Catalog;

/// Sweeps the ops of `family` (a catalog file stem) with `cases` cases per way, panicking with the
/// sweep's report if any case does not pass.
fn sweep_family(family: &str, cases: u64) {
    let catalog = Catalog::builtin().unwrap();
    let ops = family_ops(&catalog, family);
    // Swarm sweeps: four configurations (one per seed), a quarter of the budget each.
    let ways = [
        ("plain", 1, cases),
        ("swarm", 11, cases / 4),
        ("swarm", 12, cases / 4),
        ("swarm", 13, cases / 4),
        ("swarm", 14, cases / 4),
    ];
    for (way, seed, cases) in ways {
        let mut o = options(seed, cases);
        o.filters.ops = ops.clone();
        if way == "swarm" {
            let combos = plan(&catalog, &o.filters).unwrap();
            let swarm = SwarmConfig::from_seed(seed, &catalog, &combos);
            o.generator = swarm.apply(&o.generator);
        }
        sweep(&catalog, &o, &format!("{family} ({way}, seed {seed})"));
    }
}

/// The ops of catalog family `family` (a catalog file stem); panics when there is none.
fn family_ops(catalog: &Catalog, family: &str) -> Vec<String> {
    let ops: Vec<String> = catalog
        .ops()
        .iter()
        .filter(|op| catalog.family_of(&op.id) == Some(family))
        .map(|op| op.id.clone())
        .collect();
    assert!(!ops.is_empty(), "no op in family {family}");
    ops
}

/// Options of one sweep: reference against fast, one worker thread (the test harness runs the
/// families in parallel).
fn options(seed: u64, cases: u64) -> RunOptions {
    let mut o = RunOptions::new(seed, Budget::Cases(cases));
    o.workers = Some(1);
    o
}

/// Runs a sweep and panics with its report unless every case passes. A case fast (or a variant)
/// answers "unsupported" fails too: fast implements every op and element type of the catalog, so
/// an op it suddenly refuses (a dispatch that no longer reaches its family) is a bug the sweep
/// must not count as a skipped case.
fn sweep(catalog: &Catalog, o: &RunOptions, what: &str) {
    let mut report = Vec::new();
    let summary = run(catalog, o, &mut report).unwrap();
    let refused: Vec<String> = summary
        .cells
        .iter()
        .filter(|((_, _, backend), c)| backend.starts_with("fast") && c.unsupported > 0)
        .map(|((op, ty, backend), c)| {
            format!("{op} {ty} on {backend}: {} unsupported", c.unsupported)
        })
        .collect();
    assert!(
        refused.is_empty(),
        "{what}: fast refused cases it implements\n{}",
        refused.join("\n")
    );
    assert_eq!(
        summary.exit_code(),
        0,
        "{what}: the sweep found a disagreement\n{}\n{}\n{:#?}",
        summary.internal_errors.join("\n"),
        String::from_utf8_lossy(&report),
        summary.failures.iter().take(3).collect::<Vec<_>>()
    );
}

/// f32 convolutions on their own: the element type frameworks use most, where backends keep their
/// fast paths (fast's NCHW kernel among them), which the family's sweep over every type reaches a
/// few times only.
#[test]
fn convolution_f32() {
    let catalog = Catalog::builtin().unwrap();
    let mut o = options(4, 400);
    o.filters.ops = vec!["convolution".into()];
    o.filters.dtypes = vec!["f32".into()];
    sweep(&catalog, &o, "convolution f32 (seed 4)");
}

/// The element types fast has native paths for (f32, f64) on their own, per family: a family's
/// sweep over every element type reaches each (op, f32) pair a few times only, and a specialized
/// arm (scatter's f32 add combiner, say) needs more than that.
fn sweep_native_floats(family: &str, cases: u64) {
    let catalog = Catalog::builtin().unwrap();
    let mut o = options(21, cases);
    o.filters.ops = family_ops(&catalog, family);
    o.filters.dtypes = vec!["f32".into(), "f64".into()];
    sweep(&catalog, &o, &format!("{family} in f32 and f64 (seed 21)"));
}

#[test]
fn native_floats() {
    sweep_native_floats("data_movement", 600);
    sweep_native_floats("contractions", 400);
    sweep_native_floats("elementwise", 400);
}

/// Fast's variants against the reference: its SIMD kernels restricted to each instruction set this
/// CPU has below its best (`fast-scalar`, `fast-avx2`: the paths other CPUs run, and the scalar
/// fallbacks), and every parallel path on tiny tasks (`fast-split`: task boundaries inside every
/// array). The families with SIMD kernels or parallel splits.
#[test]
fn isa_and_split_variants() {
    let catalog = Catalog::builtin().unwrap();
    let mut backends = vec![
        "reference".to_string(),
        "fast-scalar".into(),
        "fast-split".into(),
    ];
    if conformance_fast::kernels::Isa::Avx2Fma.is_available() {
        backends.push("fast-avx2".into());
    }
    for (family, cases) in [
        ("elementwise", 500),
        ("data_movement", 400),
        ("contractions", 300),
        ("linalg", 100),
        ("lapack", 60),
        ("random", 100),
    ] {
        let mut o = options(31, cases);
        o.filters.ops = family_ops(&catalog, family);
        o.backends = backends.clone();
        sweep(
            &catalog,
            &o,
            &format!("{family} on fast's variants (seed 31)"),
        );
    }
}

/// f32 transposes and layout-changing copies of matrices large enough for several of fast's
/// 32 × 32 transpose tiles (the AVX kernel) per block, which the default size cap (400
/// elements) never reaches.
#[test]
fn large_f32_transposes() {
    let catalog = Catalog::builtin().unwrap();
    let mut o = options(41, 80);
    o.filters.ops = vec!["transpose".into(), "copy".into()];
    o.filters.dtypes = vec!["f32".into()];
    o.generator.shapes.max_elements = 12_000;
    o.generator.shapes.max_dimension = 130;
    o.generator.shapes.max_rank = 2;
    sweep(&catalog, &o, "large f32 transposes (seed 41)");
}

/// Complex element-wise ops on special, extreme and small values only: zeros of both signs,
/// components near overflow and underflow (fast's scaled products and quotients), which a sweep
/// over every value class reaches in one or two components of a case at most. (Infinite and NaN
/// components are implementation-defined for complex operands and masked: docs/mutants.md.)
#[test]
fn complex_corners() {
    use conformance::generate::values::ValueClass;
    let catalog = Catalog::builtin().unwrap();
    let mut o = options(51, 400);
    o.filters.ops = family_ops(&catalog, "elementwise");
    o.filters.dtypes = vec!["c64".into(), "c128".into()];
    o.generator.values = vec![ValueClass::Special, ValueClass::Extreme, ValueClass::Small];
    sweep(&catalog, &o, "complex corners (seed 51)");
}

#[test]
fn graphs() {
    let catalog = Catalog::builtin().unwrap();
    let mut o = options(3, 600);
    o.graphs = true;
    sweep(&catalog, &o, "graphs of every op that chains (seed 3)");
}

#[test]
fn elementwise() {
    sweep_family("elementwise", 1500);
}

/// The CHLO special functions one at a time, in f32 and f64: each is a polynomial or rational
/// approximation per interval with reflection and asymptotic branches, which the family's sweep
/// (sixteen functions, every element type, 300 cases) draws a few times each at most. 80 cases
/// per function reach every interval of its argument a few times (the generator's normal class
/// draws moderate exponents most of the time).
#[test]
fn chlo_per_function() {
    let catalog = Catalog::builtin().unwrap();
    for op in family_ops(&catalog, "chlo") {
        let mut o = options(31, 80);
        o.filters.ops = vec![op.clone()];
        o.filters.dtypes = vec!["f32".into(), "f64".into()];
        sweep(&catalog, &o, &format!("{op} in f32 and f64 (seed 31)"));
    }
}

/// Polygamma and zeta on their thresholds alone (orders, break points, the high orders with
/// arguments a little above them where the Euler–Maclaurin tail carries weight): the general
/// value classes draw an integer order above 8 next to such an argument too rarely.
#[test]
fn chlo_thresholds() {
    use conformance::generate::values::ValueClass;
    let catalog = Catalog::builtin().unwrap();
    let mut o = options(37, 100);
    o.filters.ops = vec!["polygamma".into(), "zeta".into()];
    o.filters.dtypes = vec!["f32".into(), "f64".into()];
    o.generator.values = vec![ValueClass::Threshold];
    sweep(
        &catalog,
        &o,
        "polygamma and zeta on their thresholds (seed 37)",
    );
}

#[test]
fn chlo() {
    sweep_family("chlo", 300);
}

#[test]
fn data_movement() {
    sweep_family("data_movement", 800);
}

#[test]
fn contractions() {
    sweep_family("contractions", 600);
}

#[test]
fn control_flow() {
    sweep_family("control_flow", 300);
}

#[test]
fn linalg() {
    sweep_family("linalg", 200);
}

#[test]
fn lapack() {
    sweep_family("lapack", 100);
}

#[test]
fn random() {
    sweep_family("random", 200);
}

#[test]
fn collective() {
    sweep_family("collective", 200);
}
