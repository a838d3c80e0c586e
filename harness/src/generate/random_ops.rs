//! Cases of the random-number operations (seed 004, RngBitGenerator), valid by construction:
//! every state size the algorithm accepts, states whose counters are about to wrap (past 2⁶⁴,
//! and past 2¹²⁸ for a three-word Philox state), zero and all-ones keys, data of any shape the
//! sweep allows (scalars, zero-size, odd and even dimensions: they decide Threefry's split
//! dimension) with random layouts of the data.

use super::elementwise::{Built, CaseSpec};
use super::movement::Gen;
use super::rng::Rng;
use conformance_spec::catalog::Signature;
use conformance_spec::hlo::{AttrValue, Attribute, Opcode};
use conformance_spec::random::RngAlgorithm;
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::ElementType;

/// True for the family's signatures.
pub fn is_random(signature: Signature) -> bool {
    signature == Signature::RngBitGenerator
}

/// Builds one case of a random-number entry.
///
/// Errors: not a signature of the family, an entry without a known `algorithm`, or an invalid
/// module (a generator bug).
pub fn build(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    if !is_random(spec.op.signature) {
        return Err(format!(
            "{:?} is not a signature of the random family",
            spec.op.signature
        ));
    }
    let name = spec
        .op
        .attributes
        .get("algorithm")
        .ok_or("an rng-bit-generator entry fixes algorithm")?;
    let algorithm =
        RngAlgorithm::from_name(name).ok_or_else(|| format!("unknown algorithm `{name}`"))?;
    let mut g = Gen::new(rng, spec);
    let words = *g.rng.pick(algorithm.state_words());
    let mut state: Vec<u128> = (0..words).map(|_| u128::from(g.rng.next_u64())).collect();
    match g.rng.below(6) {
        // The counter about to wrap: a few elements carry it past 2^64 (and, with a third
        // word of all ones, past 2^128).
        0 | 1 => {
            state[1] = u128::from(u64::MAX - g.rng.below(4));
            if words == 3 && g.rng.chance(0.5) {
                state[2] = u128::from(u64::MAX);
            }
        }
        // Keys of all zeros or all ones, small counters.
        2 => {
            state[0] = if g.rng.chance(0.5) {
                0
            } else {
                u128::from(u64::MAX)
            };
            state[1] = u128::from(g.rng.below(4));
        }
        _ => {}
    }
    let s = g.param_bits(ElementType::U64, &[words], &state)?;
    let dims = g.dims(0);
    let layout = g.layout(&dims);
    let data = ArrayShape::new(spec.element_type, dims).with_layout(layout);
    let shape = Shape::Tuple(vec![
        Shape::array(ElementType::U64, vec![words]),
        Shape::Array(data),
    ]);
    let root =
        g.b.add_instruction(
            Opcode::RngBitGenerator,
            shape,
            vec![s],
            vec![Attribute {
                name: "algorithm".into(),
                value: AttrValue::Raw(algorithm.hlo_name().into()),
            }],
        )
        .map_err(|e| format!("rng-bit-generator: {e}"))?;
    g.into_built(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of the family on every element type builds valid modules that the reference
    /// runs, and the state sizes cover every one the algorithm takes.
    #[test]
    fn every_entry_builds_valid_cases() {
        let built = crate::generate::test_support::build_every_entry(
            |op| is_random(op.signature),
            8,
            build,
        );
        assert!(
            built >= 3 * 19 * 8,
            "only {built} random-number cases built"
        );
    }
}
