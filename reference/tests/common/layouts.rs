//! Helpers shared by the layout tests of the operation families: a case is (parameter shapes
//! without layout, result shape without layout, the op text); strategies draw random
//! `minor_to_major` orders and padding for its parameters and its result.

use conformance_spec::hlo::parse_shape;
use conformance_spec::layout::{Layout, PaddingValue};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use proptest::prelude::*;

/// (parameter shapes without layout, result shape without layout, the op text).
pub type LayoutCase = (&'static [&'static str], &'static str, &'static str);

/// The array shape of `text` (panics on text that is not an array shape).
pub fn bare(text: &str) -> ArrayShape {
    parse_shape(text).unwrap().as_array().unwrap().clone()
}

/// A random layout for dimensions `dims`: any `minor_to_major` permutation and, half of the
/// time (not at rank 0), padded widths up to 2 elements past each dimension with one of
/// `padding_values`.
pub fn layout_strategy(
    dims: Vec<i64>,
    padding_values: Vec<PaddingValue>,
) -> impl Strategy<Value = Layout> {
    let rank = dims.len();
    (
        Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
        prop::collection::vec(0i64..3, rank),
        any::<bool>(),
        prop::sample::select(padding_values),
    )
        .prop_map(move |(perm, pads, padded, value)| {
            let layout = Layout::new(perm);
            if padded && rank > 0 {
                let widths = dims.iter().zip(&pads).map(|(d, p)| d + p).collect();
                layout.with_padding(widths, value)
            } else {
                layout
            }
        })
}

/// The text of a module `m` holding `computations` (HLO text, each line ended; empty for none)
/// and an entry computation whose parameters have shapes `params` and whose root is
/// `result` `op` (the op text names the parameters `p0`, `p1`, ...).
pub fn module_text(
    computations: &str,
    params: &[ArrayShape],
    result: &ArrayShape,
    op: &str,
) -> String {
    let mut text = format!("HloModule m\n{computations}ENTRY e {{\n");
    for (i, p) in params.iter().enumerate() {
        text += &format!("  p{i} = {p} parameter({i})\n");
    }
    text += &format!("  ROOT r = {result} {op}\n}}\n");
    text
}

/// A case number of `cases` with a random layout for each of its parameters and one for its
/// result (padding values drawn from `padding_values`).
#[allow(clippy::type_complexity)]
pub fn case_strategy(
    cases: &'static [LayoutCase],
    padding_values: Vec<PaddingValue>,
) -> impl Strategy<Value = (usize, Vec<Layout>, Layout)> {
    (0..cases.len()).prop_flat_map(move |c| {
        let (params, result, _) = cases[c];
        let param_layouts: Vec<_> = params
            .iter()
            .map(|p| layout_strategy(bare(p).dimensions, padding_values.clone()))
            .collect();
        (
            Just(c),
            param_layouts,
            layout_strategy(bare(result).dimensions, padding_values.clone()),
        )
    })
}

/// The shapes `plain` each in its layout of `layouts`, and the arguments `args` (one per shape)
/// relaid into them, as literals.
pub fn laid_out(
    plain: &[ArrayShape],
    layouts: &[Layout],
    args: &[ArrayLiteral],
) -> (Vec<ArrayShape>, Vec<Literal>) {
    let laid: Vec<ArrayShape> = plain
        .iter()
        .zip(layouts)
        .map(|(s, l)| s.clone().with_layout(l.clone()))
        .collect();
    let laid_args: Vec<Literal> = args
        .iter()
        .zip(&laid)
        .map(|(a, s)| a.relayout(s.layout.clone()).into())
        .collect();
    (laid, laid_args)
}
