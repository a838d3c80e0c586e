use crate::interpreter::execute;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::literal::Literal;

fn run(hlo: &str, inputs: &[&str]) -> Result<Literal, conformance_spec::BackendError> {
    let m = parse_module(hlo).unwrap();
    let args: Vec<Literal> = inputs.iter().map(|t| parse_literal(t).unwrap()).collect();
    execute(&m, &args)
}

fn expect(text: &str) -> Literal {
    parse_literal(text).unwrap()
}

const SUM: &str =
    "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";

/// Seed 004, AllReduce: [1.0, 2.5] and [3.0, 5.25] sum to [4.0, 7.75] on both replicas.
#[test]
fn all_reduce_sums_the_seed_example() {
    let hlo = format!(
        "HloModule m, replica_count=2\n{SUM}ENTRY e {{\n  x = f32[2]{{0}} parameter(0)\n  ROOT r = f32[2]{{0}} all-reduce(x), replica_groups={{}}, to_apply=sum\n}}\n"
    );
    let got = run(&hlo, &["f32[2] {1, 2.5}", "f32[2] {3, 5.25}"]).unwrap();
    assert_eq!(got, expect("(f32[2] {4, 7.75}, f32[2] {4, 7.75})"));
}

/// An exact sum, rounded once: 1 + 2^-24 + 2^-24 is 1 + 2^-23 exactly, where summing in order
/// in f32 gives 1.
#[test]
fn all_reduce_sums_are_rounded_once() {
    let hlo = format!(
        "HloModule m, replica_count=3\n{SUM}ENTRY e {{\n  x = f32[] parameter(0)\n  ROOT r = f32[] all-reduce(x), to_apply=sum\n}}\n"
    );
    let got = run(
        &hlo,
        &["f32[] 1", "f32[] 5.96046448e-08", "f32[] 5.96046448e-08"],
    )
    .unwrap();
    let Literal::Tuple(items) = got else { panic!() };
    assert_eq!(items[0], expect("f32[] 1.00000012"));
}

#[test]
fn all_reduce_within_groups_with_max() {
    let hlo = "HloModule m, replica_count=4\nmx {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] maximum(a, b)\n}\nENTRY e {\n  x = s32[] parameter(0)\n  ROOT r = s32[] all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=mx\n}\n";
    let got = run(hlo, &["s32[] 5", "s32[] -1", "s32[] 7", "s32[] 9"]).unwrap();
    assert_eq!(got, expect("(s32[] 7, s32[] 9, s32[] 7, s32[] 9)"));
}

/// Seed 004, AllGather: [1.0, 2.5] and [3.0, 5.25] gather to [1.0, 2.5, 3.0, 5.25].
#[test]
fn all_gather_concatenates_in_group_order() {
    let hlo = "HloModule m, replica_count=2\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT r = f32[4]{0} all-gather(x), dimensions={0}, replica_groups={{1,0}}\n}\n";
    let got = run(hlo, &["f32[2] {1, 2.5}", "f32[2] {3, 5.25}"]).unwrap();
    assert_eq!(
        got,
        expect("(f32[4] {3, 5.25, 1, 2.5}, f32[4] {3, 5.25, 1, 2.5})")
    );
}

/// Seed 004, ReduceScatter: [1.0, 2.25] and [3.0, 5.25] give [4.0] and [7.5].
#[test]
fn reduce_scatter_keeps_each_device_block() {
    let hlo = format!(
        "HloModule m, replica_count=2\n{SUM}ENTRY e {{\n  x = f32[2]{{0}} parameter(0)\n  ROOT r = f32[1]{{0}} reduce-scatter(x), dimensions={{0}}, to_apply=sum\n}}\n"
    );
    let got = run(&hlo, &["f32[2] {1, 2.25}", "f32[2] {3, 5.25}"]).unwrap();
    assert_eq!(got, expect("(f32[1] {4}, f32[1] {7.5})"));
}

#[test]
fn all_to_all_exchanges_blocks() {
    let hlo = "HloModule m, replica_count=2\nENTRY e {\n  x = s32[4]{0} parameter(0)\n  ROOT r = s32[4]{0} all-to-all(x), dimensions={0}\n}\n";
    let got = run(hlo, &["s32[4] {0, 1, 2, 3}", "s32[4] {10, 11, 12, 13}"]).unwrap();
    assert_eq!(
        got,
        expect("(s32[4] {0, 1, 10, 11}, s32[4] {2, 3, 12, 13})")
    );
}

/// Seed 004, CollectivePermute: a replica no pair targets gets zeros.
#[test]
fn collective_permute_sends_to_targets() {
    let hlo = "HloModule m, replica_count=3\nENTRY e {\n  x = s32[2]{0} parameter(0)\n  ROOT r = s32[2]{0} collective-permute(x), source_target_pairs={{0,1},{1,2}}\n}\n";
    let got = run(hlo, &["s32[2] {1, 2}", "s32[2] {3, 4}", "s32[2] {5, 6}"]).unwrap();
    assert_eq!(got, expect("(s32[2] {0, 0}, s32[2] {1, 2}, s32[2] {3, 4})"));
}

#[test]
fn device_ids() {
    let hlo = "HloModule m, replica_count=2, num_partitions=2\nENTRY e {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  ROOT t = (u32[], u32[]) tuple(r, p)\n}\n";
    let Literal::Tuple(devices) = run(hlo, &[]).unwrap() else {
        panic!("one result per device")
    };
    let want = [
        "(u32[] 0, u32[] 0)",
        "(u32[] 0, u32[] 1)",
        "(u32[] 1, u32[] 0)",
        "(u32[] 1, u32[] 1)",
    ];
    for (got, want) in devices.iter().zip(want) {
        assert_eq!(got, &expect(want));
    }
}

/// A collective that only some replicas reach (a conditional on the replica id) ends in a
/// deadlock error, not a hang.
#[test]
fn a_collective_some_replicas_skip_is_a_deadlock() {
    let hlo = format!(
        "HloModule m, replica_count=2\n{SUM}on {{\n  a = f32[] parameter(0)\n  ROOT r = f32[] all-reduce(a), to_apply=sum\n}}\noff {{\n  ROOT a = f32[] parameter(0)\n}}\nENTRY e {{\n  x = f32[] parameter(0)\n  id = u32[] replica-id()\n  zero = u32[] constant(0)\n  p = pred[] compare(id, zero), direction=EQ\n  ROOT c = f32[] conditional(p, x, x), true_computation=on, false_computation=off\n}}\n"
    );
    let err = run(&hlo, &["f32[] 1", "f32[] 2"]).unwrap_err();
    assert!(err.to_string().contains("deadlock"), "{err}");
}

#[test]
fn sum_bounds_per_device() {
    let hlo = format!(
        "HloModule m, replica_count=2\n{SUM}ENTRY e {{\n  x = f32[2]{{0}} parameter(0)\n  ROOT r = f32[1]{{0}} reduce-scatter(x), dimensions={{0}}, to_apply=sum\n}}\n"
    );
    let m = parse_module(&hlo).unwrap();
    let args = [expect("f32[2] {1, -2}"), expect("f32[2] {-3, 5}")];
    let b = crate::accumulation_bounds(&m, &args).unwrap().unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!((b[0][0].terms, b[0][0].abs_sum), (2, 4.0));
    assert_eq!((b[1][0].terms, b[1][0].abs_sum), (2, 7.0));
}
