//! Element-wise operations (NNEF 1.0.5 §4.2): unary arithmetic, logical and rounding
//! operations, binary arithmetic, comparisons and logical operations, and `select`, with NNEF
//! broadcasting (shapes align from the left; singleton extents repeat).
//!
//! Functions HLO has no opcode for are composed from seed 004 operations, avoiding cancellation:
//! `sinh x = (expm1(x) - expm1(-x)) / 2`, `cosh x = (exp(x) + exp(-x)) / 2`,
//! `asin x = atan2(x, sqrt((1 - x)(1 + x)))`, `acos x = atan2(sqrt((1 - x)(1 + x)), x)`,
//! `atan x = atan2(x, 1)`, `asinh x = sign(x)·log1p(|x| + x²/(1 + sqrt(1 + x²)))` (`log|x| + ln 2`
//! beyond 2^30), `acosh x = log1p((x - 1) + sqrt((x - 1)(x + 1)))` (`log x + ln 2` beyond 2^30),
//! `atanh x = (log1p(x) - log1p(-x)) / 2`, `rcp x = 1 / x`, and `round x = floor(x + 1/2)` (the
//! standard's definition, computed exactly as `floor(x) + (x - floor(x) >= 1/2)`).

use conformance_spec::hlo::Opcode;

use super::{At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("copy", copy),
    ("neg", |l, op| unary_opcode(l, op, Opcode::Negate)),
    ("exp", |l, op| unary_opcode(l, op, Opcode::Exponential)),
    ("log", |l, op| unary_opcode(l, op, Opcode::Log)),
    ("sin", |l, op| unary_opcode(l, op, Opcode::Sine)),
    ("cos", |l, op| unary_opcode(l, op, Opcode::Cosine)),
    ("tan", |l, op| unary_opcode(l, op, Opcode::Tan)),
    ("tanh", |l, op| unary_opcode(l, op, Opcode::Tanh)),
    ("abs", |l, op| unary_opcode(l, op, Opcode::Abs)),
    ("sign", |l, op| unary_opcode(l, op, Opcode::Sign)),
    ("floor", |l, op| unary_opcode(l, op, Opcode::Floor)),
    ("ceil", |l, op| unary_opcode(l, op, Opcode::Ceil)),
    ("not", not),
    ("rcp", |l, op| unary_with(l, op, rcp)),
    ("round", |l, op| unary_with(l, op, round)),
    ("sinh", |l, op| unary_with(l, op, sinh)),
    ("cosh", |l, op| unary_with(l, op, cosh)),
    ("asin", |l, op| unary_with(l, op, asin)),
    ("acos", |l, op| unary_with(l, op, acos)),
    ("atan", |l, op| unary_with(l, op, atan)),
    ("asinh", |l, op| unary_with(l, op, asinh)),
    ("acosh", |l, op| unary_with(l, op, acosh)),
    ("atanh", |l, op| unary_with(l, op, atanh)),
    ("add", |l, op| arithmetic(l, op, Opcode::Add)),
    ("sub", |l, op| arithmetic(l, op, Opcode::Subtract)),
    ("mul", |l, op| arithmetic(l, op, Opcode::Multiply)),
    ("div", |l, op| arithmetic(l, op, Opcode::Divide)),
    ("pow", |l, op| arithmetic(l, op, Opcode::Power)),
    ("lt", |l, op| comparison(l, op, "LT")),
    ("gt", |l, op| comparison(l, op, "GT")),
    ("le", |l, op| comparison(l, op, "LE")),
    ("ge", |l, op| comparison(l, op, "GE")),
    ("eq", |l, op| comparison(l, op, "EQ")),
    ("ne", |l, op| comparison(l, op, "NE")),
    ("and", |l, op| logical(l, op, Opcode::And)),
    ("or", |l, op| logical(l, op, Opcode::Or)),
    ("select", select),
];

const LN_2: f64 = std::f64::consts::LN_2;
/// Beyond this magnitude `asinh` and `acosh` use `log|x| + ln 2` (their squares would overflow).
const LARGE: f64 = 1_073_741_824.0;

/// `y = copy(x)` of any data type.
fn copy(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let dtype = l.result_tensor(op, "y")?.dtype;
    let x = l.input(op, "x", dtype)?;
    let out = l.result_dims(op, "y")?;
    let x = l.broadcast_to(op, x, &out)?;
    let y = l.b.copy(x).at(op)?;
    l.bind(op, "y", y)
}

/// `y = not(x)` on logical tensors.
fn not(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "x", DataType::Logical)?;
    let out = l.result_dims(op, "y")?;
    let x = l.broadcast_to(op, x, &out)?;
    let y = l.b.unary(Opcode::Not, x).at(op)?;
    l.bind(op, "y", y)
}

/// `y = opcode(x)` on scalar tensors.
fn unary_opcode(l: &mut Lowerer<'_>, op: &Operation, opcode: Opcode) -> Result<(), NnefError> {
    unary_with(l, op, |l, op, x| l.b.unary(opcode, x).at(op))
}

/// `y = f(x)` on scalar tensors, `f` emitting the instructions.
fn unary_with(
    l: &mut Lowerer<'_>,
    op: &Operation,
    f: impl FnOnce(&mut Lowerer<'_>, &Operation, usize) -> Result<usize, NnefError>,
) -> Result<(), NnefError> {
    let x = l.input(op, "x", DataType::Scalar)?;
    let out = l.result_dims(op, "y")?;
    let x = l.broadcast_to(op, x, &out)?;
    let y = f(l, op, x)?;
    l.bind(op, "y", y)
}

impl Lowerer<'_> {
    /// A constant of `x`'s extents and element type.
    fn like(&mut self, op: &Operation, x: usize, v: f64) -> Result<usize, NnefError> {
        let (ty, dims) = (self.ety(x), self.dims(x));
        self.full(op, ty, v, &dims)
    }

    fn un(&mut self, op: &Operation, opcode: Opcode, x: usize) -> Result<usize, NnefError> {
        self.b.unary(opcode, x).at(op)
    }

    fn bin(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        x: usize,
        y: usize,
    ) -> Result<usize, NnefError> {
        self.b.binary(opcode, x, y).at(op)
    }

    /// `opcode(x, c)` for a constant `c`.
    fn bin_c(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        x: usize,
        c: f64,
    ) -> Result<usize, NnefError> {
        let c = self.like(op, x, c)?;
        self.bin(op, opcode, x, c)
    }

    /// `opcode(c, x)` for a constant `c`.
    fn c_bin(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        c: f64,
        x: usize,
    ) -> Result<usize, NnefError> {
        let c = self.like(op, x, c)?;
        self.bin(op, opcode, c, x)
    }

    /// `sqrt((1 - x)(1 + x))`, i.e. `sqrt(1 - x²)` without cancellation near |x| = 1.
    fn sqrt_one_minus_square(&mut self, op: &Operation, x: usize) -> Result<usize, NnefError> {
        let a = self.c_bin(op, Opcode::Subtract, 1.0, x)?;
        let b = self.c_bin(op, Opcode::Add, 1.0, x)?;
        let m = self.bin(op, Opcode::Multiply, a, b)?;
        self.un(op, Opcode::Sqrt, m)
    }

    /// `select(|x| > LARGE, log|x| + ln 2, small)`: the asymptote of `asinh` / `acosh`.
    fn with_log_asymptote(
        &mut self,
        op: &Operation,
        a: usize,
        small: usize,
    ) -> Result<usize, NnefError> {
        let log = self.un(op, Opcode::Log, a)?;
        let large = self.bin_c(op, Opcode::Add, log, LN_2)?;
        let limit = self.like(op, a, LARGE)?;
        let big = self.b.compare(a, limit, "GT", None).at(op)?;
        self.b.select(big, large, small).at(op)
    }
}

fn rcp(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    l.c_bin(op, Opcode::Divide, 1.0, x)
}

/// `floor(x + 1/2)`, exactly: `x - floor(x)` is exact in binary floating point.
pub(super) fn round(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let f = l.un(op, Opcode::Floor, x)?;
    let r = l.bin(op, Opcode::Subtract, x, f)?;
    let half = l.like(op, x, 0.5)?;
    let up = l.b.compare(r, half, "GE", None).at(op)?;
    let f1 = l.bin_c(op, Opcode::Add, f, 1.0)?;
    l.b.select(up, f1, f).at(op)
}

fn sinh(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let a = l.un(op, Opcode::ExponentialMinusOne, x)?;
    let nx = l.un(op, Opcode::Negate, x)?;
    let b = l.un(op, Opcode::ExponentialMinusOne, nx)?;
    let d = l.bin(op, Opcode::Subtract, a, b)?;
    l.bin_c(op, Opcode::Multiply, d, 0.5)
}

fn cosh(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let a = l.un(op, Opcode::Exponential, x)?;
    let nx = l.un(op, Opcode::Negate, x)?;
    let b = l.un(op, Opcode::Exponential, nx)?;
    let s = l.bin(op, Opcode::Add, a, b)?;
    l.bin_c(op, Opcode::Multiply, s, 0.5)
}

fn asin(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let c = l.sqrt_one_minus_square(op, x)?;
    l.bin(op, Opcode::Atan2, x, c)
}

fn acos(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let s = l.sqrt_one_minus_square(op, x)?;
    l.bin(op, Opcode::Atan2, s, x)
}

fn atan(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let one = l.like(op, x, 1.0)?;
    l.bin(op, Opcode::Atan2, x, one)
}

fn asinh(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let a = l.un(op, Opcode::Abs, x)?;
    let a2 = l.bin(op, Opcode::Multiply, a, a)?;
    let s = l.c_bin(op, Opcode::Add, 1.0, a2)?;
    let r = l.un(op, Opcode::Sqrt, s)?;
    let d = l.c_bin(op, Opcode::Add, 1.0, r)?;
    let q = l.bin(op, Opcode::Divide, a2, d)?;
    let t = l.bin(op, Opcode::Add, a, q)?;
    let small = l.un(op, Opcode::LogPlusOne, t)?;
    let m = l.with_log_asymptote(op, a, small)?;
    let sign = l.un(op, Opcode::Sign, x)?;
    l.bin(op, Opcode::Multiply, m, sign)
}

fn acosh(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let t = l.bin_c(op, Opcode::Subtract, x, 1.0)?;
    let u = l.bin_c(op, Opcode::Add, x, 1.0)?;
    let p = l.bin(op, Opcode::Multiply, t, u)?;
    let r = l.un(op, Opcode::Sqrt, p)?;
    let s = l.bin(op, Opcode::Add, t, r)?;
    let small = l.un(op, Opcode::LogPlusOne, s)?;
    l.with_log_asymptote(op, x, small)
}

fn atanh(l: &mut Lowerer<'_>, op: &Operation, x: usize) -> Result<usize, NnefError> {
    let a = l.un(op, Opcode::LogPlusOne, x)?;
    let nx = l.un(op, Opcode::Negate, x)?;
    let b = l.un(op, Opcode::LogPlusOne, nx)?;
    let d = l.bin(op, Opcode::Subtract, a, b)?;
    l.bin_c(op, Opcode::Multiply, d, 0.5)
}

/// Both operands of a binary operation of `dtype`, broadcast to the result's extents.
fn operands(
    l: &mut Lowerer<'_>,
    op: &Operation,
    dtype: DataType,
    result: &str,
) -> Result<(usize, usize), NnefError> {
    let out = l.result_dims(op, result)?;
    let x = l.input(op, "x", dtype)?;
    let y = l.input(op, "y", dtype)?;
    Ok((l.broadcast_to(op, x, &out)?, l.broadcast_to(op, y, &out)?))
}

/// `z = opcode(x, y)` on scalar tensors.
fn arithmetic(l: &mut Lowerer<'_>, op: &Operation, opcode: Opcode) -> Result<(), NnefError> {
    let (x, y) = operands(l, op, DataType::Scalar, "z")?;
    let z = l.bin(op, opcode, x, y)?;
    l.bind(op, "z", z)
}

/// `z = compare(x, y)` on scalar tensors, a logical result (IEEE comparison: NaN is unordered).
fn comparison(l: &mut Lowerer<'_>, op: &Operation, direction: &str) -> Result<(), NnefError> {
    let (x, y) = operands(l, op, DataType::Scalar, "z")?;
    let z = l.b.compare(x, y, direction, None).at(op)?;
    l.bind(op, "z", z)
}

/// `z = opcode(x, y)` on logical tensors.
fn logical(l: &mut Lowerer<'_>, op: &Operation, opcode: Opcode) -> Result<(), NnefError> {
    let (x, y) = operands(l, op, DataType::Logical, "z")?;
    let z = l.bin(op, opcode, x, y)?;
    l.bind(op, "z", z)
}

/// `output = select(condition, true_value, false_value)` of any data type; all three broadcast.
fn select(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let out = l.result_tensor(op, "output")?;
    let (dtype, dims) = (out.dtype, super::dims_i64(&out.shape));
    let c = l.input(op, "condition", DataType::Logical)?;
    let t = l.input(op, "true_value", dtype)?;
    let f = l.input(op, "false_value", dtype)?;
    let c = l.broadcast_to(op, c, &dims)?;
    let t = l.broadcast_to(op, t, &dims)?;
    let f = l.broadcast_to(op, f, &dims)?;
    let y = l.b.select(c, t, f).at(op)?;
    l.bind(op, "output", y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unary_and_binary_primitive_has_a_rule() {
        for name in [
            "copy", "neg", "rcp", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh",
            "asin", "acos", "atan", "asinh", "acosh", "atanh", "abs", "sign", "not", "floor",
            "ceil", "round", "add", "sub", "mul", "div", "pow", "lt", "gt", "le", "ge", "eq", "ne",
            "and", "or", "select",
        ] {
            assert!(RULES.iter().any(|(n, _)| *n == name), "{name}");
        }
    }
}
