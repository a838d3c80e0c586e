//! XLA's CPU backend through jaxlib (`workers/xla/xla_worker.py` in the project's `.venv`, made by
//! `scripts/setup-python.sh`): the handshake detects its subnormal flushing, results come back in
//! the root's layout, a sweep names the flush as one class with counts instead of failing, and a
//! module the printer cannot express is unsupported, not a failure.
//!
//! These tests need `.venv` with the pinned jax/jaxlib; without it they fail, saying so.

use conformance::backends;
use conformance::run::{self, Budget, RunOptions};
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{Backend, ElementType, SubnormalMode};
use std::sync::Arc;

fn xla() -> Box<dyn Backend> {
    backends::by_name("xla").unwrap_or_else(|e| panic!("{e}"))
}

fn f32s(dims: Vec<i64>, values: &[f32]) -> Literal {
    let shape = ArrayShape::new(ElementType::F32, dims);
    let bits: Vec<u128> = values.iter().map(|v| u128::from(v.to_bits())).collect();
    Literal::Array(ArrayLiteral::from_bits(shape, &bits).unwrap())
}

#[test]
fn the_handshake_detects_flushing_and_results_keep_the_roots_layout() {
    let b = xla();
    let caps = b.capabilities();
    assert_eq!(
        caps.subnormals,
        SubnormalMode::Flush,
        "XLA CPU flushes subnormals"
    );
    assert!(caps.element_types.contains(&ElementType::Bf16));
    let m = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[2,3]{0,1} parameter(0)\n  ROOT r = f32[3,2]{0,1} transpose(a), dimensions={1,0}\n}\n",
    )
    .unwrap();
    let a = f32s(vec![2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let a = Literal::Array(
        a.as_array()
            .unwrap()
            .relayout(conformance_spec::layout::Layout::new(vec![0, 1])),
    );
    let got = b.execute(&m, &[a]).expect("transpose runs on XLA");
    let got = got.as_array().unwrap();
    assert_eq!(got.shape().layout.minor_to_major, vec![0, 1]);
    assert_eq!(
        got.to_f64s().unwrap(),
        vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
        "logical row-major values of the transpose"
    );
    // exp(-88f) = 6.0546e-39 exactly rounded, a subnormal: XLA gives 0.
    let exp = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[3] parameter(0)\n  ROOT r = f32[3] exponential(a)\n}\n",
    )
    .unwrap();
    let got = b
        .execute(&exp, &[f32s(vec![3], &[-88.0, 0.0, 1.0])])
        .unwrap();
    let v = got.as_array().unwrap().to_f64s().unwrap();
    assert_eq!(v[0], 0.0, "XLA CPU flushes exp(-88f) to zero");
    assert_eq!(v[1], 1.0);
}

/// Element-wise sweeps over XLA: inputs biased to subnormals and extremes. XLA's flushing is set
/// aside as one class with counts, and nothing else fails (these operations have no other known
/// deviation; `exponential` near overflow does: corpus/regressions/exponential-f32-xla-*.yaml).
#[test]
fn a_sweep_names_the_flush_and_fails_nothing() {
    let catalog = Catalog::builtin().unwrap();
    let reference: Arc<dyn Backend> = Arc::new(conformance_reference::Reference);
    let xla: Arc<dyn Backend> = Arc::from(xla());
    let mut options = RunOptions::new(7, Budget::Cases(160));
    options.filters.ops = vec![
        "multiply".into(),
        "add".into(),
        "negate".into(),
        "transpose".into(),
    ];
    options.filters.dtypes = vec!["f32".into(), "bf16".into()];
    options.workers = Some(2);
    options.backends = vec!["reference".into(), "xla".into()];
    let mut log = Vec::new();
    let summary = run::run_with_backends(&catalog, &options, vec![reference, xla], &mut log)
        .expect("the sweep runs");
    let total = |f: &dyn Fn(&run::CellStats) -> u64| -> u64 { summary.cells.values().map(f).sum() };
    let failures: Vec<String> = summary
        .failures
        .iter()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect();
    assert_eq!(total(&|c| c.fail + c.error + c.timeout), 0, "{failures:#?}");
    assert!(total(&|c| c.pass) >= 150);
    assert!(
        total(&|c| c.flushed_subnormals) > 0,
        "XLA's subnormal flushing is detected and counted"
    );
    let mut text = Vec::new();
    run::print_summary(&summary, &options, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("xla flushes subnormals:"), "{text}");
}
