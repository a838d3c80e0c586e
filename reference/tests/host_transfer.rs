//! Tokens and host transfers on the reference (seed 004, AfterAll, Infeed, Send, Recv; XLA's
//! Outfeed): every example of the catalog family runs bit-exactly; queues are read in token
//! order, through loops and conditionals, per device; channels pair devices; an exhausted
//! queue is an invalid case and a cycle of recv-done a deadlock verdict, not a hang.

mod common;

use conformance_reference::Reference;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, BackendError};

#[test]
fn every_host_transfer_example_is_bit_exact_on_the_reference() {
    common::catalog::assert_family_bit_exact("host_transfer");
}

fn run(hlo: &str, inputs: &[&str]) -> Result<String, BackendError> {
    let m = parse_module(hlo).expect("parses");
    conformance_spec::shape_inference::verify_module(&m).expect("verifies");
    let args: Vec<_> = inputs.iter().map(|t| parse_literal(t).unwrap()).collect();
    Reference.execute(&m, &args).map(|l| l.to_string())
}

/// Infeeds inside both branches of a conditional read the queue in the order the branch taken
/// reaches them; the outfeed in the loop writes once per trip.
const BRANCHES: &str = "HloModule branches
take {
  t = token[] parameter(0)
  i = (s32[], token[]) infeed(t)
  v = s32[] get-tuple-element(i), index=0
  t2 = token[] get-tuple-element(i), index=1
  ROOT r = (s32[], token[]) tuple(v, t2)
}
skip {
  t = token[] parameter(0)
  z = s32[] constant(-1)
  ROOT r = (s32[], token[]) tuple(z, t)
}
ENTRY main {
  p = pred[] parameter(0)
  t0 = token[] after-all()
  c = (s32[], token[]) conditional(p, t0, t0), true_computation=take, false_computation=skip
  v = s32[] get-tuple-element(c), index=0
  t1 = token[] get-tuple-element(c), index=1
  o = token[] outfeed(v, t1), outfeed_shape=s32[]
  i2 = (s32[], token[]) infeed(o)
  ROOT w = s32[] get-tuple-element(i2), index=0
}";

#[test]
fn a_branch_reads_the_queue_only_when_taken() {
    assert_eq!(
        run(BRANCHES, &["pred[] true", "s32[] 4", "s32[] 5"]).unwrap(),
        "(s32[] 5, (s32[] 4))"
    );
    // Not taken: the second infeed reads the first value; the second is left over.
    assert_eq!(
        run(BRANCHES, &["pred[] false", "s32[] 4", "s32[] 5"]).unwrap(),
        "(s32[] 4, (s32[] -1))"
    );
}

#[test]
fn an_exhausted_queue_is_an_invalid_case() {
    let err = run(BRANCHES, &["pred[] true", "s32[] 4"]).unwrap_err();
    assert!(
        matches!(&err, BackendError::Invalid(m) if m.contains("queue is empty after 1")),
        "{err}"
    );
    // A value of another shape than the infeed reads.
    let err = run(BRANCHES, &["pred[] true", "f32[] 4", "s32[] 5"]).unwrap_err();
    assert!(matches!(&err, BackendError::Invalid(_)), "{err}");
}

#[test]
fn extra_arguments_without_an_infeed_are_invalid() {
    let m = "HloModule m\nENTRY main {\n  ROOT x = s32[] parameter(0)\n}";
    let err = run(m, &["s32[] 1", "s32[] 2"]).unwrap_err();
    assert!(matches!(&err, BackendError::Invalid(_)), "{err}");
}

/// Seed 004's deadlock: each replica waits at recv-done for the other's value before sending
/// its own.
const CYCLE: &str = "HloModule cycle, replica_count=2
ENTRY main {
  x = f32[] parameter(0)
  t = token[] after-all()
  r = (f32[], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}
  d = (f32[], token[]) recv-done(r), channel_id=1
  v = f32[] get-tuple-element(d), index=0
  t2 = token[] get-tuple-element(d), index=1
  y = f32[] add(x, v)
  s = (f32[], u32[], token[]) send(y, t2), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}
  ROOT sd = token[] send-done(s), channel_id=1
}";

#[test]
fn a_cycle_of_recv_done_is_a_deadlock_verdict() {
    let err = run(CYCLE, &["f32[] 1", "f32[] 2"]).unwrap_err();
    assert!(
        matches!(&err, BackendError::Failure(m) if m.contains("deadlock") && m.contains("recv-done")),
        "{err}"
    );
}

#[test]
fn loopback_on_one_device_and_repeated_sends_match_in_order() {
    // Two sends on one channel from device 0 to itself: the n-th recv gets the n-th send.
    let m = "HloModule loop
ENTRY main {
  x = s32[] parameter(0)
  t = token[] after-all()
  s1 = (s32[], u32[], token[]) send(x, t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,0}}\"}
  y = s32[] negate(x)
  s2 = (s32[], u32[], token[]) send(y, t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,0}}\"}
  r1 = (s32[], u32[], token[]) recv(t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,0}}\"}
  d1 = (s32[], token[]) recv-done(r1), channel_id=3
  r2 = (s32[], u32[], token[]) recv(t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,0}}\"}
  d2 = (s32[], token[]) recv-done(r2), channel_id=3
  a = s32[] get-tuple-element(d1), index=0
  b = s32[] get-tuple-element(d2), index=0
  ROOT o = (s32[], s32[]) tuple(a, b)
}";
    assert_eq!(run(m, &["s32[] 6"]).unwrap(), "(s32[] 6, s32[] -6)");
}

#[test]
fn transfers_with_the_host_are_unsupported() {
    let m = "HloModule host
ENTRY main {
  x = s32[] parameter(0)
  t = token[] after-all()
  s = (s32[], u32[], token[]) send(x, t), channel_id=1, is_host_transfer=true
  ROOT sd = token[] send-done(s), channel_id=1, is_host_transfer=true
}";
    let err = run(m, &["s32[] 1"]).unwrap_err();
    assert!(matches!(&err, BackendError::Unsupported(_)), "{err}");
}
