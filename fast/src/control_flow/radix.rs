//! LSD radix sort: stable by construction (each pass is a stable counting sort on one byte of the
//! key, least significant first), so sorting `(key, payload)` items by key keeps equal keys in
//! input order.
//!
//! One sweep counts every byte position; passes whose byte is the same in every item are skipped
//! (the top bytes of small integers, the exponent byte of floats of one binade). Large inputs
//! split each pass across threads without `unsafe`: every chunk of the input gets, for each of the
//! 256 byte values, its own disjoint piece of the output (`split_at_mut` in (byte, chunk) order),
//! which it fills in input order — the same result as the sequential pass. Inputs shorter than
//! [`RADIX_MIN`] use the standard library's stable sort instead.

use rayon::prelude::*;

/// Items from which the radix sort is used (below, a stable comparison sort is faster).
pub(crate) const RADIX_MIN: usize = 256;

/// Items per thread from which a pass is split across threads.
const PARALLEL_MIN: usize = 1 << 15;

/// An unsigned integer key of a radix sort.
pub(crate) trait RadixKey: Copy + Ord + Send + Sync + Default {
    /// Bits of the key type.
    const BITS: u32;
    /// The byte of the key at bit `shift`.
    fn digit(self, shift: u32) -> usize;
    /// `(self << width) | low` (`low` holds at most `width` bits; `self` is 0 when `width` is the
    /// key type's width): appends a key of `width` bits below the current ones.
    fn push(self, low: u64, width: u32) -> Self;
}

impl RadixKey for u32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xff) as usize
    }
    #[inline(always)]
    fn push(self, low: u64, width: u32) -> u32 {
        (((self as u64) << width) | low) as u32
    }
}

impl RadixKey for u64 {
    const BITS: u32 = 64;
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xff) as usize
    }
    #[inline(always)]
    fn push(self, low: u64, width: u32) -> u64 {
        self.checked_shl(width).unwrap_or(0) | low
    }
}

impl RadixKey for u128 {
    const BITS: u32 = 128;
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xff) as usize
    }
    #[inline(always)]
    fn push(self, low: u64, width: u32) -> u128 {
        self.checked_shl(width).unwrap_or(0) | low as u128
    }
}

/// Sorts `items` stably by `key(item)`, of which only the low `key_bits` bits may be non-zero.
/// `scratch` is working space (resized to `items.len()`). Passes split across threads when
/// `parallel` and the input is large.
pub(crate) fn sort_by_key<T, K>(
    items: &mut [T],
    scratch: &mut Vec<T>,
    key_bits: u32,
    key: impl Fn(&T) -> K + Sync,
    parallel: bool,
) where
    T: Copy + Send + Sync,
    K: RadixKey,
{
    let n = items.len();
    if n < RADIX_MIN {
        items.sort_by_key(|x| key(x));
        return;
    }
    let passes = key_bits.min(K::BITS).div_ceil(8) as usize;
    let threads = rayon::current_num_threads();
    let parallel = parallel && threads > 1 && n >= 2 * PARALLEL_MIN;
    let counts = histograms(items, passes, &key, parallel);
    scratch.clear();
    scratch.resize(n, items[0]);
    let mut in_items = true;
    for (p, count) in counts.iter().enumerate() {
        if count.contains(&n) {
            continue; // one byte value for every item: the pass keeps the order
        }
        let shift = 8 * p as u32;
        let (src, dst): (&[T], &mut [T]) = if in_items {
            (items, &mut scratch[..])
        } else {
            (&scratch[..], items)
        };
        if parallel {
            let chunks = (threads * 2).min(n / PARALLEL_MIN).max(2);
            scatter_parallel(src, dst, shift, &key, n.div_ceil(chunks));
        } else {
            scatter(src, dst, shift, &key, count);
        }
        in_items = !in_items;
    }
    if !in_items {
        items.copy_from_slice(&scratch[..n]);
    }
}

/// Counts of each byte value at each of the `passes` byte positions.
fn histograms<T: Sync, K: RadixKey>(
    items: &[T],
    passes: usize,
    key: &(impl Fn(&T) -> K + Sync),
    parallel: bool,
) -> Vec<[usize; 256]> {
    let count = |part: &[T]| {
        let mut c = vec![[0usize; 256]; passes];
        for x in part {
            let k = key(x);
            for (p, cp) in c.iter_mut().enumerate() {
                cp[k.digit(8 * p as u32)] += 1;
            }
        }
        c
    };
    if parallel {
        items.par_chunks(PARALLEL_MIN).map(count).reduce(
            || vec![[0usize; 256]; passes],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    for (u, v) in x.iter_mut().zip(y) {
                        *u += v;
                    }
                }
                a
            },
        )
    } else {
        count(items)
    }
}

/// One sequential pass: a stable counting sort of `src` into `dst` on the byte at `shift`.
fn scatter<T: Copy, K: RadixKey>(
    src: &[T],
    dst: &mut [T],
    shift: u32,
    key: &impl Fn(&T) -> K,
    count: &[usize; 256],
) {
    let mut offset = [0usize; 256];
    let mut sum = 0;
    for (o, &c) in offset.iter_mut().zip(count) {
        *o = sum;
        sum += c;
    }
    for x in src {
        let b = key(x).digit(shift);
        dst[offset[b]] = *x;
        offset[b] += 1;
    }
}

/// One pass split across threads: chunk `c` of `src` writes its items of byte value `b` into the
/// piece `(b, c)` of `dst`; pieces are laid out in (byte, chunk) order, so the result is that of
/// the sequential pass.
fn scatter_parallel<T: Copy + Send + Sync, K: RadixKey>(
    src: &[T],
    dst: &mut [T],
    shift: u32,
    key: &(impl Fn(&T) -> K + Sync),
    chunk: usize,
) {
    let local: Vec<[usize; 256]> = src
        .par_chunks(chunk)
        .map(|part| {
            let mut c = [0usize; 256];
            for x in part {
                c[key(x).digit(shift)] += 1;
            }
            c
        })
        .collect();
    let mut pieces: Vec<Vec<&mut [T]>> =
        (0..local.len()).map(|_| Vec::with_capacity(256)).collect();
    let mut rest: &mut [T] = dst;
    for b in 0..256 {
        for (c, counts) in local.iter().enumerate() {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(counts[b]);
            pieces[c].push(head);
            rest = tail;
        }
    }
    src.par_chunks(chunk)
        .zip(pieces.into_par_iter())
        .for_each(|(part, mut out)| {
            let mut cursor = [0usize; 256];
            for x in part {
                let b = key(x).digit(shift);
                out[b][cursor[b]] = *x;
                cursor[b] += 1;
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    #[test]
    fn radix_sort_is_a_stable_sort() {
        let mut rng = Rng(7);
        for &(n, bits, parallel) in &[
            (10usize, 32u32, false),
            (1000, 32, false),
            (5000, 12, false),
            (200_000, 32, true),
            (200_000, 64, true),
        ] {
            let mut items: Vec<(u64, u32)> = (0..n as u32)
                .map(|i| {
                    let k = rng.next()
                        & if bits == 64 {
                            u64::MAX
                        } else {
                            (1 << bits) - 1
                        };
                    (k, i)
                })
                .collect();
            let mut want = items.clone();
            want.sort_by_key(|x| x.0);
            let mut scratch = Vec::new();
            sort_by_key(&mut items, &mut scratch, bits, |x| x.0, parallel);
            assert_eq!(items, want, "n {n} bits {bits}");
        }
    }
}
