//! Element-wise operations, reductions and normalizations, and linear operations, each with
//! operands and attributes valid for the tracked shapes (NNEF 1.0.5 §4.3, §4.4, §4.5, §4.6,
//! §4.8).

use crate::ast::{Argument, Expr};
use crate::graph::DataType;

use super::syntax::{assign, call, ident, ints, logical, named, pos, real, tuple};
use super::valid::{broadcast, Builder, TensorInfo};
use super::RngLike;

/// Unary `tensor<scalar> -> tensor<scalar>` fragments without attributes.
pub(crate) const UNARY_SCALAR: &[&str] = &[
    "neg", "rcp", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
    "atan", "asinh", "acosh", "atanh", "abs", "sign", "floor", "ceil", "round", "sqr", "sqrt",
    "rsqr", "rsqrt", "log2", "relu", "sigmoid", "softplus", "gelu", "silu",
];
/// Binary arithmetic fragments (`tensor<scalar>` operands and result, broadcasting).
pub(crate) const BINARY_SCALAR: &[&str] = &["add", "sub", "mul", "div", "pow", "min", "max"];
/// Comparisons (`tensor<scalar>` operands, `tensor<logical>` result, broadcasting).
pub(crate) const COMPARISON: &[&str] = &["lt", "gt", "le", "ge", "eq", "ne"];

impl<R: RngLike> Builder<'_, R> {
    /// A shape broadcast-compatible with `shape` (aligned from the left): each extent kept or
    /// made 1, an extent 1 sometimes widened, trailing extents sometimes dropped (implicit 1s).
    pub(crate) fn broadcast_variant(&mut self, shape: &[usize], widen: bool) -> Vec<usize> {
        let mut out: Vec<usize> = shape
            .iter()
            .map(|&e| {
                if e == 1 && widen && self.rng.chance(0.3) {
                    self.rng.range(2, 3) as usize
                } else if self.rng.chance(0.3) {
                    1
                } else {
                    e
                }
            })
            .collect();
        if out.len() > 1 && self.rng.chance(0.3) {
            let keep = self.rng.range(1, out.len() as i64 - 1) as usize;
            out.truncate(keep);
        }
        out
    }

    /// A second operand for an element-wise operation with `x`: a literal, a defined tensor of
    /// `dtype` compatible with `x`, or a new variable/constant of a compatible shape. Returns the
    /// argument and its shape (empty for a literal).
    fn second_operand(&mut self, x: &TensorInfo, dtype: DataType) -> (Expr, Vec<usize>) {
        match self.rng.index(3) {
            0 => (self.literal_of(dtype), vec![]),
            1 => {
                let shape = x.shape.clone();
                if let Some(t) =
                    self.pick(|t| t.dtype == dtype && broadcast(&shape, &t.shape).is_some())
                {
                    return (ident(&t.name), t.shape);
                }
                (self.literal_of(dtype), vec![])
            }
            _ => {
                let shape = self.broadcast_variant(&x.shape, true);
                let name = match dtype {
                    DataType::Scalar if self.rng.chance(0.6) => self.variable(&shape),
                    _ => self.constant(dtype, &shape),
                };
                (ident(&name), shape)
            }
        }
    }

    /// Two operands in random order.
    fn ordered(&mut self, a: Expr, b: Expr) -> Vec<Argument> {
        if self.rng.chance(0.25) {
            vec![pos(b), pos(a)]
        } else {
            vec![pos(a), pos(b)]
        }
    }

    pub(crate) fn try_elementwise(&mut self) -> bool {
        match self.rng.index(9) {
            0 => {
                let Some(x) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let op = UNARY_SCALAR[self.rng.index(UNARY_SCALAR.len())];
                self.op(op, vec![pos(ident(&x.name))], DataType::Scalar, x.shape);
            }
            1 => {
                let Some(x) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let mut args = vec![pos(ident(&x.name))];
                let op = ["elu", "selu", "leaky_relu", "softabs"][self.rng.index(4)];
                match op {
                    "elu" if self.rng.chance(0.5) => {
                        args.push(named("alpha", real(self.real_value())))
                    }
                    "selu" => {
                        if self.rng.chance(0.5) {
                            args.push(named("alpha", real(1.5)));
                        }
                        if self.rng.chance(0.5) {
                            args.push(named("lambda", real(1.25)));
                        }
                    }
                    "leaky_relu" => args.push(named("alpha", real(0.125))),
                    "softabs" => args.push(named("epsilon", real(1e-3))),
                    _ => {}
                }
                self.op(op, args, DataType::Scalar, x.shape);
            }
            2 | 3 => {
                let Some(x) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let (y, y_shape) = self.second_operand(&x, DataType::Scalar);
                let Some(shape) = broadcast(&x.shape, &y_shape) else {
                    return false;
                };
                let (ops, dtype) = if self.rng.chance(0.7) {
                    (BINARY_SCALAR, DataType::Scalar)
                } else {
                    (COMPARISON, DataType::Logical)
                };
                let op = ops[self.rng.index(ops.len())];
                let args = self.ordered(ident(&x.name), y);
                self.op(op, args, dtype, shape);
            }
            4 => {
                let Some(x) = self.pick(|t| t.dtype == DataType::Logical) else {
                    return false;
                };
                if self.rng.chance(0.3) {
                    self.op("not", vec![pos(ident(&x.name))], DataType::Logical, x.shape);
                } else {
                    let (y, y_shape) = self.second_operand(&x, DataType::Logical);
                    let Some(shape) = broadcast(&x.shape, &y_shape) else {
                        return false;
                    };
                    let op = if self.rng.chance(0.5) { "and" } else { "or" };
                    let args = self.ordered(ident(&x.name), y);
                    self.op(op, args, DataType::Logical, shape);
                }
            }
            5 => {
                let Some(a) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let (b, b_shape) = self.second_operand(&a, DataType::Scalar);
                let Some(value_shape) = broadcast(&a.shape, &b_shape) else {
                    return false;
                };
                let vs = value_shape.clone();
                let (condition, shape) = match self
                    .pick(|t| t.dtype == DataType::Logical && broadcast(&t.shape, &vs).is_some())
                {
                    Some(c) if self.rng.chance(0.8) => {
                        let shape = broadcast(&c.shape, &value_shape).unwrap_or(value_shape);
                        (ident(&c.name), shape)
                    }
                    _ => (logical(self.rng.chance(0.5)), value_shape),
                };
                let args = vec![pos(condition), pos(ident(&a.name)), pos(b)];
                self.op("select", args, DataType::Scalar, shape);
            }
            6 => {
                let Some(x) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let (a, a_shape) = self.second_operand(&x, DataType::Scalar);
                let (b, b_shape) = self.second_operand(&x, DataType::Scalar);
                let Some(ab) = broadcast(&a_shape, &b_shape) else {
                    return false;
                };
                let Some(shape) = broadcast(&x.shape, &ab) else {
                    return false;
                };
                self.op(
                    "clamp",
                    vec![pos(ident(&x.name)), pos(a), pos(b)],
                    DataType::Scalar,
                    shape,
                );
            }
            7 => {
                let Some(x) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let alpha = if self.rng.chance(0.3) {
                    real(0.25)
                } else {
                    let shape = self.broadcast_variant(&x.shape, false);
                    ident(&self.variable(&shape))
                };
                self.op(
                    "prelu",
                    vec![pos(ident(&x.name)), pos(alpha)],
                    DataType::Scalar,
                    x.shape,
                );
            }
            _ => {
                let Some(x) = self.pick(|_| true) else {
                    return false;
                };
                self.op("copy", vec![pos(ident(&x.name))], x.dtype, x.shape);
            }
        }
        true
    }

    /// A non-empty ascending subset of `0..rank`.
    pub(crate) fn random_axes(&mut self, rank: usize) -> Vec<i64> {
        let mut axes: Vec<i64> = (0..rank as i64).filter(|_| self.rng.chance(0.4)).collect();
        if axes.is_empty() {
            axes.push(self.rng.index(rank) as i64);
        }
        axes
    }

    pub(crate) fn try_reduction(&mut self) -> bool {
        match self.rng.index(6) {
            0 | 1 => {
                let logical_input = self.rng.chance(0.15);
                let x = if logical_input {
                    self.pick(|t| t.dtype == DataType::Logical && !t.shape.is_empty())
                } else {
                    self.pick_scalar(1, usize::MAX)
                };
                let Some(x) = x else { return false };
                let axes = self.random_axes(x.shape.len());
                let shape = reduced(&x.shape, &axes);
                let mut args = vec![pos(ident(&x.name)), named("axes", ints(&axes))];
                let (op, dtype) = if logical_input {
                    (
                        ["any_reduce", "all_reduce"][self.rng.index(2)],
                        DataType::Logical,
                    )
                } else {
                    match self.rng.index(6) {
                        0 => {
                            if self.rng.chance(0.5) {
                                args.push(named("normalize", logical(self.rng.chance(0.5))));
                            }
                            ("sum_reduce", DataType::Scalar)
                        }
                        1 => ("mean_reduce", DataType::Scalar),
                        2 => ("max_reduce", DataType::Scalar),
                        3 => ("min_reduce", DataType::Scalar),
                        4 => ("argmax_reduce", DataType::Integer),
                        _ => ("argmin_reduce", DataType::Integer),
                    }
                };
                self.op(op, args, dtype, shape);
            }
            2 => {
                let Some(x) = self.pick_scalar(1, usize::MAX) else {
                    return false;
                };
                let axes = self.random_axes(x.shape.len());
                let shape = reduced(&x.shape, &axes);
                let (mean, variance) = (self.fresh("mean"), self.fresh("variance"));
                let rhs = call(
                    "moments",
                    vec![pos(ident(&x.name)), named("axes", ints(&axes))],
                );
                self.body
                    .push(assign(tuple(vec![ident(&mean), ident(&variance)]), rhs));
                self.define(&mean, DataType::Scalar, shape.clone());
                self.define(&variance, DataType::Scalar, shape);
            }
            3 => {
                let Some(x) = self.pick_scalar(1, usize::MAX) else {
                    return false;
                };
                let mut args = vec![pos(ident(&x.name))];
                if x.shape.len() < 2 || self.rng.chance(0.5) {
                    args.push(named("axes", ints(&self.random_axes(x.shape.len()))));
                }
                self.op("softmax", args, DataType::Scalar, x.shape);
            }
            4 => {
                let Some(x) = self.pick_scalar(1, usize::MAX) else {
                    return false;
                };
                let op = ["l1_normalization", "l2_normalization"][self.rng.index(2)];
                let mut args = vec![
                    pos(ident(&x.name)),
                    named("axes", ints(&self.random_axes(x.shape.len()))),
                ];
                if self.rng.chance(0.5) {
                    args.push(named("bias", real(1.0)));
                }
                if self.rng.chance(0.5) {
                    args.push(named("epsilon", real(1e-5)));
                }
                self.op(op, args, DataType::Scalar, x.shape);
            }
            _ => {
                let Some(x) = self.pick_scalar(1, usize::MAX) else {
                    return false;
                };
                let size: Vec<i64> = x.shape.iter().map(|_| self.rng.range(1, 3)).collect();
                let op = [
                    "local_response_normalization",
                    "local_mean_normalization",
                    "local_variance_normalization",
                    "local_contrast_normalization",
                ][self.rng.index(4)];
                let mut args = vec![pos(ident(&x.name)), named("size", ints(&size))];
                if op == "local_response_normalization" && self.rng.chance(0.5) {
                    args.push(named("alpha", real(1e-4)));
                    args.push(named("beta", real(0.75)));
                }
                if op == "local_variance_normalization" || op == "local_contrast_normalization" {
                    args.push(named("epsilon", real(1e-5)));
                }
                self.op(op, args, DataType::Scalar, x.shape);
            }
        }
        true
    }

    pub(crate) fn try_linear(&mut self) -> bool {
        match self.rng.index(3) {
            0 => {
                let Some(a) = self.pick_scalar(2, usize::MAX) else {
                    return false;
                };
                let r = a.shape.len();
                let (transpose_a, transpose_b) = (self.rng.chance(0.3), self.rng.chance(0.3));
                let (m, k) = if transpose_a {
                    (a.shape[r - 1], a.shape[r - 2])
                } else {
                    (a.shape[r - 2], a.shape[r - 1])
                };
                let n = self.rng.range(1, 6) as usize;
                let mut b_shape: Vec<usize> = a.shape[..r - 2]
                    .iter()
                    .map(|&e| if self.rng.chance(0.2) { 1 } else { e })
                    .collect();
                b_shape.extend(if transpose_b { [n, k] } else { [k, n] });
                let b = self.operand_of_shape(&b_shape);
                let mut shape = broadcast(&a.shape[..r - 2], &b_shape[..r - 2]).unwrap_or_default();
                shape.extend([m, n]);
                let mut args = vec![pos(ident(&a.name)), pos(ident(&b))];
                if transpose_a || self.rng.chance(0.2) {
                    args.push(named("transposeA", logical(transpose_a)));
                }
                if transpose_b || self.rng.chance(0.2) {
                    args.push(named("transposeB", logical(transpose_b)));
                }
                self.op("matmul", args, DataType::Scalar, shape);
            }
            1 => {
                let Some(x) = self.pick_scalar(2, 2) else {
                    return false;
                };
                let (n, c) = (x.shape[0], x.shape[1]);
                let m = self.rng.range(1, 8) as usize;
                let filter = self.operand_of_shape(&[m, c]);
                let mut args = vec![pos(ident(&x.name)), pos(ident(&filter))];
                match self.rng.index(3) {
                    0 => {}
                    1 => args.push(pos(real(0.0))),
                    _ => {
                        let bias = self.variable(&[1, m]);
                        args.push(pos(ident(&bias)));
                    }
                }
                self.op("linear", args, DataType::Scalar, vec![n, m]);
            }
            _ => {
                let Some(x) = self.pick_scalar(2, usize::MAX) else {
                    return false;
                };
                let c = x.shape[1];
                let mut args = vec![pos(ident(&x.name))];
                for _ in 0..4 {
                    let operand = if self.rng.chance(0.15) {
                        real(1.0)
                    } else {
                        ident(&self.variable(&[1, c]))
                    };
                    args.push(pos(operand));
                }
                args.push(named("epsilon", real(1e-3)));
                self.op("batch_normalization", args, DataType::Scalar, x.shape);
            }
        }
        true
    }
}

/// `shape` with the extents of `axes` made 1 (NNEF reductions keep the rank).
pub(crate) fn reduced(shape: &[usize], axes: &[i64]) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &e)| if axes.contains(&(i as i64)) { 1 } else { e })
        .collect()
}
