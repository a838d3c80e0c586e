//! Random bits (seed 004, RngBitGenerator): Threefry-2x32-20 and Philox-4x32-10 under XLA's
//! counter layout (`conformance_spec::random`), which this backend declares; and samples of
//! `rng`'s distributions ([`rng`]: RngUniform, RngNormal).
//!
//! The data is written straight into a row-major buffer, in parallel over blocks of counters on
//! rayon's pool: Philox's 32-bit words are a stream (element `e` takes word `e`; a 64-bit element
//! is two consecutive words, which little-endian makes the same bytes), and Threefry's counters
//! each fill one pair of rows of the split dimension (the half-shape layout). 8- and 16-bit data
//! keeps the low bits of the 32-bit words. The result then takes the instruction's layout.

use crate::linalg::row_major_elements;
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::HloInstruction;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::random::{bit_generator_output_type, RngAlgorithm, XLA_LAYOUT};
use conformance_spec::{ArrayShape, BackendError, ElementType, Layout, Opcode, Shape};
use rayon::prelude::*;

mod threefry;
pub(crate) use threefry::ROTATIONS as THREEFRY_ROTATIONS;

/// True for the opcodes this module implements.
pub(crate) fn is_random(op: Opcode) -> bool {
    matches!(op, Opcode::RngBitGenerator | Opcode::Rng)
}

pub(crate) mod rng;

/// Counters per parallel task.
pub(super) const BLOCK: usize = 1 << 12;

/// Evaluates `rng-bit-generator`: the tuple (new state, data), both row-major (the interpreter
/// conforms them to the instruction's layouts).
///
/// Errors: [`BackendError::Invalid`] for a state that is not a `u64` vector of a size the
/// algorithm takes, a result that is not `(state, array)`, or data that is not an 8- to 64-bit
/// integer or float type.
pub(crate) fn evaluate<'a>(
    instr: &HloInstruction,
    operands: &[&Value<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    if instr.opcode == Opcode::Rng {
        return rng_instruction(instr, operands, exec);
    }
    let bad = |m: String| BackendError::Invalid(format!("rng-bit-generator: {m}"));
    let state: ArrayRef<'a> = match operands {
        [Value::Array(a)] => a.clone(),
        [Value::Splat { shape, bits }] => {
            match Value::owned(crate::layout::splat(shape.clone(), *bits)?) {
                Value::Array(a) => a,
                _ => return Err(BackendError::Failure("Value::owned is an array".into())),
            }
        }
        _ => return Err(bad("takes one array operand (the state)".into())),
    };
    let algorithm = RngAlgorithm::of(&instr.attributes).map_err(bad)?;
    let algorithm = algorithm.resolved(XLA_LAYOUT).unwrap_or(algorithm);
    let words = state.dimensions().first().copied().unwrap_or(0);
    if state.element_type() != ElementType::U64
        || state.dimensions().len() != 1
        || !algorithm.state_words().contains(&words)
    {
        return Err(bad(format!(
            "{} cannot take the state {}",
            algorithm.hlo_name(),
            state.shape()
        )));
    }
    let data_shape = match instr.shape.tuple_shapes() {
        Some([_, Shape::Array(d)]) => d.clone(),
        _ => return Err(bad("the result must be the tuple (state, data)".into())),
    };
    if !bit_generator_output_type(data_shape.element_type) {
        return Err(bad(format!("cannot produce {}", data_shape.element_type)));
    }
    let s: Vec<u64> = row_major_elements::<u64>(&state, false).into_owned();
    let width = data_shape.element_type.bit_width();
    let n = data_shape.element_count();
    let (next, bytes) = match algorithm {
        RngAlgorithm::ThreeFry => {
            let (used, bytes) = threefry::data(s[0], s[1], &data_shape.dimensions, width, exec);
            (vec![s[0], s[1].wrapping_add(used)], bytes)
        }
        RngAlgorithm::Philox | RngAlgorithm::Default => {
            let high = if s.len() >= 3 { s[2] } else { s[0] };
            let counter = (u128::from(high) << 64) | u128::from(s[1]);
            let words32 = if width == 64 { 2 * n } else { n };
            let used = words32.div_ceil(4);
            let stream = philox_stream(s[0], counter, used, exec);
            let bytes = narrow(&stream[..words32], width, exec);
            let c = counter.wrapping_add(used as u128);
            if s.len() >= 3 {
                (vec![s[0], c as u64, (c >> 64) as u64], bytes)
            } else {
                (vec![s[0], c as u64], bytes)
            }
        }
    };
    let state_out = ArrayLiteral::from_physical_bytes(
        row_major(ElementType::U64, &[next.len() as i64]),
        bytemuck::cast_slice(&next).to_vec(),
    )
    .map_err(|e| BackendError::Failure(e.to_string()))?;
    let data_out = ArrayLiteral::from_physical_bytes(
        row_major(data_shape.element_type, &data_shape.dimensions),
        bytes,
    )
    .map_err(|e| BackendError::Failure(e.to_string()))?;
    Ok(Value::Tuple(vec![
        Value::owned(state_out),
        Value::owned(data_out),
    ]))
}

/// `rng(a, b), distribution=...`: [`rng::sample`] with the scalar parameters' bits, its stream
/// separated from other instructions' by the FNV-1a hash of the instruction's name.
///
/// Errors: [`BackendError::Invalid`] for operands that are not two scalars, a missing or unknown
/// `distribution`, a result that is not an array, or a type without that distribution.
fn rng_instruction<'a>(
    instr: &HloInstruction,
    operands: &[&Value<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    let bad = |m: &str| BackendError::Invalid(format!("rng: {m}"));
    let scalar = |v: &Value| -> Option<u64> {
        match v {
            Value::Splat { bits, .. } => Some(*bits as u64),
            Value::Array(a) if a.shape().element_count() == 1 => Some(a.get_bits_linear(0) as u64),
            _ => None,
        }
    };
    let (Some(a), Some(b)) = (
        operands.first().and_then(|v| scalar(v)),
        operands.get(1).and_then(|v| scalar(v)),
    ) else {
        return Err(bad("takes two scalar operands"));
    };
    let normal = match crate::linalg::enumerator(instr, "distribution") {
        Some("rng_uniform") => false,
        Some("rng_normal") => true,
        _ => return Err(bad("needs distribution=rng_uniform or rng_normal")),
    };
    let shape = instr
        .shape
        .as_array()
        .ok_or_else(|| bad("the result must be an array"))?;
    let mut salt: u64 = 0xcbf2_9ce4_8422_2325;
    for c in instr.name.bytes() {
        salt = (salt ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(Value::owned(rng::sample(shape, normal, a, b, salt, exec)?))
}

fn row_major(t: ElementType, dims: &[i64]) -> ArrayShape {
    ArrayShape::new(t, dims.to_vec()).with_layout(Layout::default_for_rank(dims.len()))
}

/// Philox-4x32-10 (Salmon et al. SC 2011): multipliers and Weyl key increments.
const M0: u64 = 0xD251_1F53;
const M1: u64 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

#[inline(always)]
pub(super) fn philox4x32(key: u64, c: u128) -> [u32; 4] {
    let (mut k0, mut k1) = (key as u32, (key >> 32) as u32);
    let mut v = [
        c as u32,
        (c >> 32) as u32,
        (c >> 64) as u32,
        (c >> 96) as u32,
    ];
    for _ in 0..10 {
        let p0 = M0 * u64::from(v[0]);
        let p1 = M1 * u64::from(v[2]);
        v = [
            (p1 >> 32) as u32 ^ v[1] ^ k0,
            p1 as u32,
            (p0 >> 32) as u32 ^ v[3] ^ k1,
            p0 as u32,
        ];
        k0 = k0.wrapping_add(W0);
        k1 = k1.wrapping_add(W1);
    }
    v
}

/// The 32-bit words of `used` Philox counters from `counter` (mod 2¹²⁸), in order.
fn philox_stream(key: u64, counter: u128, used: usize, exec: Exec) -> Vec<u32> {
    let mut out = vec![0u32; 4 * used];
    let fill = |(b, chunk): (usize, &mut [u32])| {
        for (j, quad) in chunk.chunks_exact_mut(4).enumerate() {
            let c = counter.wrapping_add((b * BLOCK + j) as u128);
            quad.copy_from_slice(&philox4x32(key, c));
        }
    };
    if exec.parallel(4 * used) {
        out.par_chunks_mut(4 * BLOCK).enumerate().for_each(fill);
    } else {
        out.chunks_mut(4 * BLOCK).enumerate().for_each(fill);
    }
    out
}

/// Row-major bytes of 32-bit words kept at `width` bits (8, 16: the low bits; 32, 64: all, the
/// words of a 64-bit element already in little-endian order).
pub(super) fn narrow(words: &[u32], width: u32, exec: Exec) -> Vec<u8> {
    match width {
        8 => words.iter().map(|&w| w as u8).collect(),
        16 => {
            let mut out = vec![0u16; words.len()];
            if exec.parallel(words.len()) {
                out.par_iter_mut()
                    .zip(words)
                    .for_each(|(o, &w)| *o = w as u16);
            } else {
                out.iter_mut().zip(words).for_each(|(o, &w)| *o = w as u16);
            }
            bytemuck::cast_slice(&out).to_vec()
        }
        _ => bytemuck::cast_slice(words).to_vec(),
    }
}
