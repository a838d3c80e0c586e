//! Properties of HLO text:
//!
//! - everything an `HloModule` prints parses back equal (generated modules: random shapes with
//!   layouts incl. padding, dynamic dimensions and tuples; element-wise instructions; constants of
//!   every element type with raw bit patterns incl. NaN payloads, −0, subnormals; typed and
//!   verbatim attributes; called computations);
//! - every bit pattern of every ≤16-bit float format prints (`format_float`) and parses back to
//!   the same bits;
//! - the parser never panics: random bytes, and mutations of valid modules; whatever parses also
//!   prints and re-parses equal, and verifies without panicking.

use conformance_spec::element_type::{ElementType, FloatClass};
use conformance_spec::hlo::{
    parse_literal, parse_module, parse_shape, AttrValue, Attribute, ConvolutionDimensionNumbers,
    HloComputation, HloInstruction, HloModule, Opcode, PaddingDim, SliceDim, Window,
    WindowDimension,
};
use conformance_spec::layout::{Layout, PaddingValue};
use conformance_spec::literal::{format_float, ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::shape_inference::verify_module;
use proptest::prelude::*;
use proptest::test_runner::TestRng;

// ---------------------------------------------------------------------------------------------
// Generators. A module is drawn from a seed with a small hand-written generator (proptest shrinks
// the seed); this keeps generation valid by construction (operands defined before use, called
// computations exist, constants of the instruction's shape).

fn element_type(rng: &mut TestRng) -> ElementType {
    ElementType::ALL[rng.random_range(0..ElementType::ALL.len())]
}

fn array_shape(rng: &mut TestRng) -> ArrayShape {
    let ty = element_type(rng);
    let rank = rng.random_range(0..=3usize);
    let dims: Vec<i64> = (0..rank).map(|_| rng.random_range(0..=3)).collect();
    let mut s = ArrayShape::new(ty, dims);
    if rank > 0 {
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        for i in (1..rank).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        let mut layout = Layout::new(perm);
        if rng.random_bool(0.3) {
            let padded = s
                .dimensions
                .iter()
                .map(|&d| d + rng.random_range(0..=2))
                .collect();
            let values = [
                PaddingValue::Unknown,
                PaddingValue::Zero,
                PaddingValue::One,
                PaddingValue::Lowest,
                PaddingValue::Highest,
            ];
            layout = layout.with_padding(padded, values[rng.random_range(0..values.len())]);
        }
        s.layout = layout;
        if rng.random_bool(0.1) {
            s.dynamic_dimensions = (0..rank).map(|_| rng.random_bool(0.5)).collect();
        }
    }
    s
}

fn shape(rng: &mut TestRng, depth: usize) -> Shape {
    match rng.random_range(0..10) {
        0 if depth < 2 => {
            let n = rng.random_range(0..=3);
            Shape::Tuple((0..n).map(|_| shape(rng, depth + 1)).collect())
        }
        1 if depth > 0 => Shape::Token,
        _ => Shape::Array(array_shape(rng)),
    }
}

/// Raw bits for one element: random patterns, biased towards the interesting ones.
fn element_bits(rng: &mut TestRng, ty: ElementType) -> u128 {
    if ty.is_pred() {
        return rng.random_range(0..=1);
    }
    let width = ty.bit_width();
    let Some(f) = ty.float_format() else {
        return (rng.next_u64() as u128) & ((1u128 << width) - 1);
    };
    let component = |rng: &mut TestRng| -> u64 {
        let w = f.bit_width();
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        let sign = 1u64 << (w - 1);
        let pick = rng.random_range(0..8);
        let b = match pick {
            0 => f.nan_bits(),
            1 => f.negative_zero_bits(),
            2 => rng.random_range(1..(1u64 << f.mantissa_bits)), // subnormal
            3 => f.max_finite_bits(),
            4 => f.infinity_bits().unwrap_or(0),
            _ => rng.next_u64(),
        };
        (if rng.random_bool(0.5) { b ^ sign } else { b }) & mask
    };
    if ty.is_complex() {
        let re = component(rng) as u128;
        let im = component(rng) as u128;
        re | (im << f.bit_width())
    } else {
        component(rng) as u128
    }
}

fn literal(rng: &mut TestRng, s: &Shape) -> Literal {
    match s {
        Shape::Array(a) => {
            let bits: Vec<u128> = (0..a.element_count())
                .map(|_| element_bits(rng, a.element_type))
                .collect();
            Literal::Array(ArrayLiteral::from_bits(a.clone(), &bits).unwrap())
        }
        Shape::Tuple(t) => Literal::Tuple(t.iter().map(|e| literal(rng, e)).collect()),
        Shape::Token => Literal::Token,
    }
}

fn name(rng: &mut TestRng, i: usize) -> String {
    const FIRST: &[u8] = b"abcxyzPQ_0123456789";
    const REST: &[u8] = b"abcxyz_.-0129";
    let mut s = String::new();
    s.push(FIRST[rng.random_range(0..FIRST.len())] as char);
    for _ in 0..rng.random_range(0..6) {
        s.push(REST[rng.random_range(0..REST.len())] as char);
    }
    format!("{s}.{i}")
}

const RAW_VALUES: &[(&str, &str)] = &[
    (
        "metadata",
        "{op_name=\"jit(f)/mul\" source_file=\"/tmp/a, b.py\" source_line=3}",
    ),
    ("sharding", "{replicated}"),
    ("frontend_attributes", "{_xla_compute_type=\"host\",x={{}}}"),
    ("operand_precision", "{default,default}"),
    ("backend_config", "{\"flag\":true}"),
    ("statistics", "{visualizing_index=1,stat-index-0=0.5}"),
    ("control-predecessors", "{%a.1}"),
];

const STRINGS: &[&str] = &[
    "",
    "target",
    "q\"uo\\te",
    "line\nbreak\ttab",
    "ünïcode",
    "{json: 1}",
];

fn attributes(rng: &mut TestRng, callees: &[String]) -> Vec<Attribute> {
    let mut out: Vec<Attribute> = Vec::new();
    for _ in 0..rng.random_range(0..=3) {
        let a = match rng.random_range(0..13) {
            0 => Attribute {
                name: ["dimensions", "slice_sizes", "lhs_batch_dims"][rng.random_range(0..3)]
                    .into(),
                value: AttrValue::Ints(
                    (0..rng.random_range(0..4))
                        .map(|_| rng.random_range(-3..100))
                        .collect(),
                ),
            },
            1 => Attribute {
                name: ["index", "exponent_bits", "k", "dimension"][rng.random_range(0..4)].into(),
                value: AttrValue::Int(rng.random_range(i64::MIN..=i64::MAX)),
            },
            2 => Attribute {
                name: ["is_stable", "largest", "unique_indices"][rng.random_range(0..3)].into(),
                value: AttrValue::Bool(rng.random_bool(0.5)),
            },
            3 => Attribute {
                name: "direction".into(),
                value: AttrValue::Enum(
                    ["EQ", "NE", "GE", "GT", "LE", "LT"][rng.random_range(0..6)].into(),
                ),
            },
            4 => Attribute {
                name: "type".into(),
                value: AttrValue::Enum(
                    ["FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"][rng.random_range(0..4)].into(),
                ),
            },
            5 => Attribute {
                name: ["custom_call_target", "backend_config"][rng.random_range(0..2)].into(),
                value: AttrValue::Str(STRINGS[rng.random_range(0..STRINGS.len())].into()),
            },
            6 if !callees.is_empty() => Attribute {
                name: ["to_apply", "calls", "condition", "body"][rng.random_range(0..4)].into(),
                value: AttrValue::Computation(callees[rng.random_range(0..callees.len())].clone()),
            },
            7 if !callees.is_empty() => Attribute {
                name: "branch_computations".into(),
                value: AttrValue::Computations(
                    (0..rng.random_range(0..3))
                        .map(|_| callees[rng.random_range(0..callees.len())].clone())
                        .collect(),
                ),
            },
            8 => Attribute {
                name: "slice".into(),
                value: AttrValue::Slice(
                    (0..rng.random_range(0..4))
                        .map(|_| SliceDim {
                            start: rng.random_range(-2..10),
                            limit: rng.random_range(-2..20),
                            stride: rng.random_range(-1..4),
                        })
                        .collect(),
                ),
            },
            9 => Attribute {
                name: "padding".into(),
                value: AttrValue::Padding(
                    (0..rng.random_range(1..4))
                        .map(|_| PaddingDim {
                            low: rng.random_range(-5..5),
                            high: rng.random_range(-5..5),
                            interior: rng.random_range(-1..4),
                        })
                        .collect(),
                ),
            },
            10 => Attribute {
                name: "window".into(),
                value: AttrValue::Window(window(rng)),
            },
            11 => Attribute {
                name: "dim_labels".into(),
                value: AttrValue::DimLabels(dim_labels(rng)),
            },
            _ => {
                let (n, v) = RAW_VALUES[rng.random_range(0..RAW_VALUES.len())];
                Attribute {
                    name: n.into(),
                    value: AttrValue::Raw(v.into()),
                }
            }
        };
        if !out.iter().any(|x| x.name == a.name) {
            out.push(a);
        }
    }
    out
}

/// A window of 0 to 3 dimensions, each field default half of the time (so that printing omits
/// some fields).
fn window(rng: &mut TestRng) -> Window {
    let n = rng.random_range(0..4);
    let mut pick = |default: i64, lo: i64, hi: i64| {
        if rng.random_bool(0.5) {
            default
        } else {
            rng.random_range(lo..hi)
        }
    };
    let dimensions = (0..n)
        .map(|_| WindowDimension {
            size: pick(1, -1, 8),
            stride: pick(1, -1, 4),
            padding_low: pick(0, -4, 4),
            padding_high: pick(0, -4, 4),
            window_dilation: pick(1, 0, 4),
            base_dilation: pick(1, 0, 4),
            window_reversal: pick(0, 0, 2) == 1,
        })
        .collect();
    Window { dimensions }
}

/// Valid convolution dimension numbers with 0 to 3 spatial dimensions: each part a random
/// permutation of its positions.
fn dim_labels(rng: &mut TestRng) -> ConvolutionDimensionNumbers {
    let n = rng.random_range(0..4usize);
    let perm = |rng: &mut TestRng| {
        let mut p: Vec<i64> = (0..n as i64 + 2).collect();
        for i in (1..p.len()).rev() {
            p.swap(i, rng.random_range(0..=i));
        }
        p
    };
    let (i, k, o) = (perm(rng), perm(rng), perm(rng));
    ConvolutionDimensionNumbers {
        input_batch_dimension: i[0],
        input_feature_dimension: i[1],
        input_spatial_dimensions: i[2..].to_vec(),
        kernel_input_feature_dimension: k[0],
        kernel_output_feature_dimension: k[1],
        kernel_spatial_dimensions: k[2..].to_vec(),
        output_batch_dimension: o[0],
        output_feature_dimension: o[1],
        output_spatial_dimensions: o[2..].to_vec(),
    }
}

const OPCODES: &[Opcode] = &[
    Opcode::Add,
    Opcode::Multiply,
    Opcode::Negate,
    Opcode::Exponential,
    Opcode::Compare,
    Opcode::Select,
    Opcode::Clamp,
    Opcode::Convert,
    Opcode::BitcastConvert,
    Opcode::ReducePrecision,
    Opcode::Broadcast,
    Opcode::Tuple,
    Opcode::GetTupleElement,
    Opcode::Call,
    Opcode::RoundNearestAfz,
    Opcode::CustomCall,
];

fn computation(rng: &mut TestRng, comp_name: String, callees: &[String]) -> HloComputation {
    let mut instructions: Vec<HloInstruction> = Vec::new();
    let params = rng.random_range(0..=3);
    for p in 0..params {
        instructions.push(HloInstruction {
            name: name(rng, instructions.len()),
            opcode: Opcode::Parameter,
            shape: shape(rng, 0),
            operands: vec![],
            parameter_number: Some(p),
            literal: None,
            attributes: if rng.random_bool(0.2) {
                attributes(rng, &[])
            } else {
                vec![]
            },
        });
    }
    let n = rng.random_range(1..=6);
    for _ in 0..n {
        let i = instructions.len();
        let instr = if i == 0 || rng.random_bool(0.25) {
            let s = shape(rng, 0);
            let l = literal(rng, &s);
            HloInstruction {
                name: name(rng, i),
                opcode: Opcode::Constant,
                shape: s,
                operands: vec![],
                parameter_number: None,
                literal: Some(l),
                attributes: vec![],
            }
        } else {
            HloInstruction {
                name: name(rng, i),
                opcode: OPCODES[rng.random_range(0..OPCODES.len())],
                shape: shape(rng, 0),
                operands: (0..rng.random_range(0..=3))
                    .map(|_| rng.random_range(0..i))
                    .collect(),
                parameter_number: None,
                literal: None,
                attributes: attributes(rng, callees),
            }
        };
        instructions.push(instr);
    }
    // Parameters need not come first (JAX writes them in any order).
    let root = rng.random_range(0..instructions.len());
    HloComputation {
        name: comp_name,
        instructions,
        root,
    }
}

fn module(rng: &mut TestRng) -> HloModule {
    let count = rng.random_range(1..=3);
    let mut computations = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for i in 0..count {
        let n = format!("comp_{}", name(rng, i));
        computations.push(computation(rng, n.clone(), &names));
        names.push(n);
    }
    let header_attributes = (0..rng.random_range(0..=2))
        .map(|i| Attribute {
            name: [
                "entry_computation_layout",
                "allow_spmd_sharding_propagation_to_output",
            ][i]
                .into(),
            value: AttrValue::Raw(["{(f32[3]{0})->f32[3]{0}}", "{true}"][i].into()),
        })
        .collect();
    HloModule {
        name: format!("m_{}", name(rng, 0)),
        header_attributes,
        entry: count - 1,
        computations,
    }
}

fn rng_from(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &bytes)
}

// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn printed_modules_parse_back_equal(seed in any::<u64>()) {
        let m = module(&mut rng_from(seed));
        let text = m.to_string();
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(parsed, m, "{}", text);
    }

    #[test]
    fn printed_shapes_and_literals_parse_back_equal(seed in any::<u64>()) {
        let rng = &mut rng_from(seed);
        let s = shape(rng, 0);
        prop_assert_eq!(parse_shape(&s.to_string()).unwrap(), s.clone());
        if let Shape::Array(a) = &s {
            let l = literal(rng, &s);
            let text = l.to_string();
            prop_assert_eq!(parse_literal(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?, l.clone());
            // Without the layout, the values are the same logical values.
            let plain = ArrayShape { layout: Layout::default_for_rank(a.rank()), ..a.clone() };
            let mut values = String::new();
            l.as_array().unwrap().fmt_values(&mut values).unwrap();
            let again = parse_literal(&format!("{} {values}", Shape::Array(plain))).unwrap();
            prop_assert!(again.logical_eq(&l));
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_shape(&text);
        let _ = parse_literal(&text);
        check_any_module(&text)?;
        let module_text = format!("HloModule m\nENTRY e {{\n{text}\n}}");
        check_any_module(&module_text)?;
    }

    #[test]
    fn mutated_modules_never_panic(seed in any::<u64>(), edits in proptest::collection::vec((any::<usize>(), 0usize..4, any::<usize>(), 0usize..40), 1..4)) {
        let rng = &mut rng_from(seed);
        let base = if seed % 3 == 0 { jax_dump(rng) } else { module(rng).to_string() };
        let mut text: Vec<char> = base.chars().collect();
        const ALPHABET: &[char] = &['{', '}', '(', ')', '[', ']', ',', '=', '%', ':', '"', '-', '>', '<',
            '/', '*', '\\', ' ', '\n', '0', '1', '9', 'x', 'e', 'f', 'P', 'V', 'T', '.', '_', 'é'];
        for (at, kind, what, len) in edits {
            if text.is_empty() { break; }
            let at = at % text.len();
            match kind {
                0 => { let end = (at + len).min(text.len()); text.drain(at..end); }
                1 => text.insert(at, ALPHABET[what % ALPHABET.len()]),
                2 => { let end = (at + len).min(text.len()); let copy: Vec<char> = text[at..end].to_vec(); let to = what % text.len(); text.splice(to..to, copy); }
                _ => text[at] = ALPHABET[what % ALPHABET.len()],
            }
        }
        let text: String = text.into_iter().collect();
        check_any_module(&text)?;
    }
}

/// Parsing never panics; what parses prints and re-parses equal; verification never panics.
fn check_any_module(text: &str) -> Result<(), TestCaseError> {
    if let Ok(m) = parse_module(text) {
        let printed = m.to_string();
        let again = parse_module(&printed)
            .map_err(|e| TestCaseError::fail(format!("{e}\nprinted:\n{printed}\nfrom:\n{text}")))?;
        let _ = verify_module(&m);
        prop_assert_eq!(again, m);
    }
    Ok(())
}

fn jax_dump(rng: &mut TestRng) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jax");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    files.sort();
    std::fs::read_to_string(&files[rng.random_range(0..files.len())]).unwrap()
}

/// Every bit pattern of every float format of at most 16 bits: `format_float` then parsing as a
/// literal of that type gives the same bits (NaNs included: sign and payload are printed).
#[test]
fn every_small_float_bit_pattern_round_trips() {
    for ty in ElementType::ALL {
        let Some(f) = ty.float_format() else { continue };
        if !ty.is_float() || f.bit_width() > 16 {
            continue;
        }
        for bits in 0..(1u64 << f.bit_width()) {
            let text = format_float(f, bits);
            let lit = parse_literal(&format!("{ty}[] {text}"))
                .unwrap_or_else(|e| panic!("{ty} {bits:#x} printed as {text}: {e}"));
            let back = lit.as_array().unwrap().logical_bits()[0] as u64;
            assert_eq!(
                back, bits,
                "{ty}: {bits:#x} printed as `{text}` read back as {back:#x}"
            );
            if f.classify(bits) == FloatClass::Nan {
                assert!(text.contains("nan"), "{ty} {bits:#x}: {text}");
            }
        }
    }
}

/// Random f32/f64 bit patterns (the wide formats cannot be enumerated) round-trip too.
#[test]
fn wide_float_bit_patterns_round_trip() {
    let rng = &mut rng_from(7);
    for ty in [ElementType::F32, ElementType::F64] {
        let f = ty.float_format().unwrap();
        for i in 0..200_000u64 {
            let bits = match i {
                0..=99 => i,                                  // smallest subnormals
                100..=199 => f.max_finite_bits() - (i - 100), // largest finite
                _ => {
                    rng.next_u64()
                        & if f.bit_width() == 64 {
                            u64::MAX
                        } else {
                            (1 << f.bit_width()) - 1
                        }
                }
            };
            let text = format_float(f, bits);
            let lit = parse_literal(&format!("{ty}[] {text}")).unwrap();
            assert_eq!(
                lit.as_array().unwrap().logical_bits()[0] as u64,
                bits,
                "{ty} `{text}`"
            );
        }
    }
}

/// Every element type: extremes and specials print and parse back to the same literal, in a
/// non-default layout.
#[test]
fn every_element_type_prints_and_parses_back() {
    for ty in ElementType::ALL {
        let bits: Vec<u128> = if let Some((lo, hi)) = ty.integer_range() {
            [lo, hi, 0, 1, hi / 2, lo / 2]
                .iter()
                .map(|&v| ty.integer_to_bits(v).unwrap() as u128)
                .collect()
        } else {
            let f = ty.float_format().unwrap();
            let sign = 1u64 << (f.bit_width() - 1);
            let specials = [
                f.negative_zero_bits(),
                f.nan_bits(),
                f.nan_bits() ^ sign,
                f.max_finite_bits() | sign,
                1, // smallest subnormal
                f.infinity_bits().unwrap_or(f.max_finite_bits()),
            ];
            if ty.is_complex() {
                specials
                    .iter()
                    .zip(specials.iter().rev())
                    .map(|(&re, &im)| re as u128 | ((im as u128) << f.bit_width()))
                    .collect()
            } else {
                specials.iter().map(|&b| b as u128).collect()
            }
        };
        let shape = ArrayShape::new(ty, vec![2, 3]).with_layout(Layout::new(vec![0, 1]));
        let lit = Literal::Array(ArrayLiteral::from_bits(shape, &bits).unwrap());
        let text = lit.to_string();
        assert_eq!(parse_literal(&text), Ok(lit), "{ty}: {text}");
    }
}
