//! `convert` for every pair of the 22 element types on boundary values of the source type, checked
//! against expectations computed another way: integer → float against f64 arithmetic where that is
//! exact (|v| ≤ 2^53) and otherwise against the two neighbouring representable values (exact
//! integer distances, ties to even); float → float against `FloatFormat::encode` of the exact
//! value; float → integer against truncation and saturation in f64; the rest by definition.

mod common;

use common::element;
use conformance_spec::element_type::{FloatClass, FloatFormat, TypeKind};
use conformance_spec::hlo::ir::Opcode;
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::ElementType;

/// Boundary values of a type, as bits.
fn boundary_values(ty: ElementType) -> Vec<u128> {
    match ty.kind() {
        TypeKind::Pred => vec![0, 1],
        TypeKind::SignedInteger | TypeKind::UnsignedInteger => {
            let (lo, hi) = ty.integer_range().unwrap();
            let mut v: Vec<i128> = vec![
                0, 1, 2, 3, 7, 100, 127, 128, 255, 256, 2047, 2049, 65504, 65519, 65520, 65535,
            ];
            v.extend([lo, lo + 1, hi, hi - 1, -1, -2, -128, -129, -65520]);
            for k in [24, 31, 32, 53, 54, 63] {
                let p = 1i128 << k;
                v.extend([p - 1, p, p + 1, p + 3, -p, -p - 1]);
            }
            // A 64-bit value just above a bf16 rounding tie (1 + 2^-8 + 2^-60) × 2^62 — the kind
            // of value where rounding through f64 first would round twice.
            v.push((1i128 << 62) + (1i128 << 54) + 4);
            v.retain(|x| (lo..=hi).contains(x));
            v.sort();
            v.dedup();
            v.into_iter()
                .map(|x| ty.integer_to_bits(x).unwrap() as u128)
                .collect()
        }
        TypeKind::Float => float_boundaries(ty.float_format().unwrap())
            .into_iter()
            .map(u128::from)
            .collect(),
        TypeKind::Complex => {
            let f = ty.float_format().unwrap();
            let b = float_boundaries(f);
            b.iter()
                .zip(b.iter().rev())
                .map(|(&re, &im)| complex_bits(f, re, im))
                .collect()
        }
    }
}

fn float_boundaries(f: FloatFormat) -> Vec<u64> {
    let mut xs = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.1,
        -0.3,
        100.7,
        255.5,
        256.0,
        65504.0,
        65519.0,
        65520.0,
        1e9,
        -1e9,
        2147483648.0,
        -2147483649.0,
        4294967296.0,
        9.3e18,
        -9.3e18,
        1.9e19,
        1e30,
        -1e30,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    xs.extend([
        f.max_finite(),
        -f.max_finite(),
        f.min_normal(),
        -f.min_normal(),
        f.min_subnormal(),
        -f.min_subnormal(),
    ]);
    let mut bits: Vec<u64> = xs.into_iter().map(|x| f.encode(x)).collect();
    // The largest subnormal and the values next to 1.
    bits.extend([
        (1u64 << f.mantissa_bits) - 1,
        f.encode(1.0) + 1,
        f.encode(1.0) - 1,
    ]);
    bits.sort();
    bits.dedup();
    bits
}

/// Exact value of an integer-valued finite float as i128 (None when it is not an integer or out of range).
fn as_integer(x: f64) -> Option<i128> {
    (x.is_finite() && x.trunc() == x && x.abs() < 1.6e38).then_some(x as i128)
}

/// Checks that `got` is `v` rounded to nearest-even in `f` (with overflow per the format).
fn check_int_to_float(f: FloatFormat, v: i128, got: u64, what: &str) {
    if v.unsigned_abs() <= 1u128 << 53 {
        assert_eq!(got, f.encode(v as f64), "{what}: exact via f64");
        return;
    }
    let r = f.decode(got);
    let max = f.max_finite();
    if !r.is_finite() {
        // Overflow: v must be at least max + half an ulp of max (as an exact integer).
        let below = f.decode(f.max_finite_bits() - 1);
        let half_ulp = (max - below) / 2.0;
        assert!(
            (v.unsigned_abs() as f64) >= max + half_ulp,
            "{what}: overflowed"
        );
        return;
    }
    let r_int = as_integer(r).unwrap_or_else(|| panic!("{what}: {r} is not an integer"));
    assert_eq!(r_int.signum(), v.signum(), "{what}: sign");
    let mag = f.to_ordered(got).unsigned_abs() as i64;
    let neighbour = |d: i64| -> Option<i128> {
        let n = f.from_ordered((mag + d) * v.signum() as i64);
        let x = f.decode(n);
        if x.is_finite() && f.classify(n) != FloatClass::Nan {
            as_integer(x)
        } else {
            None
        }
    };
    let dist = (v - r_int).abs();
    for d in [-1, 1] {
        if let Some(n) = neighbour(d) {
            let dn = (v - n).abs();
            assert!(dist <= dn, "{what}: {n} is nearer than {r_int}");
            if dist == dn {
                assert_eq!(got & 1, 0, "{what}: tie must go to the even neighbour");
            }
        }
    }
}

fn expected_float_to_int(ty: ElementType, x: f64) -> i128 {
    let (lo, hi) = ty.integer_range().unwrap();
    if x.is_nan() {
        0
    } else if x.trunc() <= lo as f64 {
        lo
    } else if x.trunc() >= hi as f64 {
        hi
    } else {
        x.trunc() as i128
    }
}

/// The real part of an element as (integer, float) views.
fn real_value(ty: ElementType, bits: u128) -> (Option<i128>, f64) {
    match ty.kind() {
        TypeKind::Pred | TypeKind::SignedInteger | TypeKind::UnsignedInteger => {
            let v = ty.integer_from_bits(bits as u64).unwrap();
            (Some(v), v as f64)
        }
        TypeKind::Float => (None, ty.float_format().unwrap().decode(bits as u64)),
        TypeKind::Complex => {
            let f = ty.float_format().unwrap();
            (None, f.decode(complex_parts(f, bits).0))
        }
    }
}

/// Checks a conversion into a real (non-complex) target.
fn check_real_target(from: ElementType, to: ElementType, bits: u128, got: u128, what: &str) {
    let (int, x) = real_value(from, bits);
    match to.kind() {
        TypeKind::Pred => {
            let nonzero = int.map_or(x != 0.0, |v| v != 0);
            assert_eq!(got, u128::from(nonzero), "{what}");
        }
        TypeKind::SignedInteger | TypeKind::UnsignedInteger => {
            let want = match int {
                Some(v) => v,
                None => expected_float_to_int(to, x),
            };
            assert_eq!(got, to.integer_to_bits(want).unwrap() as u128, "{what}");
        }
        TypeKind::Float => {
            let f = to.float_format().unwrap();
            match int {
                Some(v) => check_int_to_float(f, v, got as u64, what),
                None if x.is_nan() => assert_eq!(f.classify(got as u64), FloatClass::Nan, "{what}"),
                None => assert_eq!(got as u64, f.encode(x), "{what}"),
            }
        }
        TypeKind::Complex => unreachable!(),
    }
}

#[test]
fn every_pair_on_boundary_values() {
    let mut checked = 0usize;
    for from in ElementType::ALL {
        for to in ElementType::ALL {
            for bits in boundary_values(from) {
                let got = element(Opcode::Convert, &[], &[from], &[bits], to);
                let what = format!("convert {from} → {to} of {bits:#x} = {got:#x}");
                if from == to {
                    assert_eq!(got, bits, "{what}: identity");
                } else if to.is_complex() {
                    let f = to.float_format().unwrap();
                    let (re, im) = complex_parts(f, got);
                    let component = to.complex_component().unwrap();
                    let (src_re, src_im) = if from.is_complex() {
                        let g = from.float_format().unwrap();
                        let (a, b) = complex_parts(g, bits);
                        let c = from.complex_component().unwrap();
                        (
                            element(Opcode::Convert, &[], &[c], &[u128::from(a)], component),
                            element(Opcode::Convert, &[], &[c], &[u128::from(b)], component),
                        )
                    } else {
                        (
                            element(Opcode::Convert, &[], &[from], &[bits], component),
                            0,
                        )
                    };
                    assert_eq!((u128::from(re), u128::from(im)), (src_re, src_im), "{what}");
                    if !from.is_complex() {
                        check_real_target(from, component, bits, u128::from(re), &what);
                    }
                } else {
                    check_real_target(from, to, bits, got, &what);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 22 * 22 * 10, "{checked}");
}

#[test]
fn int_to_float_ties_and_large_values() {
    use ElementType::*;
    let conv = |from: ElementType, to: ElementType, v: i128| {
        element(
            Opcode::Convert,
            &[],
            &[from],
            &[from.integer_to_bits(v).unwrap() as u128],
            to,
        )
    };
    // bf16 has 8 bits: 2^62 + 2^54 is a tie between 2^62 and 2^62 + 2^55 → 2^62 (even); 4 more
    // breaks the tie upwards — a value f64 cannot hold (rounding through f64 would give the tie).
    assert_eq!(conv(S64, Bf16, (1 << 62) + (1 << 54)), 0x5e80);
    assert_eq!(conv(S64, Bf16, (1 << 62) + (1 << 54) + 4), 0x5e81);
    assert_eq!(conv(U64, F32, u64::MAX as i128), 0x5f80_0000);
    assert_eq!(conv(S64, F64, i64::MAX as i128), 0x43e0_0000_0000_0000);
    assert_eq!(conv(U32, F16, 65520), 0x7c00);
    assert_eq!(conv(S32, F8E4M3FN, 1000), 0x7f);
    assert_eq!(conv(S32, F8E4M3FNUZ, -1000), 0x80);
    assert_eq!(conv(S8, F8E5M2FNUZ, 0), 0x00);
    assert_eq!(conv(Pred, F8E4M3B11FNUZ, 1), 0x58);
}
