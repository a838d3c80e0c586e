//! The `while` iteration limit (seed 004, While; `max_while_iterations`). The limit is
//! process-global, so this test has its own binary and restores the default.

use conformance_fast::Fast;
use conformance_spec::backend::{
    max_while_iterations, set_max_while_iterations, DEFAULT_MAX_WHILE_ITERATIONS,
};
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, BackendError};

/// Counts from 0 while the counter is below the argument.
const LOOP: &str = r#"
HloModule limit
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(j, n)
}
ENTRY e {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, n)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT i = s32[] get-tuple-element(w), index=0
}
"#;

#[test]
fn a_loop_past_the_limit_is_non_terminating() {
    let module = parse_module(LOOP).unwrap();
    let run =
        |n: i32| Fast::new().execute(&module, &[parse_literal(&format!("s32[] {n}")).unwrap()]);
    set_max_while_iterations(10);
    // Exactly the limit: the condition turns false after the 10th trip.
    let at_limit = run(10);
    let past = run(11);
    let forever = run(i32::MAX);
    set_max_while_iterations(DEFAULT_MAX_WHILE_ITERATIONS);
    assert_eq!(max_while_iterations(), DEFAULT_MAX_WHILE_ITERATIONS);
    assert!(at_limit
        .unwrap()
        .logical_eq(&parse_literal("s32[] 10").unwrap()));
    for r in [past, forever] {
        match r {
            Err(BackendError::NonTerminating(m)) => {
                assert!(m.contains("`w`") && m.contains("10"), "{m}");
            }
            other => panic!("expected NonTerminating, got {other:?}"),
        }
    }
}
