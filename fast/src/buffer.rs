//! Typed views of physical byte buffers and output allocation.
//!
//! Literal buffers are `Vec<u8>` of little-endian elements. On a little-endian target an aligned
//! byte slice *is* a slice of the element type, so kernels read and write in place through
//! `bytemuck`'s checked casts (no `unsafe` here); a misaligned buffer (never produced by the system
//! allocator for these sizes, but not excluded by `Vec<u8>`'s contract) is copied instead.

use bytemuck::Pod;
use std::borrow::Cow;

/// An operand of an element-wise kernel, already in the result's physical layout.
#[derive(Clone, Copy, Debug)]
pub(crate) enum In<'a, T> {
    /// One element per physical position of the result.
    Slice(&'a [T]),
    /// The same element at every position (a scalar operand or a broadcast scalar).
    Splat(T),
}

impl<'a, T: Copy> In<'a, T> {
    /// The part of the operand that lines up with `start..start + len` of the result.
    pub(crate) fn sub(&self, start: usize, len: usize) -> In<'a, T> {
        match *self {
            In::Slice(s) => In::Slice(&s[start..start + len]),
            In::Splat(v) => In::Splat(v),
        }
    }

    /// The element at physical position `i`.
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> T {
        match self {
            In::Slice(s) => s[i],
            In::Splat(v) => *v,
        }
    }
}

/// Reads the low `size_of::<T>()` bytes of raw element bits as a `T`.
pub(crate) fn from_bits<T: Pod>(bits: u128) -> T {
    let bytes = bits.to_le_bytes();
    bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<T>()])
}

/// Raw element bits of a `T`.
#[cfg(test)]
pub(crate) fn to_bits<T: Pod>(v: T) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..std::mem::size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&v));
    u128::from_le_bytes(bytes)
}

/// A byte buffer viewed as elements of `T` (borrowed when aligned, copied otherwise).
pub(crate) fn typed<T: Pod>(bytes: &[u8]) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(std::mem::size_of::<T>())
                .map(bytemuck::pod_read_unaligned)
                .collect(),
        ),
    }
}

/// Allocates a zeroed output buffer of `n` elements of `T` and lets `f` fill it.
///
/// The allocation is lazily zeroed by the operating system (calloc of fresh pages), so the first
/// write to each page happens inside `f` — on the worker threads when `f` runs in parallel
/// (parallel first touch).
pub(crate) fn with_output<T: Pod>(n: usize, f: impl FnOnce(&mut [T])) -> Vec<u8> {
    let size = std::mem::size_of::<T>();
    let mut out = crate::alloc::zeroed(n * size);
    match bytemuck::try_cast_slice_mut::<u8, T>(&mut out) {
        Ok(s) => f(s),
        Err(_) => {
            let mut tmp = vec![T::zeroed(); n];
            f(&mut tmp);
            out.copy_from_slice(bytemuck::cast_slice(&tmp));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip() {
        assert_eq!(from_bits::<f32>(0x3f80_0000), 1.0);
        assert_eq!(to_bits(1.0f32), 0x3f80_0000);
        assert_eq!(to_bits([1.0f32, -2.0f32]), 0xc000_0000_3f80_0000);
        assert_eq!(from_bits::<u8>(0x1ff), 0xff);
    }

    #[test]
    fn misaligned_bytes_are_copied() {
        let bytes: Vec<u8> = (0..9).collect();
        let v = typed::<u16>(&bytes[1..9]);
        assert_eq!(&*v, &[0x0201, 0x0403, 0x0605, 0x0807]);
    }

    #[test]
    fn output_is_filled() {
        let out = with_output::<u32>(3, |s| s.copy_from_slice(&[1, 2, 3]));
        assert_eq!(out, vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    }
}
