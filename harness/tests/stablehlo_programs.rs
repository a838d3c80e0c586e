//! Every real JAX program of `corpus/programs/` read from its StableHLO text
//! (`module.stablehlo.mlir`, what `jax.jit(f).lower(x).as_text()` prints) with
//! `conformance_spec::hlo::parse_stablehlo` computes, on the exact reference and on the fast
//! backend, with the program's own inputs (`inputs.npz`), the same results bit for bit as the
//! same program read from its HLO dump (`module.hlo`) — and so does the HLO printed by this
//! crate as StableHLO and read back.
//!
//! And the round trip IR → StableHLO text (the printer's generic form) → IR keeps the meaning:
//! generated modules of every catalog operation and element type, and multi-operation graphs,
//! read back from their printed text, compute the same results: bit for bit on the reference;
//! on the fast backend up to which non-finite value an overflowing element gets (any NaN for a
//! NaN; for complex, any non-finite value for one with an infinite or NaN part), or else the
//! same results as the exact reference. (The parsed module's arrays are row-major where the
//! generated ones have random layouts, and fast's kernels, hence its summation order and which
//! infinity or NaN an overflow leaves, follow the layout; NaN payloads are unspecified.)

use conformance::generate::{self, Filters, GeneratorConfig};
use conformance::npz::read_arguments;
use conformance_spec::catalog::Catalog;
use conformance_spec::element_type::FloatClass;
use conformance_spec::hlo::stablehlo::print_stablehlo;
use conformance_spec::hlo::{parse_module, parse_stablehlo, HloModule};
use conformance_spec::literal::{complex_parts, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::Backend;
use std::path::{Path, PathBuf};

/// The program folders: `corpus/programs/*`, or those of the folder named by the environment
/// variable `STABLEHLO_PROGRAMS` (to check other dumps the same way).
fn programs() -> Vec<PathBuf> {
    let dir = std::env::var_os("STABLEHLO_PROGRAMS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/programs"));
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.stablehlo.mlir").exists() && p.join("module.hlo").exists())
        .collect();
    out.sort();
    out
}

/// The array leaves of a result, depth-first (a single array is one leaf).
fn leaves(l: &Literal) -> Vec<&Literal> {
    match l {
        Literal::Tuple(t) => t.iter().flat_map(leaves).collect(),
        other => vec![other],
    }
}

/// Runs `module` on `backend` with the program's inputs.
fn run(backend: &dyn Backend, module: &HloModule, dir: &Path) -> Result<Literal, String> {
    // Each device's arguments in turn for a program of several devices (collectives_pmap).
    let shapes = conformance_spec::collective::argument_shapes(module);
    let args = read_arguments(&dir.join("inputs.npz"), &shapes, &[])?;
    backend
        .execute(module, &args)
        .map_err(|e| format!("{}: {e}", backend.name()))
}

/// XLA's outputs (`outputs.npz`, `out0`, `out1`, ...) shaped as the leaves of `like`.
fn xla_outputs(like: &Literal, dir: &Path) -> Option<Literal> {
    let shapes: Vec<_> = leaves(like)
        .iter()
        .map(|l| l.as_array().map(|a| Shape::Array(a.shape().clone())))
        .collect::<Option<_>>()?;
    let names: Vec<String> = (0..shapes.len()).map(|k| format!("out{k}")).collect();
    let outs = read_arguments(&dir.join("outputs.npz"), &shapes, &names).ok()?;
    Some(Literal::Tuple(outs))
}

/// Why the two modules' results differ on `backend`, or `None` when they are equal bit for bit.
fn compare(backend: &dyn Backend, hlo: &HloModule, mlir: &HloModule, dir: &Path) -> Option<String> {
    let got = match run(backend, mlir, dir) {
        Ok(r) => r,
        Err(e) => return Some(format!("module.stablehlo.mlir does not run: {e}")),
    };
    let expected = match run(backend, hlo, dir) {
        Ok(r) => r,
        // An HLO construct the backend lacks (e.g. gather batching dimensions, which the
        // StableHLO reading rewrites): XLA's recorded outputs are the reference then.
        Err(e) => match xla_outputs(&got, dir) {
            Some(r) => r,
            None => return Some(format!("module.hlo does not run: {e}")),
        },
    };
    let (e, g) = (leaves(&expected), leaves(&got));
    if e.len() != g.len() {
        return Some(format!(
            "{} results from the HLO, {} from the StableHLO",
            e.len(),
            g.len()
        ));
    }
    for (k, (a, b)) in e.iter().zip(&g).enumerate() {
        if !a.logical_eq(b) {
            return Some(format!(
                "{}: result {k} differs:\n  hlo:  {}\n  mlir: {}",
                backend.name(),
                a,
                b
            ));
        }
    }
    None
}

#[test]
fn every_program_from_stablehlo_matches_its_hlo_on_reference_and_fast() {
    let programs = programs();
    if std::env::var_os("STABLEHLO_PROGRAMS").is_none() {
        assert!(programs.len() >= 15, "{} programs", programs.len());
    }
    let reference = conformance_reference::Reference;
    let fast = conformance_fast::Fast::new();
    let backends: [&dyn Backend; 2] = [&reference, &fast];
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for dir in &programs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let hlo_text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let hlo = parse_module(&hlo_text).unwrap_or_else(|e| panic!("{name}/module.hlo: {e}"));
        let mlir_text = std::fs::read_to_string(dir.join("module.stablehlo.mlir")).unwrap();
        let mlir = match parse_stablehlo(&mlir_text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}/module.stablehlo.mlir:{e}"));
                report.push(format!("{name}: does not parse"));
                continue;
            }
        };
        // The HLO printed as StableHLO by this crate and read back computes the same, too
        // (where the printer has a form for every instruction).
        // A CHLO function (`chlo.lgamma`, `chlo.sinh`, ...) is its own operation in the StableHLO
        // and the exact function in the IR, while module.hlo holds the expansion JAX made of it
        // for XLA: the two compute different functions, so only the printer round trip below
        // compares them.
        let chlo_functions = mlir
            .computations
            .iter()
            .flat_map(|c| &c.instructions)
            .any(|i| i.opcode.is_chlo_function());
        let mut problems: Vec<String> = if chlo_functions {
            Vec::new()
        } else {
            backends
                .iter()
                .filter_map(|b| compare(*b, &hlo, &mlir, dir))
                .collect()
        };
        let mut note = if chlo_functions {
            " (CHLO functions: the HLO holds their expansions, not compared)".to_string()
        } else {
            String::new()
        };
        match print_stablehlo(&hlo) {
            Err(e) => note = format!(" (no printer round trip: {e})"),
            Ok(text) => match parse_stablehlo(&text) {
                Err(e) => problems.push(format!("printer round trip: {e}")),
                Ok(round_trip) => problems.extend(
                    backends
                        .iter()
                        .filter_map(|b| compare(*b, &hlo, &round_trip, dir))
                        .map(|p| format!("printer round trip: {p}")),
                ),
            },
        }
        // As many results as XLA recorded in outputs.npz.
        let outputs = npyz::npz::NpzArchive::open(dir.join("outputs.npz"))
            .map(|a| a.array_names().filter(|n| n.starts_with("out")).count())
            .unwrap_or(0);
        // One result per root leaf on each device.
        let devices =
            conformance_spec::collective::DeviceGrid::of(&mlir).map_or(1, |g| g.devices());
        let results = devices
            * mlir
                .entry_computation()
                .root_instruction()
                .shape
                .array_leaves()
                .len();
        if outputs != results {
            problems.push(format!("{results} results, outputs.npz has {outputs}"));
        }
        if problems.is_empty() {
            report.push(format!("{name}: equal on reference and fast{note}"));
        } else {
            report.push(format!("{name}: differs"));
            failures.push(format!("{name}:\n{}", problems.join("\n")));
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The results of `module` and of `parsed` (its round trip) on `backend`: `None` when equal bit
/// for bit, or when the original module does not run there (nothing to compare).
fn round_trip_difference(
    backend: &dyn Backend,
    module: &HloModule,
    parsed: &HloModule,
    args: &[Literal],
    exact: Option<&Literal>,
) -> Option<String> {
    let expected = backend.execute(module, args).ok()?;
    // The parsed module's parameters are row-major (StableHLO types have no layout).
    let relaid: Vec<Literal> = args
        .iter()
        .zip(conformance_spec::collective::argument_shapes(parsed))
        .map(|(a, s)| match (a, s.as_array()) {
            (Literal::Array(a), Some(s)) => Literal::Array(a.relayout(s.layout.clone())),
            (other, _) => other.clone(),
        })
        .collect();
    let got = match backend.execute(parsed, &relaid) {
        Ok(r) => r,
        Err(e) => {
            return Some(format!(
                "{}: the parsed module does not run: {e}",
                backend.name()
            ))
        }
    };
    let (e, g) = (leaves(&expected), leaves(&got));
    if e.len() != g.len() {
        return Some(format!("{} results before, {} after", e.len(), g.len()));
    }
    let lenient = backend.name() != "reference";
    let exact: Vec<&Literal> = exact.map(leaves).unwrap_or_default();
    e.iter()
        .zip(&g)
        .enumerate()
        .find(|(k, (a, b))| {
            !(a.logical_eq(b)
                || (lenient
                    && (equal_but_nans(a, b)
                        || exact
                            .get(*k)
                            .is_some_and(|x| x.logical_eq(b) || equal_but_nans(x, b)))))
        })
        .map(|(k, (a, b))| {
            let x = exact.get(k).map_or("?".to_string(), |x| x.to_string());
            format!(
                "{}: result {k}:\n  before: {a}\n  after:  {b}\n  exact:  {x}",
                backend.name()
            )
        })
}

/// True when `a` and `b` are floating-point or complex arrays equal bit for bit except where both
/// are NaN (of any sign and payload) or, for complex elements, both non-finite.
fn equal_but_nans(a: &Literal, b: &Literal) -> bool {
    let (Some(x), Some(y)) = (a.as_array(), b.as_array()) else {
        return false;
    };
    let et = x.element_type();
    let Some(f) = et.float_format() else {
        return false;
    };
    if !x.shape().compatible(y.shape()) {
        return false;
    }
    let same = |p: u64, q: u64| {
        p == q || (f.classify(p) == FloatClass::Nan && f.classify(q) == FloatClass::Nan)
    };
    x.logical_bits()
        .iter()
        .zip(y.logical_bits())
        .all(|(&p, q)| {
            if et.is_complex() {
                let ((pr, pi), (qr, qi)) = (complex_parts(f, p), complex_parts(f, q));
                let non_finite = |re: u64, im: u64| {
                    [re, im]
                        .iter()
                        .any(|&x| matches!(f.classify(x), FloatClass::Nan | FloatClass::Infinite))
                };
                (same(pr, qr) && same(pi, qi)) || (non_finite(pr, pi) && non_finite(qr, qi))
            } else {
                same(p as u64, q as u64)
            }
        })
}

#[test]
fn generated_modules_round_trip_through_stablehlo_text() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let combos = generate::plan(&catalog, &Filters::default()).expect("the catalog plans");
    let config = GeneratorConfig::default();
    let mut cases = Vec::new();
    for k in 0..combos.len() as u64 {
        let case =
            generate::case(&catalog, &combos, &config, 16, k).unwrap_or_else(|e| panic!("{e}"));
        cases.push((
            format!("{} {}", case.row, case.element_type),
            case.module,
            case.args,
        ));
    }
    for index in 0..40 {
        let mut rng = generate::rng::Rng::for_case(16, index);
        if let Ok(case) =
            generate::graph::build_case(&catalog, &combos, &config, &mut rng, 16, index)
        {
            cases.push((format!("graph #{index}"), case.module, case.args));
        }
    }
    let reference = conformance_reference::Reference;
    let fast = conformance_fast::Fast::new();
    let backends: [&dyn Backend; 2] = [&reference, &fast];
    let (mut checked, mut unprintable) = (0, 0);
    let mut failures = Vec::new();
    for (name, module, args) in &cases {
        let Ok(text) = print_stablehlo(module) else {
            unprintable += 1;
            continue;
        };
        let parsed = match parse_stablehlo(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {e}\n{text}"));
                continue;
            }
        };
        checked += 1;
        if name.starts_with("rng-UNIFORM") || name.starts_with("rng-NORMAL") {
            // A sample, not a function of the program: the reference seeds each rng by its
            // instruction's name, which reading renames. The round trip must keep the
            // distribution, its parameters and the shape, which the module texts show.
            let again = print_stablehlo(&parsed).map_err(|e| e.to_string());
            if again.as_deref() != Ok(text.as_str()) {
                failures.push(format!(
                    "{name}: printed differently after reading:\n{text}"
                ));
            }
            continue;
        }
        let exact = reference.execute(module, args).ok();
        for b in backends {
            if let Some(d) = round_trip_difference(b, module, &parsed, args, exact.as_ref()) {
                failures.push(format!("{name}: {d}\n{text}"));
            }
        }
    }
    println!("{checked} generated modules round-tripped, {unprintable} without a StableHLO form");
    assert!(checked > 200, "only {checked} modules checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
