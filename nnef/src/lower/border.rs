//! Sliding-window geometry and border modes (NNEF 1.0.5 §4.3, "Common Parameters", "Output
//! Shape Calculation", "Automatic Padding Calculation", "Border Modes").
//!
//! Per dimension: filter size `f`, stride `s`, dilation `d`, dilated size `fd = (f - 1)·d + 1`,
//! padding `(p, q)` before and after the data. A basic operation maps the up-scaled extent `X`
//! to `x = floor((p + X + q - fd) / s) + 1`; automatic padding (an empty `padding`) makes
//! `x = ceil(X / s)` with total `t = max((x - 1)·s + fd - X, 0)`, `p = floor(t / 2)`,
//! `q = ceil(t / 2)`. A reverse operation (deconv, debox, desample) reads element
//! `(i + p - j·d) / s` of its down-scaled input for output `i` and tap `j`, keeping only terms
//! where the division is exact; in HLO it is a window over the input dilated by `s` (base
//! dilation), padded by `P = fd - 1 - p` before and `Q = X - 1 + p - (x - 1)·s` after.

use conformance_spec::hlo::{PaddingDim, SliceDim, Window, WindowDimension};

use super::{attrs, fail, At, Lowerer};
use crate::error::NnefError;
use crate::graph::Operation;

/// How values outside the input are defined (NNEF 1.0.5 §4.3, "Border Modes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Border {
    /// Outside values take no part (excluded from maxima and from averaging counts).
    Ignore,
    /// Outside values are a constant (0 for sliding windows; `value` for `pad`).
    Constant,
    /// Outside values repeat the edge value.
    Replicate,
    /// Mirror image without repeating the edge: `input[-i]`, `input[z - 1 - (i - z + 1)]`.
    Reflect,
    /// Mirror image repeating the edge: `input[-i - 1]`, `input[z - 1 - (i - z)]`.
    ReflectEven,
}

impl Border {
    /// Reads attribute `border` of `op`, which must be one of `allowed`.
    ///
    /// Errors: not a string, or a mode outside `allowed`.
    pub(super) fn read(op: &Operation, allowed: &[Border]) -> Result<Border, NnefError> {
        let s = attrs::string(op, "border")?;
        let b = match s {
            "ignore" => Some(Border::Ignore),
            "constant" => Some(Border::Constant),
            "replicate" => Some(Border::Replicate),
            "reflect" => Some(Border::Reflect),
            "reflect-even" => Some(Border::ReflectEven),
            _ => None,
        };
        match b {
            Some(b) if allowed.contains(&b) => Ok(b),
            _ => Err(fail(
                op,
                format!(
                    "border '{s}' is not supported; expected one of {}",
                    allowed
                        .iter()
                        .map(|b| format!("'{}'", b.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// The NNEF name.
    pub(super) fn name(self) -> &'static str {
        match self {
            Border::Ignore => "ignore",
            Border::Constant => "constant",
            Border::Replicate => "replicate",
            Border::Reflect => "reflect",
            Border::ReflectEven => "reflect-even",
        }
    }

    /// Every mode.
    pub(super) const ALL: &'static [Border] = &[
        Border::Ignore,
        Border::Constant,
        Border::Replicate,
        Border::Reflect,
        Border::ReflectEven,
    ];
    /// Every mode but `ignore` (conv, deconv, sample, multilinear_upsample, pad).
    pub(super) const FILLING: &'static [Border] = &[
        Border::Constant,
        Border::Replicate,
        Border::Reflect,
        Border::ReflectEven,
    ];
}

/// The resolved geometry of a sliding window over some dimensions (one entry per dimension).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Sliding {
    pub size: Vec<i64>,
    pub stride: Vec<i64>,
    pub dilation: Vec<i64>,
    /// `(p, q)`: padding before and after (may be negative).
    pub padding: Vec<(i64, i64)>,
}

/// `(f - 1)·d + 1`.
pub(super) fn dilated(f: i64, d: i64) -> i64 {
    (f - 1) * d + 1
}

impl Sliding {
    /// Reads `stride`, `dilation` and `padding` of `op` for windows of `size` over dimensions
    /// whose up-scaled extents are `up`; `down` gives the down-scaled extents of a reverse
    /// operation (for automatic padding), `None` for a basic operation.
    ///
    /// Errors: an array whose length is neither 0 nor `size.len()`, a non-positive size,
    /// stride or dilation.
    pub(super) fn read(
        op: &Operation,
        size: &[i64],
        up: &[i64],
        down: Option<&[i64]>,
    ) -> Result<Sliding, NnefError> {
        let n = size.len();
        let ones = |name: &str| -> Result<Vec<i64>, NnefError> {
            let v = attrs::integers(op, name)?;
            match v.len() {
                0 => Ok(vec![1; n]),
                k if k == n => {
                    if let Some(bad) = v.iter().find(|&&e| e <= 0) {
                        return Err(fail(
                            op,
                            format!("'{name}' items must be positive, found {bad}"),
                        ));
                    }
                    Ok(v)
                }
                k => Err(fail(
                    op,
                    format!("'{name}' has {k} items; expected 0 or {n}"),
                )),
            }
        };
        if let Some(bad) = size.iter().find(|&&e| e <= 0) {
            return Err(fail(
                op,
                format!("window sizes must be positive, found {bad}"),
            ));
        }
        if up.len() != n || down.is_some_and(|d| d.len() != n) {
            return Err(fail(
                op,
                format!(
                    "the window has {n} dimensions but the tensor has {}",
                    up.len()
                ),
            ));
        }
        let stride = ones("stride")?;
        let dilation = ones("dilation")?;
        let given = attrs::pairs(op, "padding")?;
        let padding = match given.len() {
            0 => (0..n)
                .map(|k| {
                    let fd = dilated(size[k], dilation[k]);
                    let x = match down {
                        Some(d) => d[k],
                        None => (up[k] + stride[k] - 1) / stride[k],
                    };
                    let t = ((x - 1) * stride[k] + fd - up[k]).max(0);
                    (t / 2, t - t / 2)
                })
                .collect(),
            k if k == n => given,
            k => {
                return Err(fail(
                    op,
                    format!("'padding' has {k} items; expected 0 or {n}"),
                ))
            }
        };
        Ok(Sliding {
            size: size.to_vec(),
            stride,
            dilation,
            padding,
        })
    }

    /// The same window with the positive padding removed (after it was applied explicitly).
    pub(super) fn negative_padding(&self) -> Sliding {
        Sliding {
            padding: self
                .padding
                .iter()
                .map(|&(p, q)| (p.min(0), q.min(0)))
                .collect(),
            ..self.clone()
        }
    }

    /// The positive parts of the padding.
    pub(super) fn positive_padding(&self) -> Vec<(i64, i64)> {
        self.padding
            .iter()
            .map(|&(p, q)| (p.max(0), q.max(0)))
            .collect()
    }

    /// The HLO window of the basic operation (stride, padding, window dilation).
    pub(super) fn basic_window(&self) -> Window {
        let dimensions = (0..self.size.len())
            .map(|k| WindowDimension {
                stride: self.stride[k],
                padding_low: self.padding[k].0,
                padding_high: self.padding[k].1,
                window_dilation: self.dilation[k],
                ..WindowDimension::new(self.size[k])
            })
            .collect();
        Window { dimensions }
    }

    /// The HLO window of the reverse operation from down-scaled extents `down` to up-scaled
    /// `up`: base dilation `s`, stride 1, padding `P = fd - 1 - p`, `Q = X - 1 + p - (x - 1)·s`
    /// (the kernel, if any, must be reversed by the caller).
    pub(super) fn reverse_window(&self, down: &[i64], up: &[i64]) -> Window {
        let dimensions = (0..self.size.len())
            .map(|k| {
                let (f, s, d, p) = (
                    self.size[k],
                    self.stride[k],
                    self.dilation[k],
                    self.padding[k].0,
                );
                WindowDimension {
                    padding_low: dilated(f, d) - 1 - p,
                    padding_high: up[k] - 1 + p - (down[k] - 1) * s,
                    window_dilation: d,
                    base_dilation: s,
                    ..WindowDimension::new(f)
                }
            })
            .collect();
        Window { dimensions }
    }

    /// How far a reverse operation reads outside its down-scaled input `down`, per dimension
    /// `(before, after)` in elements, for output extents `up`.
    pub(super) fn reverse_reach(&self, down: &[i64], up: &[i64]) -> Vec<(i64, i64)> {
        (0..self.size.len())
            .map(|k| {
                let (f, s, d, p) = (
                    self.size[k],
                    self.stride[k],
                    self.dilation[k],
                    self.padding[k].0,
                );
                let lowest = p - (f - 1) * d; // smallest i + p - j·d
                                              // A read (i + p - j·d) / s >= lowest / s happens only for exact divisions, so
                                              // the index is at least ceil(lowest / s): floor(-lowest / s) before the input.
                let before = (-lowest).div_euclid(s).max(0);
                let after = ((up[k] - 1 + p).div_euclid(s) - (down[k] - 1)).max(0);
                (before, after)
            })
            .collect()
    }
}

impl Lowerer<'_> {
    /// `x` extended by `pads` (per dimension, before and after; negative values cut) with
    /// values defined by `border`: `value` for `constant` (and `ignore`, whose caller excludes
    /// the border by other means), edge copies for `replicate`, mirror images for `reflect`
    /// and `reflect-even`.
    ///
    /// Errors: a reflection wider than the input allows (`reflect`: at most extent - 1;
    /// `reflect-even`: at most the extent), a cut larger than the extent.
    pub(super) fn extend(
        &mut self,
        op: &Operation,
        x: usize,
        pads: &[(i64, i64)],
        border: Border,
        value: f64,
    ) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        if pads.len() != dims.len() {
            return Err(fail(
                op,
                format!(
                    "padding has {} items for a tensor of rank {}",
                    pads.len(),
                    dims.len()
                ),
            ));
        }
        // Extend first, then cut: a border is defined by the whole input, so a reflection on
        // one side may read elements that a negative padding removes on the other.
        let mut x = x;
        let positive: Vec<(i64, i64)> = pads.iter().map(|&(p, q)| (p.max(0), q.max(0))).collect();
        if positive.iter().any(|&(p, q)| p > 0 || q > 0) {
            if matches!(border, Border::Constant | Border::Ignore) {
                let ty = self.ety(x);
                let v = self.scalar(op, ty, value)?;
                let padding: Vec<PaddingDim> = positive
                    .iter()
                    .map(|&(low, high)| PaddingDim {
                        low,
                        high,
                        interior: 0,
                    })
                    .collect();
                x = self.b.pad(x, v, &padding).at(op)?;
            } else {
                for (k, &(p, q)) in positive.iter().enumerate() {
                    if p > 0 || q > 0 {
                        x = self.extend_dimension(op, x, k, p, q, border)?;
                    }
                }
            }
        }
        if pads.iter().any(|&(p, q)| p < 0 || q < 0) {
            let extended = self.dims(x);
            let mut slice = Vec::with_capacity(dims.len());
            for (k, &(p, q)) in pads.iter().enumerate() {
                let (start, limit) = ((-p).max(0), extended[k] - (-q).max(0));
                if start > limit {
                    return Err(fail(
                        op,
                        format!(
                            "negative padding ({p}, {q}) removes more than the extent {} of dimension {k}",
                            dims[k]
                        ),
                    ));
                }
                slice.push(SliceDim {
                    start,
                    limit,
                    stride: 1,
                });
            }
            x = self.b.slice(x, &slice).at(op)?;
        }
        Ok(x)
    }

    /// `x` with `before` and `after` elements of `border` added along dimension `k`.
    fn extend_dimension(
        &mut self,
        op: &Operation,
        x: usize,
        k: usize,
        before: i64,
        after: i64,
        border: Border,
    ) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        let z = dims[k];
        let limit = match border {
            Border::Reflect => z - 1,
            Border::ReflectEven => z,
            _ => i64::MAX,
        };
        if before > limit || after > limit || z == 0 {
            return Err(fail(
                op,
                format!(
                    "border '{}' cannot extend dimension {k} of extent {z} by ({before}, {after})",
                    border.name()
                ),
            ));
        }
        let mut parts = Vec::with_capacity(3);
        if before > 0 {
            parts.push(match border {
                Border::Replicate => self.repeat_slice(op, x, k, 0, before)?,
                Border::Reflect => self.reversed_slice(op, x, k, 1, before + 1)?,
                _ => self.reversed_slice(op, x, k, 0, before)?,
            });
        }
        parts.push(x);
        if after > 0 {
            parts.push(match border {
                Border::Replicate => self.repeat_slice(op, x, k, z - 1, after)?,
                Border::Reflect => self.reversed_slice(op, x, k, z - 1 - after, z - 1)?,
                _ => self.reversed_slice(op, x, k, z - after, z)?,
            });
        }
        self.b.concatenate(&parts, k as i64).at(op)
    }

    /// Elements `[start, limit)` of `x` along dimension `k`.
    pub(super) fn slice_along(
        &mut self,
        op: &Operation,
        x: usize,
        k: usize,
        start: i64,
        limit: i64,
    ) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        let slice: Vec<SliceDim> = dims
            .iter()
            .enumerate()
            .map(|(m, &e)| {
                if m == k {
                    SliceDim {
                        start,
                        limit,
                        stride: 1,
                    }
                } else {
                    SliceDim {
                        start: 0,
                        limit: e,
                        stride: 1,
                    }
                }
            })
            .collect();
        self.b.slice(x, &slice).at(op)
    }

    /// Elements `[start, limit)` along `k`, in reverse order.
    fn reversed_slice(
        &mut self,
        op: &Operation,
        x: usize,
        k: usize,
        start: i64,
        limit: i64,
    ) -> Result<usize, NnefError> {
        let s = self.slice_along(op, x, k, start, limit)?;
        self.b.reverse(s, &[k as i64]).at(op)
    }

    /// Element `index` along `k`, repeated `count` times.
    fn repeat_slice(
        &mut self,
        op: &Operation,
        x: usize,
        k: usize,
        index: i64,
        count: i64,
    ) -> Result<usize, NnefError> {
        let s = self.slice_along(op, x, k, index, index + 1)?;
        let mut out = self.dims(s);
        out[k] = count;
        let mapping: Vec<i64> = (0..out.len() as i64).collect();
        self.b.broadcast_in_dim(s, &out, &mapping).at(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Span;
    use crate::graph::Value;

    fn op(padding: Vec<(i64, i64)>, stride: Vec<i64>) -> Operation {
        let pairs = padding
            .into_iter()
            .map(|(p, q)| Value::Tuple(vec![Value::Integer(p), Value::Integer(q)]))
            .collect();
        Operation {
            name: "box".into(),
            dtype: None,
            arguments: vec![
                ("padding".into(), Value::Array(pairs)),
                (
                    "stride".into(),
                    Value::Array(stride.into_iter().map(Value::Integer).collect()),
                ),
                ("dilation".into(), Value::Array(vec![])),
            ],
            results: vec![],
            span: Span::new(1, 1),
            expansion: vec![],
        }
    }

    #[test]
    fn automatic_padding_follows_the_standard() {
        // X = 7, f = 3, s = 2: x = ceil(7/2) = 4, t = 3*2 + 3 - 7 = 2 -> (1, 1).
        let s = Sliding::read(&op(vec![], vec![2]), &[3], &[7], None).unwrap();
        assert_eq!(s.padding, vec![(1, 1)]);
        // X = 8, f = 3, s = 2: x = 4, t = 6 + 3 - 8 = 1 -> (0, 1): the extra element goes after.
        let s = Sliding::read(&op(vec![], vec![2]), &[3], &[8], None).unwrap();
        assert_eq!(s.padding, vec![(0, 1)]);
        // Reverse: x = 4 down-scaled, X = 8 up-scaled, f = 4, s = 2: t = 6 + 4 - 8 = 2.
        let s = Sliding::read(&op(vec![], vec![2]), &[4], &[8], Some(&[4])).unwrap();
        assert_eq!(s.padding, vec![(1, 1)]);
        let s = Sliding::read(&op(vec![(2, -1)], vec![]), &[3], &[5], None).unwrap();
        assert_eq!(
            (s.padding.clone(), s.stride.clone()),
            (vec![(2, -1)], vec![1])
        );
        assert!(Sliding::read(&op(vec![(0, 0), (0, 0)], vec![]), &[3], &[5], None).is_err());
        assert!(Sliding::read(&op(vec![], vec![0]), &[3], &[5], None).is_err());
    }

    #[test]
    fn reverse_window_restores_the_up_scaled_extent() {
        // deconv x = 2, s = 2, f = 3, p = 0, X = 4: P = 2, Q = 4 - 1 + 0 - 2 = 1.
        let s = Sliding {
            size: vec![3],
            stride: vec![2],
            dilation: vec![1],
            padding: vec![(0, 1)],
        };
        let w = s.reverse_window(&[2], &[4]);
        let d = w.dimensions[0];
        assert_eq!(
            (d.padding_low, d.padding_high, d.base_dilation, d.stride),
            (2, 1, 2, 1)
        );
        // Reads reach index (0 + 0 - 2)/2 = -1 before and (3 + 0)/2 = 1 = x - 1 after.
        assert_eq!(s.reverse_reach(&[2], &[4]), vec![(1, 0)]);
    }
}
