//! Tensor files: interoperability with the Khronos reference writer, roundtrip properties, and
//! robustness of the reader against malformed bytes.

use conformance_nnef::dat::{read_tensor, write_tensor, ItemType, TensorFile, HEADER_LENGTH};
use conformance_nnef::graph::DataType;
use conformance_spec::element_type::ElementType;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use proptest::prelude::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dat_fixtures");

fn fixture(name: &str) -> TensorFile {
    let bytes = std::fs::read(format!("{FIXTURES}/{name}")).unwrap();
    read_tensor(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every file the Khronos Python writer produced (see tests/dat_fixtures/make_fixtures.py)
/// reads back with the header fields and item bits it wrote, and writes back byte for byte.
#[test]
fn reads_files_written_by_the_khronos_tools() {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURES}/manifest.json")).unwrap(),
    )
    .unwrap();
    let entries = manifest.as_array().unwrap();
    assert_eq!(entries.len(), 12);
    for entry in entries {
        let name = entry["file"].as_str().unwrap();
        let bytes = std::fs::read(format!("{FIXTURES}/{name}")).unwrap();
        let file = read_tensor(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shape: Vec<usize> = entry["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(file.shape, shape, "{name}");
        assert_eq!(
            file.item_type.code(),
            entry["item_type"].as_u64().unwrap() as u32,
            "{name}"
        );
        assert_eq!(
            file.bits_per_item,
            entry["bits"].as_u64().unwrap() as u32,
            "{name}"
        );
        let items: Vec<u64> = entry["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(file.items(), items, "{name}");
        assert_eq!(write_tensor(&file).unwrap(), bytes, "{name}");
    }
}

#[test]
fn khronos_files_convert_to_graph_literals() {
    let lit = fixture("float32_2x3.dat")
        .to_literal(DataType::Scalar)
        .unwrap();
    assert_eq!(lit.to_string(), "f32[2,3] {{-1, -0.5, 0}, {0.5, 1, 1.5}}");
    let lit = fixture("float16_4.dat")
        .to_literal(DataType::Scalar)
        .unwrap();
    assert_eq!(lit.to_string(), "f32[4] {1, -2, 0.5, inf}");
    let lit = fixture("float64_2x2.dat")
        .to_literal(DataType::Scalar)
        .unwrap();
    // 1/3 rounds to f32; -1e300 overflows to -inf; the f64 subnormal underflows to 0; -0 stays.
    assert_eq!(lit.to_string(), "f32[2,2] {{0.33333334, -inf}, {0, -0}}");
    let lit = fixture("int8_5.dat").to_literal(DataType::Integer).unwrap();
    assert_eq!(lit.to_string(), "s32[5] {-128, -1, 0, 1, 127}");
    let lit = fixture("int32_2x1x2.dat")
        .to_literal(DataType::Integer)
        .unwrap();
    assert_eq!(
        lit.to_string(),
        "s32[2,1,2] {{{-5, 6}}, {{2147483647, -2147483648}}}"
    );
    let e = fixture("int64_3.dat")
        .to_literal(DataType::Integer)
        .unwrap_err();
    assert!(
        e.message.contains("item 1 = 1099511627776"),
        "{}",
        e.message
    );
    assert_eq!(
        fixture("int64_3.dat")
            .to_exact_literal()
            .unwrap()
            .to_string(),
        "s64[3] {-1, 1099511627776, 7}"
    );
    let lit = fixture("uint16_2.dat")
        .to_literal(DataType::Integer)
        .unwrap();
    assert_eq!(lit.to_string(), "s32[2] {65535, 1}");
    let lit = fixture("bool_2x5.dat")
        .to_literal(DataType::Logical)
        .unwrap();
    assert_eq!(
        lit.to_string(),
        "pred[2,5] {{true, false, true, true, false}, {false, false, true, true, true}}"
    );
    assert_eq!(
        fixture("quint8_4.dat").item_type,
        ItemType::QuantizedUnsigned
    );
    assert_eq!(
        fixture("qint8_3.dat")
            .to_exact_literal()
            .unwrap()
            .to_string(),
        "s8[3] {-127, 0, 127}"
    );
    let lit = fixture("scalar_float32.dat")
        .to_literal(DataType::Scalar)
        .unwrap();
    assert_eq!(lit.to_string(), "f32[] 2.5");
}

/// A valid (item type, bits per item) pair.
fn item_type_and_bits() -> impl Strategy<Value = (ItemType, u32)> {
    prop_oneof![
        prop::sample::select(vec![16u32, 32, 64]).prop_map(|b| (ItemType::Float, b)),
        prop::sample::select(vec![1u32, 8]).prop_map(|b| (ItemType::Bool, b)),
        (
            prop::sample::select(vec![
                ItemType::Unsigned,
                ItemType::Signed,
                ItemType::QuantizedUnsigned,
                ItemType::QuantizedSigned,
            ]),
            1u32..=64
        ),
        (1u16..=u16::MAX, any::<u16>(), 1u32..=64)
            .prop_map(|(vendor, code, b)| (ItemType::Vendor { vendor, code }, b)),
    ]
}

fn tensor_file() -> impl Strategy<Value = TensorFile> {
    (
        prop::collection::vec(0usize..4, 0..=8),
        item_type_and_bits(),
        any::<[u8; 32]>(),
    )
        .prop_flat_map(|(shape, (item_type, bits), parameters)| {
            let count: usize = shape.iter().product();
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            prop::collection::vec(any::<u64>().prop_map(move |v| v & mask), count).prop_map(
                move |items| {
                    let mut file =
                        TensorFile::from_items(shape.clone(), item_type, bits, &items).unwrap();
                    file.parameters = parameters;
                    file
                },
            )
        })
}

/// An f32, f16, f64, s8..s64, u8..u64 or pred literal of rank up to 8.
fn literal() -> impl Strategy<Value = Literal> {
    use ElementType::*;
    (
        prop::sample::select(vec![
            F16, F32, F64, S8, S16, S32, S64, U8, U16, U32, U64, Pred,
        ]),
        prop::collection::vec(1i64..4, 0..=8),
    )
        .prop_flat_map(|(ty, dims)| {
            let count = dims.iter().product::<i64>() as usize;
            prop::collection::vec(any::<u64>(), count).prop_map(move |raw| {
                let width = ty.bit_width();
                let bits: Vec<u128> = raw
                    .iter()
                    .map(|&r| {
                        if ty == Pred {
                            u128::from(r & 1)
                        } else if width == 64 {
                            u128::from(r)
                        } else {
                            u128::from(r & ((1u64 << width) - 1))
                        }
                    })
                    .collect();
                Literal::from(
                    ArrayLiteral::from_bits(ArrayShape::new(ty, dims.clone()), &bits).unwrap(),
                )
            })
        })
}

proptest! {
    /// read(write(f)) == f for every valid file, and writing is deterministic.
    #[test]
    fn files_roundtrip(file in tensor_file()) {
        let bytes = write_tensor(&file).unwrap();
        prop_assert_eq!(bytes.len(), HEADER_LENGTH + file.data.len());
        let back = read_tensor(&bytes).unwrap();
        prop_assert_eq!(&back, &file);
        prop_assert_eq!(write_tensor(&back).unwrap(), bytes);
    }

    /// A literal stored in a file reads back with the same logical values (exactly: same
    /// element type, dimensions and bits).
    #[test]
    fn literals_roundtrip(lit in literal()) {
        let file = TensorFile::from_literal(&lit).unwrap();
        let back = read_tensor(&write_tensor(&file).unwrap()).unwrap();
        let exact = back.to_exact_literal().unwrap();
        prop_assert!(exact.logical_eq(&lit), "{} != {}", exact, lit);
    }

    /// Graph-typed conversions agree with the exact ones where both apply.
    #[test]
    fn graph_literals_agree_with_exact_values(file in tensor_file()) {
        let exact = match file.to_exact_literal() {
            Ok(lit) => lit,
            Err(_) => {
                prop_assert!(matches!(file.item_type, ItemType::Vendor { .. }), "only vendor items cannot be read");
                return Ok(());
            }
        };
        let exact = exact.as_array().unwrap();
        match file.item_type {
            ItemType::Float => {
                let lit = file.to_literal(DataType::Scalar).unwrap();
                let got = lit.as_array().unwrap().to_f64s().unwrap();
                for (g, e) in got.iter().zip(exact.to_f64s().unwrap()) {
                    prop_assert!((g.is_nan() && e.is_nan()) || g.to_bits() == f64::from(e as f32).to_bits());
                }
            }
            ItemType::Bool => {
                let lit = file.to_literal(DataType::Logical).unwrap();
                prop_assert_eq!(lit.as_array().unwrap().to_i128s(), exact.to_i128s());
            }
            ItemType::Signed | ItemType::Unsigned if file.resolved_item_type() == file.item_type => {
                let values = exact.to_i128s().unwrap();
                match file.to_literal(DataType::Integer) {
                    Ok(lit) => prop_assert_eq!(lit.as_array().unwrap().to_i128s().unwrap(), values),
                    Err(_) => prop_assert!(values.iter().any(|&v| i32::try_from(v).is_err())),
                }
            }
            _ => {}
        }
    }

    /// The reader never panics on arbitrary bytes behind a valid magic and version.
    #[test]
    fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut bytes = vec![0x4E, 0xEF, 1, 0];
        bytes.extend_from_slice(&tail);
        if let Ok(file) = read_tensor(&bytes) {
            prop_assert_eq!(file.data.len() + HEADER_LENGTH, bytes.len());
        }
    }

    /// Changing any single byte of a valid file gives an error or a file that writes back to
    /// the changed bytes (the reserved bytes 84..128 are not kept: they write back as zeros).
    #[test]
    fn single_byte_mutations_are_detected_or_consistent(
        file in tensor_file(), position in any::<prop::sample::Index>(), value in any::<u8>()
    ) {
        let mut bytes = write_tensor(&file).unwrap();
        let at = position.index(bytes.len());
        bytes[at] = value;
        if let Ok(changed) = read_tensor(&bytes) {
            let mut expected = bytes.clone();
            expected[84..HEADER_LENGTH].fill(0);
            prop_assert_eq!(write_tensor(&changed).unwrap(), expected);
            // The conversions report errors instead of panicking.
            let _ = changed.to_exact_literal();
            let _ = changed.to_literal(DataType::Scalar);
            let _ = changed.to_literal(DataType::Integer);
            let _ = changed.to_literal(DataType::Logical);
        }
    }
}
