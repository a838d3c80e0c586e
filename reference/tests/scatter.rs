//! `scatter` on the reference (seed 004, Scatter): repeated indices combined in row-major order
//! of the update index space, per-element validity, arbitrary update computations (integer add,
//! correctly rounded f32 add, replace, non-commutative, variadic N = 2), every layout, and the
//! public schedule / update-computation API the harness's comparator uses.

use conformance_reference::data_movement::scatter::{
    apply_update_computation, scatter_schedule, ScatterStep,
};
use conformance_reference::Reference;
use conformance_spec::hlo::{parse_module, parse_shape};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{Backend, BackendError, ElementType, HloModule};

fn shape(text: &str) -> ArrayShape {
    parse_shape(text).unwrap().as_array().unwrap().clone()
}

fn bits(text: &str, values: &[u128]) -> Literal {
    ArrayLiteral::from_bits(shape(text), values).unwrap().into()
}

fn ints(text: &str, values: &[i128]) -> Literal {
    ArrayLiteral::from_i128s(shape(text), values)
        .unwrap()
        .into()
}

fn f32s(text: &str, values: &[f32]) -> Literal {
    let b: Vec<u128> = values.iter().map(|v| v.to_bits() as u128).collect();
    bits(text, &b)
}

/// A module with `combiner` as `%update` and `ROOT r = <result> scatter(<operands>), <attrs>`.
fn module(combiner: &str, params: &[&str], result: &str, attrs: &str) -> HloModule {
    let mut text = format!("HloModule m\n\n{combiner}\n\nENTRY e {{\n");
    let names: Vec<String> = (0..params.len()).map(|i| format!("p{i}")).collect();
    for (i, p) in params.iter().enumerate() {
        text += &format!("  p{i} = {p} parameter({i})\n");
    }
    text += &format!(
        "  ROOT r = {result} scatter({}), {attrs}, to_apply=%update\n}}\n",
        names.join(", ")
    );
    parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn binary(ty: &str, op: &str) -> String {
    format!(
        "%update {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT c = {ty}[] {op}(a, b)\n}}"
    )
}

fn replace(ty: &str) -> String {
    format!("%update {{\n  a = {ty}[] parameter(0)\n  ROOT b = {ty}[] parameter(1)\n}}")
}

const ELEMENT_ATTRS: &str = "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";

fn run(m: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
    Reference.execute(m, args)
}

fn array(l: Literal) -> ArrayLiteral {
    l.into_array().expect("array result")
}

#[test]
fn repeated_indices_integer_add() {
    let m = module(
        &binary("s32", "add"),
        &["s32[5]{0}", "s32[4,1]{0,1}", "s32[4]{0}"],
        "s32[5]{0}",
        ELEMENT_ATTRS,
    );
    let r = run(
        &m,
        &[
            ints("s32[5]", &[1, 2, 3, 4, 5]),
            ints("s32[4,1]{0,1}", &[1, 3, 1, 1]),
            ints("s32[4]", &[10, 20, 30, 40]),
        ],
    )
    .unwrap();
    assert_eq!(array(r).to_i128s().unwrap(), vec![1, 82, 3, 24, 5]);
}

#[test]
fn f32_add_rounds_each_step_in_row_major_order() {
    // 2^24 + 1 rounds back to 2^24 (tie to even) twice, then - 2^24 gives 0; another order
    // (-2^24 first) would give 2. The expected value is computed step by step in f32.
    let m = module(
        &binary("f32", "add"),
        &["f32[2]{0}", "s64[3,1]", "f32[3]{0}"],
        "f32[2]{0}",
        ELEMENT_ATTRS,
    );
    let x = 16_777_216f32;
    let ups = [1f32, 1.0, -16_777_216.0];
    let r = run(
        &m,
        &[
            f32s("f32[2]", &[x, 0.5]),
            ints("s64[3,1]", &[0, 0, 0]),
            f32s("f32[3]", &ups),
        ],
    )
    .unwrap();
    let want = ups.iter().fold(x, |acc, &u| acc + u);
    assert_eq!(want, 0.0);
    assert_eq!(array(r).to_f64s().unwrap(), vec![want as f64, 0.5]);
}

#[test]
fn replace_windows_under_padded_layouts_last_update_wins() {
    // Rows of a [3,4] operand replaced by [2,4] update windows at rows {2, 0, 2}: row 2 gets the
    // last window (row-major order of U).
    let m = module(
        &replace("s8"),
        &["s8[3,4]{0,1:P(4,5)}", "u8[3]", "s8[3,4]{0,1}"],
        "s8[3,4]{0,1:P(3,6)}",
        "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
    );
    let operand: Vec<i128> = (0..12).collect();
    let updates: Vec<i128> = (0..12).map(|n| -1 - n).collect();
    let r = array(
        run(
            &m,
            &[
                ArrayLiteral::from_i128s(shape("s8[3,4]"), &operand)
                    .unwrap()
                    .relayout(shape("s8[3,4]{0,1:P(4,5)}").layout)
                    .into(),
                ints("u8[3]", &[2, 0, 2]),
                ArrayLiteral::from_i128s(shape("s8[3,4]"), &updates)
                    .unwrap()
                    .relayout(shape("s8[3,4]{0,1}").layout)
                    .into(),
            ],
        )
        .unwrap(),
    );
    assert_eq!(r.shape(), &shape("s8[3,4]{0,1:P(3,6)}"));
    let want: Vec<i128> = vec![-5, -6, -7, -8, 4, 5, 6, 7, -9, -10, -11, -12];
    assert_eq!(r.to_i128s().unwrap(), want);
}

#[test]
fn validity_is_per_element_not_per_window() {
    // A [1,3] window at (1, 2) of a [3,4] operand: columns 2 and 3 are valid, column 4 is not;
    // the window at (-1, 0) is entirely out of bounds.
    let m = module(
        &binary("s32", "add"),
        &["s32[3,4]", "s32[2,2]", "s32[2,3]"],
        "s32[3,4]",
        "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1",
    );
    let args = [
        ints("s32[3,4]", &[0; 12]),
        ints("s32[2,2]", &[1, 2, -1, 0]),
        ints("s32[2,3]", &[100, 200, 300, 7, 8, 9]),
    ];
    let r = array(run(&m, &args).unwrap());
    let mut want = vec![0i128; 12];
    want[6] = 100;
    want[7] = 200;
    assert_eq!(r.to_i128s().unwrap(), want);
    let refs: Vec<&Literal> = args.iter().collect();
    let steps = scatter_schedule(&m, m.entry_computation().root_instruction(), &refs).unwrap();
    assert_eq!(
        steps,
        vec![
            ScatterStep {
                update_index: vec![0, 0],
                operand_index: vec![1, 2]
            },
            ScatterStep {
                update_index: vec![0, 1],
                operand_index: vec![1, 3]
            },
        ]
    );
}

#[test]
fn variadic_non_commutative_combiner() {
    // N = 2: (s32 current - update, f32 current * 2 + update), applied in row-major order of U.
    let combiner = "%update {\n  a0 = s32[] parameter(0)\n  a1 = f32[] parameter(1)\n  u0 = s32[] parameter(2)\n  u1 = f32[] parameter(3)\n  d = s32[] subtract(a0, u0)\n  t = f32[] add(a1, a1)\n  s = f32[] add(t, u1)\n  ROOT r = (s32[], f32[]) tuple(d, s)\n}";
    let m = module(
        combiner,
        &["s32[3]", "f32[3]{0}", "s32[4]", "s32[4]", "f32[4]"],
        "(s32[3]{0}, f32[3]{0})",
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
    );
    let idx = [2i128, 0, 2, 5];
    let u0 = [1i128, 2, 3, 4];
    let u1 = [0.5f32, 0.25, 3.0, 9.0];
    let r = run(
        &m,
        &[
            ints("s32[3]", &[10, 20, 30]),
            f32s("f32[3]", &[1.0, 2.0, 3.0]),
            ints("s32[4]", &idx),
            ints("s32[4]", &u0),
            f32s("f32[4]", &u1),
        ],
    )
    .unwrap();
    let (mut a0, mut a1) = (vec![10i128, 20, 30], vec![1f32, 2.0, 3.0]);
    for k in 0..4 {
        let i = idx[k] as usize;
        if i < 3 {
            a0[i] -= u0[k];
            a1[i] = a1[i] * 2.0 + u1[k];
        }
    }
    let Literal::Tuple(items) = r else {
        panic!("tuple expected")
    };
    assert_eq!(items[0].as_array().unwrap().to_i128s().unwrap(), a0);
    let got1: Vec<f64> = items[1].as_array().unwrap().to_f64s().unwrap();
    assert_eq!(got1, a1.iter().map(|&v| v as f64).collect::<Vec<_>>());
}

#[test]
fn element_types_move_bits() {
    // Replace on f8e4m3fn (NaN encodings included), c128 add, pred or.
    let m = module(
        &replace("f8e4m3fn"),
        &["f8e4m3fn[4]", "s32[2,1]", "f8e4m3fn[2]"],
        "f8e4m3fn[4]",
        ELEMENT_ATTRS,
    );
    let r = run(
        &m,
        &[
            bits("f8e4m3fn[4]", &[1, 2, 3, 4]),
            ints("s32[2,1]", &[3, 0]),
            bits("f8e4m3fn[2]", &[0x7f, 0xff]),
        ],
    )
    .unwrap();
    assert_eq!(array(r).logical_bits(), vec![0xff, 2, 3, 0x7f]);
    let m = module(
        &binary("c128", "add"),
        &["c128[2]", "s32[2,1]", "c128[2]"],
        "c128[2]{0}",
        ELEMENT_ATTRS,
    );
    let c = |re: f64, im: f64| (re.to_bits() as u128) | ((im.to_bits() as u128) << 64);
    let r = run(
        &m,
        &[
            bits("c128[2]", &[c(1.0, 2.0), c(3.0, 4.0)]),
            ints("s32[2,1]", &[1, 1]),
            bits("c128[2]", &[c(0.5, -1.0), c(0.25, 8.0)]),
        ],
    )
    .unwrap();
    assert_eq!(array(r).logical_bits(), vec![c(1.0, 2.0), c(3.75, 11.0)]);
    let m = module(
        &binary("pred", "or"),
        &["pred[3]", "s32[2,1]", "pred[2]"],
        "pred[3]",
        ELEMENT_ATTRS,
    );
    let r = run(
        &m,
        &[
            ints("pred[3]", &[0, 1, 0]),
            ints("s32[2,1]", &[2, 0]),
            ints("pred[2]", &[1, 0]),
        ],
    )
    .unwrap();
    assert_eq!(array(r).to_i128s().unwrap(), vec![0, 1, 1]);
}

#[test]
fn apply_update_computation_is_the_combiner() {
    let m = module(
        &binary("f32", "subtract"),
        &["f32[1]", "s32[1,1]", "f32[1]"],
        "f32[1]",
        ELEMENT_ATTRS,
    );
    let s = |v: f32| {
        Literal::from(ArrayLiteral::scalar_bits(
            ElementType::F32,
            v.to_bits() as u128,
        ))
    };
    let out = apply_update_computation(&m, "update", &[s(5.0)], &[s(1.5)]).unwrap();
    assert_eq!(out, vec![s(3.5)]);
    let e = apply_update_computation(&m, "%update", &[s(5.0)], &[]);
    assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
    let e = apply_update_computation(&m, "missing", &[s(5.0)], &[s(1.0)]);
    assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
}

#[test]
fn malformed_scatters_are_invalid() {
    let ok_args = [
        ints("s32[3]", &[0, 0, 0]),
        ints("s32[2,1]", &[0, 1]),
        ints("s32[2]", &[1, 1]),
    ];
    for attrs in [
        // inserted + window dims do not add up to the operand rank
        "update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        // index vector of size 1, two mapped dims
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,0}, index_vector_dim=1",
        // index_vector_dim out of range
        "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=3",
        // window dim out of range of the updates
        "update_window_dims={4}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1",
    ] {
        let m = module(
            &binary("s32", "add"),
            &["s32[3]", "s32[2,1]", "s32[2]"],
            "s32[3]",
            attrs,
        );
        let e = run(&m, &ok_args);
        assert!(matches!(e, Err(BackendError::Invalid(_))), "{attrs}: {e:?}");
    }
    // float indices
    let m = module(
        &binary("s32", "add"),
        &["s32[3]", "f32[2,1]", "s32[2]"],
        "s32[3]",
        ELEMENT_ATTRS,
    );
    let e = run(
        &m,
        &[
            ok_args[0].clone(),
            f32s("f32[2,1]", &[0.0, 1.0]),
            ok_args[2].clone(),
        ],
    );
    assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
}
