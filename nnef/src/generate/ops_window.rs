//! Sliding-window operations with valid windows for the tracked shapes (NNEF 1.0.5 §4.5, §4.7):
//! `conv`, `deconv`, `box`, `debox`, the pools, and up/down-sampling.
//!
//! Output extents (elements), per windowed dimension with input extent `i`, window size `k`,
//! stride `s`, dilation `d` and padding `(p, q)`:
//! - downsampling (`conv`, `box`, pools): `(i + p + q - (k-1)·d - 1) / s + 1` (floor), or
//!   `ceil(i / s)` when `padding = []` (automatic padding);
//! - upsampling (`deconv`, `debox`): `(i - 1)·s + (k-1)·d + 1 - p - q`, or `i·s` when
//!   `padding = []`.

use crate::ast::Argument;
use crate::graph::DataType;

use super::syntax::{
    assign, call, extents, ident, logical, named, pairs, pos, real, string, tuple,
};
use super::valid::Builder;
use super::RngLike;

/// The window attributes chosen for some dimensions and the output extents they give.
struct Window {
    stride: Vec<usize>,
    dilation: Vec<usize>,
    /// `None` for automatic padding (`padding = []`).
    padding: Option<Vec<(i64, i64)>>,
    output: Vec<usize>,
}

impl<R: RngLike> Builder<'_, R> {
    /// Stride, dilation and padding for windows of `sizes` over `input` extents, valid (every
    /// output extent at least 1), and the output extents.
    fn window(&mut self, input: &[usize], sizes: &[usize], transposed: bool) -> Window {
        let explicit = self.rng.chance(0.6);
        let mut w = Window {
            stride: vec![],
            dilation: vec![],
            padding: explicit.then(Vec::new),
            output: vec![],
        };
        for (&i, &k) in input.iter().zip(sizes) {
            let s = if self.rng.chance(0.3) { 2 } else { 1 };
            let d = if k > 1 && self.rng.chance(0.2) { 2 } else { 1 };
            let span = (k - 1) * d; // the window covers span + 1 elements
            w.stride.push(s);
            w.dilation.push(d);
            let Some(padding) = w.padding.as_mut() else {
                w.output
                    .push(if transposed { i * s } else { i.div_ceil(s) });
                continue;
            };
            if transposed {
                let room = ((i - 1) * s + span) as i64; // p + q may not exceed this
                let p = self.rng.range(0, room.min(2));
                let q = self.rng.range(0, (room - p).min(2));
                padding.push((p, q));
                w.output.push(((i - 1) * s + span + 1) - (p + q) as usize);
            } else {
                let p = self.rng.range(0, span.min(2) as i64);
                let mut q = self.rng.range(0, span.min(2) as i64);
                if i as i64 + p + q < span as i64 + 1 {
                    q = span as i64 + 1 - i as i64 - p;
                }
                padding.push((p, q));
                w.output.push((i + (p + q) as usize - span - 1) / s + 1);
            }
        }
        w
    }

    /// The `padding`, `stride` and `dilation` arguments of `w` (defaults sometimes omitted).
    fn window_args(&mut self, w: &Window, args: &mut Vec<Argument>) {
        if let Some(padding) = &w.padding {
            args.push(named("padding", pairs(padding)));
        } else if self.rng.chance(0.3) {
            args.push(named("padding", pairs(&[])));
        }
        if w.stride.iter().any(|&s| s != 1) || self.rng.chance(0.2) {
            args.push(named("stride", extents(&w.stride)));
        }
        if w.dilation.iter().any(|&d| d != 1) || self.rng.chance(0.2) {
            args.push(named("dilation", extents(&w.dilation)));
        }
    }

    pub(crate) fn try_window_op(&mut self) -> bool {
        match self.rng.index(6) {
            0 | 1 => self.gen_conv(),
            2 => self.gen_deconv(),
            3 | 4 => self.gen_pool(),
            _ => self.gen_sampling(),
        }
    }

    fn gen_conv(&mut self) -> bool {
        let Some(x) = self.pick_scalar(3, 5) else {
            return false;
        };
        let (n, c) = (x.shape[0], x.shape[1]);
        let divisors: Vec<usize> = (1..=c).filter(|g| c.is_multiple_of(*g)).collect();
        let (groups_arg, groups) = match self.rng.index(4) {
            0 => (Some(0), c),
            1 => {
                let g = divisors[self.rng.index(divisors.len())];
                (Some(g), g)
            }
            _ => (None, 1),
        };
        let m = groups * self.rng.range(1, 3) as usize;
        let sizes: Vec<usize> = x.shape[2..]
            .iter()
            .map(|_| self.rng.range(1, 3) as usize)
            .collect();
        let mut filter_shape = vec![m, c / groups];
        filter_shape.extend(&sizes);
        let filter = self.operand_of_shape(&filter_shape);
        let w = self.window(&x.shape[2..], &sizes, false);
        let mut args = vec![pos(ident(&x.name)), pos(ident(&filter))];
        self.bias_arg(m, &mut args);
        if self.rng.chance(0.2) {
            args.push(named("border", string("constant")));
        }
        self.window_args(&w, &mut args);
        if let Some(g) = groups_arg {
            args.push(named("groups", super::syntax::int(g as i64)));
        }
        let mut shape = vec![n, m];
        shape.extend(&w.output);
        self.op("conv", args, DataType::Scalar, shape);
        true
    }

    /// No bias, a literal bias, or a `[1, channels]` variable.
    fn bias_arg(&mut self, channels: usize, args: &mut Vec<Argument>) {
        match self.rng.index(3) {
            0 => {}
            1 => args.push(pos(real(0.0))),
            _ => {
                let bias = self.variable(&[1, channels]);
                args.push(pos(ident(&bias)));
            }
        }
    }

    fn gen_deconv(&mut self) -> bool {
        let Some(x) = self.pick_scalar(3, 5) else {
            return false;
        };
        let (n, c) = (x.shape[0], x.shape[1]);
        let divisors: Vec<usize> = (1..=c).filter(|g| c.is_multiple_of(*g)).collect();
        let groups = if self.rng.chance(0.3) {
            divisors[self.rng.index(divisors.len())]
        } else {
            1
        };
        let per_group = self.rng.range(1, 3) as usize;
        let m = per_group * groups;
        let sizes: Vec<usize> = x.shape[2..]
            .iter()
            .map(|_| self.rng.range(1, 3) as usize)
            .collect();
        let mut filter_shape = vec![c, per_group];
        filter_shape.extend(&sizes);
        let filter = self.operand_of_shape(&filter_shape);
        let w = self.window(&x.shape[2..], &sizes, true);
        let mut args = vec![pos(ident(&x.name)), pos(ident(&filter))];
        self.bias_arg(m, &mut args);
        self.window_args(&w, &mut args);
        let mut shape = vec![n, m];
        shape.extend(&w.output);
        if self.rng.chance(0.3) {
            // Any output extent whose downsampling gives the input back is valid.
            for (j, o) in shape[2..].iter_mut().enumerate() {
                let extra = self.rng.index(w.stride[j]);
                if w.padding.is_some() {
                    *o += extra;
                } else if *o > extra {
                    *o -= extra;
                }
            }
            args.push(named("output_shape", extents(&shape)));
        }
        if groups != 1 || self.rng.chance(0.2) {
            args.push(named("groups", super::syntax::int(groups as i64)));
        }
        self.op("deconv", args, DataType::Scalar, shape);
        true
    }

    fn gen_pool(&mut self) -> bool {
        let Some(x) = self.pick_scalar(1, usize::MAX) else {
            return false;
        };
        let rank = x.shape.len();
        let sizes: Vec<usize> = (0..rank)
            .map(|i| {
                if i < 2 && rank > 2 && self.rng.chance(0.7) {
                    1
                } else {
                    self.rng.range(1, 3) as usize
                }
            })
            .collect();
        let op = [
            "box",
            "max_pool",
            "avg_pool",
            "rms_pool",
            "argmax_pool",
            "max_pool_with_index",
            "debox",
        ][self.rng.index(7)];
        let transposed = op == "debox";
        let w = self.window(&x.shape, &sizes, transposed);
        let mut args = vec![pos(ident(&x.name)), named("size", extents(&sizes))];
        let border = match op {
            "max_pool" | "avg_pool" | "rms_pool" if self.rng.chance(0.4) => Some("ignore"),
            _ if self.rng.chance(0.2) => Some("constant"),
            _ => None,
        };
        if let Some(border) = border {
            args.push(named("border", string(border)));
        }
        self.window_args(&w, &mut args);
        if (op == "box" || op == "debox") && self.rng.chance(0.5) {
            args.push(named("normalize", logical(self.rng.chance(0.5))));
        }
        match op {
            "max_pool_with_index" => {
                let (output, index) = (self.fresh("t"), self.fresh("index"));
                self.body.push(assign(
                    tuple(vec![ident(&output), ident(&index)]),
                    call(op, args),
                ));
                self.define(&output, DataType::Scalar, w.output.clone());
                self.define(&index, DataType::Integer, w.output);
            }
            "argmax_pool" => {
                self.op(op, args, DataType::Integer, w.output);
            }
            _ => {
                self.op(op, args, DataType::Scalar, w.output);
            }
        }
        true
    }

    fn gen_sampling(&mut self) -> bool {
        let Some(x) = self.pick_scalar(3, usize::MAX) else {
            return false;
        };
        let spatial = &x.shape[2..];
        let op = ["nearest_downsample", "area_downsample", "nearest_upsample"][self.rng.index(3)];
        let factor: Vec<usize> = if op == "nearest_upsample" {
            spatial
                .iter()
                .map(|_| self.rng.range(1, 3) as usize)
                .collect()
        } else {
            spatial
                .iter()
                .map(|&e| {
                    let divisors: Vec<usize> = (1..=e).filter(|f| e.is_multiple_of(*f)).collect();
                    divisors[self.rng.index(divisors.len())]
                })
                .collect()
        };
        let mut shape = x.shape[..2].to_vec();
        for (&e, &f) in spatial.iter().zip(&factor) {
            shape.push(if op == "nearest_upsample" {
                e * f
            } else {
                e / f
            });
        }
        self.op(
            op,
            vec![pos(ident(&x.name)), named("factor", extents(&factor))],
            DataType::Scalar,
            shape,
        );
        true
    }
}
