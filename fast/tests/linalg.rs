//! The linear-algebra family of the fast backend (`fft`, `cholesky`, `triangular-solve`,
//! `batch-norm-*`; `docs/linalg-semantics.md`) against naive definitions computed here in f64
//! (O(N²) DFTs with compensated sums, substitution, unblocked Cholesky, two-pass statistics), with
//! error bounds from the usual analyses: `c·log2(N)·u·‖y‖₂` per FFT block, `c·m·u·κ∞·‖x‖∞` per
//! solve, `c·m·u·‖A‖` for `L·Lᴴ − A`, `c·(u + N·u₆₄)` relative to the propagated magnitudes for batch
//! norm (`u` the unit roundoff of the result format). Small cases are also run through the exact
//! reference backend when it implements the operation (skipped while it answers Unsupported).

mod common;

use common::{attr_enum, attr_int, attr_ints, module, param};
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::hlo::{AttrValue, Attribute, HloInstruction};
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{
    ArrayShape, Backend, BackendError, ElementType, HloModule, Layout, Literal, Opcode, Shape,
};

type C = (f64, f64);

fn attr_bool(name: &str, v: bool) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Bool(v),
    }
}

fn attr_raw(name: &str, v: &str) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Raw(v.into()),
    }
}

/// `ROOT r = shape op(p0, ...)`.
fn op_module(
    op: Opcode,
    operands: &[ArrayShape],
    shape: Shape,
    attributes: Vec<Attribute>,
) -> HloModule {
    let mut v: Vec<HloInstruction> = operands
        .iter()
        .enumerate()
        .map(|(i, s)| param(i, s.clone()))
        .collect();
    v.push(HloInstruction {
        name: "r".into(),
        opcode: op,
        shape,
        operands: (0..operands.len()).collect(),
        parameter_number: None,
        literal: None,
        attributes,
    });
    module(v)
}

/// Deterministic values in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }
    fn cvec(&mut self, n: usize) -> Vec<C> {
        (0..n).map(|_| (self.next(), self.next())).collect()
    }
}

fn shape(ty: ElementType, dims: &[usize]) -> ArrayShape {
    ArrayShape::new(ty, dims.iter().map(|&d| d as i64).collect())
}

fn real_lit(s: &ArrayShape, v: &[f64]) -> Literal {
    let row = ArrayShape::new(s.element_type, s.dimensions.clone());
    ArrayLiteral::from_f64s(row, v)
        .unwrap()
        .relayout(s.layout.clone())
        .into()
}

fn complex_lit(s: &ArrayShape, v: &[C]) -> Literal {
    let row = ArrayShape::new(s.element_type, s.dimensions.clone());
    ArrayLiteral::from_complex(row, v)
        .unwrap()
        .relayout(s.layout.clone())
        .into()
}

fn unit_roundoff(ty: ElementType) -> f64 {
    match ty {
        ElementType::F32 | ElementType::C64 => f64::powi(2.0, -24),
        ElementType::F64 | ElementType::C128 => f64::powi(2.0, -53),
        ElementType::Bf16 => f64::powi(2.0, -8),
        ElementType::F16 => f64::powi(2.0, -11),
        t => panic!("{t}"),
    }
}

/// Logical row-major complex values of a literal (real types: imaginary parts 0).
fn to_complex(l: &ArrayLiteral) -> Vec<C> {
    let ty = l.element_type();
    if !ty.is_complex() {
        return l.to_f64s().unwrap().into_iter().map(|v| (v, 0.0)).collect();
    }
    let f = ty.float_format().unwrap();
    l.logical_bits()
        .into_iter()
        .map(|b| {
            let (re, im) = complex_parts(f, b);
            (f.decode(re), f.decode(im))
        })
        .collect()
}

fn run(m: &HloModule, args: &[Literal]) -> Literal {
    Fast::new()
        .execute(m, args)
        .unwrap_or_else(|e| panic!("fast: {e}"))
}

/// The reference's result, or `None` while it does not implement the operation.
fn reference(m: &HloModule, args: &[Literal]) -> Option<Literal> {
    match Reference.execute(m, args) {
        Ok(l) => Some(l),
        Err(BackendError::Unsupported(_)) => None,
        Err(e) => panic!("reference: {e}"),
    }
}

fn array(l: &Literal) -> &ArrayLiteral {
    l.as_array().expect("array")
}

fn leaf(l: &Literal, i: usize) -> &ArrayLiteral {
    match l {
        Literal::Tuple(t) => array(&t[i]),
        _ => panic!("tuple expected"),
    }
}

// ---------------------------------------------------------------------------------------------
// FFT

/// Naive DFT along `axis` of a row-major complex buffer of `dims` (sign −1 forward), compensated
/// sums, twiddles from exact `(j·k mod n)`; inverse scaled by `1/n`.
fn dft_axis(x: &[C], dims: &[usize], axis: usize, inverse: bool) -> Vec<C> {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let mut y = vec![(0.0, 0.0); x.len()];
    let sign = if inverse { 1.0 } else { -1.0 };
    for o in 0..outer {
        for c in 0..inner {
            for j in 0..n {
                let (mut sr, mut si, mut cr, mut ci) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
                for k in 0..n {
                    let t = 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    let (s, co) = (sign * t).sin_cos();
                    let (a, b) = x[(o * n + k) * inner + c];
                    for (sum, comp, term) in [
                        (&mut sr, &mut cr, a * co - b * s),
                        (&mut si, &mut ci, a * s + b * co),
                    ] {
                        let t2 = *sum + term;
                        *comp += if sum.abs() >= term.abs() {
                            (*sum - t2) + term
                        } else {
                            (term - t2) + *sum
                        };
                        *sum = t2;
                    }
                }
                let (mut re, mut im) = (sr + cr, si + ci);
                if inverse {
                    re /= n as f64;
                    im /= n as f64;
                }
                y[(o * n + j) * inner + c] = (re, im);
            }
        }
    }
    y
}

/// The exact transform of `fft_type` (per `docs/linalg-semantics.md`) of a row-major input.
fn naive_fft(kind: &str, x: &[C], in_dims: &[usize], lengths: &[usize]) -> (Vec<C>, Vec<usize>) {
    let rank = in_dims.len();
    let l = lengths.len();
    let axes = rank - l..rank;
    match kind {
        "FFT" | "IFFT" | "RFFT" => {
            let mut y = x.to_vec();
            for a in axes {
                y = dft_axis(&y, in_dims, a, kind == "IFFT");
            }
            if kind != "RFFT" {
                return (y, in_dims.to_vec());
            }
            let n = in_dims[rank - 1];
            let h = if n == 0 { 0 } else { n / 2 + 1 };
            let mut od = in_dims.to_vec();
            od[rank - 1] = h;
            let lines: usize = in_dims[..rank - 1].iter().product();
            let out = (0..lines)
                .flat_map(|i| y[i * n..i * n + h].to_vec())
                .collect();
            (out, od)
        }
        "IRFFT" => {
            let mut z = x.to_vec();
            for a in rank - l..rank - 1 {
                z = dft_axis(&z, in_dims, a, true);
            }
            let n = lengths[l - 1];
            let h = if n == 0 { 0 } else { n / 2 + 1 };
            let lines: usize = in_dims[..rank - 1].iter().product();
            let mut y = Vec::with_capacity(lines * n);
            for i in 0..lines {
                let line = &z[i * h..(i + 1) * h];
                for j in 0..n {
                    let mut s = line[0].0;
                    for (k, &(re, im)) in line.iter().enumerate().take(n.div_ceil(2)).skip(1) {
                        let t = 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                        s += 2.0 * (re * t.cos() - im * t.sin());
                    }
                    if n.is_multiple_of(2) {
                        s += line[n / 2].0 * if j % 2 == 0 { 1.0 } else { -1.0 };
                    }
                    y.push((s / n as f64, 0.0));
                }
            }
            let mut od = in_dims.to_vec();
            od[rank - 1] = n;
            (y, od)
        }
        _ => unreachable!(),
    }
}

/// Checks one FFT case; `layout`: the operand's and result's minor_to_major (None: row-major).
fn check_fft(kind: &str, ty: ElementType, batch: &[usize], lengths: &[usize], m2m: Option<&[i64]>) {
    let mut rng = Rng(lengths.iter().fold(7, |a, &n| a * 31 + n as u64) + batch.len() as u64);
    let l = lengths.len();
    let n_last = lengths[l - 1];
    let mut in_dims: Vec<usize> = batch.iter().chain(lengths).copied().collect();
    if kind == "IRFFT" {
        *in_dims.last_mut().unwrap() = if n_last == 0 { 0 } else { n_last / 2 + 1 };
    }
    let count: usize = in_dims.iter().product();
    let (in_ty, out_ty) = match (kind, ty) {
        ("RFFT", ElementType::C64) => (ElementType::F32, ElementType::C64),
        ("RFFT", _) => (ElementType::F64, ElementType::C128),
        ("IRFFT", ElementType::C64) => (ElementType::C64, ElementType::F32),
        ("IRFFT", _) => (ElementType::C128, ElementType::F64),
        _ => (ty, ty),
    };
    let x: Vec<C> = if in_ty.is_complex() {
        rng.cvec(count)
    } else {
        rng.vec(count).into_iter().map(|v| (v, 0.0)).collect()
    };
    let (exact, out_dims) = naive_fft(kind, &x, &in_dims, lengths);
    let mut in_shape = shape(in_ty, &in_dims);
    let mut out_shape = shape(out_ty, &out_dims);
    if let Some(m) = m2m {
        in_shape = in_shape.with_layout(Layout::new(m.to_vec()));
        out_shape = out_shape.with_layout(Layout::new(m.to_vec()));
    }
    let arg = if in_ty.is_complex() {
        complex_lit(&in_shape, &x)
    } else {
        real_lit(&in_shape, &x.iter().map(|c| c.0).collect::<Vec<_>>())
    };
    let m = op_module(
        Opcode::Fft,
        std::slice::from_ref(&in_shape),
        Shape::Array(out_shape.clone()),
        vec![
            attr_enum("fft_type", kind),
            attr_ints(
                "fft_length",
                &lengths.iter().map(|&n| n as i64).collect::<Vec<_>>(),
            ),
        ],
    );
    let got = run(&m, std::slice::from_ref(&arg));
    assert_eq!(array(&got).shape(), &out_shape);
    let got = to_complex(array(&got));
    assert_eq!(got.len(), exact.len());
    // Per block (the transformed dimensions of one batch index): error vs c·log2(N)·u·scale.
    let n_total: usize = lengths.iter().product();
    let block_out: usize = out_dims[out_dims.len() - l..].iter().product();
    let block_in: usize = in_dims[in_dims.len() - l..].iter().product();
    let u = unit_roundoff(out_ty);
    let log = (n_total.max(2) as f64).log2();
    for b in 0..exact.len() / block_out.max(1) {
        let xn = x[b * block_in..(b + 1) * block_in]
            .iter()
            .map(|c| c.0 * c.0 + c.1 * c.1)
            .sum::<f64>()
            .sqrt();
        let scale = match kind {
            "FFT" | "RFFT" => (n_total as f64).sqrt() * xn,
            _ => xn * (2.0 / n_total as f64).sqrt(),
        };
        let tol = 6.0 * (log + 1.0) * u * scale + f64::MIN_POSITIVE;
        for j in b * block_out..(b + 1) * block_out {
            let e = (got[j].0 - exact[j].0).hypot(got[j].1 - exact[j].1);
            assert!(
                e <= tol,
                "{kind} {ty} batch={batch:?} lengths={lengths:?} layout={m2m:?}: element {j} got {:?} exact {:?} (error {e:e} > {tol:e})",
                got[j],
                exact[j]
            );
        }
    }
    if count <= 64 {
        if let Some(r) = reference(&m, std::slice::from_ref(&arg)) {
            let r = to_complex(array(&r));
            for (j, (&g, &e)) in got.iter().zip(&r).enumerate() {
                let tol = 6.0 * (log + 1.0) * u * (1.0 + e.0.hypot(e.1)) * (n_total as f64).sqrt();
                assert!(
                    (g.0 - e.0).hypot(g.1 - e.1) <= tol,
                    "{kind} {ty} {lengths:?} vs reference at {j}: {g:?} vs {e:?}"
                );
            }
        }
    }
}

const LENGTHS: &[usize] = &[0, 1, 2, 3, 5, 8, 16, 17];

#[test]
fn fft_one_axis_every_type_and_length() {
    for kind in ["FFT", "IFFT", "RFFT", "IRFFT"] {
        for ty in [ElementType::C64, ElementType::C128] {
            for &n in LENGTHS {
                check_fft(kind, ty, &[], &[n], None);
                check_fft(kind, ty, &[3], &[n], None);
            }
        }
    }
}

#[test]
fn fft_two_and_three_axes_with_batches() {
    for kind in ["FFT", "IFFT", "RFFT", "IRFFT"] {
        for ty in [ElementType::C64, ElementType::C128] {
            for &(a, b) in &[
                (1, 1),
                (2, 3),
                (3, 2),
                (5, 8),
                (8, 5),
                (17, 16),
                (16, 17),
                (0, 4),
                (4, 0),
            ] {
                check_fft(kind, ty, &[2], &[a, b], None);
            }
            for lengths in [[2, 3, 5], [4, 1, 6], [3, 17, 2], [1, 1, 1]] {
                check_fft(kind, ty, &[], &lengths, None);
            }
            check_fft(kind, ty, &[2, 3], &[3, 4, 5], None);
        }
    }
}

#[test]
fn fft_large_lines_and_tiles() {
    // Enough work to split across threads, strided axes wider than one tile.
    for kind in ["FFT", "RFFT", "IRFFT", "IFFT"] {
        check_fft(kind, ElementType::C64, &[], &[64, 48], None);
        check_fft(kind, ElementType::C128, &[2], &[33, 40], None);
    }
    check_fft("FFT", ElementType::C64, &[], &[4096], None);
    check_fft("RFFT", ElementType::C64, &[], &[1000], None);
}

#[test]
fn fft_non_default_layouts() {
    for kind in ["FFT", "IFFT", "RFFT", "IRFFT"] {
        check_fft(kind, ElementType::C64, &[], &[5, 8], Some(&[0, 1]));
        check_fft(kind, ElementType::C128, &[3], &[4, 6], Some(&[1, 0, 2]));
        check_fft(kind, ElementType::C64, &[2], &[7], Some(&[0, 1]));
    }
}

#[test]
fn irfft_ignores_imaginary_parts_of_dc_and_nyquist() {
    let s = shape(ElementType::C64, &[5]);
    let o = shape(ElementType::F32, &[8]);
    let m = op_module(
        Opcode::Fft,
        std::slice::from_ref(&s),
        Shape::Array(o),
        vec![
            attr_enum("fft_type", "IRFFT"),
            attr_ints("fft_length", &[8]),
        ],
    );
    let a = [(1.0, 0.0), (0.5, 0.25), (0.0, 1.0), (-1.0, 0.5), (2.0, 0.0)];
    let b = [
        (1.0, 7.0),
        (0.5, 0.25),
        (0.0, 1.0),
        (-1.0, 0.5),
        (2.0, -3.0),
    ];
    let ya = run(&m, &[complex_lit(&s, &a)]);
    let yb = run(&m, &[complex_lit(&s, &b)]);
    assert_eq!(array(&ya).to_f64s(), array(&yb).to_f64s());
}

#[test]
fn fft_rejects_wrong_types() {
    let s = shape(ElementType::F32, &[4]);
    let m = op_module(
        Opcode::Fft,
        std::slice::from_ref(&s),
        Shape::Array(s.clone()),
        vec![attr_enum("fft_type", "FFT"), attr_ints("fft_length", &[4])],
    );
    let e = Fast::new()
        .execute(&m, &[real_lit(&s, &[0.0; 4])])
        .unwrap_err();
    assert!(matches!(e, BackendError::Unsupported(_)), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Complex helpers for the matrix operations

fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn cdiv(a: C, b: C) -> C {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}
fn conj(a: C) -> C {
    (a.0, -a.1)
}
fn cabs(a: C) -> f64 {
    a.0.hypot(a.1)
}

fn lit_of(s: &ArrayShape, v: &[C]) -> Literal {
    if s.element_type.is_complex() {
        complex_lit(s, v)
    } else {
        real_lit(s, &v.iter().map(|c| c.0).collect::<Vec<_>>())
    }
}

// ---------------------------------------------------------------------------------------------
// Cholesky

/// Naive Cholesky of a Hermitian positive definite `m × m` (row-major, full): lower `L`.
fn naive_cholesky(a: &[C], m: usize) -> Vec<C> {
    let mut l = vec![(0.0, 0.0); m * m];
    for j in 0..m {
        let mut d = a[j * m + j].0;
        for k in 0..j {
            d -= cabs(l[j * m + k]).powi(2);
        }
        let d = d.sqrt();
        l[j * m + j] = (d, 0.0);
        for i in j + 1..m {
            let mut s = a[i * m + j];
            for k in 0..j {
                let p = cmul(l[i * m + k], conj(l[j * m + k]));
                s = (s.0 - p.0, s.1 - p.1);
            }
            l[i * m + j] = (s.0 / d, s.1 / d);
        }
    }
    l
}

fn check_cholesky(ty: ElementType, batch: &[usize], m: usize, lower: bool, m2m: Option<&[i64]>) {
    let mut rng = Rng(m as u64 * 17 + lower as u64 + batch.len() as u64 * 5);
    let complex = ty.is_complex();
    let nb: usize = batch.iter().product();
    let mut input = Vec::new();
    let mut full = Vec::new();
    for _ in 0..nb {
        // A = B·Bᴴ + m·I (Hermitian positive definite, well conditioned).
        let b: Vec<C> = (0..m * m)
            .map(|_| (rng.next(), if complex { rng.next() } else { 0.0 }))
            .collect();
        let mut a = vec![(0.0, 0.0); m * m];
        for i in 0..m {
            for j in 0..m {
                let mut s = if i == j { (m as f64, 0.0) } else { (0.0, 0.0) };
                for k in 0..m {
                    let p = cmul(b[i * m + k], conj(b[j * m + k]));
                    s = (s.0 + p.0, s.1 + p.1);
                }
                a[i * m + j] = s;
            }
        }
        // Round into the type first so that the exact input is what the backend sees.
        let u = unit_roundoff(ty);
        let round = |v: f64| if u > 1e-10 { v as f32 as f64 } else { v };
        for v in a.iter_mut() {
            *v = (round(v.0), round(v.1));
        }
        for i in 0..m {
            a[i * m + i].1 = 0.0;
        }
        // The other triangle holds NaN: it must not be read.
        let mut given = a.clone();
        for i in 0..m {
            for j in 0..m {
                if (lower && j > i) || (!lower && j < i) {
                    given[i * m + j] = (f64::NAN, f64::NAN);
                }
            }
        }
        full.push(a);
        input.extend(given);
    }
    let dims: Vec<usize> = batch.iter().copied().chain([m, m]).collect();
    let mut s = shape(ty, &dims);
    if let Some(l) = m2m {
        s = s.with_layout(Layout::new(l.to_vec()));
    }
    let module = op_module(
        Opcode::Cholesky,
        std::slice::from_ref(&s),
        Shape::Array(s.clone()),
        vec![attr_bool("lower", lower)],
    );
    let arg = lit_of(&s, &input);
    let got = run(&module, std::slice::from_ref(&arg));
    assert_eq!(array(&got).shape(), &s);
    let got = to_complex(array(&got));
    let u = unit_roundoff(ty);
    for (bi, a) in full.iter().enumerate() {
        let g = &got[bi * m * m..(bi + 1) * m * m];
        let l = naive_cholesky(a, m);
        let anorm = a.iter().map(|&v| cabs(v).powi(2)).sum::<f64>().sqrt();
        let lnorm = l.iter().map(|&v| cabs(v).powi(2)).sum::<f64>().sqrt();
        // A is well conditioned (m·I added): κ(A) ≤ ~5 here.
        let tol = 8.0 * (m as f64 + 1.0) * u * 5.0 * lnorm;
        for i in 0..m {
            for j in 0..m {
                let got_v = g[i * m + j];
                // lower: L; upper: U = Lᴴ.
                let (want, other) = if lower {
                    (l[i * m + j], j > i)
                } else {
                    (conj(l[j * m + i]), j < i)
                };
                if other {
                    assert_eq!(
                        got_v,
                        (0.0, 0.0),
                        "{ty} m={m} lower={lower}: other triangle"
                    );
                    continue;
                }
                let e = cabs((got_v.0 - want.0, got_v.1 - want.1));
                assert!(
                    e <= tol,
                    "{ty} m={m} lower={lower} layout={m2m:?} ({i},{j}): got {got_v:?} want {want:?} ({e:e} > {tol:e})"
                );
            }
        }
        // Residual ‖L·Lᴴ − A‖ ≤ c·m·u·‖A‖ (backward stability).
        let lf: Vec<C> = (0..m * m)
            .map(|p| {
                let (i, j) = (p / m, p % m);
                if lower {
                    g[p]
                } else {
                    conj(g[j * m + i])
                }
            })
            .collect();
        for i in 0..m {
            for j in 0..m {
                let mut s = (0.0, 0.0);
                for k in 0..m {
                    let p = cmul(lf[i * m + k], conj(lf[j * m + k]));
                    s = (s.0 + p.0, s.1 + p.1);
                }
                let r = cabs((s.0 - a[i * m + j].0, s.1 - a[i * m + j].1));
                assert!(r <= 4.0 * (m as f64 + 1.0) * u * anorm, "residual {r:e}");
            }
        }
    }
    if m <= 4 && nb <= 2 {
        if let Some(r) = reference(&module, std::slice::from_ref(&arg)) {
            let r = to_complex(array(&r));
            for (p, (&g, &e)) in got.iter().zip(&r).enumerate() {
                let (i, j) = ((p / m) % m, p % m);
                if (lower && j > i) || (!lower && j < i) {
                    continue; // implementation-defined
                }
                let tol = 8.0 * (m as f64 + 1.0) * u * 5.0 * (1.0 + cabs(e)) * m as f64;
                assert!(
                    cabs((g.0 - e.0, g.1 - e.1)) <= tol,
                    "vs reference at {p}: {g:?} {e:?}"
                );
            }
        }
    }
}

#[test]
fn cholesky_lower_and_upper_every_type() {
    for ty in [
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
    ] {
        for lower in [true, false] {
            for m in [0, 1, 2, 3, 5, 16, 40] {
                check_cholesky(ty, &[], m, lower, None);
            }
            check_cholesky(ty, &[3], 4, lower, None);
            check_cholesky(ty, &[2, 2], 7, lower, None);
        }
    }
}

#[test]
fn cholesky_large_and_non_default_layouts() {
    for lower in [true, false] {
        check_cholesky(ElementType::F64, &[], 300, lower, None);
        check_cholesky(ElementType::F32, &[], 6, lower, Some(&[0, 1]));
        check_cholesky(ElementType::C64, &[2], 5, lower, Some(&[1, 2, 0]));
        check_cholesky(ElementType::F32, &[40], 9, lower, None);
    }
}

#[test]
fn cholesky_not_positive_definite_does_not_panic() {
    let s = shape(ElementType::F32, &[2, 2]);
    let m = op_module(
        Opcode::Cholesky,
        std::slice::from_ref(&s),
        Shape::Array(s.clone()),
        vec![attr_bool("lower", true)],
    );
    let got = run(&m, &[real_lit(&s, &[1.0, 0.0, 5.0, -3.0])]);
    assert_eq!(array(&got).shape(), &s);
}

// ---------------------------------------------------------------------------------------------
// TriangularSolve

/// Solves `M·X = B` for a dense (already triangular) `M` (`m × m`) and `B` (`m × k`) by Gaussian
/// elimination without pivoting (fine for triangular M), in f64.
fn dense_solve(mm: &[C], b: &[C], m: usize, k: usize) -> Vec<C> {
    // Triangular: substitute in the order the zeros allow.
    let lower = (0..m).all(|i| (i + 1..m).all(|j| mm[i * m + j] == (0.0, 0.0)));
    let mut x = b.to_vec();
    let order: Vec<usize> = if lower {
        (0..m).collect()
    } else {
        (0..m).rev().collect()
    };
    for (pos, &i) in order.iter().enumerate() {
        for c in 0..k {
            let mut s = x[i * k + c];
            for &j in &order[..pos] {
                let p = cmul(mm[i * m + j], x[j * k + c]);
                s = (s.0 - p.0, s.1 - p.1);
            }
            x[i * k + c] = cdiv(s, mm[i * m + i]);
        }
    }
    x
}

fn inf_norm(mm: &[C], rows: usize, cols: usize) -> f64 {
    (0..rows)
        .map(|i| (0..cols).map(|j| cabs(mm[i * cols + j])).sum::<f64>())
        .fold(0.0, f64::max)
}

#[allow(clippy::too_many_arguments)]
fn check_trsm(
    ty: ElementType,
    batch: usize,
    m: usize,
    k: usize,
    left: bool,
    lower: bool,
    unit: bool,
    tr: &str,
    m2m: Option<(&[i64], &[i64])>,
) {
    let mut rng = Rng((m * 131 + k * 7 + left as usize * 3 + lower as usize) as u64 + 99);
    let complex = ty.is_complex();
    let u = unit_roundoff(ty);
    let round = |v: f64| if u > 1e-10 { v as f32 as f64 } else { v };
    let rnd = |rng: &mut Rng| {
        (
            round(rng.next()),
            if complex { round(rng.next()) } else { 0.0 },
        )
    };
    let mut a_in = Vec::new();
    let mut b_in = Vec::new();
    let mut cases = Vec::new();
    for _ in 0..batch {
        // The read triangle: random off-diagonal / m, diagonal of magnitude 1..2 with a sign.
        let mut a = vec![(f64::NAN, f64::NAN); m * m];
        let mut t = vec![(0.0, 0.0); m * m];
        for i in 0..m {
            for j in 0..m {
                let read = if lower { j <= i } else { j >= i };
                if !read {
                    continue;
                }
                let v = if i == j {
                    let d = 1.0 + rng.next().abs();
                    (round(if rng.next() < 0.0 { -d } else { d }), 0.0)
                } else {
                    let (re, im) = rnd(&mut rng);
                    (round(re / m as f64 * 2.0), round(im / m as f64 * 2.0))
                };
                a[i * m + j] = v;
                t[i * m + j] = if i == j && unit { (1.0, 0.0) } else { v };
            }
            if unit {
                a[i * m + i] = (f64::NAN, f64::NAN); // not read
            }
        }
        let (br, bc) = if left { (m, k) } else { (k, m) };
        let b: Vec<C> = (0..br * bc).map(|_| rnd(&mut rng)).collect();
        // op(T)
        let op: Vec<C> = (0..m * m)
            .map(|p| {
                let (i, j) = (p / m, p % m);
                match tr {
                    "NO_TRANSPOSE" => t[i * m + j],
                    "TRANSPOSE" => t[j * m + i],
                    _ => conj(t[j * m + i]),
                }
            })
            .collect();
        // Left: op·X = B. Right: X·op = B ⇔ opᵀ·Xᵀ = Bᵀ.
        let (mm, rhs) = if left {
            (op.clone(), b.clone())
        } else {
            let opt: Vec<C> = (0..m * m).map(|p| op[(p % m) * m + p / m]).collect();
            let bt: Vec<C> = (0..m * k).map(|p| b[(p % k) * m + p / k]).collect();
            (opt, bt)
        };
        let xs = dense_solve(&mm, &rhs, m, k);
        let x: Vec<C> = if left {
            xs
        } else {
            (0..k * m).map(|p| xs[(p % m) * k + p / m]).collect()
        };
        // κ∞(M) and ‖x‖∞ per right-hand side; the element bound c·m·u·κ·‖M⁻¹‖∞‖b‖∞.
        let mut ident = vec![(0.0, 0.0); m * m];
        for i in 0..m {
            ident[i * m + i] = (1.0, 0.0);
        }
        let inv = dense_solve(&mm, &ident, m, m);
        let kappa = inf_norm(&mm, m, m) * inf_norm(&inv, m, m);
        let inv_norm = inf_norm(&inv, m, m);
        let bmax = rhs.iter().map(|&v| cabs(v)).fold(0.0, f64::max);
        cases.push((
            x,
            8.0 * (m as f64 + 1.0) * u * kappa * inv_norm * bmax + 1e-300,
        ));
        a_in.extend(a);
        b_in.extend(b);
    }
    let (br, bc) = if left { (m, k) } else { (k, m) };
    let mut sa = shape(ty, &[batch, m, m]);
    let mut sb = shape(ty, &[batch, br, bc]);
    if let Some((la, lb)) = m2m {
        sa = sa.with_layout(Layout::new(la.to_vec()));
        sb = sb.with_layout(Layout::new(lb.to_vec()));
    }
    let module = op_module(
        Opcode::TriangularSolve,
        &[sa.clone(), sb.clone()],
        Shape::Array(sb.clone()),
        vec![
            attr_bool("left_side", left),
            attr_bool("lower", lower),
            attr_bool("unit_diagonal", unit),
            attr_enum("transpose_a", tr),
        ],
    );
    let args = [lit_of(&sa, &a_in), lit_of(&sb, &b_in)];
    let got = run(&module, &args);
    assert_eq!(array(&got).shape(), &sb);
    let got = to_complex(array(&got));
    for (bi, (x, tol)) in cases.iter().enumerate() {
        for (p, want) in x.iter().enumerate() {
            let g = got[bi * m * k + p];
            let e = cabs((g.0 - want.0, g.1 - want.1));
            assert!(
                e <= *tol,
                "{ty} m={m} k={k} left={left} lower={lower} unit={unit} {tr} layout={m2m:?}: batch {bi} element {p}: got {g:?} want {want:?} ({e:e} > {tol:e})"
            );
        }
    }
    if m <= 3 && k <= 2 && batch <= 2 {
        if let Some(r) = reference(&module, &args) {
            let r = to_complex(array(&r));
            for (p, (&g, &e)) in got.iter().zip(&r).enumerate() {
                let tol = cases[p / (m * k)].1;
                assert!(cabs((g.0 - e.0, g.1 - e.1)) <= tol, "vs reference at {p}");
            }
        }
    }
}

#[test]
fn triangular_solve_every_attribute_combination() {
    for ty in [ElementType::F32, ElementType::F64, ElementType::C64] {
        for left in [true, false] {
            for lower in [true, false] {
                for unit in [true, false] {
                    for tr in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"] {
                        check_trsm(ty, 2, 5, 3, left, lower, unit, tr, None);
                        check_trsm(ty, 1, 1, 1, left, lower, unit, tr, None);
                        check_trsm(ty, 2, 3, 2, left, lower, unit, tr, None);
                    }
                }
            }
        }
    }
}

#[test]
fn triangular_solve_large_batched_and_layouts() {
    for tr in ["NO_TRANSPOSE", "ADJOINT"] {
        check_trsm(ElementType::F64, 1, 200, 150, true, true, false, tr, None);
        check_trsm(ElementType::C128, 1, 120, 70, false, false, false, tr, None);
        check_trsm(ElementType::F32, 64, 6, 4, true, false, true, tr, None);
        check_trsm(
            ElementType::F32,
            2,
            4,
            3,
            true,
            true,
            false,
            tr,
            Some((&[1, 2, 0], &[0, 1, 2])),
        );
        check_trsm(
            ElementType::C64,
            3,
            5,
            2,
            false,
            true,
            false,
            tr,
            Some((&[2, 0, 1], &[1, 0, 2])),
        );
    }
    check_trsm(
        ElementType::F64,
        1,
        0,
        3,
        true,
        true,
        false,
        "TRANSPOSE",
        None,
    );
    check_trsm(
        ElementType::F64,
        1,
        3,
        0,
        true,
        true,
        false,
        "TRANSPOSE",
        None,
    );
}

// ---------------------------------------------------------------------------------------------
// BatchNorm

struct Bn {
    x: Vec<f64>,
    dims: Vec<usize>,
    feature: usize,
}

impl Bn {
    fn feature_of(&self, p: usize) -> usize {
        let inner: usize = self.dims[self.feature + 1..].iter().product();
        (p / inner) % self.dims[self.feature]
    }
    fn features(&self) -> usize {
        self.dims[self.feature]
    }
    fn n(&self) -> f64 {
        (self.x.len() / self.features().max(1)) as f64
    }
    /// Two-pass mean and biased variance in f64.
    fn stats(&self) -> (Vec<f64>, Vec<f64>) {
        let f = self.features();
        let mut mean = vec![0.0; f];
        for (p, &v) in self.x.iter().enumerate() {
            mean[self.feature_of(p)] += v;
        }
        mean.iter_mut().for_each(|m| *m /= self.n());
        let mut var = vec![0.0; f];
        for (p, &v) in self.x.iter().enumerate() {
            let l = self.feature_of(p);
            var[l] += (v - mean[l]).powi(2);
        }
        var.iter_mut().for_each(|m| *m /= self.n());
        (mean, var)
    }
}

fn bn_shapes(ty: ElementType, dims: &[usize], m2m: Option<&[i64]>) -> (ArrayShape, ArrayShape) {
    let mut s = shape(ty, dims);
    if let Some(l) = m2m {
        s = s.with_layout(Layout::new(l.to_vec()));
    }
    (s, ArrayShape::new(ty, vec![0]))
}

fn round_to(ty: ElementType, v: f64) -> f64 {
    let f = ty.float_format().unwrap();
    f.decode(f.encode(v))
}

fn check_batch_norm(
    ty: ElementType,
    dims: &[usize],
    feature: usize,
    m2m: Option<&[i64]>,
    constant: bool,
) {
    let mut rng = Rng(dims.iter().product::<usize>() as u64 + feature as u64);
    let count: usize = dims.iter().product();
    let nf = dims[feature];
    let x: Vec<f64> = (0..count)
        .map(|p| {
            if constant {
                round_to(ty, 0.75)
            } else {
                round_to(ty, 3.0 + 2.0 * rng.next() + p as f64 * 1e-3)
            }
        })
        .collect();
    let gamma: Vec<f64> = (0..nf).map(|_| round_to(ty, 1.0 + rng.next())).collect();
    let beta: Vec<f64> = (0..nf).map(|_| round_to(ty, rng.next())).collect();
    let dy: Vec<f64> = (0..count).map(|_| round_to(ty, rng.next())).collect();
    let bn = Bn {
        x: x.clone(),
        dims: dims.to_vec(),
        feature,
    };
    let (mean, var) = bn.stats();
    let eps = 0.001f32 as f64;
    let (xs, _) = bn_shapes(ty, dims, m2m);
    let vs = ArrayShape::new(ty, vec![nf as i64]);
    let u = unit_roundoff(ty);
    let n = bn.n();
    let rel = 8.0 * u + 4.0 * n * f64::powi(2.0, -53);
    let attrs = || {
        vec![
            attr_raw("epsilon", "0.001"),
            attr_int("feature_index", feature as i64),
        ]
    };
    let vlit = |v: &[f64]| real_lit(&vs, v);
    // Training.
    let m = op_module(
        Opcode::BatchNormTraining,
        &[xs.clone(), vs.clone(), vs.clone()],
        Shape::Tuple(vec![
            Shape::Array(xs.clone()),
            Shape::Array(vs.clone()),
            Shape::Array(vs.clone()),
        ]),
        attrs(),
    );
    let args = [real_lit(&xs, &x), vlit(&gamma), vlit(&beta)];
    let got = run(&m, &args);
    assert_eq!(leaf(&got, 0).shape(), &xs);
    let (y, gm, gv) = (
        leaf(&got, 0).to_f64s().unwrap(),
        leaf(&got, 1).to_f64s().unwrap(),
        leaf(&got, 2).to_f64s().unwrap(),
    );
    for l in 0..nf {
        let xmax = x.iter().fold(0.0f64, |a, &v| a.max(v.abs()));
        assert!(
            (gm[l] - mean[l]).abs() <= rel * xmax,
            "{ty} mean {l}: {} vs {}",
            gm[l],
            mean[l]
        );
        assert!(
            (gv[l] - var[l]).abs()
                <= rel * (var[l] + xmax * xmax * 4.0 * n * f64::powi(2.0, -53) / rel),
            "{ty} var {l}: {} vs {}",
            gv[l],
            var[l]
        );
    }
    for (p, &v) in y.iter().enumerate() {
        let l = bn.feature_of(p);
        let s = (var[l] + eps).sqrt();
        let want = gamma[l] * (x[p] - mean[l]) / s + beta[l];
        let mag = gamma[l].abs() * ((x[p] - mean[l]).abs() + mean[l].abs() + s) / s + beta[l].abs();
        assert!(
            (v - want).abs() <= rel * mag,
            "{ty} {dims:?} f={feature} layout={m2m:?} training y[{p}]: {v} vs {want}"
        );
    }
    if constant {
        for (p, &v) in y.iter().enumerate() {
            let l = bn.feature_of(p);
            assert!(
                (v - beta[l]).abs() <= rel * (beta[l].abs() + 1.0),
                "zero variance: y = β"
            );
        }
    }
    if count <= 64 {
        if let Some(r) = reference(&m, &args) {
            let ry = leaf(&r, 0).to_f64s().unwrap();
            for (p, (&a, &b)) in y.iter().zip(&ry).enumerate() {
                assert!(
                    (a - b).abs() <= rel * (b.abs() + 8.0),
                    "training vs reference at {p}: {a} {b}"
                );
            }
        }
    }
    // Inference with the exact statistics rounded into the type.
    let (mi, vi): (Vec<f64>, Vec<f64>) = (
        mean.iter().map(|&v| round_to(ty, v)).collect(),
        var.iter().map(|&v| round_to(ty, v)).collect(),
    );
    let m = op_module(
        Opcode::BatchNormInference,
        &[xs.clone(), vs.clone(), vs.clone(), vs.clone(), vs.clone()],
        Shape::Array(xs.clone()),
        attrs(),
    );
    let args = [
        real_lit(&xs, &x),
        vlit(&gamma),
        vlit(&beta),
        vlit(&mi),
        vlit(&vi),
    ];
    let got = run(&m, &args);
    let yi = array(&got).to_f64s().unwrap();
    for (p, &v) in yi.iter().enumerate() {
        let l = bn.feature_of(p);
        let s = (vi[l] + eps).sqrt();
        let want = gamma[l] * (x[p] - mi[l]) / s + beta[l];
        let mag = gamma[l].abs() * (x[p] - mi[l]).abs() / s + beta[l].abs();
        assert!(
            (v - want).abs() <= 8.0 * u * mag + 1e-300,
            "{ty} inference y[{p}]: {v} vs {want}"
        );
    }
    // Grad with the given mean and variance.
    let m = op_module(
        Opcode::BatchNormGrad,
        &[xs.clone(), vs.clone(), vs.clone(), vs.clone(), xs.clone()],
        Shape::Tuple(vec![
            Shape::Array(xs.clone()),
            Shape::Array(vs.clone()),
            Shape::Array(vs.clone()),
        ]),
        attrs(),
    );
    let args = [
        real_lit(&xs, &x),
        vlit(&gamma),
        vlit(&mi),
        vlit(&vi),
        real_lit(&xs, &dy),
    ];
    let got = run(&m, &args);
    let (gx, gg, gb) = (
        leaf(&got, 0).to_f64s().unwrap(),
        leaf(&got, 1).to_f64s().unwrap(),
        leaf(&got, 2).to_f64s().unwrap(),
    );
    let mut sdy = vec![0.0; nf];
    let mut sdyx = vec![0.0; nf];
    let mut sabs = vec![0.0; nf];
    for p in 0..count {
        let l = bn.feature_of(p);
        sdy[l] += dy[p];
        sdyx[l] += dy[p] * (x[p] - mi[l]);
        sabs[l] += (dy[p] * (x[p] - mi[l])).abs() + dy[p].abs();
    }
    for l in 0..nf {
        let v = vi[l] + eps;
        assert!(
            (gb[l] - sdy[l]).abs() <= rel * sabs[l] + 1e-300,
            "{ty} grad_offset {l}"
        );
        assert!(
            (gg[l] - sdyx[l] / v.sqrt()).abs() <= rel * sabs[l] / v.sqrt() + 1e-300,
            "{ty} grad_scale {l}: {} vs {}",
            gg[l],
            sdyx[l] / v.sqrt()
        );
    }
    for p in 0..count {
        let l = bn.feature_of(p);
        let v = vi[l] + eps;
        let (c, d) = (sdyx[l] / (n * v), sdy[l] / n);
        let want = gamma[l] / v.sqrt() * (dy[p] - d - c * (x[p] - mi[l]));
        let mag = gamma[l].abs() / v.sqrt()
            * (dy[p].abs() + sabs[l] / n * (1.0 + (x[p] - mi[l]).abs() / v));
        assert!(
            (gx[p] - want).abs() <= rel * mag + 1e-300,
            "{ty} {dims:?} f={feature} grad_operand[{p}]: {} vs {want}",
            gx[p]
        );
    }
}

#[test]
fn batch_norm_feature_first_and_last() {
    for ty in [ElementType::F32, ElementType::F64] {
        check_batch_norm(ty, &[4, 3, 5], 0, None, false);
        check_batch_norm(ty, &[4, 3, 5], 2, None, false);
        check_batch_norm(ty, &[2, 3, 4, 5], 1, None, false);
        check_batch_norm(ty, &[7], 0, None, false);
        check_batch_norm(ty, &[3, 1], 1, None, false);
    }
}

#[test]
fn batch_norm_large_and_layouts() {
    check_batch_norm(ElementType::F32, &[8, 16, 20, 20], 1, None, false);
    check_batch_norm(ElementType::F32, &[2000, 24], 1, None, false);
    check_batch_norm(ElementType::F64, &[3, 70000], 0, None, false);
    check_batch_norm(ElementType::F32, &[4, 3, 5], 1, Some(&[1, 0, 2]), false);
    check_batch_norm(ElementType::F64, &[4, 3, 5], 2, Some(&[2, 0, 1]), false);
    check_batch_norm(ElementType::F32, &[6, 4], 0, Some(&[0, 1]), false);
}

#[test]
fn batch_norm_zero_variance_and_narrow_types() {
    for ty in [
        ElementType::F32,
        ElementType::F64,
        ElementType::Bf16,
        ElementType::F16,
    ] {
        check_batch_norm(ty, &[4, 3, 5], 1, None, true);
    }
    for ty in [ElementType::Bf16, ElementType::F16] {
        check_batch_norm(ty, &[4, 3, 5], 1, None, false);
    }
}

#[test]
fn batch_norm_rejects_integers() {
    let s = shape(ElementType::S32, &[2, 2]);
    let v = ArrayShape::new(ElementType::S32, vec![2]);
    let m = op_module(
        Opcode::BatchNormInference,
        &[s.clone(), v.clone(), v.clone(), v.clone(), v.clone()],
        Shape::Array(s.clone()),
        vec![attr_raw("epsilon", "0.001"), attr_int("feature_index", 1)],
    );
    let z = |sh: &ArrayShape| Literal::from(ArrayLiteral::zeros(sh.clone()));
    let e = Fast::new()
        .execute(&m, &[z(&s), z(&v), z(&v), z(&v), z(&v)])
        .unwrap_err();
    assert!(matches!(e, BackendError::Unsupported(_)), "{e}");
}
