//! Tensor shape operations with attributes valid for the tracked shapes (NNEF 1.0.5 §4.2):
//! `reshape`, `transpose`, `concat`, `split`, `slice`, `squeeze`, `unsqueeze`, `stack`,
//! `unstack`, `tile`, `pad`, `gather`, `copy_n`, `add_n`.

use crate::ast::Expr;
use crate::graph::DataType;

use super::syntax::{
    array, assign, call, call_generic, extents, ident, int, ints, named, pairs, pos, real, string,
};
use super::valid::{type_name, Builder, TensorInfo};
use super::RngLike;

/// Largest rank the generator builds.
pub(crate) const MAX_RANK: usize = 6;

impl<R: RngLike> Builder<'_, R> {
    /// A tensor of exactly `shape` and `dtype`: `base` itself, or a new variable (scalar) or
    /// constant.
    fn same_kind(&mut self, base: &TensorInfo, shape: &[usize]) -> String {
        if shape == base.shape && self.rng.chance(0.5) {
            base.name.clone()
        } else if base.dtype == DataType::Scalar {
            self.operand_of_shape(shape)
        } else {
            self.constant(base.dtype, shape)
        }
    }

    /// Positive factors of `volume`, `count` of them, whose product is `volume`.
    fn factorize(&mut self, volume: usize, count: usize) -> Vec<usize> {
        let mut rest = volume;
        let mut factors = Vec::with_capacity(count);
        for _ in 1..count {
            let divisors: Vec<usize> = (1..=rest).filter(|d| rest.is_multiple_of(*d)).collect();
            let d = divisors[self.rng.index(divisors.len())];
            factors.push(d);
            rest /= d;
        }
        factors.push(rest);
        factors
    }

    /// A random permutation of `0..n`.
    fn permutation(&mut self, n: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            let j = self.rng.index(i + 1);
            p.swap(i, j);
        }
        p
    }

    pub(crate) fn try_shape_op(&mut self) -> bool {
        match self.rng.index(14) {
            0 => self.gen_reshape(),
            1 => {
                let Some(x) = self.pick(|t| !t.shape.is_empty()) else {
                    return false;
                };
                let axes = self.permutation(x.shape.len());
                let shape = axes.iter().map(|&a| x.shape[a as usize]).collect();
                self.op(
                    "transpose",
                    vec![pos(ident(&x.name)), named("axes", ints(&axes))],
                    x.dtype,
                    shape,
                );
                true
            }
            2 => self.gen_concat(),
            3 => self.gen_split(),
            4 => self.gen_slice(),
            5 => {
                let Some(x) = self.pick(|t| t.shape.contains(&1)) else {
                    return false;
                };
                let ones: Vec<i64> = (0..x.shape.len() as i64)
                    .filter(|&i| x.shape[i as usize] == 1)
                    .collect();
                let mut axes: Vec<i64> = ones
                    .iter()
                    .copied()
                    .filter(|_| self.rng.chance(0.5))
                    .collect();
                if axes.is_empty() {
                    axes.push(ones[self.rng.index(ones.len())]);
                }
                let shape = x
                    .shape
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !axes.contains(&(*i as i64)))
                    .map(|(_, &e)| e)
                    .collect();
                self.op(
                    "squeeze",
                    vec![pos(ident(&x.name)), named("axes", ints(&axes))],
                    x.dtype,
                    shape,
                );
                true
            }
            6 => {
                let Some(x) = self.pick(|t| t.shape.len() < MAX_RANK) else {
                    return false;
                };
                let k = self.rng.range(1, (MAX_RANK - x.shape.len()).min(2) as i64) as usize;
                let rank = x.shape.len() + k;
                let mut axes: Vec<i64> = Vec::new();
                while axes.len() < k {
                    let a = self.rng.index(rank) as i64;
                    if !axes.contains(&a) {
                        axes.push(a);
                    } else if let Some(free) = (0..rank as i64).find(|a| !axes.contains(a)) {
                        axes.push(free);
                    }
                }
                axes.sort_unstable();
                let mut shape = x.shape.clone();
                for &a in &axes {
                    shape.insert(a as usize, 1);
                }
                self.op(
                    "unsqueeze",
                    vec![pos(ident(&x.name)), named("axes", ints(&axes))],
                    x.dtype,
                    shape,
                );
                true
            }
            7 => {
                let Some(x) = self.pick(|t| t.shape.len() < MAX_RANK) else {
                    return false;
                };
                let n = self.rng.range(1, 3) as usize;
                let items: Vec<Expr> = (0..n)
                    .map(|_| ident(&self.same_kind(&x, &x.shape)))
                    .collect();
                let axis = self.rng.index(x.shape.len() + 1);
                let mut shape = x.shape.clone();
                shape.insert(axis, n);
                self.op(
                    "stack",
                    vec![pos(array(items)), named("axis", int(axis as i64))],
                    x.dtype,
                    shape,
                );
                true
            }
            8 => {
                let Some(x) = self.pick(|t| t.shape.iter().any(|&e| e <= 4)) else {
                    return false;
                };
                let candidates: Vec<usize> =
                    (0..x.shape.len()).filter(|&i| x.shape[i] <= 4).collect();
                let axis = candidates[self.rng.index(candidates.len())];
                let mut shape = x.shape.clone();
                let n = shape.remove(axis);
                self.multi_result(
                    "unstack",
                    vec![pos(ident(&x.name)), named("axis", int(axis as i64))],
                    n,
                    &x,
                    shape,
                );
                true
            }
            9 => {
                let Some(x) = self.pick(|t| !t.shape.is_empty()) else {
                    return false;
                };
                let repeats: Vec<usize> = x
                    .shape
                    .iter()
                    .map(|_| self.rng.range(1, 3) as usize)
                    .collect();
                let shape = x.shape.iter().zip(&repeats).map(|(e, r)| e * r).collect();
                self.op(
                    "tile",
                    vec![pos(ident(&x.name)), named("repeats", extents(&repeats))],
                    x.dtype,
                    shape,
                );
                true
            }
            10 => self.gen_pad(),
            11 => self.gen_gather(),
            12 => {
                let Some(x) = self.pick(|_| true) else {
                    return false;
                };
                let n = self.rng.range(1, 3) as usize;
                let shape = x.shape.clone();
                self.multi_result(
                    "copy_n",
                    vec![pos(ident(&x.name)), named("times", int(n as i64))],
                    n,
                    &x,
                    shape,
                );
                true
            }
            _ => {
                let Some(x) = self.pick_scalar(0, usize::MAX) else {
                    return false;
                };
                let n = self.rng.range(1, 3) as usize;
                let items: Vec<Expr> = (0..n)
                    .map(|_| ident(&self.same_kind(&x, &x.shape)))
                    .collect();
                self.op("add_n", vec![pos(array(items))], DataType::Scalar, x.shape);
                true
            }
        }
    }

    /// `[r1, ..., rn] = op(...);` for an operation whose result is an array of `n` tensors of
    /// `shape` and the data type of `like`.
    fn multi_result(
        &mut self,
        op: &str,
        args: Vec<crate::ast::Argument>,
        n: usize,
        like: &TensorInfo,
        shape: Vec<usize>,
    ) {
        let names: Vec<String> = (0..n).map(|_| self.fresh("t")).collect();
        self.body.push(assign(
            array(names.iter().map(|n| ident(n)).collect()),
            call(op, args),
        ));
        for name in names {
            self.define(&name, like.dtype, shape.clone());
        }
    }

    fn gen_reshape(&mut self) -> bool {
        let Some(x) = self.pick(|t| !t.shape.is_empty()) else {
            return false;
        };
        let rank = x.shape.len();
        let (start, count) = if self.rng.chance(0.3) {
            let s = self.rng.index(rank + 1);
            (s, self.rng.index(rank - s + 1))
        } else {
            (0, rank)
        };
        let kept = rank - count;
        let k = self.rng.range(
            if count == 0 { 0 } else { 1 },
            (MAX_RANK - kept).min(3) as i64,
        ) as usize;
        let volume: usize = x.shape[start..start + count].iter().product();
        if k == 0 && volume != 1 {
            return false;
        }
        let factors = if k == 0 {
            vec![]
        } else {
            self.factorize(volume, k)
        };
        let mut written: Vec<i64> = factors.iter().map(|&f| f as i64).collect();
        if !written.is_empty() && self.rng.chance(0.3) {
            let i = self.rng.index(written.len());
            written[i] = -1;
        } else if self.rng.chance(0.3) {
            // 0 copies the input extent at the same position.
            if let Some(i) =
                (0..written.len().min(count)).find(|&i| factors[i] == x.shape[start + i])
            {
                written[i] = 0;
            }
        }
        let mut shape = x.shape[..start].to_vec();
        shape.extend(&factors);
        shape.extend(&x.shape[start + count..]);
        let mut args = vec![pos(ident(&x.name)), named("shape", ints(&written))];
        if start != 0 || self.rng.chance(0.1) {
            args.push(named("axis_start", int(start as i64)));
        }
        if count != rank - start || self.rng.chance(0.1) {
            args.push(named("axis_count", int(count as i64)));
        }
        self.op("reshape", args, x.dtype, shape);
        true
    }

    fn gen_concat(&mut self) -> bool {
        let Some(x) = self.pick(|t| !t.shape.is_empty()) else {
            return false;
        };
        let axis = self.rng.index(x.shape.len());
        let n = self.rng.range(1, 3) as usize;
        let mut total = 0;
        let mut items = Vec::new();
        for _ in 0..n {
            let mut shape = x.shape.clone();
            if self.rng.chance(0.5) {
                shape[axis] = self.rng.range(1, 4) as usize;
            }
            total += shape[axis];
            items.push(ident(&self.same_kind(&x, &shape)));
        }
        let mut shape = x.shape.clone();
        shape[axis] = total;
        self.op(
            "concat",
            vec![pos(array(items)), named("axis", int(axis as i64))],
            x.dtype,
            shape,
        );
        true
    }

    fn gen_split(&mut self) -> bool {
        let Some(x) = self.pick(|t| !t.shape.is_empty()) else {
            return false;
        };
        let axis = self.rng.index(x.shape.len());
        let extent = x.shape[axis];
        let divisors: Vec<usize> = (1..=extent).filter(|d| extent.is_multiple_of(*d)).collect();
        let total = divisors[self.rng.index(divisors.len())];
        let parts = self.rng.range(1, total.min(4) as i64) as usize;
        // A random composition of `total` into `parts` positive ratios.
        let mut ratios = vec![1usize; parts];
        for _ in parts..total {
            let i = self.rng.index(parts);
            ratios[i] += 1;
        }
        let unit = extent / total;
        let names: Vec<String> = (0..parts).map(|_| self.fresh("t")).collect();
        let rhs = call(
            "split",
            vec![
                pos(ident(&x.name)),
                named("axis", int(axis as i64)),
                named("ratios", extents(&ratios)),
            ],
        );
        self.body
            .push(assign(array(names.iter().map(|n| ident(n)).collect()), rhs));
        for (name, r) in names.iter().zip(&ratios) {
            let mut shape = x.shape.clone();
            shape[axis] = unit * r;
            self.define(name, x.dtype, shape);
        }
        true
    }

    fn gen_slice(&mut self) -> bool {
        let Some(x) = self.pick(|t| !t.shape.is_empty()) else {
            return false;
        };
        let axes = self.random_axes(x.shape.len());
        let strided = self.rng.chance(0.25);
        let (mut begin, mut end, mut stride) = (Vec::new(), Vec::new(), Vec::new());
        let mut shape = x.shape.clone();
        for &a in &axes {
            let e = x.shape[a as usize] as i64;
            let b = self.rng.range(0, e - 1);
            let en = self.rng.range(b + 1, e);
            let s = if strided { self.rng.range(1, 3) } else { 1 };
            shape[a as usize] = ((en - b + s - 1) / s) as usize;
            // Negative offsets count from the end (never an `end` of 0, which means "to the end"
            // under unit strides in NNEF 1.0.5).
            begin.push(if b > 0 && self.rng.chance(0.2) {
                b - e
            } else {
                b
            });
            end.push(if en < e && self.rng.chance(0.2) {
                en - e
            } else {
                en
            });
            stride.push(s);
        }
        let mut args = vec![
            pos(ident(&x.name)),
            named("axes", ints(&axes)),
            named("begin", ints(&begin)),
            named("end", ints(&end)),
        ];
        if strided {
            args.push(named("stride", ints(&stride)));
        }
        self.op("slice", args, x.dtype, shape);
        true
    }

    fn gen_pad(&mut self) -> bool {
        let Some(x) = self.pick_scalar(1, usize::MAX) else {
            return false;
        };
        let border = ["constant", "replicate", "reflect", "reflect-even"][self.rng.index(4)];
        let padding: Vec<(i64, i64)> = x
            .shape
            .iter()
            .map(|&e| {
                let limit = match border {
                    "reflect" => (e as i64 - 1).min(2),
                    "reflect-even" => (e as i64).min(2),
                    _ => 2,
                };
                (self.rng.range(0, limit), self.rng.range(0, limit))
            })
            .collect();
        let shape = x
            .shape
            .iter()
            .zip(&padding)
            .map(|(&e, &(p, q))| e + p as usize + q as usize)
            .collect();
        let mut args = vec![pos(ident(&x.name)), named("padding", pairs(&padding))];
        if border != "constant" || self.rng.chance(0.3) {
            args.push(named("border", string(border)));
        }
        if border == "constant" && self.rng.chance(0.3) {
            args.push(named("value", real(self.real_value())));
        }
        self.op("pad", args, DataType::Scalar, shape);
        true
    }

    fn gen_gather(&mut self) -> bool {
        let Some(x) = self.pick(|t| !t.shape.is_empty() && t.shape.len() < MAX_RANK) else {
            return false;
        };
        let axis = self.rng.index(x.shape.len());
        let room = MAX_RANK + 1 - x.shape.len();
        let indices = match self.pick(|t| t.dtype == DataType::Integer && t.shape.len() <= room) {
            Some(t) if self.rng.chance(0.5) => t,
            _ => {
                let k = self.rng.range(1, 4) as usize;
                let name = self.fresh("c");
                let values: Vec<Expr> = (0..k)
                    .map(|_| int(self.rng.range(0, x.shape[axis] as i64 - 1)))
                    .collect();
                let rhs = call_generic(
                    "constant",
                    type_name(DataType::Integer),
                    vec![named("shape", extents(&[k])), named("value", array(values))],
                );
                self.body.push(assign(ident(&name), rhs));
                self.define(&name, DataType::Integer, vec![k]);
                TensorInfo {
                    name,
                    dtype: DataType::Integer,
                    shape: vec![k],
                }
            }
        };
        let mut shape = x.shape[..axis].to_vec();
        shape.extend(&indices.shape);
        shape.extend(&x.shape[axis + 1..]);
        let mut args = vec![pos(ident(&x.name)), pos(ident(&indices.name))];
        if axis != 0 || self.rng.chance(0.3) {
            args.push(named("axis", int(axis as i64)));
        }
        self.op("gather", args, x.dtype, shape);
        true
    }
}
