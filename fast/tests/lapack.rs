//! LAPACK custom calls of the fast backend (`lapack_<t><routine>_ffi`, docs/custom-calls.md):
//! known answers (some cross-checked against LAPACK through scipy while writing them), LAPACK's
//! conventions (pivots, `info`, `?LARFG`'s signs, the untouched triangle of potrf), and the
//! defining identities (`P·L·U = A`, `Q·R = A`, `A·V = V·diag(w)`, `U·diag(s)·Vᴴ = A`,
//! orthonormality) in f64 with bounds of a few hundred `u·‖A‖`, in f32, f64, c64 and c128, batched
//! and in JAX's column-major layouts.

use conformance_fast::Fast;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, BackendError, ElementType, Layout, Literal};

type C = (f64, f64);

// ---------------------------------------------------------------------------------------------
// Building and running calls

/// `ty[dims]` with each matrix column-major (LAPACK's and JAX's layout: `{0,1}`, `{1,2,0}`, …)
/// when `column_major`, else row-major.
fn shape(ty: ElementType, dims: &[i64], column_major: bool) -> ArrayShape {
    let s = ArrayShape::new(ty, dims.to_vec());
    let r = dims.len() as i64;
    if column_major && r >= 2 {
        let mut m2m = vec![r - 2, r - 1];
        m2m.extend((0..r - 2).rev());
        s.with_layout(Layout::new(m2m))
    } else {
        s
    }
}

/// A literal of `s` from row-major (logical order) complex values (real types: real parts).
fn lit(s: &ArrayShape, v: &[C]) -> Literal {
    let row = ArrayShape::new(s.element_type, s.dimensions.clone());
    let a = if s.element_type.is_complex() {
        ArrayLiteral::from_complex(row, v).unwrap()
    } else {
        let re: Vec<f64> = v.iter().map(|c| c.0).collect();
        ArrayLiteral::from_f64s(row, &re).unwrap()
    };
    a.relayout(s.layout.clone()).into()
}

fn reals(v: &[f64]) -> Vec<C> {
    v.iter().map(|&x| (x, 0.0)).collect()
}

/// The module `ROOT r = result custom-call(p0, ...)` with the target's attributes.
fn module_text(
    target: &str,
    config: &str,
    batch_dims: usize,
    operands: &[&ArrayShape],
    result: &str,
) -> String {
    let mut text = String::from("HloModule lapack\n\nENTRY main {\n");
    for (i, s) in operands.iter().enumerate() {
        text += &format!("  p{i} = {s} parameter({i})\n");
    }
    let names: Vec<String> = (0..operands.len()).map(|i| format!("p{i}")).collect();
    text += &format!(
        "  ROOT r = {result} custom-call({}), custom_call_target=\"{target}\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={{num_batch_dims=\"{batch_dims}\"}}, backend_config={config}\n}}\n",
        names.join(", ")
    );
    text
}

fn try_call(
    target: &str,
    config: &str,
    batch_dims: usize,
    operands: &[(&ArrayShape, &Literal)],
    result: &str,
) -> Result<Literal, BackendError> {
    try_call_on(&Fast::new(), target, config, batch_dims, operands, result)
}

fn try_call_on(
    fast: &Fast,
    target: &str,
    config: &str,
    batch_dims: usize,
    operands: &[(&ArrayShape, &Literal)],
    result: &str,
) -> Result<Literal, BackendError> {
    let shapes: Vec<&ArrayShape> = operands.iter().map(|o| o.0).collect();
    let text = module_text(target, config, batch_dims, &shapes, result);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let args: Vec<Literal> = operands.iter().map(|o| o.1.clone()).collect();
    fast.execute(&m, &args)
}

fn call(
    target: &str,
    config: &str,
    batch_dims: usize,
    operands: &[(&ArrayShape, &Literal)],
    result: &str,
) -> Literal {
    try_call(target, config, batch_dims, operands, result)
        .unwrap_or_else(|e| panic!("{target}: {e}"))
}

/// Logical row-major values of an array literal as complex numbers (real types: im = 0).
fn values(l: &ArrayLiteral) -> Vec<C> {
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

fn ints(l: &ArrayLiteral) -> Vec<i64> {
    l.to_i128s()
        .unwrap()
        .into_iter()
        .map(|v| v as i64)
        .collect()
}

fn leaf(l: &Literal, i: usize) -> &ArrayLiteral {
    match l {
        Literal::Tuple(t) => t[i].as_array().expect("array leaf"),
        _ => panic!("tuple expected, got {l}"),
    }
}

/// The declared layout of every leaf is kept.
fn assert_layouts(l: &Literal, want: &[&ArrayShape]) {
    let leaves = l.array_leaves();
    assert_eq!(leaves.len(), want.len());
    for (a, w) in leaves.iter().zip(want) {
        assert_eq!(a.shape(), *w);
    }
}

// ---------------------------------------------------------------------------------------------
// Small complex matrices (row-major `Vec<C>` with explicit sizes)

fn add(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}
fn sub(a: C, b: C) -> C {
    (a.0 - b.0, a.1 - b.1)
}
fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn conj(a: C) -> C {
    (a.0, -a.1)
}
fn abs(a: C) -> f64 {
    a.0.hypot(a.1)
}

/// `a (m×k) · b (k×n)`.
fn matmul(a: &[C], b: &[C], m: usize, k: usize, n: usize) -> Vec<C> {
    let mut c = vec![(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = (0.0, 0.0);
            for l in 0..k {
                s = add(s, mul(a[i * k + l], b[l * n + j]));
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// The conjugate transpose of `a (m×n)`.
fn adjoint(a: &[C], m: usize, n: usize) -> Vec<C> {
    let mut t = vec![(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = conj(a[i * n + j]);
        }
    }
    t
}

fn max_diff(a: &[C], b: &[C]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| abs(sub(x, y)))
        .fold(0.0, f64::max)
}

fn max_abs(a: &[C]) -> f64 {
    a.iter().map(|&x| abs(x)).fold(0.0, f64::max)
}

fn identity(n: usize) -> Vec<C> {
    let mut e = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        e[i * n + i] = (1.0, 0.0);
    }
    e
}

fn assert_close(what: &str, got: &[C], want: &[C], tol: f64) {
    let d = max_diff(got, want);
    assert!(
        d <= tol,
        "{what}: max difference {d:e} > {tol:e}\n got {got:?}\nwant {want:?}"
    );
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
    fn matrix(&mut self, len: usize, complex: bool) -> Vec<C> {
        (0..len)
            .map(|_| (self.next(), if complex { self.next() } else { 0.0 }))
            .collect()
    }
}

fn unit_roundoff(ty: ElementType) -> f64 {
    match ty {
        ElementType::F32 | ElementType::C64 => f64::powi(2.0, -24),
        _ => f64::powi(2.0, -53),
    }
}

fn letter(ty: ElementType) -> char {
    match ty {
        ElementType::F32 => 's',
        ElementType::F64 => 'd',
        ElementType::C64 => 'c',
        _ => 'z',
    }
}

fn real_of(ty: ElementType) -> ElementType {
    match ty {
        ElementType::C64 => ElementType::F32,
        ElementType::C128 => ElementType::F64,
        t => t,
    }
}

const TYPES: [ElementType; 4] = [
    ElementType::F32,
    ElementType::F64,
    ElementType::C64,
    ElementType::C128,
];

// ---------------------------------------------------------------------------------------------
// getrf

/// `P·L·U` of a packed `m × n` LU with 1-based `ipiv` (LAPACK's row interchanges).
fn plu(lu: &[C], ipiv: &[i64], m: usize, n: usize) -> Vec<C> {
    let k = m.min(n);
    let mut l = vec![(0.0, 0.0); m * k];
    let mut u = vec![(0.0, 0.0); k * n];
    for i in 0..m {
        for j in 0..n {
            let v = lu[i * n + j];
            if i > j && j < k {
                l[i * k + j] = v;
            } else if i <= j && i < k {
                u[i * n + j] = v;
            }
        }
        if i < k {
            l[i * k + i] = (1.0, 0.0);
        }
    }
    let mut a = matmul(&l, &u, m, k, n);
    for j in (0..k).rev() {
        let p = ipiv[j] as usize - 1;
        for c in 0..n {
            a.swap(j * n + c, p * n + c);
        }
    }
    a
}

#[test]
fn getrf_singular_matrix_gives_lapack_pivots_and_info() {
    let a = [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 1.0, 1.0];
    for ty in [ElementType::F64, ElementType::F32] {
        let s = shape(ty, &[3, 3], true);
        let r = call(
            &format!("lapack_{}getrf_ffi", letter(ty)),
            "{}",
            0,
            &[(&s, &lit(&s, &reals(&a)))],
            &format!("({s}, s32[3]{{0}}, s32[])"),
        );
        // LAPACK (dgetrf through scipy): ipiv [2, 3, 3], info 3.
        assert_eq!(ints(leaf(&r, 1)), vec![2, 3, 3]);
        assert_eq!(ints(leaf(&r, 2)), vec![3]);
        let want = reals(&[2.0, 4.0, 6.0, 0.5, -1.0, -2.0, 0.5, 0.0, 0.0]);
        assert_close("lu", &values(leaf(&r, 0)), &want, 0.0);
        assert_eq!(leaf(&r, 0).shape(), &s);
    }
}

#[test]
fn getrf_pivots_by_abs1_first_on_ties_and_skips_zero_columns() {
    // Complex: |2+2i|₁ = 4 > 3 (by modulus 2.83 < 3 the first row would win).
    let s = shape(ElementType::C128, &[2, 2], true);
    let a = [(3.0, 0.0), (1.0, 0.0), (2.0, 2.0), (1.0, 0.0)];
    let r = call(
        "lapack_zgetrf_ffi",
        "{}",
        0,
        &[(&s, &lit(&s, &a))],
        &format!("({s}, s32[2]{{0}}, s32[])"),
    );
    assert_eq!(ints(leaf(&r, 1)), vec![2, 2]);
    assert_eq!(ints(leaf(&r, 2)), vec![0]);
    // scipy's zgetrf: [[2+2i, 1], [0.75−0.75i, 0.25+0.75i]].
    let want = [(2.0, 2.0), (1.0, 0.0), (0.75, -0.75), (0.25, 0.75)];
    assert_close("lu", &values(leaf(&r, 0)), &want, 1e-15);

    // Ties keep the first row; an all-zero column is not scaled and sets info.
    let s = shape(ElementType::F64, &[2, 2], true);
    for (a, ipiv, info) in [
        ([1.0, 5.0, -1.0, 2.0], vec![1, 2], 0),
        ([0.0, 1.0, 0.0, 2.0], vec![1, 2], 1),
    ] {
        let r = call(
            "lapack_dgetrf_ffi",
            "{}",
            0,
            &[(&s, &lit(&s, &reals(&a)))],
            &format!("({s}, s32[2]{{0}}, s32[])"),
        );
        assert_eq!(ints(leaf(&r, 1)), ipiv, "{a:?}");
        assert_eq!(ints(leaf(&r, 2)), vec![info], "{a:?}");
    }
}

#[test]
fn getrf_reconstructs_rectangular_batched_matrices() {
    let mut rng = Rng(7);
    for ty in TYPES {
        for (m, n) in [(4usize, 4usize), (5, 3), (3, 5)] {
            let b = 2;
            let s = shape(ty, &[b as i64, m as i64, n as i64], true);
            let a = rng.matrix(b * m * n, ty.is_complex());
            let k = m.min(n);
            let r = call(
                &format!("lapack_{}getrf_ffi", letter(ty)),
                "{}",
                1,
                &[(&s, &lit(&s, &a))],
                &format!("({s}, s32[{b},{k}]{{1,0}}, s32[{b}]{{0}})"),
            );
            let lu = values(leaf(&r, 0));
            let ipiv = ints(leaf(&r, 1));
            assert_eq!(ints(leaf(&r, 2)), vec![0, 0]);
            for i in 0..b {
                let lu = &lu[i * m * n..][..m * n];
                let got = plu(lu, &ipiv[i * k..][..k], m, n);
                let tol = 50.0 * (m as f64) * unit_roundoff(ty);
                assert_close(
                    &format!("{ty} {m}x{n} P·L·U"),
                    &got,
                    &a[i * m * n..][..m * n],
                    tol,
                );
                // |L| ≤ 1 below the diagonal
                for r in 0..m {
                    for c in 0..r.min(n) {
                        // (complex pivots maximize |re| + |im|: |l| ≤ √2)
                        let bound = if ty.is_complex() { 2f64.sqrt() } else { 1.0 };
                        assert!(abs(lu[r * n + c]) <= bound * (1.0 + 1e-6));
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// potrf

#[test]
fn potrf_failure_keeps_the_other_triangle_and_reports_the_pivot() {
    let a = [4.0, 2.0, 0.0, 2.0, 1.0, 3.0, 0.0, 3.0, -5.0];
    for ty in TYPES {
        let s = shape(ty, &[3, 3], true);
        let r = call(
            &format!("lapack_{}potrf_ffi", letter(ty)),
            "{uplo = 76 : ui8}",
            0,
            &[(&s, &lit(&s, &reals(&a)))],
            &format!("({s}, s32[])"),
        );
        assert_eq!(ints(leaf(&r, 1)), vec![2], "{ty}");
        let l = values(leaf(&r, 0));
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            assert_eq!(l[i * 3 + j], (a[i * 3 + j], 0.0), "{ty} ({i},{j})");
        }
        // The first column is computed before the failure.
        assert_eq!(l[0], (2.0, 0.0));
        assert_eq!(l[3], (1.0, 0.0));
    }
}

/// A Hermitian positive definite `n × n` matrix: `B·Bᴴ + n·I`.
fn hpd(rng: &mut Rng, n: usize, complex: bool) -> Vec<C> {
    let b = rng.matrix(n * n, complex);
    let mut a = matmul(&b, &adjoint(&b, n, n), n, n, n);
    for i in 0..n {
        a[i * n + i] = add(a[i * n + i], (n as f64, 0.0));
        a[i * n + i].1 = 0.0;
    }
    a
}

#[test]
fn potrf_factors_either_triangle_without_reading_the_other() {
    let mut rng = Rng(11);
    let n = 5;
    for ty in TYPES {
        for lower in [true, false] {
            let b = 2;
            let mut a = Vec::new();
            let mut input = Vec::new();
            for _ in 0..b {
                let h = hpd(&mut rng, n, ty.is_complex());
                // Garbage in the triangle that must not be read.
                let mut x = h.clone();
                for i in 0..n {
                    for j in 0..n {
                        if (lower && j > i) || (!lower && j < i) {
                            x[i * n + j] = (99.0, if ty.is_complex() { -7.0 } else { 0.0 });
                        }
                    }
                }
                a.push(h);
                input.extend(x);
            }
            let s = shape(ty, &[b as i64, n as i64, n as i64], true);
            let uplo = if lower { 76 } else { 85 };
            let r = call(
                &format!("lapack_{}potrf_ffi", letter(ty)),
                &format!("{{uplo = {uplo} : ui8}}"),
                1,
                &[(&s, &lit(&s, &input))],
                &format!("({s}, s32[{b}]{{0}})"),
            );
            assert_eq!(ints(leaf(&r, 1)), vec![0, 0]);
            let out = values(leaf(&r, 0));
            for (i, h) in a.iter().enumerate() {
                let o = &out[i * n * n..][..n * n];
                let mut f = o.to_vec();
                for r in 0..n {
                    for c in 0..n {
                        let other = if lower { c > r } else { c < r };
                        if other {
                            assert_eq!(o[r * n + c], input[i * n * n + r * n + c]);
                            f[r * n + c] = (0.0, 0.0);
                        }
                    }
                }
                for d in 0..n {
                    assert!(
                        f[d * n + d].0 > 0.0 && f[d * n + d].1 == 0.0,
                        "{ty} lower={lower} {:?}",
                        f[d * n + d]
                    );
                }
                let prod = if lower {
                    matmul(&f, &adjoint(&f, n, n), n, n, n)
                } else {
                    matmul(&adjoint(&f, n, n), &f, n, n, n)
                };
                let tol = 20.0 * n as f64 * unit_roundoff(ty) * max_abs(h);
                assert_close(&format!("{ty} lower={lower}"), &prod, h, tol);
            }
        }
    }
}

#[test]
fn potrf_batch_reports_each_element() {
    let s = shape(ElementType::F32, &[2, 3, 3], true);
    let a = [
        4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0, // SPD
        4.0, 2.0, 0.0, 2.0, 1.0, 3.0, 0.0, 3.0, -5.0, // not
    ];
    let r = call(
        "lapack_spotrf_ffi",
        "{uplo = 76 : ui8}",
        1,
        &[(&s, &lit(&s, &reals(&a)))],
        &format!("({s}, s32[2]{{0}})"),
    );
    assert_eq!(ints(leaf(&r, 1)), vec![0, 2]);
    let l = values(leaf(&r, 0));
    assert_close("l00, l10", &[l[0], l[3]], &reals(&[2.0, 1.0]), 0.0);
    // NaN is a failed pivot too.
    let s = shape(ElementType::F64, &[2, 2], true);
    let r = call(
        "lapack_dpotrf_ffi",
        "{uplo = 76 : ui8}",
        0,
        &[(&s, &lit(&s, &reals(&[1.0, 0.0, 0.0, f64::NAN])))],
        &format!("({s}, s32[])"),
    );
    assert_eq!(ints(leaf(&r, 1)), vec![2]);
}

// ---------------------------------------------------------------------------------------------
// trsm

#[test]
fn trsm_solves_every_side_triangle_and_transpose() {
    let mut rng = Rng(3);
    let (m, k, b) = (4usize, 3usize, 2usize);
    for ty in TYPES {
        for left in [true, false] {
            for lower in [true, false] {
                for trans in [78u8, 84, 67] {
                    for unit in [false, true] {
                        let mut a_in = Vec::new();
                        let mut b_in = Vec::new();
                        let mut x_want = Vec::new();
                        for _ in 0..b {
                            let mut a = rng.matrix(m * m, ty.is_complex());
                            // The triangle used, well conditioned.
                            let mut t = vec![(0.0, 0.0); m * m];
                            for i in 0..m {
                                for j in 0..m {
                                    if (lower && j < i) || (!lower && j > i) {
                                        t[i * m + j] = mul(a[i * m + j], (0.5, 0.0));
                                    }
                                }
                                let d = if unit {
                                    (1.0, 0.0)
                                } else {
                                    (2.0, 0.5 * a[i * m + i].1)
                                };
                                t[i * m + i] = d;
                                // The stored diagonal is garbage when unit.
                                a[i * m + i] = if unit { (7.0, 3.0) } else { d };
                            }
                            for i in 0..m {
                                for j in 0..m {
                                    if i != j && ((lower && j < i) || (!lower && j > i)) {
                                        a[i * m + j] = t[i * m + j];
                                    } else if i != j {
                                        a[i * m + j] = (123.0, 1.0);
                                    }
                                }
                            }
                            let op = match trans {
                                78 => t.clone(),
                                67 => adjoint(&t, m, m),
                                _ => {
                                    let mut tt = adjoint(&t, m, m);
                                    tt.iter_mut().for_each(|v| *v = conj(*v));
                                    tt
                                }
                            };
                            let (xr, xc) = if left { (m, k) } else { (k, m) };
                            let x = rng.matrix(xr * xc, ty.is_complex());
                            let rhs = if left {
                                matmul(&op, &x, m, m, k)
                            } else {
                                matmul(&x, &op, k, m, m)
                            };
                            a_in.extend(a);
                            b_in.extend(rhs);
                            x_want.extend(x);
                        }
                        let sa = shape(ty, &[b as i64, m as i64, m as i64], true);
                        let bd = if left { [b, m, k] } else { [b, k, m] };
                        let sb = shape(ty, &bd.map(|d| d as i64), true);
                        let cfg = format!(
                            "{{diag = {} : ui8, side = {} : ui8, trans_x = {trans} : ui8, uplo = {} : ui8}}",
                            if unit { 85 } else { 78 },
                            if left { 76 } else { 82 },
                            if lower { 76 } else { 85 }
                        );
                        let r = call(
                            &format!("lapack_{}trsm_ffi", letter(ty)),
                            &cfg,
                            1,
                            &[(&sa, &lit(&sa, &a_in)), (&sb, &lit(&sb, &b_in))],
                            &sb.to_string(),
                        );
                        let got = values(r.as_array().unwrap());
                        assert_eq!(r.as_array().unwrap().shape(), &sb);
                        let tol = 200.0 * unit_roundoff(ty);
                        assert_close(&format!("{ty} {cfg}"), &got, &x_want, tol);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// geqrf, orgqr

#[test]
fn geqrf_follows_larfg_signs() {
    let s = shape(ElementType::F64, &[3, 2], true);
    let a = reals(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = call(
        "lapack_dgeqrf_ffi",
        "{}",
        0,
        &[(&s, &lit(&s, &a))],
        &format!("({s}, f64[2]{{0}})"),
    );
    // LAPACK's dgeqrf (through scipy).
    let qr = reals(&[
        -5.916079783099616,
        -7.437357441610946,
        0.4337717455676132,
        0.828078671210825,
        0.7229529092793553,
        0.8926238280228976,
    ]);
    let tau = reals(&[1.1690308509457032, 1.1131040011646904]);
    assert_close("qr", &values(leaf(&r, 0)), &qr, 1e-14);
    assert_close("tau", &values(leaf(&r, 1)), &tau, 1e-14);

    // Complex (zgeqrf): R's diagonal real, tau complex.
    let s = shape(ElementType::C128, &[3, 2], true);
    let a = [
        (1.0, 1.0),
        (2.0, 0.0),
        (3.0, 0.0),
        (4.0, -2.0),
        (0.0, 5.0),
        (6.0, 0.0),
    ];
    let r = call(
        "lapack_zgeqrf_ffi",
        "{}",
        0,
        &[(&s, &lit(&s, &a))],
        &format!("({s}, c128[2]{{0}})"),
    );
    let qr = [
        (-6.000000000000001, 0.0),
        (-2.333333333333333, 6.333333333333332),
        (0.41999999999999993, -0.05999999999999999),
        (-3.80058475033046, 0.0),
        (0.09999999999999998, 0.7),
        (0.12107134211715193, -0.39483565321840913),
    ];
    let tau = [
        (1.1666666666666667, 0.16666666666666663),
        (1.6735805588277983, 0.24206801332873978),
    ];
    assert_close("complex qr", &values(leaf(&r, 0)), &qr, 1e-14);
    assert_close("complex tau", &values(leaf(&r, 1)), &tau, 1e-14);

    // Columns already zero below the diagonal: tau = 0 and R keeps alpha.
    let s = shape(ElementType::F32, &[3, 3], true);
    let a = reals(&[1.0, 2.0, 0.0, 0.0, 4.0, 1.0, 0.0, 0.0, 1.0]);
    let r = call(
        "lapack_sgeqrf_ffi",
        "{}",
        0,
        &[(&s, &lit(&s, &a))],
        &format!("({s}, f32[3]{{0}})"),
    );
    assert_close("triangular qr", &values(leaf(&r, 0)), &a, 0.0);
    assert_close(
        "triangular tau",
        &values(leaf(&r, 1)),
        &reals(&[0.0; 3]),
        0.0,
    );
}

/// `H(1)⋯H(k)` applied to the first `n` columns of the `m × m` identity, from the packed
/// reflectors of `a (m × n)` and `tau (k)`.
fn householder_product(a: &[C], tau: &[C], m: usize, n: usize) -> Vec<C> {
    let mut q = identity(m);
    for (j, &t) in tau.iter().enumerate() {
        let mut v = vec![(0.0, 0.0); m];
        v[j] = (1.0, 0.0);
        for i in j + 1..m {
            v[i] = a[i * n + j];
        }
        // q ← q·(I − t·v·vᴴ)
        let mut h = identity(m);
        for r in 0..m {
            for c in 0..m {
                h[r * m + c] = sub(h[r * m + c], mul(t, mul(v[r], conj(v[c]))));
            }
        }
        q = matmul(&q, &h, m, m, m);
    }
    (0..m).flat_map(|r| q[r * m..r * m + n].to_vec()).collect()
}

#[test]
fn geqrf_then_orgqr_reconstructs_and_is_orthonormal() {
    let mut rng = Rng(5);
    for ty in TYPES {
        for (m, n) in [(3usize, 2usize), (5, 5), (6, 4)] {
            let b = 2;
            let s = shape(ty, &[b as i64, m as i64, n as i64], true);
            let a = rng.matrix(b * m * n, ty.is_complex());
            let k = m.min(n);
            let rt = format!("{ty}[{b},{k}]{{1,0}}");
            let r = call(
                &format!("lapack_{}geqrf_ffi", letter(ty)),
                "{}",
                1,
                &[(&s, &lit(&s, &a))],
                &format!("({s}, {rt})"),
            );
            let qr = values(leaf(&r, 0));
            let tau = values(leaf(&r, 1));
            let st = shape(ty, &[b as i64, k as i64], false);
            let q = call(
                &format!(
                    "lapack_{}{}_ffi",
                    letter(ty),
                    if ty.is_complex() { "ungqr" } else { "orgqr" }
                ),
                "{}",
                1,
                &[(&s, &lit(&s, &qr)), (&st, &lit(&st, &tau))],
                &s.to_string(),
            );
            let q = values(q.as_array().unwrap());
            let u = unit_roundoff(ty);
            for i in 0..b {
                let qi = &q[i * m * n..][..m * n];
                let qri = &qr[i * m * n..][..m * n];
                let taui = &tau[i * k..][..k];
                // orgqr is the product of the given reflectors.
                let want = householder_product(qri, taui, m, n);
                assert_close(
                    &format!("{ty} {m}x{n} orgqr"),
                    qi,
                    &want,
                    50.0 * m as f64 * u,
                );
                let qhq = matmul(&adjoint(qi, m, n), qi, n, m, n);
                assert_close(
                    &format!("{ty} QᴴQ"),
                    &qhq,
                    &identity(n),
                    50.0 * m as f64 * u,
                );
                let mut rmat = vec![(0.0, 0.0); n * n];
                for r in 0..k {
                    for c in r..n {
                        rmat[r * n + c] = qri[r * n + c];
                    }
                    // ?LARFG: R's diagonal is real.
                    assert_eq!(qri[r * n + r].1, 0.0);
                }
                let back = matmul(qi, &rmat, m, n, n);
                assert_close(
                    &format!("{ty} {m}x{n} Q·R"),
                    &back,
                    &a[i * m * n..][..m * n],
                    100.0 * m as f64 * u,
                );
                for t in taui {
                    assert!(t.0 == 0.0 && t.1 == 0.0 || (1.0 - 1e-6..=2.0 + 1e-6).contains(&t.0));
                }
            }
        }
    }
}

#[test]
fn orgqr_with_fewer_reflectors_than_columns() {
    let mut rng = Rng(9);
    let (m, n, k) = (5usize, 4usize, 2usize);
    for ty in [ElementType::F64, ElementType::C128] {
        let a = rng.matrix(m * n, ty.is_complex());
        let tau: Vec<C> = (0..k)
            .map(|_| {
                (
                    1.0 + 0.5 * rng.next().abs(),
                    if ty.is_complex() {
                        0.3 * rng.next()
                    } else {
                        0.0
                    },
                )
            })
            .collect();
        let s = shape(ty, &[m as i64, n as i64], true);
        let st = shape(ty, &[k as i64], false);
        let q = call(
            &format!(
                "lapack_{}{}_ffi",
                letter(ty),
                if ty.is_complex() { "ungqr" } else { "orgqr" }
            ),
            "{}",
            0,
            &[(&s, &lit(&s, &a)), (&st, &lit(&st, &tau))],
            &s.to_string(),
        );
        let want = householder_product(&a, &tau, m, n);
        assert_close(
            &format!("{ty}"),
            &values(q.as_array().unwrap()),
            &want,
            1e-13,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// syevd / heevd

/// Checks `A·V = V·diag(w)`, `VᴴV = I`, `w` ascending for the Hermitian `a`.
fn check_eigh(what: &str, a: &[C], v: &[C], w: &[f64], n: usize, tol: f64) {
    for j in 1..n {
        assert!(w[j - 1] <= w[j], "{what}: not ascending {w:?}");
    }
    let av = matmul(a, v, n, n, n);
    let mut vw = v.to_vec();
    for r in 0..n {
        for c in 0..n {
            vw[r * n + c] = mul(v[r * n + c], (w[c], 0.0));
        }
    }
    let scale = max_abs(a).max(1.0);
    assert_close(&format!("{what} A·V"), &av, &vw, tol * scale);
    let vhv = matmul(&adjoint(v, n, n), v, n, n, n);
    assert_close(&format!("{what} VᴴV"), &vhv, &identity(n), tol);
}

#[test]
fn syevd_reads_one_triangle() {
    // docs/custom-calls.md: the lower-symmetric version of a non-symmetric matrix.
    let a = reals(&[2.0, 100.0, 100.0, 1.0, 2.0, 100.0, 0.0, 1.0, 2.0]);
    let s = shape(ElementType::F64, &[3, 3], true);
    let r2 = 2f64.sqrt();
    for (uplo, want) in [(76, [2.0 - r2, 2.0, 2.0 + r2]), (85, [-98.0, -98.0, 202.0])] {
        let r = call(
            "lapack_dsyevd_ffi",
            &format!("{{mode = 86 : ui8, uplo = {uplo} : ui8}}"),
            0,
            &[(&s, &lit(&s, &a))],
            &format!("({s}, f64[3]{{0}}, s32[])"),
        );
        let w: Vec<f64> = values(leaf(&r, 1)).iter().map(|c| c.0).collect();
        assert_close(&format!("uplo {uplo}"), &reals(&w), &reals(&want), 1e-12);
        assert_eq!(ints(leaf(&r, 2)), vec![0]);
        let mut h = a.clone();
        for i in 0..3 {
            for j in 0..3 {
                let from_lower = if uplo == 76 { j > i } else { j < i };
                if from_lower {
                    h[i * 3 + j] = conj(a[j * 3 + i]);
                }
            }
        }
        check_eigh("dsyevd", &h, &values(leaf(&r, 0)), &w, 3, 1e-12);
    }
}

#[test]
fn syevd_batched_all_types_and_modes() {
    let mut rng = Rng(13);
    let n = 5;
    let b = 2;
    for ty in TYPES {
        for uplo in [76, 85] {
            let mut input = Vec::new();
            let mut herm = Vec::new();
            for _ in 0..b {
                let x = rng.matrix(n * n, ty.is_complex());
                let mut h = matmul(&x, &adjoint(&x, n, n), n, n, n);
                for i in 0..n {
                    h[i * n + i].1 = 0.0;
                    h[i * n + i].0 -= 1.0;
                }
                let mut inp = h.clone();
                for i in 0..n {
                    for j in 0..n {
                        if (uplo == 76 && j > i) || (uplo == 85 && j < i) {
                            inp[i * n + j] = (55.0, 5.0);
                        }
                    }
                }
                input.extend(inp);
                herm.push(h);
            }
            let s = shape(ty, &[b as i64, n as i64, n as i64], true);
            let rt = real_of(ty);
            let name = if ty.is_complex() { "heevd" } else { "syevd" };
            let result = format!("({s}, {rt}[{b},{n}]{{1,0}}, s32[{b}]{{0}})");
            let r = call(
                &format!("lapack_{}{name}_ffi", letter(ty)),
                &format!("{{mode = 86 : ui8, uplo = {uplo} : ui8}}"),
                1,
                &[(&s, &lit(&s, &input))],
                &result,
            );
            assert_layouts(
                &r,
                &[
                    &s,
                    &shape(rt, &[b as i64, n as i64], false),
                    &shape(ElementType::S32, &[b as i64], false),
                ],
            );
            assert_eq!(ints(leaf(&r, 2)), vec![0; b]);
            let v = values(leaf(&r, 0));
            let w: Vec<f64> = values(leaf(&r, 1)).iter().map(|c| c.0).collect();
            let tol = 100.0 * n as f64 * unit_roundoff(ty);
            for (i, h) in herm.iter().enumerate() {
                check_eigh(
                    &format!("{ty} uplo {uplo}"),
                    h,
                    &v[i * n * n..][..n * n],
                    &w[i * n..][..n],
                    n,
                    tol,
                );
            }
            // Mode N: the same values, no vectors.
            let rn = call(
                &format!("lapack_{}{name}_ffi", letter(ty)),
                &format!("{{mode = 78 : ui8, uplo = {uplo} : ui8}}"),
                1,
                &[(&s, &lit(&s, &input))],
                &result,
            );
            let wn: Vec<f64> = values(leaf(&rn, 1)).iter().map(|c| c.0).collect();
            assert_close("mode N values", &reals(&wn), &reals(&w), tol * 100.0);
            assert_eq!(max_abs(&values(leaf(&rn, 0))), 0.0);
        }
    }
}

/// Matrices larger than one reduction panel (32 columns): 70 = two full panels and a partial one,
/// and past the divide-and-conquer leaf size, in every type and triangle, with a spread of
/// eigenvalues (a diagonal ramp) and a cluster (a rank-1 perturbation of the identity).
#[test]
fn syevd_large_matrices_across_reduction_panels() {
    let mut rng = Rng(71);
    let n = 70;
    for ty in TYPES {
        for uplo in [76, 85] {
            for kind in ["ramp", "cluster"] {
                let x = rng.matrix(n, ty.is_complex());
                let mut h = vec![(0.0, 0.0); n * n];
                for i in 0..n {
                    for j in 0..n {
                        h[i * n + j] = if kind == "ramp" {
                            let r = rng.matrix(1, ty.is_complex())[0];
                            if i == j {
                                (i as f64 - 35.0, 0.0)
                            } else {
                                r
                            }
                        } else {
                            let p = mul(x[i], conj(x[j]));
                            (
                                p.0 + if i == j { 1.0 } else { 0.0 },
                                if i == j { 0.0 } else { p.1 },
                            )
                        };
                    }
                }
                // Make it Hermitian from its lower triangle.
                for i in 0..n {
                    for j in i + 1..n {
                        h[i * n + j] = conj(h[j * n + i]);
                    }
                }
                // The triangle not read holds junk.
                let mut input = h.clone();
                for i in 0..n {
                    for j in 0..n {
                        if (uplo == 76 && j > i) || (uplo == 85 && j < i) {
                            input[i * n + j] = (55.0, 5.0);
                        }
                    }
                }
                let s = shape(ty, &[n as i64, n as i64], true);
                let rt = real_of(ty);
                let name = if ty.is_complex() { "heevd" } else { "syevd" };
                let r = call(
                    &format!("lapack_{}{name}_ffi", letter(ty)),
                    &format!("{{mode = 86 : ui8, uplo = {uplo} : ui8}}"),
                    0,
                    &[(&s, &lit(&s, &input))],
                    &format!("({s}, {rt}[{n}]{{0}}, s32[])"),
                );
                assert_eq!(ints(leaf(&r, 2)), vec![0]);
                let w: Vec<f64> = values(leaf(&r, 1)).iter().map(|c| c.0).collect();
                let tol = 100.0 * n as f64 * unit_roundoff(ty);
                check_eigh(
                    &format!("{ty} uplo {uplo} {kind}"),
                    &h,
                    &values(leaf(&r, 0)),
                    &w,
                    n,
                    tol,
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// gesdd / gesvd

#[test]
fn svd_modes_reconstruct_with_descending_values() {
    let mut rng = Rng(17);
    for ty in TYPES {
        for routine in ["gesdd", "gesvd"] {
            for (m, n) in [(4usize, 3usize), (3, 5), (4, 4)] {
                let b = 2;
                let k = m.min(n);
                let s = shape(ty, &[b as i64, m as i64, n as i64], true);
                let a = rng.matrix(b * m * n, ty.is_complex());
                let rt = real_of(ty);
                for mode in [65u8, 83, 78] {
                    let (uc, vr) = if mode == 83 { (k, k) } else { (m, n) };
                    let su = shape(ty, &[b as i64, m as i64, uc as i64], true);
                    let sv = shape(ty, &[b as i64, vr as i64, n as i64], true);
                    let ss = shape(rt, &[b as i64, k as i64], false);
                    let si = shape(ElementType::S32, &[b as i64], false);
                    let r = call(
                        &format!("lapack_{}{routine}_ffi", letter(ty)),
                        &format!("{{mode = {mode} : ui8}}"),
                        1,
                        &[(&s, &lit(&s, &a))],
                        &format!("({s}, {ss}, {su}, {sv}, {si})"),
                    );
                    assert_layouts(&r, &[&s, &ss, &su, &sv, &si]);
                    assert_eq!(ints(leaf(&r, 4)), vec![0; b]);
                    let sv_ = values(leaf(&r, 1));
                    let u = values(leaf(&r, 2));
                    let vt = values(leaf(&r, 3));
                    let tol = 100.0 * (m.max(n) as f64) * unit_roundoff(ty);
                    for i in 0..b {
                        let ai = &a[i * m * n..][..m * n];
                        let si: Vec<f64> = sv_[i * k..][..k].iter().map(|c| c.0).collect();
                        for j in 1..k {
                            assert!(si[j - 1] >= si[j] && si[j] >= 0.0, "{si:?}");
                        }
                        if mode == 78 {
                            assert_eq!(max_abs(&u), 0.0);
                            assert_eq!(max_abs(&vt), 0.0);
                            // The values agree with the Frobenius norm.
                            let f2: f64 = ai.iter().map(|&x| abs(x).powi(2)).sum();
                            let s2: f64 = si.iter().map(|x| x * x).sum();
                            assert!((f2 - s2).abs() <= tol * f2);
                            continue;
                        }
                        let ui = &u[i * m * uc..][..m * uc];
                        let vi = &vt[i * vr * n..][..vr * n];
                        // U·diag(s)·Vt with the first k columns / rows.
                        let mut us = vec![(0.0, 0.0); m * k];
                        for r in 0..m {
                            for c in 0..k {
                                us[r * k + c] = mul(ui[r * uc + c], (si[c], 0.0));
                            }
                        }
                        let back = matmul(&us, &vi[..k * n], m, k, n);
                        let what = format!("{ty} {routine} {m}x{n} mode {}", mode as char);
                        assert_close(&format!("{what} U·S·Vt"), &back, ai, tol);
                        let uhu = matmul(&adjoint(ui, m, uc), ui, uc, m, uc);
                        assert_close(&format!("{what} UᴴU"), &uhu, &identity(uc), tol);
                        let vvh = matmul(vi, &adjoint(vi, vr, n), vr, n, vr);
                        assert_close(&format!("{what} VᴴV"), &vvh, &identity(vr), tol);
                    }
                }
            }
        }
    }
}

#[test]
fn svd_known_singular_values() {
    // diag(3, 1) rotated: singular values 3, 1.
    let s = shape(ElementType::F64, &[2, 2], true);
    let (c, sn) = (0.6, 0.8);
    let a = reals(&[3.0 * c, -sn, 3.0 * sn, c]);
    let r = call(
        "lapack_dgesdd_ffi",
        "{mode = 65 : ui8}",
        0,
        &[(&s, &lit(&s, &a))],
        &format!("({s}, f64[2]{{0}}, {s}, {s}, s32[])"),
    );
    assert_close("s", &values(leaf(&r, 1)), &reals(&[3.0, 1.0]), 1e-14);
    // a_out is scratch: the input is passed through.
    assert_eq!(values(leaf(&r, 0)), a);
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn unknown_and_malformed_calls_are_refused() {
    let s = shape(ElementType::F32, &[3, 3], true);
    let a = lit(&s, &reals(&[1.0; 9]));
    let e = try_call("my_kernel", "{}", 0, &[(&s, &a)], &s.to_string()).unwrap_err();
    assert!(
        matches!(&e, BackendError::Unsupported(m) if m.contains("`my_kernel` is not in the registry")),
        "{e}"
    );
    let e = try_call(
        "lapack_sgeev_ffi",
        "{compute_left = 78 : ui8, compute_right = 86 : ui8}",
        0,
        &[(&s, &a)],
        "(f32[3]{0}, f32[3]{0}, c64[3,3]{0,1}, c64[3,3]{0,1}, s32[])",
    )
    .unwrap_err();
    assert!(
        matches!(&e, BackendError::Unsupported(m) if m.contains("not evaluated")),
        "{e}"
    );
    // Whatever the operands are (a tuple here).
    let text = "HloModule m\n\nENTRY main {\n  p0 = (f32[2]{0}, f32[2]{0}) parameter(0)\n  ROOT r = f32[2]{0} custom-call(p0), custom_call_target=\"my_tuple_kernel\"\n}\n";
    let m = parse_module(text).unwrap();
    let v = lit(&shape(ElementType::F32, &[2], false), &reals(&[1.0, 2.0]));
    let e = Fast::new()
        .execute(&m, &[Literal::Tuple(vec![v.clone(), v])])
        .unwrap_err();
    assert!(
        matches!(&e, BackendError::Unsupported(m) if m.contains("`my_tuple_kernel` is not in the registry")),
        "{e}"
    );
    // A known target without its option.
    let e = try_call(
        "lapack_spotrf_ffi",
        "{}",
        0,
        &[(&s, &a)],
        &format!("({s}, s32[])"),
    )
    .unwrap_err();
    assert!(
        matches!(&e, BackendError::Invalid(m) if m.contains("needs `uplo`")),
        "{e}"
    );
    // A declared shape that is not LAPACK's.
    let e = try_call(
        "lapack_sgetrf_ffi",
        "{}",
        0,
        &[(&s, &a)],
        &format!("({s}, s32[2]{{0}}, s32[])"),
    )
    .unwrap_err();
    assert!(matches!(&e, BackendError::Invalid(_)), "{e}");
    // An element type other than the target's.
    let d = shape(ElementType::F64, &[3, 3], true);
    let e = try_call(
        "lapack_sgetrf_ffi",
        "{}",
        0,
        &[(&d, &lit(&d, &reals(&[1.0; 9])))],
        &format!("({d}, s32[3]{{0}}, s32[])"),
    )
    .unwrap_err();
    assert!(
        matches!(&e, BackendError::Invalid(m) if m.contains("f64")),
        "{e}"
    );
}

#[test]
fn row_major_operands_and_results_work_too() {
    // Layouts are physical only: a row-major call gives the same logical values.
    let a = reals(&[4.0, 2.0, 2.0, 2.0, 5.0, 3.0, 2.0, 3.0, 6.0]);
    let mut outs = Vec::new();
    for cm in [true, false] {
        let s = shape(ElementType::F64, &[3, 3], cm);
        let r = call(
            "lapack_dgetrf_ffi",
            "{}",
            0,
            &[(&s, &lit(&s, &a))],
            &format!("({s}, s32[3]{{0}}, s32[])"),
        );
        assert_eq!(leaf(&r, 0).shape(), &s);
        outs.push((values(leaf(&r, 0)), ints(leaf(&r, 1))));
    }
    assert_eq!(outs[0], outs[1]);
}

#[test]
fn nan_and_empty_inputs_give_results() {
    let nan = reals(&[f64::NAN; 9]);
    for ty in TYPES {
        let t = letter(ty);
        let rt = real_of(ty);
        let s = shape(ty, &[3, 3], true);
        let a = lit(&s, &nan);
        let name = if ty.is_complex() { "heevd" } else { "syevd" };
        let r = call(
            &format!("lapack_{t}{name}_ffi"),
            "{mode = 86 : ui8, uplo = 76 : ui8}",
            0,
            &[(&s, &a)],
            &format!("({s}, {rt}[3]{{0}}, s32[])"),
        );
        // Either faer reports no convergence or NaN comes through.
        let w = values(leaf(&r, 1));
        assert!(ints(leaf(&r, 2))[0] != 0 || w.iter().any(|x| x.0.is_nan()));
        for mode in [65, 83, 78] {
            let r = call(
                &format!("lapack_{t}gesdd_ffi"),
                &format!("{{mode = {mode} : ui8}}"),
                0,
                &[(&s, &a)],
                &format!("({s}, {rt}[3]{{0}}, {s}, {s}, s32[])"),
            );
            let sv = values(leaf(&r, 1));
            assert!(ints(leaf(&r, 4))[0] != 0 || sv.iter().any(|x| x.0.is_nan()));
        }
        let r = call(
            &format!("lapack_{t}getrf_ffi"),
            "{}",
            0,
            &[(&s, &a)],
            &format!("({s}, s32[3]{{0}}, s32[])"),
        );
        // I?AMAX keeps the first NaN: no interchanges, NaN is a nonzero pivot.
        assert_eq!(ints(leaf(&r, 1)), vec![1, 2, 3]);
        assert_eq!(ints(leaf(&r, 2)), vec![0]);
    }
    // Empty matrices and empty batches.
    let cases: [(&str, &str, Vec<i64>, String); 6] = [
        (
            "lapack_dpotrf_ffi",
            "{uplo = 76 : ui8}",
            vec![0, 0],
            "(f64[0,0]{0,1}, s32[])".into(),
        ),
        (
            "lapack_dpotrf_ffi",
            "{uplo = 85 : ui8}",
            vec![0, 3, 3],
            "(f64[0,3,3]{1,2,0}, s32[0]{0})".into(),
        ),
        (
            "lapack_dgetrf_ffi",
            "{}",
            vec![3, 0],
            "(f64[3,0]{0,1}, s32[0]{0}, s32[])".into(),
        ),
        (
            "lapack_dgeqrf_ffi",
            "{}",
            vec![2, 0, 3],
            "(f64[2,0,3]{1,2,0}, f64[2,0]{1,0})".into(),
        ),
        (
            "lapack_dgesdd_ffi",
            "{mode = 65 : ui8}",
            vec![2, 0],
            "(f64[2,0]{0,1}, f64[0]{0}, f64[2,2]{0,1}, f64[0,0]{0,1}, s32[])".into(),
        ),
        (
            "lapack_dsyevd_ffi",
            "{mode = 86 : ui8, uplo = 76 : ui8}",
            vec![0, 0],
            "(f64[0,0]{0,1}, f64[0]{0}, s32[])".into(),
        ),
    ];
    for (target, cfg, dims, result) in cases {
        let s = shape(ElementType::F64, &dims, true);
        let n = dims.iter().product::<i64>() as usize;
        let r = call(
            target,
            cfg,
            dims.len() - 2,
            &[(&s, &lit(&s, &vec![(0.0, 0.0); n]))],
            &result,
        );
        assert_eq!(r.shape().to_string(), result, "{target}");
    }
}

#[test]
fn parallel_batches_match_sequential_bitwise() {
    let mut rng = Rng(23);
    let (b, n) = (3usize, 6usize);
    for ty in TYPES {
        let t = letter(ty);
        let rt = real_of(ty);
        let s = shape(ty, &[b as i64, n as i64, n as i64], true);
        let mut spd = Vec::new();
        for _ in 0..b {
            spd.extend(hpd(&mut rng, n, ty.is_complex()));
        }
        let general = rng.matrix(b * n * n, ty.is_complex());
        let tau = rng.matrix(b * n, ty.is_complex());
        let st = shape(ty, &[b as i64, n as i64], false);
        let (sym, orth) = if ty.is_complex() {
            ("heevd", "ungqr")
        } else {
            ("syevd", "orgqr")
        };
        let calls: Vec<(String, String, Vec<Literal>, String)> = vec![
            (
                format!("lapack_{t}potrf_ffi"),
                "{uplo = 85 : ui8}".into(),
                vec![lit(&s, &spd)],
                format!("({s}, s32[{b}]{{0}})"),
            ),
            (
                format!("lapack_{t}getrf_ffi"),
                "{}".into(),
                vec![lit(&s, &general)],
                format!("({s}, s32[{b},{n}]{{1,0}}, s32[{b}]{{0}})"),
            ),
            (
                format!("lapack_{t}geqrf_ffi"),
                "{}".into(),
                vec![lit(&s, &general)],
                format!("({s}, {st})"),
            ),
            (
                format!("lapack_{t}{orth}_ffi"),
                "{}".into(),
                vec![lit(&s, &general), lit(&st, &tau)],
                s.to_string(),
            ),
            (
                format!("lapack_{t}trsm_ffi"),
                "{diag = 78 : ui8, side = 82 : ui8, trans_x = 67 : ui8, uplo = 76 : ui8}".into(),
                vec![lit(&s, &spd), lit(&s, &general)],
                s.to_string(),
            ),
            (
                format!("lapack_{t}{sym}_ffi"),
                "{mode = 86 : ui8, uplo = 76 : ui8}".into(),
                vec![lit(&s, &spd)],
                format!("({s}, {rt}[{b},{n}]{{1,0}}, s32[{b}]{{0}})"),
            ),
            (
                format!("lapack_{t}gesvd_ffi"),
                "{mode = 83 : ui8}".into(),
                vec![lit(&s, &general)],
                format!("({s}, {rt}[{b},{n}]{{1,0}}, {s}, {s}, s32[{b}]{{0}})"),
            ),
        ];
        for (target, cfg, args, result) in calls {
            let shapes: Vec<ArrayShape> = args
                .iter()
                .map(|a| a.as_array().unwrap().shape().clone())
                .collect();
            let ops: Vec<(&ArrayShape, &Literal)> = shapes.iter().zip(&args).collect();
            let run = |f: &Fast| {
                try_call_on(f, &target, &cfg, 1, &ops, &result)
                    .unwrap_or_else(|e| panic!("{target}: {e}"))
            };
            let seq = run(&Fast::sequential());
            let par = run(&Fast::with_parallel_threshold(1));
            let leaves = |l: &Literal| -> Vec<Vec<u128>> {
                l.array_leaves().iter().map(|a| a.logical_bits()).collect()
            };
            assert_eq!(leaves(&seq), leaves(&par), "{target}");
        }
    }
}

#[test]
fn large_single_matrices_use_faer_parallelism() {
    let mut rng = Rng(29);
    let n = 80;
    let s = shape(ElementType::F64, &[n as i64, n as i64], true);
    let h = hpd(&mut rng, n, false);
    let fast = Fast::with_parallel_threshold(1);
    let r = try_call_on(
        &fast,
        "lapack_dpotrf_ffi",
        "{uplo = 76 : ui8}",
        0,
        &[(&s, &lit(&s, &h))],
        &format!("({s}, s32[])"),
    )
    .unwrap();
    assert_eq!(ints(leaf(&r, 1)), vec![0]);
    let mut l = values(leaf(&r, 0));
    for i in 0..n {
        for j in i + 1..n {
            assert_eq!(l[i * n + j], h[i * n + j]);
            l[i * n + j] = (0.0, 0.0);
        }
    }
    let back = matmul(&l, &adjoint(&l, n, n), n, n, n);
    assert_close("L·Lᵀ", &back, &h, 1e-12 * max_abs(&h) * n as f64);
    let r = try_call_on(
        &fast,
        "lapack_dsyevd_ffi",
        "{mode = 86 : ui8, uplo = 85 : ui8}",
        0,
        &[(&s, &lit(&s, &h))],
        &format!("({s}, f64[{n}]{{0}}, s32[])"),
    )
    .unwrap();
    let w: Vec<f64> = values(leaf(&r, 1)).iter().map(|c| c.0).collect();
    check_eigh("dsyevd 80", &h, &values(leaf(&r, 0)), &w, n, 1e-11);
}

/// Regression: `faer`'s eigen and singular value solvers overflow or underflow on matrices scaled
/// far from 1 (info = 1 from 2^100 in single precision and 2^1000 in double for the SVD, NaN or
/// zeros with info = 0 near the subnormal range); LAPACK scales such matrices, and so do we (by a
/// power of two, exactly). The values come back scaled, the vectors are those of the unscaled
/// matrix.
#[test]
fn spectral_routines_scale_extreme_matrices() {
    let n = 4;
    for ty in TYPES {
        let exps: &[i32] = if unit_roundoff(ty) > 1e-10 {
            &[-115, -100, 100, 115]
        } else {
            &[-1010, -1000, 1000, 1015]
        };
        let mut rng = Rng(101);
        let rt = real_of(ty);
        for &e in exps {
            let sc = 2f64.powi(e);
            let x = rng.matrix(n * n, ty.is_complex());
            let mut h = matmul(&x, &adjoint(&x, n, n), n, n, n);
            for i in 0..n {
                h[i * n + i] = (h[i * n + i].0 + 0.5, 0.0);
            }
            let hs: Vec<C> = h.iter().map(|&(a, b)| (a * sc, b * sc)).collect();
            let s = shape(ty, &[n as i64, n as i64], true);
            let name = if ty.is_complex() { "heevd" } else { "syevd" };
            let r = call(
                &format!("lapack_{}{name}_ffi", letter(ty)),
                "{mode = 86 : ui8, uplo = 76 : ui8}",
                0,
                &[(&s, &lit(&s, &hs))],
                &format!("({s}, {rt}[{n}]{{0}}, s32[])"),
            );
            assert_eq!(ints(leaf(&r, 2)), vec![0], "{ty} {name} 2^{e}");
            let w: Vec<f64> = values(leaf(&r, 1)).iter().map(|c| c.0 / sc).collect();
            let tol = 100.0 * n as f64 * unit_roundoff(ty);
            check_eigh(&format!("{ty} 2^{e}"), &h, &values(leaf(&r, 0)), &w, n, tol);

            for (m, k) in [(5usize, 3usize), (3, 5)] {
                let a: Vec<C> = rng.matrix(m * k, ty.is_complex());
                let a_s: Vec<C> = a.iter().map(|&(p, q)| (p * sc, q * sc)).collect();
                let s = shape(ty, &[m as i64, k as i64], true);
                let kk = m.min(k);
                let su = shape(ty, &[m as i64, kk as i64], true);
                let sv = shape(ty, &[kk as i64, k as i64], true);
                for routine in ["gesdd", "gesvd"] {
                    let what = format!("{ty} {routine} {m}x{k} 2^{e}");
                    let r = call(
                        &format!("lapack_{}{routine}_ffi", letter(ty)),
                        "{mode = 83 : ui8}",
                        0,
                        &[(&s, &lit(&s, &a_s))],
                        &format!("({s}, {rt}[{kk}]{{0}}, {su}, {sv}, s32[])"),
                    );
                    assert_eq!(ints(leaf(&r, 4)), vec![0], "{what}");
                    let sv_: Vec<f64> = values(leaf(&r, 1)).iter().map(|c| c.0 / sc).collect();
                    let (u, vt) = (values(leaf(&r, 2)), values(leaf(&r, 3)));
                    let mut us = u.clone();
                    for r in 0..m {
                        for c in 0..kk {
                            us[r * kk + c] = mul(u[r * kk + c], (sv_[c], 0.0));
                        }
                    }
                    let tol = 100.0 * 5.0 * unit_roundoff(ty);
                    assert_close(&what, &matmul(&us, &vt, m, kk, k), &a, tol);
                }
            }
        }
    }
}

/// Regression: subnormal matrices (every entry below the smallest normal number) have their
/// exact eigen and singular values: `[[2, 1], [1, 2]]·t`, `t` the smallest subnormal, has
/// eigenvalues and singular values `t` and `3t` (before, `faer` gave info = 1 or NaN).
#[test]
fn spectral_routines_handle_subnormal_matrices() {
    for ty in TYPES {
        let t = if unit_roundoff(ty) > 1e-10 {
            f64::from(f32::from_bits(1))
        } else {
            f64::from_bits(1)
        };
        let rt = real_of(ty);
        let a = reals(&[2.0 * t, t, t, 2.0 * t]);
        let s = shape(ty, &[2, 2], true);
        let name = if ty.is_complex() { "heevd" } else { "syevd" };
        let r = call(
            &format!("lapack_{}{name}_ffi", letter(ty)),
            "{mode = 86 : ui8, uplo = 76 : ui8}",
            0,
            &[(&s, &lit(&s, &a))],
            &format!("({s}, {rt}[2]{{0}}, s32[])"),
        );
        assert_eq!(ints(leaf(&r, 2)), vec![0], "{ty} {name}");
        assert_eq!(values(leaf(&r, 1)), reals(&[t, 3.0 * t]), "{ty} {name}");
        let v = values(leaf(&r, 0));
        let r2 = 0.5f64.sqrt();
        let vabs: Vec<C> = v.iter().map(|&c| (abs(c), 0.0)).collect();
        assert_close(&format!("{ty} {name} |v|"), &vabs, &reals(&[r2; 4]), 1e-6);
        for routine in ["gesdd", "gesvd"] {
            let r = call(
                &format!("lapack_{}{routine}_ffi", letter(ty)),
                "{mode = 65 : ui8}",
                0,
                &[(&s, &lit(&s, &a))],
                &format!("({s}, {rt}[2]{{0}}, {s}, {s}, s32[])"),
            );
            assert_eq!(ints(leaf(&r, 4)), vec![0], "{ty} {routine}");
            assert_eq!(values(leaf(&r, 1)), reals(&[3.0 * t, t]), "{ty} {routine}");
        }
    }
}
