//! Compiled loops ([`super::loop_plan`]) against the interpreter: the same module and arguments give
//! the same bits (NaN payloads, signed zeros and subnormals included) or the same error, and the
//! loops meant to compile do compile (counted by [`super::loop_plan::PLANS_RUN`]).

use super::loop_plan::PLANS_RUN;
use crate::test_rng::Rng;
use crate::Fast;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{Backend, BackendError, Literal, Shape};

/// Random bits for every element of `shape` (any element type; floats get NaNs, infinities,
/// subnormals and zeros of both signs among them).
fn random(shape: &Shape, rng: &mut Rng) -> Literal {
    match shape {
        Shape::Array(a) => {
            let w = a.element_type.bit_width();
            let mask = if w >= 128 {
                u128::MAX
            } else {
                (1u128 << w) - 1
            };
            let bits: Vec<u128> = (0..a.element_count())
                .map(|_| {
                    let r = ((rng.next() as u128) << 64 | rng.next() as u128) & mask;
                    match rng.below(8) {
                        0 => 0,
                        1 => r & 0xff,
                        _ => r,
                    }
                })
                .collect();
            Literal::Array(ArrayLiteral::from_bits(a.clone(), &bits).expect("bits fit"))
        }
        Shape::Tuple(t) => Literal::Tuple(t.iter().map(|s| random(s, rng)).collect()),
        Shape::Token => Literal::Token,
    }
}

/// Runs `hlo` compiled and interpreted on random arguments (several seeds) and asserts equal
/// results; returns how many runs took the compiled path.
fn same_both_ways(hlo: &str) -> usize {
    let m = parse_module(hlo).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    let compiled = Fast::sequential();
    let interpreted = Fast::sequential().with_compiled_loops(false);
    let mut rng = Rng(0x5eed_1234);
    let before = PLANS_RUN.with(|c| c.get());
    for _ in 0..8 {
        let args: Vec<Literal> = m
            .entry_computation()
            .parameters()
            .iter()
            .map(|p| random(&p.shape, &mut rng))
            .collect();
        let a = compiled.execute(&m, &args);
        let b = interpreted.execute(&m, &args);
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert_eq!(x, y, "{hlo}\nargs {args:?}"),
            (Err(x), Err(y)) => assert_eq!(
                std::mem::discriminant(x),
                std::mem::discriminant(y),
                "{x} vs {y}"
            ),
            _ => panic!("compiled {a:?}, interpreted {b:?}\n{hlo}"),
        }
    }
    PLANS_RUN.with(|c| c.get()) - before
}

/// A counted loop `for i in 0..n` over state `(s32[], T...)` with `body` computing `new.k` from
/// `x.k` (the state's arrays) and `i`.
fn counted(n: i32, types: &[&str], body: &str) -> String {
    let state: Vec<String> = std::iter::once("s32[]".to_string())
        .chain(types.iter().map(|t| t.to_string()))
        .collect();
    let state = format!("({})", state.join(", "));
    let gets: String = types
        .iter()
        .enumerate()
        .map(|(k, t)| format!("  x.{k} = {t} get-tuple-element(s), index={}\n", k + 1))
        .collect();
    let news: Vec<String> = (0..types.len()).map(|k| format!("new.{k}")).collect();
    let params: String = types
        .iter()
        .enumerate()
        .map(|(k, t)| format!("  p.{k} = {t} parameter({k})\n"))
        .collect();
    let ps: Vec<String> = (0..types.len()).map(|k| format!("p.{k}")).collect();
    format!(
        "HloModule loop\ncond {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant({n})\n  ROOT lt = pred[] compare(i, n), direction=LT\n}}\nbody {{\n  s = {state} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n{gets}{body}\n  ROOT t = {state} tuple(j, {news})\n}}\nENTRY e {{\n{params}  zero = s32[] constant(0)\n  init = {state} tuple(zero, {ps})\n  ROOT w = {state} while(init), condition=cond, body=body\n}}\n",
        news = news.join(", "),
        ps = ps.join(", ")
    )
}

#[test]
fn float_arithmetic_matches_the_interpreter_bit_for_bit() {
    for t in ["f32", "f64"] {
        for op in [
            "add",
            "subtract",
            "multiply",
            "divide",
            "remainder",
            "maximum",
            "minimum",
        ] {
            let body = format!(
                "  a = {t}[3,5]{{0,1}} {op}(x.0, x.1)\n  new.0 = {t}[3,5]{{0,1}} negate(a)\n  new.1 = {t}[3,5]{{0,1}} abs(x.0)"
            );
            let hlo = counted(
                5,
                &[&format!("{t}[3,5]{{0,1}}"), &format!("{t}[3,5]{{0,1}}")],
                &body,
            );
            assert_eq!(same_both_ways(&hlo), 8, "{hlo}");
        }
    }
}

#[test]
fn integer_and_pred_kernels_match_the_interpreter() {
    for t in ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"] {
        for op in [
            "add", "subtract", "multiply", "and", "or", "xor", "maximum", "minimum",
        ] {
            let body = format!(
                "  a = {t}[7] {op}(x.0, x.1)\n  new.0 = {t}[7] not(a)\n  new.1 = {t}[7] negate(x.0)"
            );
            let hlo = counted(3, &[&format!("{t}[7]"), &format!("{t}[7]")], &body);
            assert_eq!(same_both_ways(&hlo), 8, "{hlo}");
        }
    }
    for op in ["and", "or", "xor", "maximum", "minimum", "add", "multiply"] {
        let body = format!(
            "  a = pred[4] {op}(x.0, x.1)\n  new.0 = pred[4] not(a)\n  new.1 = pred[4] copy(x.0)"
        );
        assert_eq!(
            same_both_ways(&counted(4, &["pred[4]", "pred[4]"], &body)),
            8
        );
    }
}

#[test]
fn compare_and_select_match_the_interpreter() {
    for (t, types) in [
        ("f32", &["", ", type=TOTALORDER", ", type=FLOAT"][..]),
        ("f64", &["", ", type=TOTALORDER"][..]),
        ("bf16", &[", type=TOTALORDER"][..]),
        ("s32", &["", ", type=UNSIGNED"][..]),
        ("u16", &["", ", type=SIGNED"][..]),
        ("s64", &[""][..]),
    ] {
        for ty in types {
            for dir in ["EQ", "NE", "LT", "LE", "GT", "GE"] {
                let body = format!(
                    "  c = pred[6] compare(x.0, x.1), direction={dir}{ty}\n  new.0 = {t}[6] select(c, x.1, x.0)\n  c0 = pred[] compare(i, one), direction=GT\n  new.1 = {t}[6] select(c0, x.0, x.1)"
                );
                let hlo = counted(4, &[&format!("{t}[6]"), &format!("{t}[6]")], &body);
                assert_eq!(same_both_ways(&hlo), 8, "{hlo}");
            }
        }
    }
}

#[test]
fn escapes_run_what_has_no_kernel() {
    // exp, convert, a broadcast of an array, a dot, a reduce with its computation, a sort, a
    // nested loop, a conditional: all inside a compiled loop.
    let hlo = r#"HloModule esc
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
lt { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER }
icond { s = (s32[], f32[4]) parameter(0)  i = s32[] get-tuple-element(s), index=0  two = s32[] constant(2)  ROOT c = pred[] compare(i, two), direction=LT }
ibody { s = (s32[], f32[4]) parameter(0)  i = s32[] get-tuple-element(s), index=0  one = s32[] constant(1)  j = s32[] add(i, one)  x = f32[4] get-tuple-element(s), index=1  y = f32[4] multiply(x, x)  ROOT t = (s32[], f32[4]) tuple(j, y) }
neg { x = f32[4] parameter(0)  ROOT n = f32[4] negate(x) }
same { x = f32[4] parameter(0)  ROOT c = f32[4] copy(x) }
cond { s = (s32[], f32[4], f32[4,4]) parameter(0)  i = s32[] get-tuple-element(s), index=0  n = s32[] constant(6)  ROOT c = pred[] compare(i, n), direction=LT }
body {
  s = (s32[], f32[4], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[4] get-tuple-element(s), index=1
  m = f32[4,4] get-tuple-element(s), index=2
  e = f32[4] exponential(x)
  ci = f32[] convert(i)
  b = f32[4,4] broadcast(e), dimensions={1}
  d = f32[4] dot(m, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[4] reduce(b, z), dimensions={0}, to_apply=add
  so = f32[4] sort(d), dimensions={0}, to_apply=lt
  zi = s32[] constant(0)
  it = (s32[], f32[4]) tuple(zi, so)
  w = (s32[], f32[4]) while(it), condition=icond, body=ibody
  wx = f32[4] get-tuple-element(w), index=1
  odd = s32[] and(i, one)
  p = pred[] compare(odd, one), direction=EQ
  k = f32[4] conditional(p, wx, r), true_computation=neg, false_computation=same
  bc = f32[4] broadcast(ci), dimensions={}
  y = f32[4] add(k, bc)
  mm = f32[4,4] add(m, b)
  ROOT t = (s32[], f32[4], f32[4,4]) tuple(j, y, mm)
}
ENTRY e {
  x = f32[4] parameter(0)
  m = f32[4,4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4,4]) tuple(zero, x, m)
  ROOT w = (s32[], f32[4], f32[4,4]) while(init), condition=cond, body=body
}
"#;
    // The outer loop compiles; so does the inner one, at each of its runs (escapes re-enter the
    // interpreter, which compiles that loop again).
    assert!(same_both_ways(hlo) > 8);
}

#[test]
fn state_permutations_duplicates_and_constants_are_moved_correctly() {
    // The root passes state arrays through in another order, returns one computed value twice,
    // and a hoisted constant.
    let hlo = r#"HloModule perm
cond { s = (s32[], f32[3], f32[3], f32[3], f32[3]) parameter(0)  i = s32[] get-tuple-element(s), index=0  n = s32[] constant(5)  ROOT c = pred[] compare(i, n), direction=LT }
body {
  s = (s32[], f32[3], f32[3], f32[3], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  a = f32[3] get-tuple-element(s), index=1
  b = f32[3] get-tuple-element(s), index=2
  c = f32[3] get-tuple-element(s), index=3
  k = f32[3] constant({1, -0, 2.5})
  y = f32[3] add(a, c)
  ROOT t = (s32[], f32[3], f32[3], f32[3], f32[3]) tuple(j, b, y, y, k)
}
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  c = f32[3] parameter(2)
  d = f32[3] parameter(3)
  zero = s32[] constant(0)
  init = (s32[], f32[3], f32[3], f32[3], f32[3]) tuple(zero, a, b, c, d)
  ROOT w = (s32[], f32[3], f32[3], f32[3], f32[3]) while(init), condition=cond, body=body
}
"#;
    assert_eq!(same_both_ways(hlo), 8);
    // A rotation of three state arrays with no arithmetic at all.
    let rot = counted(
        7,
        &["u8[2]", "u8[2]", "u8[2]"],
        "  new.0 = u8[2] copy(x.1)\n  new.1 = u8[2] copy(x.2)\n  new.2 = u8[2] copy(x.0)",
    );
    assert_eq!(same_both_ways(&rot), 8);
}

#[test]
fn layouts_that_differ_are_converted_or_left_to_the_interpreter() {
    // A state array in one layout, the body computing in another: a copy relayouts (an escape).
    let body = "  tr = f32[2,3]{0,1} copy(x.0)\n  sq = f32[2,3]{0,1} multiply(tr, tr)\n  new.0 = f32[2,3]{1,0} copy(sq)";
    assert_eq!(same_both_ways(&counted(3, &["f32[2,3]{1,0}"], body)), 8);
    // A padded state array: not compiled, same results.
    let padded = counted(
        3,
        &["f32[2,3]{1,0:P(2,4)}"],
        "  new.0 = f32[2,3]{1,0:P(2,4)} add(x.0, x.0)",
    );
    assert_eq!(same_both_ways(&padded), 0);
    // A large state: left to the interpreter.
    let large = counted(2, &["f32[8192]"], "  new.0 = f32[8192] add(x.0, x.0)");
    assert_eq!(same_both_ways(&large), 0);
}

#[test]
fn zero_trips_limits_and_errors_are_the_interpreters() {
    // The condition is false at once.
    assert_eq!(
        same_both_ways(&counted(0, &["f32[2]"], "  new.0 = f32[2] add(x.0, x.0)")),
        8
    );
    // A loop that never ends stops at the iteration limit with the same verdict.
    let forever = r#"HloModule forever
cond { s = (s32[], f32[2]) parameter(0)  ROOT t = pred[] constant(true) }
body { s = (s32[], f32[2]) parameter(0)  i = s32[] get-tuple-element(s), index=0  one = s32[] constant(1)  j = s32[] add(i, one)  x = f32[2] get-tuple-element(s), index=1  ROOT t = (s32[], f32[2]) tuple(j, x) }
ENTRY e { x = f32[2] parameter(0)  z = s32[] constant(0)  init = (s32[], f32[2]) tuple(z, x)  ROOT w = (s32[], f32[2]) while(init), condition=cond, body=body }
"#;
    let m = parse_module(forever).unwrap();
    let args = [Literal::Array(
        ArrayLiteral::from_f64s(
            conformance_spec::ArrayShape::new(conformance_spec::ElementType::F32, vec![2]),
            &[1.0, 2.0],
        )
        .unwrap(),
    )];
    let before = PLANS_RUN.with(|c| c.get());
    let err = Fast::sequential().execute(&m, &args).unwrap_err();
    assert!(matches!(err, BackendError::NonTerminating(_)), "{err}");
    assert!(err.to_string().contains("`w`"), "{err}");
    assert_eq!(PLANS_RUN.with(|c| c.get()) - before, 1);
    // An escaped instruction's error: the same kind of error either way, naming the instruction
    // and its computation.
    let bad = counted(
        2,
        &["f32[2]"],
        "  new.0 = f32[2] dynamic-slice(x.0, i), dynamic_slice_sizes={3}",
    );
    assert_eq!(same_both_ways(&bad), 8);
    let m = parse_module(&bad).unwrap();
    let err = Fast::sequential().execute(&m, &args).unwrap_err();
    assert!(err.to_string().contains("`new.0` in `body`"), "{err}");
}
