//! Single-operation cases of the element-wise family, valid by construction from the catalog
//! entry's signature (seed 004: element-wise unary and binary ops, compare, select, clamp,
//! convert, bitcast-convert, reduce-precision; XlaBuilder's broadcast forms).

use super::rng::Rng;
use super::shapes::{self, ShapeConfig};
use super::values::{self, ValueClass, ValueHints};
use conformance_spec::catalog::{OpEntry, Signature};
use conformance_spec::element_type::{ElementType, FloatFormat, SpecialEncoding};
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// Everything a generator needs to build one case.
pub struct CaseSpec<'a> {
    pub op: &'a OpEntry,
    pub element_type: ElementType,
    /// Result element type for `convert` / `bitcast-convert`.
    pub target_type: Option<ElementType>,
    pub shapes: &'a ShapeConfig,
    pub values: &'a [ValueClass],
}

/// A generated module and its arguments.
pub struct Built {
    pub module: HloModule,
    pub args: Vec<Literal>,
}

/// Builds one case. Errors are generator bugs (an invalid module), reported as strings.
pub fn build(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let opcode = Opcode::from_name(&spec.op.opcode)
        .ok_or_else(|| format!("catalog opcode `{}` is not an HLO opcode", spec.op.opcode))?;
    let ty = spec.element_type;
    let mut b = ComputationBuilder::new("main");
    let mut args: Vec<Literal> = Vec::new();
    let dims = shapes::dimensions(rng, spec.shapes);
    let hints0 = hints_for(opcode, ty, spec, 0);
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", spec.op.id);

    // Adds a parameter of `ty`/`dims` with a random layout and random values.
    let mut param = |b: &mut ComputationBuilder,
                     rng: &mut Rng,
                     ty: ElementType,
                     dims: &[i64],
                     hints: &ValueHints| {
        let layout = shapes::layout(rng, dims, spec.shapes);
        let shape = ArrayShape::new(ty, dims.to_vec()).with_layout(layout);
        let n = shape.element_count();
        let bits: Vec<u128> = (0..n)
            .map(|_| values::element(rng, ty, hints, spec.values))
            .collect();
        let lit = ArrayLiteral::from_bits(shape.clone(), &bits).map_err(|e| e.to_string())?;
        args.push(lit.into());
        b.parameter(Shape::Array(shape)).map_err(|e| e.to_string())
    };

    let root = match spec.op.signature {
        Signature::Unary => {
            let x = param(&mut b, rng, ty, &dims, &hints0)?;
            b.unary(opcode, x).map_err(|e| err(&e))?
        }
        Signature::Binary => {
            let hints1 = hints_for(opcode, ty, spec, 1);
            // One case in five uses XlaBuilder's broadcast form: the lower-rank operand (a scalar,
            // or a subset of the dimensions) is broadcast by the builder before the operation.
            if !dims.is_empty() && rng.chance(0.2) {
                let keep: Vec<i64> = (0..dims.len() as i64).filter(|_| rng.chance(0.5)).collect();
                let small: Vec<i64> = keep.iter().map(|&d| dims[d as usize]).collect();
                let small_first = rng.chance(0.5);
                let (lhs, rhs) = if small_first {
                    let l = param(&mut b, rng, ty, &small, &hints0)?;
                    let r = param(&mut b, rng, ty, &dims, &hints1)?;
                    (l, r)
                } else {
                    let l = param(&mut b, rng, ty, &dims, &hints0)?;
                    let r = param(&mut b, rng, ty, &small, &hints1)?;
                    (l, r)
                };
                if opcode == Opcode::Compare {
                    let (direction, kind) = compare_attributes(spec.op);
                    b.compare_broadcast(lhs, rhs, &keep, direction, kind)
                        .map_err(|e| err(&e))?
                } else {
                    b.binary_broadcast(opcode, lhs, rhs, &keep)
                        .map_err(|e| err(&e))?
                }
            } else {
                let lhs = param(&mut b, rng, ty, &dims, &hints0)?;
                let rhs = param(&mut b, rng, ty, &dims, &hints1)?;
                if opcode == Opcode::Compare {
                    let (direction, kind) = compare_attributes(spec.op);
                    b.compare(lhs, rhs, direction, kind).map_err(|e| err(&e))?
                } else {
                    b.binary(opcode, lhs, rhs).map_err(|e| err(&e))?
                }
            }
        }
        Signature::Select => {
            let pred_dims: Vec<i64> = if rng.chance(0.2) {
                vec![]
            } else {
                dims.clone()
            };
            let p = param(
                &mut b,
                rng,
                ElementType::Pred,
                &pred_dims,
                &ValueHints::default(),
            )?;
            let t = param(&mut b, rng, ty, &dims, &hints0)?;
            let f = param(&mut b, rng, ty, &dims, &hints0)?;
            b.select(p, t, f).map_err(|e| err(&e))?
        }
        Signature::Clamp => {
            let lo_dims: Vec<i64> = if rng.chance(0.5) {
                vec![]
            } else {
                dims.clone()
            };
            let hi_dims: Vec<i64> = if rng.chance(0.5) {
                vec![]
            } else {
                dims.clone()
            };
            let lo = param(&mut b, rng, ty, &lo_dims, &hints0)?;
            let x = param(&mut b, rng, ty, &dims, &hints0)?;
            let hi = param(&mut b, rng, ty, &hi_dims, &hints0)?;
            b.clamp(lo, x, hi).map_err(|e| err(&e))?
        }
        Signature::Convert => {
            let to = spec
                .target_type
                .ok_or_else(|| format!("{}: no target type", spec.op.id))?;
            if opcode == Opcode::BitcastConvert {
                let (from_w, to_w) = (ty.bit_width(), to.bit_width());
                let mut d = dims.clone();
                if to_w > from_w {
                    d.push((to_w / from_w) as i64);
                }
                let x = param(&mut b, rng, ty, &d, &hints0)?;
                b.bitcast_convert(x, to).map_err(|e| err(&e))?
            } else {
                let x = param(&mut b, rng, ty, &dims, &hints0)?;
                b.convert(x, to).map_err(|e| err(&e))?
            }
        }
        other => {
            return Err(format!(
                "{}: {other:?} is not an element-wise signature",
                spec.op.id
            ))
        }
    };
    let root_dims = b
        .shape(root)
        .map_err(|e| err(&e))?
        .as_array()
        .map(|a| a.dimensions.clone())
        .unwrap_or_default();
    let layout = shapes::layout(rng, &root_dims, spec.shapes);
    b.set_layout(root, layout).map_err(|e| err(&e))?;
    let computation = b.build(root);
    let module = HloModule::with_entry(&module_name(&spec.op.id), computation, vec![]);
    Ok(Built { module, args })
}

/// Builds a reduce-precision case: its attributes are drawn from the catalog entry's
/// `generated_attributes` ranges.
pub fn build_reduce_precision(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let ty = spec.element_type;
    let range = |name: &str, lo: i64, hi: i64| {
        spec.op
            .generated_attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| (a.min, a.max))
            .unwrap_or((lo, hi))
    };
    let f = ty
        .float_format()
        .ok_or_else(|| format!("reduce-precision on {ty}"))?;
    let (elo, ehi) = range("exponent_bits", 1, f.exponent_bits as i64 + 1);
    let (mlo, mhi) = range("mantissa_bits", 0, f.mantissa_bits as i64 + 1);
    let exponent_bits = rng.range_i64(elo, ehi);
    let mantissa_bits = rng.range_i64(mlo, mhi);
    let reduced = FloatFormat::ieee(
        exponent_bits.clamp(2, 11) as u32,
        mantissa_bits.clamp(1, 52) as u32,
    );
    let hints = ValueHints {
        thresholds: vec![
            reduced.max_finite(),
            reduced.min_normal(),
            reduced.min_subnormal(),
        ],
        tie_format: Some(reduced),
        small_int_max: None,
    };
    let mut b = ComputationBuilder::new("main");
    let dims = shapes::dimensions(rng, spec.shapes);
    let layout = shapes::layout(rng, &dims, spec.shapes);
    let shape = ArrayShape::new(ty, dims.clone()).with_layout(layout);
    let bits: Vec<u128> = (0..shape.element_count())
        .map(|_| values::element(rng, ty, &hints, spec.values))
        .collect();
    let lit = ArrayLiteral::from_bits(shape.clone(), &bits).map_err(|e| e.to_string())?;
    let x = b
        .parameter(Shape::Array(shape))
        .map_err(|e| e.to_string())?;
    let root = b
        .reduce_precision(x, exponent_bits, mantissa_bits)
        .map_err(|e| format!("{}: {e}", spec.op.id))?;
    let out_layout = shapes::layout(rng, &dims, spec.shapes);
    b.set_layout(root, out_layout).map_err(|e| e.to_string())?;
    let module = HloModule::with_entry(&module_name(&spec.op.id), b.build(root), vec![]);
    Ok(Built {
        module,
        args: vec![lit.into()],
    })
}

/// The `direction` and optional `type` a compare entry fixes.
pub(crate) fn compare_attributes(op: &OpEntry) -> (&str, Option<&str>) {
    let direction = op
        .attributes
        .get("direction")
        .map(String::as_str)
        .unwrap_or("EQ");
    (direction, op.attributes.get("type").map(String::as_str))
}

pub(crate) fn module_name(op_id: &str) -> String {
    op_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Values worth hitting for operand `k` of `opcode` on `ty`.
fn hints_for(opcode: Opcode, ty: ElementType, spec: &CaseSpec, k: usize) -> ValueHints {
    let mut h = ValueHints::default();
    if ty.is_integer() {
        if matches!(
            opcode,
            Opcode::ShiftLeft
                | Opcode::ShiftRightArithmetic
                | Opcode::ShiftRightLogical
                | Opcode::Power
        ) && k == 1
        {
            h.small_int_max = Some(ty.bit_width() as i128 + 2);
        }
        return h;
    }
    let Some(f) = ty.float_format() else { return h };
    let ln_max = f.max_finite().ln();
    let ln_min_sub = f.min_subnormal().ln();
    let ln_min_normal = f.min_normal().ln();
    let p = f.precision() as f64;
    let half_pi = std::f64::consts::FRAC_PI_2;
    h.thresholds = match opcode {
        Opcode::Exponential => vec![
            ln_max,
            ln_min_sub,
            ln_min_sub - std::f64::consts::LN_2 / 2.0,
            ln_min_normal,
            0.0,
        ],
        Opcode::ExponentialMinusOne => vec![ln_max, -p * std::f64::consts::LN_2, 1e-8, -1e-8],
        Opcode::Log | Opcode::LogPlusOne => {
            vec![1.0, 0.0, -1.0, f.min_subnormal(), f.max_finite(), 2.0]
        }
        Opcode::Logistic => vec![
            -ln_max,
            ln_min_sub,
            -ln_min_sub,
            p * std::f64::consts::LN_2,
            0.0,
        ],
        Opcode::Tanh => vec![
            (p + 1.0) * std::f64::consts::LN_2 / 2.0,
            (3.0 * f.min_normal()).sqrt(),
            0.5,
        ],
        Opcode::Sine | Opcode::Cosine | Opcode::Tan => {
            vec![
                half_pi,
                std::f64::consts::PI,
                3.0 * half_pi,
                1e4 * half_pi,
                1.0e6 * std::f64::consts::PI,
                f.max_finite(),
            ]
        }
        Opcode::Erf => vec![0.5, 1.0, 3.9, 5.9, 1e-3],
        // CHLO's functions: branch points, overflow thresholds, zeros and poles, the break
        // points where implementations switch approximations.
        Opcode::Asin | Opcode::Acos | Opcode::Atanh => vec![1.0, -1.0, 0.5, -0.5, 1e-4, 0.999],
        Opcode::Atan => vec![1.0, -1.0, 1e-4, 2f64.powf(p / 2.0), f.max_finite()],
        Opcode::Sinh | Opcode::Cosh => vec![
            ln_max,
            -(ln_max + std::f64::consts::LN_2),
            ln_max + std::f64::consts::LN_2,
            1e-4,
            0.5,
            p * std::f64::consts::LN_2 / 2.0,
        ],
        Opcode::Asinh | Opcode::Acosh => {
            vec![1.0, -1.0, 1e-4, f.max_finite().sqrt(), f.max_finite(), 2.0]
        }
        Opcode::Erfc => vec![0.5, 1.0, -1.0, 3.0, -6.0, (-ln_min_sub).sqrt(), 27.0],
        Opcode::ErfInv => vec![1.0, -1.0, 0.5, 0.9, 0.99, 1e-3, -0.999],
        Opcode::Lgamma => vec![
            1.0,
            2.0,
            0.0,
            -2.0,
            -2.4570247,
            -2.7476826,
            -0.5,
            1e-3,
            f.max_finite() / ln_max,
        ],
        Opcode::Digamma => vec![1.4616321449683622, 0.0, -1.0, -2.5, 1e-3, 10.0, 1e6],
        Opcode::BesselI1e => vec![0.0, 1.0, 8.0, -8.0, 30.0, 1e3, f.min_normal()],
        Opcode::NextAfter => vec![0.0, f.min_subnormal(), f.max_finite(), 1.0, -1.0],
        Opcode::Polygamma => {
            // High orders n = 10, 25, 40 and x = n + 10: there the Euler–Maclaurin tail of
            // ζ(n + 1, x) carries weight (its terms B_2j/(2j)!·(n + 1)⋯(n + 2j − 1)/x^(n + 2j)
            // decay slowly while x is not well past n).
            if k == 0 {
                vec![0.0, 1.0, 2.0, 3.0, 4.0, 10.0, 25.0, 40.0]
            } else {
                vec![0.5, 1.0, 2.0, 10.0, 1e-3, 1e3, 20.0, 35.0, 50.0]
            }
        }
        Opcode::Zeta => {
            if k == 0 {
                vec![1.0, 2.0, 3.0, 1.5, 10.0, 50.0]
            } else {
                // Negative half-integers: ζ(s, q) = ζ(s, 1 − q) exactly for odd s.
                vec![0.5, 1.0, 2.0, 10.0, 1e3, 1e-3, -0.5, -1.5]
            }
        }
        Opcode::Sqrt | Opcode::Rsqrt | Opcode::Cbrt => {
            vec![f.min_subnormal(), f.min_normal(), f.max_finite(), 1.0, 4.0]
        }
        Opcode::Power => {
            if k == 0 {
                vec![1.0, -1.0, 0.0, 2.0, 0.5]
            } else {
                vec![0.5, 2.0, -1.0, 3.0, 1e3, -1e3, 0.0]
            }
        }
        Opcode::Atan2 => vec![0.0, 1.0, -1.0, f.min_subnormal(), f.max_finite()],
        Opcode::RoundNearestAfz | Opcode::RoundNearestEven | Opcode::Floor | Opcode::Ceil => {
            vec![
                0.5,
                1.5,
                2.5,
                -0.5,
                -2.5,
                conformance_spec::element_type::pow2(f.mantissa_bits as i32),
            ]
        }
        Opcode::Convert => convert_thresholds(spec.target_type),
        _ => vec![],
    };
    h.tie_format = match opcode {
        Opcode::Convert => spec
            .target_type
            .and_then(|t| t.float_format())
            .filter(|t| t.precision() < f.precision()),
        _ => None,
    };
    h
}

fn convert_thresholds(target: Option<ElementType>) -> Vec<f64> {
    let Some(t) = target else { return vec![] };
    if let Some((lo, hi)) = t.integer_range() {
        return vec![
            lo as f64,
            hi as f64,
            lo as f64 - 1.0,
            hi as f64 + 1.0,
            0.5,
            -0.5,
        ];
    }
    match t.float_format() {
        Some(f) => {
            let mut v = vec![
                f.max_finite(),
                f.min_normal(),
                f.min_subnormal(),
                f.min_subnormal() / 2.0,
            ];
            if f.special != SpecialEncoding::Ieee || f.has_infinity() {
                // Halfway between max finite and the next binade step: the overflow tie.
                let ulp =
                    conformance_spec::element_type::pow2(f.max_exponent() - f.mantissa_bits as i32);
                v.push(f.max_finite() + ulp / 2.0);
            }
            v
        }
        None => vec![],
    }
}
