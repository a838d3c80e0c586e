//! Output buffers: zeroed allocations that are cheap to fault in.
//!
//! A fresh 64 MiB buffer costs 16,384 page faults of 4 KiB when first written. On the development
//! machine (a KVM guest) those faults cost about 5 µs each, several times the cost of the
//! arithmetic that fills the buffer (measured: add f32 on 16M elements took ~110 ms into a fresh
//! buffer against ~25 ms into a reused one, under load). Large buffers are therefore advised to use
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`; effective when THP is in `madvise` or
//! `always` mode), which brings the fresh-buffer case within ~1.5× of the reused one, and they are
//! first touched by the worker threads that compute them (parallel first touch).
//!
//! This module holds the crate's only `unsafe` outside the SIMD kernels: the `madvise` system call.

/// Buffers from this size (bytes) get the huge-page advice.
const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// A zeroed buffer of `len` bytes (lazily zeroed pages from the allocator when large).
pub(crate) fn zeroed(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    if len >= HUGE_PAGE_THRESHOLD {
        advise_huge_pages(&mut v);
    }
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(v: &mut [u8]) {
    const HUGE: usize = 2 << 20;
    let base = v.as_mut_ptr() as usize;
    let start = base.next_multiple_of(HUGE);
    let end = (base + v.len()) & !(HUGE - 1);
    if end > start {
        // SAFETY: [start, end) lies inside `v`'s allocation (its bounds rounded inward to 2 MiB), and
        // MADV_HUGEPAGE is advice about how the kernel backs those pages: it never changes their
        // contents or validity, so no Rust reference is affected. The result is ignored on purpose
        // (the advice is optional; without THP support the call fails harmlessly).
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &mut [u8]) {}

#[cfg(test)]
mod tests {
    #[test]
    fn buffers_are_zeroed_whatever_their_size() {
        for len in [0, 1, 4095, super::HUGE_PAGE_THRESHOLD + 12345] {
            let v = super::zeroed(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&b| b == 0));
        }
    }
}
