//! Kernels: explicit SIMD kernels for the f32 transcendental functions `exponential`, `tanh` and
//! `logistic` (AVX-512F on 16 lanes, AVX2+FMA on 8, and a scalar fallback that computes the same
//! bits), the streaming f32 arithmetic of [`arith`], and the scalar f64 functions of [`libm64`].
//!
//! The f32 kernels evaluate in f32. Each is written once over the `lanes` abstraction (one IEEE
//! operation per step, fused multiply-adds, table lookups by lane permutation, `vscalefps`-style
//! scaling by 2^m with one rounding), so the three instruction sets run the same operation
//! sequence and give the same bits. `exp` and `logistic` share the exponential's reduction
//! ([`exp`]: an 8-entry table of 2^(j/8) in two parts, a two-part ln 2, a degree-4 polynomial);
//! `tanh` uses an odd polynomial near 0 and a 16-interval piecewise polynomial with Gal-style
//! centers beyond ([`tanh`]); `logistic` keeps exact pairs (Fast2Sum) and corrects its one
//! division by the residual. No result is off by more than 1 ULP from the correctly rounded value
//! — the catalog's budget — including subnormal results, overflow to inf and underflow to 0 at the
//! exact thresholds, signed zeros and NaN (NaN in → the input quieted out). No kernel sets flush-to-zero or denormals-are-zero. The polynomial constants come from
//! `fit_f32_kernels.py` (mpmath) in this directory.
//!
//! Error bounds, from the exhaustive scan over all 2^32 inputs
//! (`cargo run --release -p conformance-fast --example scan_f32_kernels`, see [`scan`]): errors in
//! f32 ULPs against f64 libm, distances in ULPs to the f64 value rounded to f32; every instruction
//! set gave the same bits on every input.
//!
//! | kernel   | max error | over normal results | max distance | not correctly rounded |
//! |----------|-----------|---------------------|--------------|-----------------------|
//! | exp      | 0.7636    | 0.5921              | 1            | 3,010,039 (0.07 %)    |
//! | tanh     | 0.6311    | 0.6311              | 1            | 1,220,760 (0.03 %)    |
//! | logistic | 0.7636    | 0.5908              | 1            | 1,154,896 (0.03 %)    |
//!
//! No overflow or underflow threshold is misplaced (no result is ±inf or 0 where the correctly
//! rounded one is not, or the reverse), signed zeros are those of the reference, and NaN inputs
//! give NaN.
//!
//! These kernels serve f32 only: bf16, f16 and the f8 types go through f64 and round once (a
//! 1-ULP f32 result rounded again would not be correctly rounded in the narrow format).

pub mod arith;
pub mod exp;
pub(crate) mod lanes;
pub mod libm64;
pub mod logistic;
pub mod scan;
pub mod tanh;

/// The instruction set a kernel runs with, ordered from least to most capable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Plain Rust (the same operation sequence, fused multiply-adds by `mul_add`).
    Scalar,
    /// AVX2 and FMA (8 f32 lanes for the f32 kernels).
    Avx2Fma,
    /// AVX-512F (16 f32 lanes for the f32 kernels).
    Avx512,
}

/// The environment variable that caps the instruction set fast uses ([`Isa::detect`]), as
/// `ONEDNN_MAX_CPU_ISA` or XLA's `--xla_cpu_max_isa` do: `scalar`, `avx2` or `avx512`.
pub const ISA_ENV: &str = "CONFORMANCE_FAST_ISA";

impl Isa {
    /// The best instruction set this CPU supports (detected at run time), ignoring [`ISA_ENV`].
    pub fn hardware() -> Isa {
        static HARDWARE: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *HARDWARE.get_or_init(|| Isa::available().into_iter().max().unwrap_or(Isa::Scalar))
    }

    /// True when this CPU runs `self` ([`Isa::available`], detected once per process).
    pub fn is_available(self) -> bool {
        static AVAILABLE: std::sync::OnceLock<Vec<Isa>> = std::sync::OnceLock::new();
        AVAILABLE.get_or_init(Isa::available).contains(&self)
    }

    /// The instruction set fast runs with by default: [`Isa::hardware`], capped by the
    /// environment variable [`ISA_ENV`] when it is set (read once per process). A value this CPU
    /// lacks gives the best one it has below it; an unknown value is ignored (the backends that
    /// take an ISA by name, [`Isa::parse`], report it).
    pub fn detect() -> Isa {
        static DETECTED: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            let cap = std::env::var(ISA_ENV)
                .ok()
                .and_then(|v| Isa::parse(&v).ok())
                .unwrap_or(Isa::Avx512);
            Isa::best_up_to(cap)
        })
    }

    /// The most capable instruction set of this CPU that is not above `cap`.
    pub fn best_up_to(cap: Isa) -> Isa {
        [Isa::Avx512, Isa::Avx2Fma]
            .into_iter()
            .find(|&i| i <= cap && i.is_available())
            .unwrap_or(Isa::Scalar)
    }

    /// The instruction set named `text`: `scalar`, `avx2` (AVX2 with FMA) or `avx512` (AVX-512F),
    /// case-insensitive.
    ///
    /// Errors: any other text, with the list of names.
    pub fn parse(text: &str) -> Result<Isa, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "scalar" => Ok(Isa::Scalar),
            "avx2" => Ok(Isa::Avx2Fma),
            "avx512" => Ok(Isa::Avx512),
            other => Err(format!(
                "unknown instruction set `{other}` (expected scalar, avx2 or avx512)"
            )),
        }
    }

    /// The name [`Isa::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2Fma => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// Every instruction set usable on this CPU (for tests comparing them).
    pub fn available() -> Vec<Isa> {
        #[allow(unused_mut)] // only pushed to on x86-64
        let mut v = vec![Isa::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                v.push(Isa::Avx2Fma);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                v.push(Isa::Avx512);
            }
        }
        v
    }
}

/// An f32 → f32 kernel over slices, for the instruction sets of [`Isa`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F32Kernel {
    /// `exponential`: e^x (seed 004, Exp).
    Exp,
    /// `tanh` (seed 004, Tanh).
    Tanh,
    /// `logistic`: 1/(1 + e^−x) (seed 004, Logistic).
    Logistic,
}

impl F32Kernel {
    /// Computes `out[i] = f(x[i])` with the given instruction set (which must be available:
    /// one not supported by this CPU falls back to [`Isa::Scalar`]).
    ///
    /// `stream` writes the output with non-temporal stores (AVX-512 path; for outputs larger than
    /// the caches); the result bits do not depend on it. Panics if the slices differ in length.
    pub fn run(self, isa: Isa, x: &[f32], out: &mut [f32], stream: bool) {
        match self {
            F32Kernel::Exp => exp::exp_f32(isa, x, out, stream),
            F32Kernel::Tanh => tanh::tanh_f32(isa, x, out, stream),
            F32Kernel::Logistic => logistic::logistic_f32(isa, x, out, stream),
        }
    }
}

/// `isa` if this CPU supports it, else [`Isa::Scalar`].
fn checked(isa: Isa) -> Isa {
    if isa.is_available() {
        isa
    } else {
        Isa::Scalar
    }
}

#[cfg(test)]
mod tests {
    use super::Isa;

    #[test]
    fn isa_names_round_trip_and_order() {
        for isa in [Isa::Scalar, Isa::Avx2Fma, Isa::Avx512] {
            assert_eq!(Isa::parse(isa.name()), Ok(isa));
        }
        assert_eq!(Isa::parse(" AVX2 "), Ok(Isa::Avx2Fma));
        assert!(Isa::parse("sse4")
            .unwrap_err()
            .contains("scalar, avx2 or avx512"));
        assert!(Isa::Scalar < Isa::Avx2Fma && Isa::Avx2Fma < Isa::Avx512);
    }

    #[test]
    fn detect_is_available_and_at_most_the_hardware() {
        let d = Isa::detect();
        assert!(Isa::available().contains(&d));
        assert!(d <= Isa::hardware());
        assert_eq!(Isa::hardware(), *Isa::available().iter().max().unwrap());
    }
}
