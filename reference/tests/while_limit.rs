//! The iteration limit of `while` (seed 004, While: nothing bounds a loop): the reference stops a
//! loop after `max_while_iterations` trips with a no-exit verdict. Alone in its test binary: the
//! limit is process-wide.

use conformance_reference::Reference;
use conformance_spec::backend::{max_while_iterations, set_max_while_iterations};
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, BackendError};

fn run(hlo: &str, inputs: &[&str]) -> Result<String, BackendError> {
    let m = parse_module(hlo).expect("parses");
    let args: Vec<_> = inputs.iter().map(|t| parse_literal(t).unwrap()).collect();
    Reference.execute(&m, &args).map(|l| l.to_string())
}

#[test]
fn a_loop_without_exit_stops_at_the_iteration_limit() {
    let forever = "HloModule forever
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}";
    let before = max_while_iterations();
    set_max_while_iterations(1000);
    let r = run(forever, &["s32[] 0"]);
    set_max_while_iterations(before);
    match r {
        Err(BackendError::NonTerminating(m)) => {
            assert!(m.contains("1000 trips") && m.contains("`w`"), "{m}")
        }
        other => panic!("expected a no-exit verdict, got {other:?}"),
    }
    a_loop_of_exactly_the_limit_finishes();
}

/// Runs after the no-exit case, in the same test (the limit is process-wide; tests of one binary
/// run in parallel).
fn a_loop_of_exactly_the_limit_finishes() {
    let counted = "HloModule counted
cond {
  s = s32[] parameter(0)
  n = s32[] constant(50)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}";
    let before = max_while_iterations();
    set_max_while_iterations(50);
    let ok = run(counted, &["s32[] 0"]);
    let over = run(counted, &["s32[] -1"]);
    set_max_while_iterations(before);
    assert_eq!(ok.unwrap(), "s32[] 50");
    assert!(
        matches!(over, Err(BackendError::NonTerminating(_))),
        "{over:?}"
    );
}
