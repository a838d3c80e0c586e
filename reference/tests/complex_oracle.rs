//! The reference's complex results are correctly rounded, per component: checked against vectors
//! from an oracle that shares none of its code (`tests/data/complex_oracle/make_vectors.py`:
//! exact rationals and mpmath interval enclosures refined Ziv-style up to 2560 bits, rounded once
//! by the script's own integer rounding; no MPFR, no MPC).
//!
//! Every element-wise entry of `spec/ops/elementwise.yaml` that takes or yields c64/c128 has a file
//! `<catalog id>.txt` (except those in [`NOT_COVERED`], with the reason) of about 300 vectors per
//! type (sampled across binades: subnormals, |z| near 1, the overflow threshold, mixed huge/tiny
//! components, signed zeros, cancellation, plus hand-picked rounding traps), each line
//! `TYPE OPERAND... EXPECTED` with complex values written `RE:IM` in hex bits (`convert` holds the
//! real → complex conversions). The opcode and the fixed attributes (`direction=EQ`) come from the
//! catalog entry of that id. Every vector runs through `eval_element` and, grouped per type into
//! one array, through `Reference::execute`.
//!
//! A component matches when its bits are identical (signed zeros, subnormals and ±inf included);
//! `z` in the data is an exact zero whose sign is a convention the operation does not fix
//! (multiply, divide, power, sign(0), expm1/log1p of −0 ± 0i; see the script's docstring), and then
//! either zero matches. Inputs with infinite or NaN components (catalog mask
//! `complex-nonfinite-operand`) and poles are not in the data. Vectors on which the reference is
//! known to be wrong are listed in [`KNOWN_DEFECTS`] and must stay wrong until the list is emptied.
//!
//! Run: `cargo test -p conformance-reference --test complex_oracle` (well under a second: the test
//! profile is optimized). Regenerate the data with `python3 tests/data/complex_oracle/make_vectors.py`
//! (needs mpmath); a larger sweep: `make_vectors.py --samples 3000 --seed S --out DIR`, then run
//! with `COMPLEX_ORACLE_DIR=DIR`.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{array_shape, single_op_module};
use conformance_reference::{eval_element, Reference};
use conformance_spec::catalog::{Catalog, OpEntry};
use conformance_spec::hlo::ir::{AttrValue, Attribute};
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::{ArrayLiteral, ArrayShape, Backend, ElementType, HloInstruction, Shape};

/// Catalog entries that accept complex operands but have no vectors here, with the reason.
const NOT_COVERED: &[(&str, &str)] = &[
    (
        "select",
        "moves one operand unchanged: no arithmetic to round (its bit-exactness is tested with the other types)",
    ),
    (
        "bitcast-convert-complex",
        "reinterprets bits and changes the shape: not an element-wise value computation",
    ),
];

/// Vectors on which the reference is known to be wrong, as (catalog id, the data line): the test
/// requires them to STILL mismatch, so that a fix shows up as a failure asking to empty this list.
///
/// Empty. It held two `power` vectors whose whole result lies beyond the format's range with a huge
/// B = Im(w log z) (MPC 1.4.1's `pow` took the signs of cos B and sin B from a too short
/// approximation of B); the reference now proves those signs itself (`elementwise::complex::power`).
const KNOWN_DEFECTS: &[(&str, &str)] = &[];

fn known_defect(id: &str, v: &Vector) -> bool {
    KNOWN_DEFECTS
        .iter()
        .any(|&(i, text)| i == id && text == v.text)
}

/// Vectors per file below which the data is taken to have been generated with too few samples.
const MIN_PER_FILE: usize = 500;

/// Mismatches shown per operation; the rest are counted.
const SHOWN: usize = 12;

/// The vector directory: `tests/data/complex_oracle`, or `$COMPLEX_ORACLE_DIR` when set (for
/// larger sweeps generated with `make_vectors.py --samples N --out DIR`, not committed).
fn data_dir() -> PathBuf {
    match std::env::var_os("COMPLEX_ORACLE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/complex_oracle"),
    }
}

/// One expected result component.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expected {
    /// Exactly these bits.
    Bits(u64),
    /// A zero of either sign.
    AnyZero,
}

/// One vector: operand and result element types, operand bits, expected components (two for a
/// complex result, one otherwise), and the source line for messages.
struct Vector {
    /// The line's first token (`c64`, `f32>c128`): the key of the file's `# counts:` line.
    token: String,
    operand_types: Vec<ElementType>,
    result_type: ElementType,
    operands: Vec<u128>,
    expected: Vec<Expected>,
    line: usize,
    text: String,
}

/// The component format of a real or complex floating-point type.
fn format_of(ty: ElementType) -> Option<conformance_spec::FloatFormat> {
    if ty.is_float() || ty.is_complex() {
        ty.float_format()
    } else {
        None
    }
}

/// The result element type of `op` for the given operand type: the catalog's rule.
fn result_type(
    catalog: &Catalog,
    op: &OpEntry,
    operand: ElementType,
) -> Result<ElementType, String> {
    match catalog.result_element_types(op, operand).as_slice() {
        [one] => Ok(*one),
        many => Err(format!(
            "catalog gives {} result types for {} on {operand}",
            many.len(),
            op.id
        )),
    }
}

fn parse_hex(token: &str, fmt_bits: u32) -> Result<u64, String> {
    if token.len() != (fmt_bits / 4) as usize {
        return Err(format!("`{token}`: expected {} hex digits", fmt_bits / 4));
    }
    u64::from_str_radix(token, 16).map_err(|e| format!("`{token}`: {e}"))
}

/// An operand of type `ty`: `RE:IM` for complex, one hex pattern of the type's width otherwise
/// (real floats, integers in two's complement, pred as `00`/`01`).
fn parse_operand(token: &str, ty: ElementType) -> Result<u128, String> {
    if let (true, Some(fmt)) = (ty.is_complex(), format_of(ty)) {
        let width = fmt.bit_width();
        let (re, im) = token
            .split_once(':')
            .ok_or_else(|| format!("`{token}`: a complex operand is RE:IM"))?;
        return Ok(complex_bits(
            fmt,
            parse_hex(re, width)?,
            parse_hex(im, width)?,
        ));
    }
    Ok(u128::from(parse_hex(token, ty.bit_width())?))
}

/// The expected result in type `ty`: `RE:IM` for complex, one component for a real float (`z` for
/// a zero of either sign), `0`/`1` for pred.
fn parse_expected(token: &str, ty: ElementType) -> Result<Vec<Expected>, String> {
    if ty == ElementType::Pred {
        return match token {
            "0" => Ok(vec![Expected::Bits(0)]),
            "1" => Ok(vec![Expected::Bits(1)]),
            _ => Err(format!("`{token}`: a pred result is 0 or 1")),
        };
    }
    let fmt = format_of(ty).ok_or_else(|| format!("result type {ty} is not floating-point"))?;
    let component = |t: &str| -> Result<Expected, String> {
        if t == "z" {
            Ok(Expected::AnyZero)
        } else {
            parse_hex(t, fmt.bit_width()).map(Expected::Bits)
        }
    };
    if ty.is_complex() {
        let (re, im) = token
            .split_once(':')
            .ok_or_else(|| format!("`{token}`: a complex result is RE:IM"))?;
        Ok(vec![component(re)?, component(im)?])
    } else {
        Ok(vec![component(token)?])
    }
}

/// The operand types and result type named by a line's first token: `c64` (every operand of that
/// type, result by the catalog) or `c128>c64` (one operand, explicit result type, for convert).
fn parse_types(
    token: &str,
    arity: usize,
    catalog: &Catalog,
    op: &OpEntry,
) -> Result<(Vec<ElementType>, ElementType), String> {
    let ty = |name: &str| {
        ElementType::from_hlo_name(name).ok_or_else(|| format!("`{name}`: unknown element type"))
    };
    match token.split_once('>') {
        Some((from, to)) => Ok((vec![ty(from)?; arity], ty(to)?)),
        None => {
            let t = ty(token)?;
            Ok((vec![t; arity], result_type(catalog, op, t)?))
        }
    }
}

/// Reads `<id>.txt` (see [`parse`]).
fn load(catalog: &Catalog, op: &OpEntry) -> Result<Vec<Vector>, String> {
    let path = data_dir().join(format!("{}.txt", op.id));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&path.display().to_string(), &text, catalog, op)
}

/// Parses the vectors of `op` from `text`; `#` lines are comments, and the `# counts: TOKEN=N ...`
/// line written by the generator must match the vectors read per first token (a truncated or
/// hand-edited file is an error). Errors name `file:line:column`.
fn parse(file: &str, text: &str, catalog: &Catalog, op: &OpEntry) -> Result<Vec<Vector>, String> {
    let mut out = Vec::new();
    let mut declared: Option<BTreeMap<String, usize>> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(counts) = line.strip_prefix("# counts:") {
            let mut map = BTreeMap::new();
            for item in counts.split_whitespace() {
                let n = item
                    .split_once('=')
                    .and_then(|(token, n)| Some((token.to_string(), n.parse::<usize>().ok()?)))
                    .ok_or_else(|| format!("{file}:{}: `{item}` is not TOKEN=COUNT", i + 1))?;
                map.insert(n.0, n.1);
            }
            declared = Some(map);
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let at = |col: usize, msg: String| format!("{file}:{}:{col}: {msg}", i + 1);
        let tokens: Vec<(usize, &str)> = line
            .split(' ')
            .scan(1usize, |col, t| {
                let start = *col;
                *col += t.len() + 1;
                Some((start, t))
            })
            .filter(|(_, t)| !t.is_empty())
            .collect();
        if tokens.len() < 3 {
            return Err(at(1, "expected TYPE OPERAND... EXPECTED".into()));
        }
        let arity = tokens.len() - 2;
        let (operand_types, result_type) =
            parse_types(tokens[0].1, arity, catalog, op).map_err(|e| at(tokens[0].0, e))?;
        let mut operands = Vec::with_capacity(arity);
        for (k, &(col, t)) in tokens[1..=arity].iter().enumerate() {
            operands.push(parse_operand(t, operand_types[k]).map_err(|e| at(col, e))?);
        }
        let (col, t) = tokens[arity + 1];
        let expected = parse_expected(t, result_type).map_err(|e| at(col, e))?;
        out.push(Vector {
            token: tokens[0].1.to_string(),
            operand_types,
            result_type,
            operands,
            expected,
            line: i + 1,
            text: line.to_string(),
        });
    }
    let declared = declared.ok_or_else(|| format!("{file}: no `# counts:` line"))?;
    let mut read: BTreeMap<String, usize> = BTreeMap::new();
    for v in &out {
        *read.entry(v.token.clone()).or_default() += 1;
    }
    if read != declared {
        return Err(format!(
            "{file}: vectors per type {read:?} differ from the declared counts {declared:?}"
        ));
    }
    Ok(out)
}

/// The catalog entries whose operands (or result) may be complex.
fn complex_entries(catalog: &Catalog) -> Vec<&OpEntry> {
    catalog
        .ops_of_family("elementwise")
        .filter(|op| {
            catalog.element_types(op).iter().any(|t| {
                t.is_complex()
                    || catalog
                        .result_element_types(op, *t)
                        .iter()
                        .any(|r| r.is_complex())
            })
        })
        .collect()
}

/// The scalar instruction of a catalog entry: its opcode and fixed attributes.
fn instruction(op: &OpEntry, result: ElementType, arity: usize) -> HloInstruction {
    HloInstruction {
        name: format!("{}.1", op.id),
        opcode: op
            .hlo_opcode()
            .expect("catalog opcodes are valid HLO opcodes"),
        shape: Shape::array(result, vec![]),
        operands: (0..arity).collect(),
        parameter_number: None,
        literal: None,
        attributes: op
            .attributes
            .iter()
            .map(|(name, value)| Attribute {
                name: name.clone(),
                value: AttrValue::Raw(value.clone()),
            })
            .collect(),
    }
}

/// The components of a result's bits, in the layout of [`Vector::expected`].
fn components(ty: ElementType, bits: u128) -> Vec<u64> {
    match format_of(ty) {
        Some(fmt) if ty.is_complex() => {
            let (re, im) = complex_parts(fmt, bits);
            vec![re, im]
        }
        _ => vec![bits as u64],
    }
}

fn matches(ty: ElementType, expected: &[Expected], got: u128) -> bool {
    let got = components(ty, got);
    let sign = format_of(ty).map_or(0, |f| 1u64 << (f.bit_width() - 1));
    got.len() == expected.len()
        && expected.iter().zip(&got).all(|(e, &g)| match *e {
            Expected::Bits(b) => g == b,
            Expected::AnyZero => g & !sign == 0,
        })
}

fn show(ty: ElementType, bits: u128) -> String {
    let digits = format_of(ty).map_or(1, |f| f.bit_width() as usize / 4);
    components(ty, bits)
        .iter()
        .map(|c| format!("{c:0digits$x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Per operation: vectors compared per operand type, and the mismatch messages.
#[derive(Default)]
struct Tally {
    per_type: BTreeMap<String, usize>,
    /// Vectors of [`KNOWN_DEFECTS`] seen (and still wrong).
    known: usize,
    failures: Vec<String>,
}

fn builtin() -> Catalog {
    Catalog::builtin().unwrap_or_else(|e| panic!("the built-in catalog must load: {e}"))
}

#[test]
fn every_complex_catalog_entry_has_vectors_or_a_reason() {
    let catalog = builtin();
    let entries = complex_entries(&catalog);
    assert!(
        entries.len() >= 20,
        "only {} complex entries",
        entries.len()
    );
    let mut missing = Vec::new();
    for op in &entries {
        let file = data_dir().join(format!("{}.txt", op.id));
        let excused = NOT_COVERED.iter().any(|(id, _)| *id == op.id);
        if file.exists() == excused {
            missing.push(format!(
                "{}: {}",
                op.id,
                if excused {
                    "has a file but is listed as not covered"
                } else {
                    "no vectors"
                }
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    for (id, _) in NOT_COVERED {
        assert!(
            entries.iter().any(|op| op.id == *id),
            "{id} is not a complex catalog entry"
        );
    }
}

/// Every vector through `eval_element`, bit-exact per component.
#[test]
fn reference_matches_the_complex_oracle() {
    let catalog = builtin();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for op in complex_entries(&catalog) {
        if NOT_COVERED.iter().any(|(id, _)| *id == op.id) {
            continue;
        }
        let vectors = load(&catalog, op).unwrap_or_else(|e| panic!("{e}"));
        let tally = tallies.entry(op.id.clone()).or_default();
        for v in &vectors {
            let instr = instruction(op, v.result_type, v.operands.len());
            *tally.per_type.entry(v.token.clone()).or_default() += 1;
            let outcome = eval_element(&instr, &v.operand_types, &v.operands, v.result_type);
            let correct = matches!(outcome, Ok(got) if matches(v.result_type, &v.expected, got));
            if known_defect(&op.id, v) {
                tally.known += 1;
                if correct {
                    tally.failures.push(format!(
                        "{}.txt:{}: `{}`: now correct: remove it from KNOWN_DEFECTS",
                        op.id, v.line, v.text
                    ));
                }
                continue;
            }
            let message = match outcome {
                Ok(_) if correct => continue,
                Ok(got) => format!("got {}", show(v.result_type, got)),
                Err(e) => format!("error: {e}"),
            };
            tally
                .failures
                .push(format!("{}.txt:{}: `{}`: {message}", op.id, v.line, v.text));
        }
    }
    let mut report = String::new();
    let mut failed = 0;
    for (id, t) in &tallies {
        let counts: Vec<String> = t
            .per_type
            .iter()
            .map(|(ty, n)| format!("{ty} {n}"))
            .collect();
        writeln!(
            report,
            "{id}: {} — {} mismatches{}",
            counts.join(", "),
            t.failures.len(),
            if t.known > 0 {
                format!(" ({} known defects, see KNOWN_DEFECTS)", t.known)
            } else {
                String::new()
            }
        )
        .unwrap();
        for f in t.failures.iter().take(SHOWN) {
            writeln!(report, "    {f}").unwrap();
        }
        failed += t.failures.len();
        let total: usize = t.per_type.values().sum();
        assert!(total >= MIN_PER_FILE, "{id}: only {total} vectors");
    }
    println!("{report}");
    assert_eq!(
        failed, 0,
        "the reference disagrees with the complex oracle:\n{report}"
    );
}

/// The same vectors through the interpreter (`Reference::execute`): one module per (operation,
/// type), all vectors as one 1-D array, so the complex array path (literal layout, per-element
/// dispatch) is held to the same bits.
#[test]
fn array_path_matches_the_complex_oracle() {
    let catalog = builtin();
    let mut failures = Vec::new();
    for op in complex_entries(&catalog) {
        if NOT_COVERED.iter().any(|(id, _)| *id == op.id) {
            continue;
        }
        let vectors = load(&catalog, op).unwrap_or_else(|e| panic!("{e}"));
        let mut groups: BTreeMap<(Vec<ElementType>, ElementType), Vec<&Vector>> = BTreeMap::new();
        for v in &vectors {
            groups
                .entry((v.operand_types.clone(), v.result_type))
                .or_default()
                .push(v);
        }
        for ((types, result), group) in groups {
            let n = group.len() as i64;
            let params: Vec<Shape> = types.iter().map(|&t| array_shape(t, &[n])).collect();
            let root = instruction(op, result, types.len());
            let mut root = root;
            root.shape = array_shape(result, &[n]);
            let module = single_op_module(&params, root);
            let args: Vec<_> = types
                .iter()
                .enumerate()
                .map(|(k, &t)| {
                    let bits: Vec<u128> = group.iter().map(|v| v.operands[k]).collect();
                    ArrayLiteral::from_bits(ArrayShape::new(t, vec![n]), &bits)
                        .expect("one element per vector")
                        .into()
                })
                .collect();
            let out = Reference
                .execute(&module, &args)
                .unwrap_or_else(|e| panic!("{} {types:?}: {e}", op.id));
            let out = out.as_array().expect("an array result");
            for (i, v) in group.iter().enumerate() {
                let got = out.get_bits_linear(i);
                if matches(result, &v.expected, got) == known_defect(&op.id, v) {
                    failures.push(format!(
                        "{}.txt:{}: `{}`: got {}{}",
                        op.id,
                        v.line,
                        v.text,
                        show(result, got),
                        if known_defect(&op.id, v) {
                            " (a KNOWN_DEFECTS entry, now correct: remove it)"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches through the array path:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn parser_reports_line_and_column() {
    let catalog = builtin();
    let add = catalog.op("add").expect("add is catalogued");
    assert_eq!(
        parse_types("c128>c64", 1, &catalog, add).unwrap(),
        (vec![ElementType::C128], ElementType::C64)
    );
    assert!(parse_types("c63", 2, &catalog, add).is_err());
    assert_eq!(
        parse_operand("3f800000:80000000", ElementType::C64).unwrap(),
        complex_bits(
            ElementType::C64.float_format().unwrap(),
            0x3f80_0000,
            0x8000_0000
        )
    );
    assert!(parse_operand("3f800000", ElementType::C64).is_err());
    assert!(parse_operand("3f80000:00000000", ElementType::C64).is_err());
    assert_eq!(
        parse_expected("z:3ff0000000000000", ElementType::C128).unwrap(),
        vec![Expected::AnyZero, Expected::Bits(0x3ff0_0000_0000_0000)]
    );
    assert!(parse_expected("2", ElementType::Pred).is_err());
    let err = |text: &str| {
        parse("t.txt", text, &catalog, add)
            .err()
            .unwrap_or_default()
    };
    assert_eq!(
        err("# header\nc64 3f800000:00000000 3f80000g:00000000 0:0"),
        "t.txt:2:23: `3f80000g`: invalid digit found in string"
    );
    assert!(err("c64 3f800000:00000000").starts_with("t.txt:1:1: "));
    assert!(err("c64 3f800000:00000000 3f800000:00000000 3f800000").starts_with("t.txt:1:41: "));
    assert!(
        err("# counts: c64=2\nc64 3f800000:00000000 3f800000:00000000 40000000:00000000")
            .contains("differ from the declared counts")
    );
    let ok = parse(
        "t.txt",
        "# counts: c64=1\nc64 3f800000:00000000 3f800000:00000000 40000000:00000000\n",
        &catalog,
        add,
    )
    .unwrap();
    assert_eq!(
        (ok.len(), ok[0].line, ok[0].result_type),
        (1, 2, ElementType::C64)
    );
    // A zero of either sign matches `z`; a nonzero does not; bits are compared exactly.
    let c64 = ElementType::C64;
    let f = c64.float_format().unwrap();
    let want = [Expected::AnyZero, Expected::Bits(0x3f80_0000)];
    assert!(matches(
        c64,
        &want,
        complex_bits(f, 0x8000_0000, 0x3f80_0000)
    ));
    assert!(matches(c64, &want, complex_bits(f, 0, 0x3f80_0000)));
    assert!(!matches(c64, &want, complex_bits(f, 1, 0x3f80_0000)));
    assert!(!matches(c64, &want, complex_bits(f, 0, 0x3f80_0001)));
}
