//! The f32 double-rounding traps of `tests/data/f32_double_rounding_traps.txt` (found by
//! `examples/scan_double_rounding.rs`): inputs where rounding the correctly rounded f64 result to
//! f32 — what an evaluator computing in double does — gives the wrong f32. For each case:
//! (i) the oracle (MPFR at 256 bits, rounded once) gives the listed correct bits; (ii) rounding the
//! correctly rounded f64 to f32 gives the listed double-rounded bits, which differ, so the case is
//! a real trap; (iii) the reference's `eval_element` gives the correct bits.
//!
//! Run: `cargo test -p conformance-reference --test double_rounding_traps`.

mod oracle;

use conformance_reference::eval_element;
use conformance_spec::{ElementType, FloatFormat, HloInstruction, Opcode, Shape};

const DATA: &str = include_str!("data/f32_double_rounding_traps.txt");

/// Functions the scanner covers, their opcodes and arities.
const FUNCTIONS: [(&str, Opcode, usize); 9] = [
    ("log", Opcode::Log, 1),
    ("sin", Opcode::Sine, 1),
    ("cos", Opcode::Cosine, 1),
    ("tan", Opcode::Tan, 1),
    ("tanh", Opcode::Tanh, 1),
    ("expm1", Opcode::ExponentialMinusOne, 1),
    ("log1p", Opcode::LogPlusOne, 1),
    ("pow", Opcode::Power, 2),
    ("atan2", Opcode::Atan2, 2),
];

/// One line of the data file.
#[derive(Debug, Clone, PartialEq)]
struct Trap {
    line: usize,
    function: &'static str,
    op: Opcode,
    inputs: Vec<u32>,
    correct: u32,
    double_rounded: u32,
}

/// Parses the data file: `function input... correct double_rounded`, hex bits, `#` comments.
///
/// Errors: a message naming `line:column` for an unknown function, a missing or extra field, or a
/// field that is not `0x` followed by at most 8 hex digits.
fn parse(text: &str) -> Result<Vec<Trap>, String> {
    let mut traps = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("");
        let mut fields = Vec::new();
        let mut column = 1;
        for piece in content.split(' ') {
            if !piece.is_empty() {
                fields.push((column, piece));
            }
            column += piece.chars().count() + 1;
        }
        let Some(&(_, name)) = fields.first() else {
            continue;
        };
        let Some(&(function, op, arity)) = FUNCTIONS.iter().find(|f| f.0 == name) else {
            return Err(format!("{line}:1: unknown function `{name}`"));
        };
        if fields.len() != arity + 3 {
            return Err(format!(
                "{line}:1: `{name}` takes {} input(s), then correct and double-rounded bits: {} field(s) found",
                arity,
                fields.len()
            ));
        }
        let mut bits = Vec::new();
        for &(col, field) in &fields[1..] {
            let hex = field
                .strip_prefix("0x")
                .filter(|h| !h.is_empty() && h.len() <= 8)
                .ok_or_else(|| {
                    format!("{line}:{col}: expected 0x and up to 8 hex digits, found `{field}`")
                })?;
            let v = u32::from_str_radix(hex, 16)
                .map_err(|e| format!("{line}:{col}: `{field}`: {e}"))?;
            bits.push(v);
        }
        traps.push(Trap {
            line,
            function,
            op,
            inputs: bits[..arity].to_vec(),
            correct: bits[arity],
            double_rounded: bits[arity + 1],
        });
    }
    Ok(traps)
}

fn traps() -> Vec<Trap> {
    parse(DATA).unwrap_or_else(|e| panic!("f32_double_rounding_traps.txt:{e}"))
}

fn instruction(op: Opcode, arity: usize) -> HloInstruction {
    HloInstruction {
        name: format!("{}.1", op.name()),
        opcode: op,
        shape: Shape::array(ElementType::F32, vec![]),
        operands: (0..arity).collect(),
        parameter_number: None,
        literal: None,
        attributes: vec![],
    }
}

fn exact(t: &Trap) -> (rug::Float, std::cmp::Ordering) {
    let x: Vec<rug::Float> = t
        .inputs
        .iter()
        .map(|&b| oracle::decode(FloatFormat::F32, b as u64))
        .collect();
    let r = match x.as_slice() {
        [a] => oracle::exact_unary(t.op, a),
        [a, b] => oracle::exact_binary(t.op, a, b),
        _ => unreachable!("arity is 1 or 2"),
    };
    r.unwrap_or_else(|e| panic!("line {}: oracle: {e:?}", t.line))
}

#[test]
fn the_list_covers_every_function_and_has_log_traps() {
    let traps = traps();
    for (name, _, _) in FUNCTIONS {
        let listed = traps.iter().any(|t| t.function == name);
        let said_none = DATA
            .lines()
            .any(|l| l.starts_with(&format!("# {name}: no trap")));
        assert!(
            listed || said_none,
            "{name}: neither a trap nor a `# {name}: no trap` line"
        );
        assert!(
            !(listed && said_none),
            "{name}: traps listed and `no trap` said"
        );
    }
    let log = traps.iter().filter(|t| t.function == "log").count();
    assert!(log >= 1, "log has known traps, none listed");
    assert!(
        DATA.contains("--example scan_double_rounding"),
        "the header names the command"
    );
}

#[test]
fn every_listed_case_is_a_real_trap_and_the_oracle_agrees() {
    for t in traps() {
        let (value, ternary) = exact(&t);
        let (correct, double_rounded) = oracle::f32_correct_and_double_rounded(&value, ternary);
        assert_eq!(
            correct, t.correct,
            "line {}: {} {:x?}: oracle says {correct:#010x}",
            t.line, t.function, t.inputs
        );
        assert_eq!(
            double_rounded, t.double_rounded,
            "line {}: {} {:x?}: f64-then-f32 gives {double_rounded:#010x}",
            t.line, t.function, t.inputs
        );
        assert_ne!(t.correct, t.double_rounded, "line {}: not a trap", t.line);
        // The two results are adjacent f32 values: the exact value is next to their midpoint.
        let f = FloatFormat::F32;
        let (a, b) = (
            f.to_ordered(correct as u64),
            f.to_ordered(double_rounded as u64),
        );
        assert_eq!((a - b).abs(), 1, "line {}: not neighbours", t.line);
    }
}

#[test]
fn the_reference_gives_the_correctly_rounded_f32() {
    let mut failures = Vec::new();
    for t in traps() {
        let operands: Vec<u128> = t.inputs.iter().map(|&b| b as u128).collect();
        let types = vec![ElementType::F32; operands.len()];
        let instr = instruction(t.op, operands.len());
        match eval_element(&instr, &types, &operands, ElementType::F32) {
            Ok(got) if got == t.correct as u128 => {}
            Ok(got) => failures.push(format!(
                "{} f32 {:x?}: expected {:#010x}, got {got:#010x}{}",
                t.op,
                t.inputs,
                t.correct,
                if got == t.double_rounded as u128 {
                    " (the double-rounded value)"
                } else {
                    ""
                }
            )),
            Err(e) => failures.push(format!(
                "{} f32 {:x?}: expected {:#010x}, got error: {e}",
                t.op, t.inputs, t.correct
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn parse_reports_line_and_column() {
    assert_eq!(parse("# only a comment\n\n").map(|v| v.len()), Ok(0));
    let ok = parse("log 0x3c413d3a 0xc08e158f 0xc08e1590  # note\n").unwrap();
    assert_eq!(ok[0].inputs, vec![0x3c41_3d3a]);
    assert_eq!(ok[0].correct, 0xc08e_158f);
    assert_eq!(
        parse("# x\nlog 0x1 0xzz 0x3\n"),
        Err("2:9: `0xzz`: invalid digit found in string".to_string())
    );
    assert!(parse("exp 0x1 0x2 0x3")
        .unwrap_err()
        .starts_with("1:1: unknown function"));
    assert!(parse("pow 0x1 0x2 0x3")
        .unwrap_err()
        .starts_with("1:1: `pow` takes 2"));
    assert!(parse("log 0x1 2 0x3")
        .unwrap_err()
        .starts_with("1:9: expected 0x"));
}
