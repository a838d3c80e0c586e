//! NumPy `.npz` archives and `.npy` files as program inputs and outputs (what `np.savez`,
//! `np.save` and JAX tooling read and write).
//!
//! Inputs: in an archive, the argument of the entry computation's `parameter(K)` is the array
//! `argK`, or else the array named after the parameter (`Arg_0.1`, `%` dropped); `.npy` files are
//! the arguments in parameter order. The element type comes from the parameter (an `.npy` header
//! cannot tell bf16 from other 2-byte types: ml_dtypes saves it as raw `V2`); the header's type
//! must agree with it in kind and byte width, its shape must be the parameter's dimensions, and
//! its data is read in C or Fortran order into a literal with the parameter's layout.
//!
//! Outputs ([`write_arrays`]): each array in C order under NumPy's type for its element type
//! (`|b1`, `<i4`, `<f2`, `<c8`, ...); the types NumPy lacks (bf16, the f8 and 4-bit types) as raw
//! bytes `|V1` / `|V2`, bit-exact, which `np.load(...).view(ml_dtypes.bfloat16)` reads back.

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

/// The arguments of parameters with `shapes` (by parameter number) and `names` (the
/// parameters' names, or empty) from archive `path`: array `argK` for parameter K, or else the
/// array named after the parameter.
///
/// Errors (a message naming the file and the array): the archive cannot be read; an array is
/// missing; its type does not fit the parameter's element type, its shape is not the parameter's
/// dimensions, it is big-endian or its data is short; a parameter is a tuple or token.
pub fn read_arguments(
    path: &Path,
    shapes: &[Shape],
    names: &[String],
) -> Result<Vec<Literal>, String> {
    let at = |m: String| format!("{}: {m}", path.display());
    let mut archive =
        NpzArchive::open(path).map_err(|e| at(format!("not a readable .npz archive: {e}")))?;
    let members: Vec<String> = archive.array_names().map(str::to_string).collect();
    shapes
        .iter()
        .enumerate()
        .map(|(k, shape)| {
            let Some(shape) = shape.as_array() else {
                return Err(at(format!(
                    "parameter {k} has shape {shape}: only array parameters are read from .npz"
                )));
            };
            let by_number = format!("arg{k}");
            let by_name = names.get(k).map(|n| n.trim_start_matches('%').to_string());
            let name = if members.contains(&by_number) {
                by_number
            } else {
                match by_name.filter(|n| members.contains(n)) {
                    Some(n) => n,
                    None => {
                        return Err(at(format!(
                            "no array `{by_number}`{} for parameter {k} (the archive has: {})",
                            names
                                .get(k)
                                .map(|n| format!(" or `{}`", n.trim_start_matches('%')))
                                .unwrap_or_default(),
                            members.join(", ")
                        )))
                    }
                }
            };
            let file = archive
                .by_name(&name)
                .map_err(|e| at(format!("array `{name}`: {e}")))?
                .ok_or_else(|| at(format!("array `{name}` cannot be opened")))?;
            array_of(file, shape).map_err(|m| at(format!("array `{name}`: {m}")))
        })
        .collect()
}

/// The arguments of parameters with `shapes` from `paths`: one `.npz` archive (see
/// [`read_arguments`]), or one `.npy` file per parameter, in parameter order.
///
/// Errors: a mix of kinds, a count of `.npy` files other than the number of parameters, an
/// unreadable file, and the errors of [`read_arguments`] (each naming its file).
pub fn read_inputs(
    paths: &[std::path::PathBuf],
    shapes: &[Shape],
    names: &[String],
) -> Result<Vec<Literal>, String> {
    let is = |p: &std::path::PathBuf, ext: &str| p.extension().is_some_and(|e| e == ext);
    match paths {
        [one] if is(one, "npz") => read_arguments(one, shapes, names),
        _ if !paths.is_empty() && paths.iter().all(|p| is(p, "npy")) => {
            if paths.len() != shapes.len() {
                return Err(format!(
                    "{} .npy file(s) for {} parameter(s): give one per parameter, in order",
                    paths.len(),
                    shapes.len()
                ));
            }
            paths
                .iter()
                .zip(shapes)
                .enumerate()
                .map(|(k, (path, shape))| {
                    let at = |m: String| format!("{}: {m}", path.display());
                    let shape = shape.as_array().ok_or_else(|| {
                        at(format!("parameter {k} has shape {shape}: not an array"))
                    })?;
                    let f =
                        std::fs::File::open(path).map_err(|e| at(format!("cannot read: {e}")))?;
                    let file = npyz::NpyFile::new(std::io::BufReader::new(f))
                        .map_err(|e| at(format!("not a readable .npy file: {e}")))?;
                    array_of(file, shape).map_err(at)
                })
                .collect()
        }
        _ => Err(format!(
            "--inputs: one .npz archive or one .npy file per parameter expected, got {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Writes `arrays` (name, array) into a new `.npz` archive at `path` (replacing a file there),
/// each in C order with its logical dimensions (see the module docs for the types).
///
/// Errors: the file cannot be created or written (message naming it).
pub fn write_arrays(path: &Path, arrays: &[(String, &ArrayLiteral)]) -> Result<(), String> {
    let at = |e: std::io::Error| format!("{}: cannot write: {e}", path.display());
    let mut zip = npyz::npz::NpzWriter::create(path).map_err(at)?;
    for (name, a) in arrays {
        write_one(&mut zip, name, a).map_err(at)?;
    }
    zip.zip_writer()
        .finish()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

/// One array in its NumPy type.
fn write_one<W: std::io::Write + std::io::Seek>(
    zip: &mut npyz::npz::NpzWriter<W>,
    name: &str,
    a: &ArrayLiteral,
) -> std::io::Result<()> {
    use conformance_spec::ElementType as T;
    use npyz::WriterBuilder;
    let dims: Vec<u64> = a.dimensions().iter().map(|&d| d as u64).collect();
    let mut bits = Vec::with_capacity(a.shape().element_count());
    conformance_spec::index::for_each_index(a.dimensions(), |i| bits.push(a.get_bits(i)));
    macro_rules! typed {
        ($t:ty, $f:expr) => {{
            let mut w = zip
                .array::<$t>(name, Default::default())?
                .default_dtype()
                .shape(&dims)
                .begin_nd()?;
            w.extend(bits.iter().map(|&b| $f(b)))?;
            w.finish()
        }};
    }
    macro_rules! raw {
        ($n:literal) => {{
            let dtype = DType::Plain(format!("|V{}", $n).parse().expect("a valid type string"));
            let mut w = zip
                .array::<npyz::FixedSizeBytes<$n>>(name, Default::default())?
                .dtype(dtype)
                .shape(&dims)
                .begin_nd()?;
            w.extend(bits.iter().map(|&b| {
                let mut e = [0u8; $n];
                e.copy_from_slice(&b.to_le_bytes()[..$n]);
                npyz::FixedSizeBytes(e)
            }))?;
            w.finish()
        }};
    }
    match a.element_type() {
        T::Pred => typed!(bool, |b: u128| b != 0),
        T::S8 => typed!(i8, |b: u128| b as u8 as i8),
        T::S16 => typed!(i16, |b: u128| b as u16 as i16),
        T::S32 => typed!(i32, |b: u128| b as u32 as i32),
        T::S64 => typed!(i64, |b: u128| b as u64 as i64),
        T::U8 => typed!(u8, |b: u128| b as u8),
        T::U16 => typed!(u16, |b: u128| b as u16),
        T::U32 => typed!(u32, |b: u128| b as u32),
        T::U64 => typed!(u64, |b: u128| b as u64),
        T::F16 => typed!(npyz::half::f16, |b: u128| npyz::half::f16::from_bits(
            b as u16
        )),
        T::F32 => typed!(f32, |b: u128| f32::from_bits(b as u32)),
        T::F64 => typed!(f64, |b: u128| f64::from_bits(b as u64)),
        T::C64 => typed!(npyz::num_complex::Complex<f32>, |b: u128| {
            npyz::num_complex::Complex::new(
                f32::from_bits(b as u32),
                f32::from_bits((b >> 32) as u32),
            )
        }),
        T::C128 => typed!(npyz::num_complex::Complex<f64>, |b: u128| {
            npyz::num_complex::Complex::new(
                f64::from_bits(b as u64),
                f64::from_bits((b >> 64) as u64),
            )
        }),
        t if t.byte_width() == 2 => raw!(2),
        _ => raw!(1),
    }
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
        let args = read_arguments(f.path(), &[p0, p1], &[]).unwrap();
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
        let e = read_arguments(f.path(), std::slice::from_ref(&f32_2), &[]).unwrap_err();
        assert!(e.contains("`arg0`") && e.contains("<i4"), "{e}");
        let e = read_arguments(f.path(), &[s32_3], &[]).unwrap_err();
        assert!(e.contains("shape [2]"), "{e}");
        let s32_2 = conformance_spec::hlo::parse_shape("s32[2]").unwrap();
        let e = read_arguments(f.path(), &[s32_2.clone(), s32_2], &[]).unwrap_err();
        assert!(e.contains("no array `arg1`") && e.contains("arg0"), "{e}");
        let garbage = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(garbage.path(), b"not a zip").unwrap();
        let e = read_arguments(garbage.path(), &[f32_2], &[]).unwrap_err();
        assert!(e.contains("not a readable .npz"), "{e}");
    }

    #[test]
    fn every_element_type_round_trips_bit_exactly_through_npz_and_npy() {
        use conformance_spec::ElementType as T;
        let types = [
            T::Pred,
            T::S8,
            T::S16,
            T::S32,
            T::S64,
            T::U8,
            T::U16,
            T::U32,
            T::U64,
            T::F16,
            T::Bf16,
            T::F32,
            T::F64,
            T::C64,
            T::C128,
            T::F8E4M3FN,
            T::F8E5M2,
            T::F8E4M3FNUZ,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let arrays: Vec<ArrayLiteral> = types
            .iter()
            .map(|&t| {
                let w = t.bit_width();
                let mask = if w >= 128 {
                    u128::MAX
                } else {
                    (1u128 << w) - 1
                };
                // Column-major, so the C-order writing is exercised.
                let shape = ArrayShape::new(t, vec![2, 3])
                    .with_layout(conformance_spec::Layout::new(vec![0, 1]));
                let bits: Vec<u128> = (0..6)
                    .map(|_| (((next() as u128) << 64) | next() as u128) & mask)
                    .map(|b| if t == T::Pred { b & 1 } else { b })
                    .collect();
                ArrayLiteral::from_bits(shape, &bits).unwrap()
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("all.npz");
        let named: Vec<(String, &ArrayLiteral)> = arrays
            .iter()
            .enumerate()
            .map(|(k, a)| (format!("arg{k}"), a))
            .collect();
        write_arrays(&path, &named).unwrap();
        let shapes: Vec<Shape> = arrays
            .iter()
            .map(|a| Shape::Array(a.shape().clone()))
            .collect();
        let back = read_arguments(&path, &shapes, &[]).unwrap();
        for (a, b) in arrays.iter().zip(&back) {
            assert_eq!(&Literal::Array(a.clone()), b, "{}", a.element_type());
        }
        // The same arrays as .npy files, one per parameter, and by parameter name in an archive.
        let mut npys = Vec::new();
        for (k, a) in arrays.iter().enumerate() {
            let one = dir.path().join(format!("one{k}.npz"));
            write_arrays(&one, &[("x".to_string(), a)]).unwrap();
            // An .npz member is an .npy file: take it out.
            let mut zip = zip_member(&one, "x.npy");
            let npy = dir.path().join(format!("arg{k}.npy"));
            std::fs::write(&npy, std::mem::take(&mut zip)).unwrap();
            npys.push(npy);
        }
        let back = read_inputs(&npys, &shapes, &[]).unwrap();
        assert_eq!(back.len(), arrays.len());
        for (a, b) in arrays.iter().zip(&back) {
            assert_eq!(&Literal::Array(a.clone()), b);
        }
        let names: Vec<String> = (0..arrays.len()).map(|k| format!("%Arg_{k}.1")).collect();
        let by_name = dir.path().join("named.npz");
        let renamed: Vec<(String, &ArrayLiteral)> = arrays
            .iter()
            .enumerate()
            .map(|(k, a)| (format!("Arg_{k}.1"), a))
            .collect();
        write_arrays(&by_name, &renamed).unwrap();
        assert_eq!(read_inputs(&[by_name], &shapes, &names).unwrap(), back);
        // Wrong counts and kinds of input files are clear errors.
        let e = read_inputs(&npys[..2], &shapes, &[]).unwrap_err();
        assert!(e.contains("2 .npy file(s) for 18 parameter(s)"), "{e}");
        let e = read_inputs(&[npys[0].clone(), path.clone()], &shapes, &[]).unwrap_err();
        assert!(
            e.contains("one .npz archive or one .npy file per parameter"),
            "{e}"
        );
    }

    /// The bytes of member `name` of an archive (stored, as NpzWriter writes).
    fn zip_member(path: &Path, name: &str) -> Vec<u8> {
        let mut archive = NpzArchive::open(path).unwrap();
        let mut m = archive.zip_archive().by_name(name).unwrap();
        let mut out = Vec::new();
        m.read_to_end(&mut out).unwrap();
        out
    }
}
