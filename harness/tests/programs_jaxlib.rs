//! Every real JAX program of `corpus/programs/` survives the round trip through the one IR into
//! XLA itself: its StableHLO text (`module.stablehlo.mlir`, what `jax.jit(f).lower(x).as_text()`
//! printed) and its HLO text (`module.hlo`) are each read into the IR, printed back as StableHLO
//! (`conformance_spec::hlo::stablehlo::print_stablehlo`), compiled by XLA's CPU backend through
//! jaxlib (`scripts/stablehlo_compile.py`) and run on the program's own `inputs.npz`; the results
//! must be bit for bit (NaN matching any NaN) what the same XLA gives, in the same run, for the
//! StableHLO text JAX printed. A reader that lost or changed an operation, an attribute, a
//! constant bit or a region would show here as a compile error or a different bit. (Not the
//! recorded `outputs.npz`: XLA's code generation depends on the CPU, and an AVX-512 machine
//! rounds some reductions differently from the AVX2 one that recorded them.)
//!
//! Needs `.venv/bin/python` with jax (`scripts/setup-python.sh`); without it the test fails.

use conformance_spec::hlo::stablehlo::print_stablehlo;
use conformance_spec::hlo::{parse_module, parse_stablehlo, HloModule};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use std::path::{Path, PathBuf};

#[path = "common/jax.rs"]
mod jax;

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/programs");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.stablehlo.mlir").exists())
        .collect();
    out.sort();
    out
}

/// The leaves of the entry's result shape, depth-first.
fn result_leaves(module: &HloModule) -> Vec<Shape> {
    fn walk(s: &Shape, out: &mut Vec<Shape>) {
        match s {
            Shape::Tuple(parts) => parts.iter().for_each(|p| walk(p, out)),
            // A token result is not a value: it has no output (outputs.npz, the protocol).
            Shape::Token => {}
            other => out.push(other.clone()),
        }
    }
    let mut out = Vec::new();
    walk(
        &module.entry_computation().root_instruction().shape,
        &mut out,
    );
    out
}

/// Whether two arrays hold the same bits, any NaN matching any NaN.
fn same_bits(a: &ArrayLiteral, b: &ArrayLiteral) -> bool {
    if a.element_type() != b.element_type() || a.dimensions() != b.dimensions() {
        return false;
    }
    let ty = a.element_type();
    let is_nan = |bits: u128| {
        ty.float_format().is_some_and(|f| {
            if ty.is_complex() {
                let w = ty.bit_width() / 2;
                let mask = (1u128 << w) - 1;
                f.decode((bits & mask) as u64).is_nan() || f.decode((bits >> w) as u64).is_nan()
            } else {
                f.decode(bits as u64).is_nan()
            }
        })
    };
    a.logical_bits()
        .iter()
        .zip(b.logical_bits().iter())
        .all(|(&x, &y)| x == y || (is_nan(x) && is_nan(y)))
}

/// (program/form, printed StableHLO, JAX's own StableHLO text, inputs, XLA's recorded outputs)
/// of one text form.
struct Trip {
    what: String,
    text: String,
    original: String,
    inputs: Vec<Literal>,
    recorded: Vec<ArrayLiteral>,
}

fn trip(p: &Path, file: &str) -> Result<Trip, String> {
    let what = format!("{}/{file}", p.file_name().unwrap().to_string_lossy());
    let source = std::fs::read_to_string(p.join(file)).map_err(|e| format!("{what}: {e}"))?;
    let module = if file.ends_with(".mlir") {
        parse_stablehlo(&source).map_err(|e| format!("{what}: {e}"))?
    } else {
        parse_module(&source).map_err(|e| format!("{what}: {e}"))?
    };
    let text = print_stablehlo(&module).map_err(|e| format!("{what}: printing: {e}"))?;
    let params: Vec<Shape> = module
        .entry_computation()
        .parameters()
        .iter()
        .map(|i| i.shape.clone())
        .collect();
    let inputs = conformance::npz::read_arguments(&p.join("inputs.npz"), &params, &[])?;
    let leaves = result_leaves(&module);
    let names: Vec<String> = (0..leaves.len()).map(|k| format!("out{k}")).collect();
    let recorded = conformance::npz::read_arguments(&p.join("outputs.npz"), &leaves, &names)?
        .into_iter()
        .map(|l| match l {
            Literal::Array(a) => a,
            other => panic!("{what}: a tuple output {other:?}"),
        })
        .collect();
    let original = std::fs::read_to_string(p.join("module.stablehlo.mlir"))
        .map_err(|e| format!("{what}: {e}"))?;
    Ok(Trip {
        what,
        text,
        original,
        inputs,
        recorded,
    })
}

#[test]
fn every_program_round_trips_through_the_ir_into_jaxlib() {
    let programs = programs();
    assert!(programs.len() >= 15, "{} programs", programs.len());
    let mut failures = Vec::new();
    let mut trips = Vec::new();
    let mut skipped = 0;
    for p in &programs {
        // A program of several partitions (`collectives_pmap`: JAX's pmap lowers through
        // shard_map) is not run here: XLA's CPU client compiles `num_partitions > 1` only
        // through its SPMD partitioner, which needs the sharding annotations the per-device
        // program no longer has (docs/collectives.md); its outputs are XLA's own, recorded by
        // the dump script.
        let hlo = std::fs::read_to_string(p.join("module.hlo")).unwrap_or_default();
        if hlo
            .lines()
            .next()
            .is_some_and(|h| h.contains("num_partitions="))
        {
            skipped += 1;
            continue;
        }
        for file in ["module.stablehlo.mlir", "module.hlo"] {
            match trip(p, file) {
                Ok(t) => trips.push(t),
                Err(e) => failures.push(e),
            }
        }
    }
    // Per trip: JAX's own text, then the printed one, on the same XLA in the same run.
    let payloads = trips
        .iter()
        .flat_map(|t| {
            [
                jax::execute_request(&t.original, &t.inputs),
                jax::execute_request(&t.text, &t.inputs),
            ]
        })
        .collect();
    let replies = jax::compile_all(payloads);
    let outputs_of = |reply: &serde_json::Value| -> Vec<ArrayLiteral> {
        reply["outputs"]
            .as_array()
            .expect("outputs")
            .iter()
            .map(jax::output_literal)
            .collect()
    };
    for (t, pair) in trips.iter().zip(replies.chunks(2)) {
        let (own, reply) = (&pair[0], &pair[1]);
        if own["ok"] != true {
            failures.push(format!("{}: XLA rejects JAX's own text: {own}", t.what));
            continue;
        }
        if reply["ok"] != true {
            failures.push(format!(
                "{}: XLA rejects the printed module: {reply}",
                t.what
            ));
            continue;
        }
        let outputs = outputs_of(reply);
        let expected = outputs_of(own);
        if outputs.len() != t.recorded.len() {
            failures.push(format!(
                "{}: {} outputs, XLA recorded {}",
                t.what,
                outputs.len(),
                t.recorded.len()
            ));
            continue;
        }
        for (k, (got, want)) in outputs.iter().zip(&expected).enumerate() {
            if !same_bits(got, want) {
                failures.push(format!(
                    "{}: out{k} differs from XLA's output for JAX's own text\n got {got}\nwant {want}",
                    t.what
                ));
            }
        }
    }
    assert_eq!(
        trips.len(),
        2 * (programs.len() - skipped),
        "{}",
        failures.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
