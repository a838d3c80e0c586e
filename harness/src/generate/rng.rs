//! The source of generator choices.
//!
//! Every generator draws its choices through [`Rng`], whose 64-bit words come from a [`Source`]:
//! - [`SplitMix64`], the sweeps' deterministic PRNG (a case is a pure function of (seed, case
//!   index, catalog, generator config), so the generator uses its own fixed algorithm rather than
//!   a library RNG whose stream may change between versions);
//! - [`Choices`], a recorded sequence of words (zeros once exhausted): proptest generates and
//!   *shrinks* such sequences (`proptest::collection::vec(any::<u64>(), ..)`), so every generator
//!   shrinks for free toward smaller choices, and choice 0 is always the simplest option;
//! - `arbitrary::Unstructured`, the fuzzer's bytes (zeros once exhausted).

/// Where the words of an [`Rng`] come from.
pub trait Source {
    fn next_u64(&mut self) -> u64;
}

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, full period, good enough statistics for
/// test generation.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl Source for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A recorded sequence of choices, then zeros.
#[derive(Clone, Debug, Default)]
pub struct Choices {
    words: Vec<u64>,
    position: usize,
}

impl Choices {
    pub fn new(words: Vec<u64>) -> Choices {
        Choices { words, position: 0 }
    }
}

impl Source for Choices {
    fn next_u64(&mut self) -> u64 {
        let w = self.words.get(self.position).copied().unwrap_or(0);
        self.position += 1;
        w
    }
}

impl<S: Source + ?Sized> Source for &mut S {
    fn next_u64(&mut self) -> u64 {
        (**self).next_u64()
    }
}

impl Source for arbitrary::Unstructured<'_> {
    fn next_u64(&mut self) -> u64 {
        // `Unstructured` pads with zeros when its bytes run out.
        <u64 as arbitrary::Arbitrary>::arbitrary(self).unwrap_or(0)
    }
}

/// Draws typed choices (ranges, probabilities, picks, permutations) from a [`Source`].
pub struct Rng<'a> {
    source: Box<dyn Source + 'a>,
    /// Where element values are drawn ([`Rng::values`]): a stream of their own for the members of
    /// a module group ([`Rng::for_member`]), none (this stream) otherwise.
    values: Option<Box<Rng<'a>>>,
}

impl std::fmt::Debug for Rng<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rng")
    }
}

impl<'a> Rng<'a> {
    /// A SplitMix64 stream from `seed`.
    pub fn new(seed: u64) -> Rng<'static> {
        Rng {
            source: Box::new(SplitMix64 { state: seed }),
            values: None,
        }
    }

    /// The generator of case `index` of a sweep with `seed`: independent streams per case.
    pub fn for_case(seed: u64, index: u64) -> Rng<'static> {
        let mut r = SplitMix64 {
            state: seed ^ 0x9e37_79b9_7f4a_7c15,
        };
        let a = r.next_u64();
        Rng::new(a ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03))
    }

    /// The generator of case `index` of a sweep whose cases come in groups of `inputs_per_module`
    /// consecutive indices sharing one module: every choice but element values is drawn from the
    /// stream of the group's first case, element values ([`Rng::values`]) from a stream of the
    /// case's own. A generator whose structure does not depend on the values it draws thus gives
    /// every member the same module (a compiler under test compiles it once) with other inputs.
    /// With `inputs_per_module` ≤ 1 this is [`Rng::for_case`].
    pub fn for_member(seed: u64, index: u64, inputs_per_module: u64) -> Rng<'static> {
        if inputs_per_module <= 1 {
            return Rng::for_case(seed, index);
        }
        let mut rng = Rng::for_case(seed, index - index % inputs_per_module);
        rng.values = Some(Box::new(Rng::for_case(seed ^ 0x5eed_0f1e_7a1e_e5c0, index)));
        rng
    }

    /// The stream element values are drawn from (see [`Rng::for_member`]).
    pub fn values(&mut self) -> &mut Rng<'a> {
        if self.values.is_none() {
            return self;
        }
        match self.values.as_deref_mut() {
            Some(v) => v,
            None => unreachable!("checked above"),
        }
    }

    /// Choices from any source (a [`Choices`] sequence, fuzzer bytes).
    pub fn from_source(source: impl Source + 'a) -> Rng<'a> {
        Rng {
            source: Box::new(source),
            values: None,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.source.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`), without modulo bias worth caring about for n ≪ 2^64.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// True with probability `p` (a zero word gives `false`, the simpler choice, unless `p = 1`).
    pub fn chance(&mut self, p: f64) -> bool {
        let u = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        1.0 - u <= p && p > 0.0
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn pick<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// A random permutation of `0..n` (the identity for zero choices).
    pub fn permutation(&mut self, n: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            let j = i - self.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_case_streams_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::for_case(1, 7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_case(1, 7).next_u64(),
            Rng::for_case(1, 8).next_u64()
        );
        assert_ne!(
            Rng::for_case(1, 7).next_u64(),
            Rng::for_case(2, 7).next_u64()
        );
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(3);
        let mut seen = [false; 5];
        for _ in 0..200 {
            let v = r.below(5) as usize;
            seen[v] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let mut p = r.permutation(6);
        p.sort();
        assert_eq!(p, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn zero_choices_are_the_simplest() {
        let mut r = Rng::from_source(Choices::new(vec![]));
        assert_eq!(r.below(7), 0);
        assert!(!r.chance(0.5));
        assert!(r.chance(1.0));
        assert_eq!(r.permutation(4), vec![0, 1, 2, 3]);
        let mut r = Rng::from_source(Choices::new(vec![u64::MAX]));
        assert_eq!(r.below(7), 6);
        let bytes = [0xffu8; 16];
        let mut u = arbitrary::Unstructured::new(&bytes);
        let mut r = Rng::from_source(&mut u);
        assert_eq!(r.next_u64(), u64::MAX);
        assert_eq!(r.next_u64(), u64::MAX);
        assert_eq!(r.next_u64(), 0);
    }
}
