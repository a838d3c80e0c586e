//! NumPy `.npz` archives as program inputs (what `np.savez` and JAX tooling write): each array
//! `argK` is the argument of the entry computation's `parameter(K)`.
//!
//! The element type comes from the parameter (an `.npy` header cannot tell bf16 from other
//! 2-byte types: ml_dtypes saves it as raw `V2`); the header's type must agree with it in kind and
//! byte width, its shape must be the parameter's dimensions, and its data is read in C or Fortran
//! order into a literal with the parameter's layout.

use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::ElementType;
use npyz::npz::NpzArchive;
use npyz::{DType, Order, TypeChar};
use std::io::Read;
use std::path::Path;

/// Whether an `.npy` type can hold `ty` (same kind, same byte width; raw `V` of the width too).
fn type_fits(t: &npyz::TypeStr, ty: ElementType) -> bool {
    let Some(bytes) = t.num_bytes() else {
        return false;
    };
    if bytes != ty.byte_width() {
        return false;
    }
    match t.type_char() {
        TypeChar::Bool => ty == ElementType::Pred,
        TypeChar::Int => ty.is_signed_integer(),
        TypeChar::Uint => ty.is_unsigned_integer(),
        TypeChar::Float => ty.is_float(),
        TypeChar::Complex => ty.is_complex(),
        TypeChar::RawData => true,
        _ => false,
    }
}

/// The arguments of parameters with `shapes` (by parameter number) from archive `path`: array
/// `argK` for parameter K.
///
/// Errors (a message naming the file and the array): the archive cannot be read; an array is
/// missing; its type does not fit the parameter's element type, its shape is not the parameter's
/// dimensions, it is big-endian or its data is short; a parameter is a tuple or token.
pub fn read_arguments(path: &Path, shapes: &[Shape]) -> Result<Vec<Literal>, String> {
    let at = |m: String| format!("{}: {m}", path.display());
    let mut archive =
        NpzArchive::open(path).map_err(|e| at(format!("not a readable .npz archive: {e}")))?;
    let names: Vec<String> = archive.array_names().map(str::to_string).collect();
    shapes
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            let name = format!("arg{k}");
            let Some(shape) = shape.as_array() else {
                return Err(at(format!(
                    "parameter {k} has shape {shape}: only array parameters are read from .npz"
                )));
            };
            let file = archive
                .by_name(&name)
                .map_err(|e| at(format!("array `{name}`: {e}")))?
                .ok_or_else(|| {
                    at(format!(
                        "no array `{name}` for parameter {k} (the archive has: {})",
                        names.join(", ")
                    ))
                })?;
            array_of(file, shape).map_err(|m| at(format!("array `{name}`: {m}")))
        })
        .collect()
}

fn array_of<R: Read>(file: npyz::NpyFile<R>, shape: &ArrayShape) -> Result<Literal, String> {
    let ty = shape.element_type;
    let DType::Plain(t) = file.dtype() else {
        return Err(format!("a structured type, where {ty} is expected"));
    };
    if !type_fits(&t, ty) {
        return Err(format!("type `{t}` does not hold the parameter's {ty}"));
    }
    if t.endianness() == npyz::Endianness::Big && ty.byte_width() > 1 {
        return Err(format!("big-endian type `{t}` (little-endian expected)"));
    }
    let dims: Vec<i64> = file.shape().iter().map(|&d| d as i64).collect();
    if dims != shape.dimensions {
        return Err(format!(
            "shape {dims:?}, the parameter's dimensions are {:?}",
            shape.dimensions
        ));
    }
    let order = file.order();
    let width = ty.byte_width();
    let count = shape.element_count();
    let mut bytes = Vec::with_capacity(count * width);
    file.into_inner()
        .take((count * width) as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() != count * width {
        return Err(format!(
            "{} bytes of data, {} expected",
            bytes.len(),
            count * width
        ));
    }
    let element = |n: usize| {
        let mut b = [0u8; 16];
        b[..width].copy_from_slice(&bytes[n * width..(n + 1) * width]);
        u128::from_le_bytes(b)
    };
    // The file's elements in row-major logical order.
    let bits: Vec<u128> = match order {
        Order::C => (0..count).map(element).collect(),
        Order::Fortran => {
            let mut out = vec![0u128; count];
            let rank = dims.len();
            let mut index = vec![0i64; rank];
            for (n, slot) in out.iter_mut().enumerate() {
                // Row-major index n -> column-major position.
                let mut rest = n as i64;
                for d in (0..rank).rev() {
                    index[d] = rest % dims[d].max(1);
                    rest /= dims[d].max(1);
                }
                let mut position = 0i64;
                for d in (0..rank).rev() {
                    position = position * dims[d] + index[d];
                }
                *slot = element(position as usize);
            }
            out
        }
    };
    ArrayLiteral::from_bits(shape.clone(), &bits)
        .map(Literal::Array)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    use npyz::WriterBuilder;

    /// An .npz holding one f32 or i32 array per (name, shape, order, values).
    fn npz<T: npyz::AutoSerialize + Copy>(
        members: &[(&str, &[u64], Order, &[T])],
    ) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        let mut zip = npyz::npz::NpzWriter::new(f.reopen().unwrap());
        for (name, shape, order, values) in members {
            let mut w = zip
                .array::<T>(name, Default::default())
                .unwrap()
                .default_dtype()
                .shape(shape)
                .order(*order)
                .begin_nd()
                .unwrap();
            w.extend(values.iter().copied()).unwrap();
            w.finish().unwrap();
        }
        drop(zip);
        f
    }

    #[test]
    fn reads_arguments_in_c_and_fortran_order_into_the_parameters_layout() {
        let f = npz::<f32>(&[
            ("arg0", &[2, 3], Order::C, &[1., 2., 3., 4., 5., 6.]),
            ("arg1", &[2, 3], Order::Fortran, &[1., 4., 2., 5., 3., 6.]),
        ]);
        let p0 = conformance_spec::hlo::parse_shape("f32[2,3]{0,1}").unwrap();
        let p1 = conformance_spec::hlo::parse_shape("f32[2,3]{1,0}").unwrap();
        let args = read_arguments(f.path(), &[p0, p1]).unwrap();
        let expected =
            conformance_spec::hlo::parse_literal("f32[2,3] {{1, 2, 3}, {4, 5, 6}}").unwrap();
        assert!(args[0].logical_eq(&expected), "{}", args[0]);
        assert!(args[1].logical_eq(&expected), "{}", args[1]);
        assert_eq!(args[0].shape().to_string(), "f32[2,3]{0,1}");
    }

    #[test]
    fn wrong_type_shape_or_name_is_a_clear_error() {
        let f = npz::<i32>(&[("arg0", &[2], Order::C, &[0, 0])]);
        let f32_2 = conformance_spec::hlo::parse_shape("f32[2]").unwrap();
        let s32_3 = conformance_spec::hlo::parse_shape("s32[3]").unwrap();
        let e = read_arguments(f.path(), std::slice::from_ref(&f32_2)).unwrap_err();
        assert!(e.contains("`arg0`") && e.contains("<i4"), "{e}");
        let e = read_arguments(f.path(), &[s32_3]).unwrap_err();
        assert!(e.contains("shape [2]"), "{e}");
        let s32_2 = conformance_spec::hlo::parse_shape("s32[2]").unwrap();
        let e = read_arguments(f.path(), &[s32_2.clone(), s32_2]).unwrap_err();
        assert!(e.contains("no array `arg1`") && e.contains("arg0"), "{e}");
        let garbage = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(garbage.path(), b"not a zip").unwrap();
        let e = read_arguments(garbage.path(), &[f32_2]).unwrap_err();
        assert!(e.contains("not a readable .npz"), "{e}");
    }
}
