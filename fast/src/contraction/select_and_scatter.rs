//! `select-and-scatter` (seed 004, SelectAndScatter): operands `(operand, source, init)`, a window
//! over every operand dimension. For each window position (row-major over `source`), the window's
//! elements inside the operand (padding skipped) are scanned in row-major window order: the first
//! is selected, and a later element `e` replaces the selected `s` when `select(s, e)` is false.
//! The output starts as `init` everywhere; the window's source value is combined into the
//! selected position with `scatter(current, source)`, windows in row-major order.
//!
//! `select` = `compare(p0, p1)` GE/GT/LE/LT and `scatter` = `add` on f32/f64 run typed (max or
//! min pooling's gradient); any other pair calls the computations.

use super::elements::{self, Arith};
use super::reduce_window::windows;
use super::reducer::{self, Select};
use super::{bad, finish_in_layout, result_shape, Ctx};
use crate::value::Value;
use conformance_spec::shape::slices_equal;
use conformance_spec::{index, BackendError, ElementType};

/// `select-and-scatter` of seed 004. Errors: operand counts, a malformed window, a source whose
/// dimensions are not the window's output dimensions, types that differ, a result that is not the
/// operand's shape.
pub(super) fn select_and_scatter<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(3)?;
    let operand = cx.array(0)?;
    let source = cx.array(1)?;
    let (ity, init) = cx.scalar(2)?;
    let result = result_shape(cx.instr)?;
    let ty = operand.element_type();
    if source.element_type() != ty || ity != ty || result.element_type != ty {
        return Err(bad(
            "operand, source, init and result must share one element type",
        ));
    }
    if !result.same_dimensions(operand.shape()) {
        return Err(bad(format!("result {result} is not the operand's shape")));
    }
    let window = cx
        .instr
        .attr_window("window")
        .ok_or_else(|| bad("select-and-scatter without `window`"))?;
    let w = windows(operand.shape(), window).map_err(bad)?;
    if !slices_equal(&source.shape().dimensions, &w.out_dims) {
        return Err(bad(format!(
            "source dimensions {:?}, expected the window output {:?}",
            source.shape().dimensions,
            w.out_dims
        )));
    }
    let select = cx.computation("select")?;
    let scatter = cx.computation("scatter")?;
    let width = ty.byte_width();
    // The output is built in the operand's physical layout (the offsets index it).
    let oshape = operand.shape().clone();
    let positions = w.count();
    let src_strides = index::strides(source.shape());
    let mut sidx = vec![0usize; w.out_dims.len()];
    let sdims: Vec<usize> = w.out_dims.iter().map(|&d| d as usize).collect();
    let mut src_off = Vec::with_capacity(positions);
    for _ in 0..positions {
        src_off.push(
            sidx.iter()
                .zip(&src_strides)
                .map(|(&i, &s)| i * s as usize)
                .sum::<usize>(),
        );
        elements::advance(&mut sidx, &sdims);
    }
    let phys = index::physical_element_count(&oshape);
    let fast = match (
        reducer::recognize_select(select),
        reducer::recognize(scatter),
    ) {
        (Some(s), Some(reducer::Kind::Add))
            if matches!(ty, ElementType::F32 | ElementType::F64) =>
        {
            Some(s)
        }
        _ => None,
    };
    let out_bits: Vec<u8> = if let Some(sel) = fast {
        if ty == ElementType::F32 {
            typed::<f32>(&operand, &source, init, ty, &w, &src_off, sel, phys)
        } else {
            typed::<f64>(&operand, &source, init, ty, &w, &src_off, sel, phys)
        }
    } else {
        let mut out = vec![0u8; phys * width];
        for c in out.chunks_exact_mut(width) {
            c.copy_from_slice(&init.to_le_bytes()[..width]);
        }
        let mut res = Vec::new();
        let mut offs = Vec::new();
        for (p, &soff) in src_off.iter().enumerate() {
            w.offsets(p, &mut offs);
            let Some((&first, rest)) = offs.split_first() else {
                continue;
            };
            let mut sel_off = first;
            let mut sel_bits = elements::read_bits(operand.data(), first * width, width);
            for &off in rest {
                let e = elements::read_bits(operand.data(), off * width, width);
                reducer::call_scalars(cx, select, &[(ty, sel_bits), (ty, e)], &mut res)?;
                let keep = match res.as_slice() {
                    [b] => *b & 1 == 1,
                    _ => return Err(bad("select must return one pred")),
                };
                if !keep {
                    sel_off = off;
                    sel_bits = e;
                }
            }
            let cur = elements::read_bits(&out, sel_off * width, width);
            let s = elements::read_bits(source.data(), soff * width, width);
            reducer::call_scalars(cx, scatter, &[(ty, cur), (ty, s)], &mut res)?;
            match res.as_slice() {
                [b] => out[sel_off * width..][..width].copy_from_slice(&b.to_le_bytes()[..width]),
                _ => return Err(bad("scatter must return one scalar")),
            }
        }
        out
    };
    finish_in_layout(result, &oshape, out_bits, cx.parallel(phys))
}

/// The typed path: select by comparison, scatter by addition, in `T` (the operand's type).
#[allow(clippy::too_many_arguments)]
fn typed<T: Arith + PartialOrd + std::ops::Add<Output = T>>(
    operand: &crate::value::ArrayRef<'_>,
    source: &crate::value::ArrayRef<'_>,
    init: u128,
    ty: ElementType,
    w: &super::reduce_window::Windows,
    src_off: &[usize],
    sel: Select,
    phys: usize,
) -> Vec<u8> {
    let width = ty.byte_width();
    let read =
        |d: &[u8], off: usize| T::from_element(ty, elements::read_bits(d, off * width, width));
    let mut out = vec![T::from_element(ty, init); phys];
    // select(s, e) true keeps s; compare with NaN is false, so a NaN never stays selected against
    // a later element, exactly as the computation would decide.
    let keep = |s: T, e: T| match sel {
        Select::Ge => s >= e,
        Select::Gt => s > e,
        Select::Le => s <= e,
        Select::Lt => s < e,
    };
    let mut offs = Vec::new();
    for (p, &soff) in src_off.iter().enumerate() {
        w.offsets(p, &mut offs);
        let Some((&first, rest)) = offs.split_first() else {
            continue;
        };
        let (mut so, mut sv) = (first, read(operand.data(), first));
        for &off in rest {
            let e = read(operand.data(), off);
            if !keep(sv, e) {
                so = off;
                sv = e;
            }
        }
        out[so] = out[so] + read(source.data(), soff);
    }
    elements::to_bytes(&out, ty)
}
