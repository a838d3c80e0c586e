//! Backends that flush subnormals (DESIGN.md, "Comparison"; issue 7): XLA's CPU backend flushes
//! subnormal results to zero and reads subnormal inputs as zero (FTZ/DAZ), e.g. `exp(-88f)` gives
//! 0 instead of 6.0546e-39 and `log(1e-40f)` gives -inf.
//!
//! Such a backend is not drowned in one ULP failure per element: for a backend whose capabilities
//! say [`SubnormalMode::Flush`], every element may match any of the results that flushing allows —
//! the exact result, the exact result with subnormals flushed to zero, and the same two for the
//! inputs with their subnormals read as zero — each within the entry's budget. Elements that pass
//! only that way are counted ([`crate::compare::Comparison::flushed_subnormals`]) and reported as
//! the class "flushes subnormals"; the rest of the result is checked as usual.

use crate::compare::{compare, Allowance, Budget, Comparison};
use conformance_spec::element_type::{ElementType, FloatClass};
use conformance_spec::hlo::ir::HloModule;
use conformance_spec::literal::{complex_bits, complex_parts, ArrayLiteral, Literal};
use conformance_spec::{Backend, Capabilities};

/// `bits` of `ty` with a subnormal value (or complex component) replaced by the zero of its sign.
pub fn flush_element(ty: ElementType, bits: u128) -> u128 {
    let Some(f) = ty.float_format() else {
        return bits;
    };
    let flush = |b: u64| {
        if f.classify(b) == FloatClass::Subnormal {
            if f.sign_bit(b) {
                f.negative_zero_bits()
            } else {
                0
            }
        } else {
            b
        }
    };
    if ty.is_complex() {
        let (re, im) = complex_parts(f, bits);
        complex_bits(f, flush(re), flush(im))
    } else {
        u128::from(flush(bits as u64))
    }
}

/// The array with every subnormal element flushed; `None` when it has none or `flushes` says
/// its element type keeps them.
fn flush_array(a: &ArrayLiteral, flushes: &dyn Fn(ElementType) -> bool) -> Option<ArrayLiteral> {
    let ty = a.element_type();
    ty.float_format()?;
    if !flushes(ty) {
        return None;
    }
    let bits = a.logical_bits();
    let flushed: Vec<u128> = bits.iter().map(|&b| flush_element(ty, b)).collect();
    if flushed == bits {
        return None;
    }
    let mut logical = a.shape().clone();
    logical.layout = conformance_spec::layout::Layout::default_for_rank(logical.rank());
    ArrayLiteral::from_bits(logical, &flushed)
        .ok()
        .map(|l| l.relayout(a.shape().layout.clone()))
}

/// The literal with every subnormal of an element type that `flushes` flushed (`None` when
/// nothing changes).
pub fn flush_literal(l: &Literal, flushes: &dyn Fn(ElementType) -> bool) -> Option<Literal> {
    match l {
        Literal::Array(a) => flush_array(a, flushes).map(Literal::Array),
        Literal::Tuple(parts) => {
            let flushed: Vec<Option<Literal>> =
                parts.iter().map(|p| flush_literal(p, flushes)).collect();
            if flushed.iter().all(Option::is_none) {
                return None;
            }
            Some(Literal::Tuple(
                flushed
                    .into_iter()
                    .zip(parts)
                    .map(|(f, p)| f.unwrap_or_else(|| p.clone()))
                    .collect(),
            ))
        }
        Literal::Token => None,
    }
}

/// The allowances with, at every element compared against the budget alone, the values the
/// alternatives hold there (when any differs from the expected one).
fn with_alternatives(
    expected: &Literal,
    alternatives: &[Literal],
    allowances: &[Vec<Allowance>],
) -> Vec<Vec<Allowance>> {
    let e_leaves = expected.array_leaves();
    let alt_leaves: Vec<Vec<&ArrayLiteral>> =
        alternatives.iter().map(Literal::array_leaves).collect();
    e_leaves
        .iter()
        .enumerate()
        .map(|(leaf, e)| {
            let ty = e.element_type();
            let e_bits = e.logical_bits();
            let alt_bits: Vec<Vec<u128>> = alt_leaves
                .iter()
                .filter_map(|l| l.get(leaf))
                .filter(|a| a.dimensions() == e.dimensions() && a.element_type() == ty)
                .map(|a| a.logical_bits())
                .collect();
            e_bits
                .iter()
                .enumerate()
                .map(|(k, &eb)| {
                    let given = allowances
                        .get(leaf)
                        .and_then(|l| l.get(k))
                        .cloned()
                        .unwrap_or_default();
                    if given != Allowance::Budget {
                        return given;
                    }
                    let mut values = vec![eb];
                    for a in &alt_bits {
                        if !values.contains(&a[k]) {
                            values.push(a[k]);
                        }
                    }
                    if values.len() == 1 {
                        Allowance::Budget
                    } else {
                        Allowance::AnyOf(values.into())
                    }
                })
                .collect()
        })
        .collect()
}

/// Adds `extra` to the bound of a [`Allowance::Within`], also under [`Allowance::OrNan`].
fn widen_within(a: &mut Allowance, extra: f64) {
    match a {
        Allowance::Within(bits) => *a = Allowance::within(f64::from_bits(*bits) + extra),
        Allowance::OrNan(inner) => widen_within(inner, extra),
        _ => {}
    }
}

/// |x − y| for two elements of a float type (the larger component distance for complex; 0 when
/// either is not finite or the type is not a float type).
fn magnitude_between(ty: ElementType, x: u128, y: u128) -> f64 {
    let Some(f) = ty.float_format() else {
        return 0.0;
    };
    let d = |a: u64, b: u64| {
        let v = (f.decode(a) - f.decode(b)).abs();
        if v.is_finite() {
            v
        } else {
            0.0
        }
    };
    if ty.is_complex() {
        let ((xr, xi), (yr, yi)) = (complex_parts(f, x), complex_parts(f, y));
        d(xr, yr).max(d(xi, yi))
    } else {
        d(x as u64, y as u64)
    }
}

fn differing(c: &Comparison) -> usize {
    c.classes.values().sum()
}

/// True when `bits` of `ty` is subnormal (or has a subnormal complex component) and `flushes`
/// says `ty` flushes.
fn is_subnormal(ty: ElementType, bits: u128, flushes: &dyn Fn(ElementType) -> bool) -> bool {
    flush_element(ty, bits) != bits && flushes(ty)
}

/// Per element of an array root, whether the element-wise root reads a subnormal operand
/// element there or the exact result is subnormal: such elements are set aside (not compared).
fn subnormal_range(
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
    expected: &ArrayLiteral,
    elementwise: bool,
    flushes: &dyn Fn(ElementType) -> bool,
) -> Vec<bool> {
    let ty = expected.element_type();
    let mut out: Vec<bool> = expected
        .logical_bits()
        .iter()
        .map(|&b| is_subnormal(ty, b, flushes))
        .collect();
    if !elementwise {
        return out;
    }
    let Some(operands) = crate::check::root_operands(module, args, reference) else {
        return out;
    };
    let dims = expected.dimensions();
    let mut k = 0;
    conformance_spec::index::for_each_index(dims, |idx| {
        if operands.iter().any(|a| {
            crate::check::operand_bits_at(a, dims, idx)
                .is_some_and(|b| is_subnormal(a.element_type(), b, flushes))
        }) {
            out[k] = true;
        }
        k += 1;
    });
    out
}

/// The comparison of a flushing backend's result `got` (see the module docs): `first` (the plain
/// comparison) when flushing explains nothing, otherwise the comparison with
/// - every element allowed any of the flushing alternatives (exact result flushed; result of the
///   inputs read as zero, and that flushed), each within the budget;
/// - for an array root, elements in the subnormal range set aside: the exact result subnormal,
///   or (`elementwise` roots) a subnormal operand element at that index;
/// - sums compared within an error bound ([`Allowance::Within`]) allowed `2·n` times the
///   smallest normal of the flushing format more for `n` terms (flushing each product and each
///   partial sum changes it by less than that; [`Capabilities::flushing_min_normal`]: an f16 sum
///   computed in f32 moves by f32's smallest normal, not f16's), plus how far reading the
///   subnormal inputs as zero moves the exact sum;
///
/// only in the element types `caps` flushes ([`Capabilities::flushes`]), with
/// [`Comparison::flushed_subnormals`] set to the number of differing elements this explains.
/// `reference` evaluates the module on the inputs with subnormals read as zero.
#[allow(clippy::too_many_arguments)]
pub fn recompare_flushing(
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
    caps: &Capabilities,
    elementwise: bool,
    expected: &Literal,
    got: &Literal,
    budget: &Budget,
    allowances: &[Vec<Allowance>],
    first: Comparison,
) -> Comparison {
    let flushes = |ty: ElementType| caps.flushes(ty);
    let mut alternatives = Vec::new();
    if let Some(e) = flush_literal(expected, &flushes) {
        alternatives.push(e);
    }
    let mut daz_expected: Option<Literal> = None;
    let daz: Vec<Option<Literal>> = args.iter().map(|a| flush_literal(a, &flushes)).collect();
    if daz.iter().any(Option::is_some) {
        let inputs: Vec<Literal> = daz
            .into_iter()
            .zip(args)
            .map(|(d, a)| d.unwrap_or_else(|| a.clone()))
            .collect();
        if let Ok(e) = reference.execute(module, &inputs) {
            if let Some(f) = flush_literal(&e, &flushes) {
                alternatives.push(f);
            }
            daz_expected = Some(e.clone());
            alternatives.push(e);
        }
    }
    let mut widened = with_alternatives(expected, &alternatives, allowances);
    // An array result, or the devices' results of a module of several devices
    // (docs/collectives.md), leaf by leaf; other tuple results are judged by the alternatives
    // alone.
    let devices = conformance_spec::collective::DeviceGrid::of(module).map_or(1, |g| g.devices());
    let leaves = match expected {
        Literal::Array(_) => expected.array_leaves(),
        Literal::Tuple(_) if devices > 1 => expected.array_leaves(),
        _ => vec![],
    };
    let daz_leaves: Vec<&ArrayLiteral> = daz_expected
        .as_ref()
        .map(Literal::array_leaves)
        .unwrap_or_default();
    if widened.is_empty() && !leaves.is_empty() {
        widened = leaves
            .iter()
            .map(|e| vec![Allowance::Budget; e.shape().element_count()])
            .collect();
    }
    let needs_terms = widened
        .iter()
        .flatten()
        .any(|a| matches!(a, Allowance::Within(_) | Allowance::OrNan(_)));
    let terms = needs_terms
        .then(|| {
            conformance_reference::accumulation_bounds(module, args)
                .ok()
                .flatten()
        })
        .flatten();
    for (leaf, e) in leaves.iter().enumerate() {
        let Some(widened) = widened.get_mut(leaf) else {
            break;
        };
        // Which inputs feed an element is known for a single array result only.
        let aside = subnormal_range(
            module,
            args,
            reference,
            e,
            elementwise && leaves.len() == 1,
            &flushes,
        );
        let ty = e.element_type();
        let min_normal = caps.flushing_min_normal(ty);
        // How far reading subnormal inputs as zero moves each element (terms with a subnormal
        // factor vanish).
        let moved: Vec<f64> = match daz_leaves.get(leaf) {
            Some(d) if d.dimensions() == e.dimensions() => e
                .logical_bits()
                .iter()
                .zip(d.logical_bits())
                .map(|(&x, y)| magnitude_between(ty, x, y))
                .collect(),
            _ => vec![],
        };
        for (k, a) in widened.iter_mut().enumerate() {
            if aside.get(k).copied().unwrap_or(false) {
                *a = Allowance::Masked;
            } else if let Some(t) = &terms {
                let n = t.get(leaf).and_then(|l| l.get(k)).map_or(0, |b| b.terms);
                let extra = 2.0 * n as f64 * min_normal + moved.get(k).copied().unwrap_or(0.0);
                widen_within(a, extra);
            }
        }
    }
    if alternatives.is_empty() && widened == allowances {
        return first;
    }
    let mut second = compare(expected, got, budget, &widened);
    let explained = differing(&first).saturating_sub(differing(&second));
    if explained == 0 {
        return first;
    }
    second.flushed_subnormals = explained as u64;
    second.masked = first.masked;
    second.max_ulps = second.max_ulps.min(first.max_ulps);
    second
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::shape::ArrayShape;
    use conformance_spec::SubnormalMode;

    /// The capabilities of a backend flushing the subnormals of `types` (every float type when
    /// empty).
    fn flushing(types: &[ElementType]) -> Capabilities {
        Capabilities {
            subnormals: SubnormalMode::Flush,
            subnormals_flushed_in: types.to_vec(),
            ..conformance_reference::Reference.capabilities()
        }
    }

    #[test]
    fn the_flushing_format_is_the_type_or_f32_for_narrower_types_computed_in_it() {
        let f32_only = flushing(&[ElementType::F32]);
        assert!(f32_only.flushes(ElementType::F32));
        assert!(f32_only.flushes(ElementType::C64));
        assert!(!f32_only.flushes(ElementType::F16));
        assert!(!f32_only.flushes(ElementType::F64));
        assert!(!f32_only.flushes(ElementType::S32));
        // An f16 sum computed in f32: moved by f32's smallest normal (2^-126), not f16's (2^-14).
        assert_eq!(
            f32_only.flushing_min_normal(ElementType::F16),
            2f64.powi(-126)
        );
        assert_eq!(f32_only.flushing_min_normal(ElementType::F64), 0.0);
        let every = flushing(&[]);
        assert_eq!(every.flushing_min_normal(ElementType::F16), 2f64.powi(-14));
        assert_eq!(
            every.flushing_min_normal(ElementType::F64),
            2f64.powi(-1022)
        );
        let preserving = conformance_reference::Reference.capabilities();
        assert!(!preserving.flushes(ElementType::F32));
        assert_eq!(preserving.flushing_min_normal(ElementType::F16), 0.0);
    }

    #[test]
    fn subnormals_of_a_type_the_backend_keeps_are_not_explained_by_flushing() {
        let budget = Budget::default();
        let f16 = |bits: &[u128]| {
            let shape = ArrayShape::new(ElementType::F16, vec![bits.len() as i64]);
            Literal::Array(ArrayLiteral::from_bits(shape, bits).unwrap())
        };
        // 2^-20 (an f16 subnormal, 16 × 2^-24) and 1.0.
        let (sub, one) = (0x0010, 0x3c00);
        let expected = f16(&[sub, one]);
        let got = f16(&[0, one]);
        let module = conformance_spec::hlo::parse_module(
            "HloModule m\nENTRY e { p = f16[2] parameter(0)\n ROOT c = f16[2] copy(p) }",
        )
        .unwrap();
        let reference = conformance_reference::Reference;
        let first = compare(&expected, &got, &budget, &[]);
        let run = |caps: &Capabilities| {
            recompare_flushing(
                &module,
                std::slice::from_ref(&expected),
                &reference,
                caps,
                true,
                &expected,
                &got,
                &budget,
                &[],
                first.clone(),
            )
        };
        assert_eq!(differing(&run(&flushing(&[ElementType::F32]))), 1);
        assert_eq!(run(&flushing(&[ElementType::F16])).flushed_subnormals, 1);
    }

    fn f32s(values: &[f32]) -> Literal {
        let shape = ArrayShape::new(ElementType::F32, vec![values.len() as i64]);
        let bits: Vec<u128> = values.iter().map(|v| u128::from(v.to_bits())).collect();
        Literal::Array(ArrayLiteral::from_bits(shape, &bits).unwrap())
    }

    #[test]
    fn subnormals_flush_to_the_zero_of_their_sign() {
        let ty = ElementType::F32;
        let sub = f32::from_bits(1);
        assert_eq!(flush_element(ty, u128::from(sub.to_bits())), 0);
        assert_eq!(
            flush_element(ty, u128::from((-sub).to_bits())),
            u128::from((-0f32).to_bits())
        );
        assert_eq!(
            flush_element(ty, u128::from(1f32.to_bits())),
            u128::from(1f32.to_bits())
        );
        assert_eq!(flush_element(ElementType::S32, 1), 1);
        let every = |_: ElementType| true;
        assert!(flush_literal(&f32s(&[1.0, 2.0]), &every).is_none());
        let flushed = flush_literal(&f32s(&[1.0, sub]), &every).unwrap();
        assert!(flushed.logical_eq(&f32s(&[1.0, 0.0])));
        // A type the backend keeps subnormals in is left alone.
        assert!(flush_literal(&f32s(&[1.0, sub]), &|t| t != ElementType::F32).is_none());
    }

    #[test]
    fn flushed_elements_are_counted_and_the_rest_still_checked() {
        let budget = Budget::default();
        let sub = f32::from_bits(0x0042_0000);
        let expected = f32s(&[sub, 1.0, 2.0]);
        // Flushes the subnormal, gets 1.0 right, 2.0 wrong.
        let got = f32s(&[0.0, 1.0, 3.0]);
        let first = compare(&expected, &got, &budget, &[]);
        assert_eq!(differing(&first), 2);
        let module = conformance_spec::hlo::parse_module(
            "HloModule m\nENTRY e { p = f32[3] parameter(0)\n ROOT c = f32[3] copy(p) }",
        )
        .unwrap();
        let reference = conformance_reference::Reference;
        let c = recompare_flushing(
            &module,
            std::slice::from_ref(&expected),
            &reference,
            &flushing(&[]),
            true,
            &expected,
            &got,
            &budget,
            &[],
            first,
        );
        assert_eq!(c.flushed_subnormals, 1);
        assert_eq!(differing(&c), 1, "the wrong 3.0 is still a failure");
        // A backend that flushes nothing has nothing explained.
        let right = f32s(&[sub, 1.0, 3.0]);
        let plain = compare(&expected, &right, &budget, &[]);
        let c = recompare_flushing(
            &module,
            std::slice::from_ref(&expected),
            &reference,
            &flushing(&[]),
            true,
            &expected,
            &right,
            &budget,
            &[],
            plain,
        );
        assert_eq!(c.flushed_subnormals, 0);
    }
}
