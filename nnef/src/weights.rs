//! Deterministic generated tensor values, for variables that have no `.dat` file (the Khronos
//! example networks ship without weights) and for graph inputs.
//!
//! Every value is a pure function of its arguments: the label (or input name) is hashed with
//! FNV-1a (64-bit), mixed with the seed and a domain tag (weights and inputs draw different
//! streams), and the elements are drawn in row-major order from a SplitMix64 stream. Only
//! integer arithmetic and correctly rounded f64 operations are used, so the values are the same
//! on every platform and in every build.

use conformance_spec::element_type::ElementType;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;

use crate::graph::DataType;

/// The range a generated variable's values are drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WeightRole {
    /// Filter or matrix weights: uniform in `±sqrt(3 / fan_in)` with `fan_in` the product of the
    /// extents after the first (1 for rank 0 or 1), so each output of a convolution or matrix
    /// product keeps about the variance of its inputs through deep networks (VGG, ResNet).
    Weight,
    /// Strictly positive values (variances, scales): uniform in `[0.5, 1.5]`.
    Positive,
    /// Anything else (biases, means, offsets): uniform in `[-1, 1]`.
    Any,
}

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
const DOMAIN_WEIGHT: u64 = 0x5745_4947_4854_5321; // "WEIGHTS!"
const DOMAIN_INPUT: u64 = 0x494e_5055_5453_2121; // "INPUTS!!"

/// FNV-1a (64-bit) of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET_BASIS, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// The SplitMix64 generator (Steele, Lea, Flood 2014): a 64-bit state advanced by a fixed odd
/// constant and a bijective output mix.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform value in `[0, 1)` with 53 random bits.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform value in `[lo, hi]` (the top end reachable only by rounding).
    pub fn next_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_unit()
    }

    /// A uniform integer in `[lo, hi]` (`lo <= hi`; modulo bias below 2^-50 for small ranges).
    pub fn next_integer(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (u128::from(self.next_u64()) % span) as i128) as i64
    }
}

fn stream(domain: u64, name: &str, seed: u64) -> SplitMix64 {
    let mut mix = SplitMix64::new(fnv1a(name.as_bytes()) ^ domain);
    let start = mix.next_u64() ^ seed.wrapping_mul(GOLDEN_GAMMA);
    SplitMix64::new(start)
}

/// `fan_in` of a weight tensor: the product of the extents after the first, at least 1.
pub fn fan_in(shape: &[usize]) -> usize {
    shape
        .iter()
        .skip(1)
        .fold(1usize, |acc, &e| acc.saturating_mul(e))
        .max(1)
}

fn build(dtype: DataType, shape: &[usize], mut next: impl FnMut() -> Element) -> Literal {
    let count: usize = shape.iter().product();
    let dims: Vec<i64> = shape.iter().map(|&e| e as i64).collect();
    let (element_type, width) = match dtype {
        DataType::Scalar => (ElementType::F32, 4),
        DataType::Integer => (ElementType::S32, 4),
        DataType::Logical => (ElementType::Pred, 1),
    };
    let mut bytes = Vec::with_capacity(count * width);
    for _ in 0..count {
        match next() {
            Element::Real(x) => bytes.extend_from_slice(&(x as f32).to_le_bytes()),
            Element::Integer(i) => bytes.extend_from_slice(&(i as i32).to_le_bytes()),
            Element::Logical(b) => bytes.push(u8::from(b)),
        }
    }
    let literal = ArrayLiteral::from_physical_bytes(ArrayShape::new(element_type, dims), bytes)
        .expect("one element of the type's width per item of the shape");
    Literal::from(literal)
}

enum Element {
    Real(f64),
    Integer(i64),
    Logical(bool),
}

/// Generated values for the variable `label` of `shape` (extents, elements) and `dtype`:
/// `scalar` → f32 drawn per `role` (see [`WeightRole`]); `integer` → s32 uniform in `[0, 3]`
/// ([`WeightRole::Any`]: `[-3, 3]`), small enough to be valid indices or counts in most uses;
/// `logical` → pred, true with probability 1/2.
///
/// A pure function of its arguments: the same label, shape, type, role and seed give the same
/// literal on every run and platform; changing any of them changes the values.
pub fn generate(
    label: &str,
    shape: &[usize],
    dtype: DataType,
    role: WeightRole,
    seed: u64,
) -> Literal {
    let mut rng = stream(DOMAIN_WEIGHT, label, seed);
    let bound = (3.0 / fan_in(shape) as f64).sqrt();
    build(dtype, shape, || match dtype {
        DataType::Scalar => Element::Real(match role {
            WeightRole::Weight => rng.next_in(-bound, bound),
            WeightRole::Positive => rng.next_in(0.5, 1.5),
            WeightRole::Any => rng.next_in(-1.0, 1.0),
        }),
        DataType::Integer => Element::Integer(match role {
            WeightRole::Any => rng.next_integer(-3, 3),
            _ => rng.next_integer(0, 3),
        }),
        DataType::Logical => Element::Logical(rng.next_u64() >> 63 == 1),
    })
}

/// Generated values for the graph input `name` of `shape` and `dtype`: `scalar` → f32 uniform in
/// `[-1, 1]`; `integer` → s32 uniform in `[0, 3]`; `logical` → pred, true with probability 1/2.
///
/// A pure function of its arguments, drawn from a different stream than [`generate`] (an input
/// and a variable of the same name get different values).
pub fn generate_input(name: &str, shape: &[usize], dtype: DataType, seed: u64) -> Literal {
    let mut rng = stream(DOMAIN_INPUT, name, seed);
    build(dtype, shape, || match dtype {
        DataType::Scalar => Element::Real(rng.next_in(-1.0, 1.0)),
        DataType::Integer => Element::Integer(rng.next_integer(0, 3)),
        DataType::Logical => Element::Logical(rng.next_u64() >> 63 == 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(lit: &Literal) -> Vec<f64> {
        lit.as_array().unwrap().to_f64s().unwrap()
    }

    fn ints(lit: &Literal) -> Vec<i128> {
        lit.as_array().unwrap().to_i128s().unwrap()
    }

    #[test]
    fn known_hash_and_generator_values() {
        // FNV-1a test vectors (Fowler/Noll/Vo reference).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        // SplitMix64 from seed 0 (reference outputs of the published algorithm).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn generation_is_deterministic_and_depends_on_every_argument() {
        let shape = [4, 3, 2, 2];
        let a = generate(
            "conv1/kernel",
            &shape,
            DataType::Scalar,
            WeightRole::Weight,
            7,
        );
        let b = generate(
            "conv1/kernel",
            &shape,
            DataType::Scalar,
            WeightRole::Weight,
            7,
        );
        assert_eq!(a, b);
        let other_label = generate(
            "conv2/kernel",
            &shape,
            DataType::Scalar,
            WeightRole::Weight,
            7,
        );
        let other_seed = generate(
            "conv1/kernel",
            &shape,
            DataType::Scalar,
            WeightRole::Weight,
            8,
        );
        let other_role = generate("conv1/kernel", &shape, DataType::Scalar, WeightRole::Any, 7);
        assert_ne!(f32s(&a), f32s(&other_label));
        assert_ne!(f32s(&a), f32s(&other_seed));
        assert_ne!(f32s(&a), f32s(&other_role));
        let input = generate_input("conv1/kernel", &shape, DataType::Scalar, 7);
        assert_ne!(f32s(&a), f32s(&input));
        assert_eq!(
            input,
            generate_input("conv1/kernel", &shape, DataType::Scalar, 7)
        );
    }

    #[test]
    fn values_stay_in_their_ranges() {
        let shape = [16, 8, 3, 3];
        let bound = (3.0f64 / 72.0).sqrt();
        let w = f32s(&generate(
            "w",
            &shape,
            DataType::Scalar,
            WeightRole::Weight,
            1,
        ));
        assert_eq!(w.len(), 16 * 72);
        assert!(w.iter().all(|x| x.abs() <= bound * (1.0 + 1e-6)));
        // Uniform on ±b has variance b²/3 = 1/fan_in.
        let var = w.iter().map(|x| x * x).sum::<f64>() / w.len() as f64;
        assert!(
            (var * 72.0 - 1.0).abs() < 0.15,
            "variance × fan_in = {}",
            var * 72.0
        );
        let p = f32s(&generate(
            "v",
            &[1000],
            DataType::Scalar,
            WeightRole::Positive,
            1,
        ));
        assert!(p.iter().all(|&x| (0.5..=1.5).contains(&x)));
        let any = f32s(&generate(
            "b",
            &[1000],
            DataType::Scalar,
            WeightRole::Any,
            1,
        ));
        assert!(any.iter().all(|&x| (-1.0..=1.0).contains(&x)));
        assert!(any.iter().any(|&x| x < -0.9) && any.iter().any(|&x| x > 0.9));
        let x = f32s(&generate_input("x", &[1000], DataType::Scalar, 1));
        assert!(x.iter().all(|&v| (-1.0..=1.0).contains(&v)));
        let i = ints(&generate(
            "i",
            &[200],
            DataType::Integer,
            WeightRole::Weight,
            1,
        ));
        assert!(i.iter().all(|&v| (0..=3).contains(&v)));
        assert!((0..=3).all(|k| i.contains(&k)));
        let j = ints(&generate(
            "j",
            &[200],
            DataType::Integer,
            WeightRole::Any,
            1,
        ));
        assert!(j.iter().all(|&v| (-3..=3).contains(&v)) && j.contains(&-3));
        let l = ints(&generate_input("l", &[200], DataType::Logical, 1));
        let trues = l.iter().filter(|&&v| v == 1).count();
        assert!((60..140).contains(&trues), "{trues} of 200");
    }

    #[test]
    fn element_types_and_shapes() {
        let s = generate("s", &[], DataType::Scalar, WeightRole::Any, 0);
        assert_eq!(s.as_array().unwrap().element_type(), ElementType::F32);
        assert_eq!(s.as_array().unwrap().dimensions(), &[] as &[i64]);
        let i = generate_input("i", &[2, 3], DataType::Integer, 0);
        assert_eq!(i.as_array().unwrap().element_type(), ElementType::S32);
        assert_eq!(i.as_array().unwrap().dimensions(), &[2, 3]);
        let l = generate("l", &[5, 0], DataType::Logical, WeightRole::Any, 0);
        assert_eq!(l.as_array().unwrap().element_type(), ElementType::Pred);
        assert_eq!(fan_in(&[64]), 1);
        assert_eq!(fan_in(&[64, 3, 11, 11]), 363);
        assert_eq!(fan_in(&[4, 0]), 1);
    }
}
