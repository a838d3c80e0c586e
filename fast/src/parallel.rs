//! The parallel driver: element-wise maps over flat buffers, split into large chunks on rayon's
//! pool above a size threshold.
//!
//! Every element is computed by the same function whichever chunk it lands in, so results do not
//! depend on the number of threads or the chunk boundaries.

use crate::buffer::In;
use rayon::prelude::*;

/// Elements per parallel task for cheap operations (large, so scheduling costs nothing
/// measurable).
const CHUNK: usize = 1 << 15;

/// Elements per parallel task for expensive operations (libm calls, narrow formats through f64).
const HEAVY_CHUNK: usize = 1 << 11;

/// How much lower the threshold is for expensive operations.
const HEAVY_FACTOR: usize = 16;

/// Execution settings of one `execute` call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exec {
    /// Element count from which work is split across threads.
    pub(crate) threshold: usize,
    /// Elements per parallel task.
    pub(crate) chunk: usize,
    /// Whether `while` loops over small arrays run as compiled loops
    /// ([`crate::control_flow`]'s loop plans) rather than through the interpreter.
    pub(crate) compiled_loops: bool,
    /// Threefry's rotation constants (the paper's unless a planted-bug test sets others:
    /// [`crate::Fast::with_threefry_rotations`]).
    pub(crate) threefry_rotations: [u32; 8],
    /// The instruction set of the SIMD kernels ([`crate::Fast::with_isa`]).
    pub(crate) isa: crate::kernels::Isa,
    /// Whether task sizes are replaced by [`SPLIT_TASK`] ([`crate::Fast::with_split_tasks`]).
    pub(crate) split: bool,
}

/// What an operation with its own task sizes needs of [`Exec`]: whether its work goes to the
/// pool, whether tasks are split small, and the instruction set of its SIMD kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Par {
    /// Whether the work is split across threads.
    pub(crate) on: bool,
    /// Whether each task size is [`SPLIT_TASK`] ([`crate::Fast::with_split_tasks`]).
    pub(crate) split: bool,
    /// The instruction set of the SIMD kernels.
    pub(crate) isa: crate::kernels::Isa,
}

impl Par {
    /// Parallel when `on`, tasks as sized by the operation, the default instruction set
    /// ([`crate::kernels::Isa::detect`]): for the library entry points that take a flag.
    pub(crate) fn flag(on: bool) -> Par {
        Par {
            on,
            split: false,
            isa: crate::kernels::Isa::detect(),
        }
    }

    /// `size` elements (rows, blocks) per task, or [`SPLIT_TASK`] when tasks are split small.
    pub(crate) fn task(&self, size: usize) -> usize {
        if self.split {
            SPLIT_TASK
        } else {
            size
        }
    }

    /// True when the SIMD kernels may use AVX2 (and AVX, which it implies).
    pub(crate) fn avx2(&self) -> bool {
        self.isa >= crate::kernels::Isa::Avx2Fma
    }
}

/// Elements (or rows, blocks, …) per task when tasks are split small: odd, so task boundaries
/// fall at odd offsets, inside SIMD vectors and tiles.
pub(crate) const SPLIT_TASK: usize = 7;

impl Exec {
    /// Settings for a backend's parallel threshold (cheap operations).
    pub(crate) fn new(threshold: usize) -> Exec {
        Exec {
            threshold,
            chunk: CHUNK,
            compiled_loops: true,
            threefry_rotations: crate::random::THREEFRY_ROTATIONS,
            isa: crate::kernels::Isa::detect(),
            split: false,
        }
    }

    /// The same settings with tasks split small (`true`: every task size [`SPLIT_TASK`], the
    /// threshold 1) or as they are.
    pub(crate) fn with_split(self, split: bool) -> Exec {
        if split {
            Exec {
                threshold: 1,
                chunk: SPLIT_TASK,
                split: true,
                ..self
            }
        } else {
            self
        }
    }

    /// [`Par`] for work over `n` elements.
    pub(crate) fn par(&self, n: usize) -> Par {
        Par {
            on: self.parallel(n),
            split: self.split,
            isa: self.isa,
        }
    }

    /// The settings for expensive operations (about 10 ns or more per element): a threshold
    /// [`HEAVY_FACTOR`] times lower and smaller tasks. A sequential backend stays sequential.
    pub(crate) fn heavy(self) -> Exec {
        Exec {
            threshold: if self.threshold == usize::MAX {
                usize::MAX
            } else {
                (self.threshold / HEAVY_FACTOR).max(1)
            },
            chunk: if self.split { SPLIT_TASK } else { HEAVY_CHUNK },
            ..self
        }
    }

    /// True when `n` elements are worth splitting across threads.
    pub(crate) fn parallel(&self, n: usize) -> bool {
        n >= self.threshold && rayon::current_num_threads() > 1
    }

    /// Runs `f(start, chunk)` over `out`, in chunks of [`CHUNK`] elements on the pool when large.
    pub(crate) fn run<T: Send>(&self, out: &mut [T], f: impl Fn(usize, &mut [T]) + Sync + Send) {
        if self.parallel(out.len()) {
            let chunk = self.chunk;
            out.par_chunks_mut(chunk)
                .enumerate()
                .for_each(|(i, c)| f(i * chunk, c));
        } else {
            f(0, out)
        }
    }
}

/// `out[i] = f(a[i])`.
pub(crate) fn map1<A, B>(exec: Exec, a: In<A>, out: &mut [B], f: impl Fn(A) -> B + Sync + Send)
where
    A: Copy + Sync,
    B: Copy + Send,
{
    exec.run(out, |start, o| match a.sub(start, o.len()) {
        In::Slice(s) => o.iter_mut().zip(s).for_each(|(y, &x)| *y = f(x)),
        In::Splat(v) => o.fill(f(v)),
    });
}

/// `f(a_chunk, out_chunk)` over matching chunks (for kernels that work on slices, e.g. SIMD).
pub(crate) fn map1_slices<A, B>(
    exec: Exec,
    a: In<A>,
    out: &mut [B],
    f: impl Fn(&[A], &mut [B]) + Sync + Send,
) where
    A: Copy + Sync,
    B: Copy + Send,
{
    exec.run(out, |start, o| match a.sub(start, o.len()) {
        In::Slice(s) => f(s, o),
        In::Splat(v) => {
            if let Some(first) = o.first_mut() {
                f(&[v], std::slice::from_mut(first));
                let r = *first;
                o.fill(r);
            }
        }
    });
}

/// `out[i] = f(a[i], b[i])`; splat operands are not materialized.
pub(crate) fn map2<A, B, C>(
    exec: Exec,
    a: In<A>,
    b: In<B>,
    out: &mut [C],
    f: impl Fn(A, B) -> C + Sync + Send,
) where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Send,
{
    exec.run(out, |start, o| {
        match (a.sub(start, o.len()), b.sub(start, o.len())) {
            (In::Slice(x), In::Slice(y)) => o
                .iter_mut()
                .zip(x.iter().zip(y))
                .for_each(|(r, (&x, &y))| *r = f(x, y)),
            (In::Slice(x), In::Splat(y)) => o.iter_mut().zip(x).for_each(|(r, &x)| *r = f(x, y)),
            (In::Splat(x), In::Slice(y)) => o.iter_mut().zip(y).for_each(|(r, &y)| *r = f(x, y)),
            (In::Splat(x), In::Splat(y)) => o.fill(f(x, y)),
        }
    });
}

/// `out[i] = f(a[i], b[i], c[i])` (select, clamp).
pub(crate) fn map3<A, B, C, D>(
    exec: Exec,
    a: In<A>,
    b: In<B>,
    c: In<C>,
    out: &mut [D],
    f: impl Fn(A, B, C) -> D + Sync + Send,
) where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Sync,
    D: Copy + Send,
{
    exec.run(out, |start, o| {
        let n = o.len();
        match (a.sub(start, n), b.sub(start, n), c.sub(start, n)) {
            (In::Splat(x), In::Slice(y), In::Splat(z)) => {
                o.iter_mut().zip(y).for_each(|(r, &y)| *r = f(x, y, z))
            }
            (In::Slice(x), In::Slice(y), In::Slice(z)) => o
                .iter_mut()
                .zip(x.iter().zip(y.iter().zip(z)))
                .for_each(|(r, (&x, (&y, &z)))| *r = f(x, y, z)),
            (x, y, z) => o
                .iter_mut()
                .enumerate()
                .for_each(|(i, r)| *r = f(x.at(i), y.at(i), z.at(i))),
        }
    });
}

/// `out[i] = f(in[i])` on raw element bits: `input` holds elements of `w_in` bytes (or is one
/// scalar's bits), `out` elements of `w_out` bytes.
pub(crate) fn map_bits(
    exec: Exec,
    input: Result<&[u8], u128>,
    w_in: usize,
    out: &mut [u8],
    w_out: usize,
    f: impl Fn(u128) -> u128 + Sync + Send,
) {
    let read = |e: &[u8]| {
        let mut b = [0u8; 16];
        b[..w_in].copy_from_slice(e);
        u128::from_le_bytes(b)
    };
    let n = out.len() / w_out;
    let body = |start: usize, o: &mut [u8]| match input {
        Ok(bytes) => {
            let k = o.len() / w_out;
            let src = &bytes[start * w_in..(start + k) * w_in];
            for (oe, ie) in o.chunks_exact_mut(w_out).zip(src.chunks_exact(w_in)) {
                oe.copy_from_slice(&f(read(ie)).to_le_bytes()[..w_out]);
            }
        }
        Err(bits) => {
            let r = f(bits).to_le_bytes();
            for oe in o.chunks_exact_mut(w_out) {
                oe.copy_from_slice(&r[..w_out]);
            }
        }
    };
    if exec.parallel(n) {
        let chunk = exec.chunk;
        out.par_chunks_mut(chunk * w_out)
            .enumerate()
            .for_each(|(i, c)| body(i * chunk, c));
    } else {
        body(0, out)
    }
}
