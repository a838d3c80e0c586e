//! Cases of the random-number operations (seed 004, RngBitGenerator, RngUniform, RngNormal),
//! valid by construction. `rng-bit-generator`:
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
    matches!(signature, Signature::RngBitGenerator | Signature::Rng)
}

/// Builds one case of a random-number entry.
///
/// Errors: not a signature of the family, an entry without a known `algorithm`, or an invalid
/// module (a generator bug).
pub fn build(rng_source: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    if !is_random(spec.op.signature) {
        return Err(format!(
            "{:?} is not a signature of the random family",
            spec.op.signature
        ));
    }
    if spec.op.signature == Signature::Rng {
        return rng(rng_source, spec);
    }
    let name = spec
        .op
        .attributes
        .get("algorithm")
        .ok_or("an rng-bit-generator entry fixes algorithm")?;
    let algorithm =
        RngAlgorithm::from_name(name).ok_or_else(|| format!("unknown algorithm `{name}`"))?;
    let mut g = Gen::new(rng_source, spec);
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

/// A case of `rng` (seed 004, RngUniform, RngNormal): the parameters as scalar parameters, the
/// result of any shape the sweep draws (large ones give the statistical tests their power).
/// Uniform integers: small ranges, ranges of a few values, ranges that do not divide 2³² or
/// 2⁶⁴ (where `bits mod (b − a)` is biased, up to three quarters of the type), the whole type;
/// uniform floats: unit and symmetric intervals, intervals one or a few ULPs wide, the whole
/// finite range, subnormal ones; normal: means and deviations across magnitudes; now and then
/// parameters the seed leaves open (`b ≤ a`, `σ ≤ 0`, NaN, infinity), which are masked.
fn rng(source: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let normal = spec.op.attributes.get("distribution").map(String::as_str) == Some("rng_normal");
    let ty = spec.element_type;
    let mut g = Gen::new(source, spec);
    let (a, b): (u128, u128) = match ty.float_format().filter(|_| ty.is_float()) {
        Some(f) => {
            let enc = |x: f64| u128::from(f.encode(x));
            let max = f.max_finite();
            let open = g.rng.chance(0.08);
            if open {
                let v = [f64::NAN, f64::INFINITY, -1.0, 0.0, 2.0];
                (enc(*g.rng.pick(&v)), enc(*g.rng.pick(&v)))
            } else if normal {
                let mu = (g.rng.unit() * 2.0 - 1.0) * 2f64.powi(g.rng.range_i64(-8, 8) as i32);
                let sigma = 2f64.powi(g.rng.range_i64(-10, 6) as i32) * (0.5 + g.rng.unit());
                (enc(mu), enc(sigma.min(max / 16.0)))
            } else {
                match g.rng.below(6) {
                    0 => (enc(0.0), enc(1.0)),
                    1 => {
                        let a = f.encode(1.0);
                        let ulps = 1 + g.rng.below(4) as i64;
                        (
                            u128::from(a),
                            u128::from(f.from_ordered(f.to_ordered(a) + ulps)),
                        )
                    }
                    2 => (enc(-max), enc(max)),
                    3 => (enc(0.0), u128::from(f.from_ordered(8))),
                    _ => {
                        let s = 2f64.powi(g.rng.range_i64(-6, 10) as i32).min(max / 4.0);
                        let a = (g.rng.unit() * 2.0 - 1.0) * s;
                        let b = a + s * (0.25 + g.rng.unit());
                        let (ea, eb) = (f.encode(a), f.encode(b));
                        if f.decode(ea) < f.decode(eb) {
                            (u128::from(ea), u128::from(eb))
                        } else {
                            (enc(0.0), enc(1.0))
                        }
                    }
                }
            }
        }
        None => {
            let (min, max) = ty.integer_range().ok_or("an integer or pred type")?;
            let (lo, hi): (i128, i128) = if ty.is_pred() {
                *g.rng.pick(&[(0, 1), (0, 1), (1, 1), (1, 0)])
            } else {
                match g.rng.below(8) {
                    0 => (min, max),
                    1 => {
                        // Three quarters of the type: bits mod r is biased by 2:1.
                        let span = max - min + 1;
                        (min, min + span / 4 * 3)
                    }
                    2 => {
                        let lo = g.rng.range_i64(-3, 3) as i128;
                        (lo.clamp(min, max), (lo + 1).clamp(min, max))
                    }
                    3 => {
                        let lo = g.rng.range_i64(0, 5) as i128;
                        (lo.max(min), lo + 2 + g.rng.below(5) as i128)
                    }
                    4 => {
                        let lo = g.rng.range_i64(-3, 3) as i128;
                        (
                            lo.clamp(min, max),
                            lo.clamp(min, max) - g.rng.below(3) as i128,
                        )
                    }
                    _ => {
                        let lo = g.rng.range_i64(-100, 100) as i128;
                        let lo = lo.clamp(min, max);
                        (lo, (lo + 1 + g.rng.below(1000) as i128).min(max))
                    }
                }
            };
            let bits = |v: i128| u128::from(ty.integer_to_bits(v.clamp(min, max)).unwrap_or(0));
            (bits(lo), bits(hi))
        }
    };
    let pa = g.param_bits(ty, &[], &[a])?;
    let pb = g.param_bits(ty, &[], &[b])?;
    let dims = g.dims(0);
    let root = g.add(
        Opcode::Rng,
        Shape::array(ty, dims),
        vec![pa, pb],
        vec![Attribute {
            name: "distribution".into(),
            value: AttrValue::Enum(if normal { "rng_normal" } else { "rng_uniform" }.into()),
        }],
    )?;
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
