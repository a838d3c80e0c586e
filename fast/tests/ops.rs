//! Every element-wise operation on hand-computed special values (seed 004 semantics, XLA rules for
//! the implementation-defined corners).

mod common;

use common::{attr_enum, attr_int, single_op};
use conformance_fast::Fast;
use conformance_spec::hlo::Attribute;
use conformance_spec::literal::{complex_bits, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, ElementType, FloatFormat, Literal, Opcode};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

fn lit(ty: ElementType, bits: &[u128]) -> ArrayLiteral {
    ArrayLiteral::from_bits(ArrayShape::new(ty, vec![bits.len() as i64]), bits).unwrap()
}

/// Runs `op` on 1-D operands and returns the result's element bits.
fn run(op: Opcode, attrs: Vec<Attribute>, inputs: &[ArrayLiteral], out: ElementType) -> Vec<u128> {
    let shapes: Vec<ArrayShape> = inputs.iter().map(|l| l.shape().clone()).collect();
    let n = shapes
        .iter()
        .map(|s| s.dimensions.clone())
        .max()
        .unwrap_or_default();
    let m = single_op(op, &shapes, ArrayShape::new(out, n), attrs);
    let args: Vec<Literal> = inputs.iter().cloned().map(Literal::from).collect();
    let r = Fast::new().execute(&m, &args).expect("execute");
    r.as_array().unwrap().logical_bits()
}

fn f32_lit(v: &[f32]) -> ArrayLiteral {
    lit(
        ElementType::F32,
        &v.iter().map(|x| x.to_bits() as u128).collect::<Vec<_>>(),
    )
}

fn un_f32(op: Opcode, v: &[f32]) -> Vec<f32> {
    run(op, vec![], &[f32_lit(v)], ElementType::F32)
        .into_iter()
        .map(|b| f32::from_bits(b as u32))
        .collect()
}

fn bin_f32(op: Opcode, a: &[f32], b: &[f32]) -> Vec<f32> {
    run(op, vec![], &[f32_lit(a), f32_lit(b)], ElementType::F32)
        .into_iter()
        .map(|b| f32::from_bits(b as u32))
        .collect()
}

/// Bit equality, except that any NaN matches any NaN.
fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits())
}

macro_rules! check {
    ($got:expr, $want:expr) => {{
        let (g, w) = ($got, $want);
        assert!(same(&g, &w), "got {g:?}, want {w:?}");
    }};
}

fn ints(ty: ElementType, v: &[i128]) -> ArrayLiteral {
    ArrayLiteral::from_i128s(ArrayShape::new(ty, vec![v.len() as i64]), v).unwrap()
}

fn int_op(op: Opcode, ty: ElementType, ops: &[&[i128]]) -> Vec<i128> {
    let inputs: Vec<ArrayLiteral> = ops.iter().map(|v| ints(ty, v)).collect();
    run(op, vec![], &inputs, ty)
        .into_iter()
        .map(|b| ty.integer_from_bits(b as u64).unwrap())
        .collect()
}

#[test]
fn float_unary_special_values() {
    use Opcode::*;
    check!(
        un_f32(Abs, &[-0.0, -INF, NAN, -2.5]),
        vec![0.0, INF, NAN, 2.5]
    );
    check!(
        un_f32(Negate, &[0.0, -0.0, INF, 1.5]),
        vec![-0.0, 0.0, -INF, -1.5]
    );
    check!(
        un_f32(Sign, &[-0.0, 0.0, NAN, -3.0, 1e-45, INF]),
        vec![-0.0, 0.0, NAN, -1.0, 1.0, 1.0]
    );
    check!(
        un_f32(Floor, &[-0.5, 0.5, -0.0, 2.0]),
        vec![-1.0, 0.0, -0.0, 2.0]
    );
    check!(un_f32(Ceil, &[-0.5, 0.5, -0.0]), vec![-0.0, 1.0, -0.0]);
    check!(
        un_f32(RoundNearestAfz, &[0.5, -0.5, 1.5, 2.5, -2.5]),
        vec![1.0, -1.0, 2.0, 3.0, -3.0]
    );
    check!(
        un_f32(RoundNearestEven, &[0.5, -0.5, 1.5, 2.5, -2.5]),
        vec![0.0, -0.0, 2.0, 2.0, -2.0]
    );
    check!(
        un_f32(Sqrt, &[-0.0, 4.0, -1.0, INF]),
        vec![-0.0, 2.0, NAN, INF]
    );
    check!(
        un_f32(Rsqrt, &[0.0, -0.0, 4.0, INF, -1.0]),
        vec![INF, -INF, 0.5, 0.0, NAN]
    );
    check!(un_f32(Cbrt, &[-8.0, 27.0, -0.0]), vec![-2.0, 3.0, -0.0]);
    check!(
        un_f32(Exponential, &[0.0, -INF, INF, NAN, 89.0, -104.0]),
        vec![1.0, 0.0, INF, NAN, INF, 0.0]
    );
    check!(
        un_f32(ExponentialMinusOne, &[0.0, -0.0, -INF, INF]),
        vec![0.0, -0.0, -1.0, INF]
    );
    check!(
        un_f32(Log, &[0.0, -0.0, 1.0, -1.0, INF]),
        vec![-INF, -INF, 0.0, NAN, INF]
    );
    check!(
        un_f32(LogPlusOne, &[0.0, -0.0, -1.0, -2.0]),
        vec![0.0, -0.0, -INF, NAN]
    );
    check!(
        un_f32(Logistic, &[0.0, INF, -INF, NAN, 200.0]),
        vec![0.5, 1.0, 0.0, NAN, 1.0]
    );
    check!(
        un_f32(Tanh, &[0.0, -0.0, INF, -INF, NAN, 20.0]),
        vec![0.0, -0.0, 1.0, -1.0, NAN, 1.0]
    );
    check!(un_f32(Sine, &[0.0, -0.0, INF]), vec![0.0, -0.0, NAN]);
    check!(un_f32(Cosine, &[0.0, INF]), vec![1.0, NAN]);
    check!(un_f32(Tan, &[0.0, -0.0, INF]), vec![0.0, -0.0, NAN]);
    check!(
        un_f32(Erf, &[0.0, -0.0, INF, -INF]),
        vec![0.0, -0.0, 1.0, -1.0]
    );
    check!(un_f32(Real, &[1.0, -0.0]), vec![1.0, -0.0]);
    // Subnormals are preserved (no flush-to-zero): tanh(x) = x and sign of a subnormal is ±1.
    let tiny = f32::from_bits(1);
    check!(un_f32(Tanh, &[tiny, -tiny]), vec![tiny, -tiny]);
    check!(un_f32(Abs, &[-tiny]), vec![tiny]);
    // exp(-88) is subnormal in f32: 6.0546e-39, bits 0x0041edc4.
    assert_eq!(un_f32(Exponential, &[-88.0])[0].to_bits(), 0x0041_edc4);
    let fin = run(
        IsFinite,
        vec![],
        &[f32_lit(&[1.0, INF, -INF, NAN, -0.0])],
        ElementType::Pred,
    );
    assert_eq!(fin, vec![1, 0, 0, 0, 1]);
}

#[test]
fn float_binary_special_values() {
    use Opcode::*;
    check!(
        bin_f32(Add, &[1.0, -0.0, INF], &[2.0, 0.0, -INF]),
        vec![3.0, 0.0, NAN]
    );
    check!(
        bin_f32(Subtract, &[0.0, -0.0], &[0.0, 0.0]),
        vec![0.0, -0.0]
    );
    check!(
        bin_f32(Multiply, &[-0.0, INF], &[5.0, 0.0]),
        vec![-0.0, NAN]
    );
    check!(
        bin_f32(Divide, &[1.0, -1.0, 0.0], &[0.0, 0.0, 0.0]),
        vec![INF, -INF, NAN]
    );
    // Remainder takes the dividend's sign (seed 004, Rem) and is exact.
    check!(
        bin_f32(
            Remainder,
            &[5.5, -5.5, 5.5, -0.0, 1.0],
            &[2.0, 2.0, -2.0, 1.0, 0.0]
        ),
        vec![1.5, -1.5, 1.5, -0.0, NAN]
    );
    check!(
        bin_f32(Maximum, &[-0.0, 0.0, NAN, 1.0], &[0.0, -0.0, 1.0, NAN]),
        vec![0.0, 0.0, NAN, NAN]
    );
    check!(
        bin_f32(Minimum, &[-0.0, 0.0, NAN, 1.0], &[0.0, -0.0, 1.0, 2.0]),
        vec![-0.0, -0.0, NAN, 1.0]
    );
    check!(
        bin_f32(
            Power,
            &[2.0, NAN, 1.0, 0.0, -8.0, -0.0],
            &[10.0, 0.0, NAN, -1.0, 1.0 / 3.0, -1.0]
        ),
        vec![1024.0, 1.0, 1.0, INF, NAN, -INF]
    );
    check!(
        bin_f32(Atan2, &[0.0, -0.0, 1.0, 0.0], &[1.0, 1.0, 0.0, -1.0]),
        vec![0.0, -0.0, std::f32::consts::FRAC_PI_2, std::f32::consts::PI]
    );
}

#[test]
fn complex_op_and_components() {
    let c = run(
        Opcode::Complex,
        vec![],
        &[f32_lit(&[1.0, -0.0]), f32_lit(&[2.0, 3.0])],
        ElementType::C64,
    );
    let f = FloatFormat::F32;
    assert_eq!(
        c,
        vec![
            complex_bits(f, 0x3f80_0000, 0x4000_0000),
            complex_bits(f, 0x8000_0000, 0x4040_0000)
        ]
    );
    let z = ArrayLiteral::from_complex(
        ArrayShape::new(ElementType::C64, vec![2]),
        &[(3.0, -4.0), (-0.0, 1.0)],
    )
    .unwrap();
    let to_f32 = |v: Vec<u128>| {
        v.into_iter()
            .map(|b| f32::from_bits(b as u32))
            .collect::<Vec<_>>()
    };
    check!(
        to_f32(run(
            Opcode::Real,
            vec![],
            std::slice::from_ref(&z),
            ElementType::F32
        )),
        vec![3.0, -0.0]
    );
    check!(
        to_f32(run(
            Opcode::Imag,
            vec![],
            std::slice::from_ref(&z),
            ElementType::F32
        )),
        vec![-4.0, 1.0]
    );
    check!(
        to_f32(run(
            Opcode::Abs,
            vec![],
            std::slice::from_ref(&z),
            ElementType::F32
        )),
        vec![5.0, 1.0]
    );
    let prod = run(
        Opcode::Multiply,
        vec![],
        &[z.clone(), z.clone()],
        ElementType::C64,
    );
    // (3 − 4i)² = −7 − 24i; (−0 + i)² = −1 − 0i.
    assert_eq!(prod[0], complex_bits(f, f.encode(-7.0), f.encode(-24.0)));
    assert_eq!(f.decode(prod[1] as u64 & 0xffff_ffff), -1.0);
    let q = run(
        Opcode::Divide,
        vec![],
        &[z.clone(), z.clone()],
        ElementType::C64,
    );
    assert_eq!(q[0], complex_bits(f, f.encode(1.0), 0));
    let s = run(Opcode::Sign, vec![], &[z], ElementType::C64);
    assert_eq!(s[0], complex_bits(f, f.encode(0.6), f.encode(-0.8)));
}

#[test]
fn integer_arithmetic_wraps_and_follows_xla_corners() {
    use ElementType::*;
    use Opcode::*;
    assert_eq!(int_op(Add, S8, &[&[127, -128], &[1, -1]]), vec![-128, 127]);
    assert_eq!(int_op(Multiply, U8, &[&[16, 255], &[16, 255]]), vec![0, 1]);
    assert_eq!(
        int_op(
            Divide,
            S32,
            &[&[7, -7, 5, i32::MIN as i128], &[2, 2, 0, -1]]
        ),
        vec![3, -3, -1, i32::MIN as i128]
    );
    assert_eq!(int_op(Divide, U16, &[&[7, 5], &[0, 2]]), vec![65535, 2]);
    assert_eq!(
        int_op(
            Remainder,
            S32,
            &[&[7, -7, 5, i32::MIN as i128], &[2, 2, 0, -1]]
        ),
        vec![1, -1, 5, 0]
    );
    assert_eq!(int_op(Remainder, U8, &[&[7, 9], &[0, 4]]), vec![7, 1]);
    assert_eq!(int_op(Maximum, S16, &[&[-3, 4], &[2, -9]]), vec![2, 4]);
    assert_eq!(int_op(Minimum, U32, &[&[3, 4], &[2, 9]]), vec![2, 4]);
    assert_eq!(int_op(And, S8, &[&[0b1100], &[0b1010]]), vec![0b1000]);
    assert_eq!(int_op(Or, S8, &[&[0b1100], &[0b1010]]), vec![0b1110]);
    assert_eq!(int_op(Xor, S8, &[&[0b1100], &[0b1010]]), vec![0b0110]);
    assert_eq!(
        int_op(ShiftLeft, S8, &[&[1, 1, 1, 1], &[3, 7, 8, -1]]),
        vec![8, -128, 0, 0]
    );
    assert_eq!(
        int_op(ShiftRightLogical, S8, &[&[-128, -128, -1], &[1, 8, 100]]),
        vec![64, 0, 0]
    );
    assert_eq!(
        int_op(
            ShiftRightArithmetic,
            S8,
            &[&[-128, -128, 64, -1], &[1, 8, 9, -1]]
        ),
        vec![-64, -1, 0, -1]
    );
    assert_eq!(
        int_op(ShiftRightArithmetic, U8, &[&[0x80, 0x40], &[1, 200]]),
        vec![0xc0, 0]
    );
    assert_eq!(
        int_op(
            Power,
            S32,
            &[&[3, -2, 2, 1, -1, -1, 5], &[4, 3, 31, -5, -3, -2, -1]]
        ),
        vec![81, -8, i32::MIN as i128, 1, 0, 0, 0]
    );
    assert_eq!(int_op(Abs, S8, &[&[-128, -5, 5]]), vec![-128, 5, 5]);
    assert_eq!(int_op(Negate, S8, &[&[-128, 5]]), vec![-128, -5]);
    assert_eq!(int_op(Negate, U8, &[&[1, 0]]), vec![255, 0]);
    assert_eq!(int_op(Not, S8, &[&[0, -1]]), vec![-1, 0]);
    assert_eq!(int_op(Sign, S32, &[&[-7, 0, 9]]), vec![-1, 0, 1]);
    assert_eq!(int_op(Sign, U32, &[&[0, 9]]), vec![0, 1]);
    assert_eq!(
        int_op(PopulationCount, U16, &[&[0xffff, 0x0101, 0]]),
        vec![16, 2, 0]
    );
    assert_eq!(int_op(PopulationCount, S8, &[&[-1]]), vec![8]);
    assert_eq!(
        int_op(CountLeadingZeros, S32, &[&[0, 1, -1, 0x0000_ffff]]),
        vec![32, 31, 0, 16]
    );
    assert_eq!(int_op(CountLeadingZeros, U64, &[&[1]]), vec![63]);
    assert_eq!(int_op(Not, Pred, &[&[0, 1]]), vec![1, 0]);
    assert_eq!(int_op(Xor, Pred, &[&[0, 1, 1], &[1, 1, 0]]), vec![1, 0, 1]);
}

#[test]
fn compare_float_and_total_order() {
    let a = f32_lit(&[1.0, NAN, -0.0, 2.0]);
    let b = f32_lit(&[1.0, NAN, 0.0, 1.0]);
    let cmp = |dir: &str, ty: Option<&str>| {
        let mut attrs = vec![attr_enum("direction", dir)];
        if let Some(t) = ty {
            attrs.push(attr_enum("type", t));
        }
        run(
            Opcode::Compare,
            attrs,
            &[a.clone(), b.clone()],
            ElementType::Pred,
        )
    };
    assert_eq!(cmp("EQ", None), vec![1, 0, 1, 0]);
    assert_eq!(cmp("NE", None), vec![0, 1, 0, 1]);
    assert_eq!(cmp("LT", None), vec![0, 0, 0, 0]);
    assert_eq!(cmp("GE", Some("FLOAT")), vec![1, 0, 1, 1]);
    assert_eq!(cmp("EQ", Some("TOTALORDER")), vec![1, 1, 0, 0]);
    assert_eq!(cmp("LT", Some("TOTALORDER")), vec![0, 0, 1, 0]);
    // Seed 004's total order: −NaN < −inf < −1 < −0 < +0 < 1 < inf < +NaN.
    let order = [-NAN, -INF, -1.0, -0.0, 0.0, 1.0, INF, NAN];
    for i in 0..order.len() - 1 {
        let r = run(
            Opcode::Compare,
            vec![
                attr_enum("direction", "LT"),
                attr_enum("type", "TOTALORDER"),
            ],
            &[f32_lit(&order[i..i + 1]), f32_lit(&order[i + 1..i + 2])],
            ElementType::Pred,
        );
        assert_eq!(r, vec![1], "{} < {}", order[i], order[i + 1]);
    }
    let s = run(
        Opcode::Compare,
        vec![attr_enum("direction", "LT")],
        &[
            ints(ElementType::S8, &[-1, 3]),
            ints(ElementType::S8, &[1, 2]),
        ],
        ElementType::Pred,
    );
    assert_eq!(s, vec![1, 0]);
    let u = run(
        Opcode::Compare,
        vec![attr_enum("direction", "LT")],
        &[
            ints(ElementType::U8, &[255, 3]),
            ints(ElementType::U8, &[1, 4]),
        ],
        ElementType::Pred,
    );
    assert_eq!(u, vec![0, 1]);
}

#[test]
fn select_and_clamp() {
    let p = ints(ElementType::Pred, &[1, 0, 1]);
    let r = run(
        Opcode::Select,
        vec![],
        &[p, f32_lit(&[1.0, 2.0, 3.0]), f32_lit(&[-1.0, -2.0, -3.0])],
        ElementType::F32,
    );
    assert_eq!(r, [1.0f32, -2.0, 3.0].map(|x| x.to_bits() as u128).to_vec());
    // Seed 004, Clamp: clamp(0, {-1, 5, 9}, 6) = {0, 5, 6} with scalar min/max.
    let lo = ArrayLiteral::from_i128s(ArrayShape::scalar(ElementType::S32), &[0]).unwrap();
    let hi = ArrayLiteral::from_i128s(ArrayShape::scalar(ElementType::S32), &[6]).unwrap();
    let x = ints(ElementType::S32, &[-1, 5, 9]);
    let m = single_op(
        Opcode::Clamp,
        &[lo.shape().clone(), x.shape().clone(), hi.shape().clone()],
        x.shape().clone(),
        vec![],
    );
    let out = Fast::new()
        .execute(&m, &[lo.into(), x.into(), hi.into()])
        .unwrap();
    assert_eq!(out.as_array().unwrap().to_i128s().unwrap(), vec![0, 5, 6]);
    let c = run(
        Opcode::Clamp,
        vec![],
        &[
            f32_lit(&[0.0, 0.0, -0.0]),
            f32_lit(&[NAN, -0.0, 5.0]),
            f32_lit(&[1.0, 1.0, 1.0]),
        ],
        ElementType::F32,
    );
    let c: Vec<f32> = c.into_iter().map(|b| f32::from_bits(b as u32)).collect();
    check!(c, vec![NAN, 0.0, 1.0]);
}

#[test]
fn convert_rules() {
    use ElementType::*;
    let conv = |from: ArrayLiteral, to: ElementType| run(Opcode::Convert, vec![], &[from], to);
    // Seed 004: convert(s32 {0, 1, 2}, f32) = {0.0, 1.0, 2.0}.
    assert_eq!(
        conv(ints(S32, &[0, 1, 2]), F32),
        [0.0f32, 1.0, 2.0].map(|x| x.to_bits() as u128).to_vec()
    );
    let x = f32_lit(&[-2.9, 2.9, NAN, 1e10, -1e10, -0.0]);
    let s8: Vec<i128> = conv(x.clone(), S8)
        .into_iter()
        .map(|b| S8.integer_from_bits(b as u64).unwrap())
        .collect();
    assert_eq!(s8, vec![-2, 2, 0, 127, -128, 0]);
    assert_eq!(conv(x.clone(), U32), vec![0, 2, 0, u32::MAX as u128, 0, 0]);
    assert_eq!(conv(x.clone(), Pred), vec![1, 1, 1, 1, 1, 0]);
    let fnuz = conv(f32_lit(&[-0.0, 1e6, NAN]), F8E4M3FNUZ);
    assert_eq!(fnuz, vec![0, 0x80, 0x80]);
    let fn8 = conv(f32_lit(&[464.0, 470.0, -1e6]), F8E4M3FN);
    assert_eq!(fn8, vec![0x7e, 0x7f, 0xff]);
    let bf = conv(f32_lit(&[1.0 + f32::EPSILON * 64.0, 3.0e38, 3.4e38]), Bf16);
    assert_eq!(bf, vec![0x3f80, 0x7f62, 0x7f80]);
    // u64 → f32 rounds once to nearest even.
    let big = ArrayLiteral::from_i128s(ArrayShape::new(U64, vec![1]), &[(1 << 60) + (1 << 36) + 1])
        .unwrap();
    assert_eq!(
        conv(big, F32),
        vec![(((1u64 << 60) + (1 << 37)) as f32).to_bits() as u128]
    );
    // complex → real takes the real part; real → complex has imaginary 0.
    let z = ArrayLiteral::from_complex(ArrayShape::new(C64, vec![1]), &[(1.5, 2.0)]).unwrap();
    assert_eq!(conv(z.clone(), F64), vec![1.5f64.to_bits() as u128]);
    assert_eq!(conv(z, S32), vec![1]);
    assert_eq!(conv(f32_lit(&[2.0]), C128), vec![2.0f64.to_bits() as u128]);
    assert_eq!(conv(ints(Pred, &[1, 0]), F16), vec![0x3c00, 0]);
}

#[test]
fn bitcast_convert_same_and_changing_width() {
    use ElementType::*;
    let x = f32_lit(&[1.0, -2.0]);
    assert_eq!(
        run(
            Opcode::BitcastConvert,
            vec![],
            std::slice::from_ref(&x),
            U32
        ),
        vec![0x3f80_0000, 0xc000_0000]
    );
    // Seed 004: f32[2] → f16[2, 2]: element k of the new last dimension holds bytes [2k, 2k + 2).
    let m = single_op(
        Opcode::BitcastConvert,
        &[x.shape().clone()],
        ArrayShape::new(U16, vec![2, 2]),
        vec![],
    );
    let r = Fast::new().execute(&m, &[x.clone().into()]).unwrap();
    assert_eq!(
        r.as_array().unwrap().logical_bits(),
        vec![0x0000, 0x3f80, 0x0000, 0xc000]
    );
    // And back: u16[2, 2] → f32[2].
    let back = single_op(
        Opcode::BitcastConvert,
        &[ArrayShape::new(U16, vec![2, 2])],
        ArrayShape::new(F32, vec![2]),
        vec![],
    );
    let b = Fast::new().execute(&back, &[r]).unwrap();
    assert_eq!(b.as_array().unwrap(), &x);
    // Scalar f32 → u8[4].
    let s = ArrayLiteral::scalar_bits(F32, 0x1234_5678);
    let m = single_op(
        Opcode::BitcastConvert,
        &[s.shape().clone()],
        ArrayShape::new(U8, vec![4]),
        vec![],
    );
    let r = Fast::new().execute(&m, &[s.into()]).unwrap();
    assert_eq!(
        r.as_array().unwrap().logical_bits(),
        vec![0x78, 0x56, 0x34, 0x12]
    );
    // Wrong dimensions are invalid input, not a panic.
    let bad = single_op(
        Opcode::BitcastConvert,
        &[ArrayShape::new(U16, vec![3])],
        ArrayShape::new(F32, vec![1]),
        vec![],
    );
    assert!(Fast::new()
        .execute(&bad, &[ints(U16, &[1, 2, 3]).into()])
        .is_err());
}

#[test]
fn reduce_precision_to_f16_parameters() {
    let attrs = vec![attr_int("exponent_bits", 5), attr_int("mantissa_bits", 10)];
    let v = [
        1.0f32 + f32::EPSILON,
        65519.0,
        65520.0,
        1e-6,
        NAN,
        -INF,
        0.1,
    ];
    let r = run(
        Opcode::ReducePrecision,
        attrs,
        &[f32_lit(&v)],
        ElementType::F32,
    );
    let r: Vec<f32> = r.into_iter().map(|b| f32::from_bits(b as u32)).collect();
    let want = vec![
        1.0,
        65504.0,
        INF,
        0.0,
        NAN,
        -INF,
        half::f16::from_f32(0.1).to_f32(),
    ];
    check!(r, want);
}

#[test]
fn narrow_formats_have_their_own_zero_and_nan_rules() {
    use ElementType::*;
    // FNUZ: negate(0) = 0 (no −0) and the NaN (0x80) stays NaN.
    assert_eq!(
        run(
            Opcode::Negate,
            vec![],
            &[lit(F8E4M3FNUZ, &[0, 0x80, 0x08])],
            F8E4M3FNUZ
        ),
        vec![0, 0x80, 0x88]
    );
    assert_eq!(
        run(
            Opcode::Abs,
            vec![],
            &[lit(F8E5M2FNUZ, &[0x80, 0x84])],
            F8E5M2FNUZ
        ),
        vec![0x80, 0x04]
    );
    // f8e4m3fn: 448 + 448 overflows to NaN (no infinity).
    assert_eq!(
        run(
            Opcode::Add,
            vec![],
            &[lit(F8E4M3FN, &[0x7e]), lit(F8E4M3FN, &[0x7e])],
            F8E4M3FN
        ),
        vec![0x7f]
    );
    // bf16: 1 + 2^-8 ties to even (1).
    assert_eq!(
        run(
            Opcode::Add,
            vec![],
            &[lit(Bf16, &[0x3f80]), lit(Bf16, &[0x3b80])],
            Bf16
        ),
        vec![0x3f80]
    );
}

#[test]
fn errors_are_reported_not_panics() {
    let f = ArrayShape::new(ElementType::F32, vec![2]);
    let m = single_op(Opcode::Add, &[f.clone(), f.clone()], f.clone(), vec![]);
    assert!(Fast::new()
        .execute(&m, &[f32_lit(&[1.0, 2.0]).into()])
        .is_err());
    assert!(Fast::new()
        .execute(&m, &[f32_lit(&[1.0]).into(), f32_lit(&[1.0]).into()])
        .is_err());
    // A dot without contracting dimensions whose declared result is not the outer product.
    let m = single_op(Opcode::Dot, &[f.clone(), f.clone()], f.clone(), vec![]);
    let e = Fast::new().execute(
        &m,
        &[f32_lit(&[1.0, 2.0]).into(), f32_lit(&[1.0, 2.0]).into()],
    );
    assert!(
        matches!(e, Err(conformance_spec::BackendError::Invalid(_))),
        "{e:?}"
    );
    // An opcode the fast backend does not implement.
    let m = single_op(Opcode::Domain, std::slice::from_ref(&f), f.clone(), vec![]);
    let e = Fast::new().execute(&m, &[f32_lit(&[1.0, 2.0]).into()]);
    assert!(matches!(
        e,
        Err(conformance_spec::BackendError::Unsupported(_))
    ));
    // An infeed whose operand is not a token.
    let m = single_op(Opcode::Infeed, std::slice::from_ref(&f), f.clone(), vec![]);
    let e = Fast::new().execute(&m, &[f32_lit(&[1.0, 2.0]).into()]);
    assert!(
        matches!(e, Err(conformance_spec::BackendError::Invalid(_))),
        "{e:?}"
    );
    let m = single_op(
        Opcode::Compare,
        &[f.clone(), f.clone()],
        ArrayShape::new(ElementType::Pred, vec![2]),
        vec![],
    );
    assert!(Fast::new()
        .execute(
            &m,
            &[f32_lit(&[1.0, 2.0]).into(), f32_lit(&[1.0, 2.0]).into()]
        )
        .is_err());
    let m = single_op(
        Opcode::Cosine,
        &[ArrayShape::new(ElementType::S32, vec![1])],
        ArrayShape::new(ElementType::S32, vec![1]),
        vec![],
    );
    assert!(Fast::new()
        .execute(&m, &[ints(ElementType::S32, &[1]).into()])
        .is_err());
}
