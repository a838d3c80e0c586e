//! The control-flow family on hand-written HLO modules (seed 004: While, Conditional, Map, Sort;
//! XLA TopK and OptimizationBarrier): expected literals written out, layouts checked, and property
//! tests of the sort's radix path against its interpreted path and of topk against a full sort.

use conformance_fast::Fast;
use conformance_spec::hlo::comparator::KeyMap;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Literal};
use proptest::prelude::*;

fn lit(text: &str) -> Literal {
    parse_literal(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs `hlo` on `args` with the default and the sequential backend (the same result), checks the
/// result's shape against the root's (layouts included) and returns it.
fn run(hlo: &str, args: &[Literal]) -> Literal {
    let module = parse_module(hlo).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    let got = Fast::new()
        .execute(&module, args)
        .unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    let seq = Fast::sequential().execute(&module, args).unwrap();
    assert!(got.logical_eq(&seq), "parallel and sequential differ");
    assert_eq!(
        got.shape(),
        module.entry_computation().root_instruction().shape,
        "result layout"
    );
    got
}

#[track_caller]
fn check(hlo: &str, args: &[Literal], want: &str) {
    let got = run(hlo, args);
    let want = lit(want);
    assert!(got.logical_eq(&want), "got {got:?}\nwant {want:?}\n{hlo}");
}

// ---------------------------------------------------------------- while

const COUNTED_LOOP: &str = r#"
HloModule w
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[4] get-tuple-element(s), index=1
  y = f32[4] add(x, x)
  ROOT t = (s32[], f32[4]) tuple(j, y)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  ROOT w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
}
"#;

#[test]
fn while_with_tuple_state() {
    check(
        COUNTED_LOOP,
        &[lit("f32[4] {1, -2, 0.5, 0}")],
        "(s32[], f32[4]) (5, {32, -64, 16, 0})",
    );
}

#[test]
fn while_whose_condition_is_false_at_once_returns_the_init() {
    let hlo = COUNTED_LOOP.replace("n = s32[] constant(5)", "n = s32[] constant(-1)");
    check(
        &hlo,
        &[lit("f32[4] {1, 2, 3, 4}")],
        "(s32[], f32[4]) (0, {1, 2, 3, 4})",
    );
}

#[test]
fn nested_while_and_array_state() {
    // Outer: i in 0..3; inner: j in 0..=i adds 1 to a sum: 1 + 2 + 3 = 6. A scalar-state loop
    // doubles 1 until it exceeds 1000.
    let hlo = r#"
HloModule nested
icond {
  s = (s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  lim = s32[] get-tuple-element(s), index=1
  ROOT le = pred[] compare(j, lim), direction=LE
}
ibody {
  s = (s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  lim = s32[] get-tuple-element(s), index=1
  acc = s32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  j1 = s32[] add(j, one)
  acc1 = s32[] add(acc, one)
  ROOT t = (s32[], s32[], s32[]) tuple(j1, lim, acc1)
}
ocond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
obody {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  init = (s32[], s32[], s32[]) tuple(zero, i, acc)
  w = (s32[], s32[], s32[]) while(init), condition=icond, body=ibody
  acc1 = s32[] get-tuple-element(w), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i1, acc1)
}
dcond {
  x = s32[] parameter(0)
  k = s32[] constant(1000)
  ROOT le = pred[] compare(x, k), direction=LE
}
dbody {
  x = s32[] parameter(0)
  ROOT y = s32[] add(x, x)
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=ocond, body=obody
  sum = s32[] get-tuple-element(w), index=1
  one = s32[] constant(1)
  d = s32[] while(one), condition=dcond, body=dbody
  ROOT r = (s32[], s32[]) tuple(sum, d)
}
"#;
    check(hlo, &[], "(s32[], s32[]) (6, 1024)");
}

#[test]
fn while_updating_a_buffer_in_place_each_trip() {
    // buf[i] = i * i for i in 0..8, one dynamic-update-slice per trip (a scan's output).
    let hlo = r#"
HloModule scan
cond {
  s = (s32[], s32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = s32[8]{0} get-tuple-element(s), index=1
  sq = s32[] multiply(i, i)
  v = s32[1] reshape(sq)
  upd = s32[8]{0} dynamic-update-slice(buf, v, i)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], s32[8]{0}) tuple(j, upd)
}
ENTRY e {
  zero = s32[] constant(0)
  z = s32[8]{0} broadcast(zero), dimensions={}
  init = (s32[], s32[8]{0}) tuple(zero, z)
  w = (s32[], s32[8]{0}) while(init), condition=cond, body=body
  ROOT buf = s32[8]{0} get-tuple-element(w), index=1
}
"#;
    check(hlo, &[], "s32[8] {0, 1, 4, 9, 16, 25, 36, 49}");
}

// ---------------------------------------------------------------- conditional

const SWITCH: &str = r#"
HloModule sw
b0 {
  x = f32[3] parameter(0)
  ROOT n = f32[3] negate(x)
}
b1 {
  x = f32[3] parameter(0)
  ROOT a = f32[3] add(x, x)
}
b2 {
  x = f32[3] parameter(0)
  ROOT m = f32[3] multiply(x, x)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[3] parameter(1)
  y = f32[3] parameter(2)
  z = f32[3] parameter(3)
  ROOT c = f32[3]{0} conditional(i, x, y, z), branch_computations={b0, b1, b2}
}
"#;

#[test]
fn conditional_by_index_runs_branch_i_on_operand_i_plus_1() {
    let args = |i: i32| {
        vec![
            lit(&format!("s32[] {i}")),
            lit("f32[3] {1, 2, 3}"),
            lit("f32[3] {10, 20, 30}"),
            lit("f32[3] {-1, -2, -3}"),
        ]
    };
    check(SWITCH, &args(0), "f32[3] {-1, -2, -3}");
    check(SWITCH, &args(1), "f32[3] {20, 40, 60}");
    check(SWITCH, &args(2), "f32[3] {1, 4, 9}");
    // Out of range, either side: the last branch (seed 004, Conditional).
    check(SWITCH, &args(3), "f32[3] {1, 4, 9}");
    check(SWITCH, &args(-1), "f32[3] {1, 4, 9}");
    check(SWITCH, &args(i32::MIN), "f32[3] {1, 4, 9}");
}

#[test]
fn conditional_by_pred_runs_the_true_or_false_computation() {
    let hlo = r#"
HloModule c
t {
  p = (f32[2], s32[]) parameter(0)
  ROOT x = f32[2] get-tuple-element(p), index=0
}
f {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
ENTRY e {
  p = pred[] parameter(0)
  a = (f32[2], s32[]) parameter(1)
  b = f32[2] parameter(2)
  ROOT c = f32[2]{0} conditional(p, a, b), true_computation=t, false_computation=f
}
"#;
    let args = |p: bool| {
        vec![
            lit(&format!("pred[] {p}")),
            lit("(f32[2], s32[]) ({1, 2}, 7)"),
            lit("f32[2] {5, 6}"),
        ]
    };
    check(hlo, &args(true), "f32[2] {1, 2}");
    check(hlo, &args(false), "f32[2] {-5, -6}");
    // The same with `branch_computations` (XLA's stored form: true is branch 0).
    let listed = hlo.replace(
        "true_computation=t, false_computation=f",
        "branch_computations={t, f}",
    );
    check(&listed, &args(true), "f32[2] {1, 2}");
    check(&listed, &args(false), "f32[2] {-5, -6}");
}

// ---------------------------------------------------------------- map, opt-barrier

#[test]
fn map_of_one_instruction_in_any_layout() {
    let hlo = r#"
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  y = f32[2,3]{1,0} parameter(1)
  ROOT m = f32[2,3]{0,1} map(x, y), dimensions={0,1}, to_apply=add
}
"#;
    check(
        hlo,
        &[
            lit("f32[2,3]{0,1} {{1, 2, 3}, {4, 5, 6}}"),
            lit("f32[2,3] {{10, 20, 30}, {40, 50, 60}}"),
        ],
        "f32[2,3] {{11, 22, 33}, {44, 55, 66}}",
    );
}

#[test]
fn map_of_several_instructions_and_of_a_call() {
    // f(a, b) = select(a > b, a * 2, b - 1) as s32, with and without a call inside (the call
    // forces the per-element path).
    let body = r#"
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  gt = pred[] compare(a, b), direction=GT
  two = f32[] constant(2)
  a2 = f32[] multiply(a, two)
  one = f32[] constant(1)
  b1 = f32[] subtract(b, one)
  s = f32[] select(gt, a2, b1)
  ROOT c = s32[] convert(s)
"#;
    let direct = format!(
        "HloModule m\nf {{{body}}}\nENTRY e {{\n  x = f32[5] parameter(0)\n  y = f32[5] parameter(1)\n  ROOT m = s32[5] map(x, y), dimensions={{0}}, to_apply=f\n}}\n"
    );
    let called = format!(
        "HloModule m\ng {{{body}}}\nf {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = s32[] call(a, b), to_apply=g\n}}\nENTRY e {{\n  x = f32[5] parameter(0)\n  y = f32[5] parameter(1)\n  ROOT m = s32[5]{{0}} map(x, y), dimensions={{0}}, to_apply=f\n}}\n"
    );
    let args = [
        lit("f32[5] {1, 5, -3, 2.5, 0}"),
        lit("f32[5] {2, 4, -4, 2.5, -1}"),
    ];
    let want = "s32[5] {1, 10, -6, 1, 0}";
    check(&direct, &args, want);
    check(&called, &args, want);
    // Large enough for the parallel per-element path.
    let n = 3000;
    let xs: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
    let ys: Vec<f64> = (0..n).map(|i| (i % 5) as f64).collect();
    let shape = ArrayShape::new(ElementType::F32, vec![n as i64]);
    let args = [
        Literal::from(ArrayLiteral::from_f64s(shape.clone(), &xs).unwrap()),
        Literal::from(ArrayLiteral::from_f64s(shape, &ys).unwrap()),
    ];
    let sized = |t: &str| t.replace("[5]", &format!("[{n}]"));
    let a = run(&sized(&direct), &args);
    let b = run(&sized(&called), &args);
    assert!(a.logical_eq(&b));
    let v = a.as_array().unwrap().to_i128s().unwrap();
    for i in 0..n {
        let (x, y) = (xs[i], ys[i]);
        let want = if x > y { x * 2.0 } else { y - 1.0 };
        assert_eq!(v[i], want as i128);
    }
}

#[test]
fn opt_barrier_is_the_identity() {
    let hlo = r#"
HloModule b
ENTRY e {
  x = f32[2] parameter(0)
  i = s32[] parameter(1)
  t = (f32[2], s32[]) tuple(x, i)
  ROOT b = (f32[2], s32[]) opt-barrier(t)
}
"#;
    check(
        hlo,
        &[lit("f32[2] {1, nan}"), lit("s32[] 3")],
        "(f32[2], s32[]) ({1, nan}, 3)",
    );
}

// ---------------------------------------------------------------- sort

/// A one-operand sort module of `ty[n]` whose comparator is `body` (lines after the parameters
/// `p0`, `p1`, the last one `ROOT`).
fn sort_body(ty: &str, n: usize, body: &str) -> String {
    format!(
        "HloModule s\ncmp {{\n  p0 = {ty}[] parameter(0)\n  p1 = {ty}[] parameter(1)\n{body}}}\nENTRY e {{\n  x = {ty}[{n}] parameter(0)\n  ROOT s = {ty}[{n}] sort(x), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n"
    )
}

/// A one-operand sort module of `ty[n]` with comparator root `root` over `p0`, `p1`.
fn sort1(ty: &str, n: usize, root: &str) -> String {
    sort_body(ty, n, &format!("  ROOT r = pred[] {root}\n"))
}

/// The canonicalizing comparator JAX emits for float sorts, on `n` operands (key = operand 0).
fn jax_sort(types: &[&str], n: usize, dims: &str, d: usize) -> String {
    let ty = types[0];
    let mut params = String::new();
    for (i, t) in types.iter().enumerate().skip(1) {
        params += &format!(
            "  q{a} = {t}[] parameter({a})\n  q{b} = {t}[] parameter({b})\n",
            a = 2 * i,
            b = 2 * i + 1
        );
    }
    let shapes: Vec<String> = types.iter().map(|t| format!("{t}[{dims}]")).collect();
    let operands: Vec<String> = (0..types.len()).map(|i| format!("x{i}")).collect();
    let decls: String = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| format!("  x{i} = {s} parameter({i})\n"))
        .collect();
    let result = if types.len() == 1 {
        shapes[0].clone()
    } else {
        format!("({})", shapes.join(", "))
    };
    let _ = n;
    format!(
        r#"HloModule jax
cmp {{
{params}  a = {ty}[] parameter(0)
  ne.2 = pred[] compare(a, a), direction=NE
  nan = {ty}[] constant(nan)
  zero = {ty}[] constant(0)
  eq.2 = pred[] compare(a, zero), direction=EQ
  s4 = {ty}[] select(eq.2, zero, a)
  s5 = {ty}[] select(ne.2, nan, s4)
  b = {ty}[] parameter(1)
  ne.3 = pred[] compare(b, b), direction=NE
  eq.3 = pred[] compare(b, zero), direction=EQ
  s6 = {ty}[] select(eq.3, zero, b)
  s7 = {ty}[] select(ne.3, nan, s6)
  ROOT lt = pred[] compare(s5, s7), direction=LT, type=TOTALORDER
}}
ENTRY e {{
{decls}  ROOT s = {result} sort({ops}), dimensions={{{d}}}, is_stable=true, to_apply=cmp
}}
"#,
        ops = operands.join(", ")
    )
}

const SPECIALS: &str = "f32[12] {3, -0, nan, 1, 0, -inf, -nan, 1, inf, -2, 0, nan(0x1234)}";

#[test]
fn sort_total_order_places_nans_by_sign_and_zeros_by_sign() {
    check(
        &sort1("f32", 12, "compare(p0, p1), direction=LT, type=TOTALORDER"),
        &[lit(SPECIALS)],
        "f32[12] {-nan, -inf, -2, -0, 0, 0, 1, 1, 3, inf, nan(0x1234), nan}",
    );
    check(
        &sort1("f32", 12, "compare(p0, p1), direction=GT, type=TOTALORDER"),
        &[lit(SPECIALS)],
        "f32[12] {nan, nan(0x1234), inf, 3, 1, 1, 0, 0, -0, -2, -inf, -nan}",
    );
}

#[test]
fn sort_with_jax_comparator_ties_zeros_and_puts_every_nan_last_in_input_order() {
    check(
        &jax_sort(&["f32"], 12, "12", 0),
        &[lit(SPECIALS)],
        "f32[12] {-inf, -2, -0, 0, 0, 1, 1, 3, inf, nan, -nan, nan(0x1234)}",
    );
}

#[test]
fn sort_with_ieee_less_than_and_no_nan() {
    check(
        &sort1("f32", 6, "compare(p0, p1), direction=LT"),
        &[lit("f32[6] {0, -1, -0, 2, -inf, 0}")],
        "f32[6] {-inf, -1, 0, -0, 0, 2}",
    );
    check(
        &sort1("s32", 5, "compare(p1, p0), direction=LT"),
        &[lit("s32[5] {3, -7, 2147483647, 0, -2147483648}")],
        "s32[5] {2147483647, 3, 0, -7, -2147483648}",
    );
    check(
        &sort1("u8", 5, "compare(p0, p1), direction=LT"),
        &[lit("u8[5] {255, 0, 128, 127, 1}")],
        "u8[5] {0, 1, 127, 128, 255}",
    );
    check(
        &sort1("pred", 4, "compare(p0, p1), direction=LT"),
        &[lit("pred[4] {true, false, true, false}")],
        "pred[4] {false, false, true, true}",
    );
}

#[test]
fn stable_sort_keeps_equal_keys_in_input_order() {
    // Keys with duplicates, payload = position: stable means payloads ascend within equal keys.
    let hlo = r#"
HloModule st
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  k = s32[10] parameter(0)
  i = s32[10] iota(), iota_dimension=0
  ROOT s = (s32[10], s32[10]) sort(k, i), dimensions={0}, is_stable=true, to_apply=cmp
}
"#;
    check(
        hlo,
        &[lit("s32[10] {2, 1, 2, 3, 1, 2, 3, 3, 1, 2}")],
        "(s32[10], s32[10]) ({3, 3, 3, 2, 2, 2, 2, 1, 1, 1}, {3, 6, 7, 0, 2, 5, 9, 1, 4, 8})",
    );
    let unstable = hlo.replace("is_stable=true", "is_stable=false");
    check(
        &unstable,
        &[lit("s32[10] {2, 1, 2, 3, 1, 2, 3, 3, 1, 2}")],
        "(s32[10], s32[10]) ({3, 3, 3, 2, 2, 2, 2, 1, 1, 1}, {3, 6, 7, 0, 2, 5, 9, 1, 4, 8})",
    );
}

#[test]
fn sort_three_operands_along_either_dimension_in_any_layout() {
    // Key f32 (JAX comparator), payloads s32 and u8, f32[3,4]: dimension 0 sorts columns,
    // dimension 1 rows; operands and results in transposed layouts.
    let keys = "f32[3,4]{0,1} {{3, 1, 2, 0}, {1, 1, -5, 7}, {2, 0, 9, -1}}";
    let p1 = "s32[3,4] {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}";
    let p2 = "u8[3,4]{0,1} {{10, 11, 12, 13}, {14, 15, 16, 17}, {18, 19, 20, 21}}";
    let args = [lit(keys), lit(p1), lit(p2)];
    let by_cols = jax_sort(&["f32", "s32", "u8"], 12, "3,4", 0)
        .replace("x0 = f32[3,4] parameter", "x0 = f32[3,4]{0,1} parameter")
        .replace(
            "(f32[3,4], s32[3,4], u8[3,4]) sort",
            "(f32[3,4]{0,1}, s32[3,4], u8[3,4]{0,1}) sort",
        );
    check(
        &by_cols,
        &args,
        "(f32[3,4], s32[3,4], u8[3,4]) ({{1, 0, -5, -1}, {2, 1, 2, 0}, {3, 1, 9, 7}}, \
         {{4, 9, 6, 11}, {8, 1, 2, 3}, {0, 5, 10, 7}}, \
         {{14, 19, 16, 21}, {18, 11, 12, 13}, {10, 15, 20, 17}})",
    );
    let by_rows = jax_sort(&["f32", "s32", "u8"], 12, "3,4", 1).replace(
        "(f32[3,4], s32[3,4], u8[3,4]) sort",
        "(f32[3,4], s32[3,4]{0,1}, u8[3,4]) sort",
    );
    check(
        &by_rows,
        &args,
        "(f32[3,4], s32[3,4], u8[3,4]) ({{0, 1, 2, 3}, {-5, 1, 1, 7}, {-1, 0, 2, 9}}, \
         {{3, 1, 2, 0}, {6, 4, 5, 7}, {11, 9, 8, 10}}, \
         {{13, 11, 12, 10}, {16, 14, 15, 17}, {21, 19, 18, 20}})",
    );
}

#[test]
fn sort_by_any_comparator_is_interpreted() {
    // |a| < |b| (not recognized): stable, so -1 before 1 before -1 in input order.
    check(
        &sort_body(
            "f32",
            7,
            "  a0 = f32[] abs(p0)\n  a1 = f32[] abs(p1)\n  ROOT r = pred[] compare(a0, a1), direction=LT\n",
        ),
        &[lit("f32[7] {3, -1, 2, 1, -3, -1, 0}")],
        "f32[7] {0, -1, 1, -1, 2, 3, -3}",
    );
    // Lexicographic on two keys, second descending, built so the recognizer accepts it, and the
    // same relation hidden behind `and(x, x)` so it does not: both give the same order.
    let lex = |hide: bool| {
        let root = if hide {
            "  r0 = pred[] or(lt0, and0)\n  ROOT r = pred[] and(r0, r0)\n"
        } else {
            "  ROOT r = pred[] or(lt0, and0)\n"
        };
        format!(
            r#"HloModule lex
cmp {{
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  lt0 = pred[] compare(a, b), direction=LT
  eq0 = pred[] compare(a, b), direction=EQ
  gt1 = pred[] compare(c, d), direction=GT, type=TOTALORDER
  and0 = pred[] and(eq0, gt1)
{root}}}
ENTRY e {{
  k = s32[6] parameter(0)
  v = f32[6] parameter(1)
  ROOT s = (s32[6], f32[6]) sort(k, v), dimensions={{0}}, is_stable=true, to_apply=cmp
}}
"#
        )
    };
    let args = [
        lit("s32[6] {2, 1, 2, 1, 0, 2}"),
        lit("f32[6] {1, 5, 3, -0, 9, 0}"),
    ];
    let want = "(s32[6], f32[6]) ({0, 1, 1, 2, 2, 2}, {9, 5, -0, 3, 1, 0})";
    check(&lex(false), &args, want);
    check(&lex(true), &args, want);
}

#[test]
fn sort_of_large_arrays_parallel_rows_and_passes() {
    // One long row (parallel radix passes) and many rows (rows in parallel), with payloads.
    for (rows, len) in [(1usize, 300_000usize), (600, 500)] {
        let n = rows * len;
        let mut s = 12345u64;
        let keys: Vec<u128> = (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) % 1000) as u128
            })
            .collect();
        let shape = ArrayShape::new(ElementType::U32, vec![rows as i64, len as i64]);
        let k = ArrayLiteral::from_bits(shape.clone(), &keys).unwrap();
        let hlo = format!(
            "HloModule big\ncmp {{\n  a = u32[] parameter(0)\n  b = u32[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT\n}}\nENTRY e {{\n  k = u32[{rows},{len}] parameter(0)\n  i = s32[{rows},{len}] iota(), iota_dimension=1\n  ROOT s = (u32[{rows},{len}], s32[{rows},{len}]) sort(k, i), dimensions={{1}}, to_apply=cmp\n}}\n"
        );
        let got = run(&hlo, &[Literal::from(k)]);
        let Literal::Tuple(t) = got else { panic!() };
        let (gk, gi) = (
            t[0].as_array().unwrap().logical_bits(),
            t[1].as_array().unwrap().logical_bits(),
        );
        for r in 0..rows {
            let mut want: Vec<(u128, u128)> =
                (0..len).map(|j| (keys[r * len + j], j as u128)).collect();
            want.sort_by_key(|x| x.0);
            for j in 0..len {
                assert_eq!(
                    (gk[r * len + j], gi[r * len + j]),
                    want[j],
                    "row {r} position {j}"
                );
            }
        }
    }
}

/// Sorts `keys` (with an s32 payload of positions) by `compare(p0, p1)` with `attrs`, through the
/// recognized comparator and through the same relation hidden from the recognizer.
fn radix_and_interpreted(
    ty: ElementType,
    keys: &[u128],
    attrs: &str,
    descending: bool,
) -> (Literal, Literal) {
    let n = keys.len();
    let t = ty.hlo_name();
    let (l, r) = if descending {
        ("p1", "p0")
    } else {
        ("p0", "p1")
    };
    let module = |hide: bool| {
        let root = if hide {
            format!("  c = pred[] compare({l}, {r}), {attrs}\n  ROOT h = pred[] and(c, c)\n")
        } else {
            format!("  ROOT c = pred[] compare({l}, {r}), {attrs}\n")
        };
        format!(
            "HloModule p\ncmp {{\n  p0 = {t}[] parameter(0)\n  p1 = {t}[] parameter(1)\n  q2 = s32[] parameter(2)\n  q3 = s32[] parameter(3)\n{root}}}\nENTRY e {{\n  k = {t}[{n}] parameter(0)\n  i = s32[{n}] iota(), iota_dimension=0\n  ROOT s = ({t}[{n}], s32[{n}]) sort(k, i), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n"
        )
    };
    let arg =
        Literal::from(ArrayLiteral::from_bits(ArrayShape::new(ty, vec![n as i64]), keys).unwrap());
    (
        run(&module(false), std::slice::from_ref(&arg)),
        run(&module(true), &[arg]),
    )
}

fn f32_bits() -> impl Strategy<Value = u128> {
    prop_oneof![
        any::<u32>().prop_map(|b| b as u128),
        prop::sample::select(vec![
            0u32,
            0x8000_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x0000_0001,
            0x8000_0001,
        ])
        .prop_map(|b| b as u128),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn radix_sort_equals_interpreted_sort_f32_total(keys in prop::collection::vec(f32_bits(), 0..600), desc in any::<bool>()) {
        let (a, b) = radix_and_interpreted(ElementType::F32, &keys, "direction=LT, type=TOTALORDER", desc);
        prop_assert!(a.logical_eq(&b), "{a:?}\n{b:?}");
    }

    #[test]
    fn radix_sort_equals_interpreted_sort_f32_ieee_without_nan(
        keys in prop::collection::vec(f32_bits().prop_filter("no NaN", |b| !f32::from_bits(*b as u32).is_nan()), 0..600),
        desc in any::<bool>(),
    ) {
        let (a, b) = radix_and_interpreted(ElementType::F32, &keys, "direction=LT", desc);
        prop_assert!(a.logical_eq(&b), "{a:?}\n{b:?}");
    }

    #[test]
    fn radix_sort_equals_interpreted_sort_s32_u32(
        keys in prop::collection::vec(prop_oneof![any::<u32>(), 0u32..8, prop::sample::select(vec![0u32, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff])], 0..600),
        desc in any::<bool>(),
    ) {
        let keys: Vec<u128> = keys.into_iter().map(u128::from).collect();
        for ty in [ElementType::S32, ElementType::U32] {
            let (a, b) = radix_and_interpreted(ty, &keys, "direction=LT", desc);
            prop_assert!(a.logical_eq(&b), "{ty}: {a:?}\n{b:?}");
        }
    }

    #[test]
    fn topk_equals_the_head_of_a_stable_sort(
        rows in 1usize..4,
        n in 1usize..80,
        seed in any::<u64>(),
        k_frac in 0.0f64..=1.0,
        largest in any::<bool>(),
        small_range in any::<bool>(),
    ) {
        let k = ((n as f64) * k_frac) as usize;
        let mut s = seed | 1;
        let specials = [0u32, 0x8000_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0000, 0xff80_0000, 0x3f80_0000];
        let bits: Vec<u128> = (0..rows * n)
            .map(|_| {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                let b = if small_range {
                    specials[(s % specials.len() as u64) as usize]
                } else if s % 5 == 0 {
                    specials[((s >> 8) % specials.len() as u64) as usize]
                } else {
                    (s >> 16) as u32
                };
                b as u128
            })
            .collect();
        let x = ArrayLiteral::from_bits(ArrayShape::new(ElementType::F32, vec![rows as i64, n as i64]), &bits).unwrap();
        let hlo = format!(
            "HloModule t\nENTRY e {{\n  x = f32[{rows},{n}] parameter(0)\n  ROOT t = (f32[{rows},{k}], s32[{rows},{k}]) topk(x), k={k}, largest={largest}\n}}\n"
        );
        let got = run(&hlo, &[Literal::from(x)]);
        let Literal::Tuple(t) = got else { panic!() };
        let (gv, gi) = (t[0].as_array().unwrap().logical_bits(), t[1].as_array().unwrap().logical_bits());
        let map = KeyMap::total_order(ElementType::F32).unwrap();
        for r in 0..rows {
            let mut order: Vec<usize> = (0..n).collect();
            // Stable: equal elements keep index order.
            if largest {
                order.sort_by(|&a, &b| map.apply(bits[r * n + b] as u64).cmp(&map.apply(bits[r * n + a] as u64)));
            } else {
                order.sort_by_key(|&a| map.apply(bits[r * n + a] as u64));
            }
            for j in 0..k {
                prop_assert_eq!(gi[r * k + j], order[j] as u128);
                prop_assert_eq!(gv[r * k + j], bits[r * n + order[j]]);
            }
        }
    }
}

#[test]
fn topk_edge_sizes_and_layouts() {
    let x = "f32[2,4]{0,1} {{1, 3, 3, -1}, {nan, -inf, 0, -0}}";
    let module = |k: usize, largest: bool| {
        format!(
            "HloModule t\nENTRY e {{\n  x = f32[2,4]{{0,1}} parameter(0)\n  ROOT t = (f32[2,{k}]{{0,1}}, s32[2,{k}]) topk(x), k={k}, largest={largest}\n}}\n"
        )
    };
    check(
        &module(0, true),
        &[lit(x)],
        "(f32[2,0], s32[2,0]) ({{}, {}}, {{}, {}})",
    );
    check(
        &module(4, true),
        &[lit(x)],
        "(f32[2,4], s32[2,4]) ({{3, 3, 1, -1}, {nan, 0, -0, -inf}}, {{1, 2, 0, 3}, {0, 2, 3, 1}})",
    );
    check(
        &module(2, false),
        &[lit(x)],
        "(f32[2,2], s32[2,2]) ({{-1, 1}, {-inf, -0}}, {{3, 0}, {1, 3}})",
    );
    let ints = "HloModule t\nENTRY e {\n  x = s8[5] parameter(0)\n  ROOT t = (s8[2], s32[2]) topk(x), k=2, largest=true\n}\n";
    check(
        ints,
        &[lit("s8[5] {-128, 127, 5, 127, 0}")],
        "(s8[2], s32[2]) ({127, 127}, {1, 3})",
    );
}

#[test]
fn control_flow_errors_are_reported() {
    let bad_cond = COUNTED_LOOP.replace(
        "ROOT lt = pred[] compare(i, n), direction=LT",
        "ROOT lt = s32[] add(i, n)",
    );
    let module = parse_module(&bad_cond).unwrap();
    let e = Fast::new()
        .execute(&module, &[lit("f32[4] {1, 2, 3, 4}")])
        .unwrap_err();
    assert!(e.to_string().contains("pred"), "{e}");
}
