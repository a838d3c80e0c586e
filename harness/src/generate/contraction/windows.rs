//! Reduce (one or two operands, any set of dimensions), ReduceWindow (sizes, strides, padding,
//! base and window dilation) and SelectAndScatter.
//!
//! Reducers are drawn from those whose init value is an identity (seed 004, Reduce: "the init
//! values must form an identity under the computation") and whose result the harness can judge
//! in any order: add (the error bound of summation), maximum and minimum (exact), multiply (exact
//! on integers; on real floats the bound of a product in any order), and, or on integers and pred
//! (exact, order-free). Variadic reduce is argmax over distinct values.

use super::{add_inferred, binary_computation, call, small_bits};
use crate::generate::movement::{ints, Gen};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{HloComputation, Opcode, Window, WindowDimension};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// A reducer for `ty` and its identity (bits).
fn reducer(g: &mut Gen, ty: ElementType) -> Result<(HloComputation, u128), String> {
    let choices: &[Opcode] = if ty.is_pred() {
        &[Opcode::And, Opcode::Or]
    } else if ty.is_integer() {
        &[
            Opcode::Add,
            Opcode::Maximum,
            Opcode::Minimum,
            Opcode::Multiply,
        ]
    } else if ty.is_complex() {
        &[Opcode::Add]
    } else {
        // Products of real floats are judged in any order too (exactly rounded once, with the
        // allowance of reassociation: `exact_product.rs` in the reference).
        &[
            Opcode::Add,
            Opcode::Add,
            Opcode::Maximum,
            Opcode::Minimum,
            Opcode::Multiply,
        ]
    };
    let op = *g.rng.pick(choices);
    let identity = identity_bits(ty, op);
    let c = binary_computation("reducer", ty, op, None)?;
    Ok((call(g, c), identity))
}

/// The identity of `op` on `ty`: 0, 1, the lowest or highest value, true or false.
fn identity_bits(ty: ElementType, op: Opcode) -> u128 {
    match (op, ty.float_format(), ty.integer_range()) {
        (Opcode::Add | Opcode::Or, _, _) => 0,
        (Opcode::Multiply, _, _) => small_bits(ty, 1),
        (Opcode::And, _, _) => 1,
        (Opcode::Maximum, Some(f), _) => lowest(f),
        (Opcode::Minimum, Some(f), _) => lowest(f) ^ (1u128 << (f.bit_width() - 1)),
        (Opcode::Maximum, None, Some((lo, _))) => ty.integer_to_bits(lo).unwrap_or(0) as u128,
        (Opcode::Minimum, None, Some((_, hi))) => ty.integer_to_bits(hi).unwrap_or(0) as u128,
        _ => 0,
    }
}

/// −inf, or the lowest finite value of a format without infinities.
fn lowest(f: conformance_spec::FloatFormat) -> u128 {
    let v = if f.has_infinity() {
        f64::NEG_INFINITY
    } else {
        -f.max_finite()
    };
    f.encode(v) as u128
}

/// A scalar constant of `ty` with these bits.
fn scalar(g: &mut Gen, ty: ElementType, bits: u128) -> Result<usize, String> {
    let lit = Literal::Array(ArrayLiteral::scalar_bits(ty, bits));
    Ok(g.b.constant(lit))
}

/// Reduce over a random subset of dimensions (possibly none or all); one time in five over two
/// operands, an argmax (value, s32 index) pair of distinct values.
pub(super) fn reduce(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let reduced: Vec<i64> = (0..dims.len() as i64)
        .filter(|_| g.rng.chance(0.5))
        .collect();
    let attributes = vec![ints("dimensions", &reduced)];
    if !ty.is_pred() && !ty.is_complex() && g.rng.chance(0.2) {
        return argmax(g, ty, &dims, attributes);
    }
    let x = g.data(ty, &dims)?;
    let (c, identity) = reducer(g, ty)?;
    let init = scalar(g, ty, identity)?;
    let mut attributes = attributes;
    attributes.push(computation_attr("to_apply", &c));
    add_inferred(g, Opcode::Reduce, vec![x, init], attributes, None, Some(&c))
}

fn computation_attr(name: &str, c: &HloComputation) -> conformance_spec::hlo::Attribute {
    conformance_spec::hlo::Attribute {
        name: name.into(),
        value: conformance_spec::hlo::AttrValue::Computation(c.name.clone()),
    }
}

/// Seed 004's variadic example: `f(max, argmax, value, index) = value >= max ? (value, index) :
/// (max, argmax)` over distinct values and their s32 indices.
fn argmax(
    g: &mut Gen,
    ty: ElementType,
    dims: &[i64],
    mut attributes: Vec<conformance_spec::hlo::Attribute>,
) -> Result<usize, String> {
    let dims = fit(dims, distinct_limit(ty));
    let dims = dims.as_slice();
    let n: i64 = dims.iter().product();
    let bits = distinct_values(g, ty, n);
    let values = g.param_bits(ty, dims, &bits)?;
    let index_bits: Vec<u128> = (0..n).map(|i| small_bits(ElementType::S32, i)).collect();
    let indices = g.param_bits(ElementType::S32, dims, &index_bits)?;
    let mut b = ComputationBuilder::new("argmax");
    let v = Shape::array(ty, vec![]);
    let i = Shape::array(ElementType::S32, vec![]);
    let err = |e: conformance_spec::hlo::BuildError| e.to_string();
    let m = b.parameter(v.clone()).map_err(err)?;
    let mi = b.parameter(i.clone()).map_err(err)?;
    let x = b.parameter(v.clone()).map_err(err)?;
    let xi = b.parameter(i.clone()).map_err(err)?;
    let ge = b.compare(x, m, "GE", None).map_err(err)?;
    let nv = b.select(ge, x, m).map_err(err)?;
    let ni = b.select(ge, xi, mi).map_err(err)?;
    let root = b
        .add_instruction(
            Opcode::Tuple,
            Shape::Tuple(vec![v, i]),
            vec![nv, ni],
            vec![],
        )
        .map_err(err)?;
    let c = call(g, b.try_build(root).map_err(|e| e.to_string())?);
    let low = scalar(g, ty, identity_bits(ty, Opcode::Maximum))?;
    let none = scalar(g, ElementType::S32, small_bits(ElementType::S32, -1))?;
    attributes.push(computation_attr("to_apply", &c));
    add_inferred(
        g,
        Opcode::Reduce,
        vec![values, indices, low, none],
        attributes,
        None,
        Some(&c),
    )
}

/// How many distinct small integers `ty` holds exactly around 0 (8 for the f8 formats, whose
/// 2–3 mantissa bits hold the integers up to 8 exactly; 64 otherwise).
fn distinct_limit(ty: ElementType) -> i64 {
    if ty.bit_width() <= 8 && ty.is_float() {
        8
    } else {
        64
    }
}

/// `dims` with its largest dimensions halved until it has at most `limit` elements.
fn fit(dims: &[i64], limit: i64) -> Vec<i64> {
    let mut d = dims.to_vec();
    while d.iter().product::<i64>() > limit {
        if let Some(m) = d.iter_mut().max_by_key(|x| **x) {
            *m = (*m / 2).max(1);
        }
    }
    d
}

/// `n` distinct small integers of `ty` in random order: `0..n` for unsigned types, centred on 0
/// otherwise.
fn distinct_values(g: &mut Gen, ty: ElementType, n: i64) -> Vec<u128> {
    let shift = if ty.is_unsigned_integer() { 0 } else { n / 2 };
    g.rng
        .permutation(n as usize)
        .iter()
        .map(|&p| small_bits(ty, p - shift))
        .collect()
}

/// A window over `dims`: sizes 1–3, strides 1–3, padding 0–2, base and window dilation 1–2,
/// adjusted so that the padded, dilated base holds the dilated window.
fn window(g: &mut Gen, dims: &[i64], dilations: bool) -> Window {
    let mut w = Window::default();
    for &n in dims {
        let mut d = WindowDimension::new(g.rng.range_i64(1, 3));
        d.stride = g.rng.range_i64(1, 3);
        d.padding_low = g.rng.range_i64(0, 2);
        d.padding_high = g.rng.range_i64(0, 2);
        if dilations && g.rng.chance(0.25) {
            d.base_dilation = 2;
        }
        if dilations && g.rng.chance(0.25) {
            d.window_dilation = 2;
        }
        let base = if n == 0 {
            0
        } else {
            (n - 1) * d.base_dilation + 1
        };
        let window = (d.size - 1) * d.window_dilation + 1;
        let short = window - (base + d.padding_low + d.padding_high);
        if short > 0 {
            d.padding_high += short;
        }
        w.dimensions.push(d);
    }
    w
}

/// The window of a cumulative sum or product along one dimension, as `jnp.cumsum`/`cumprod` (and
/// `lax.associative_scan`'s fallback) lower it: the whole dimension as the window, stride 1,
/// padded low by its length − 1 (sometimes reversed: padded high); size 1 elsewhere. Long windows
/// that are mostly padding (issue 20: StableHLO's cumprod tests reached fast's differences there,
/// the random windows of [`window`] never did).
fn cumulative(g: &mut Gen, dims: &[i64]) -> Window {
    let axis = g.rng.below(dims.len() as u64) as usize;
    let reverse = g.rng.chance(0.25);
    let mut w = Window::default();
    for (k, &n) in dims.iter().enumerate() {
        let mut d = WindowDimension::new(1);
        if k == axis && n > 0 {
            d.size = n;
            if reverse {
                d.padding_high = n - 1;
            } else {
                d.padding_low = n - 1;
            }
        }
        w.dimensions.push(d);
    }
    w
}

/// ReduceWindow of one operand with a drawn window (a quarter of the time a cumulative one,
/// [`cumulative`]) and reducer.
pub(super) fn reduce_window(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let mut dims = g.dims(1);
    dims.truncate(3);
    let x = g.data(ty, &dims)?;
    let w = if !dims.is_empty() && g.rng.chance(0.25) {
        cumulative(g, &dims)
    } else {
        window(g, &dims, true)
    };
    let (c, identity) = reducer(g, ty)?;
    let init = scalar(g, ty, identity)?;
    let attributes = vec![w.to_attribute(), computation_attr("to_apply", &c)];
    add_inferred(
        g,
        Opcode::ReduceWindow,
        vec![x, init],
        attributes,
        None,
        Some(&c),
    )
}

/// SelectAndScatter: `select` GE or LE over distinct operand values (so the selected element
/// does not depend on the scan order), `scatter` add from an identity init (0). Over PRED, whose
/// two values cannot be distinct, the operand is random and ties select the first element in
/// row-major scan order (as XLA does); `scatter` is `or` from `false`.
pub(super) fn select_and_scatter(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    if ty.is_complex() {
        return Err(format!(
            "select-and-scatter: {ty} has no order to select by"
        ));
    }
    let mut dims = g.dims(1);
    dims.truncate(2);
    let dims = fit(&dims, distinct_limit(ty));
    let x = if ty.is_pred() {
        g.data(ty, &dims)?
    } else {
        let n: i64 = dims.iter().product();
        let bits = distinct_values(g, ty, n);
        g.param_bits(ty, &dims, &bits)?
    };
    let w = window(g, &dims, false);
    // The source has the shape of the reduce-window result.
    let out: Vec<i64> = dims
        .iter()
        .zip(&w.dimensions)
        .map(|(&n, d)| {
            let padded = n + d.padding_low + d.padding_high;
            ((padded - d.size) / d.stride + 1).max(0)
        })
        .collect();
    let source = g.data(ty, &out)?;
    let direction = *g.rng.pick(&["GE", "LE"]);
    let select = call(
        g,
        binary_computation("select", ty, Opcode::Compare, Some(direction))?,
    );
    let combine = if ty.is_pred() {
        Opcode::Or
    } else {
        Opcode::Add
    };
    let scatter = call(g, binary_computation("scatter", ty, combine, None)?);
    let init = scalar(g, ty, 0)?;
    let attributes = vec![
        w.to_attribute(),
        computation_attr("select", &select),
        computation_attr("scatter", &scatter),
    ];
    let shape = Shape::Array(ArrayShape::new(ty, dims.clone()));
    g.add(
        Opcode::SelectAndScatter,
        shape,
        vec![x, source, init],
        attributes,
    )
}
