//! Shape propagation of every primitive of the NNEF 1.0.5 standard library (chapter 4: every
//! fragment declared without a body in [`crate::stdlib`]), with the argument-validity checks
//! the specification states for it.
//!
//! Compound fragments (`relu`, `max_pool`, `linear`, ...) have no rule here: their shapes follow
//! from the primitives of their expansion (§4.9: "argument validity and result semantics of
//! these fragments follow from ... the primitives they are built from").
//!
//! Conventions shared by every rule (facts from the specification, cross-checked against the
//! Khronos reference parser's shape inference):
//! - broadcasting aligns shapes from the LEFT, missing trailing dimensions count as 1;
//! - sliding-window `padding = []` means automatic padding, `stride`/`dilation = []` mean 1s;
//! - reductions keep reduced axes with extent 1;
//! - results never have negative extents; attribute arithmetic is checked (no overflow).
//!
//! Families (private modules): `elementwise` (§4.2, `copy`, `cast`, `update`),
//! `sliding_window` (§4.3), `reduce` (§4.4), `layout_ops` (§4.5), `roi` (§4.6), `matrix`
//! (§4.7), `declarations` (§4.1).
//!
//! Where the Khronos reference implementation (PyPI `nnef` 1.0.10) is laxer or differs, these
//! rules follow the specification:
//! - `sample`: `index` has the down-scaled (output) shape, §4.3.3 (Khronos requires the input's
//!   shape, which the standard's own `max_pool_with_index` violates whenever it down-scales);
//! - `unsqueeze`: `axes` are positions in the output whatever their order, §4.5.1 (Khronos
//!   inserts in list order); `squeeze` only removes singleton dimensions;
//! - `conv`/`deconv` bias: aligned from the left, singular except in the channel dimension,
//!   whose extent is the output channel count or 1, §4.3.1 (Khronos also takes `[C]`);
//! - axis lists may not repeat an axis (reduce, squeeze, unsqueeze, slice); `tile` repeats
//!   are strictly positive; border and method strings must be ones the standard lists
//!   (`sample` also takes `'ignore'`, which the standard's `max_pool` passes to it);
//! - arithmetic that yields an impossible extent (a padded extent smaller than the dilated
//!   window, a negative padded or up-scaled extent) is an error, not a zero or negative
//!   extent;
//! - `unstack` produces at most [`MAX_UNSTACKED`] tensors (a resource limit).

mod args;
mod declarations;
mod elementwise;
mod layout_ops;
mod matrix;
#[cfg(test)]
mod proptests;
mod reduce;
mod roi;
mod sliding_window;
#[cfg(test)]
pub(crate) mod testing;

use crate::graph::{Operation, Value};
use args::Ctx;
pub use layout_ops::MAX_UNSTACKED;

/// Shape of one result: a tensor, or an array of tensors (split, unstack).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultShape {
    /// A single tensor's extents, outermost first (elements).
    Tensor(Vec<usize>),
    /// The extents of each tensor of a `tensor<?>[]` result, in order.
    Array(Vec<Vec<usize>>),
}

/// A shape rule: the shapes of the results of one primitive, in declaration order.
type Rule = fn(&Ctx) -> Result<Vec<ResultShape>, String>;

fn tensor(shape: Result<Vec<usize>, String>) -> Result<Vec<ResultShape>, String> {
    shape.map(|s| vec![ResultShape::Tensor(s)])
}

fn array(shapes: Result<Vec<Vec<usize>>, String>) -> Result<Vec<ResultShape>, String> {
    shapes.map(|s| vec![ResultShape::Array(s)])
}

/// Every primitive with its rule, in the order of NNEF 1.0.5 chapter 4.
const RULES: &[(&str, Rule)] = &[
    // §4.1 tensor introducing operations
    ("external", |c| tensor(declarations::external(c))),
    ("variable", |c| tensor(declarations::variable(c))),
    ("constant", |c| tensor(declarations::constant(c))),
    // §4.2.1 unary operations
    ("copy", |c| tensor(elementwise::unary(c, "x"))),
    ("neg", |c| tensor(elementwise::unary(c, "x"))),
    ("rcp", |c| tensor(elementwise::unary(c, "x"))),
    ("exp", |c| tensor(elementwise::unary(c, "x"))),
    ("log", |c| tensor(elementwise::unary(c, "x"))),
    ("sin", |c| tensor(elementwise::unary(c, "x"))),
    ("cos", |c| tensor(elementwise::unary(c, "x"))),
    ("tan", |c| tensor(elementwise::unary(c, "x"))),
    ("sinh", |c| tensor(elementwise::unary(c, "x"))),
    ("cosh", |c| tensor(elementwise::unary(c, "x"))),
    ("tanh", |c| tensor(elementwise::unary(c, "x"))),
    ("asin", |c| tensor(elementwise::unary(c, "x"))),
    ("acos", |c| tensor(elementwise::unary(c, "x"))),
    ("atan", |c| tensor(elementwise::unary(c, "x"))),
    ("asinh", |c| tensor(elementwise::unary(c, "x"))),
    ("acosh", |c| tensor(elementwise::unary(c, "x"))),
    ("atanh", |c| tensor(elementwise::unary(c, "x"))),
    ("abs", |c| tensor(elementwise::unary(c, "x"))),
    ("sign", |c| tensor(elementwise::unary(c, "x"))),
    ("not", |c| tensor(elementwise::unary(c, "x"))),
    ("floor", |c| tensor(elementwise::unary(c, "x"))),
    ("ceil", |c| tensor(elementwise::unary(c, "x"))),
    ("round", |c| tensor(elementwise::unary(c, "x"))),
    // §4.2.2 binary operations
    ("add", |c| tensor(elementwise::binary(c))),
    ("sub", |c| tensor(elementwise::binary(c))),
    ("mul", |c| tensor(elementwise::binary(c))),
    ("div", |c| tensor(elementwise::binary(c))),
    ("pow", |c| tensor(elementwise::binary(c))),
    ("lt", |c| tensor(elementwise::binary(c))),
    ("gt", |c| tensor(elementwise::binary(c))),
    ("le", |c| tensor(elementwise::binary(c))),
    ("ge", |c| tensor(elementwise::binary(c))),
    ("eq", |c| tensor(elementwise::binary(c))),
    ("ne", |c| tensor(elementwise::binary(c))),
    ("and", |c| tensor(elementwise::binary(c))),
    ("or", |c| tensor(elementwise::binary(c))),
    // §4.2.3 select
    ("select", |c| tensor(elementwise::select(c))),
    // §4.3 sliding-window operations
    ("conv", |c| tensor(sliding_window::conv(c, false))),
    ("deconv", |c| tensor(sliding_window::conv(c, true))),
    ("box", |c| tensor(sliding_window::pool(c, false))),
    ("debox", |c| tensor(sliding_window::pool(c, true))),
    ("argmax_pool", |c| tensor(sliding_window::pool(c, false))),
    ("sample", |c| tensor(sliding_window::sample(c, false))),
    ("desample", |c| tensor(sliding_window::sample(c, true))),
    ("multilinear_upsample", |c| {
        tensor(sliding_window::multilinear_upsample(c))
    }),
    // §4.4 reduce operations
    ("sum_reduce", |c| tensor(reduce::reduce(c))),
    ("max_reduce", |c| tensor(reduce::reduce(c))),
    ("min_reduce", |c| tensor(reduce::reduce(c))),
    ("argmax_reduce", |c| tensor(reduce::reduce(c))),
    ("argmin_reduce", |c| tensor(reduce::reduce(c))),
    ("any_reduce", |c| tensor(reduce::reduce(c))),
    ("all_reduce", |c| tensor(reduce::reduce(c))),
    // §4.5 tensor shape operations
    ("reshape", |c| tensor(layout_ops::reshape(c))),
    ("squeeze", |c| tensor(layout_ops::squeeze(c))),
    ("unsqueeze", |c| tensor(layout_ops::unsqueeze(c))),
    ("transpose", |c| tensor(layout_ops::transpose(c))),
    ("split", |c| array(layout_ops::split(c))),
    ("concat", |c| tensor(layout_ops::concat(c))),
    ("stack", |c| tensor(layout_ops::stack(c))),
    ("unstack", |c| array(layout_ops::unstack(c))),
    ("slice", |c| tensor(layout_ops::slice(c))),
    ("pad", |c| tensor(layout_ops::pad(c))),
    ("tile", |c| tensor(layout_ops::tile(c))),
    ("gather", |c| tensor(layout_ops::gather(c))),
    ("cast", |c| tensor(elementwise::unary(c, "input"))),
    // §4.6 region-of-interest operations
    ("avg_roi_pool", |c| tensor(roi::roi(c))),
    ("max_roi_pool", |c| tensor(roi::roi(c))),
    ("roi_resample", |c| tensor(roi::roi(c))),
    // §4.7 matrix multiplication
    ("matmul", |c| tensor(matrix::matmul(c))),
    // §4.8 variable updates
    ("update", |c| tensor(elementwise::update(c))),
];

fn rule(fragment: &str) -> Option<Rule> {
    RULES
        .iter()
        .find(|(name, _)| *name == fragment)
        .map(|(_, rule)| *rule)
}

/// Whether `fragment` is a primitive with a shape function here.
pub fn has_shape_function(fragment: &str) -> bool {
    rule(fragment).is_some()
}

/// The names of the primitives with a shape function, in the order of NNEF 1.0.5 chapter 4.
pub fn shape_function_names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|(name, _)| *name)
}

/// Result shapes of primitive `op` (one per declared result, in declaration order). `op.arguments` holds every
/// formal parameter (defaults filled in); `op.results` is empty. `shape_of` gives the shape of a tensor argument
/// value (Value::Tensor -> its shape; a literal standing for a tensor -> []). Errors are messages naming the
/// parameter and the rule broken (e.g. "conv: filter channels 3 * groups 1 != input channels 8"); the lead adds line:col.
///
/// Every message starts with `"<op>: "`. An operation without a shape function here (a
/// compound or unknown fragment) is an error too.
pub fn infer(
    op: &Operation,
    shape_of: &dyn Fn(&Value) -> Option<Vec<usize>>,
) -> Result<Vec<ResultShape>, String> {
    let rule = rule(&op.name).ok_or_else(|| {
        format!(
            "{}: no shape function (not a primitive of the standard library)",
            op.name
        )
    })?;
    rule(&Ctx::new(op, shape_of))
}

#[cfg(test)]
mod tests {
    use super::*;
    use testing::{op, t, tensor_shapes};

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = shape_function_names().collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
        assert!(has_shape_function("conv") && has_shape_function("split"));
        assert!(!has_shape_function("relu") && !has_shape_function("max_pool"));
    }

    #[test]
    fn unknown_and_malformed_operations_are_errors() {
        let shapes = tensor_shapes(&[("a", &[2, 3])]);
        assert!(infer(&op("relu", vec![("x", t("a"))]), &shapes)
            .unwrap_err()
            .starts_with("relu: no shape function"));
        assert_eq!(
            infer(&op("exp", vec![]), &shapes).unwrap_err(),
            "exp: missing argument 'x'"
        );
        assert_eq!(
            infer(&op("exp", vec![("x", t("nowhere"))]), &shapes).unwrap_err(),
            "exp: the shape of tensor 'nowhere' (argument 'x') is not known"
        );
        let err = infer(&op("exp", vec![("x", Value::Array(vec![t("a")]))]), &shapes).unwrap_err();
        assert!(err.contains("must be a single tensor"), "{err}");
        let err = infer(
            &op(
                "concat",
                vec![("values", t("a")), ("axis", Value::Integer(0))],
            ),
            &shapes,
        )
        .unwrap_err();
        assert!(err.contains("must be an array of tensors"), "{err}");
        let err = infer(
            &op(
                "squeeze",
                vec![("input", t("a")), ("axes", Value::Integer(0))],
            ),
            &shapes,
        )
        .unwrap_err();
        assert!(err.contains("'axes' must be an array of integers"), "{err}");
    }
}
