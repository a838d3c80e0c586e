//! Real JAX dumps (spec/tests/data/jax, made by make_dumps.py) parse, print, re-parse to the same
//! IR, verify, and say what the functions compute.

use conformance_spec::hlo::{parse_module, AttrValue, HloModule, Opcode};
use conformance_spec::shape_inference::verify_module;
use conformance_spec::{ElementType, Shape};
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/jax")
}

fn load(name: &str) -> HloModule {
    let path = data_dir().join(format!("{name}.hlo"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let printed = m.to_string();
    let again =
        parse_module(&printed).unwrap_or_else(|e| panic!("{name} (printed): {e}\n{printed}"));
    assert_eq!(
        again, m,
        "{name}: print → parse changed the module:\n{printed}"
    );
    verify_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
    m
}

fn f32s(dims: &[i64]) -> Shape {
    Shape::array(ElementType::F32, dims.to_vec())
}

#[test]
fn every_dump_round_trips_and_verifies() {
    let mut count = 0;
    for entry in std::fs::read_dir(data_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "hlo") {
            let stem = path
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .trim_end_matches(".hlo");
            load(stem);
            count += 1;
        }
    }
    assert!(count >= 11, "only {count} dumps found");
}

#[test]
fn affine() {
    let m = load("affine");
    assert_eq!(m.name, "jit_affine");
    assert_eq!(m.header_attributes[0].name, "entry_computation_layout");
    assert_eq!(
        m.header_attributes[0].value,
        AttrValue::Raw("{(f32[3]{0})->f32[3]{0}}".into())
    );
    let e = m.entry_computation();
    assert_eq!(e.name, "main.1");
    assert_eq!(e.parameter_shapes(), vec![f32s(&[3])]);
    assert_eq!(e.root_instruction().opcode, Opcode::Add);
    let mul = e
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::Multiply)
        .unwrap();
    assert_eq!(e.instructions[mul.operands[1]].opcode, Opcode::Broadcast);
    assert_eq!(
        e.instructions[mul.operands[1]].attr_ints("dimensions"),
        Some(&[][..])
    );
}

#[test]
fn unary_chain() {
    let m = load("unary_chain");
    let e = m.entry_computation();
    assert_eq!(e.parameter_shapes(), vec![f32s(&[2, 3])]);
    assert_eq!(e.root_instruction().shape, f32s(&[2, 3]));
    for op in [
        Opcode::Exponential,
        Opcode::Tanh,
        Opcode::Negate,
        Opcode::Divide,
    ] {
        assert!(e.instructions.iter().any(|i| i.opcode == op), "{op}");
    }
}

#[test]
fn nested_call_resolves_its_callee() {
    let m = load("nested_call");
    let e = m.entry_computation();
    assert_eq!(e.name, "main.2");
    let calls: Vec<_> = e
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Call)
        .collect();
    assert_eq!(calls.len(), 2);
    for call in calls {
        assert_eq!(call.called_computations(), vec!["_inner.1"]);
        let callee = m.computation(call.called_computations()[0]).unwrap();
        assert_eq!(callee.parameters().len(), call.operands.len());
        assert_eq!(callee.root_instruction().opcode, Opcode::Multiply);
        assert_eq!(callee.root_instruction().shape, call.shape);
    }
    assert_eq!(m.entry, 1);
}

#[test]
fn where_compare() {
    let m = load("where_compare");
    let e = m.entry_computation();
    let cmp = e
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::Compare)
        .unwrap();
    assert_eq!(cmp.attr_enum("direction"), Some("GT"));
    assert_eq!(cmp.shape, Shape::array(ElementType::Pred, vec![3]));
    let callee = m
        .computation(e.root_instruction().called_computations()[0])
        .unwrap();
    assert_eq!(callee.root_instruction().opcode, Opcode::Select);
}

#[test]
fn clip_calls_a_computation_with_parameters_out_of_order() {
    let m = load("clip");
    let e = m.entry_computation();
    let root = e.root_instruction();
    assert_eq!(root.opcode, Opcode::Call);
    assert_eq!(root.operands.len(), 3);
    let callee = m.computation("clip.1").unwrap();
    // parameter(2) is written first; parameters() orders by number.
    let numbers: Vec<_> = callee
        .parameters()
        .iter()
        .map(|p| p.parameter_number)
        .collect();
    assert_eq!(numbers, vec![Some(0), Some(1), Some(2)]);
    assert_eq!(
        callee.parameter_shapes(),
        vec![f32s(&[2, 3]), f32s(&[]), f32s(&[])]
    );
    assert_eq!(callee.root_instruction().opcode, Opcode::Minimum);
    let consts: Vec<_> = e
        .instructions
        .iter()
        .filter_map(|i| i.literal.as_ref())
        .map(|l| l.as_array().unwrap().to_f64s().unwrap()[0])
        .collect();
    assert_eq!(consts, vec![-1.0, 1.0]);
}

#[test]
fn conversions() {
    let m = load("conversions");
    let e = m.entry_computation();
    assert_eq!(
        e.parameter_shapes(),
        vec![f32s(&[3]), Shape::array(ElementType::S32, vec![3])]
    );
    let types: Vec<_> = e
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Convert)
        .map(|i| i.shape.as_array().unwrap().element_type)
        .collect();
    assert_eq!(
        types,
        vec![ElementType::Bf16, ElementType::F32, ElementType::F32]
    );
}

#[test]
fn sum_axis0_reduces_with_a_region() {
    let m = load("sum_axis0");
    let root = m.entry_computation().root_instruction();
    assert_eq!(root.opcode, Opcode::Reduce);
    assert_eq!(root.attr_ints("dimensions"), Some(&[0][..]));
    assert_eq!(root.shape, f32s(&[3]));
    let region = m.computation(root.called_computations()[0]).unwrap();
    assert_eq!(region.name, "region_0.1");
    assert_eq!(region.parameter_shapes(), vec![f32s(&[]), f32s(&[])]);
    assert_eq!(region.root_instruction().opcode, Opcode::Add);
}

#[test]
fn dot_dimension_attributes() {
    let m = load("dot");
    let root = m.entry_computation().root_instruction();
    assert_eq!(root.opcode, Opcode::Dot);
    assert_eq!(root.attr_ints("lhs_contracting_dims"), Some(&[1][..]));
    assert_eq!(root.attr_ints("rhs_contracting_dims"), Some(&[0][..]));
    assert_eq!(root.shape, f32s(&[2, 4]));
}

#[test]
fn reduce_precision_attributes() {
    let m = load("reduce_precision");
    let root = m.entry_computation().root_instruction();
    assert_eq!(root.opcode, Opcode::ReducePrecision);
    assert_eq!(root.attr_int("exponent_bits"), Some(5));
    assert_eq!(root.attr_int("mantissa_bits"), Some(10));
}

#[test]
fn bitcast_same_and_narrower_width() {
    let m = load("bitcast");
    let root = m.entry_computation().root_instruction();
    assert_eq!(root.opcode, Opcode::Tuple);
    assert_eq!(
        root.shape,
        Shape::Tuple(vec![
            Shape::array(ElementType::S32, vec![3]),
            Shape::array(ElementType::U8, vec![3, 4]),
        ])
    );
}

#[test]
fn special_constants_keep_their_bits() {
    let m = load("special_constants");
    let c = m
        .entry_computation()
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::Constant)
        .unwrap();
    let bits = c
        .literal
        .as_ref()
        .unwrap()
        .as_array()
        .unwrap()
        .logical_bits();
    assert_eq!(bits, vec![0x7f80_0000, 0x7fc0_0000, 0x8000_0000]);
}

#[test]
fn verbose_dumps_equal_the_compact_ones_but_for_metadata() {
    for name in ["nested_call", "sum_axis0", "clip"] {
        let compact = load(name);
        let mut verbose = load(&format!("{name}.verbose"));
        let mut saw_metadata = false;
        for c in &mut verbose.computations {
            for i in &mut c.instructions {
                let before = i.attributes.len();
                i.attributes.retain(|a| a.name != "metadata");
                saw_metadata |= i.attributes.len() < before;
            }
        }
        assert!(saw_metadata, "{name}: the verbose dump has metadata");
        assert_eq!(verbose, compact, "{name}");
    }
}
