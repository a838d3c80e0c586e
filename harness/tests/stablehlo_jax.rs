//! The StableHLO printer (`conformance_spec::hlo::stablehlo`) against the real compiler: every
//! module the harness generates — a few cases of every catalog operation on every element type
//! the generator produces for it, and multi-operation graphs — prints as StableHLO that XLA's CPU
//! backend (through jaxlib, `scripts/stablehlo_compile.py`, one Python process per test)
//! compiles. And the printed programs mean what the HLO means: the non-element-wise cases on
//! integer types (exact on any backend) are run and compared with the reference element for
//! element, the catalog's worked examples give their expected outputs on XLA (dimension numbers,
//! windows, padding, ...), and so do hand-written modules for the operations the generators do
//! not produce (call, while, conditional, sort, map, opt-barrier); `topk` in both directions on
//! special values gives the reference's results bit for bit.
//!
//! Known differences of XLA's own (not of the printing) are listed with their reasons:
//! [`KNOWN_XLA_REJECTIONS`], [`KNOWN_XLA_DIFFERENCES`].
//!
//! Needs `.venv/bin/python` with jax (`scripts/setup-python.sh`); without it the tests fail.

use conformance::compare::{compare, DiffClass};
use conformance::generate::{self, Filters, GeneratorConfig};
use conformance::oracles::distributions::Law;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::catalog::RandomCheck;
use conformance_spec::hlo::stablehlo::{print_stablehlo, StablehloError};
use conformance_spec::hlo::{parse_literal, parse_module, HloModule};
use conformance_spec::literal::Literal;
use std::collections::BTreeMap;

#[path = "common/jax.rs"]
mod jax;
use jax::{compile_all, execute_request, output_literal, rebuild};

/// Cases per (operation, element type) combination: element-wise operations print the same way
/// whatever the shapes, the others draw attributes from the shapes.
const ELEMENTWISE_CASES: u64 = 1;
const OTHER_CASES: u64 = 2;
/// Multi-operation graphs.
const GRAPHS: u64 = 30;
/// At most this many generated modules may be unprintable (dynamic entry results only: the
/// `set-dimension-size` cases).
const MAX_UNSUPPORTED: usize = 60;

/// One generated module, with where it came from; `run` when it is executed and compared with
/// the reference rather than only compiled.
struct Generated {
    row: String,
    dtype: String,
    op_index: Option<usize>,
    module: HloModule,
    args: Vec<Literal>,
    run: bool,
}

/// The element types of `rng` on XLA's CPU backend (seed 004, RngUniform).
const RNG_ON_XLA_CPU: &[conformance_spec::ElementType] = {
    use conformance_spec::ElementType as E;
    &[
        E::F64,
        E::F32,
        E::F16,
        E::Bf16,
        E::S64,
        E::U64,
        E::S32,
        E::U32,
    ]
};

fn generated_modules(catalog: &Catalog) -> Vec<Generated> {
    let combos = generate::plan(catalog, &Filters::default()).expect("the catalog plans");
    let config = GeneratorConfig::default();
    let n = combos.len() as u64;
    let mut out = Vec::new();
    for (k, combo) in combos.iter().enumerate() {
        let op = &catalog.ops()[combo.op_index];
        if op.unsupported.contains_key("xla") {
            // Declared out of XLA's reach in the catalog (e.g. `bitcast`, which only XLA's own
            // optimized modules hold and StableHLO cannot express).
            continue;
        }
        if conformance_spec::hlo::Opcode::from_name(&op.opcode)
            .is_some_and(conformance_spec::collective::is_collective)
        {
            // Modules of several devices: this test's jaxlib client compiles for one device;
            // the XLA worker runs them on its host devices (protocol 2, docs/collectives.md,
            // workers/xla/test_xla_worker.py), and XLA's collective deviations are in
            // corpus/regressions/*-xla-*.yaml.
            continue;
        }
        if op.opcode == "rng" && !RNG_ON_XLA_CPU.contains(&combo.element_type) {
            // Seed 004: XLA's CPU backend takes `rng` of these types only; others abort its
            // process (corpus/regressions/rng-*-xla-check-failure.yaml), one compiler restart
            // each.
            continue;
        }
        let elementwise = op.signature.is_elementwise();
        let cases = if elementwise {
            ELEMENTWISE_CASES
        } else {
            OTHER_CASES
        };
        for j in 0..cases {
            let case = generate::case(catalog, &combos, &config, 2024, k as u64 + j * n)
                .unwrap_or_else(|e| panic!("{e}"));
            out.push(Generated {
                row: case.row,
                dtype: case.element_type.to_string(),
                op_index: Some(combo.op_index),
                module: case.module,
                args: case.args,
                run: !elementwise && case.element_type.is_integer(),
            });
        }
    }
    for index in 0..GRAPHS {
        let mut rng = generate::rng::Rng::for_case(77, index);
        match generate::graph::build_case(catalog, &combos, &config, &mut rng, 77, index) {
            Ok(case) => out.push(Generated {
                row: format!("graph #{index}"),
                dtype: case.element_type.to_string(),
                op_index: None,
                module: case.module,
                args: case.args,
                run: false,
            }),
            Err(generate::graph::GraphError::Unchainable(_)) => {}
            Err(e) => panic!("graph {index}: {e}"),
        }
    }
    out
}

/// (row, element type or `*` for any, part of the compiler's message): modules XLA's CPU
/// compiler rejects
/// although they are valid HLO and print faithfully. A `bitcast-convert` between complex types
/// of different widths (c128[n] ↔ c64[n,2]) fails in XLA's StableHLO import, or aborts the
/// process in its `BitcastDtypesExpander`.
///
/// Dynamic shapes: XLA's StableHLO import takes at most one bounded dimension per tensor, and its
/// dynamic padder rejects a reshape of a dynamic size-1 dimension in the middle; both are XLA
/// limitations on valid bounded-dynamic HLO (docs/protocol.md: why sweeps do not send dynamic
/// modules to workers).
///
/// LAPACK custom calls on a matrix with a zero dimension: jaxlib's kernels kill XLA's process with
/// SIGFPE (corpus/regressions/lapack-*-xla-empty-matrix-sigfpe.yaml, docs/custom-calls.md).
const KNOWN_XLA_REJECTIONS: &[(&str, &str, &str)] = &[
    ("lapack-getrf", "*", "signal: 8 (SIGFPE)"),
    ("lapack-geqrf", "*", "signal: 8 (SIGFPE)"),
    ("lapack-orgqr", "*", "signal: 8 (SIGFPE)"),
    ("lapack-potrf", "*", "signal: 8 (SIGFPE)"),
    ("lapack-syevd", "*", "signal: 8 (SIGFPE)"),
    ("lapack-gesdd", "*", "signal: 8 (SIGFPE)"),
    ("lapack-gesvd", "*", "signal: 8 (SIGFPE)"),
    (
        "get-dimension-size",
        "pred",
        "single bounded dimension tensor",
    ),
    (
        "get-dimension-size",
        "*",
        "Dynamic degenerated dimension that's not most-minor nor most-major",
    ),
    (
        "set-dimension-size",
        "*",
        "Dynamic degenerated dimension that's not most-minor nor most-major",
    ),
    (
        "bitcast-convert-complex->c64",
        "c128",
        "Conversion between complex and real type",
    ),
    (
        "bitcast-convert-complex->c128",
        "c64",
        "the compiler process died",
    ),
    // XLA has no expansion of these CHLO functions for the 8-bit float types ("f8": every one);
    // the XLA worker reports them as unsupported.
    ("erfc", "f8", "failed to legalize operation 'chlo.erfc'"),
    (
        "bessel-i1e",
        "f8",
        "failed to legalize operation 'chlo.bessel_i1e'",
    ),
];

/// (row, element type) of generated modules whose results differ where our generator reads past
/// a runtime size: it marks a dimension dynamic only where the runtime size is below the bound,
/// while XLA's dynamism is a static property of the program, and the values past a runtime size
/// are XLA's own (the open design change docs/protocol.md describes).
const KNOWN_DYNAMIC_DIFFERENCES: &[(&str, &str)] = &[("set-dimension-size", "u8")];

/// XLA's known deviation on `rng-bit-generator` of signed or floating-point data: the data
/// comes back in the unsigned type of the same width (docs/random.md). True when that is the only
/// difference: the state agrees and the data's bits, read as the declared type, agree too.
fn unsigned_rng_data_with_the_right_bits(expected: &Literal, got: &Literal) -> bool {
    let (Literal::Tuple(e), Literal::Tuple(g)) = (expected, got) else {
        return false;
    };
    let ([Literal::Array(es), Literal::Array(ed)], [Literal::Array(gs), Literal::Array(gd)]) =
        (&e[..], &g[..])
    else {
        return false;
    };
    let (et, gt) = (ed.element_type(), gd.element_type());
    et != gt
        && gt.is_unsigned_integer()
        && et.bit_width() == gt.bit_width()
        && ed.dimensions() == gd.dimensions()
        && es.logical_bits() == gs.logical_bits()
        && ed.logical_bits() == gd.logical_bits()
}

#[test]
fn every_generated_module_compiles_with_xla() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let modules = generated_modules(&catalog);
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut printed = Vec::new();
    for g in &modules {
        match print_stablehlo(&g.module) {
            Ok(text) => {
                let payload = if g.run {
                    execute_request(&text, &g.args)
                } else {
                    text.clone().into_bytes()
                };
                printed.push((g, text, payload));
            }
            Err(e @ StablehloError::Unsupported { .. }) => unsupported
                .entry(e.to_string())
                .or_default()
                .push(format!("{} {}", g.row, g.dtype)),
        }
    }
    let payloads = printed.iter().map(|(_, _, p)| p.clone()).collect();
    let replies = compile_all(payloads);
    let mut rejected = Vec::new();
    let mut known = 0;
    let mut differ = Vec::new();
    let mut executed = 0;
    for ((g, text, _), reply) in printed.iter().zip(&replies) {
        if reply["ok"] != serde_json::Value::Bool(true) {
            let message = reply["error"].as_str().unwrap_or("?").to_string();
            if KNOWN_XLA_REJECTIONS.iter().any(|(row, dtype, m)| {
                g.row == *row
                    && (g.dtype == *dtype
                        || *dtype == "*"
                        || (*dtype == "f8" && g.dtype.starts_with("f8")))
                    && message.contains(m)
            }) {
                known += 1;
            } else {
                rejected.push(format!(
                    "{} {}: {message}\n{}\n{text}",
                    g.row, g.dtype, g.module
                ));
            }
            continue;
        }
        if !g.run {
            continue;
        }
        // Integer results are exact on every backend: the printed program must compute what
        // the reference computes, element for element.
        executed += 1;
        let op = &catalog.ops()[g.op_index.expect("catalog case")];
        let expected = conformance_spec::Backend::execute(&Reference, &g.module, &g.args)
            .unwrap_or_else(|e| panic!("{} {}: reference: {e}", g.row, g.dtype));
        let leaves = reply["outputs"]
            .as_array()
            .expect("outputs")
            .iter()
            .map(output_literal);
        let Some(got) = rebuild(&expected.shape(), &mut leaves.into_iter()) else {
            differ.push(format!("{} {}: output count", g.row, g.dtype));
            continue;
        };
        let ty = conformance::check::result_type(&g.module).expect("array result");
        let budget = conformance::check::budget(op, ty);
        let allowances = conformance::check::element_allowances(op, &g.module, &g.args, &Reference);
        // Samples of a distribution are judged against it (docs/random.md), not compared.
        let c = match op.tolerance.random {
            Some(RandomCheck::Uniform | RandomCheck::Normal) => {
                let bits = |k: usize| match &g.args[k] {
                    Literal::Array(a) => a.get_bits_linear(0) as u64,
                    _ => 0,
                };
                let law = Law::new(
                    op.tolerance.random == Some(RandomCheck::Normal),
                    ty,
                    bits(0),
                    bits(1),
                );
                conformance::oracles::distributions::judge(law, &expected, &got)
            }
            _ => compare(&expected, &got, &budget, &allowances),
        };
        if !c.agrees() && KNOWN_DYNAMIC_DIFFERENCES.contains(&(g.row.as_str(), g.dtype.as_str())) {
            known += 1;
        } else if !c.agrees()
            && g.row == "rng-UNIFORM"
            && c.classes
                .keys()
                .all(|k| matches!(k, DiffClass::OutOfRange | DiffClass::Statistical))
        {
            // XLA's uniform samples: bits mod (b − a), and a + (b − a)·m reaching b or
            // overflowing (corpus/regressions/rng-*-xla-*.yaml).
            known += 1;
        } else if !c.agrees() && unsigned_rng_data_with_the_right_bits(&expected, &got) {
            // corpus/regressions/rng-bit-generator-{s32,f32}-xla-unsigned-result-type.yaml
            known += 1;
        } else if !c.agrees() {
            let first: Vec<String> = c.diffs.iter().take(3).map(|d| d.to_string()).collect();
            differ.push(format!(
                "{} {}: {}\n{}\n{text}",
                g.row,
                g.dtype,
                first.join("; "),
                g.module
            ));
        }
    }
    let n_unsupported: usize = unsupported.values().map(Vec::len).sum();
    eprintln!(
        "{} modules generated: {} printed and compiled ({executed} of them run and compared with \
         the reference), {known} rejected by XLA as known, {} rejected otherwise, {} differing, \
         {n_unsupported} not printable",
        modules.len(),
        printed.len(),
        rejected.len(),
        differ.len()
    );
    let mut by_row: BTreeMap<&str, usize> = BTreeMap::new();
    for rows in unsupported.values() {
        for r in rows {
            *by_row
                .entry(r.split(' ').next().unwrap_or("?"))
                .or_default() += 1;
        }
    }
    eprintln!("not printable, by row: {by_row:?}");
    for reason in unsupported.keys().take(3) {
        eprintln!("  e.g. {reason}");
    }
    for r in rejected.iter().chain(&differ) {
        eprintln!("FAIL {r}\n");
    }
    assert!(
        rejected.is_empty(),
        "{} modules rejected by XLA (see above)",
        rejected.len()
    );
    assert!(
        differ.is_empty(),
        "{} results differ from the reference (see above)",
        differ.len()
    );
    assert!(executed > 300, "only {executed} modules were run");
    assert!(
        n_unsupported <= MAX_UNSUPPORTED,
        "{n_unsupported} generated modules cannot be printed (at most {MAX_UNSUPPORTED} expected)"
    );
    for reason in unsupported.keys() {
        assert!(
            reason.contains("entry result has the dynamic shape"),
            "only dynamic entry results may be unprintable: {reason}"
        );
    }
}

/// (catalog id, example name, why): examples whose result on XLA's CPU backend differs from the
/// catalog's expected value for reasons of XLA's own, not of the printing.
const KNOWN_XLA_DIFFERENCES: &[(&str, &str, &str)] = &[
    (
        "sinh",
        "f32_values",
        "XLA expands chlo.sinh for |x| >= 1 as exp(x - ln 2) - exp(-x - ln 2) in f32: 5 ULP at x = 10",
    ),
    (
        "cosh",
        "f32_values",
        "XLA expands chlo.cosh as exp(x - ln 2) + exp(-x - ln 2) in f32: 6 ULP at x = 10",
    ),
    (
        "erf-inv",
        "f32_values",
        "XLA's chlo.erf_inv (a single-precision polynomial) is 6 ULP off at x = 0.999",
    ),
    (
        "bitcast-convert-complex",
        "c128_to_c64",
        "XLA rejects bitcast-convert between complex types of different widths",
    ),
    (
        "pad",
        "nan_padding_value",
        "XLA's pad returns the canonical NaN, not the padding value's payload",
    ),
    (
        "scatter",
        "out_of_bounds_elements_skipped",
        "XLA skips a whole update window when part of it is out of bounds; the catalog skips \
         element by element",
    ),
];

#[test]
fn catalog_examples_run_on_xla_as_expected() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let mut jobs = Vec::new();
    let mut unprintable = Vec::new();
    for op in catalog
        .ops()
        .iter()
        .filter(|op| !op.unsupported.contains_key("xla"))
    {
        for ex in &op.examples {
            let module = parse_module(&ex.hlo).unwrap_or_else(|e| panic!("{}: {e}", ex.name));
            if conformance_spec::collective::DeviceGrid::of(&module).map_or(1, |g| g.devices()) > 1
            {
                // Several devices: run by the XLA worker, not this one-device client (above).
                continue;
            }
            let text = match print_stablehlo(&module) {
                Ok(text) => text,
                Err(e) => {
                    unprintable.push(format!("{} / {}: {e}", op.id, ex.name));
                    continue;
                }
            };
            let args: Vec<Literal> = ex
                .inputs
                .iter()
                .map(|t| parse_literal(t).unwrap_or_else(|e| panic!("{}: {e}", ex.name)))
                .collect();
            let expected = parse_literal(&ex.expected).unwrap();
            jobs.push((op, ex, module, args, expected, text));
        }
    }
    let payloads = jobs
        .iter()
        .map(|(_, _, _, args, _, text)| execute_request(text, args))
        .collect();
    let replies = compile_all(payloads);
    let mut failures = Vec::new();
    let mut known = Vec::new();
    for ((op, ex, module, args, expected, text), reply) in jobs.iter().zip(&replies) {
        let what = format!("{} / {}", op.id, ex.name);
        let outcome = if reply["ok"] != serde_json::Value::Bool(true) {
            Err(format!("{}\n{text}", reply["error"]))
        } else {
            let leaves = reply["outputs"]
                .as_array()
                .expect("outputs")
                .iter()
                .map(output_literal);
            match rebuild(&expected.shape(), &mut leaves.into_iter()) {
                None => Err("output count".to_string()),
                Some(got) => {
                    let ty = conformance::check::result_type(module).expect("array result");
                    let budget = conformance::check::budget(op, ty);
                    let allowances =
                        conformance::check::element_allowances(op, module, args, &Reference);
                    // A LAPACK decomposition unique only up to its gauge (signs, pivots on
                    // ties): XLA is compared with the exact one in XLA's gauge.
                    let gauged = (op.tolerance.error_bound
                        == Some(conformance_spec::catalog::ErrorBound::Lapack))
                    .then(|| conformance::oracles::error_bounds::gauge_aligned(module, args, &got))
                    .flatten();
                    let (expected, allowances) = match gauged {
                        Some((e, a)) => (e, a),
                        None => (expected.clone(), allowances),
                    };
                    let c = compare(&expected, &got, &budget, &allowances);
                    if c.agrees() {
                        Ok(())
                    } else {
                        let first: Vec<String> =
                            c.diffs.iter().take(3).map(|d| d.to_string()).collect();
                        Err(format!("{} (got {got})\n{text}", first.join("; ")))
                    }
                }
            }
        };
        if let Err(e) = outcome {
            match KNOWN_XLA_DIFFERENCES
                .iter()
                .find(|(id, name, _)| op.id == *id && ex.name == *name)
            {
                Some((_, _, why)) => known.push(format!("{what}: {why}")),
                None => failures.push(format!("{what}: {e}")),
            }
        }
    }
    eprintln!(
        "{} examples run on XLA, {} differ as known, {} unprintable",
        jobs.len(),
        known.len(),
        unprintable.len()
    );
    for k in known.iter().chain(&unprintable) {
        eprintln!("  {k}");
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} examples differ", failures.len());
    assert!(jobs.len() > 250, "only {} examples ran", jobs.len());
    assert!(
        unprintable
            .iter()
            .all(|u| u.contains("entry result has the dynamic shape")
                || u.contains("the worker protocol passes arrays")),
        "examples that should print: {unprintable:?}"
    );
}

/// Operations the generators do not produce (call, while, conditional, sort, map,
/// opt-barrier, tuple parameters of called computations) print to programs XLA runs with the
/// expected results: (name, HLO, inputs, expected).
const HAND_WRITTEN: &[(&str, &str, &[&str], &str)] = &[
    (
        "call_with_tuple_result",
        "HloModule m
pair {
  x = f32[2] parameter(0)
  y = f32[2] multiply(x, x)
  ROOT t = (f32[2], f32[2]) tuple(x, y)
}
swap {
  p = (f32[2], f32[2]) parameter(0)
  a = f32[2] get-tuple-element(p), index=0
  b = f32[2] get-tuple-element(p), index=1
  ROOT t = (f32[2], f32[2]) tuple(b, a)
}
ENTRY main {
  a = f32[2] parameter(0)
  c = (f32[2], f32[2]) call(a), to_apply=pair
  ROOT s = (f32[2], f32[2]) call(c), to_apply=swap
}",
        &["f32[2] {3, -2}"],
        "(f32[2] {9, 4}, f32[2] {3, -2})",
    ),
    (
        "while_loop_counts_to_three",
        "HloModule m
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[2] add(v, v)
  ROOT t = (s32[], f32[2]) tuple(j, w)
}
ENTRY e {
  z = s32[] constant(0)
  a = f32[2] parameter(0)
  t = (s32[], f32[2]) tuple(z, a)
  ROOT w = (s32[], f32[2]) while(t), condition=cond, body=body
}",
        &["f32[2] {1, -0.5}"],
        "(s32[] 3, f32[2] {8, -4})",
    ),
    (
        "conditional_on_a_predicate",
        "HloModule m
yes {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
no {
  x = s32[] parameter(0)
  f = f32[] convert(x)
  ROOT b = f32[2] broadcast(f), dimensions={}
}
ENTRY e {
  p = pred[] parameter(0)
  a = f32[2] parameter(1)
  k = s32[] parameter(2)
  ROOT c = f32[2] conditional(p, a, k), true_computation=yes, false_computation=no
}",
        &["pred[] 0", "f32[2] {1, 2}", "s32[] 7"],
        "f32[2] {7, 7}",
    ),
    (
        "conditional_on_a_branch_index_out_of_range_runs_the_last",
        "HloModule m
b0 {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
b1 {
  x = f32[2] parameter(0)
  ROOT n = f32[2] add(x, x)
}
ENTRY e {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a), branch_computations={b0, b1}
}",
        &["s32[] 5", "f32[2] {1, 2}"],
        "f32[2] {2, 4}",
    ),
    (
        "variadic_sort_by_keys_descending",
        "HloModule m
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  k = s32[2,3] parameter(0)
  v = f32[2,3] parameter(1)
  ROOT s = (s32[2,3], f32[2,3]) sort(k, v), dimensions={1}, is_stable=true, to_apply=gt
}",
        &[
            "s32[2,3] {{1, 3, 2}, {0, -1, 5}}",
            "f32[2,3] {{10, 30, 20}, {0, -10, 50}}",
        ],
        "(s32[2,3] {{3, 2, 1}, {5, 0, -1}}, f32[2,3] {{30, 20, 10}, {50, 0, -10}})",
    ),
    (
        "map_and_opt_barrier",
        "HloModule m
axpy {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  two = f32[] constant(2)
  t = f32[] multiply(two, x)
  ROOT s = f32[] add(t, y)
}
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  m = f32[3] map(a, b), dimensions={0}, to_apply=axpy
  t = (f32[3], f32[3]) tuple(m, a)
  o = (f32[3], f32[3]) opt-barrier(t)
  ROOT r = f32[3] get-tuple-element(o), index=0
}",
        &["f32[3] {1, 2, 3}", "f32[3] {0.5, 0.25, -6}"],
        "f32[3] {2.5, 4.25, 0}",
    ),
];

#[test]
fn control_flow_and_region_operations_run_on_xla() {
    let mut jobs = Vec::new();
    for (name, hlo, inputs, expected) in HAND_WRITTEN {
        let module = parse_module(hlo).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = print_stablehlo(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
        let args: Vec<Literal> = inputs.iter().map(|t| parse_literal(t).unwrap()).collect();
        let expected = parse_literal(expected).unwrap_or_else(|e| panic!("{name}: {e}"));
        jobs.push((name, text, args, expected));
    }
    let replies = compile_all(
        jobs.iter()
            .map(|(_, text, args, _)| execute_request(text, args))
            .collect(),
    );
    let mut failures = Vec::new();
    for ((name, text, _, expected), reply) in jobs.iter().zip(&replies) {
        if reply["ok"] != serde_json::Value::Bool(true) {
            failures.push(format!("{name}: {}\n{text}", reply["error"]));
            continue;
        }
        let leaves = reply["outputs"]
            .as_array()
            .expect("outputs")
            .iter()
            .map(output_literal);
        match rebuild(&expected.shape(), &mut leaves.into_iter()) {
            Some(got) if got.logical_eq(expected) => {}
            got => failures.push(format!("{name}: expected {expected}, got {got:?}\n{text}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `topk` in both directions prints to programs whose results on XLA are the reference's, bit
/// for bit (values and indices): total order with NaNs of both signs and payloads, ±0, ±inf,
/// subnormals and ties, on floats of several widths and on integers, k from 0 to the whole row.
/// `largest=true` is JAX's `chlo.top_k`; `largest=false` the stable total-order sort XLA
/// decomposes the instruction into.
#[test]
fn topk_runs_on_xla_as_the_reference_computes() {
    // (element type, one row of 12 values: ties, signed zeros, extremes; NaNs where the type has
    // them). The second row is the first reversed, so ties meet in the other order.
    let rows: &[(&str, &str)] = &[
        (
            "f32",
            "nan, -nan, -0, 0, 1e-45, -1e-45, 1, -1, inf, -inf, 0, nan(0x1)",
        ),
        (
            "f64",
            "nan(0x5), -nan, -0, 0, 5e-324, -5e-324, 2.5, -1, inf, -inf, 2.5, 0",
        ),
        // Ordinary values only: XLA sorts bf16 and f8 as f32 and converts back, and a NaN's
        // payload may not survive that (a deviation of XLA's own, not of the printing).
        (
            "bf16",
            "-0, 0, 9.2e-41, -9.2e-41, 1, -1, inf, -inf, 0, 1, -3, 2",
        ),
        (
            "f8e4m3fn",
            "-0, 0, 0.001953125, -0.001953125, 1, -1, 448, -448, 0, 1, -3, 2",
        ),
        ("s8", "-128, 127, 0, -1, 1, 0, 5, -5, 127, -128, 3, 3"),
        ("u16", "0, 65535, 1, 0, 32768, 32767, 7, 7, 65535, 2, 3, 0"),
        (
            "s64",
            "-9223372036854775808, 9223372036854775807, 0, -1, 1, 0, 5, -5, 4, 4, 3, 3",
        ),
    ];
    let mut jobs = Vec::new();
    for (ty, row) in rows {
        let mut reversed: Vec<&str> = row.split(", ").collect();
        reversed.reverse();
        let input = format!("{ty}[2,12] {{{{{row}}}, {{{}}}}}", reversed.join(", "));
        let args = vec![parse_literal(&input).unwrap_or_else(|e| panic!("{input}: {e}"))];
        for k in [0, 1, 5, 12] {
            for largest in [true, false] {
                let hlo = format!(
                    "HloModule topk
ENTRY e {{
  x = {ty}[2,12]{{0,1}} parameter(0)
  ROOT t = ({ty}[2,{k}], s32[2,{k}]) topk(x), k={k}, largest={largest}
}}"
                );
                let module = parse_module(&hlo).unwrap_or_else(|e| panic!("{hlo}: {e}"));
                let text = print_stablehlo(&module).unwrap_or_else(|e| panic!("{hlo}: {e}"));
                let expected = conformance_spec::Backend::execute(&Reference, &module, &args)
                    .unwrap_or_else(|e| panic!("{hlo}: reference: {e}"));
                jobs.push((hlo, text, args.clone(), expected));
            }
        }
    }
    let replies = compile_all(
        jobs.iter()
            .map(|(_, text, args, _)| execute_request(text, args))
            .collect(),
    );
    let mut failures = Vec::new();
    for ((hlo, text, _, expected), reply) in jobs.iter().zip(&replies) {
        if reply["ok"] != serde_json::Value::Bool(true) {
            failures.push(format!("{hlo}: {}\n{text}", reply["error"]));
            continue;
        }
        let leaves = reply["outputs"]
            .as_array()
            .expect("outputs")
            .iter()
            .map(output_literal);
        match rebuild(&expected.shape(), &mut leaves.into_iter()) {
            Some(got) if got.logical_eq(expected) => {}
            got => failures.push(format!("{hlo}\nexpected {expected}, got {got:?}\n{text}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(jobs.len(), 7 * 4 * 2);
}
