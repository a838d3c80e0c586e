//! One output element's accumulation: exact terms in, the result element's bits out, and (on
//! request) what the tolerance needs ([`AccumulationBound`]).
//!
//! Operands are decoded once into [`Value`]s (exact; integers as `i128`, floats as [`Real`]);
//! [`Mode`] says how terms of the operand type land in the result type (issue 5's shared
//! decisions):
//! - float operands, float result (any two formats: f32 × f32 → f32, bf16 × bf16 → f32, ...):
//!   the exact sum of exact products, rounded once into the result format ([`ExactSum`]);
//! - complex operands, complex result: the real and imaginary parts each summed exactly
//!   (`(a + bi)(c + di) = (ac − bd) + (ad + bc)i`: two real terms per component and product) and
//!   each rounded once;
//! - integer (or pred) operands, integer result (s8 × s8 → s32, ...): the exact sum wrapped to
//!   the result width in two's complement (computed modulo 2^128, which is exact modulo any
//!   narrower width); pred results are "non-zero";
//! - integer operands, float result: the exact integer sum rounded once.
//!
//! Other combinations (a float operand with an integer result, real with complex) are
//! [`BackendError::Unsupported`].

use super::exact_sum::{product, ExactSum, Real, Term};
use super::AccumulationBound;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::index;
use conformance_spec::literal::{complex_bits, complex_parts, ArrayLiteral};
use conformance_spec::shape::ArrayShape;
use conformance_spec::BackendError;
use rayon::prelude::*;

/// A decoded operand element (exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i128),
    Real(Real),
    Complex(Real, Real),
}

/// Decodes the bits of one element of type `ty`.
pub fn decode(ty: ElementType, bits: u128) -> Value {
    if ty.is_complex() {
        let fmt = ty
            .float_format()
            .expect("complex types have a component format");
        let (re, im) = complex_parts(fmt, bits);
        return Value::Complex(Real::from_bits(fmt, re), Real::from_bits(fmt, im));
    }
    if let Some(fmt) = ty.float_format() {
        return Value::Real(Real::from_bits(fmt, bits as u64));
    }
    Value::Int(ty.integer_from_bits(bits as u64).unwrap_or(0))
}

/// Every element of `a`, decoded, in logical row-major order (any layout).
pub fn decode_array(a: &ArrayLiteral) -> Vec<Value> {
    let ty = a.element_type();
    index::physical_positions(a.shape())
        .into_iter()
        .map(|p| decode(ty, a.get_bits_linear(p)))
        .collect()
}

/// How terms of an operand type accumulate into a result type (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Float(FloatFormat),
    Complex(FloatFormat),
    Integer(ElementType),
    IntegerToFloat(FloatFormat),
}

impl Mode {
    /// The mode for operands of type `operand` and a result of type `result`.
    ///
    /// Errors: [`BackendError::Unsupported`] naming `op` for a combination outside the module
    /// docs' list.
    pub fn new(op: &str, operand: ElementType, result: ElementType) -> Result<Mode, BackendError> {
        let integer = |t: ElementType| t.is_integer() || t.is_pred();
        let fmt = result.float_format();
        match fmt {
            Some(f) if operand.is_float() && result.is_float() => Ok(Mode::Float(f)),
            Some(f) if operand.is_complex() && result.is_complex() => Ok(Mode::Complex(f)),
            Some(f) if integer(operand) && result.is_float() => Ok(Mode::IntegerToFloat(f)),
            None if integer(operand) && integer(result) => Ok(Mode::Integer(result)),
            _ => Err(BackendError::Unsupported(format!(
                "{op}: accumulating {operand} terms into a {result} result is not defined"
            ))),
        }
    }
}

/// Magnitude sums for [`AccumulationBound`].
#[derive(Clone, Debug, Default)]
struct Magnitudes {
    terms: u64,
    re: ExactSum,
    im: ExactSum,
}

/// The accumulation of one output element.
#[derive(Clone, Debug)]
pub struct Accumulator {
    mode: Mode,
    re: ExactSum,
    im: ExactSum,
    int: i128,
    magnitudes: Option<Box<Magnitudes>>,
}

impl Accumulator {
    /// The empty sum; with `track` it also counts terms and sums their magnitudes.
    pub fn new(mode: Mode, track: bool) -> Accumulator {
        Accumulator {
            mode,
            re: ExactSum::new(),
            im: ExactSum::new(),
            int: 0,
            magnitudes: track.then(Box::default),
        }
    }

    /// The sum of products of dot and convolution: starts from an implicit +0 (not a term), so
    /// an exact zero result is +0 even when every product is −0 (as every implementation's
    /// accumulator, initialized to +0, gives).
    pub fn for_products(mode: Mode, track: bool) -> Accumulator {
        Accumulator {
            re: ExactSum::from_positive_zero(),
            im: ExactSum::from_positive_zero(),
            ..Accumulator::new(mode, track)
        }
    }

    /// Adds the product `a × b` (both of the operand type).
    pub fn add_product(&mut self, a: &Value, b: &Value) {
        match (self.mode, a, b) {
            (Mode::Integer(_), &Value::Int(x), &Value::Int(y)) => {
                self.int = self.int.wrapping_add(x.wrapping_mul(y));
                if let Some(m) = &mut self.magnitudes {
                    m.terms += 1;
                    m.re.add_integer_product(x.abs(), y.abs());
                }
            }
            (Mode::IntegerToFloat(_), &Value::Int(x), &Value::Int(y)) => {
                self.re.add_integer_product(x, y);
                if let Some(m) = &mut self.magnitudes {
                    m.terms += 1;
                    m.re.add_integer_product(x.abs(), y.abs());
                }
            }
            (Mode::Float(_), &Value::Real(x), &Value::Real(y)) => self.add_re(product(x, y)),
            (Mode::Complex(_), &Value::Complex(ar, ai), &Value::Complex(br, bi)) => {
                let (rr, ii) = (product(ar, br), product(ai, bi).negate());
                let (ri, ir) = (product(ar, bi), product(ai, br));
                self.re.add(rr);
                self.re.add(ii);
                self.im.add(ri);
                self.im.add(ir);
                if let Some(m) = &mut self.magnitudes {
                    m.terms += 2;
                    m.re.add(rr.abs());
                    m.re.add(ii.abs());
                    m.im.add(ri.abs());
                    m.im.add(ir.abs());
                }
            }
            _ => debug_assert!(false, "operand values do not match {:?}", self.mode),
        }
    }

    /// Adds the value `a` (of the operand type) as one term.
    pub fn add_value(&mut self, a: &Value) {
        match (self.mode, a) {
            (Mode::Integer(_), &Value::Int(x)) => {
                self.int = self.int.wrapping_add(x);
                if let Some(m) = &mut self.magnitudes {
                    m.terms += 1;
                    m.re.add_integer_product(x.abs(), 1);
                }
            }
            (Mode::IntegerToFloat(_), &Value::Int(x)) => {
                self.re.add_integer_product(x, 1);
                if let Some(m) = &mut self.magnitudes {
                    m.terms += 1;
                    m.re.add_integer_product(x.abs(), 1);
                }
            }
            (Mode::Float(_), &Value::Real(x)) => self.add_re(x.into()),
            (Mode::Complex(_), &Value::Complex(re, im)) => {
                self.re.add(re.into());
                self.im.add(im.into());
                if let Some(m) = &mut self.magnitudes {
                    m.terms += 1;
                    m.re.add(Term::from(re).abs());
                    m.im.add(Term::from(im).abs());
                }
            }
            _ => debug_assert!(false, "value does not match {:?}", self.mode),
        }
    }

    fn add_re(&mut self, t: Term) {
        self.re.add(t);
        if let Some(m) = &mut self.magnitudes {
            m.terms += 1;
            m.re.add(t.abs());
        }
    }

    /// The result element's bits: the exact sum rounded once (floats, each complex component) or
    /// wrapped (integers).
    pub fn finish(&self) -> u128 {
        match self.mode {
            Mode::Float(f) | Mode::IntegerToFloat(f) => u128::from(self.re.round_to(f)),
            Mode::Complex(f) => complex_bits(f, self.re.round_to(f), self.im.round_to(f)),
            Mode::Integer(t) => u128::from(t.integer_to_bits(self.int).unwrap_or(0)),
        }
    }

    /// The term count and magnitude sum (see [`AccumulationBound`]); zeros when not tracking.
    pub fn bound(&self) -> AccumulationBound {
        match &self.magnitudes {
            None => AccumulationBound {
                terms: 0,
                abs_sum: 0.0,
                slack: 0.0,
            },
            Some(m) => AccumulationBound {
                terms: m.terms,
                abs_sum: m.re.round_up_f64().max(m.im.round_up_f64()),
                slack: 0.0,
            },
        }
    }
}

/// The sums of products of dot and convolution: an array of `shape` whose element at every index
/// `j` (row-major over `shape.dimensions`) is the sum that `products(j, acc)` adds to a fresh
/// [`Accumulator::for_products`] of `mode`, rounded once. Returns the array (in `shape`'s layout)
/// and, with `track`, the bound of each element in row-major order (empty otherwise).
///
/// Output elements are independent, so they are evaluated in parallel (rayon); each is still one
/// exact sum rounded once, so the result does not depend on the thread count.
pub(crate) fn sums_of_products(
    shape: &ArrayShape,
    mode: Mode,
    track: bool,
    products: impl Fn(&[i64], &mut Accumulator) + Sync,
) -> (ArrayLiteral, Vec<AccumulationBound>) {
    let dims = &shape.dimensions;
    let count = if dims.iter().any(|&d| d <= 0) {
        0
    } else {
        dims.iter().product::<i64>() as usize
    };
    let elements: Vec<(u128, AccumulationBound)> = (0..count)
        .into_par_iter()
        .with_min_len(16)
        .map_init(
            || vec![0i64; dims.len()],
            |j, n| {
                let mut rest = n;
                for d in (0..dims.len()).rev() {
                    let size = dims[d] as usize;
                    j[d] = (rest % size) as i64;
                    rest /= size;
                }
                let mut acc = Accumulator::for_products(mode, track);
                products(j, &mut acc);
                (acc.finish(), acc.bound())
            },
        )
        .collect();
    let mut out = ArrayLiteral::zeros(shape.clone());
    let positions = index::physical_positions(shape);
    for (&p, &(bits, _)) in positions.iter().zip(&elements) {
        out.set_bits_linear(p, bits);
    }
    let bounds = if track {
        elements.into_iter().map(|(_, b)| b).collect()
    } else {
        Vec::new()
    };
    (out, bounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> Value {
        Value::Real(Real::from_f64(x))
    }

    #[test]
    fn modes_follow_the_type_pairs() {
        use ElementType::*;
        assert_eq!(
            Mode::new("dot", Bf16, F32).unwrap(),
            Mode::Float(FloatFormat::F32)
        );
        assert_eq!(Mode::new("dot", S8, S32).unwrap(), Mode::Integer(S32));
        assert_eq!(
            Mode::new("dot", C64, C64).unwrap(),
            Mode::Complex(FloatFormat::F32)
        );
        assert_eq!(
            Mode::new("dot", S32, F64).unwrap(),
            Mode::IntegerToFloat(FloatFormat::F64)
        );
        assert!(
            matches!(Mode::new("dot", F32, S32), Err(BackendError::Unsupported(m)) if m.contains("dot"))
        );
        assert!(Mode::new("dot", F32, C64).is_err());
    }

    #[test]
    fn integer_sums_wrap_to_the_result_width() {
        let mut a = Accumulator::new(Mode::Integer(ElementType::S8), true);
        a.add_product(&Value::Int(100), &Value::Int(2)); // 200 wraps to -56
        assert_eq!(a.finish() as u8 as i8, -56);
        a.add_value(&Value::Int(-100));
        assert_eq!(a.finish() as u8 as i8, 100);
        assert_eq!(a.bound().terms, 2);
        assert_eq!(a.bound().abs_sum, 300.0);
        let mut p = Accumulator::new(Mode::Integer(ElementType::Pred), false);
        p.add_product(&Value::Int(1), &Value::Int(0));
        assert_eq!(p.finish(), 0);
        p.add_product(&Value::Int(1), &Value::Int(1));
        assert_eq!(p.finish(), 1);
    }

    #[test]
    fn complex_components_are_exact_then_rounded_once() {
        // (1 + 2^-30 i)(1 + 2^-30 i) = (1 − 2^-60) + 2^-29 i: in f32 the real part rounds to 1.
        let z = Value::Complex(Real::from_f64(1.0), Real::from_f64(2f64.powi(-30)));
        let mut a = Accumulator::new(Mode::Complex(FloatFormat::F32), true);
        a.add_product(&z, &z);
        let (re, im) = complex_parts(FloatFormat::F32, a.finish());
        assert_eq!(f32::from_bits(re as u32), 1.0);
        assert_eq!(f32::from_bits(im as u32), 2f32.powi(-29));
        // Add −1: the real part is now exactly −2^-60 (the rounding happened only once).
        a.add_value(&Value::Complex(
            Real::from_f64(-1.0),
            Real::Zero { negative: false },
        ));
        let (re, _) = complex_parts(FloatFormat::F32, a.finish());
        assert_eq!(f32::from_bits(re as u32), -(2f32.powi(-60)));
        let b = a.bound();
        assert_eq!(b.terms, 3);
        // Σ|re terms| = 2 + 2^-60, rounded UP to f64: the next double above 2.
        assert_eq!(b.abs_sum, 2.0 + 2f64.powi(-51));
    }

    #[test]
    fn mixed_precision_rounds_once_into_the_result() {
        // bf16 1 + 2^-7 squared = 1 + 2^-6 + 2^-14: exact in f32, not in bf16.
        let x = decode(ElementType::Bf16, 0x3f81);
        let mut a = Accumulator::new(Mode::Float(FloatFormat::F32), false);
        a.add_product(&x, &x);
        assert_eq!(
            f32::from_bits(a.finish() as u32),
            1.0 + 2f32.powi(-6) + 2f32.powi(-14)
        );
        let mut b = Accumulator::new(Mode::Float(FloatFormat::BF16), false);
        b.add_product(&x, &x);
        assert_eq!(b.finish(), 0x3f82);
        let mut c = Accumulator::new(Mode::IntegerToFloat(FloatFormat::F32), false);
        c.add_product(&Value::Int(16_777_217), &Value::Int(1));
        assert_eq!(f32::from_bits(c.finish() as u32), 16_777_216.0);
    }

    #[test]
    fn inf_times_zero_is_nan_and_bounds_are_infinite() {
        let mut a = Accumulator::new(Mode::Float(FloatFormat::F32), true);
        a.add_product(&f(f64::INFINITY), &f(0.0));
        assert!(f32::from_bits(a.finish() as u32).is_nan());
        assert_eq!(a.bound().abs_sum, f64::INFINITY);
    }
}
