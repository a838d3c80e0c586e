//! Typed access to the evaluated arguments of an [`Operation`] for the shape functions: every
//! accessor names the operation and the parameter in its error message, so a shape function
//! never panics on a malformed argument list (a missing parameter, a wrong value kind, an
//! extent that does not fit).

use crate::graph::{Operation, Value};

/// An operation with the means to look up the shapes of its tensor arguments.
pub(crate) struct Ctx<'a> {
    op: &'a Operation,
    shape_of: &'a dyn Fn(&Value) -> Option<Vec<usize>>,
}

impl<'a> Ctx<'a> {
    /// Wraps `op`; `shape_of` gives the shape of a tensor argument value.
    pub(crate) fn new(
        op: &'a Operation,
        shape_of: &'a dyn Fn(&Value) -> Option<Vec<usize>>,
    ) -> Ctx<'a> {
        Ctx { op, shape_of }
    }

    /// `"<op>: <message>"`.
    pub(crate) fn err(&self, message: impl AsRef<str>) -> String {
        format!("{}: {}", self.op.name, message.as_ref())
    }

    /// The value of parameter `param`.
    pub(crate) fn value(&self, param: &str) -> Result<&'a Value, String> {
        self.op
            .argument(param)
            .ok_or_else(|| self.err(format!("missing argument '{param}'")))
    }

    /// Whether the operation has an argument called `param`.
    pub(crate) fn has(&self, param: &str) -> bool {
        self.op.argument(param).is_some()
    }

    fn shape_of_value(&self, param: &str, value: &Value) -> Result<Vec<usize>, String> {
        match value {
            Value::Array(_) | Value::Tuple(_) => Err(self.err(format!(
                "argument '{param}' must be a single tensor, found an array or tuple"
            ))),
            Value::String(_) => Err(self.err(format!(
                "argument '{param}' must be a tensor, found a string"
            ))),
            _ => (self.shape_of)(value).ok_or_else(|| match value {
                Value::Tensor(t) => self.err(format!(
                    "the shape of tensor '{t}' (argument '{param}') is not known"
                )),
                _ => self.err(format!("the shape of argument '{param}' is not known")),
            }),
        }
    }

    /// The shape of the tensor argument `param` (a literal standing for a tensor has shape `[]`).
    pub(crate) fn tensor(&self, param: &str) -> Result<Vec<usize>, String> {
        let value = self.value(param)?;
        self.shape_of_value(param, value)
    }

    /// The shapes of the items of the tensor-array argument `param` (`tensor<?>[]`).
    pub(crate) fn tensors(&self, param: &str) -> Result<Vec<Vec<usize>>, String> {
        match self.value(param)? {
            Value::Array(items) => items
                .iter()
                .map(|item| self.shape_of_value(param, item))
                .collect(),
            _ => Err(self.err(format!("argument '{param}' must be an array of tensors"))),
        }
    }

    /// The `integer` argument `param`.
    pub(crate) fn integer(&self, param: &str) -> Result<i64, String> {
        self.value(param)?
            .as_integer()
            .ok_or_else(|| self.err(format!("argument '{param}' must be an integer")))
    }

    /// The `integer[]` argument `param`.
    pub(crate) fn integers(&self, param: &str) -> Result<Vec<i64>, String> {
        self.value(param)?
            .as_integers()
            .ok_or_else(|| self.err(format!("argument '{param}' must be an array of integers")))
    }

    /// The `logical` argument `param`.
    pub(crate) fn logical(&self, param: &str) -> Result<bool, String> {
        self.value(param)?
            .as_logical()
            .ok_or_else(|| self.err(format!("argument '{param}' must be a logical")))
    }

    /// The `string` argument `param`.
    pub(crate) fn string(&self, param: &str) -> Result<&'a str, String> {
        self.value(param)?
            .as_str()
            .ok_or_else(|| self.err(format!("argument '{param}' must be a string")))
    }

    /// The `(integer,integer)[]` argument `param`.
    pub(crate) fn padding(&self, param: &str) -> Result<Vec<(i64, i64)>, String> {
        let bad = || {
            self.err(format!(
                "argument '{param}' must be an array of (integer, integer) pairs"
            ))
        };
        let items = match self.value(param)? {
            Value::Array(items) => items,
            _ => return Err(bad()),
        };
        items
            .iter()
            .map(|item| match item.items() {
                Some([a, b]) => match (a.as_integer(), b.as_integer()) {
                    (Some(a), Some(b)) => Ok((a, b)),
                    _ => Err(bad()),
                },
                _ => Err(bad()),
            })
            .collect()
    }

    /// Checks that the string argument `param` is one of `allowed`.
    pub(crate) fn one_of(&self, param: &str, allowed: &[&str]) -> Result<&'a str, String> {
        let value = self.string(param)?;
        if allowed.contains(&value) {
            Ok(value)
        } else {
            let list: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
            Err(self.err(format!(
                "'{param}' must be one of {}, found '{value}'",
                list.join(", ")
            )))
        }
    }

    /// Checks that an `integer[]` argument has `len` items (or is empty, when `or_empty`).
    pub(crate) fn check_len(
        &self,
        param: &str,
        actual: usize,
        len: usize,
        what: &str,
        or_empty: bool,
    ) -> Result<(), String> {
        if actual == len || (or_empty && actual == 0) {
            Ok(())
        } else if or_empty {
            Err(self.err(format!(
                "length of '{param}' must be {len} ({what}) or 0, found {actual}"
            )))
        } else {
            Err(self.err(format!(
                "length of '{param}' must be {len} ({what}), found {actual}"
            )))
        }
    }

    /// Checks that every item of `values` (from parameter `param`) is at least `min`.
    pub(crate) fn check_min(&self, param: &str, values: &[i64], min: i64) -> Result<(), String> {
        match values.iter().position(|&v| v < min) {
            None => Ok(()),
            Some(i) => {
                let rule = if min == 1 {
                    "strictly positive".to_string()
                } else {
                    format!(">= {min}")
                };
                Err(self.err(format!(
                    "items of '{param}' must be {rule}, found {} at index {i}",
                    values[i]
                )))
            }
        }
    }

    /// Converts axis `value` of parameter `param` to an index below `bound`.
    pub(crate) fn axis(&self, param: &str, value: i64, bound: usize) -> Result<usize, String> {
        match usize::try_from(value) {
            Ok(a) if a < bound => Ok(a),
            _ => Err(self.err(format!(
                "'{param}' must be in range [0,{bound}), found {value}"
            ))),
        }
    }

    /// Converts every item of the axis list `values` (parameter `param`) to an index below
    /// `bound`, rejecting repeated axes.
    pub(crate) fn unique_axes(
        &self,
        param: &str,
        values: &[i64],
        bound: usize,
    ) -> Result<Vec<usize>, String> {
        let mut seen = vec![false; bound];
        values
            .iter()
            .map(|&v| {
                let a = self.axis(param, v, bound)?;
                if std::mem::replace(&mut seen[a], true) {
                    return Err(self.err(format!("'{param}' must not repeat axis {a}")));
                }
                Ok(a)
            })
            .collect()
    }

    /// Converts a computed extent to `usize`: negative or oversized extents are errors that
    /// name `what` (e.g. "output extent in dimension 2").
    pub(crate) fn extent(&self, value: i128, what: &str) -> Result<usize, String> {
        if value < 0 {
            return Err(self.err(format!("{what} would be negative ({value})")));
        }
        usize::try_from(value).map_err(|_| self.err(format!("{what} overflows ({value})")))
    }
}

/// `[a,b,c]`: a shape as the messages print it.
pub(crate) fn fmt_shape(shape: &[usize]) -> String {
    let items: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(","))
}

/// The number of elements of `shape`, or `None` when it overflows `u128`.
pub(crate) fn volume(shape: &[usize]) -> Option<u128> {
    shape
        .iter()
        .try_fold(1u128, |acc, &x| acc.checked_mul(x as u128))
}
