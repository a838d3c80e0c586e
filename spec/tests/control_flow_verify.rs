//! The control-flow family in the catalog (seed 004: Call, Map, Conditional, While, Sort,
//! OptimizationBarrier; XLA's topk) and the shape rules that make such a module invalid.

use conformance_spec::catalog::{Catalog, OrderSet, Signature};
use conformance_spec::hlo::parse_module;
use conformance_spec::shape_inference::verify_module;

#[test]
fn every_control_flow_entry_is_cataloged_with_examples() {
    let c = Catalog::builtin().expect("catalog loads");
    let expected = [
        ("call", Signature::Call),
        ("map", Signature::Map),
        ("conditional", Signature::Conditional),
        ("while", Signature::While),
        ("sort", Signature::Sort),
        ("topk", Signature::TopK),
        ("optimization-barrier", Signature::OptimizationBarrier),
        ("fusion", Signature::Call),
    ];
    for (id, signature) in expected {
        let e = c.op(id).unwrap_or_else(|| panic!("{id} is cataloged"));
        assert_eq!(e.signature, signature, "{id}");
        assert!(!e.examples.is_empty(), "{id} has examples");
        assert_eq!(c.family_of(id), Some("control_flow"));
    }
    assert_eq!(
        c.op("sort").unwrap().tolerance.order_set,
        Some(OrderSet::SortEquivalents)
    );
    assert_eq!(c.ops_of_family("control_flow").count(), expected.len());
}

/// Verifies `text`, returning the error message (empty when it verifies).
fn verify(text: &str) -> String {
    let m = parse_module(text).unwrap_or_else(|e| panic!("parses: {e}\n{text}"));
    verify_module(&m)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

const STATE: &str = "(s32[], f32[4]{0})";

fn while_module(body_root_shape: &str, cond_root: &str) -> String {
    format!(
        "HloModule w
cond {{
  s = {STATE} parameter(0)
  ROOT c = {cond_root}
}}
body {{
  s = {STATE} parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4]{{0}} get-tuple-element(s), index=1
  ROOT t = {body_root_shape} tuple(i, v)
}}
ENTRY main {{
  z = s32[] constant(0)
  v = f32[4]{{0}} parameter(0)
  init = {STATE} tuple(z, v)
  ROOT r = {STATE} while(init), condition=cond, body=body
}}"
    )
}

#[test]
fn while_body_and_condition_must_fit_the_state() {
    assert_eq!(verify(&while_module(STATE, "pred[] constant(true)")), "");
    let e = verify(&while_module("(s32[], f32[4]{0})", "s32[] constant(1)"));
    assert!(e.contains("condition must return pred[]"), "{e}");
    // A body whose result differs from its parameter: the tuple's shape is declared wrongly first,
    // so build one that really returns another shape.
    let bad_body = while_module(STATE, "pred[] constant(true)").replace(
        "ROOT t = (s32[], f32[4]{0}) tuple(i, v)",
        "ROOT t = (s32[], s32[]) tuple(i, i)",
    );
    let e = verify(&bad_body);
    assert!(e.contains("keeps one shape in every trip"), "{e}");
}

#[test]
fn conditional_branches_must_agree() {
    let ok = "HloModule c
b0 {
  a = s32[] parameter(0)
  ROOT n = s32[] negate(a)
}
b1 {
  a = f32[] parameter(0)
  ROOT c = s32[] convert(a)
}
ENTRY main {
  i = s32[] parameter(0)
  x = s32[] parameter(1)
  y = f32[] parameter(2)
  ROOT r = s32[] conditional(i, x, y), branch_computations={b0, b1}
}";
    assert_eq!(verify(ok), "");
    let swapped = ok.replace("conditional(i, x, y)", "conditional(i, y, x)");
    let e = verify(&swapped);
    assert!(e.contains("branch 0 takes `s32[]`"), "{e}");
    let other_result = ok.replace("ROOT c = s32[] convert(a)", "ROOT c = f32[] negate(a)");
    let e = verify(&other_result);
    assert!(e.contains("every branch must return the same shape"), "{e}");
    let pred_selector = ok
        .replace("i = s32[] parameter(0)", "i = pred[] parameter(0)")
        .replace(
            "branch_computations={b0, b1}",
            "true_computation=b0, false_computation=b1",
        );
    assert_eq!(verify(&pred_selector), "");
    let bad_selector = ok.replace("i = s32[] parameter(0)", "i = f32[] parameter(0)");
    assert!(verify(&bad_selector).contains("branch index must be s32[]"));
}

#[test]
fn sort_comparator_must_take_two_scalars_per_operand_and_return_pred() {
    let ok = "HloModule s
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  k = f32[3,5]{1,0} parameter(0)
  v = s32[3,5]{0,1} parameter(1)
  ROOT r = (f32[3,5]{1,0}, s32[3,5]{1,0}) sort(k, v), dimensions={1}, is_stable=true, to_apply=lt
}";
    assert_eq!(verify(ok), "");
    let e = verify(&ok.replace("dimensions={1}", "dimensions={2}"));
    assert!(e.contains("out of range"), "{e}");
    let e = verify(&ok.replace("c = s32[] parameter(2)", "c = f32[] parameter(2)"));
    assert!(e.contains("comparator parameter 2"), "{e}");
    let e = verify(&ok.replace(
        "ROOT r = pred[] compare(a, b), direction=LT",
        "ROOT r = f32[] add(a, b)",
    ));
    assert!(e.contains("must return pred[]"), "{e}");
}

#[test]
fn topk_k_must_fit_the_last_dimension() {
    let m = |k: i64, out: i64| {
        format!(
            "HloModule t
ENTRY main {{
  x = f32[2,5]{{1,0}} parameter(0)
  ROOT r = (f32[2,{out}]{{1,0}}, s32[2,{out}]{{1,0}}) topk(x), k={k}, largest=true
}}"
        )
    };
    assert_eq!(verify(&m(5, 5)), "");
    assert_eq!(verify(&m(0, 0)), "");
    assert!(verify(&m(6, 6)).contains("out of range"));
    assert!(verify(&m(2, 3)).contains("does not match the inferred"));
}

#[test]
fn map_must_cover_every_dimension_with_a_scalar_computation() {
    let ok = "HloModule m
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[2,3]{1,0} parameter(1)
  ROOT r = pred[2,3]{1,0} map(x, y), dimensions={0,1}, to_apply=f
}";
    assert_eq!(verify(ok), "");
    assert!(verify(&ok.replace("dimensions={0,1}", "dimensions={1}"))
        .contains("must list every dimension"));
    assert!(
        verify(&ok.replace("ROOT r = pred[2,3]{1,0}", "ROOT r = f32[2,3]{1,0}"))
            .contains("does not match the inferred")
    );
    let e = verify(&ok.replace(
        "y = f32[2,3]{1,0} parameter(1)",
        "y = f32[3,2]{1,0} parameter(1)",
    ));
    assert!(e.contains("differ"), "{e}");
}
