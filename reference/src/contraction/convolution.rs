//! `convolution` (seed 004, Conv and ConvWithGeneralPadding; the general dilated form of issue
//! 5's shared decisions): for every output element, the exact sum of the products of an input
//! window with the kernel, rounded once.
//!
//! Operands `(lhs, rhs)` (input and kernel, one element type, rank n + 2 for n >= 0 spatial
//! dimensions); attributes `window={size=... stride=... pad=... lhs_dilate=... rhs_dilate=...
//! rhs_reversal=...}` (one dimension per spatial dimension; [`Window`]), `dim_labels=b01f_01io->b01f`
//! ([`ConvolutionDimensionNumbers`]; XLA's default `bf01_oi01->bf01` when absent),
//! `feature_group_count=G`, `batch_group_count=B` (default 1).
//!
//! With `F` input features, `O` kernel output features and batch `N`:
//! - feature groups (seed 004): the kernel's input-feature dimension is `F / G`; output feature
//!   `oz` belongs to group `g = oz / (O / G)` and reads input features `g·(F/G) .. (g+1)·(F/G)`;
//! - batch groups (seed 004): the output batch is `N / B`; output feature `oz` belongs to group
//!   `h = oz / (O / B)` and output batch `ob` reads input batch `h·(N/B) + ob`;
//! - spatial dimension `d` (seed 004's pseudo-code, with dilations): output size
//!   [`window::output_size`]; window element `k` at output position `o` reads input position
//!   [`window::base_index`] (nothing for padding or lhs-dilation holes) times kernel element
//!   `k`, or `size − 1 − k` when the dimension is reversed (`rhs_reversal`).
//!
//! Output element `(ob, oz, o...)` = Σ over input feature `iz` of its group and window elements
//! `k...` inside the base of `lhs[b, g·(F/G) + iz, i...] × rhs[oz, iz, k'...]` (dimensions placed
//! by the dimension numbers), exact, rounded once into the result type (mixed precision as in
//! [`super::accumulator::Mode`]); the sum starts from +0, so an exact zero is +0.

use super::accumulator::{decode_array, sums_of_products, Mode, Value};
use super::window::{base_index_table, output_size, read_window};
use super::{arrays, dimension, expect_dims, invalid, AccumulationBound};
use crate::interpreter::{result_array_shape, Context};
use conformance_spec::hlo::contraction_numbers::{ConvolutionDimensionNumbers, Window};
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// A checked convolution: dimension positions as `usize`, sizes and group counts.
struct Plan {
    mode: Mode,
    window: Window,
    /// Input: batch, feature, spatial dimension positions.
    ib: usize,
    if_: usize,
    is: Vec<usize>,
    /// Kernel: input feature, output feature, spatial.
    ki: usize,
    ko: usize,
    ks: Vec<usize>,
    /// Output: batch, feature, spatial.
    ob: usize,
    of: usize,
    os: Vec<usize>,
    /// Kernel input features (`F / G`), output features per feature group and per batch group,
    /// input batches per batch group.
    kernel_in: i64,
    out_per_feature_group: i64,
    out_per_batch_group: i64,
    batch_per_group: i64,
}

fn group_count(instr: &HloInstruction, name: &str) -> Result<i64, BackendError> {
    match instr.attribute(name) {
        None => Ok(1),
        Some(_) => match instr.attr_int(name) {
            Some(v) if v >= 1 => Ok(v),
            _ => invalid(format!("convolution: `{name}` must be an integer >= 1")),
        },
    }
}

impl Plan {
    fn new(
        instr: &HloInstruction,
        lhs: &ArrayLiteral,
        rhs: &ArrayLiteral,
    ) -> Result<Plan, BackendError> {
        let op = "convolution";
        let shape = result_array_shape(instr)?;
        if lhs.element_type() != rhs.element_type() {
            return invalid(format!(
                "{op}: the operands have element types {} and {}; they must be equal",
                lhs.element_type(),
                rhs.element_type()
            ));
        }
        let mode = Mode::new(op, lhs.element_type(), shape.element_type)?;
        let dn = ConvolutionDimensionNumbers::from_instruction(instr)
            .and_then(|d| d.validate().map(|()| d))
            .map_err(|e| BackendError::Invalid(format!("{op}: {e}")))?;
        let n = dn.input_spatial_dimensions.len();
        let (ld, rd) = (lhs.dimensions(), rhs.dimensions());
        for (what, rank) in [
            ("lhs", ld.len()),
            ("rhs", rd.len()),
            ("result", shape.rank()),
        ] {
            if rank != n + 2 {
                return invalid(format!(
                    "{op}: the {what} has rank {rank}; {n} spatial dimensions need rank {}",
                    n + 2
                ));
            }
        }
        let window = read_window(op, instr, n, true)?;
        let pos = |what: &str, d: i64| dimension(op, what, d, n + 2);
        let many = |what: &str, v: &[i64]| -> Result<Vec<usize>, BackendError> {
            v.iter().map(|&d| pos(what, d)).collect()
        };
        let plan_dims = (
            pos("input batch dimension", dn.input_batch_dimension)?,
            pos("input feature dimension", dn.input_feature_dimension)?,
            many("input spatial dimension", &dn.input_spatial_dimensions)?,
            pos(
                "kernel input feature dimension",
                dn.kernel_input_feature_dimension,
            )?,
            pos(
                "kernel output feature dimension",
                dn.kernel_output_feature_dimension,
            )?,
            many("kernel spatial dimension", &dn.kernel_spatial_dimensions)?,
            pos("output batch dimension", dn.output_batch_dimension)?,
            pos("output feature dimension", dn.output_feature_dimension)?,
            many("output spatial dimension", &dn.output_spatial_dimensions)?,
        );
        let (ib, if_, is, ki, ko, ks, ob, of, os) = plan_dims;
        let g = group_count(instr, "feature_group_count")?;
        let b = group_count(instr, "batch_group_count")?;
        let (batch, features) = (ld[ib], ld[if_]);
        let (kernel_in, kernel_out) = (rd[ki], rd[ko]);
        if features % g != 0 || kernel_in * g != features {
            return invalid(format!(
                "{op}: {features} input features with feature_group_count={g} need a kernel \
                 input-feature size of {}, the kernel has {kernel_in}",
                features / g
            ));
        }
        if kernel_out % g != 0 || kernel_out % b != 0 {
            return invalid(format!(
                "{op}: {kernel_out} kernel output features are not divisible by \
                 feature_group_count={g} and batch_group_count={b}"
            ));
        }
        if batch % b != 0 {
            return invalid(format!(
                "{op}: batch {batch} is not divisible by batch_group_count={b}"
            ));
        }
        for (d, w) in window.dimensions.iter().enumerate() {
            if rd[ks[d]] != w.size {
                return invalid(format!(
                    "{op}: window dimension {d} has size {}, the kernel's spatial dimension {} \
                     has {}",
                    w.size, ks[d], rd[ks[d]]
                ));
            }
        }
        let mut expected = vec![0i64; n + 2];
        expected[ob] = batch / b;
        expected[of] = kernel_out;
        for (d, w) in window.dimensions.iter().enumerate() {
            expected[os[d]] = output_size(ld[is[d]], w);
        }
        expect_dims(op, shape, &expected)?;
        Ok(Plan {
            mode,
            window,
            ib,
            if_,
            is,
            ki,
            ko,
            ks,
            ob,
            of,
            os,
            kernel_in,
            out_per_feature_group: kernel_out / g,
            out_per_batch_group: kernel_out / b,
            batch_per_group: batch / b,
        })
    }
}

/// The elements of `a`, decoded, in row-major order over its dimensions with dimension `inner`
/// moved innermost (any layout in), and the stride of every dimension (indexed by the operand's
/// own dimension numbers) in that order: `inner` has stride 1.
fn feature_innermost(a: &ArrayLiteral, inner: usize) -> (Vec<Value>, Vec<usize>) {
    let dims = a.dimensions();
    let mut order: Vec<usize> = (0..dims.len()).filter(|&d| d != inner).collect();
    order.push(inner);
    let mut strides = vec![0usize; dims.len()];
    let mut step = 1usize;
    for &d in order.iter().rev() {
        strides[d] = step;
        step *= dims[d].max(0) as usize;
    }
    let decoded = decode_array(a);
    let mut out = vec![Value::Int(0); decoded.len()];
    let mut n = 0;
    index::for_each_index(dims, |i| {
        let at: usize = i.iter().zip(&strides).map(|(&x, &s)| x as usize * s).sum();
        out[at] = decoded[n];
        n += 1;
    });
    (out, strides)
}

/// Evaluates the convolution; with `track`, also the bound of every result element.
fn evaluate(
    instr: &HloInstruction,
    operands: &[&Literal],
    track: bool,
) -> Result<(ArrayLiteral, Vec<AccumulationBound>), BackendError> {
    if operands.len() != 2 {
        return invalid(format!(
            "convolution takes 2 operands, got {}",
            operands.len()
        ));
    }
    let ops = arrays(instr, operands, 2)?;
    let p = Plan::new(instr, ops[0], ops[1])?;
    let shape = result_array_shape(instr)?;
    let ld = ops[0].dimensions();
    // The summed feature dimensions innermost, so the innermost loop reads both operands with
    // stride 1 (in the operands' own order, the input's feature stride is a whole image).
    let (lhs, ls) = feature_innermost(ops[0], p.if_);
    let (rhs, rs) = feature_innermost(ops[1], p.ki);
    let n = p.is.len();
    let inputs: Vec<i64> = p.is.iter().map(|&d| ld[d]).collect();
    let outputs: Vec<i64> = p.os.iter().map(|&d| shape.dimensions[d]).collect();
    let table = base_index_table(&p.window, &inputs, &outputs);
    let sizes: Vec<i64> = p.window.dimensions.iter().map(|w| w.size).collect();
    // Kernel offset of each window element (reversal applied), in row-major window order.
    let mut kernel_offsets = Vec::new();
    let mut window_elements = Vec::new();
    index::for_each_index(&sizes, |k| {
        let off: usize = (0..n)
            .map(|d| {
                let w = &p.window.dimensions[d];
                let kk = if w.window_reversal {
                    w.size - 1 - k[d]
                } else {
                    k[d]
                };
                kk as usize * rs[p.ks[d]]
            })
            .sum();
        kernel_offsets.push(off);
        window_elements.push(k.to_vec());
    });
    let (lf, rk) = (ls[p.if_], rs[p.ki]);
    debug_assert_eq!((lf, rk), (1, 1));
    Ok(sums_of_products(shape, p.mode, track, |j, acc| {
        let oz = j[p.of];
        let fg = oz / p.out_per_feature_group;
        let bg = oz / p.out_per_batch_group;
        let batch = bg * p.batch_per_group + j[p.ob];
        let lhs_base = batch as usize * ls[p.ib];
        let rhs_base = oz as usize * rs[p.ko];
        'window: for (k, &koff) in window_elements.iter().zip(&kernel_offsets) {
            let mut loff = lhs_base;
            for d in 0..n {
                match table[d][j[p.os[d]] as usize][k[d] as usize] {
                    Some(i) => loff += i as usize * ls[p.is[d]],
                    None => continue 'window,
                }
            }
            let features = p.kernel_in as usize;
            let l0 = loff + (fg * p.kernel_in) as usize * lf;
            let r0 = rhs_base + koff;
            for (a, b) in lhs[l0..l0 + features].iter().zip(&rhs[r0..r0 + features]) {
                acc.add_product(a, b);
            }
        }
    }))
}

/// `convolution` (see the module docs).
///
/// Errors: [`BackendError::Invalid`] for an operand count other than 2, operands of different
/// element types, malformed `dim_labels` or `window`, ranks other than spatial + 2, group counts
/// below 1 or not dividing the features / batch as the seed requires, a window size differing
/// from the kernel's spatial size, or a result whose dimensions differ from the computed ones;
/// [`BackendError::Unsupported`] for a result element type the operands cannot accumulate into.
pub(crate) fn convolution(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    evaluate(instr, operands, false).map(|(a, _)| Literal::Array(a))
}

/// The bounds of every result element (one leaf), as [`super::accumulation_bounds`] reports them.
pub(crate) fn bounds(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    evaluate(instr, operands, true).map(|(_, b)| Some(vec![b]))
}

#[cfg(test)]
#[path = "convolution_tests.rs"]
mod tests;
