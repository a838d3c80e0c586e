//! Every example of the control-flow catalog family (spec/ops/control_flow.yaml: seed 004's Sort
//! and While examples and hand-made ones) runs on the reference and gives the expected value
//! bit-exactly; and the reference's control flow beyond the examples: nested loops, comparators
//! of any form, layouts (the iteration limit is in while_limit.rs: it sets a process-wide value).

mod common;

use conformance_reference::Reference;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, BackendError};

#[test]
fn every_control_flow_example_is_bit_exact_on_the_reference() {
    common::catalog::assert_family_bit_exact("control_flow");
}

fn run(hlo: &str, inputs: &[&str]) -> Result<String, BackendError> {
    let m = parse_module(hlo).expect("parses");
    conformance_spec::shape_inference::verify_module(&m).expect("verifies");
    let args: Vec<_> = inputs.iter().map(|t| parse_literal(t).unwrap()).collect();
    Reference.execute(&m, &args).map(|l| l.to_string())
}

const NESTED: &str = "HloModule nested
inner_cond {
  s = (s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(j, n), direction=LT
}
inner_body {
  s = (s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j1 = s32[] add(j, one)
  a1 = s32[] add(acc, j)
  ROOT t = (s32[], s32[]) tuple(j1, a1)
}
outer_cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
outer_body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, acc)
  w = (s32[], s32[]) while(init), condition=inner_cond, body=inner_body
  a = s32[] get-tuple-element(w), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i1, a)
}
ENTRY main {
  zero = s32[] constant(0)
  x = s32[] parameter(0)
  init = (s32[], s32[]) tuple(zero, x)
  ROOT w = (s32[], s32[]) while(init), condition=outer_cond, body=outer_body
}";

#[test]
fn nested_loops_carry_their_state() {
    // 4 outer trips, each adding 0 + 1 + 2.
    assert_eq!(run(NESTED, &["s32[] 100"]).unwrap(), "(s32[] 4, s32[] 112)");
}

#[test]
fn jax_total_order_comparator_puts_nans_last_and_ties_zeros() {
    // The comparator jnp.sort emits: NaN -> +NaN, -0 -> +0, then LT in total order.
    let hlo = "HloModule jax_sort
cmp {
  a = f32[] parameter(0)
  a_nan = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_zero = pred[] compare(a, zero), direction=EQ
  a1 = f32[] select(a_zero, zero, a)
  a2 = f32[] select(a_nan, nan, a1)
  b = f32[] parameter(1)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b1 = f32[] select(b_zero, zero, b)
  b2 = f32[] select(b_nan, nan, b1)
  ROOT lt = pred[] compare(a2, b2), direction=LT, type=TOTALORDER
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  ROOT s = f32[7]{0} sort(x), dimensions={0}, is_stable=true, to_apply=cmp
}";
    assert_eq!(
        run(hlo, &["f32[7] {1, -nan, -0, 0, nan, -inf, -0}"]).unwrap(),
        "f32[7] {-inf, -0, 0, -0, 1, -nan, nan}"
    );
}

#[test]
fn map_with_a_computation_that_is_not_scalar_only_is_interpreted() {
    // The mapped computation builds a tuple inside: evaluated by the interpreter.
    let hlo = "HloModule map_tuple
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  t = (s32[], s32[]) tuple(a, b)
  x = s32[] get-tuple-element(t), index=1
  ROOT m = s32[] multiply(a, x)
}
ENTRY main {
  x = s32[3]{0} parameter(0)
  y = s32[3]{0} parameter(1)
  ROOT r = s32[3]{0} map(x, y), dimensions={0}, to_apply=f
}";
    assert_eq!(
        run(hlo, &["s32[3] {1, 2, 3}", "s32[3] {4, 5, -6}"]).unwrap(),
        "s32[3] {4, 10, -18}"
    );
}

#[test]
fn topk_orders_by_total_order_with_ties_to_the_lower_index() {
    let hlo = "HloModule topk
ENTRY main {
  x = f32[2,4]{0,1} parameter(0)
  ROOT r = (f32[2,2]{1,0}, s32[2,2]{0,1}) topk(x), k=2, largest=false
}";
    assert_eq!(
        run(hlo, &["f32[2,4] {{0, -0, nan, -nan}, {3, 1, 1, 2}}"]).unwrap(),
        "(f32[2,2] {{-nan, -0}, {1, 1}}, s32[2,2]{0,1} {{3, 1}, {1, 2}})"
    );
}
