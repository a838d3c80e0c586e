//! `reduce-window` (seed 004, ReduceWindow): N operands, N init values, a window over every
//! operand dimension (size, stride, padding, base and window dilation). Each output element is
//! the init value reduced with the window's elements that lie inside the base (padding and
//! base-dilation holes are skipped: the seed requires the init value to be an identity of the
//! computation), in row-major window order.
//!
//! One operand with a recognized reducer on f32, f64 or integers runs typed (f32 sums in f32, the
//! other narrow floats widened to f32 and rounded once); anything else calls the computation.

use super::elements::{self, Arith};
use super::reducer::{self, Kind};
use super::window::{self, Dim};
use super::{bad, finish_row_major, Ctx};
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::Window;
use conformance_spec::shape::slices_equal;
use conformance_spec::{index, ArrayShape, BackendError, ElementType};
use rayon::prelude::*;

/// The windows of a window attribute over one operand: for each output index (row-major), the
/// element offsets (physical, in operand elements) of the window's in-base elements, in row-major
/// window order — computed on demand (no table proportional to outputs × window size).
pub(crate) struct Windows {
    pub(crate) out_dims: Vec<i64>,
    /// Per dimension: `tables[d][o][k]` = input index (or None: padding or a dilation hole).
    tables: Vec<Vec<Vec<Option<usize>>>>,
    strides: Vec<usize>,
    wsizes: Vec<usize>,
    osizes: Vec<usize>,
}

impl Windows {
    /// Number of output positions.
    pub(crate) fn count(&self) -> usize {
        self.osizes.iter().product()
    }

    /// Number of window positions.
    pub(crate) fn window_size(&self) -> usize {
        self.wsizes.iter().product()
    }

    /// The in-base offsets of the window at output position `linear` (row-major), into `out`.
    pub(crate) fn offsets(&self, linear: usize, out: &mut Vec<usize>) {
        out.clear();
        let r = self.osizes.len();
        let mut o = vec![0usize; r];
        let mut rest = linear;
        for d in (0..r).rev() {
            o[d] = rest % self.osizes[d];
            rest /= self.osizes[d];
        }
        let mut k = vec![0usize; r];
        for _ in 0..self.window_size() {
            let mut off = 0usize;
            let mut inside = true;
            for d in 0..r {
                match self.tables[d][o[d]][k[d]] {
                    Some(i) => off += i * self.strides[d],
                    None => {
                        inside = false;
                        break;
                    }
                }
            }
            if inside {
                out.push(off);
            }
            elements::advance(&mut k, &self.wsizes);
        }
    }
}

/// The windows of `window` over an operand of shape `shape`. Errors: a window of another rank or
/// with a malformed dimension.
pub(crate) fn windows(shape: &ArrayShape, window: &Window) -> Result<Windows, String> {
    let dims: Vec<Dim> = window::dims(window, &shape.dimensions)?;
    let out_dims: Vec<i64> = dims.iter().map(Dim::output_size).collect();
    Ok(Windows {
        tables: dims.iter().map(Dim::table).collect(),
        strides: index::strides(shape).iter().map(|&s| s as usize).collect(),
        wsizes: dims.iter().map(|d| d.w.size as usize).collect(),
        osizes: out_dims.iter().map(|&d| d as usize).collect(),
        out_dims,
    })
}

/// `reduce-window` of seed 004. Errors: operand/init counts, mismatched shapes, a malformed
/// window, a result shape that does not match.
pub(super) fn reduce_window<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let (operands, inits) = cx.reduction_inputs()?;
    let n = operands.len();
    let window = cx
        .instr
        .attr_window("window")
        .ok_or_else(|| bad("reduce-window without `window`"))?;
    let results = cx.reduction_results(n)?;
    let shapes: Vec<&ArrayShape> = operands.iter().map(|o| o.shape()).collect();
    let w = windows(shapes[0], window).map_err(bad)?;
    for (i, (s, r)) in shapes.iter().zip(&results).enumerate() {
        if !s.same_dimensions(shapes[0]) {
            return Err(bad(format!("operand {i} dimensions differ from operand 0")));
        }
        if !slices_equal(&r.dimensions, &w.out_dims) || r.element_type != inits[i].0 {
            return Err(bad(format!(
                "result {r}: expected dimensions {:?} of type {}",
                w.out_dims, inits[i].0
            )));
        }
        r.validate()
            .map_err(|e| bad(format!("result shape {r}: {e}")))?;
    }
    // Every operand in operand 0's layout (the offsets are computed for it).
    let same: Vec<ArrayRef<'a>> = operands
        .iter()
        .map(|o| {
            if index::strides(o.shape()) == index::strides(shapes[0]) {
                Ok(o.clone())
            } else {
                let target = o.shape().clone().with_layout(shapes[0].layout.clone());
                match super::super::data_movement::relayout(o, &target, false)? {
                    Value::Array(a) => Ok(a),
                    _ => Err(BackendError::Failure("relayout gives an array".into())),
                }
            }
        })
        .collect::<Result<_, BackendError>>()?;
    let comp = cx.computation("to_apply")?;
    let outer = w.count();
    let parallel = cx.parallel(outer * w.window_size());
    if n == 1 && same[0].element_type() == inits[0].0 {
        if let Some(kind) = reducer::recognize(comp) {
            let ty = inits[0].0;
            let bytes = match ty {
                ElementType::F64 if kind_is_arith(kind) => {
                    typed_windows::<f64>(&same[0], &w, inits[0].1, parallel, |a, b| match kind {
                        Kind::Add => a + b,
                        Kind::Multiply => a * b,
                        Kind::Maximum => reducer::max_f64(a, b),
                        _ => reducer::min_f64(a, b),
                    })
                }
                _ if ty.is_float() && kind_is_arith(kind) => {
                    typed_windows::<f32>(&same[0], &w, inits[0].1, parallel, |a, b| match kind {
                        Kind::Add => a + b,
                        Kind::Multiply => a * b,
                        Kind::Maximum => reducer::max_f32(a, b),
                        _ => reducer::min_f32(a, b),
                    })
                }
                _ if ty.is_integer() && ty != ElementType::U64 => {
                    typed_windows::<i64>(&same[0], &w, inits[0].1, parallel, |a, b| match kind {
                        Kind::Add => a.wrapping_add(b),
                        Kind::Multiply => a.wrapping_mul(b),
                        Kind::Maximum => a.max(b),
                        Kind::Minimum => a.min(b),
                        Kind::And => a & b,
                        Kind::Or => a | b,
                    })
                }
                _ => None,
            };
            if let Some(bytes) = bytes {
                let r = results[0];
                return finish_row_major(r, bytes, cx.parallel(outer));
            }
        }
    }
    // Any computation, element by element.
    let widths: Vec<usize> = same.iter().map(|o| o.element_type().byte_width()).collect();
    let mut out: Vec<Vec<u8>> = results.iter().map(|_| Vec::new()).collect();
    let mut args = Vec::with_capacity(2 * n);
    let mut res = Vec::with_capacity(n);
    let mut offs = Vec::new();
    for i in 0..outer {
        let mut acc: Vec<u128> = inits.iter().map(|x| x.1).collect();
        w.offsets(i, &mut offs);
        for &off in &offs {
            args.clear();
            args.extend(inits.iter().zip(&acc).map(|(x, &a)| (x.0, a)));
            for (j, o) in same.iter().enumerate() {
                args.push((
                    o.element_type(),
                    elements::read_bits(o.data(), off * widths[j], widths[j]),
                ));
            }
            reducer::fold_step(cx, comp, &args, &mut res, &mut acc)?;
        }
        for (o, (r, a)) in out.iter_mut().zip(results.iter().zip(&acc)) {
            o.extend_from_slice(&a.to_le_bytes()[..r.element_type.byte_width()]);
        }
    }
    let mut values: Vec<Value<'a>> = out
        .into_iter()
        .zip(&results)
        .map(|(b, r)| finish_row_major(r, b, false))
        .collect::<Result<_, _>>()?;
    Ok(if n == 1 {
        values.remove(0)
    } else {
        Value::Tuple(values)
    })
}

fn kind_is_arith(k: Kind) -> bool {
    matches!(
        k,
        Kind::Add | Kind::Multiply | Kind::Maximum | Kind::Minimum
    )
}

/// Folds every window in arithmetic `T` (`f`: the reducer), results in the operand's type.
fn typed_windows<T: Arith>(
    a: &ArrayRef<'_>,
    w: &Windows,
    init: u128,
    parallel: bool,
    f: impl Fn(T, T) -> T + Sync + Send,
) -> Option<Vec<u8>> {
    let ty = a.element_type();
    // Window offsets index the physical buffer: convert it in physical order.
    let width = ty.byte_width();
    let data = a.data();
    let phys: Vec<T> = data
        .chunks_exact(width)
        .map(|c| T::from_element(ty, elements::read_bits(c, 0, width)))
        .collect();
    let init = T::from_element(ty, init);
    let one = |i: usize, offs: &mut Vec<usize>| {
        w.offsets(i, offs);
        offs.iter().fold(init, |acc, &off| f(acc, phys[off]))
    };
    let outer = w.count();
    let out: Vec<T> = if parallel {
        (0..outer)
            .into_par_iter()
            .map_init(Vec::new, |offs, i| one(i, offs))
            .collect()
    } else {
        let mut offs = Vec::new();
        (0..outer).map(|i| one(i, &mut offs)).collect()
    };
    Some(elements::to_bytes(&out, ty))
}
