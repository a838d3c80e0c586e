//! Reading an operation's attribute arguments (evaluated [`Value`]s) with errors that name the
//! operation, its span and the attribute.

use super::fail;
use crate::error::NnefError;
use crate::graph::{Operation, Value};

fn argument<'o>(op: &'o Operation, name: &str) -> Result<&'o Value, NnefError> {
    op.argument(name)
        .ok_or_else(|| fail(op, format!("missing attribute '{name}'")))
}

/// An `integer` attribute.
pub(super) fn integer(op: &Operation, name: &str) -> Result<i64, NnefError> {
    argument(op, name)?
        .as_integer()
        .ok_or_else(|| fail(op, format!("attribute '{name}' must be an integer")))
}

/// An `integer[]` attribute (possibly empty).
pub(super) fn integers(op: &Operation, name: &str) -> Result<Vec<i64>, NnefError> {
    argument(op, name)?.as_integers().ok_or_else(|| {
        fail(
            op,
            format!("attribute '{name}' must be an array of integers"),
        )
    })
}

/// A `logical` attribute.
pub(super) fn logical(op: &Operation, name: &str) -> Result<bool, NnefError> {
    argument(op, name)?
        .as_logical()
        .ok_or_else(|| fail(op, format!("attribute '{name}' must be a logical")))
}

/// A `scalar` attribute (an integer value is accepted as its real value).
pub(super) fn scalar(op: &Operation, name: &str) -> Result<f64, NnefError> {
    argument(op, name)?
        .as_scalar()
        .ok_or_else(|| fail(op, format!("attribute '{name}' must be a scalar")))
}

/// A `string` attribute.
pub(super) fn string<'o>(op: &'o Operation, name: &str) -> Result<&'o str, NnefError> {
    argument(op, name)?
        .as_str()
        .ok_or_else(|| fail(op, format!("attribute '{name}' must be a string")))
}

/// A `(integer, integer)[]` attribute such as `padding` (possibly empty).
pub(super) fn pairs(op: &Operation, name: &str) -> Result<Vec<(i64, i64)>, NnefError> {
    let bad = || {
        fail(
            op,
            format!("attribute '{name}' must be an array of (integer, integer) tuples"),
        )
    };
    let items = argument(op, name)?.items().ok_or_else(bad)?;
    items
        .iter()
        .map(|item| match item.items() {
            Some([a, b]) => Ok((
                a.as_integer().ok_or_else(bad)?,
                b.as_integer().ok_or_else(bad)?,
            )),
            _ => Err(bad()),
        })
        .collect()
}

/// An axis list checked against `rank`: every item in `[0, rank)`, none repeated.
pub(super) fn axes(op: &Operation, name: &str, rank: usize) -> Result<Vec<usize>, NnefError> {
    let list = integers(op, name)?;
    let mut out: Vec<usize> = Vec::with_capacity(list.len());
    for a in list {
        let Some(k) = usize::try_from(a).ok().filter(|&k| k < rank) else {
            return Err(fail(
                op,
                format!("axis {a} in '{name}' is outside [0, {rank})"),
            ));
        };
        if out.contains(&k) {
            return Err(fail(op, format!("axis {a} appears twice in '{name}'")));
        }
        out.push(k);
    }
    Ok(out)
}

/// An axis checked against `rank` (`[0, rank)`).
pub(super) fn axis(op: &Operation, name: &str, rank: usize) -> Result<usize, NnefError> {
    let a = integer(op, name)?;
    usize::try_from(a)
        .ok()
        .filter(|&k| k < rank)
        .ok_or_else(|| fail(op, format!("'{name}' = {a} is outside [0, {rank})")))
}
