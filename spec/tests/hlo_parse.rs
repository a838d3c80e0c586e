//! HLO text parsing: the syntax forms XLA prints (hand-written files in tests/data/hlo), typed and
//! verbatim attributes, and errors at exact line:column positions.

use conformance_spec::hlo::{parse_module, AttrValue, HloParseError, Opcode};
use conformance_spec::layout::{Layout, PaddingValue};
use conformance_spec::literal::Literal;
use conformance_spec::shape_inference::verify_module;
use conformance_spec::{ElementType, Shape};

fn load(name: &str) -> conformance_spec::HloModule {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hlo")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let printed = m.to_string();
    assert_eq!(parse_module(&printed).as_ref(), Ok(&m), "{printed}");
    verify_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
    m
}

#[test]
fn older_style_module() {
    let m = load("older_style.hlo");
    assert_eq!(m.name, "older_style");
    let header: Vec<_> = m
        .header_attributes
        .iter()
        .map(|a| (a.name.as_str(), a.value.clone()))
        .collect();
    assert_eq!(
        header,
        vec![
            ("is_scheduled", AttrValue::Raw("true".into())),
            (
                "entry_computation_layout",
                AttrValue::Raw("{(f32[2,3]{1,0}, s32[])->(f32[2,3]{1,0}, pred[2,3]{1,0})}".into())
            ),
        ]
    );
    let names: Vec<_> = m.computations.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["add_f32", "region_max", "main.7"]);
    assert_eq!(m.entry, 2);
    let e = m.entry_computation();
    let get = |n: &str| e.instructions.iter().find(|i| i.name == n).unwrap();
    // XLA's tiling and memory-space items are dropped: the layout is plain {1,0}.
    assert_eq!(get("x").shape, Shape::array(ElementType::F32, vec![2, 3]));
    assert_eq!(
        get("x").attribute("sharding"),
        Some(&AttrValue::Raw("{replicated}".into()))
    );
    assert_eq!(
        get("x").attribute("metadata"),
        Some(&AttrValue::Raw(
            "{op_name=\"jit(f)/x\" source_file=\"/tmp/f.py\" source_line=3}".into()
        ))
    );
    // A constant with its shape written inside; values in logical order whatever the layout.
    let c = get("c").literal.as_ref().unwrap().as_array().unwrap();
    assert_eq!(c.shape().layout, Layout::new(vec![0, 1]));
    let bits = c.logical_bits();
    assert_eq!(bits[1], 2.5f32.to_bits() as u128);
    assert_eq!(bits[2], f32::NEG_INFINITY.to_bits() as u128);
    assert_eq!(bits[3], 0x7fc0_0000);
    assert_eq!(bits[4], 0x8000_0000);
    assert_eq!(bits[5], 1e-40f32.to_bits() as u128);
    // Operands written with shapes resolve to the same instructions as bare names.
    let sum = get("sum");
    assert_eq!(sum.operands, vec![0, 2]);
    let r = get("r");
    assert_eq!(r.attr_ints("dimensions"), Some(&[1][..]));
    assert_eq!(r.called_computations(), vec!["add_f32"]);
    let cmp = get("cmp");
    assert_eq!(cmp.attr_enum("direction"), Some("GE"));
    assert_eq!(cmp.attr_enum("type"), Some("TOTALORDER"));
    let whole = |limit| conformance_spec::hlo::SliceDim {
        start: 0,
        limit,
        stride: 1,
    };
    assert_eq!(
        get("s").attr_slice("slice"),
        Some(&[whole(2), whole(3)][..])
    );
    assert_eq!(get("t").operands.len(), 2);
    assert_eq!(get("gte").attr_int("index"), Some(1));
    assert_eq!(e.root_instruction().name, "out");
    // Bare names and signatures: region_max has its last instruction as ROOT.
    let region = m.computation("region_max").unwrap();
    assert_eq!(region.root_instruction().opcode, Opcode::Maximum);
}

#[test]
fn padded_layouts_module() {
    let m = load("padded_layouts.hlo");
    let e = m.entry_computation();
    let get = |n: &str| e.instructions.iter().find(|i| i.name == n).unwrap();
    let p0 = get("p0").shape.as_array().unwrap().clone();
    assert_eq!(
        p0.layout,
        Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero)
    );
    let p1 = get("p1").shape.as_array().unwrap().clone();
    assert_eq!(p1.dynamic_dimensions, vec![true]);
    assert_eq!(p1.layout.padding_value, PaddingValue::Lowest);
    // The constant's physical buffer is 2 x 4 with ONE_PAD in the padding.
    let c = get("c")
        .literal
        .as_ref()
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(c.data().len(), 8 * 4);
    let physical: Vec<f32> = (0..8)
        .map(|i| f32::from_bits(c.get_bits_linear(i) as u32))
        .collect();
    assert_eq!(physical, vec![1., 2., 3., 1., 4., 5., 6., 1.]);
    let Some(Literal::Tuple(pair)) = &get("pair").literal else {
        panic!()
    };
    let Literal::Tuple(inner) = &pair[1] else {
        panic!()
    };
    assert_eq!(
        inner[0].as_array().unwrap().to_i128s().unwrap(),
        vec![0xffff, 7]
    );
    assert_eq!(get("tok").shape, Shape::Token);
    assert_eq!(e.root_instruction().operands.len(), 4);
}

#[test]
fn names_with_and_without_percent_are_the_same() {
    let m = parse_module(
        "HloModule m\nENTRY %e.1 {\n  a-b.0 = f32[] parameter(0)\n  %_x.1 = f32[] negate(%a-b.0)\n  y = f32[] add(_x.1, %_x.1)\n}\n",
    )
    .unwrap();
    let e = m.entry_computation();
    assert_eq!(e.name, "e.1");
    assert_eq!(e.instructions[1].operands, vec![0]);
    assert_eq!(e.instructions[2].operands, vec![1, 1]);
    assert_eq!(e.root, 2);
}

/// (input, line, column, message fragment)
const MALFORMED: &[(&str, usize, usize, &str)] = &[
    ("HloModul m", 1, 1, "expected `HloModule` at the start of the module, found `HloModul`"),
    ("", 1, 1, "expected `HloModule` at the start of the module, found end of input"),
    (
        "HloModule m\nENTRY e {\n  x (f32[] parameter(0)\n}",
        3,
        5,
        "expected `=` after instruction name, found `(`",
    ),
    ("HloModule m\nENTRY e {\n  x = f32[] frobnicate()\n}", 3, 13, "unknown opcode `frobnicate`"),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(%z)\n}",
        4,
        25,
        "operand `%z` is not defined before its use in computation `%e`",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[] negate(y)\n  y = f32[] parameter(0)\n}",
        3,
        20,
        "operand `%y` is not defined",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  y = f32[] call(x), to_apply=%nope\n}",
        4,
        31,
        "unknown computation `%nope`",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] reverse(x), dimensions=0\n}",
        4,
        37,
        "attribute `dimensions` expects a list of integers",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  y = pred[] compare(x, x), direction=LESS\n}",
        4,
        39,
        "attribute `direction` expects one of EQ, NE, GE, GT, LE, LT",
    ),
    (
        "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}",
        4,
        3,
        "second `ROOT`",
    ),
    ("HloModule m\nc {\n  x = f32[] parameter(0)\n}\n", 1, 1, "module `m` has no `ENTRY` computation"),
    (
        "HloModule m\nENTRY a {\n  x = f32[] parameter(0)\n}\nENTRY b {\n  y = f32[] parameter(0)\n}",
        5,
        1,
        "second `ENTRY`",
    ),
    ("HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n", 2, 9, "computation `%e` is not closed"),
    ("HloModule m\nENTRY e {\n}", 2, 9, "computation `%e` has no instructions"),
    ("HloModule m\nENTRY e {\n  x = f32[2 parameter(0)\n}", 3, 13, "expected `,` or `]` in dimensions"),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  x = f32[] negate(x)\n}",
        4,
        3,
        "duplicate instruction name `%x`",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  y = f32[] parameter(0)\n}",
        4,
        23,
        "parameter number 0 is used twice",
    ),
    ("HloModule m\nENTRY e {\n  c = f32[2] constant({1, 2, 3})\n}", 3, 30, "too many elements"),
    (
        "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] negate(s32[2] x)\n}",
        4,
        21,
        "operand shape `s32[2]{0}` does not match `%x`'s shape `f32[2]{0}`",
    ),
    ("HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n}\n)", 5, 1, "expected a computation name, found `)`"),
    (
        "HloModule m\nENTRY e {\n  x = f32[] custom-call(), custom_call_target=\"abc\n}",
        3,
        47,
        "unterminated string",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0), metadata={op_name=\"a\"\n",
        3,
        36,
        "unclosed `{` in the value of `metadata`",
    ),
    (
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0), index=1, index=2\n}",
        3,
        36,
        "duplicate attribute `index`",
    ),
    (
        "HloModule m\nc {\n  x = f32[] parameter(0)\n}\nENTRY c {\n  y = f32[] parameter(0)\n}",
        5,
        7,
        "duplicate computation name `%c`",
    ),
    ("HloModule m\nENTRY e {\n  x = f32[] parameter(-1)\n}", 3, 23, "parameter number -1 is negative"),
    ("HloModule m /* open", 1, 13, "unterminated `/*` comment"),
];

#[test]
fn malformed_modules_report_the_exact_position() {
    for &(text, line, column, message) in MALFORMED {
        let e: HloParseError = parse_module(text).expect_err(text);
        assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
        assert!(
            e.message.contains(message),
            "{text:?}: got `{e}`, expected `{message}`"
        );
    }
}

#[test]
fn error_display_is_line_col_message() {
    let e = parse_module("HloModule m\nENTRY e {\n  x (f32[] parameter(0)\n}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "3:5: expected `=` after instruction name, found `(`"
    );
    let _: &dyn std::error::Error = &e;
}

#[test]
fn attribute_typing() {
    let text = r#"HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[4,3]{1,0} parameter(0)
  i = s32[] parameter(1)
  t = f32[4,3] sort(x), dimensions={0}, is_stable=true, to_apply=add
  g = f32[1,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=false
  k = f32[4,3] custom-call(x), custom_call_target="my\"target", backend_config={"a": [1, 2]}, api_version=API_VERSION_TYPED_FFI
  q = f32[4,3] custom-call(x), custom_call_target="t", backend_config="quoted", called_computations={%add, add}
  c = (f32[4,3], f32[4,3]) conditional(i, x, x), branch_computations={add, %add}
  f = c64[8] fft(x), fft_type=RFFT, fft_length={8}
  r = f32[4] rng(i, i), distribution=rng_uniform
  ROOT w = f32[4,3] reduce-window(x, i), window={size=2x1 stride=1x1 pad=0_1x0_0}, to_apply=add
}
"#;
    let m = parse_module(text).unwrap();
    assert_eq!(parse_module(&m.to_string()).as_ref(), Ok(&m));
    let e = m.entry_computation();
    let get = |n: &str| e.instructions.iter().find(|i| i.name == n).unwrap();
    assert_eq!(
        get("t").attribute("is_stable"),
        Some(&AttrValue::Bool(true))
    );
    assert_eq!(
        get("t").attribute("to_apply"),
        Some(&AttrValue::Computation("add".into()))
    );
    let g = get("g");
    assert_eq!(g.attr_ints("offset_dims"), Some(&[1][..]));
    assert_eq!(g.attr_ints("collapsed_slice_dims"), Some(&[][..]));
    assert_eq!(g.attr_int("index_vector_dim"), Some(1));
    assert_eq!(g.attr_bool("indices_are_sorted"), Some(false));
    let k = get("k");
    assert_eq!(
        k.attribute("custom_call_target"),
        Some(&AttrValue::Str("my\"target".into()))
    );
    assert_eq!(
        k.attribute("backend_config"),
        Some(&AttrValue::Raw("{\"a\": [1, 2]}".into()))
    );
    assert_eq!(
        k.attribute("api_version"),
        Some(&AttrValue::Raw("API_VERSION_TYPED_FFI".into()))
    );
    let q = get("q");
    assert_eq!(
        q.attribute("backend_config"),
        Some(&AttrValue::Str("quoted".into()))
    );
    assert_eq!(q.called_computations(), vec!["add", "add"]);
    assert_eq!(
        get("c").attribute("branch_computations"),
        Some(&AttrValue::Computations(vec!["add".into(), "add".into()]))
    );
    assert_eq!(get("f").attr_enum("fft_type"), Some("RFFT"));
    assert_eq!(get("f").attr_ints("fft_length"), Some(&[8][..]));
    assert_eq!(get("r").attr_enum("distribution"), Some("rng_uniform"));
    let w = get("w").attr_window("window").unwrap();
    assert_eq!(w.to_string(), "{size=2x1 pad=0_1x0_0}");
}

#[test]
fn stack_frame_tables_and_execution_threads_are_skipped() {
    let text = r#"HloModule m, entry_computation_layout={()->f32[]}

FileNames
1 "a.py"

StackFrames
1 {file_location_id=1 parent_frame_id=1}

%async_body (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  ROOT %n = f32[] negate(%p)
}, execution_thread="host"

ENTRY %main () -> f32[] {
  ROOT %c = f32[] constant(1.5), metadata={op_name="c" stack_frame_id=1}
}
"#;
    let m = parse_module(text).unwrap();
    assert_eq!(m.computations.len(), 2);
    assert_eq!(m.entry, 1);
    assert_eq!(parse_module(&m.to_string()).as_ref(), Ok(&m));
}

#[test]
fn xla_printing_of_constants_reads_as_ours() {
    // constants.hlo is ours; xla_printed_constants.hlo is XLA's re-printing of it (pred as 1/0,
    // shortest digits of its own, spaces inside braces, `( 1.5, {1, 2} )` for the tuple).
    let ours = load("constants.hlo");
    let xla = load("xla_printed_constants.hlo");
    let by_name = |m: &conformance_spec::HloModule, n: &str| {
        let e = m.entry_computation();
        e.instructions.iter().find(|i| i.name == n).unwrap().clone()
    };
    let i = by_name(&xla, "i");
    assert_eq!(
        i.literal.unwrap().as_array().unwrap().to_i128s().unwrap(),
        vec![1, 0]
    );
    // XLA prints -0 as 0 in `a` and (nan, -inf) as (nan, nan) in `f`; every other constant reads
    // back to the same bits.
    for n in [
        "b", "c", "d", "e", "g", "h", "i", "j", "k", "l", "n", "o", "p", "q", "r",
    ] {
        assert_eq!(by_name(&ours, n), by_name(&xla, n), "constant {n}");
    }
}
