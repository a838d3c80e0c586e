//! NNEF documents for differential testing: [`valid_document`] builds documents that are valid
//! by construction (every operation chosen among the standard fragments with attributes valid for
//! the shapes tracked so far), and [`mutate`] breaks exactly one semantic rule of seed 003 §3.3
//! (listed by [`Rule`]). `nnef/tests/khronos_oracle.rs` prints both kinds
//! ([`crate::printer::print_document`]) and checks that our front end and the Khronos reference
//! parser agree on them.
//!
//! Generation chooses only among valid next steps (as wasm-smith does), so no document is
//! generated and then thrown away. Every choice is drawn from an [`RngLike`]: [`SplitMix64`] for
//! deterministic sweeps, [`Choices`] for proptest (which shrinks the recorded words toward
//! zero, and a zero word is always the simplest choice).

mod fragments;
mod mutate;
mod ops_shape;
mod ops_tensor;
mod ops_window;
mod rules;
mod signatures;
mod syntax;
mod valid;

pub use mutate::mutate;
pub use rules::Rule;
pub use signatures::{signature, Signature, SIGNATURES};
pub use valid::{valid_document, valid_document_with_shapes};

/// A source of 64-bit random words, and the typed choices drawn from them.
///
/// A zero word always means the simplest choice: the lowest value of a range, `false` for
/// [`RngLike::chance`], the first item of a list.
pub trait RngLike {
    /// The next word.
    fn next_u64(&mut self) -> u64;

    /// A value in `0..n` (0 when `n <= 1`).
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// A value in `lo..=hi` (`lo` when `hi <= lo`).
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            lo
        } else {
            lo + self.below((hi - lo) as u64 + 1) as i64
        }
    }

    /// An index in `0..len` (0 when `len == 0`).
    fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// `true` with probability `p` (a zero word gives `false`).
    fn chance(&mut self, p: f64) -> bool {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        unit >= 1.0 - p
    }
}

/// SplitMix64 (the generator of [`crate::weights`]): the deterministic word stream of sweeps;
/// a document is a pure function of its seed.
pub use crate::weights::SplitMix64;

impl RngLike for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        SplitMix64::next_u64(self)
    }
}

/// A recorded sequence of words, then zeros (for proptest, which shrinks such sequences).
#[derive(Clone, Debug, Default)]
pub struct Choices {
    words: Vec<u64>,
    position: usize,
}

impl Choices {
    /// The sequence `words`, followed by zeros.
    pub fn new(words: Vec<u64>) -> Choices {
        Choices { words, position: 0 }
    }
}

impl RngLike for Choices {
    fn next_u64(&mut self) -> u64 {
        let word = self.words.get(self.position).copied().unwrap_or(0);
        self.position += 1;
        word
    }
}

impl<R: RngLike + ?Sized> RngLike for &mut R {
    fn next_u64(&mut self) -> u64 {
        (**self).next_u64()
    }
}

/// Families of standard operations the generator may choose from (NNEF 1.0.5 chapter 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Unary, binary and ternary element-wise operations, activations (§4.3, §4.6).
    Elementwise,
    /// Reductions, `moments`, `softmax`, normalizations (§4.4, §4.8).
    Reduction,
    /// `reshape`, `transpose`, `concat`, `split`, `slice`, `squeeze`, `unsqueeze`, `stack`,
    /// `unstack`, `tile`, `pad`, `gather`, `copy_n`, `add_n` (§4.2).
    Shape,
    /// `conv`, `deconv`, `box`, `debox`, pools, up/down-sampling (§4.5, §4.7).
    Window,
    /// `matmul`, `linear`, `batch_normalization` (§4.5, §4.8).
    Linear,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 5] = [
        Family::Elementwise,
        Family::Reduction,
        Family::Shape,
        Family::Window,
        Family::Linear,
    ];
}

/// What [`valid_document`] may generate.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// At most this many operations besides `external`/`variable`/`constant` (at least 1 is
    /// always generated).
    pub max_operations: usize,
    /// Largest tensor rank of the externals (1..=4 by default).
    pub max_rank: usize,
    /// Largest extent of an external's dimension (elements; 8 by default).
    pub max_extent: usize,
    /// Probability of a compositional document (KHR extensions and a fragment definition that
    /// the graph invokes).
    pub compositional: f64,
    /// Families of standard operations to choose from (all by default).
    pub families: Vec<Family>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_operations: 12,
            max_rank: 4,
            max_extent: 8,
            compositional: 0.25,
            families: Family::ALL.to_vec(),
        }
    }
}

impl Config {
    /// "Swarm" configuration: a random non-empty subset of the families and random limits, so
    /// that a sweep also sees documents concentrating on a few operations.
    pub fn swarm(rng: &mut impl RngLike) -> Config {
        let mut families: Vec<Family> = Family::ALL
            .iter()
            .copied()
            .filter(|_| rng.chance(0.6))
            .collect();
        if families.is_empty() {
            families.push(Family::ALL[rng.index(Family::ALL.len())]);
        }
        Config {
            max_operations: rng.range(1, 12) as usize,
            max_rank: rng.range(1, 4) as usize,
            max_extent: rng.range(1, 8) as usize,
            compositional: [0.0, 0.25, 0.75][rng.index(3)],
            families,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_words_are_the_simplest_choices() {
        let mut rng = Choices::new(vec![]);
        assert_eq!(rng.below(10), 0);
        assert_eq!(rng.range(3, 9), 3);
        assert!(!rng.chance(0.99));
        assert_eq!(rng.index(5), 0);
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..1000 {
            let x = rng.range(-3, 4);
            assert!((-3..=4).contains(&x));
            assert!(rng.below(6) < 6);
        }
        assert_eq!(rng.range(5, 5), 5);
        assert_eq!(rng.range(5, 2), 5);
    }

    #[test]
    fn splitmix_is_deterministic() {
        let a: Vec<u64> = {
            let mut r = SplitMix64::new(42);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = SplitMix64::new(42);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a[0], a[1]);
    }
}
