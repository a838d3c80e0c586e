//! Unit tests of the tensor file format with hand-made headers.

use super::*;
use crate::graph::DataType;
use conformance_spec::element_type::ElementType;
use conformance_spec::literal::Literal;

/// The header of a file, byte by byte as NNEF 1.0.5 §5.2 lays it out.
fn header(data_length: u32, extents: &[u32], bits: u32, code: u32) -> Vec<u8> {
    let mut h = vec![0x4E, 0xEF, 1, 0];
    h.extend_from_slice(&data_length.to_le_bytes());
    h.extend_from_slice(&(extents.len() as u32).to_le_bytes());
    for slot in 0..8 {
        h.extend_from_slice(&extents.get(slot).copied().unwrap_or(0).to_le_bytes());
    }
    h.extend_from_slice(&bits.to_le_bytes());
    h.extend_from_slice(&code.to_le_bytes());
    h.resize(128, 0);
    h
}

/// A 2x3 float32 file with the values 1..6, written out byte by byte.
fn float_2x3() -> Vec<u8> {
    let mut bytes = vec![
        0x4E, 0xEF, 0x01, 0x00, // magic, version 1.0
        0x18, 0x00, 0x00, 0x00, // data length 24
        0x02, 0x00, 0x00, 0x00, // rank 2
        0x02, 0x00, 0x00, 0x00, // extent 2
        0x03, 0x00, 0x00, 0x00, // extent 3
    ];
    bytes.extend_from_slice(&[0; 24]); // 6 unused extent slots
    bytes.extend_from_slice(&[0x20, 0, 0, 0]); // 32 bits per item
    bytes.extend_from_slice(&[0x00, 0, 0, 0]); // item type 0: float
    bytes.resize(128, 0); // parameters and reserved bytes
    for v in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes
}

fn message(result: Result<TensorFile, NnefError>) -> String {
    let e = result.expect_err("the file is malformed");
    assert_eq!(e.kind, crate::error::ErrorKind::Data);
    e.message
}

#[test]
fn reads_a_hand_made_2x3_float32_file() {
    let bytes = float_2x3();
    assert_eq!(bytes.len(), 152);
    let file = read_tensor(&bytes).unwrap();
    assert_eq!(file.shape, vec![2, 3]);
    assert_eq!(file.item_type, ItemType::Float);
    assert_eq!(file.bits_per_item, 32);
    assert_eq!(file.parameters, [0; 32]);
    assert_eq!(file.item(4), 5f32.to_bits() as u64);
    let lit = file.to_literal(DataType::Scalar).unwrap();
    assert_eq!(lit.to_string(), "f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
    // Writing it back gives the same bytes.
    assert_eq!(write_tensor(&file).unwrap(), bytes);
}

#[test]
fn writes_the_header_layout() {
    let file =
        TensorFile::from_items(vec![5], ItemType::Signed, 16, &[1, 2, 3, 4, 0xffff]).unwrap();
    let bytes = write_tensor(&file).unwrap();
    assert_eq!(bytes[..128], header(10, &[5], 16, 4)[..]);
    assert_eq!(&bytes[128..], &[1, 0, 2, 0, 3, 0, 4, 0, 0xff, 0xff]);
    assert_eq!(file.integer_item(4), -1);
}

#[test]
fn bools_pack_most_significant_bit_first() {
    // 10 booleans in 2 bytes; the last 6 bits are zero padding.
    let items = [1, 0, 1, 1, 0, 0, 0, 1, 1, 1];
    let file = TensorFile::from_items(vec![2, 5], ItemType::Bool, 1, &items).unwrap();
    assert_eq!(file.data, vec![0b1011_0001, 0b1100_0000]);
    let mut bytes = header(2, &[2, 5], 1, 5);
    bytes.extend_from_slice(&[0b1011_0001, 0b1100_0000]);
    assert_eq!(write_tensor(&file).unwrap(), bytes);
    let back = read_tensor(&bytes).unwrap();
    assert_eq!(back.items(), items);
    let lit = back.to_literal(DataType::Logical).unwrap();
    assert_eq!(
        lit.to_string(),
        "pred[2,5] {{true, false, true, true, false}, {false, false, true, true, true}}"
    );
}

#[test]
fn eight_bit_bools_treat_non_zero_as_true() {
    let mut bytes = header(3, &[3], 8, 5);
    bytes.extend_from_slice(&[0, 7, 1]);
    let lit = read_tensor(&bytes)
        .unwrap()
        .to_literal(DataType::Logical)
        .unwrap();
    assert_eq!(lit.to_string(), "pred[3] {false, true, true}");
}

#[test]
fn sub_byte_integers_form_a_bit_stream() {
    // Three 4-bit signed items: 7, -8, -1 → nibbles 0111 1000 1111 (+ 4 zero bits).
    let file = TensorFile::from_items(vec![3], ItemType::Signed, 4, &[7, 8, 15]).unwrap();
    assert_eq!(file.data, vec![0x78, 0xF0]);
    let lit = file.to_exact_literal().unwrap();
    assert_eq!(lit.to_string(), "s8[3] {7, -8, -1}");
    assert_eq!(
        file.to_literal(DataType::Integer).unwrap().to_string(),
        "s32[3] {7, -8, -1}"
    );
    // 3-bit unsigned items cross byte boundaries: 5, 3, 6 → 101 011 110 → 10101111 0.......
    let file = TensorFile::from_items(vec![3], ItemType::Unsigned, 3, &[5, 3, 6]).unwrap();
    assert_eq!(file.data, vec![0b1010_1111, 0b0000_0000]);
    assert_eq!(file.items(), vec![5, 3, 6]);
}

#[test]
fn floats_of_every_width_convert_to_f32() {
    let half = TensorFile::from_items(vec![2], ItemType::Float, 16, &[0x3C00, 0xC000]).unwrap();
    assert_eq!(
        half.to_literal(DataType::Scalar).unwrap().to_string(),
        "f32[2] {1, -2}"
    );
    assert_eq!(
        half.to_exact_literal().unwrap().to_string(),
        "f16[2] {1, -2}"
    );
    let third = 1.0f64 / 3.0;
    let double = TensorFile::from_items(vec![1], ItemType::Float, 64, &[third.to_bits()]).unwrap();
    let lit = double.to_literal(DataType::Scalar).unwrap();
    assert_eq!(
        lit.as_array().unwrap().get_bits(&[0]),
        (third as f32).to_bits() as u128
    );
    assert_eq!(
        double
            .to_exact_literal()
            .unwrap()
            .as_array()
            .unwrap()
            .element_type(),
        ElementType::F64
    );
}

#[test]
fn integers_convert_to_s32_with_range_checks() {
    let ok = TensorFile::from_items(vec![2], ItemType::Unsigned, 32, &[0, 0x7fff_ffff]).unwrap();
    assert_eq!(
        ok.to_literal(DataType::Integer).unwrap().to_string(),
        "s32[2] {0, 2147483647}"
    );
    let big = TensorFile::from_items(vec![2], ItemType::Unsigned, 32, &[1, 0x8000_0000]).unwrap();
    let e = big.to_literal(DataType::Integer).unwrap_err();
    assert!(e.message.contains("item 1 = 2147483648"), "{}", e.message);
    let wide = TensorFile::from_items(vec![1], ItemType::Signed, 64, &[u64::MAX]).unwrap();
    assert_eq!(
        wide.to_literal(DataType::Integer).unwrap().to_string(),
        "s32[1] {-1}"
    );
}

#[test]
fn deprecated_signed_flag_makes_unsigned_items_signed() {
    let mut file = TensorFile::from_items(vec![1], ItemType::Unsigned, 8, &[0xff]).unwrap();
    assert_eq!(file.integer_item(0), 255);
    file.parameters[0] = 1;
    assert_eq!(file.resolved_item_type(), ItemType::Signed);
    assert_eq!(file.integer_item(0), -1);
    assert_eq!(
        file.to_literal(DataType::Integer).unwrap().to_string(),
        "s32[1] {-1}"
    );
    // The flag is kept through a write and a read.
    let back = read_tensor(&write_tensor(&file).unwrap()).unwrap();
    assert_eq!(back, file);
}

#[test]
fn type_mismatches_are_errors() {
    let float = TensorFile::from_items(vec![1], ItemType::Float, 32, &[0]).unwrap();
    assert!(float.to_literal(DataType::Integer).is_err());
    assert!(float.to_literal(DataType::Logical).is_err());
    let int = TensorFile::from_items(vec![1], ItemType::Signed, 8, &[0]).unwrap();
    assert!(int.to_literal(DataType::Scalar).is_err());
    let quantized = TensorFile::from_items(vec![1], ItemType::QuantizedUnsigned, 8, &[0]).unwrap();
    let e = quantized.to_literal(DataType::Scalar).unwrap_err();
    assert!(e.message.contains("dequantize"), "{}", e.message);
    assert_eq!(
        quantized.to_exact_literal().unwrap().to_string(),
        "u8[1] {0}"
    );
    let vendor =
        TensorFile::from_items(vec![1], ItemType::Vendor { vendor: 7, code: 1 }, 8, &[0]).unwrap();
    assert!(vendor.to_exact_literal().is_err());
    assert!(vendor.to_literal(DataType::Scalar).is_err());
}

#[test]
fn vendor_item_types_roundtrip_uninterpreted() {
    let mut bytes = header(1, &[1], 8, 0x0003_0002);
    bytes.push(0x5a);
    let file = read_tensor(&bytes).unwrap();
    assert_eq!(file.item_type, ItemType::Vendor { vendor: 3, code: 2 });
    assert_eq!(write_tensor(&file).unwrap(), bytes);
}

#[test]
fn rank_zero_holds_one_item() {
    let mut bytes = header(4, &[], 32, 0);
    bytes.extend_from_slice(&2.5f32.to_le_bytes());
    let file = read_tensor(&bytes).unwrap();
    assert_eq!(file.item_count(), 1);
    assert_eq!(
        file.to_literal(DataType::Scalar).unwrap().to_string(),
        "f32[] 2.5"
    );
}

#[test]
fn shapes_with_trailing_ones_are_the_same() {
    assert!(same_shape(&[1, 64], &[1, 64, 1, 1]));
    assert!(same_shape(&[], &[1]));
    assert!(!same_shape(&[64], &[1, 64]));
    let file = TensorFile::from_items(vec![1, 2], ItemType::Float, 32, &[0, 0]).unwrap();
    let lit = file
        .to_literal_with_shape(DataType::Scalar, &[1, 2, 1, 1])
        .unwrap();
    assert_eq!(lit.as_array().unwrap().dimensions(), &[1, 2, 1, 1]);
    let e = file
        .to_literal_with_shape(DataType::Scalar, &[2, 1])
        .unwrap_err();
    assert!(e.message.contains("graph declares [2, 1]"), "{}", e.message);
}

#[test]
fn literals_roundtrip_through_files() {
    let lit = read_tensor(&float_2x3())
        .unwrap()
        .to_literal(DataType::Scalar)
        .unwrap();
    let file = TensorFile::from_literal(&lit).unwrap();
    assert_eq!(write_tensor(&file).unwrap(), float_2x3());
    // A column-major literal is written in row-major order.
    let col = lit
        .as_array()
        .unwrap()
        .relayout(conformance_spec::layout::Layout::new(vec![0, 1]));
    let file = TensorFile::from_literal(&Literal::from(col)).unwrap();
    assert_eq!(write_tensor(&file).unwrap(), float_2x3());
    // pred is written as 1-bit bools.
    let pred = TensorFile::from_items(vec![3], ItemType::Bool, 8, &[1, 0, 1])
        .unwrap()
        .to_literal(DataType::Logical)
        .unwrap();
    let file = TensorFile::from_literal(&pred).unwrap();
    assert_eq!(
        (file.bits_per_item, file.data.clone()),
        (1, vec![0b1010_0000])
    );
    // Element types without an item type are errors.
    let bf16 = conformance_spec::literal::ArrayLiteral::zeros(
        conformance_spec::shape::ArrayShape::new(ElementType::Bf16, vec![1]),
    );
    assert!(TensorFile::from_literal(&Literal::from(bf16)).is_err());
    assert!(TensorFile::from_literal(&Literal::Tuple(vec![])).is_err());
    assert!(TensorFile::from_literal(&Literal::Token).is_err());
}

#[test]
fn short_header_is_an_error() {
    assert!(message(read_tensor(&[])).contains("shorter than the 128-byte header"));
    assert!(message(read_tensor(&float_2x3()[..127])).contains("127 bytes long"));
}

#[test]
fn bad_magic_is_an_error() {
    let mut bytes = float_2x3();
    bytes[1] = 0xEE;
    assert!(message(read_tensor(&bytes)).contains("bad magic number"));
}

#[test]
fn unsupported_version_is_an_error() {
    let mut bytes = float_2x3();
    bytes[2] = 2;
    assert!(message(read_tensor(&bytes)).contains("unsupported version 2.0"));
    bytes[2] = 1;
    bytes[3] = 1;
    assert!(message(read_tensor(&bytes)).contains("unsupported version 1.1"));
}

#[test]
fn rank_above_eight_is_an_error() {
    let mut bytes = float_2x3();
    bytes[8] = 9;
    assert!(message(read_tensor(&bytes)).contains("rank 9 at byte 8 exceeds"));
    let file = TensorFile {
        shape: vec![1; 9],
        item_type: ItemType::Float,
        bits_per_item: 32,
        parameters: [0; 32],
        data: vec![0; 4],
    };
    assert!(write_tensor(&file).unwrap_err().message.contains("rank 9"));
}

#[test]
fn non_zero_extent_beyond_rank_is_an_error() {
    let mut bytes = float_2x3();
    bytes[20] = 1; // slot 2
    assert!(message(read_tensor(&bytes)).contains("extent slot 2 (byte 20) beyond rank 2"));
}

#[test]
fn unknown_item_type_is_an_error() {
    let mut bytes = float_2x3();
    bytes[48] = 6;
    assert!(message(read_tensor(&bytes)).contains("unknown item-type code 6"));
}

#[test]
fn bits_not_matching_the_type_are_errors() {
    for (bits, code) in [
        (8u32, 0u32),
        (24, 0),
        (0, 0),
        (2, 5),
        (16, 5),
        (0, 4),
        (65, 1),
        (128, 3),
    ] {
        let mut bytes = header(0, &[0], bits, code);
        bytes.truncate(128);
        assert!(
            message(read_tensor(&bytes)).contains("bits per item is invalid"),
            "bits {bits} code {code}"
        );
    }
    let file = TensorFile {
        shape: vec![1],
        item_type: ItemType::Bool,
        bits_per_item: 4,
        parameters: [0; 32],
        data: vec![0],
    };
    assert!(write_tensor(&file).is_err());
}

#[test]
fn data_length_mismatch_is_an_error() {
    let mut bytes = float_2x3();
    bytes[4] = 20;
    assert!(message(read_tensor(&bytes)).contains("data length 20 at byte 4 does not match"));
    let file = TensorFile {
        shape: vec![2],
        item_type: ItemType::Float,
        bits_per_item: 32,
        parameters: [0; 32],
        data: vec![0; 7],
    };
    assert!(write_tensor(&file)
        .unwrap_err()
        .message
        .contains("7 data bytes given"));
}

#[test]
fn truncated_data_is_an_error() {
    let bytes = float_2x3();
    assert!(message(read_tensor(&bytes[..150])).contains("truncated file"));
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut bytes = float_2x3();
    bytes.push(0);
    assert!(message(read_tensor(&bytes)).contains("1 unexpected bytes after the 24 data bytes"));
}

#[test]
fn huge_extents_do_not_allocate_or_overflow() {
    // 8 extents of u32::MAX overflow the item count: an error, not a panic or an allocation.
    let mut bytes = header(0, &[u32::MAX; 8], 64, 0);
    bytes.truncate(128);
    let m = message(read_tensor(&bytes));
    assert!(
        m.contains("overflows") || m.contains("does not match"),
        "{m}"
    );
    // A plausible count whose data length does not fit 32 bits is a length mismatch.
    let mut bytes = header(0, &[u32::MAX, 2], 64, 0);
    bytes.truncate(128);
    assert!(message(read_tensor(&bytes)).contains("does not match"));
}

#[test]
fn from_items_rejects_bad_input() {
    assert!(TensorFile::from_items(vec![2], ItemType::Float, 32, &[0]).is_err());
    assert!(TensorFile::from_items(vec![1], ItemType::Unsigned, 4, &[16]).is_err());
    assert!(TensorFile::from_items(vec![1], ItemType::Float, 8, &[0]).is_err());
}
