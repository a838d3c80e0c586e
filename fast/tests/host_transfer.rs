//! fast against the catalog and the reference on tokens and host transfers (seed 004,
//! AfterAll, Infeed, Send, Recv; XLA's Outfeed): every catalog example bit-exactly, queues read
//! through branches and loops in token order, channels between replicas, and the same
//! verdicts as the reference for an exhausted queue and a deadlock.

use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, BackendError, Literal};

fn args(inputs: &[&str]) -> Vec<Literal> {
    inputs.iter().map(|t| parse_literal(t).unwrap()).collect()
}

#[test]
fn every_host_transfer_example_is_bit_exact_on_fast() {
    let catalog = Catalog::builtin().unwrap();
    let mut n = 0;
    for op in catalog.ops_of_family("host_transfer") {
        for ex in &op.examples {
            let m = parse_module(&ex.hlo).unwrap();
            let inputs: Vec<&str> = ex.inputs.iter().map(String::as_str).collect();
            let got = Fast::default().execute(&m, &args(&inputs)).unwrap();
            let want = parse_literal(&ex.expected).unwrap();
            assert!(got.logical_eq(&want), "{} {}: {got}", op.id, ex.name);
            n += 1;
        }
    }
    assert!(n >= 5);
}

/// Infeed and outfeed inside a loop of data-dependent trip count (the queue's first value), an
/// outfeed before it and a recv of a device that nothing targets.
const LOOP: &str = "HloModule feeds, replica_count=3
cond {
  p = (s32[], f32[3], token[]) parameter(0)
  n = s32[] get-tuple-element(p), index=0
  z = s32[] constant(0)
  ROOT gt = pred[] compare(n, z), direction=GT
}
body {
  p = (s32[], f32[3], token[]) parameter(0)
  n = s32[] get-tuple-element(p), index=0
  acc = f32[3] get-tuple-element(p), index=1
  t = token[] get-tuple-element(p), index=2
  i = (f32[3]{0}, token[]) infeed(t)
  v = f32[3]{0} get-tuple-element(i), index=0
  t2 = token[] get-tuple-element(i), index=1
  a2 = f32[3] add(acc, v)
  o = token[] outfeed(a2, t2), outfeed_shape=f32[3]
  one = s32[] constant(1)
  n2 = s32[] subtract(n, one)
  ROOT r = (s32[], f32[3], token[]) tuple(n2, a2, o)
}
ENTRY main {
  x = f32[3]{0} parameter(0)
  t0 = token[] after-all()
  c = (s32[], token[]) infeed(t0)
  n = s32[] get-tuple-element(c), index=0
  tc = token[] get-tuple-element(c), index=1
  o0 = token[] outfeed(x, tc), outfeed_shape=f32[3]{0}
  s0 = (s32[], f32[3], token[]) tuple(n, x, o0)
  w = (s32[], f32[3], token[]) while(s0), condition=cond, body=body
  acc = f32[3] get-tuple-element(w), index=1
  tw = token[] get-tuple-element(w), index=2
  snd = (f32[3], u32[], token[]) send(acc, tw), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,2},{2,1}}\"}
  rcv = (f32[3], u32[], token[]) recv(tw), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,2},{2,1}}\"}
  d = (f32[3], token[]) recv-done(rcv), channel_id=2
  sd = token[] send-done(snd), channel_id=2
  got = f32[3] get-tuple-element(d), index=0
  ROOT out = f32[3] subtract(acc, got)
}";

#[test]
fn loops_branches_and_channels_agree_with_the_reference() {
    let m = parse_module(LOOP).unwrap();
    conformance_spec::shape_inference::verify_module(&m).unwrap();
    // Device d: x, then its queue: the trip count, then values (equal argument counts per
    // device; what a device does not read is left over).
    let inputs = [
        "f32[3] {1, 2, 3}",
        "s32[] 2",
        "f32[3] {0.5, 0.25, -1}",
        "f32[3] {1e-45, -0, 3}",
        "f32[3] {-1, -2, -3}",
        "s32[] 0",
        "f32[3] {7, 7, 7}",
        "f32[3] {7, 7, 7}",
        "f32[3] {nan, inf, -inf}",
        "s32[] 1",
        "f32[3] {1, 1, 1}",
        "f32[3] {2, 2, 2}",
    ];
    let a = args(&inputs);
    let want = Reference.execute(&m, &a).unwrap();
    let got = Fast::default().execute(&m, &a).unwrap();
    assert!(got.logical_eq(&want), "fast {got}\nreference {want}");
    // Device 1 ran no trip: one outfeed value (x); device 0 ran two: three values.
    let Literal::Tuple(devices) = &got else {
        panic!("{got}")
    };
    let outfeeds = |d: usize| match &devices[d] {
        Literal::Tuple(p) => match &p[1] {
            Literal::Tuple(o) => o.len(),
            _ => panic!(),
        },
        _ => panic!(),
    };
    assert_eq!((outfeeds(0), outfeeds(1), outfeeds(2)), (3, 1, 2));
    // Too short a queue (device 0 reads three values, has two): both backends call the case
    // invalid.
    let mut short: Vec<&str> = inputs.to_vec();
    short[1] = "s32[] 3";
    let short = args(&short);
    for r in [
        Reference.execute(&m, &short),
        Fast::default().execute(&m, &short),
    ] {
        assert!(matches!(r, Err(BackendError::Invalid(_))), "{r:?}");
    }
}

#[test]
fn a_cycle_of_recv_done_is_a_deadlock_on_fast_too() {
    let m = parse_module("HloModule cycle, replica_count=2
ENTRY main {
  x = f32[] parameter(0)
  t = token[] after-all()
  r = (f32[], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}
  d = (f32[], token[]) recv-done(r), channel_id=1
  v = f32[] get-tuple-element(d), index=0
  s = (f32[], u32[], token[]) send(v, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}
  ROOT sd = token[] send-done(s), channel_id=1
}").unwrap();
    let err = Fast::default()
        .execute(&m, &args(&["f32[] 1", "f32[] 2"]))
        .unwrap_err();
    assert!(
        matches!(&err, BackendError::Failure(m) if m.contains("deadlock")),
        "{err}"
    );
}
