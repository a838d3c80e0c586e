//! NNEF tensor data files (`.dat`, NNEF 1.0.5 chapter 5.2 "Tensor File Format").
//!
//! A file is a fixed 128-byte header followed by the data, all little-endian:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 2 | magic number `0x4E 0xEF` (`'N'`, `0xEF`) |
//! | 2 | 2 | version: major, minor (this reader accepts 1.0, as the Khronos tools do) |
//! | 4 | 4 | data length in bytes (the data starts at offset 128) |
//! | 8 | 4 | rank, at most 8 |
//! | 12 | 32 | 8 extents (u32); slots beyond the rank must be 0 |
//! | 44 | 4 | bits per item, at most 64 |
//! | 48 | 4 | item-type code: high 16 bits vendor (0 = Khronos), low 16 bits the type |
//! | 52 | 32 | deprecated item-type parameters (signedness flag; quantization min/max) |
//! | 84 | 44 | reserved, written as zeros |
//!
//! The data is the items in row-major order as one bit stream, the last byte padded with zero
//! bits; its length is `ceil(item_count * bits_per_item / 8)` bytes.
//!
//! Packing of items (our reading of "a bit-stream packed continuously", chosen to agree with the
//! Khronos tools wherever they define it): an item whose width is a multiple of 8 bits is stored
//! as little-endian bytes; an item of any other width is stored most significant bit first in a
//! stream that fills each byte from its most significant bit (so 1-bit booleans are packed as the
//! Khronos tools and numpy's `packbits` pack them).
//!
//! [`TensorFile`] keeps the header fields and the packed data exactly; [`TensorFile::to_literal`]
//! and [`TensorFile::from_literal`] convert to and from the literals backends run on.

mod convert;
pub mod dequantize;

pub(crate) use convert::reshape;
pub use dequantize::Quantization;

use crate::error::{NnefError, Span};

/// Size of the header in bytes.
pub const HEADER_LENGTH: usize = 128;
/// Largest rank a tensor file can hold.
pub const MAX_RANK: usize = 8;
/// The two magic bytes at offset 0.
pub const MAGIC: [u8; 2] = [0x4E, 0xEF];
/// The (major, minor) version this module reads and writes.
pub const VERSION: (u8, u8) = (1, 0);

const OFFSET_DATA_LENGTH: usize = 4;
const OFFSET_RANK: usize = 8;
const OFFSET_EXTENTS: usize = 12;
const OFFSET_BITS: usize = 44;
const OFFSET_ITEM_TYPE: usize = 48;
const OFFSET_PARAMETERS: usize = 52;
const PARAMETERS_LENGTH: usize = 32;

/// The item type of a tensor file (NNEF 1.0.5 §5.2: the low 16 bits of the item-type code
/// when the vendor code, the high 16 bits, is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemType {
    /// Code 0: IEEE 754 binary16, binary32 or binary64 (16, 32 or 64 bits per item).
    Float,
    /// Code 1: unsigned integers, 1 to 64 bits. (Deprecated: a non-zero first parameter word
    /// marks the items signed; see [`TensorFile::resolved_item_type`].)
    Unsigned,
    /// Code 2: quantized unsigned integers, 1 to 64 bits; the quantization comes from
    /// `graph.quant` (or, deprecated, from the header parameters).
    QuantizedUnsigned,
    /// Code 3: quantized signed (two's complement) integers, 1 to 64 bits.
    QuantizedSigned,
    /// Code 4: signed (two's complement) integers, 1 to 64 bits.
    Signed,
    /// Code 5: booleans of 1 or 8 bits (0 is false, anything else true).
    Bool,
    /// A vendor's own item type (vendor code non-zero); its data is kept but not interpreted.
    Vendor {
        /// The high 16 bits of the code.
        vendor: u16,
        /// The low 16 bits of the code.
        code: u16,
    },
}

impl ItemType {
    /// The 32-bit item-type code stored at offset 48.
    pub fn code(self) -> u32 {
        match self {
            ItemType::Float => 0,
            ItemType::Unsigned => 1,
            ItemType::QuantizedUnsigned => 2,
            ItemType::QuantizedSigned => 3,
            ItemType::Signed => 4,
            ItemType::Bool => 5,
            ItemType::Vendor { vendor, code } => (u32::from(vendor) << 16) | u32::from(code),
        }
    }

    /// The item type of a code, or `None` for a Khronos code (vendor 0) that NNEF 1.0.5 does
    /// not define (6 and above). A code with vendor 0 is never [`ItemType::Vendor`].
    pub fn from_code(code: u32) -> Option<ItemType> {
        let vendor = (code >> 16) as u16;
        if vendor != 0 {
            return Some(ItemType::Vendor {
                vendor,
                code: code as u16,
            });
        }
        Some(match code {
            0 => ItemType::Float,
            1 => ItemType::Unsigned,
            2 => ItemType::QuantizedUnsigned,
            3 => ItemType::QuantizedSigned,
            4 => ItemType::Signed,
            5 => ItemType::Bool,
            _ => return None,
        })
    }

    /// A short name for messages: `float`, `unsigned integer`, ...
    pub fn name(self) -> String {
        match self {
            ItemType::Float => "float".into(),
            ItemType::Unsigned => "unsigned integer".into(),
            ItemType::QuantizedUnsigned => "quantized unsigned integer".into(),
            ItemType::QuantizedSigned => "quantized signed integer".into(),
            ItemType::Signed => "signed integer".into(),
            ItemType::Bool => "bool".into(),
            ItemType::Vendor { vendor, code } => {
                format!("vendor item type 0x{vendor:04x}:0x{code:04x}")
            }
        }
    }

    /// True when `bits` per item is valid for the type (§5.2): float 16, 32 or 64; integers
    /// 1 to 64; bool 1 or 8; vendor types 1 to 64.
    pub fn accepts_bits(self, bits: u32) -> bool {
        match self {
            ItemType::Float => matches!(bits, 16 | 32 | 64),
            ItemType::Bool => matches!(bits, 1 | 8),
            _ => (1..=64).contains(&bits),
        }
    }

    /// True for the two's-complement types ([`ItemType::Signed`], [`ItemType::QuantizedSigned`]).
    pub fn is_signed(self) -> bool {
        matches!(self, ItemType::Signed | ItemType::QuantizedSigned)
    }
}

/// A tensor data file: the header fields and the packed data, exactly as stored.
///
/// Invariants checked by [`TensorFile::validate`] (and so by [`read_tensor`] and
/// [`write_tensor`]): rank at most [`MAX_RANK`], every extent fits in 32 bits, `bits_per_item`
/// valid for `item_type`, and `data.len() == ceil(item_count * bits_per_item / 8)` bytes, which
/// must fit in 32 bits.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorFile {
    /// Extents, outermost first (elements). Empty for a rank-0 tensor (one item).
    pub shape: Vec<usize>,
    /// The item type (the code at offset 48).
    pub item_type: ItemType,
    /// Bits per item (1 to 64).
    pub bits_per_item: u32,
    /// The 32 bytes of deprecated item-type parameters at offset 52, as stored (all zero in
    /// current files); see [`TensorFile::resolved_item_type`] and
    /// [`TensorFile::legacy_quantization_range`].
    pub parameters: [u8; 32],
    /// The packed items (see the module documentation), without the header.
    pub data: Vec<u8>,
}

fn data_error(message: impl Into<String>) -> NnefError {
    NnefError::data(Span::default(), message)
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[offset..offset + 4]);
    u32::from_le_bytes(word)
}

/// The number of data bytes of `count` items of `bits` bits: `ceil(count * bits / 8)`, or
/// `None` when it overflows `usize`.
pub fn data_length(count: usize, bits: u32) -> Option<usize> {
    let total_bits = (count as u128).checked_mul(u128::from(bits))?;
    usize::try_from(total_bits.div_ceil(8)).ok()
}

/// Two NNEF shapes denote the same tensor shape when they are equal after dropping trailing
/// extents of 1 (NNEF 1.0.5 §3.3.4: singleton trailing dimensions are implicit, so `[1, 64]`
/// and `[1, 64, 1, 1]` are the same shape).
pub fn same_shape(a: &[usize], b: &[usize]) -> bool {
    fn trimmed(s: &[usize]) -> &[usize] {
        let mut n = s.len();
        while n > 0 && s[n - 1] == 1 {
            n -= 1;
        }
        &s[..n]
    }
    trimmed(a) == trimmed(b)
}

impl TensorFile {
    /// A tensor file of `shape` holding `items` (one value per item, the item's bits in the low
    /// `bits_per_item` bits, in row-major order), with zero parameters.
    ///
    /// Errors ([`NnefError::data`]): an invalid combination of type, bits and shape (see
    /// [`TensorFile::validate`]), a count of items other than the shape's, or an item with bits
    /// set above `bits_per_item`.
    pub fn from_items(
        shape: Vec<usize>,
        item_type: ItemType,
        bits_per_item: u32,
        items: &[u64],
    ) -> Result<TensorFile, NnefError> {
        let mut file = TensorFile {
            shape,
            item_type,
            bits_per_item,
            parameters: [0; PARAMETERS_LENGTH],
            data: Vec::new(),
        };
        let count = file.checked_item_count()?;
        if items.len() != count {
            return Err(data_error(format!(
                "{} items given for a tensor of shape {:?} ({count} items)",
                items.len(),
                file.shape
            )));
        }
        if !item_type.accepts_bits(bits_per_item) {
            return Err(bits_error(item_type, bits_per_item));
        }
        let length = data_length(count, bits_per_item)
            .ok_or_else(|| data_error("the data length overflows"))?;
        file.data = vec![0u8; length];
        let mask = item_mask(bits_per_item);
        for (i, &item) in items.iter().enumerate() {
            if item & !mask != 0 {
                return Err(data_error(format!(
                    "item {i} (0x{item:x}) does not fit in {bits_per_item} bits"
                )));
            }
            put_item(&mut file.data, bits_per_item, i, item);
        }
        file.validate()?;
        Ok(file)
    }

    /// The rank (number of extents).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of items: the product of the extents (1 for rank 0), saturating at
    /// `usize::MAX` (such a file fails [`TensorFile::validate`]).
    pub fn item_count(&self) -> usize {
        self.shape
            .iter()
            .try_fold(1usize, |acc, &e| acc.checked_mul(e))
            .unwrap_or(usize::MAX)
    }

    fn checked_item_count(&self) -> Result<usize, NnefError> {
        self.shape
            .iter()
            .try_fold(1usize, |acc, &e| acc.checked_mul(e))
            .ok_or_else(|| {
                data_error(format!(
                    "the item count of shape {:?} overflows",
                    self.shape
                ))
            })
    }

    /// The item type with the deprecated signedness flag applied: an [`ItemType::Unsigned`]
    /// file whose first parameter word is non-zero holds signed items (NNEF 1.0.5 §5.2,
    /// deprecated; the Khronos Python reader does the same).
    pub fn resolved_item_type(&self) -> ItemType {
        if self.item_type == ItemType::Unsigned && u32_at(&self.parameters, 0) != 0 {
            ItemType::Signed
        } else {
            self.item_type
        }
    }

    /// The deprecated quantization range of a quantized file: `(min, max)`, the 32-bit floats of
    /// the first two parameter words (the values of an all-zeros item and an all-ones item),
    /// or `None` when the type is not quantized or both words are zero.
    pub fn legacy_quantization_range(&self) -> Option<(f32, f32)> {
        if !matches!(
            self.item_type,
            ItemType::QuantizedUnsigned | ItemType::QuantizedSigned
        ) {
            return None;
        }
        let (min, max) = (u32_at(&self.parameters, 0), u32_at(&self.parameters, 4));
        if min == 0 && max == 0 {
            return None;
        }
        Some((f32::from_bits(min), f32::from_bits(max)))
    }

    /// Checks the invariants listed on [`TensorFile`].
    ///
    /// Errors ([`NnefError::data`], line 0): rank above 8, an extent above `u32::MAX`, bits per
    /// item invalid for the item type, a data length other than the shape and bits give, or a
    /// data length above `u32::MAX` bytes.
    pub fn validate(&self) -> Result<(), NnefError> {
        if self.rank() > MAX_RANK {
            return Err(data_error(format!(
                "rank {} exceeds the maximum rank {MAX_RANK}",
                self.rank()
            )));
        }
        if let Some(e) = self.shape.iter().find(|&&e| u32::try_from(e).is_err()) {
            return Err(data_error(format!("extent {e} does not fit in 32 bits")));
        }
        if !self.item_type.accepts_bits(self.bits_per_item) {
            return Err(bits_error(self.item_type, self.bits_per_item));
        }
        let count = self.checked_item_count()?;
        let expected = data_length(count, self.bits_per_item)
            .ok_or_else(|| data_error("the data length overflows"))?;
        if u32::try_from(expected).is_err() {
            return Err(data_error(format!(
                "{expected} data bytes do not fit the 32-bit data length field"
            )));
        }
        if self.data.len() != expected {
            return Err(data_error(format!(
                "{} data bytes given; shape {:?} at {} bits per item needs {expected}",
                self.data.len(),
                self.shape,
                self.bits_per_item
            )));
        }
        Ok(())
    }

    /// The bits of item `index` (row-major), in the low `bits_per_item` bits.
    ///
    /// Panics when `index >= item_count()` or the file does not satisfy
    /// [`TensorFile::validate`] (files from [`read_tensor`] always do).
    pub fn item(&self, index: usize) -> u64 {
        get_item(&self.data, self.bits_per_item, index)
    }

    /// Every item's bits in row-major order (see [`TensorFile::item`]).
    pub fn items(&self) -> Vec<u64> {
        (0..self.item_count()).map(|i| self.item(i)).collect()
    }

    /// Item `index` as a signed or unsigned integer per [`TensorFile::resolved_item_type`]
    /// (sign-extended from `bits_per_item` bits for signed types).
    pub fn integer_item(&self, index: usize) -> i128 {
        let raw = self.item(index);
        if self.resolved_item_type().is_signed() {
            sign_extend(raw, self.bits_per_item)
        } else {
            i128::from(raw)
        }
    }
}

fn bits_error(item_type: ItemType, bits: u32) -> NnefError {
    let valid = match item_type {
        ItemType::Float => "16, 32 or 64",
        ItemType::Bool => "1 or 8",
        _ => "1 to 64",
    };
    data_error(format!(
        "{bits} bits per item is invalid for {} items (valid: {valid})",
        item_type.name()
    ))
}

/// The mask of the low `bits` bits (`bits` in 1..=64).
fn item_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `raw` (two's complement).
pub(crate) fn sign_extend(raw: u64, bits: u32) -> i128 {
    let shift = 64 - bits.min(64);
    i128::from(((raw << shift) as i64) >> shift)
}

fn get_item(data: &[u8], bits: u32, index: usize) -> u64 {
    if bits & 7 == 0 {
        let w = (bits / 8) as usize;
        let mut word = [0u8; 8];
        word[..w].copy_from_slice(&data[index * w..(index + 1) * w]);
        return u64::from_le_bytes(word);
    }
    let start = index as u128 * u128::from(bits);
    let mut value = 0u64;
    for k in 0..u128::from(bits) {
        let pos = start + k;
        let byte = data[(pos / 8) as usize];
        let bit = (byte >> (7 - (pos % 8) as u32)) & 1;
        value = (value << 1) | u64::from(bit);
    }
    value
}

fn put_item(data: &mut [u8], bits: u32, index: usize, value: u64) {
    if bits & 7 == 0 {
        let w = (bits / 8) as usize;
        data[index * w..(index + 1) * w].copy_from_slice(&value.to_le_bytes()[..w]);
        return;
    }
    let start = index as u128 * u128::from(bits);
    for k in 0..bits {
        let bit = (value >> (bits - 1 - k)) & 1;
        let pos = start + u128::from(k);
        let shift = 7 - (pos % 8) as u32;
        let byte = &mut data[(pos / 8) as usize];
        *byte = (*byte & !(1 << shift)) | ((bit as u8) << shift);
    }
}

/// Reads a tensor file (header and data) from its bytes.
///
/// Errors ([`NnefError::data`], line 0, the message naming the byte offset): fewer than 128
/// bytes; magic other than `0x4E 0xEF`; a version other than 1.0; rank above 8; a non-zero
/// extent slot beyond the rank; an item-type code that vendor 0 does not define; bits per item
/// invalid for the item type; a data length field other than `ceil(items * bits / 8)`; fewer
/// data bytes than the data length (truncated file) or bytes after them.
pub fn read_tensor(bytes: &[u8]) -> Result<TensorFile, NnefError> {
    if bytes.len() < HEADER_LENGTH {
        return Err(data_error(format!(
            "the file is {} bytes long, shorter than the {HEADER_LENGTH}-byte header",
            bytes.len()
        )));
    }
    if bytes[0..2] != MAGIC {
        return Err(data_error(format!(
            "bad magic number 0x{:02x} 0x{:02x} at byte 0 (expected 0x4e 0xef): not an NNEF tensor file",
            bytes[0], bytes[1]
        )));
    }
    if (bytes[2], bytes[3]) != VERSION {
        return Err(data_error(format!(
            "unsupported version {}.{} at byte 2 (this reader supports {}.{})",
            bytes[2], bytes[3], VERSION.0, VERSION.1
        )));
    }
    let data_len = u32_at(bytes, OFFSET_DATA_LENGTH) as usize;
    let rank = u32_at(bytes, OFFSET_RANK);
    if rank as usize > MAX_RANK {
        return Err(data_error(format!(
            "rank {rank} at byte {OFFSET_RANK} exceeds the maximum rank {MAX_RANK}"
        )));
    }
    let rank = rank as usize;
    let mut shape = Vec::with_capacity(rank);
    for slot in 0..MAX_RANK {
        let offset = OFFSET_EXTENTS + 4 * slot;
        let extent = u32_at(bytes, offset);
        if slot < rank {
            shape.push(extent as usize);
        } else if extent != 0 {
            return Err(data_error(format!(
                "extent slot {slot} (byte {offset}) beyond rank {rank} holds {extent}; it must be 0"
            )));
        }
    }
    let bits = u32_at(bytes, OFFSET_BITS);
    let code = u32_at(bytes, OFFSET_ITEM_TYPE);
    let item_type = ItemType::from_code(code).ok_or_else(|| {
        data_error(format!(
            "unknown item-type code {code} at byte {OFFSET_ITEM_TYPE} (Khronos codes are 0 to 5)"
        ))
    })?;
    if !item_type.accepts_bits(bits) {
        return Err(bits_error(item_type, bits));
    }
    let count = shape
        .iter()
        .try_fold(1usize, |acc: usize, &e| acc.checked_mul(e))
        .ok_or_else(|| data_error(format!("the item count of shape {shape:?} overflows")))?;
    let expected = data_length(count, bits)
        .ok_or_else(|| data_error(format!("the data length of shape {shape:?} overflows")))?;
    if data_len != expected {
        return Err(data_error(format!(
            "data length {data_len} at byte {OFFSET_DATA_LENGTH} does not match shape {shape:?} at {bits} bits per item ({expected} bytes)"
        )));
    }
    let available = bytes.len() - HEADER_LENGTH;
    if available < data_len {
        return Err(data_error(format!(
            "truncated file: the header announces {data_len} data bytes after byte {HEADER_LENGTH}, only {available} follow"
        )));
    }
    if available > data_len {
        return Err(data_error(format!(
            "{} unexpected bytes after the {data_len} data bytes (at byte {})",
            available - data_len,
            HEADER_LENGTH + data_len
        )));
    }
    let mut parameters = [0u8; PARAMETERS_LENGTH];
    parameters.copy_from_slice(&bytes[OFFSET_PARAMETERS..OFFSET_PARAMETERS + PARAMETERS_LENGTH]);
    Ok(TensorFile {
        shape,
        item_type,
        bits_per_item: bits,
        parameters,
        data: bytes[HEADER_LENGTH..].to_vec(),
    })
}

/// Writes a tensor file: the 128-byte header (version 1.0, reserved bytes zero) and the data.
///
/// Errors: the file does not satisfy [`TensorFile::validate`].
pub fn write_tensor(file: &TensorFile) -> Result<Vec<u8>, NnefError> {
    file.validate()?;
    let mut out = Vec::with_capacity(HEADER_LENGTH + file.data.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[VERSION.0, VERSION.1]);
    // `validate` checked that the length, the rank and every extent fit in 32 bits.
    out.extend_from_slice(&(file.data.len() as u32).to_le_bytes());
    out.extend_from_slice(&(file.rank() as u32).to_le_bytes());
    for slot in 0..MAX_RANK {
        let extent = file.shape.get(slot).copied().unwrap_or(0) as u32;
        out.extend_from_slice(&extent.to_le_bytes());
    }
    out.extend_from_slice(&file.bits_per_item.to_le_bytes());
    out.extend_from_slice(&file.item_type.code().to_le_bytes());
    out.extend_from_slice(&file.parameters);
    out.resize(HEADER_LENGTH, 0);
    out.extend_from_slice(&file.data);
    Ok(out)
}

#[cfg(test)]
mod tests;
