//! fast against the reference on collectives: each op, several groupings, layouts and
//! reducers.

use crate::Fast;
use conformance_reference::Reference;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{Backend, Literal};

fn both(hlo: &str, inputs: &[&str]) -> Literal {
    let m = parse_module(hlo).unwrap();
    let args: Vec<Literal> = inputs.iter().map(|t| parse_literal(t).unwrap()).collect();
    let want = Reference.execute(&m, &args).unwrap();
    let got = Fast::default().execute(&m, &args).unwrap();
    assert!(got.logical_eq(&want), "{hlo}\nfast {got}\nreference {want}");
    got
}

const SUM: &str =
    "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";

#[test]
fn all_reduce_with_recognized_and_interpreted_reducers() {
    let hlo = format!(
        "HloModule m, replica_count=4\n{SUM}ENTRY e {{\n  x = f32[2,3]{{0,1}} parameter(0)\n  ROOT r = f32[2,3]{{1,0}} all-reduce(x), replica_groups={{{{0,3}},{{2,1}}}}, to_apply=sum\n}}\n"
    );
    let x = |k: i32| format!("f32[2,3] {{{{{k}, 2, 3}}, {{4, 5, {k}}}}}");
    let inputs: Vec<String> = (0..4).map(x).collect();
    let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    both(&hlo, &refs);
    // A reducer that is not one operation of its parameters: |a| + |b|.
    let hlo = "HloModule m, replica_count=3\nabs_sum {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  x = s32[] abs(a)\n  y = s32[] abs(b)\n  ROOT s = s32[] add(x, y)\n}\nENTRY e {\n  x = s32[3]{0} parameter(0)\n  ROOT r = s32[3]{0} all-reduce(x), to_apply=abs_sum\n}\n";
    let got = both(
        hlo,
        &[
            "s32[3] {1, -2, 3}",
            "s32[3] {-4, 5, 6}",
            "s32[3] {7, 8, -9}",
        ],
    );
    let Literal::Tuple(items) = got else { panic!() };
    assert_eq!(items[0], parse_literal("s32[3] {12, 15, 18}").unwrap());
}

#[test]
fn data_movement_collectives_match_the_reference() {
    let four = [
        "s32[2,4] {{0, 1, 2, 3}, {4, 5, 6, 7}}",
        "s32[2,4] {{10, 11, 12, 13}, {14, 15, 16, 17}}",
        "s32[2,4] {{20, 21, 22, 23}, {24, 25, 26, 27}}",
        "s32[2,4] {{30, 31, 32, 33}, {34, 35, 36, 37}}",
    ];
    for body in [
        "ROOT r = s32[2,8]{0,1} all-gather(x), dimensions={1}, replica_groups={{1,0},{3,2}}",
        "ROOT r = s32[4,4]{1,0} all-gather(x), dimensions={0}, replica_groups={{1,0},{3,2}}",
        "ROOT r = s32[2,4]{0,1} all-to-all(x), dimensions={1}",
        "ROOT r = s32[2,4]{1,0} all-to-all(x), dimensions={1}, replica_groups={{0,2},{3,1}}",
        "ROOT r = s32[2,4]{1,0} collective-permute(x), source_target_pairs={{0,3},{3,1},{1,0}}",
    ] {
        let hlo = format!("HloModule m, replica_count=4\nENTRY e {{\n  x = s32[2,4]{{1,0}} parameter(0)\n  {body}\n}}\n");
        both(&hlo, &four);
    }
    let hlo = "HloModule m, replica_count=2\nadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\nENTRY e {\n  x = s32[2,4]{1,0} parameter(0)\n  ROOT r = s32[2,2]{0,1} reduce-scatter(x), dimensions={1}, to_apply=add\n}\n";
    both(hlo, &four[..2]);
}

#[test]
fn device_ids_over_partitions() {
    let hlo = "HloModule m, replica_count=2, num_partitions=3\nENTRY e {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  ROOT t = (u32[], u32[]) tuple(r, p)\n}\n";
    both(hlo, &[]);
}

#[test]
fn operands_of_every_kind_are_lent() {
    // A row-major parameter (lent by number), a computed value (shared), a constant and a
    // reshaped parameter (materialized), a column-major parameter (relayout), in one
    // variadic all-reduce and an all-gather; sliced and gathered in group order.
    let hlo = format!(
        "HloModule m, replica_count=3\n{SUM}ENTRY e {{\n  x = f32[4]{{0}} parameter(0)\n  y = f32[2,2]{{0,1}} parameter(1)\n  n = f32[4]{{0}} negate(x)\n  c = f32[4]{{0}} constant({{1, 2, 3, 4}})\n  b = f32[2,2]{{1,0}} reshape(x)\n  r = (f32[4]{{0}}, f32[4]{{0}}, f32[4]{{0}}, f32[2,2]{{1,0}}, f32[2,2]{{1,0}}) all-reduce(x, n, c, b, y), replica_groups={{{{2,0,1}}}}, to_apply=sum\n  g = f32[12]{{0}} all-gather(x), dimensions={{0}}, replica_groups={{{{1,2,0}}}}\n  ROOT t = ((f32[4]{{0}}, f32[4]{{0}}, f32[4]{{0}}, f32[2,2]{{1,0}}, f32[2,2]{{1,0}}), f32[12]{{0}}) tuple(r, g)\n}}\n"
    );
    let mut inputs = Vec::new();
    for k in 0..3 {
        inputs.push(format!("f32[4] {{{k}.5, -1e8, 1e8, 0.25}}"));
        inputs.push(format!("f32[2,2] {{{{{k}, 1}}, {{2, 3}}}}"));
    }
    let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let got = both(&hlo, &refs);
    let Literal::Tuple(devices) = got else {
        panic!()
    };
    // Device 0's gather is members 1, 2, 0 in turn.
    let Literal::Tuple(parts) = &devices[0] else {
        panic!()
    };
    assert_eq!(
        parts[1],
        parse_literal("f32[12] {1.5, -1e8, 1e8, 0.25, 2.5, -1e8, 1e8, 0.25, 0.5, -1e8, 1e8, 0.25}")
            .unwrap()
    );
}
