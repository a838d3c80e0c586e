//! Accuracy scan of the f32 kernels: runs a kernel over a set of f32 inputs (given by their bit
//! patterns, up to all 2^32) and measures each result against an f64 reference, and checks that
//! every instruction set gives the same bits.
//!
//! The reference is f64 libm (`exp`, `tanh`, and `1/(1 + exp(−x))` for logistic), within a few f64
//! ULPs of the exact value: that decides every 1-ULP-of-f32 question except at exact f32
//! midpoints (a relative 2^-29 of the f32 ULP). Per input it records the distance, in f32 ULPs over
//! the ordered encodings, between the result and the reference rounded to f32 (the budget is 1),
//! and the error |y − ref| in ULPs of f32 at the reference (a result of ±inf counts as ±2^128).
//! It also requires NaN exactly for NaN inputs and the sign of a zero result to be that of the
//! rounded reference. `examples/scan_f32_kernels.rs` runs it over all 2^32 inputs (the proof of
//! the bounds stated in the kernels' module docs); `tests/simd_kernels.rs` over a dense sample.

use super::{F32Kernel, Isa};

/// What a scan found (merge partial reports of disjoint input sets with [`ScanReport::merge`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanReport {
    /// Number of inputs checked.
    pub inputs: u64,
    /// Largest distance in f32 ULPs (ordered encodings) between a result and the f64 reference
    /// rounded to f32.
    pub max_ulp_distance: u64,
    /// Largest error in f32 ULPs at the reference, over non-NaN results.
    pub max_error: f64,
    /// Bits of the input with the largest error.
    pub worst_input: u32,
    /// Largest error in f32 ULPs over the inputs whose reference is a normal f32 magnitude
    /// (at least 2^-126; results that round into the subnormal range excluded).
    pub max_error_normal: f64,
    /// Results that differ from the f64 reference rounded to f32 (distance ≥ 1).
    pub not_correctly_rounded: u64,
    /// Results that are ±inf or zero where the rounded reference is not, or the reverse (an
    /// overflow or underflow threshold in the wrong place; within the budget when the distance is
    /// 1, but reported).
    pub threshold_mismatches: u64,
    /// Inputs that fail: distance above 1, NaN-ness differing from the reference's, or a zero of
    /// the wrong sign.
    pub failures: u64,
    /// Inputs on which some instruction set's bits differ from the first one's.
    pub isa_mismatches: u64,
    /// Bits of the first failing or mismatching input (the smallest, after merging).
    pub first_problem: Option<u32>,
}

impl ScanReport {
    /// The report of the union of two disjoint input sets.
    pub fn merge(self, o: ScanReport) -> ScanReport {
        let (max_error, worst_input) = if o.max_error > self.max_error {
            (o.max_error, o.worst_input)
        } else {
            (self.max_error, self.worst_input)
        };
        ScanReport {
            inputs: self.inputs + o.inputs,
            max_ulp_distance: self.max_ulp_distance.max(o.max_ulp_distance),
            max_error,
            worst_input,
            max_error_normal: self.max_error_normal.max(o.max_error_normal),
            not_correctly_rounded: self.not_correctly_rounded + o.not_correctly_rounded,
            threshold_mismatches: self.threshold_mismatches + o.threshold_mismatches,
            failures: self.failures + o.failures,
            isa_mismatches: self.isa_mismatches + o.isa_mismatches,
            first_problem: match (self.first_problem, o.first_problem) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// No failure and no mismatch between instruction sets.
    pub fn passed(&self) -> bool {
        self.failures == 0 && self.isa_mismatches == 0
    }
}

impl F32Kernel {
    /// The f64 reference of the kernel's function (see the module docs).
    pub fn reference(self, x: f64) -> f64 {
        match self {
            F32Kernel::Exp => x.exp(),
            F32Kernel::Tanh => x.tanh(),
            F32Kernel::Logistic => 1.0 / (1.0 + (-x).exp()),
        }
    }
}

/// The position of an f32 encoding in the order of the values (±0 both at 0).
fn ordered(bits: u32) -> i64 {
    if bits & 0x8000_0000 != 0 {
        -((bits & 0x7fff_ffff) as i64)
    } else {
        bits as i64
    }
}

/// The f32 ULP at |r| (the spacing of the f32 values of r's binade; 2^-149 below 2^-126).
fn ulp_at(r: f64) -> f64 {
    let a = r.abs();
    if a < f64::from(f32::MIN_POSITIVE) {
        return (-149f64).exp2();
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    f64::from(e.min(127) - 23).exp2()
}

/// Scans `kernel` over the inputs whose bit patterns `bits` yields, with each instruction set of
/// `isas` (the first one's results are measured; the others must give the same bits; an
/// instruction set this CPU lacks runs as [`Isa::Scalar`]). Panics if `isas` is empty.
pub fn scan(kernel: F32Kernel, bits: impl IntoIterator<Item = u32>, isas: &[Isa]) -> ScanReport {
    const CHUNK: usize = 4096;
    assert!(!isas.is_empty(), "scan needs an instruction set");
    let mut report = ScanReport::default();
    let mut bits = bits.into_iter().peekable();
    let mut x = Vec::with_capacity(CHUNK);
    let mut y = vec![0f32; CHUNK];
    let mut other = vec![0f32; CHUNK];
    while bits.peek().is_some() {
        x.clear();
        x.extend(bits.by_ref().take(CHUNK).map(f32::from_bits));
        let (y, other) = (&mut y[..x.len()], &mut other[..x.len()]);
        kernel.run(isas[0], &x, y, false);
        for &isa in &isas[1..] {
            kernel.run(isa, &x, other, false);
            for (i, (a, b)) in y.iter().zip(other.iter()).enumerate() {
                if a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()) {
                    report.isa_mismatches += 1;
                    note(&mut report, x[i]);
                }
            }
        }
        for (&xi, &yi) in x.iter().zip(y.iter()) {
            check(&mut report, kernel, xi, yi);
        }
    }
    report
}

fn note(report: &mut ScanReport, x: f32) {
    let b = x.to_bits();
    report.first_problem = Some(report.first_problem.map_or(b, |p| p.min(b)));
}

fn check(report: &mut ScanReport, kernel: F32Kernel, x: f32, y: f32) {
    report.inputs += 1;
    let r = kernel.reference(f64::from(x));
    if x.is_nan() || r.is_nan() || y.is_nan() {
        if !(x.is_nan() && y.is_nan() && r.is_nan()) {
            report.failures += 1;
            note(report, x);
        }
        return;
    }
    let want = r as f32; // round to nearest, ties to even; overflow to ±inf
    let d = ordered(y.to_bits()).abs_diff(ordered(want.to_bits()));
    let zero_sign_wrong = y == 0.0 && want == 0.0 && y.to_bits() != want.to_bits();
    if d > 1 || zero_sign_wrong {
        report.failures += 1;
        note(report, x);
    }
    report.max_ulp_distance = report.max_ulp_distance.max(d);
    if d != 0 {
        report.not_correctly_rounded += 1;
        let extreme = |v: f32| v == 0.0 || v.is_infinite();
        if extreme(y) || extreme(want) {
            report.threshold_mismatches += 1;
        }
    }
    let yv = if y.is_infinite() {
        f64::from(y.signum()) * 128f64.exp2()
    } else {
        f64::from(y)
    };
    let rv = r.clamp(-(128f64.exp2()), 128f64.exp2());
    let e = (yv - rv).abs() / ulp_at(rv);
    if rv.abs() >= f64::from(f32::MIN_POSITIVE) {
        report.max_error_normal = report.max_error_normal.max(e);
    }
    if e > report.max_error {
        report.max_error = e;
        report.worst_input = x.to_bits();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_and_order() {
        assert_eq!(ulp_at(1.0), f64::from(f32::EPSILON));
        assert_eq!(ulp_at(-1.5), f64::from(f32::EPSILON));
        assert_eq!(ulp_at(0.99), f64::from(f32::EPSILON) / 2.0);
        assert_eq!(ulp_at(1e-40), (-149f64).exp2());
        assert_eq!(ordered(0x8000_0000), ordered(0));
        assert_eq!(
            ordered(1.0f32.to_bits()) - ordered(1.0f32.next_down().to_bits()),
            1
        );
        assert_eq!(
            ordered(1e-45f32.to_bits()) - ordered((-1e-45f32).to_bits()),
            2
        );
    }

    #[test]
    fn a_wrong_result_is_a_failure_and_a_good_one_is_not() {
        let mut r = ScanReport::default();
        check(&mut r, F32Kernel::Exp, 0.0, 1.0);
        check(&mut r, F32Kernel::Exp, 1.0, std::f32::consts::E.next_up());
        assert_eq!(
            (r.failures, r.not_correctly_rounded, r.max_ulp_distance),
            (0, 1, 1)
        );
        check(&mut r, F32Kernel::Exp, 88.8, f32::MAX);
        assert_eq!((r.failures, r.threshold_mismatches), (0, 1));
        check(
            &mut r,
            F32Kernel::Exp,
            1.0,
            std::f32::consts::E.next_up().next_up(),
        );
        check(&mut r, F32Kernel::Tanh, -0.0, 0.0);
        check(&mut r, F32Kernel::Tanh, f32::NAN, 0.0);
        check(&mut r, F32Kernel::Tanh, 1.0, f32::NAN);
        assert_eq!(r.failures, 4);
        assert!(!r.passed());
        assert!(r.max_error > 1.5 && r.max_error < 2.5, "{}", r.max_error);
        assert_eq!(r.worst_input, 1.0f32.to_bits());
    }

    #[test]
    fn reports_merge() {
        let a = scan(F32Kernel::Exp, 0x3f80_0000..0x3f80_1000, &[Isa::Scalar]);
        let b = scan(F32Kernel::Exp, 0x3f80_1000..0x3f80_2000, &[Isa::Scalar]);
        let ab = scan(F32Kernel::Exp, 0x3f80_0000..0x3f80_2000, &[Isa::Scalar]);
        assert_eq!(a.merge(b), ab);
        assert!(ab.passed());
        assert_eq!(ab.inputs, 0x2000);
    }
}
