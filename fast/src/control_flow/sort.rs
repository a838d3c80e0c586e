//! `sort` (seed 004, Sort): `sort(op_0, ..., op_{N-1}), dimensions={d}, is_stable=..., to_apply=%cmp`
//! sorts N arrays of identical dimensions (any element types) together along dimension `d`; every
//! other index is an independent segment. `%cmp` takes 2N scalars (parameter `2i` operand `i`'s
//! left-hand element, `2i + 1` its right-hand one) and returns `pred[]` "lhs < rhs". The result is
//! the sorted array (N = 1) or the tuple of the N sorted arrays, each in its declared layout.
//!
//! Every operand is first brought into a layout whose most minor dimension is `d` (its own buffer
//! when it already has one), so each segment is a contiguous row. Then:
//!
//! - a recognized comparator ([`comparator::recognize`]: `compare` LT/GT of one operand, JAX's
//!   total-order canonicalization, lexicographic chains) sorts by keys: each element's keys map to
//!   one unsigned integer whose order is the comparator's ([`KeyMap`], keys concatenated most
//!   significant first, up to 128 bits), sorted with its position by the stable LSD radix sort of
//!   [`super::radix`] (rows in parallel, or a single long row's passes across threads). Stable,
//!   so it serves `is_stable=true` and `false` alike. A [`KeyOrder::Partial`] float key (IEEE `<`)
//!   ties −0 with +0; when its array holds a NaN (then IEEE `<` is not a strict weak order in
//!   general, but may be one within a row) the merge sort below runs instead.
//! - any other comparator is evaluated per comparison through the interpreter in a stable merge
//!   sort (insertion sort on short runs, then merges that take the right element only when it is
//!   strictly less), which works for any computation and never fails on inconsistent ones; rows
//!   run in parallel.
//!
//! The permutation found is applied to every operand (a gather per operand); a single operand of
//! at most 4 bytes carries its own bits through the sort instead.

use super::radix::{self, RadixKey};
use super::{bad, packed, read_bits, result_arrays, Ctx};
use crate::buffer::{typed, with_output};
use crate::contraction::finish_in_layout;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::comparator::{self, KeyMap, KeyOrder, SortKeys};
use conformance_spec::hlo::HloComputation;
use conformance_spec::shape::slices_equal;
use conformance_spec::{ArrayShape, BackendError, ElementType, Shape};
use rayon::prelude::*;
use std::borrow::Cow;

/// Elements per parallel task of the gather and the key extraction.
const CHUNK: usize = 1 << 14;

/// Runs `sort`. Errors: [`BackendError::Invalid`] for no operands, operands of different
/// dimensions, a `dimensions` attribute that is not one dimension in range, a result shape that
/// does not match, a comparator whose parameters do not match the operands or that does not
/// return `pred[]`; [`BackendError::Unsupported`] for arrays of 2^32 elements or more; the
/// comparator's own errors.
pub(super) fn sort<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let n = cx.operands.len();
    if n == 0 {
        return Err(bad("sort takes at least one operand"));
    }
    let arrays: Vec<ArrayRef<'a>> = (0..n).map(|i| cx.array(i)).collect::<Result<_, _>>()?;
    let dims = arrays[0].dimensions().to_vec();
    let rank = dims.len();
    if let Some(i) = arrays
        .iter()
        .position(|a| a.dimensions() != dims.as_slice())
    {
        return Err(bad(format!(
            "sort operand {i} dimensions {:?} differ from operand 0's {dims:?}",
            arrays[i].dimensions()
        )));
    }
    let d = match cx.instr.attr_ints("dimensions") {
        Some(&[d]) if (0..rank as i64).contains(&d) => d as usize,
        other => {
            return Err(bad(format!(
                "sort needs one dimension in [0, {rank}), given {other:?}"
            )))
        }
    };
    let results = result_arrays(cx, n, true)?;
    for (i, (a, r)) in arrays.iter().zip(&results).enumerate() {
        if !slices_equal(&r.dimensions, &dims) || r.element_type != a.element_type() {
            return Err(bad(format!(
                "sort result {i} is {r}, operand {i} is {}",
                a.shape()
            )));
        }
    }
    let comp = cx.computation("to_apply")?;
    let params = comp.parameters();
    if params.len() != 2 * n {
        return Err(bad(format!(
            "comparator `{}` has {} parameters for {n} operands (2N expected)",
            comp.name,
            params.len()
        )));
    }
    let types: Vec<ElementType> = arrays.iter().map(|a| a.element_type()).collect();
    for (k, p) in params.iter().enumerate() {
        if p.shape != Shape::Array(ArrayShape::scalar(types[k / 2])) {
            return Err(bad(format!(
                "comparator parameter {k} is {}, operand {}'s elements are {}",
                p.shape,
                k / 2,
                types[k / 2]
            )));
        }
    }
    let total = dims.iter().product::<i64>() as usize;
    if u32::try_from(total).is_err() {
        return Err(BackendError::Unsupported(format!(
            "sort of {total} elements (at most 2^32 - 1)"
        )));
    }
    let len = dims[d] as usize;
    // The sorted dimension most minor, the others in operand 0's order.
    let m2m: Vec<i64> = std::iter::once(d as i64)
        .chain(
            arrays[0]
                .shape()
                .layout
                .minor_to_major
                .iter()
                .copied()
                .filter(|&e| e != d as i64),
        )
        .collect();
    let parallel = cx.parallel(total);
    let inputs: Vec<(ArrayShape, Cow<'_, [u8]>)> =
        arrays.iter().map(|a| packed(a, &m2m, parallel)).collect();
    let columns: Vec<Column<'_>> = inputs
        .iter()
        .zip(&types)
        .map(|((_, data), &ty)| Column {
            ty,
            data: &data[..],
        })
        .collect();
    let outputs: Vec<Vec<u8>> = if total == 0 || len <= 1 {
        columns.iter().map(|c| c.data.to_vec()).collect()
    } else {
        // IEEE `<` on a float key with a NaN in it is not a strict weak order on the whole
        // array, but it may be one on a row (a NaN beside equal values): the stable merge
        // sort then gives the one stable result, which the radix map (NaNs last) would not.
        let keys = comparator::recognize(comp).filter(|k| {
            !k.keys
                .iter()
                .any(|key| partial_key_meets_nan(key, &columns))
        });
        let sorted = match key_plan(keys, &types) {
            Some(plan) => by_keys(&columns, &plan, len, total, parallel),
            None => Sorted::Permutation(by_comparator(cx, comp, &columns, len, total)?),
        };
        match sorted {
            Sorted::Bytes(bytes) => vec![bytes],
            Sorted::Permutation(perm) => {
                columns.iter().map(|c| gather(c, &perm, parallel)).collect()
            }
        }
    };
    let mut values: Vec<Value<'a>> = outputs
        .into_iter()
        .zip(inputs.iter().zip(&results))
        .map(|(bytes, ((have, _), r))| finish_in_layout(r, have, bytes, parallel))
        .collect::<Result<_, _>>()?;
    Ok(if n == 1 {
        values.remove(0)
    } else {
        Value::Tuple(values)
    })
}

/// Whether `key` compares a float column in IEEE order (`KeyOrder::Partial`) and the column
/// holds a NaN.
fn partial_key_meets_nan(key: &comparator::SortKey, columns: &[Column<'_>]) -> bool {
    let Some(column) = columns.get(key.operand) else {
        return false;
    };
    let Some(f) = column.ty.float_format().filter(|_| column.ty.is_float()) else {
        return false;
    };
    if key.order != KeyOrder::Partial {
        return false;
    }
    let width = column.ty.byte_width();
    column.data.chunks_exact(width).any(|b| {
        let mut w = [0u8; 8];
        w[..width].copy_from_slice(b);
        f.classify(u64::from_le_bytes(w)) == conformance_spec::FloatClass::Nan
    })
}

/// One operand's elements in the sort's packed layout.
struct Column<'d> {
    ty: ElementType,
    data: &'d [u8],
}

impl Column<'_> {
    fn width(&self) -> usize {
        self.ty.byte_width()
    }
    fn bits(&self, i: usize) -> u128 {
        read_bits(self.data, i, self.width())
    }
}

/// The outcome of sorting: the sorted elements of a single operand, or for each output position
/// the input position it takes its elements from.
enum Sorted {
    Bytes(Vec<u8>),
    Permutation(Vec<u32>),
}

/// The keys of a recognized comparator, each with its map to ordered integers.
pub(super) struct KeyPlan {
    pub(super) keys: Vec<(usize, KeyMap)>,
    pub(super) bits: u32,
}

/// The plan for `keys` on operands of `types`; `None` when the comparator is not recognized, a key
/// names a missing operand or a complex one, or the keys need more than 128 bits.
pub(super) fn key_plan(keys: Option<SortKeys>, types: &[ElementType]) -> Option<KeyPlan> {
    let keys = keys?;
    let mut out = Vec::with_capacity(keys.keys.len());
    for k in &keys.keys {
        let ty = *types.get(k.operand)?;
        out.push((k.operand, KeyMap::new(*k, ty)?));
    }
    let bits = out.iter().map(|(_, m)| m.width).sum();
    (bits <= 128).then_some(KeyPlan { keys: out, bits })
}

/// Sorts by the plan's keys in the narrowest integer that holds them.
fn by_keys(
    columns: &[Column<'_>],
    plan: &KeyPlan,
    len: usize,
    total: usize,
    parallel: bool,
) -> Sorted {
    if let [(0, map)] = plan.keys[..] {
        if columns.len() == 1 && map.invert(0).is_some() {
            // The key determines the element: sort the keys alone and map them back.
            return match columns[0].width() {
                1 => keys_only::<u8, u32>(&columns[0], map, len, total, parallel),
                2 => keys_only::<u16, u32>(&columns[0], map, len, total, parallel),
                4 => keys_only::<u32, u32>(&columns[0], map, len, total, parallel),
                _ => keys_only::<u64, u64>(&columns[0], map, len, total, parallel),
            };
        }
    }
    if plan.bits <= 32 {
        radix_sort::<u32>(columns, plan, len, total, parallel)
    } else if plan.bits <= 64 {
        radix_sort::<u64>(columns, plan, len, total, parallel)
    } else {
        radix_sort::<u128>(columns, plan, len, total, parallel)
    }
}

/// Sorts one operand whose key map is a bijection: the keys alone (elements of `T`, keys in `K`),
/// mapped back to elements after the sort.
fn keys_only<T, K>(
    column: &Column<'_>,
    map: KeyMap,
    len: usize,
    total: usize,
    parallel: bool,
) -> Sorted
where
    T: bytemuck::Pod + Into<u64> + TryFrom<u64> + Send + Sync,
    K: RadixKey + Into<u64> + TryFrom<u64>,
{
    let src = typed::<T>(column.data);
    let mut keys: Vec<K> = vec![K::default(); total];
    let to_key = |x: T| K::try_from(map.apply(x.into())).unwrap_or_default();
    if parallel {
        keys.par_chunks_mut(CHUNK)
            .zip(src.par_chunks(CHUNK))
            .for_each(|(k, x)| k.iter_mut().zip(x).for_each(|(k, &x)| *k = to_key(x)));
    } else {
        keys.iter_mut()
            .zip(src.iter())
            .for_each(|(k, &x)| *k = to_key(x));
    }
    sort_rows(&mut keys, len, map.width, |k| *k, parallel);
    let back = |k: K| {
        let bits = map.invert(k.into()).unwrap_or(0);
        T::try_from(bits).unwrap_or_else(|_| T::zeroed())
    };
    Sorted::Bytes(with_output::<T>(total, |out| {
        if parallel {
            out.par_chunks_mut(CHUNK)
                .zip(keys.par_chunks(CHUNK))
                .for_each(|(o, k)| o.iter_mut().zip(k).for_each(|(o, &k)| *o = back(k)));
        } else {
            out.iter_mut().zip(&keys).for_each(|(o, &k)| *o = back(k));
        }
    }))
}

/// Radix-sorts each row of `len` items: rows across threads when there are several, a single
/// row's passes across threads otherwise.
fn sort_rows<T: Copy + Send + Sync, K: RadixKey>(
    items: &mut [T],
    len: usize,
    bits: u32,
    key: impl Fn(&T) -> K + Sync,
    parallel: bool,
) {
    if parallel && items.len() > len {
        items
            .par_chunks_mut(len)
            .for_each_init(Vec::new, |scratch, row| {
                radix::sort_by_key(row, scratch, bits, &key, false)
            });
    } else {
        let mut scratch = Vec::new();
        for row in items.chunks_mut(len) {
            radix::sort_by_key(row, &mut scratch, bits, &key, parallel);
        }
    }
}

/// Builds `(key, payload)` items — the payload is the element's own bits for a single operand of
/// at most 4 bytes, else its position — and radix-sorts each row.
fn radix_sort<K: RadixKey>(
    columns: &[Column<'_>],
    plan: &KeyPlan,
    len: usize,
    total: usize,
    parallel: bool,
) -> Sorted {
    let carry_bits = columns.len() == 1 && columns[0].width() <= 4;
    let mut items: Vec<(K, u32)> = vec![(K::default(), 0); total];
    let fill = |start: usize, part: &mut [(K, u32)]| {
        for (j, it) in part.iter_mut().enumerate() {
            it.1 = if carry_bits {
                columns[0].bits(start + j) as u32
            } else {
                (start + j) as u32
            };
        }
        for &(operand, map) in &plan.keys {
            append_keys(&columns[operand], &map, start, part);
        }
    };
    if parallel {
        items
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(t, part)| fill(t * CHUNK, part));
    } else {
        fill(0, &mut items);
    }
    sort_rows(&mut items, len, plan.bits, |x| x.0, parallel);
    let payloads: Vec<u32> = items.into_iter().map(|x| x.1).collect();
    if carry_bits {
        Sorted::Bytes(narrow(&payloads, columns[0].width()))
    } else {
        Sorted::Permutation(payloads)
    }
}

/// Appends one key to the items of `part` (elements `start..` of the column): `key = (key << width)
/// | map(element)`.
fn append_keys<K: RadixKey>(
    column: &Column<'_>,
    map: &KeyMap,
    start: usize,
    part: &mut [(K, u32)],
) {
    let width = map.width;
    fn go<T: bytemuck::Pod + Into<u64>, K: RadixKey>(
        data: &[u8],
        map: &KeyMap,
        width: u32,
        start: usize,
        part: &mut [(K, u32)],
    ) {
        let elements = typed::<T>(data);
        let end = start + part.len();
        for (it, &x) in part.iter_mut().zip(&elements[start..end]) {
            it.0 = it.0.push(map.apply(x.into()), width);
        }
    }
    match column.width() {
        1 => go::<u8, K>(column.data, map, width, start, part),
        2 => go::<u16, K>(column.data, map, width, start, part),
        4 => go::<u32, K>(column.data, map, width, start, part),
        _ => go::<u64, K>(column.data, map, width, start, part),
    }
}

/// The low `w` bytes of each value.
fn narrow(bits: &[u32], w: usize) -> Vec<u8> {
    match w {
        4 => bytemuck::cast_slice(bits).to_vec(),
        _ => bits
            .iter()
            .flat_map(|b| b.to_le_bytes()[..w].to_vec())
            .collect(),
    }
}

/// `out[p] = column[perm[p]]`.
fn gather(column: &Column<'_>, perm: &[u32], parallel: bool) -> Vec<u8> {
    fn go<T: bytemuck::Pod + Send + Sync>(data: &[u8], perm: &[u32], parallel: bool) -> Vec<u8> {
        let src = typed::<T>(data);
        with_output::<T>(perm.len(), |out| {
            let body = |(o, p): (&mut [T], &[u32])| {
                for (y, &i) in o.iter_mut().zip(p) {
                    *y = src[i as usize];
                }
            };
            if parallel {
                out.par_chunks_mut(CHUNK)
                    .zip(perm.par_chunks(CHUNK))
                    .for_each(body);
            } else {
                body((out, perm));
            }
        })
    }
    match column.width() {
        1 => go::<u8>(column.data, perm, parallel),
        2 => go::<u16>(column.data, perm, parallel),
        4 => go::<u32>(column.data, perm, parallel),
        8 => go::<u64>(column.data, perm, parallel),
        _ => go::<u128>(column.data, perm, parallel),
    }
}

/// Rows of this many elements or fewer are sorted by insertion in the merge sort.
const INSERTION_RUN: usize = 12;

/// The permutation sorting each row by the interpreted comparator (stable merge sort).
fn by_comparator<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a HloComputation,
    columns: &[Column<'_>],
    len: usize,
    total: usize,
) -> Result<Vec<u32>, BackendError> {
    let mut perm: Vec<u32> = (0..total as u32).collect();
    let less = |a: u32, b: u32| -> Result<bool, BackendError> {
        let mut args: Vec<Value<'a>> = Vec::with_capacity(2 * columns.len());
        for c in columns {
            for i in [a, b] {
                args.push(Value::Splat {
                    shape: ArrayShape::scalar(c.ty),
                    bits: c.bits(i as usize),
                });
            }
        }
        super::pred_value(&(cx.call)(comp, args)?)
    };
    let rows = total / len;
    if rows > 1 && cx.exec.threshold != usize::MAX && rayon::current_num_threads() > 1 {
        perm.par_chunks_mut(len)
            .try_for_each_init(Vec::new, |buf, row| merge_sort(row, buf, &less))?;
    } else {
        let mut buf = Vec::new();
        for row in perm.chunks_mut(len) {
            merge_sort(row, &mut buf, &less)?;
        }
    }
    Ok(perm)
}

/// Stable merge sort of `v` under a fallible "less than" (any relation: an inconsistent one gives
/// some permutation, never a panic).
pub(crate) fn merge_sort<E>(
    v: &mut [u32],
    buf: &mut Vec<u32>,
    less: &impl Fn(u32, u32) -> Result<bool, E>,
) -> Result<(), E> {
    let n = v.len();
    if n <= INSERTION_RUN {
        for i in 1..n {
            let mut j = i;
            while j > 0 && less(v[j], v[j - 1])? {
                v.swap(j, j - 1);
                j -= 1;
            }
        }
        return Ok(());
    }
    let mid = n / 2;
    merge_sort(&mut v[..mid], buf, less)?;
    merge_sort(&mut v[mid..], buf, less)?;
    if !less(v[mid], v[mid - 1])? {
        return Ok(()); // already in order
    }
    buf.clear();
    buf.extend_from_slice(&v[..mid]);
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < buf.len() && j < n {
        if less(v[j], buf[i])? {
            v[k] = v[j];
            j += 1;
        } else {
            v[k] = buf[i];
            i += 1;
        }
        k += 1;
    }
    while i < buf.len() {
        v[k] = buf[i];
        i += 1;
        k += 1;
    }
    Ok(())
}
