//! Operators, subscripts and builtins on attribute values (seed 003 §3.3.3): arithmetic on
//! integers and scalars, comparison, logic, array and string concatenation and repetition,
//! subscripts and ranges, `shape_of`/`length_of`/`range_of` and the casts. On tensors the
//! operators stand for fragments (`a + b` is `add(a, b)`): see [`unary_fragment`] and
//! [`binary_fragment`].

use crate::ast::{BinaryOp, Builtin, UnaryOp};
use crate::eval::evaluate::describe;
use crate::graph::Value;

/// The fragment a unary operator on a tensor invokes.
pub fn unary_fragment(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Plus => "copy",
        UnaryOp::Minus => "neg",
        UnaryOp::Not => "not",
    }
}

/// The fragment a binary operator on tensors invokes (`in` has none).
pub fn binary_fragment(op: BinaryOp) -> Option<&'static str> {
    use BinaryOp::*;
    Some(match op {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Div => "div",
        Pow => "pow",
        Lt => "lt",
        Le => "le",
        Gt => "gt",
        Ge => "ge",
        Eq => "eq",
        Ne => "ne",
        And => "and",
        Or => "or",
        In => return None,
    })
}

/// A unary operator on an attribute value. Errors: integer overflow; wrong operand type.
pub fn unary(op: UnaryOp, v: Value) -> Result<Value, String> {
    match (op, v) {
        (UnaryOp::Plus, v @ (Value::Integer(_) | Value::Scalar(_))) => Ok(v),
        (UnaryOp::Minus, Value::Integer(i)) => i
            .checked_neg()
            .map(Value::Integer)
            .ok_or_else(|| format!("-({i}) overflows")),
        (UnaryOp::Minus, Value::Scalar(x)) => Ok(Value::Scalar(-x)),
        (UnaryOp::Not, Value::Logical(b)) => Ok(Value::Logical(!b)),
        (op, v) => Err(format!(
            "operator {op:?} does not apply to {}",
            describe(&v)
        )),
    }
}

/// A binary operator on attribute values. Integer arithmetic is exact (overflow and division
/// by zero are errors; `/` truncates toward zero; `^` needs a non-negative exponent); scalar
/// arithmetic is IEEE double.
pub fn binary(op: BinaryOp, a: Value, b: Value) -> Result<Value, String> {
    use BinaryOp::*;
    use Value::*;
    let overflow = || format!("integer overflow in {a:?} {op:?} {b:?}");
    match (op, &a, &b) {
        (In, item, Array(items)) => Ok(Logical(items.contains(item))),
        (Add, Array(x), Array(y)) => Ok(Array(x.iter().chain(y).cloned().collect())),
        (Add, String(x), String(y)) => Ok(String(format!("{x}{y}"))),
        (Mul, Array(x), Integer(n)) | (Mul, Integer(n), Array(x)) => {
            let n = usize::try_from(*n).map_err(|_| format!("cannot repeat an array {n} times"))?;
            if x.len().saturating_mul(n) > 1 << 24 {
                return Err(format!(
                    "repeating an array of {} items {n} times is too large",
                    x.len()
                ));
            }
            Ok(Array(x.iter().cloned().cycle().take(x.len() * n).collect()))
        }
        (Mul, String(x), Integer(n)) | (Mul, Integer(n), String(x)) => {
            let n = usize::try_from(*n).map_err(|_| format!("cannot repeat a string {n} times"))?;
            if x.len().saturating_mul(n) > 1 << 24 {
                return Err(format!(
                    "repeating a string of {} characters {n} times is too large",
                    x.len()
                ));
            }
            Ok(String(x.repeat(n)))
        }
        (Add, Integer(x), Integer(y)) => x.checked_add(*y).map(Integer).ok_or_else(overflow),
        (Sub, Integer(x), Integer(y)) => x.checked_sub(*y).map(Integer).ok_or_else(overflow),
        (Mul, Integer(x), Integer(y)) => x.checked_mul(*y).map(Integer).ok_or_else(overflow),
        (Div, Integer(_), Integer(0)) => Err("integer division by zero".into()),
        (Div, Integer(x), Integer(y)) => x.checked_div(*y).map(Integer).ok_or_else(overflow),
        (Pow, Integer(x), Integer(y)) => {
            let e = u32::try_from(*y).map_err(|_| format!("integer power with exponent {y}"))?;
            x.checked_pow(e).map(Integer).ok_or_else(overflow)
        }
        (Add, Scalar(x), Scalar(y)) => Ok(Scalar(x + y)),
        (Sub, Scalar(x), Scalar(y)) => Ok(Scalar(x - y)),
        (Mul, Scalar(x), Scalar(y)) => Ok(Scalar(x * y)),
        (Div, Scalar(x), Scalar(y)) => Ok(Scalar(x / y)),
        (Pow, Scalar(x), Scalar(y)) => Ok(Scalar(x.powf(*y))),
        (Lt | Le | Gt | Ge, Integer(x), Integer(y)) => Ok(Logical(compare(op, x.cmp(y)))),
        (Lt | Le | Gt | Ge, Scalar(x), Scalar(y)) => Ok(Logical(match op {
            Lt => x < y,
            Le => x <= y,
            Gt => x > y,
            _ => x >= y,
        })),
        (Eq, x, y) => Ok(Logical(x == y)),
        (Ne, x, y) => Ok(Logical(x != y)),
        (And, Logical(x), Logical(y)) => Ok(Logical(*x && *y)),
        (Or, Logical(x), Logical(y)) => Ok(Logical(*x || *y)),
        _ => Err(format!(
            "operator {op:?} does not apply to {} and {}",
            describe(&a),
            describe(&b)
        )),
    }
}

fn compare(op: BinaryOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinaryOp::Lt => o == Less,
        BinaryOp::Le => o != Greater,
        BinaryOp::Gt => o == Greater,
        _ => o != Less,
    }
}

/// A subscript: one item, or a range `[begin:end)` (either end optional).
pub enum Index {
    /// `a[i]`
    At(Value),
    /// `a[i:j]`
    Range(Option<Value>, Option<Value>),
}

/// Subscripts an array, tuple or string (seed 003 §3.3.3 "arrays", "tuples", "strings").
/// An index must lie in `0..len`; range ends are clamped to `0..=len` and an empty range
/// (begin ≥ end) gives the empty array or string.
pub fn subscript(v: Value, index: Index) -> Result<Value, String> {
    let len = match &v {
        Value::Array(items) | Value::Tuple(items) => items.len(),
        Value::String(s) => s.chars().count(),
        other => return Err(format!("cannot subscript {}", describe(other))),
    };
    let int = |x: &Value| {
        x.as_integer()
            .ok_or_else(|| format!("an index must be an integer, found {}", describe(x)))
    };
    match index {
        Index::At(i) => {
            let i = int(&i)?;
            let k = usize::try_from(i)
                .ok()
                .filter(|k| *k < len)
                .ok_or_else(|| {
                    format!(
                        "index {i} is out of range for {} (length {len})",
                        describe(&v)
                    )
                })?;
            match v {
                Value::Array(mut items) | Value::Tuple(mut items) => Ok(items.swap_remove(k)),
                Value::String(s) => Ok(Value::String(
                    s.chars().nth(k).map(String::from).unwrap_or_default(),
                )),
                other => Err(format!("cannot subscript {}", describe(&other))),
            }
        }
        Index::Range(b, e) => {
            if matches!(v, Value::Tuple(_)) {
                return Err("tuples cannot be sliced with a range".into());
            }
            let clamp = |x: i64| x.clamp(0, len as i64) as usize;
            let begin = b.as_ref().map(int).transpose()?.map_or(0, clamp);
            let end = e.as_ref().map(int).transpose()?.map_or(len, clamp);
            let end = end.max(begin);
            match v {
                Value::Array(items) => Ok(Value::Array(items[begin..end].to_vec())),
                Value::String(s) => Ok(Value::String(
                    s.chars().skip(begin).take(end - begin).collect(),
                )),
                other => Err(format!("cannot take a range of {}", describe(&other))),
            }
        }
    }
}

/// A builtin function or cast (seed 003 §3.3.3 "builtin functions"); `shape_of` reads tensor
/// shapes through `shape_of_tensor` (a non-tensor value has the singleton shape `[]`).
pub fn builtin(
    builtin: Builtin,
    v: Value,
    shape_of_tensor: &dyn Fn(&str) -> Option<Vec<usize>>,
) -> Result<Value, String> {
    let ints = |n: usize| Value::Array((0..n as i64).map(Value::Integer).collect());
    match (builtin, v) {
        (Builtin::ShapeOf, Value::Tensor(t)) => {
            let shape = shape_of_tensor(&t).ok_or_else(|| format!("tensor '{t}' has no shape"))?;
            Ok(Value::Array(
                shape
                    .into_iter()
                    .map(|d| Value::Integer(d as i64))
                    .collect(),
            ))
        }
        (Builtin::ShapeOf, Value::Integer(_) | Value::Scalar(_) | Value::Logical(_)) => {
            Ok(Value::Array(vec![]))
        }
        (Builtin::LengthOf, Value::Array(items)) => Ok(Value::Integer(items.len() as i64)),
        (Builtin::LengthOf, Value::String(s)) => Ok(Value::Integer(s.chars().count() as i64)),
        (Builtin::RangeOf, Value::Array(items)) => Ok(ints(items.len())),
        (Builtin::RangeOf, Value::String(s)) => Ok(ints(s.chars().count())),
        (Builtin::Scalar, Value::Logical(b)) => Ok(Value::Scalar(if b { 1.0 } else { 0.0 })),
        (Builtin::Scalar, Value::Integer(i)) => Ok(Value::Scalar(i as f64)),
        (Builtin::Scalar, v @ Value::Scalar(_)) => Ok(v),
        (Builtin::Scalar, Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && is_numeric_literal(s.trim()))
            .map(Value::Scalar)
            .ok_or_else(|| format!("scalar('{s}'): the string is not a numeric literal")),
        (Builtin::Integer, Value::Logical(b)) => Ok(Value::Integer(i64::from(b))),
        (Builtin::Integer, v @ Value::Integer(_)) => Ok(v),
        (Builtin::Integer, Value::Scalar(x)) => {
            let f = x.floor();
            if f.is_finite() && f >= i64::MIN as f64 && f < i64::MAX as f64 {
                Ok(Value::Integer(f as i64))
            } else {
                Err(format!("integer({x}) is out of range"))
            }
        }
        (Builtin::Integer, Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|_| s.trim().bytes().all(|c| c.is_ascii_digit()))
            .map(Value::Integer)
            .ok_or_else(|| format!("integer('{s}'): the string is not an integer literal")),
        (Builtin::Logical, Value::Integer(i)) => Ok(Value::Logical(i != 0)),
        (Builtin::Logical, Value::Scalar(x)) => Ok(Value::Logical(x != 0.0)),
        (Builtin::Logical, Value::String(s)) => Ok(Value::Logical(!s.is_empty())),
        (Builtin::Logical, v @ Value::Logical(_)) => Ok(v),
        (Builtin::String, Value::String(s)) => Ok(Value::String(s)),
        (Builtin::String, Value::Integer(i)) => Ok(Value::String(i.to_string())),
        (Builtin::String, Value::Scalar(x)) => Ok(Value::String(scalar_literal(x))),
        (Builtin::String, Value::Logical(b)) => Ok(Value::String(b.to_string())),
        (b, v) => Err(format!("{b:?} does not apply to {}", describe(&v))),
    }
}

/// The literal spelling of a scalar (always with a `.` or exponent, so it reads back as a scalar).
pub fn scalar_literal(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'E']) || !x.is_finite() {
        s
    } else {
        format!("{s}.0")
    }
}

fn is_numeric_literal(s: &str) -> bool {
    let mut chars = s.chars().peekable();
    let mut digits = 0;
    while chars.peek().is_some_and(char::is_ascii_digit) {
        chars.next();
        digits += 1;
    }
    if chars.peek() == Some(&'.') {
        chars.next();
        while chars.peek().is_some_and(char::is_ascii_digit) {
            chars.next();
        }
    }
    if matches!(chars.peek(), Some('e' | 'E')) {
        chars.next();
        if matches!(chars.peek(), Some('+' | '-')) {
            chars.next();
        }
        let mut exp = 0;
        while chars.peek().is_some_and(char::is_ascii_digit) {
            chars.next();
            exp += 1;
        }
        if exp == 0 {
            return false;
        }
    }
    digits > 0 && chars.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Value::*;

    #[test]
    fn arithmetic_follows_the_seed() {
        assert_eq!(
            binary(BinaryOp::Add, Integer(2), Integer(3)),
            Ok(Integer(5))
        );
        assert_eq!(
            binary(BinaryOp::Div, Integer(-7), Integer(2)),
            Ok(Integer(-3))
        );
        assert!(binary(BinaryOp::Div, Integer(1), Integer(0)).is_err());
        assert!(binary(BinaryOp::Mul, Integer(i64::MAX), Integer(2)).is_err());
        assert_eq!(
            binary(BinaryOp::Pow, Scalar(2.0), Scalar(0.5)),
            Ok(Scalar(2f64.sqrt()))
        );
        // Arrays and strings concatenate and repeat.
        assert_eq!(
            binary(
                BinaryOp::Mul,
                Array(vec![Integer(1), Integer(2)]),
                Integer(2)
            ),
            Ok(Array(vec![Integer(1), Integer(2), Integer(1), Integer(2)]))
        );
        assert_eq!(
            binary(BinaryOp::Add, String("ab".into()), String("c".into())),
            Ok(String("abc".into()))
        );
        assert_eq!(
            binary(
                BinaryOp::In,
                Integer(2),
                Array(vec![Integer(1), Integer(2)])
            ),
            Ok(Logical(true))
        );
        // No mixing of integers and scalars.
        assert!(binary(BinaryOp::Add, Integer(1), Scalar(1.0)).is_err());
    }

    #[test]
    fn subscripts_and_ranges() {
        let a = Array(vec![Integer(1), Integer(2), Integer(3)]);
        assert_eq!(subscript(a.clone(), Index::At(Integer(1))), Ok(Integer(2)));
        assert!(subscript(a.clone(), Index::At(Integer(3))).is_err());
        assert_eq!(
            subscript(a.clone(), Index::Range(None, Some(Integer(2)))),
            Ok(Array(vec![Integer(1), Integer(2)]))
        );
        assert_eq!(
            subscript(a.clone(), Index::Range(Some(Integer(2)), Some(Integer(2)))),
            Ok(Array(vec![]))
        );
        assert_eq!(
            subscript(String("abc".into()), Index::At(Integer(1))),
            Ok(String("b".into()))
        );
    }

    #[test]
    fn casts_follow_the_seed() {
        let none = |_: &str| None;
        assert_eq!(
            builtin(Builtin::Scalar, Logical(true), &none),
            Ok(Scalar(1.0))
        );
        assert_eq!(
            builtin(Builtin::Integer, Scalar(-1.5), &none),
            Ok(Integer(-2))
        );
        assert_eq!(
            builtin(Builtin::Logical, String(std::string::String::new()), &none),
            Ok(Logical(false))
        );
        assert_eq!(
            builtin(Builtin::Scalar, String("2.5e1".into()), &none),
            Ok(Scalar(25.0))
        );
        assert!(builtin(Builtin::Scalar, String("x".into()), &none).is_err());
        assert_eq!(
            builtin(Builtin::String, Scalar(1.0), &none),
            Ok(String("1.0".into()))
        );
        assert_eq!(
            builtin(Builtin::RangeOf, String("ab".into()), &none),
            Ok(Array(vec![Integer(0), Integer(1)]))
        );
    }
}
