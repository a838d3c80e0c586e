//! The order set of `sort` (catalog `tolerance.order_set: sort-equivalents`; seed 004, Sort):
//! the results the semantics accept, and the one nearest to a backend's.
//!
//! Per segment (the elements sharing every index but the sorted dimension's), with the
//! comparator evaluated exactly by the reference ([`Comparator`]):
//! - a **strict weak order** on the segment's tuples makes the sorted result unique up to the
//!   order of equivalent tuples (neither less than the other). With `is_stable=true` that order
//!   is the input order, so the result is unique; with `is_stable=false` each run of equivalent
//!   tuples may come in any order: where the backend's run holds the same tuples as the
//!   reference's, the backend's order of them is taken as expected;
//! - a comparator that is **not** a strict weak order on the data (IEEE `<` meeting a NaN, or a
//!   comparator that is not transitive) leaves the order to the implementation: any permutation
//!   of the input tuples is accepted.
//!
//! What is not accepted stays as the reference's (stable) result, so the comparison shows the
//! first tuple out of place. For a backend that flushes subnormals (XLA's CPU backend compares
//! with subnormal inputs read as zero) a segment not explained by the exact comparator is tried
//! again with the comparator's inputs flushed; the elements explained only so are counted as
//! flushed subnormals.

use super::subnormals::flush_element;
use conformance_reference::control_flow::sort::{
    segments, sort_dimension, stable_order, Comparator,
};
use conformance_spec::hlo::{AttrValue, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::{BackendError, ElementType};

/// The comparator as a predicate on two tuples (true: the first goes before the second).
type Less<'a> = dyn Fn(&[u128], &[u128]) -> Result<bool, BackendError> + 'a;

/// Segments of at most this many tuples are checked for a strict weak order pair by pair
/// (n² comparator evaluations); longer ones are taken as strict weak orders.
pub const MAX_PAIRWISE: usize = 128;

/// The member of the root sort's result set nearest to `got`, and the number of elements
/// explained only with the comparator's inputs flushed (when `flushing`). `operands` are the
/// sort's operand values. Returns `expected` unchanged when the root is not a `sort`, `got` does
/// not have its shape, or the comparator cannot be evaluated.
pub fn nearest_sort(
    module: &HloModule,
    operands: &[&ArrayLiteral],
    expected: &Literal,
    got: &Literal,
    flushing: bool,
) -> (Literal, u64) {
    match rematch(module, operands, expected, got, flushing) {
        Ok(Some(r)) => r,
        _ => (expected.clone(), 0),
    }
}

/// The arrays of a sort result (one array, or a tuple of them).
fn parts(l: &Literal) -> Option<Vec<&ArrayLiteral>> {
    match l {
        Literal::Array(a) => Some(vec![a]),
        Literal::Tuple(items) => items.iter().map(Literal::as_array).collect(),
        Literal::Token => None,
    }
}

fn rematch(
    module: &HloModule,
    operands: &[&ArrayLiteral],
    expected: &Literal,
    got: &Literal,
    flushing: bool,
) -> Result<Option<(Literal, u64)>, BackendError> {
    let root = module.entry_computation().root_instruction();
    if root.opcode != Opcode::Sort {
        return Ok(None);
    }
    let Some(AttrValue::Computation(name)) = root.attribute("to_apply") else {
        return Ok(None);
    };
    let (Some(exp), Some(gp)) = (parts(expected), parts(got)) else {
        return Ok(None);
    };
    if exp.len() != operands.len()
        || gp.len() != operands.len()
        || gp
            .iter()
            .zip(&exp)
            .any(|(g, e)| g.dimensions() != e.dimensions() || g.element_type() != e.element_type())
    {
        return Ok(None);
    }
    let types: Vec<ElementType> = operands.iter().map(|a| a.element_type()).collect();
    let comparator = Comparator::new(module, name, &types)?;
    let stable = root.attr_bool("is_stable").unwrap_or(false);
    let dims = operands[0].dimensions().to_vec();
    let d = sort_dimension(root, dims.len())?;
    let mut out: Vec<ArrayLiteral> = exp.iter().map(|a| (*a).clone()).collect();
    let mut flushed = 0u64;
    for segment in segments(&dims, d) {
        let read = |arrays: &[&ArrayLiteral]| -> Vec<Vec<u128>> {
            segment
                .iter()
                .map(|i| arrays.iter().map(|a| a.get_bits(i)).collect())
                .collect()
        };
        let input = read(operands);
        let reference = read(&exp);
        let backend = read(&gp);
        let exact = |t: &[u128]| t.to_vec();
        let accepted = match accepted_segment(
            &comparator,
            &types,
            stable,
            &input,
            &reference,
            &backend,
            &exact,
        )? {
            Some(s) => Some(s),
            None if flushing => {
                let flush = |t: &[u128]| -> Vec<u128> {
                    t.iter()
                        .zip(&types)
                        .map(|(&b, &ty)| flush_element(ty, b))
                        .collect()
                };
                // The reference's order under the flushing comparator.
                let order = stable_order(input.len(), &mut |i, j| {
                    comparator.less(&flush(&input[i]), &flush(&input[j]))
                })?;
                let flushed_reference: Vec<Vec<u128>> =
                    order.iter().map(|&k| input[k].clone()).collect();
                let s = accepted_segment(
                    &comparator,
                    &types,
                    stable,
                    &input,
                    &flushed_reference,
                    &backend,
                    &flush,
                )?;
                if s.as_ref()
                    .is_some_and(|s| *s == backend && backend != reference)
                {
                    flushed += (segment.len() * operands.len()) as u64;
                }
                s
            }
            None => None,
        };
        if let Some(tuples) = accepted {
            for (p, index) in segment.iter().enumerate() {
                for (k, a) in out.iter_mut().enumerate() {
                    a.set_bits(index, tuples[p][k]);
                }
            }
        }
    }
    let result = if out.len() == 1 && matches!(expected, Literal::Array(_)) {
        Literal::Array(out.pop().expect("one part"))
    } else {
        Literal::Tuple(out.into_iter().map(Literal::Array).collect())
    };
    Ok(Some((result, flushed)))
}

/// The accepted segment nearest to `backend`'s: the backend's own when the semantics accept it,
/// else `None` (the caller keeps the reference's). `reference` is the reference's stable order
/// of `input` under the comparator applied to `view` of each tuple.
#[allow(clippy::too_many_arguments)]
fn accepted_segment(
    comparator: &Comparator,
    types: &[ElementType],
    stable: bool,
    input: &[Vec<u128>],
    reference: &[Vec<u128>],
    backend: &[Vec<u128>],
    view: &dyn Fn(&[u128]) -> Vec<u128>,
) -> Result<Option<Vec<Vec<u128>>>, BackendError> {
    if let Some(s) = accepted_ordered(comparator, types, stable, input, reference, backend, view)? {
        return Ok(Some(s));
    }
    // Where NaNs stand in the order is left to the implementation (as for `compare` in the
    // total order: the catalog's `totalorder-nan-order`): the tuples holding a NaN the
    // comparator reads may stand anywhere, their bits unchanged; the others must be ordered
    // among themselves. A NaN in an operand the comparator does not read decides nothing: its
    // tuple keeps the place its keys give it.
    let has_nan = |t: &Vec<u128>| {
        t.iter()
            .zip(types)
            .enumerate()
            .any(|(k, (&b, &ty))| comparator.reads(k) && is_nan(ty, b))
    };
    if !input.iter().any(has_nan) {
        return Ok(None);
    }
    let split = |v: &[Vec<u128>]| -> (Vec<Vec<u128>>, Vec<Vec<u128>>) {
        v.iter().cloned().partition(|t| has_nan(t))
    };
    let (_, backend_rest) = split(backend);
    let (input_nans, input_rest) = split(input);
    let (_, reference_rest) = split(reference);
    // Each tuple of the backend's that holds a NaN is matched to an input tuple equal to it with
    // every NaN taken as any NaN; the expected tuple is the input's, so a NaN whose sign or
    // payload changed still shows (class `nan`).
    let any_nan = |t: &Vec<u128>| -> Vec<u128> {
        t.iter()
            .zip(types)
            .map(|(&b, &ty)| if is_nan(ty, b) { u128::MAX } else { b })
            .collect()
    };
    let mut unmatched: Vec<Option<&Vec<u128>>> = input_nans.iter().map(Some).collect();
    let mut result = Vec::with_capacity(backend.len());
    for t in backend {
        if !has_nan(t) {
            result.push(t.clone());
            continue;
        }
        let key = any_nan(t);
        let Some(slot) = unmatched
            .iter_mut()
            .find(|u| u.is_some_and(|u| any_nan(u) == key))
        else {
            return Ok(None);
        };
        result.push(slot.take().expect("found unmatched").clone());
    }
    if unmatched.iter().any(Option::is_some) {
        return Ok(None);
    }
    // A comparator that is not a strict weak order once the NaNs are in (IEEE `<`) leaves the
    // whole order to the implementation: the NaN-free tuples need only be a permutation.
    let less = |a: &[u128], b: &[u128]| comparator.less(&view(a), &view(b));
    if !is_strict_weak_order(reference, &less)? {
        return Ok(is_permutation(&input_rest, &backend_rest, types).then_some(result));
    }
    let rest = accepted_ordered(
        comparator,
        types,
        stable,
        &input_rest,
        &reference_rest,
        &backend_rest,
        view,
    )?;
    Ok(rest.map(|_| result))
}

/// Whether `bits` of `ty` is a NaN.
fn is_nan(ty: ElementType, bits: u128) -> bool {
    ty.float_format()
        .filter(|_| ty.is_float())
        .is_some_and(|f| f.classify(bits as u64) == conformance_spec::FloatClass::Nan)
}

/// [`accepted_segment`] without the freedom of NaN places.
#[allow(clippy::too_many_arguments)]
fn accepted_ordered(
    comparator: &Comparator,
    types: &[ElementType],
    stable: bool,
    input: &[Vec<u128>],
    reference: &[Vec<u128>],
    backend: &[Vec<u128>],
    view: &dyn Fn(&[u128]) -> Vec<u128>,
) -> Result<Option<Vec<Vec<u128>>>, BackendError> {
    if backend == reference {
        return Ok(Some(backend.to_vec()));
    }
    let less = |a: &[u128], b: &[u128]| comparator.less(&view(a), &view(b));
    if !is_strict_weak_order(reference, &less)? {
        // Implementation-defined order: any permutation of the input tuples.
        return Ok(is_permutation(input, backend, types).then(|| backend.to_vec()));
    }
    if stable {
        return Ok(None);
    }
    // Runs of equivalent tuples in the reference's order; the backend's run at the same
    // positions must hold the same tuples.
    let mut start = 0;
    while start < reference.len() {
        let mut end = start + 1;
        while end < reference.len()
            && !less(&reference[end - 1], &reference[end])?
            && !less(&reference[end], &reference[end - 1])?
        {
            end += 1;
        }
        if !is_permutation(&reference[start..end], &backend[start..end], types) {
            return Ok(None);
        }
        start = end;
    }
    Ok(Some(backend.to_vec()))
}

/// Whether `less` is a strict weak order on the tuples of `sorted` (the reference's stable
/// order): no tuple is less than itself, runs of adjacent equivalent tuples are equivalent
/// throughout, and every tuple of an earlier run is less than every tuple of a later one. Checked
/// pair by pair up to [`MAX_PAIRWISE`] tuples; for longer segments only adjacent pairs (no later
/// tuple less than an earlier neighbour, and irreflexivity).
fn is_strict_weak_order(sorted: &[Vec<u128>], less: &Less) -> Result<bool, BackendError> {
    for t in sorted {
        if less(t, t)? {
            return Ok(false);
        }
    }
    let n = sorted.len();
    if n > MAX_PAIRWISE {
        for w in sorted.windows(2) {
            if less(&w[1], &w[0])? {
                return Ok(false);
            }
        }
        return Ok(true);
    }
    // Run of each position: adjacent equivalent tuples share a run.
    let mut run = vec![0usize; n];
    for i in 1..n {
        let equivalent = !less(&sorted[i - 1], &sorted[i])? && !less(&sorted[i], &sorted[i - 1])?;
        run[i] = run[i - 1] + usize::from(!equivalent);
    }
    for i in 0..n {
        for j in i + 1..n {
            let (ij, ji) = (less(&sorted[i], &sorted[j])?, less(&sorted[j], &sorted[i])?);
            let ok = if run[i] == run[j] {
                !ij && !ji
            } else {
                ij && !ji
            };
            if !ok {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether `b` holds the same tuples as `a` (as a multiset), NaNs of one sign matching whatever
/// their payload (a backend that changes a NaN's payload is shown as such, class `nan`, by the
/// comparison that follows, not as a tuple out of place).
fn is_permutation(a: &[Vec<u128>], b: &[Vec<u128>], types: &[ElementType]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let canonical = |t: &Vec<u128>| -> Vec<u128> {
        t.iter()
            .zip(types)
            .map(
                |(&bits, &ty)| match ty.float_format().filter(|_| ty.is_float()) {
                    Some(f) if f.classify(bits as u64) == conformance_spec::FloatClass::Nan => {
                        u128::from(f.sign_bit(bits as u64)) | (1 << 127)
                    }
                    _ => bits,
                },
            )
            .collect()
    };
    let mut x: Vec<Vec<u128>> = a.iter().map(canonical).collect();
    let mut y: Vec<Vec<u128>> = b.iter().map(canonical).collect();
    x.sort_unstable();
    y.sort_unstable();
    x == y
}

/// The member of the root topk's result set nearest to `got` (catalog `order_set:
/// topk-nan-order`): per row, `got`'s indices with the operand's elements there when every
/// (value, index) pair is the operand's element at that index (a NaN's payload aside), the
/// indices differ, and the elements that are not NaN are the first ones of the
/// row in topk's order (seed 004's total order, ties to the lower index), in that order; NaNs
/// may stand anywhere (their place in the order is left to the implementation). Otherwise the
/// reference's row. `operand` is the topk's operand value.
pub fn nearest_topk(
    module: &HloModule,
    operand: &ArrayLiteral,
    expected: &Literal,
    got: &Literal,
) -> Literal {
    use conformance_reference::control_flow::topk::{order_key, select};
    let root = module.entry_computation().root_instruction();
    let (Some(exp), Some(gp)) = (parts(expected), parts(got)) else {
        return expected.clone();
    };
    if root.opcode != Opcode::TopK
        || exp.len() != 2
        || gp.len() != 2
        || gp[0].dimensions() != exp[0].dimensions()
        || gp[1].element_type() != ElementType::S32
        || gp[0].element_type() != exp[0].element_type()
    {
        return expected.clone();
    }
    let largest = root.attr_bool("largest").unwrap_or(true);
    let ty = operand.element_type();
    let dims = operand.dimensions().to_vec();
    let rank = dims.len();
    if rank == 0 {
        return expected.clone();
    }
    let k = exp[0].dimensions().last().copied().unwrap_or(0) as usize;
    let mut out: Vec<ArrayLiteral> = exp.iter().map(|a| (*a).clone()).collect();
    for row in segments(&dims, rank - 1) {
        let bits: Vec<u128> = row.iter().map(|i| operand.get_bits(i)).collect();
        let at = |p: usize| {
            let mut i = row[0].clone();
            i[rank - 1] = p as i64;
            i
        };
        let values: Vec<u128> = (0..k).map(|p| gp[0].get_bits(&at(p))).collect();
        let indices: Vec<i64> = (0..k)
            .map(|p| gp[1].get_bits(&at(p)) as u32 as i32 as i64)
            .collect();
        let pairs_ok = indices.iter().zip(&values).all(|(&i, &v)| {
            usize::try_from(i)
                .ok()
                .and_then(|i| bits.get(i))
                // A NaN's payload may have changed: the comparison shows that as class `nan`.
                .is_some_and(|&b| b == v || (is_nan(ty, b) && is_nan(ty, v)))
        });
        let mut distinct = indices.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if !pairs_ok || distinct.len() != indices.len() {
            continue;
        }
        // The row's elements that are not NaN, in topk's order.
        let rest: Vec<usize> = (0..bits.len()).filter(|&i| !is_nan(ty, bits[i])).collect();
        let keys: Vec<i128> = rest
            .iter()
            .map(|&i| order_key(ty, bits[i]).unwrap_or(0))
            .collect();
        let order: Vec<usize> = select(&keys, keys.len(), largest)
            .into_iter()
            .map(|j| rest[j])
            .collect();
        let chosen: Vec<usize> = indices
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| !is_nan(ty, bits[i]))
            .collect();
        if order[..chosen.len().min(order.len())] != chosen[..] {
            continue;
        }
        // The operand's own bits at the chosen indices: a changed NaN payload stays visible.
        for (p, &i) in indices.iter().enumerate() {
            out[0].set_bits(&at(p), bits[i as usize]);
            out[1].set_bits(&at(p), i as u32 as u128);
        }
    }
    Literal::Tuple(out.into_iter().map(Literal::Array).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};

    fn module(cmp_root: &str, stable: bool) -> HloModule {
        parse_module(&format!(
            "HloModule s
cmp {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  {cmp_root}
}}
ENTRY main {{
  k = f32[6]{{0}} parameter(0)
  v = s32[6]{{0}} parameter(1)
  ROOT r = (f32[6]{{0}}, s32[6]{{0}}) sort(k, v), dimensions={{0}}, is_stable={stable}, to_apply=cmp
}}"
        ))
        .unwrap()
    }

    fn lit(t: &str) -> Literal {
        parse_literal(t).unwrap()
    }

    fn arrays(l: &Literal) -> Vec<ArrayLiteral> {
        parts(l).unwrap().into_iter().cloned().collect()
    }

    #[test]
    fn unstable_sort_may_order_equivalent_tuples_either_way() {
        let lt = "ROOT lt = pred[] compare(a, b), direction=LT";
        let input = lit("(f32[6] {2, 1, 2, 1, 0, 2}, s32[6] {0, 1, 2, 3, 4, 5})");
        let ins = arrays(&input);
        let refs: Vec<&ArrayLiteral> = ins.iter().collect();
        let expected = lit("(f32[6] {0, 1, 1, 2, 2, 2}, s32[6] {4, 1, 3, 0, 2, 5})");
        let other = lit("(f32[6] {0, 1, 1, 2, 2, 2}, s32[6] {4, 3, 1, 5, 0, 2})");
        let unstable = module(lt, false);
        let (near, flushed) = nearest_sort(&unstable, &refs, &expected, &other, false);
        assert!(near.logical_eq(&other), "{near}");
        assert_eq!(flushed, 0);
        // Stable: the input order is the only one.
        let (near, _) = nearest_sort(&module(lt, true), &refs, &expected, &other, false);
        assert!(near.logical_eq(&expected));
        // A tuple out of its run is not accepted: that segment stays the reference's.
        let wrong = lit("(f32[6] {0, 1, 2, 1, 2, 2}, s32[6] {4, 3, 0, 1, 2, 5})");
        let (near, _) = nearest_sort(&unstable, &refs, &expected, &wrong, false);
        assert!(near.logical_eq(&expected));
        // Payloads that change are not a permutation either.
        let changed = lit("(f32[6] {0, 1, 1, 2, 2, 2}, s32[6] {4, 3, 1, 5, 0, 9})");
        let (near, _) = nearest_sort(&unstable, &refs, &expected, &changed, false);
        assert!(near.logical_eq(&expected));
    }

    #[test]
    fn a_comparator_that_is_not_a_strict_weak_order_accepts_any_permutation() {
        // IEEE < with a NaN: NaN is incomparable to everything, the rest is ordered.
        let lt = "ROOT lt = pred[] compare(a, b), direction=LT";
        let input = lit("(f32[6] {2, nan, 1, 3, 0, 2}, s32[6] {0, 1, 2, 3, 4, 5})");
        let ins = arrays(&input);
        let refs: Vec<&ArrayLiteral> = ins.iter().collect();
        let m = module(lt, true);
        let reference_result = {
            use conformance_spec::Backend;
            conformance_reference::Reference
                .execute(
                    &m,
                    &[
                        Literal::Array(ins[0].clone()),
                        Literal::Array(ins[1].clone()),
                    ],
                )
                .unwrap()
        };
        let any = lit("(f32[6] {3, 2, nan, 2, 1, 0}, s32[6] {3, 0, 1, 5, 2, 4})");
        let (near, _) = nearest_sort(&m, &refs, &reference_result, &any, false);
        assert!(near.logical_eq(&any), "{near}");
        let lost = lit("(f32[6] {3, 2, nan, 2, 1, 1}, s32[6] {3, 0, 1, 5, 2, 2})");
        let (near, _) = nearest_sort(&m, &refs, &reference_result, &lost, false);
        assert!(near.logical_eq(&reference_result));
    }

    #[test]
    fn a_nan_in_an_operand_the_comparator_does_not_read_keeps_its_place() {
        // Sorted by the s32 operand alone: the f32 operand's NaN rides along with its key
        // (IREE's unstable sort moved such tuples; that is a wrong order, not a NaN's freedom).
        let m = module("ROOT lt = pred[] compare(c, d), direction=LT", false);
        let input = lit("(f32[6] {nan, 5, 6, 7, 8, 9}, s32[6] {5, 0, 1, 2, 3, 4})");
        let ins = arrays(&input);
        let ops: Vec<&ArrayLiteral> = ins.iter().collect();
        let expected = lit("(f32[6] {5, 6, 7, 8, 9, nan}, s32[6] {0, 1, 2, 3, 4, 5})");
        let moved = lit("(f32[6] {nan, 5, 6, 7, 8, 9}, s32[6] {5, 0, 1, 2, 3, 4})");
        let (near, _) = nearest_sort(&m, &ops, &expected, &moved, false);
        assert_eq!(near, expected);
        // The comparator reads the keys, not the values.
        let c = Comparator::new(&m, "cmp", &[ElementType::F32, ElementType::S32]).unwrap();
        assert!(!c.reads(0) && c.reads(1));
    }

    #[test]
    fn ieee_less_meeting_a_nan_accepts_any_order_and_shows_a_changed_nan() {
        // XLA's f8e5m2 sort: keys with a -NaN under IEEE <, which is no strict weak order with the
        // NaN in; its order {1, 30, nan, 1, ...} is the implementation's to choose, but the NaN it
        // returns lost its sign: the expected tuple keeps the input's -NaN (class nan).
        let m = module("ROOT lt = pred[] compare(a, b), direction=LT", false);
        let input = lit("(f32[6] {30, -nan, 1, 1, 2, 2}, s32[6] {0, 1, 2, 3, 4, 5})");
        let ins = arrays(&input);
        let ops: Vec<&ArrayLiteral> = ins.iter().collect();
        let reference = {
            use conformance_spec::Backend;
            let args = [
                Literal::Array(ins[0].clone()),
                Literal::Array(ins[1].clone()),
            ];
            conformance_reference::Reference.execute(&m, &args).unwrap()
        };
        let got = lit("(f32[6] {1, 30, nan, 1, 2, 2}, s32[6] {2, 0, 1, 3, 4, 5})");
        let (near, _) = nearest_sort(&m, &ops, &reference, &got, false);
        assert_eq!(
            near,
            lit("(f32[6] {1, 30, -nan, 1, 2, 2}, s32[6] {2, 0, 1, 3, 4, 5})")
        );
        // A tuple the input does not hold is still out of place.
        let lost = lit("(f32[6] {1, 30, nan, 30, 2, 2}, s32[6] {2, 0, 1, 0, 4, 5})");
        let (near, _) = nearest_sort(&m, &ops, &reference, &lost, false);
        assert_eq!(near, reference);
    }

    #[test]
    fn nans_may_stand_anywhere_but_the_rest_stays_ordered() {
        let total = "ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER";
        let input = lit("(f32[5] {2, nan, 1, -nan, 0}, s32[5] {0, 1, 2, 3, 4})");
        let m = parse_module(
            &module(total, true)
                .to_string()
                .replace("f32[6]", "f32[5]")
                .replace("s32[6]", "s32[5]"),
        )
        .unwrap();
        let ins = arrays(&input);
        let refs: Vec<&ArrayLiteral> = ins.iter().collect();
        let expected = lit("(f32[5] {-nan, 0, 1, 2, nan}, s32[5] {3, 4, 2, 0, 1})");
        let nans_first = lit("(f32[5] {nan, -nan, 0, 1, 2}, s32[5] {1, 3, 4, 2, 0})");
        let (near, _) = nearest_sort(&m, &refs, &expected, &nans_first, false);
        assert!(near.logical_eq(&nans_first), "{near}");
        let disordered = lit("(f32[5] {nan, -nan, 1, 0, 2}, s32[5] {1, 3, 2, 4, 0})");
        let (near, _) = nearest_sort(&m, &refs, &expected, &disordered, false);
        assert!(near.logical_eq(&expected));
    }

    #[test]
    fn topk_takes_nans_anywhere_and_the_rest_in_order() {
        let m = parse_module(
            "HloModule t\nENTRY main {\n  x = f32[5]{0} parameter(0)\n  ROOT r = (f32[3]{0}, s32[3]{0}) topk(x), k=3, largest=true\n}",
        )
        .unwrap();
        let x = lit("f32[5] {1, nan, 3, 3, 0}");
        let expected = lit("(f32[3] {nan, 3, 3}, s32[3] {1, 2, 3})");
        let nan_last = lit("(f32[3] {3, 3, 1}, s32[3] {2, 3, 0})");
        let near = nearest_topk(&m, x.as_array().unwrap(), &expected, &nan_last);
        assert!(near.logical_eq(&nan_last), "{near}");
        let ties_dropped = lit("(f32[3] {nan, 3, 1}, s32[3] {1, 2, 0})");
        let near = nearest_topk(&m, x.as_array().unwrap(), &expected, &ties_dropped);
        assert!(near.logical_eq(&expected));
        let wrong_index = lit("(f32[3] {nan, 3, 3}, s32[3] {1, 3, 2})");
        let near = nearest_topk(&m, x.as_array().unwrap(), &expected, &wrong_index);
        assert!(near.logical_eq(&expected));
    }

    #[test]
    fn a_flushing_backend_may_order_subnormals_as_zeros() {
        let total = "ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER";
        let input = lit("(f32[6] {1e-45, 0, -1e-45, -0, 1, -1}, s32[6] {0, 1, 2, 3, 4, 5})");
        let ins = arrays(&input);
        let refs: Vec<&ArrayLiteral> = ins.iter().collect();
        let m = module(total, true);
        let expected = lit("(f32[6] {-1, -1e-45, -0, 0, 1e-45, 1}, s32[6] {5, 2, 3, 1, 0, 4})");
        // Subnormals read as zero of their sign: -1e-45 ties -0, 1e-45 ties +0, stable.
        let flushed = lit("(f32[6] {-1, -1e-45, -0, 1e-45, 0, 1}, s32[6] {5, 2, 3, 0, 1, 4})");
        let (near, _) = nearest_sort(&m, &refs, &expected, &flushed, false);
        assert!(near.logical_eq(&expected));
        let (near, n) = nearest_sort(&m, &refs, &expected, &flushed, true);
        assert!(near.logical_eq(&flushed), "{near}");
        assert_eq!(n, 12);
    }
}
