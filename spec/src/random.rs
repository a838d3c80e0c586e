//! Random numbers (seed 004, RngBitGenerator, RngUniform, RngNormal): the algorithms of
//! `rng-bit-generator`, the shapes of their states, and the *bit layouts* a backend can declare.
//!
//! Seed 004 says the output of `rng-bit-generator` is a deterministic function of the initial
//! state, but not that two backends (or two compiler versions) give the same bits. What fixes the
//! bits is the algorithm *and* the way counters are assigned to output elements (the counter
//! layout). A backend declares the layout it implements ([`crate::Capabilities::rng_bit_layout`]);
//! the harness compares bit-exactly between backends that declare the same layout and falls back
//! to statistical checks otherwise (`harness/src/oracles/random.rs`).
//!
//! The one layout defined here is [`XLA_LAYOUT`], the one XLA's `RngBitGeneratorExpander` builds
//! (checked bit for bit against jaxlib 0.10.2's CPU backend, docs/random.md):
//! - THREE_FRY (state `u64[2]` = key, counter): Threefry-2x32 with 20 rounds keyed by the two
//!   32-bit halves of `state[0]` (low first), counters `state[1] + i` split the same way.
//!   64-bit outputs take both words of counter `i` (low word first) for element `i` (row-major).
//!   Narrower outputs use half as many counters: the *split dimension* is the first even
//!   dimension (else the largest, the first of equals), the half shape halves it (rounding up),
//!   and the element at coordinate `j` along the split dimension (the others the same) takes word
//!   `j mod 2` of the counter numbered by its row-major index in the half shape with coordinate
//!   `j div 2` there (a scalar: word 0 of one counter); 8- and 16-bit outputs keep the low bits.
//!   The new state is `[key, counter + n]` with `n` the counters used.
//! - PHILOX (state `u64[3]` = key, counter low, counter high; or `u64[2]` = key, counter, whose
//!   128-bit counter is `state[1] + 2⁶⁴·state[0]`): Philox-4x32 with 10 rounds keyed by the halves
//!   of `state[0]`; 128-bit counters `c + i` give four 32-bit words each, element `4i + j` takes
//!   word `j` (64-bit outputs: two words per element, low first), narrower outputs truncate. The
//!   new state advances the counter by the number of counters used (only its low word is kept for
//!   a `u64[2]` state).
//! - DEFAULT is PHILOX.
//!
//! The algorithms are those of Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
//! 1, 2, 3" (SC 2011); the reference checks them against the paper's published known-answer
//! vectors.

use crate::element_type::ElementType;
use crate::hlo::ir::{AttrValue, Attribute};

/// `algorithm=` of `rng-bit-generator` (seed 004, RngBitGenerator; StableHLO `rng_algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngAlgorithm {
    /// `rng_default`: the backend's own algorithm, with its own state shape.
    Default,
    /// `rng_three_fry`: Threefry-2x32, 20 rounds; state `u64[2]`.
    ThreeFry,
    /// `rng_philox`: Philox-4x32, 10 rounds; state `u64[3]` (seed 004) or `u64[2]` (XLA and
    /// StableHLO accept both).
    Philox,
}

/// The bit layout defined in this module's documentation, as XLA implements it.
pub const XLA_LAYOUT: &str = "xla";

impl RngAlgorithm {
    pub const ALL: [RngAlgorithm; 3] = [
        RngAlgorithm::Default,
        RngAlgorithm::ThreeFry,
        RngAlgorithm::Philox,
    ];

    /// The HLO text name: `rng_default`, `rng_three_fry`, `rng_philox`.
    pub fn hlo_name(self) -> &'static str {
        match self {
            RngAlgorithm::Default => "rng_default",
            RngAlgorithm::ThreeFry => "rng_three_fry",
            RngAlgorithm::Philox => "rng_philox",
        }
    }

    /// The StableHLO name: `DEFAULT`, `THREE_FRY`, `PHILOX`.
    pub fn stablehlo_name(self) -> &'static str {
        match self {
            RngAlgorithm::Default => "DEFAULT",
            RngAlgorithm::ThreeFry => "THREE_FRY",
            RngAlgorithm::Philox => "PHILOX",
        }
    }

    /// The algorithm of an HLO name (`rng_three_fry`) or a StableHLO one (`THREE_FRY`).
    pub fn from_name(name: &str) -> Option<RngAlgorithm> {
        RngAlgorithm::ALL
            .into_iter()
            .find(|a| a.hlo_name() == name || a.stablehlo_name() == name)
    }

    /// The `algorithm=` of an instruction.
    ///
    /// Errors: the attribute is missing or names no algorithm (the message lists the names).
    pub fn of(attributes: &[Attribute]) -> Result<RngAlgorithm, String> {
        let names = || {
            RngAlgorithm::ALL
                .iter()
                .map(|a| a.hlo_name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match attributes.iter().find(|a| a.name == "algorithm") {
            Some(a) => match &a.value {
                AttrValue::Raw(s) | AttrValue::Enum(s) => RngAlgorithm::from_name(s)
                    .ok_or_else(|| format!("`algorithm={s}` is not one of {}", names())),
                v => Err(format!("`algorithm={v}` is not one of {}", names())),
            },
            None => Err(format!("missing `algorithm=` (one of {})", names())),
        }
    }

    /// The number of `u64` words of the state this algorithm accepts (seed 004 names `u64[2]`
    /// for THREE_FRY and `u64[3]` for PHILOX; XLA and StableHLO also take `u64[2]` for PHILOX).
    /// DEFAULT's shape is the backend's: under [`XLA_LAYOUT`] that of PHILOX.
    pub fn state_words(self) -> &'static [i64] {
        match self {
            RngAlgorithm::ThreeFry => &[2],
            RngAlgorithm::Philox | RngAlgorithm::Default => &[2, 3],
        }
    }

    /// The algorithm DEFAULT stands for under a bit layout (under [`XLA_LAYOUT`], PHILOX);
    /// `None` for an unknown layout.
    pub fn resolved(self, layout: &str) -> Option<RngAlgorithm> {
        match (self, layout) {
            (RngAlgorithm::Default, XLA_LAYOUT) => Some(RngAlgorithm::Philox),
            (a, XLA_LAYOUT) => Some(a),
            _ => None,
        }
    }
}

/// Whether `rng-bit-generator` produces elements of type `t`: integers and floating-point
/// types of 8, 16, 32 or 64 bits (their bits are the generator's), not `pred` or complex.
pub fn bit_generator_output_type(t: ElementType) -> bool {
    (t.is_integer() || t.is_float()) && matches!(t.bit_width(), 8 | 16 | 32 | 64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_both_spellings() {
        for a in RngAlgorithm::ALL {
            assert_eq!(RngAlgorithm::from_name(a.hlo_name()), Some(a));
            assert_eq!(RngAlgorithm::from_name(a.stablehlo_name()), Some(a));
        }
        assert_eq!(RngAlgorithm::from_name("rng_mersenne"), None);
        let attr = |v: &str| Attribute {
            name: "algorithm".into(),
            value: AttrValue::Raw(v.into()),
        };
        assert_eq!(
            RngAlgorithm::of(&[attr("rng_philox")]),
            Ok(RngAlgorithm::Philox)
        );
        assert!(RngAlgorithm::of(&[attr("rng_x")])
            .unwrap_err()
            .contains("rng_three_fry"));
        assert!(RngAlgorithm::of(&[]).unwrap_err().contains("missing"));
    }

    #[test]
    fn default_is_philox_under_the_xla_layout_and_unknown_elsewhere() {
        assert_eq!(
            RngAlgorithm::Default.resolved(XLA_LAYOUT),
            Some(RngAlgorithm::Philox)
        );
        assert_eq!(RngAlgorithm::ThreeFry.resolved("other"), None);
        assert!(bit_generator_output_type(ElementType::U8));
        assert!(bit_generator_output_type(ElementType::F64));
        assert!(!bit_generator_output_type(ElementType::Pred));
        assert!(!bit_generator_output_type(ElementType::C64));
    }
}
