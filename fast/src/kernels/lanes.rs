//! Lanes of f32 — one value ([`f32`] itself), 8 (AVX2+FMA, [`V256`]) or 16 (AVX-512F, [`V512`]) —
//! with the operations the f32 kernels are written in, so each kernel is written once, generically,
//! and every instruction set runs the same operation sequence and gives the same bits.
//!
//! Every arithmetic operation is one IEEE 754 operation rounded to nearest (ties to even): `add`,
//! `sub`, `mul`, `div`, the fused `mul_add` / `neg_mul_add` (one rounding), and `scale`
//! (`self · 2^⌊m⌋`, one rounding, subnormal results and overflow included). `max`/`min` follow the
//! x86 `maxps`/`minps` rule (the second operand when the comparison is false, NaN included), which
//! the scalar form copies. No operation reads or sets flush-to-zero / denormals-are-zero modes.
//!
//! Safety: [`V256`] and [`V512`] values are created only by the kernel drivers of this module,
//! which run only after the CPU features were detected (see [`super::Isa`]); their methods rely on
//! that.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Operations on a group of f32 lanes (see the module documentation for their exact semantics).
pub(crate) trait Lanes: Copy {
    /// A per-lane condition.
    type Mask: Copy;
    /// Every lane equal to `v`.
    fn splat(v: f32) -> Self;
    /// `self + b`.
    fn add(self, b: Self) -> Self;
    /// `self − b`.
    fn sub(self, b: Self) -> Self;
    /// `self · b`.
    fn mul(self, b: Self) -> Self;
    /// `self / b`.
    fn div(self, b: Self) -> Self;
    /// `self · b + c`, rounded once.
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// `c − self · b`, rounded once.
    fn neg_mul_add(self, b: Self, c: Self) -> Self;
    /// `if self > b { self } else { b }` (so `b` when either is NaN).
    fn max(self, b: Self) -> Self;
    /// `if self < b { self } else { b }` (so `b` when either is NaN).
    fn min(self, b: Self) -> Self;
    /// The value with its sign bit cleared.
    fn abs(self) -> Self;
    /// The value with the sign bit of `x` ORed in (the value must be non-negative, or −0).
    fn or_sign_of(self, x: Self) -> Self;
    /// Per lane, `table[bits & 7]` where `bits` are the lane's f32 bits.
    fn lookup8(self, table: &[f32; 8]) -> Self;
    /// Per lane, `table[bits & 15]` where `bits` are the lane's f32 bits.
    fn lookup16(self, table: &[f32; 16]) -> Self;
    /// The lane's f32 bits shifted right by `N` (logical shift), as the bits of an f32.
    fn shift_right<const N: i32>(self) -> Self;
    /// `self · 2^⌊m⌋` with one rounding, for `m` in [−252, 255). The forms agree when
    /// `self · 2^⌊⌊m⌋/2⌋` is exact (zero or normal): they compute it first, then multiply by the
    /// rest of the power of two.
    fn scale(self, m: Self) -> Self;
    /// Lanes where `self < b`.
    fn lt(self, b: Self) -> Self::Mask;
    /// Lanes holding a NaN.
    fn is_nan(self) -> Self::Mask;
    /// Per lane, `a` where the mask is set and `b` elsewhere.
    fn select(mask: Self::Mask, a: Self, b: Self) -> Self;
}

/// `2^e` for an integer `e` in the normal range [−126, 127], from its bits.
#[inline(always)]
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The scalar form: plain Rust with `f32::mul_add` (an exact fused multiply-add).
impl Lanes for f32 {
    type Mask = bool;
    #[inline(always)]
    fn splat(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn add(self, b: f32) -> f32 {
        self + b
    }
    #[inline(always)]
    fn sub(self, b: f32) -> f32 {
        self - b
    }
    #[inline(always)]
    fn mul(self, b: f32) -> f32 {
        self * b
    }
    #[inline(always)]
    fn div(self, b: f32) -> f32 {
        self / b
    }
    #[inline(always)]
    fn mul_add(self, b: f32, c: f32) -> f32 {
        f32::mul_add(self, b, c)
    }
    #[inline(always)]
    fn neg_mul_add(self, b: f32, c: f32) -> f32 {
        f32::mul_add(-self, b, c)
    }
    #[inline(always)]
    fn max(self, b: f32) -> f32 {
        if self > b {
            self
        } else {
            b
        }
    }
    #[inline(always)]
    fn min(self, b: f32) -> f32 {
        if self < b {
            self
        } else {
            b
        }
    }
    #[inline(always)]
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    #[inline(always)]
    fn or_sign_of(self, x: f32) -> f32 {
        f32::from_bits(self.to_bits() | (x.to_bits() & 0x8000_0000))
    }
    #[inline(always)]
    fn lookup8(self, table: &[f32; 8]) -> f32 {
        table[(self.to_bits() & 7) as usize]
    }
    #[inline(always)]
    fn lookup16(self, table: &[f32; 16]) -> f32 {
        table[(self.to_bits() & 15) as usize]
    }
    #[inline(always)]
    fn shift_right<const N: i32>(self) -> f32 {
        f32::from_bits(self.to_bits() >> N)
    }
    #[inline(always)]
    fn scale(self, m: f32) -> f32 {
        // Two steps: the first product is exact (normal), the second rounds once.
        let e = m.floor() as i32;
        let e1 = e >> 1;
        self * pow2(e1) * pow2(e - e1)
    }
    #[inline(always)]
    fn lt(self, b: f32) -> bool {
        self < b
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    #[inline(always)]
    fn select(mask: bool, a: f32, b: f32) -> f32 {
        if mask {
            a
        } else {
            b
        }
    }
}

/// 8 lanes in an AVX register; exists only when the CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct V256(__m256);

/// 16 lanes in an AVX-512 register; exists only when the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct V512(__m512);

/// Implements a `Lanes` method by one intrinsic call on the wrapped registers.
#[cfg(target_arch = "x86_64")]
macro_rules! via {
    ($wrap:ident, $e:expr) => {{
        // SAFETY: values of this type exist only after the CPU was found to support the
        // instruction set (module documentation), so the intrinsic's target feature is present.
        $wrap(unsafe { $e })
    }};
}

#[cfg(target_arch = "x86_64")]
impl Lanes for V256 {
    type Mask = __m256;
    #[inline(always)]
    fn splat(v: f32) -> V256 {
        via!(V256, _mm256_set1_ps(v))
    }
    #[inline(always)]
    fn add(self, b: V256) -> V256 {
        via!(V256, _mm256_add_ps(self.0, b.0))
    }
    #[inline(always)]
    fn sub(self, b: V256) -> V256 {
        via!(V256, _mm256_sub_ps(self.0, b.0))
    }
    #[inline(always)]
    fn mul(self, b: V256) -> V256 {
        via!(V256, _mm256_mul_ps(self.0, b.0))
    }
    #[inline(always)]
    fn div(self, b: V256) -> V256 {
        via!(V256, _mm256_div_ps(self.0, b.0))
    }
    #[inline(always)]
    fn mul_add(self, b: V256, c: V256) -> V256 {
        via!(V256, _mm256_fmadd_ps(self.0, b.0, c.0))
    }
    #[inline(always)]
    fn neg_mul_add(self, b: V256, c: V256) -> V256 {
        via!(V256, _mm256_fnmadd_ps(self.0, b.0, c.0))
    }
    #[inline(always)]
    fn max(self, b: V256) -> V256 {
        via!(V256, _mm256_max_ps(self.0, b.0))
    }
    #[inline(always)]
    fn min(self, b: V256) -> V256 {
        via!(V256, _mm256_min_ps(self.0, b.0))
    }
    #[inline(always)]
    fn abs(self) -> V256 {
        via!(V256, _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0))
    }
    #[inline(always)]
    fn or_sign_of(self, x: V256) -> V256 {
        via!(
            V256,
            _mm256_or_ps(self.0, _mm256_and_ps(x.0, _mm256_set1_ps(-0.0)))
        )
    }
    #[inline(always)]
    fn lookup8(self, table: &[f32; 8]) -> V256 {
        via!(
            V256,
            _mm256_permutevar8x32_ps(_mm256_loadu_ps(table.as_ptr()), _mm256_castps_si256(self.0))
        )
    }
    #[inline(always)]
    fn lookup16(self, table: &[f32; 16]) -> V256 {
        // Two 8-entry permutations, chosen by bit 3 of the index (moved to the sign bit).
        via!(V256, {
            let idx = _mm256_castps_si256(self.0);
            let lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(table.as_ptr()), idx);
            let hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(table[8..].as_ptr()), idx);
            _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx)))
        })
    }
    #[inline(always)]
    fn shift_right<const N: i32>(self) -> V256 {
        via!(
            V256,
            _mm256_castsi256_ps(_mm256_srli_epi32::<N>(_mm256_castps_si256(self.0)))
        )
    }
    #[inline(always)]
    fn scale(self, m: V256) -> V256 {
        // The same two steps as the scalar form: 2^e1 and 2^e2 built from their bits.
        via!(V256, {
            let e = _mm256_cvtps_epi32(_mm256_floor_ps(m.0));
            let e1 = _mm256_srai_epi32::<1>(e);
            let e2 = _mm256_sub_epi32(e, e1);
            let bias = _mm256_set1_epi32(127);
            let p1 = _mm256_slli_epi32::<23>(_mm256_add_epi32(e1, bias));
            let p2 = _mm256_slli_epi32::<23>(_mm256_add_epi32(e2, bias));
            _mm256_mul_ps(
                _mm256_mul_ps(self.0, _mm256_castsi256_ps(p1)),
                _mm256_castsi256_ps(p2),
            )
        })
    }
    #[inline(always)]
    fn lt(self, b: V256) -> __m256 {
        // SAFETY: as for `via!` (AVX is part of AVX2, which this type's existence guarantees).
        unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, b.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __m256 {
        // SAFETY: as for `via!`.
        unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn select(mask: __m256, a: V256, b: V256) -> V256 {
        via!(V256, _mm256_blendv_ps(b.0, a.0, mask))
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for V512 {
    type Mask = __mmask16;
    #[inline(always)]
    fn splat(v: f32) -> V512 {
        via!(V512, _mm512_set1_ps(v))
    }
    #[inline(always)]
    fn add(self, b: V512) -> V512 {
        via!(V512, _mm512_add_ps(self.0, b.0))
    }
    #[inline(always)]
    fn sub(self, b: V512) -> V512 {
        via!(V512, _mm512_sub_ps(self.0, b.0))
    }
    #[inline(always)]
    fn mul(self, b: V512) -> V512 {
        via!(V512, _mm512_mul_ps(self.0, b.0))
    }
    #[inline(always)]
    fn div(self, b: V512) -> V512 {
        via!(V512, _mm512_div_ps(self.0, b.0))
    }
    #[inline(always)]
    fn mul_add(self, b: V512, c: V512) -> V512 {
        via!(V512, _mm512_fmadd_ps(self.0, b.0, c.0))
    }
    #[inline(always)]
    fn neg_mul_add(self, b: V512, c: V512) -> V512 {
        via!(V512, _mm512_fnmadd_ps(self.0, b.0, c.0))
    }
    #[inline(always)]
    fn max(self, b: V512) -> V512 {
        via!(V512, _mm512_max_ps(self.0, b.0))
    }
    #[inline(always)]
    fn min(self, b: V512) -> V512 {
        via!(V512, _mm512_min_ps(self.0, b.0))
    }
    #[inline(always)]
    fn abs(self) -> V512 {
        via!(V512, _mm512_abs_ps(self.0))
    }
    #[inline(always)]
    fn or_sign_of(self, x: V512) -> V512 {
        via!(V512, {
            let sign = _mm512_set1_epi32(i32::MIN);
            _mm512_castsi512_ps(_mm512_ternarylogic_epi32::<0xf8>(
                _mm512_castps_si512(self.0),
                _mm512_castps_si512(x.0),
                sign,
            ))
        })
    }
    #[inline(always)]
    fn lookup8(self, table: &[f32; 8]) -> V512 {
        // `vpermps` reads the low 4 bits of each index: the table is repeated to 16 entries.
        via!(V512, {
            let t = _mm512_castps256_ps512(_mm256_loadu_ps(table.as_ptr()));
            let t16 = _mm512_shuffle_f32x4::<0b0100_0100>(t, t);
            _mm512_permutexvar_ps(_mm512_castps_si512(self.0), t16)
        })
    }
    #[inline(always)]
    fn lookup16(self, table: &[f32; 16]) -> V512 {
        via!(
            V512,
            _mm512_permutexvar_ps(_mm512_castps_si512(self.0), _mm512_loadu_ps(table.as_ptr()))
        )
    }
    #[inline(always)]
    fn shift_right<const N: i32>(self) -> V512 {
        via!(
            V512,
            // (A count in a register: the immediate form takes a `u32` constant.)
            _mm512_castsi512_ps(_mm512_srl_epi32(
                _mm512_castps_si512(self.0),
                _mm_cvtsi32_si128(N)
            ))
        )
    }
    #[inline(always)]
    fn scale(self, m: V512) -> V512 {
        // `vscalefps`: self · 2^⌊m⌋ rounded once (the two-step product of the other forms).
        via!(V512, _mm512_scalef_ps(self.0, m.0))
    }
    #[inline(always)]
    fn lt(self, b: V512) -> __mmask16 {
        // SAFETY: as for `via!`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, b.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __mmask16 {
        // SAFETY: as for `via!`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn select(mask: __mmask16, a: V512, b: V512) -> V512 {
        via!(V512, _mm512_mask_blend_ps(mask, b.0, a.0))
    }
}

/// An f32 → f32 function written once over [`Lanes`].
pub(crate) trait Kernel {
    /// The function on non-NaN lanes (NaN lanes are computed too, then replaced by the driver).
    fn lanes<V: Lanes>(x: V) -> V;
}

/// The function with NaN inputs passed through (quieted: `x + x`).
#[inline(always)]
fn apply<K: Kernel, V: Lanes>(x: V) -> V {
    V::select(x.is_nan(), x.add(x), K::lanes(x))
}

/// Computes `out[i] = K(x[i])` with `isa` (an instruction set this CPU lacks runs as
/// [`super::Isa::Scalar`]). `stream` writes the output with non-temporal stores on the AVX-512 path
/// (same bits). Panics if the slices differ in length.
pub(crate) fn run<K: Kernel>(isa: super::Isa, x: &[f32], out: &mut [f32], stream: bool) {
    assert_eq!(x.len(), out.len(), "kernel slices differ in length");
    match super::checked(isa) {
        #[cfg(target_arch = "x86_64")]
        super::Isa::Avx512 => {
            // SAFETY: `checked` keeps `Isa::Avx512` only when `is_x86_feature_detected!("avx512f")`
            // holds.
            unsafe { drive512::<K>(x, out, stream) }
        }
        #[cfg(target_arch = "x86_64")]
        super::Isa::Avx2Fma => {
            // SAFETY: `checked` keeps `Isa::Avx2Fma` only when the CPU has AVX2 and FMA.
            unsafe { drive256::<K>(x, out) }
        }
        _ => {
            let _ = stream;
            for (o, &v) in out.iter_mut().zip(x) {
                *o = apply::<K, f32>(v);
            }
        }
    }
}

/// `out = K(x)` for up to 16 elements through a zero-padded vector (the same instructions as
/// full vectors).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn partial512<K: Kernel>(x: &[f32], out: &mut [f32]) {
    let mut buf = [0f32; 16];
    buf[..x.len()].copy_from_slice(x);
    // SAFETY: `buf` holds exactly 16 f32 (unaligned access is allowed).
    let v = V512(unsafe { _mm512_loadu_ps(buf.as_ptr()) });
    // SAFETY: as above.
    unsafe { _mm512_storeu_ps(buf.as_mut_ptr(), apply::<K, V512>(v).0) };
    out.copy_from_slice(&buf[..out.len()]);
}

/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn drive512<K: Kernel>(x: &[f32], out: &mut [f32], stream: bool) {
    let (x, out) = if stream {
        // Elements before the first 64-byte boundary of `out` go through the padded path (the
        // same vector code), so the streaming stores below are aligned.
        let addr = out.as_ptr() as usize;
        let head = ((addr.next_multiple_of(64) - addr) / 4).min(out.len());
        let (xh, xr) = x.split_at(head);
        let (oh, or) = out.split_at_mut(head);
        if head > 0 {
            partial512::<K>(xh, oh);
        }
        (xr, or)
    } else {
        (x, out)
    };
    let mut xs = x.chunks_exact(16);
    let mut os = out.chunks_exact_mut(16);
    if stream {
        for (xi, oi) in (&mut xs).zip(&mut os) {
            // SAFETY: `xi` and `oi` hold exactly 16 f32 (512 bits); `oi` starts on a 64-byte
            // boundary (head split above), as `_mm512_stream_ps` requires.
            unsafe {
                let y = apply::<K, V512>(V512(_mm512_loadu_ps(xi.as_ptr())));
                _mm512_stream_ps(oi.as_mut_ptr(), y.0);
            }
        }
        // Streaming stores are weakly ordered: fence before the data is shared.
        _mm_sfence();
    } else {
        for (xi, oi) in (&mut xs).zip(&mut os) {
            // SAFETY: `xi` and `oi` hold exactly 16 f32; unaligned access is allowed.
            unsafe {
                let y = apply::<K, V512>(V512(_mm512_loadu_ps(xi.as_ptr())));
                _mm512_storeu_ps(oi.as_mut_ptr(), y.0);
            }
        }
    }
    let rest = xs.remainder();
    if !rest.is_empty() {
        partial512::<K>(rest, os.into_remainder());
    }
}

/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn drive256<K: Kernel>(x: &[f32], out: &mut [f32]) {
    let mut xs = x.chunks_exact(8);
    let mut os = out.chunks_exact_mut(8);
    for (xi, oi) in (&mut xs).zip(&mut os) {
        // SAFETY: `xi` and `oi` hold exactly 8 f32 (256 bits); unaligned access is allowed.
        unsafe {
            let y = apply::<K, V256>(V256(_mm256_loadu_ps(xi.as_ptr())));
            _mm256_storeu_ps(oi.as_mut_ptr(), y.0);
        }
    }
    let rest = xs.remainder();
    if !rest.is_empty() {
        let mut buf = [0f32; 8];
        buf[..rest.len()].copy_from_slice(rest);
        // SAFETY: `buf` holds exactly 8 f32.
        unsafe {
            let y = apply::<K, V256>(V256(_mm256_loadu_ps(buf.as_ptr())));
            _mm256_storeu_ps(buf.as_mut_ptr(), y.0);
        }
        let o = os.into_remainder();
        o.copy_from_slice(&buf[..o.len()]);
    }
}
