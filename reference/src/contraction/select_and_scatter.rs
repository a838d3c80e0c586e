//! `select-and-scatter` (seed 004, SelectAndScatter): in every window of `operand` one element is
//! selected, and the window's `source` value is scattered onto it.
//!
//! Operands `(operand, source, init_value)`: an array of type T, an array of T with one element
//! per window position, a T scalar; attributes `window={...}` (one dimension per operand
//! dimension; padding allowed, reversal rejected), `select=%computation` (T, T -> pred) and
//! `scatter=%computation` (T, T -> T). The result has `operand`'s shape.
//!
//! For each window position (row-major over `source`'s index space), the window's elements that
//! lie inside the operand (padding skipped) are scanned in row-major window order: the first is
//! selected, and a later element `e` replaces the selected element `s` when `select(s, e)` is
//! false (seed 004: `select` returns true when its first argument is selected, and is called
//! with the first argument's index before the second's). Every output element starts as
//! `init_value`; the window's source value is then combined into the selected position with
//! `scatter(current, source)`. The seed leaves the order of these combinations unspecified: a
//! plain-sum `scatter` is EXACT (init + every source value scattered there, rounded once);
//! any other `scatter` runs in window order ([`super::reducer`]).

use super::accumulator::{decode, decode_array, Accumulator, Mode};
use super::reducer::{bounds_of_sum, Reducer};
use super::window::{base_index_table, output_size, read_window};
use super::{
    array_from_row_major, arrays, expect_dims, invalid, row_major_strides, AccumulationBound,
};
use crate::interpreter::{result_array_shape, Context};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// The (operand offset, source offset) of every scatter, in window order (logical row-major
/// offsets).
fn selections(
    ctx: &Context,
    instr: &HloInstruction,
    operand: &ArrayLiteral,
    source: &ArrayLiteral,
) -> Result<Vec<(usize, usize)>, BackendError> {
    let op = "select-and-scatter";
    let dims = operand.dimensions().to_vec();
    let window = read_window(op, instr, dims.len(), false)?;
    let out_dims: Vec<i64> = window
        .dimensions
        .iter()
        .zip(&dims)
        .map(|(w, &d)| output_size(d, w))
        .collect();
    if source.dimensions() != out_dims.as_slice() {
        return invalid(format!(
            "{op}: source has dimensions {:?}, the window positions are {out_dims:?}",
            source.dimensions()
        ));
    }
    let ty = operand.element_type();
    let select = Reducer::new(ctx.module, instr, "select", &[ty], ElementType::Pred, false)?;
    let table = base_index_table(&window, &dims, &out_dims);
    let sizes: Vec<i64> = window.dimensions.iter().map(|w| w.size).collect();
    let strides = row_major_strides(&dims);
    let bits = operand.logical_bits();
    let mut out = Vec::new();
    let mut failure = None;
    let mut s = 0usize;
    index::for_each_index(&out_dims, |j| {
        let mut selected: Option<usize> = None;
        index::for_each_index(&sizes, |k| {
            if failure.is_some() {
                return;
            }
            let mut off = 0usize;
            for (d, (&o, &kd)) in j.iter().zip(k).enumerate() {
                match table[d][o as usize][kd as usize] {
                    Some(i) => off += i as usize * strides[d],
                    None => return,
                }
            }
            match selected {
                None => selected = Some(off),
                Some(cur) => {
                    match select.apply(ctx, &[ty], &[ElementType::Pred], &[bits[cur]], &[bits[off]])
                    {
                        Ok(keep) if keep[0] & 0xff == 0 => selected = Some(off),
                        Ok(_) => {}
                        Err(e) => failure = Some(e),
                    }
                }
            }
        });
        if let Some(sel) = selected {
            out.push((sel, s));
        }
        s += 1;
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Evaluates select-and-scatter; with `track` and a sum `scatter`, also the bounds.
fn evaluate(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
    track: bool,
) -> Result<(ArrayLiteral, Option<Vec<AccumulationBound>>), BackendError> {
    let op = "select-and-scatter";
    if operands.len() != 3 {
        return invalid(format!(
            "{op} takes 3 operands (operand, source, init_value), got {}",
            operands.len()
        ));
    }
    let ops = arrays(instr, operands, 3)?;
    let (operand, source, init) = (ops[0], ops[1], ops[2]);
    let ty = operand.element_type();
    if source.element_type() != ty || init.element_type() != ty || !init.dimensions().is_empty() {
        return invalid(format!(
            "{op}: source {} and init value {} must have the operand's element type {ty} (init a \
             scalar)",
            source.shape(),
            init.shape()
        ));
    }
    let shape = result_array_shape(instr)?;
    if shape.element_type != ty {
        return invalid(format!(
            "{op}: the result has element type {}, the operand {ty}",
            shape.element_type
        ));
    }
    expect_dims(op, shape, operand.dimensions())?;
    let pairs = selections(ctx, instr, operand, source)?;
    let scatter = Reducer::new(ctx.module, instr, "scatter", &[ty], ty, true)?;
    let init_bits = init.get_bits(&[]);
    let count = operand.shape().element_count();
    let mut result = vec![init_bits; count];
    if scatter.is_sum() {
        let mode = Mode::new(op, ty, ty)?;
        let init_value = decode(ty, init_bits);
        let src = decode_array(source);
        let mut accs: Vec<Option<Accumulator>> = vec![None; count];
        for &(o, s) in &pairs {
            let acc = accs[o].get_or_insert_with(|| {
                let mut a = Accumulator::new(mode, track);
                a.add_value(&init_value);
                a
            });
            acc.add_value(&src[s]);
        }
        let mut bounds = Vec::new();
        for (r, acc) in result.iter_mut().zip(&accs) {
            if let Some(a) = acc {
                *r = a.finish();
            }
            if track {
                bounds.push(match acc {
                    Some(a) => a.bound(),
                    None => {
                        let mut a = Accumulator::new(mode, true);
                        a.add_value(&init_value);
                        a.bound()
                    }
                });
            }
        }
        let bounds = track.then_some(bounds);
        return Ok((array_from_row_major(shape, &result), bounds));
    }
    let src = source.logical_bits();
    for &(o, s) in &pairs {
        result[o] = scatter.apply(ctx, &[ty], &[ty], &[result[o]], &[src[s]])?[0];
    }
    Ok((array_from_row_major(shape, &result), None))
}

/// `select-and-scatter` (see the module docs).
///
/// Errors: [`BackendError::Invalid`] for an operand count other than 3, a source or init value
/// of another element type, a non-scalar init value, a malformed window (rank other than the
/// operand's, size, stride or dilation below 1, reversal), a source whose dimensions are not the
/// window positions, a result other than the operand's shape, a missing `select` / `scatter`, or
/// computations that do not return a pred / a T scalar; any error of the computations.
pub(crate) fn select_and_scatter(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    evaluate(ctx, instr, operands, false).map(|(a, _)| Literal::Array(a))
}

/// The bounds of every result element when `scatter` is a sum (else `None`), as
/// [`super::accumulation_bounds`] reports them: `terms` is 1 (the init value) plus the number of
/// source values scattered onto the element.
pub(crate) fn bounds(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    bounds_of_sum(ctx, instr, "scatter", |track| {
        evaluate(ctx, instr, operands, track)
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::contraction::accumulation_bounds;
    use conformance_spec::hlo::parse_module;

    const GE: &str = "ge {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT c = pred[] compare(x, y), direction=GE\n}\n";
    const ADD: &str = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n";

    fn sas(
        comps: &str,
        select: &str,
        scatter: &str,
        operand: &str,
        source: &str,
        window: &str,
    ) -> String {
        format!(
            "HloModule m\n{comps}\nENTRY e {{\n  a = {operand} parameter(0)\n  s = {source} parameter(1)\n  i = f32[] parameter(2)\n  ROOT r = {operand} select-and-scatter(a, s, i), window={{{window}}}, select={select}, scatter={scatter}\n}}\n"
        )
    }

    #[test]
    fn max_pool_gradient_with_overlapping_windows() {
        // Seed 004's figure (2): overlapping windows that both select the same maximum add their
        // source values there (2 + 6 = 8). 1-D: [1, 9, 3, 4, 2], size 3, stride 2.
        let comps = format!("{GE}{ADD}");
        let hlo = sas(&comps, "ge", "add", "f32[5]", "f32[2]", "size=3 stride=2");
        let args = [
            f32s("f32[5]", &[1., 9., 3., 4., 2.]),
            f32s("f32[2]", &[2., 6.]),
            f32s("f32[]", &[0.]),
        ];
        assert_eq!(
            f32_values(&run_array(&hlo, &args)),
            vec![0., 2., 0., 6., 0.]
        );
        let args = [
            f32s("f32[5]", &[1., 2., 9., 4., 2.]),
            f32s("f32[2]", &[2., 6.]),
            f32s("f32[]", &[0.]),
        ];
        assert_eq!(
            f32_values(&run_array(&hlo, &args)),
            vec![0., 0., 8., 0., 0.]
        );
        let m = parse_module(&hlo).unwrap();
        let b = accumulation_bounds(&m, &args).unwrap().unwrap();
        assert_eq!(
            b[0].iter().map(|x| x.terms).collect::<Vec<_>>(),
            vec![1, 1, 3, 1, 1]
        );
        assert_eq!(b[0][2].abs_sum, 8.0);
    }

    #[test]
    fn ties_select_the_first_and_padding_is_never_selected() {
        // GE keeps the current (earlier) element on ties. 2-D, 2x2 windows, stride 2, with
        // padding 0_1 on dimension 1 and a column-major operand layout.
        let comps = format!("{GE}{ADD}");
        let hlo = sas(
            &comps,
            "ge",
            "add",
            "f32[2,3]{0,1}",
            "f32[1,2]",
            "size=2x2 stride=2x2 pad=0_0x0_1",
        );
        let args = [
            f32s("f32[2,3]{0,1}", &[5., 5., -1., 5., 1., -2.]),
            f32s("f32[1,2]", &[10., 20.]),
            f32s("f32[]", &[0.5]),
        ];
        // Window 0 covers (0,0),(0,1),(1,0),(1,1): all 5 but (1,1)=1 → (0,0). Window 1 covers
        // (0,2),(1,2) inside and padding: max -1 at (0,2).
        assert_eq!(
            f32_values(&run_array(&hlo, &args)),
            vec![10.5, 0.5, 20.5, 0.5, 0.5, 0.5]
        );
    }

    #[test]
    fn exact_scatter_sums_and_arbitrary_scatter() {
        // Three overlapping windows (padding 2_2) all select the only element: init 1e8 +
        // [1, -1e8, 1] = 2 exactly (naive f32: 1).
        let comps = format!("{GE}{ADD}");
        let hlo = sas(&comps, "ge", "add", "f32[1]", "f32[3]", "size=3 pad=2_2");
        let args = [
            f32s("f32[1]", &[9.]),
            f32s("f32[3]", &[1., -1e8, 1.]),
            f32s("f32[]", &[1e8]),
        ];
        assert_eq!(((1e8f32 + 1.0) - 1e8) + 1.0, 1.0);
        assert_eq!(f32_values(&run_array(&hlo, &args)), vec![2.]);
        // scatter = subtract(current, source) runs in window order, rounding each step.
        let sub = "sub {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] subtract(x, y)\n}\n";
        let comps = format!("{GE}{sub}");
        let hlo = sas(&comps, "ge", "sub", "f32[1]", "f32[3]", "size=3 pad=2_2");
        let want = ((1e8f32 - 1.0) - -1e8) - 1.0;
        assert_eq!(f32_values(&run_array(&hlo, &args)), vec![want]);
        let m = parse_module(&hlo).unwrap();
        assert_eq!(accumulation_bounds(&m, &args).unwrap(), None);
    }

    #[test]
    fn errors_name_the_problem() {
        let comps = format!("{GE}{ADD}");
        let hlo = sas(&comps, "ge", "add", "f32[5]", "f32[3]", "size=3 stride=2");
        let e = run(
            &hlo,
            &[
                f32s("f32[5]", &[0.; 5]),
                f32s("f32[3]", &[0.; 3]),
                f32s("f32[]", &[0.]),
            ],
        )
        .unwrap_err();
        assert!(e.to_string().contains("window positions are [2]"), "{e}");
    }
}
