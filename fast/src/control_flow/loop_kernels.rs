//! The kernels of a compiled loop ([`super::loop_plan`]): element-wise instructions over small
//! slots, with the element functions of the element-wise family ([`crate::elementwise`]) so that a
//! compiled loop computes the same bits as the interpreter.
//!
//! Each kernel is a closure over its slot numbers and element count, monomorphized per element
//! type; one call computes a whole slot without allocating. Covered (everything else runs through
//! the interpreter, [`super::loop_plan`]'s escapes):
//! - add, subtract, multiply, divide, remainder, maximum, minimum on f32 and f64 (IEEE; maximum
//!   and minimum propagate NaN and order −0 < +0, [`max_f32`] etc.);
//! - add, subtract, multiply (wrapping), and, or, xor, maximum, minimum on s8…s64 and u8…u64; and,
//!   or, xor (and their pred aliases) on pred;
//! - negate and abs on f32 and f64, negate (wrapping) and not on integers, not on pred;
//! - compare, every direction, FLOAT on f32/f64, TOTALORDER on 8…64-bit floats, SIGNED and
//!   UNSIGNED on integers and pred ([`comparison`], [`total_order_key`]);
//! - select (any element width; the predicate an array or a scalar);
//! - broadcast of a scalar (`dimensions={}`).
//!
//! Slots hold physical elements in the instruction's unpadded layout; the plan only builds a
//! kernel when every operand has the result's physical layout, so a kernel runs over flat slices.

use super::loop_plan::Slot;
use crate::elementwise::binary::{max_f32, max_f64, min_f32, min_f64};
use crate::elementwise::compare::{comparison, total_order_key, CompareType};
use crate::layout::same_physical_layout;
use bytemuck::Pod;
use conformance_spec::hlo::HloInstruction;
use conformance_spec::shape::slices_equal;
use conformance_spec::{ArrayShape, ElementType, Opcode};

/// One compiled instruction: computes its result slot from its operand slots.
pub(super) type Kernel = Box<dyn Fn(&mut [Slot<'_>])>;

/// The first `n` elements of a slot's storage as `T`.
#[inline]
fn view<T: Pod>(data: &[u64], n: usize) -> &[T] {
    &bytemuck::cast_slice::<u64, T>(data)[..n]
}

#[inline]
fn view_mut<T: Pod>(data: &mut [u64], n: usize) -> &mut [T] {
    &mut bytemuck::cast_slice_mut::<u64, T>(data)[..n]
}

/// Runs `f` with slot `o`'s storage borrowed mutably and the other slots readable (operands are
/// other slots: results are fresh slots of a computation in SSA form, so `o` is never an operand).
#[inline(always)]
fn with_out(slots: &mut [Slot<'_>], o: usize, f: impl FnOnce(Others<'_, '_>, &mut [u64])) {
    let (lo, rest) = slots.split_at_mut(o);
    let (out, hi) = rest.split_at_mut(1);
    f(Others { lo, o, hi }, &mut out[0].data);
}

/// The slots other than a kernel's result slot `o`.
struct Others<'s, 'a> {
    lo: &'s [Slot<'a>],
    o: usize,
    hi: &'s [Slot<'a>],
}

impl Others<'_, '_> {
    #[inline(always)]
    fn get(&self, k: usize) -> &[u64] {
        if k < self.o {
            &self.lo[k].data
        } else {
            &self.hi[k - self.o - 1].data
        }
    }
}

fn map1<T: Pod, U: Pod>(a: usize, o: usize, n: usize, f: impl Fn(T) -> U + 'static) -> Kernel {
    if n == 1 {
        // A scalar (a loop counter): no slices to walk.
        return Box::new(move |s| {
            with_out(s, o, |s, out| {
                view_mut::<U>(out, 1)[0] = f(view::<T>(s.get(a), 1)[0])
            })
        });
    }
    Box::new(move |s| {
        with_out(s, o, |s, out| {
            let x = view::<T>(s.get(a), n);
            for (z, &x) in view_mut::<U>(out, n).iter_mut().zip(x) {
                *z = f(x);
            }
        })
    })
}

fn map2<T: Pod, U: Pod>(
    a: usize,
    b: usize,
    o: usize,
    n: usize,
    f: impl Fn(T, T) -> U + 'static,
) -> Kernel {
    if n == 1 {
        return Box::new(move |s| {
            with_out(s, o, |s, out| {
                view_mut::<U>(out, 1)[0] = f(view::<T>(s.get(a), 1)[0], view::<T>(s.get(b), 1)[0])
            })
        });
    }
    Box::new(move |s| {
        with_out(s, o, |s, out| {
            let (x, y) = (view::<T>(s.get(a), n), view::<T>(s.get(b), n));
            for ((z, &x), &y) in view_mut::<U>(out, n).iter_mut().zip(x).zip(y) {
                *z = f(x, y);
            }
        })
    })
}

fn select<T: Pod>(p: usize, scalar_pred: bool, a: usize, b: usize, o: usize, n: usize) -> Kernel {
    Box::new(move |s| {
        with_out(s, o, |s, out| {
            let (x, y) = (view::<T>(s.get(a), n), view::<T>(s.get(b), n));
            let out = view_mut::<T>(out, n);
            if scalar_pred {
                let src = if view::<u8>(s.get(p), 1)[0] != 0 {
                    x
                } else {
                    y
                };
                out.copy_from_slice(src);
            } else {
                let q = view::<u8>(s.get(p), n);
                for (((z, &x), &y), &q) in out.iter_mut().zip(x).zip(y).zip(q) {
                    *z = if q != 0 { x } else { y };
                }
            }
        })
    })
}

fn fill<T: Pod>(a: usize, o: usize, n: usize) -> Kernel {
    Box::new(move |s| {
        with_out(s, o, |s, out| {
            let v = view::<T>(s.get(a), 1)[0];
            view_mut::<T>(out, n).fill(v);
        })
    })
}

/// Picks the Rust type of an element width in bytes (1, 2, 4, 8, 16) for a width-generic kernel.
macro_rules! by_width {
    ($w:expr, $f:ident :: <_> ( $($arg:expr),* )) => {
        match $w {
            1 => Some($f::<u8>($($arg),*)),
            2 => Some($f::<u16>($($arg),*)),
            4 => Some($f::<u32>($($arg),*)),
            8 => Some($f::<u64>($($arg),*)),
            16 => Some($f::<[u64; 2]>($($arg),*)),
            _ => None,
        }
    };
}

/// An operand of a kernel: its slot and its shape.
pub(super) type Operand<'s> = (usize, &'s ArrayShape);

/// The kernel computing `instr` into slot `out` (of the instruction's array shape `result`, which
/// the plan has checked to be unpadded), or `None` when the instruction is not covered here (the
/// plan then runs it through the interpreter, which also reports malformed instructions).
pub(super) fn kernel(
    instr: &HloInstruction,
    operands: &[Operand<'_>],
    out: usize,
    result: &ArrayShape,
) -> Option<Kernel> {
    let n = result.element_count();
    let ty = result.element_type;
    // Operands with the result's dimensions and physical layout (element type aside).
    let aligned = |k: usize| {
        operands.get(k).is_some_and(|(_, s)| {
            s.same_dimensions(result)
                && (slices_equal(&s.layout.minor_to_major, &result.layout.minor_to_major)
                    || same_physical_layout(s, &result.clone().with_element_type(s.element_type)))
        })
    };
    let typed =
        |k: usize, t: ElementType| operands.get(k).is_some_and(|(_, s)| s.element_type == t);
    match (instr.opcode, operands) {
        (Opcode::Broadcast, [(a, s)])
            if s.rank() == 0
                && s.element_type == ty
                && instr.attr_ints("dimensions").is_none_or(<[i64]>::is_empty) =>
        {
            by_width!(ty.byte_width(), fill::<_>(*a, out, n))
        }
        (Opcode::Select, [(p, ps), (a, _), (b, _)])
            if ps.element_type == ElementType::Pred
                && typed(1, ty)
                && typed(2, ty)
                && aligned(1)
                && aligned(2)
                && (ps.rank() == 0 || aligned(0)) =>
        {
            by_width!(
                ty.byte_width(),
                select::<_>(*p, ps.rank() == 0, *a, *b, out, n)
            )
        }
        (Opcode::Compare, [(a, s), (b, _)])
            if ty == ElementType::Pred && typed(1, s.element_type) && aligned(0) && aligned(1) =>
        {
            compare(instr, s.element_type, *a, *b, out, n)
        }
        (op, [(a, _), (b, _)]) if typed(0, ty) && typed(1, ty) && aligned(0) && aligned(1) => {
            binary(op, ty, *a, *b, out, n)
        }
        (op, [(a, _)]) if typed(0, ty) && aligned(0) => unary(op, ty, *a, out, n),
        _ => None,
    }
}

fn binary(op: Opcode, ty: ElementType, a: usize, b: usize, o: usize, n: usize) -> Option<Kernel> {
    use Opcode::*;
    macro_rules! float {
        ($t:ty, $max:expr, $min:expr) => {
            match op {
                Add => map2(a, b, o, n, |x: $t, y: $t| x + y),
                Subtract => map2(a, b, o, n, |x: $t, y: $t| x - y),
                Multiply => map2(a, b, o, n, |x: $t, y: $t| x * y),
                Divide => map2(a, b, o, n, |x: $t, y: $t| x / y),
                Remainder => map2(a, b, o, n, |x: $t, y: $t| x % y),
                Maximum => map2(a, b, o, n, $max),
                Minimum => map2(a, b, o, n, $min),
                _ => return None,
            }
        };
    }
    macro_rules! int {
        ($t:ty) => {
            match op {
                Add => map2(a, b, o, n, |x: $t, y: $t| x.wrapping_add(y)),
                Subtract => map2(a, b, o, n, |x: $t, y: $t| x.wrapping_sub(y)),
                Multiply => map2(a, b, o, n, |x: $t, y: $t| x.wrapping_mul(y)),
                And => map2(a, b, o, n, |x: $t, y: $t| x & y),
                Or => map2(a, b, o, n, |x: $t, y: $t| x | y),
                Xor => map2(a, b, o, n, |x: $t, y: $t| x ^ y),
                Maximum => map2(a, b, o, n, |x: $t, y: $t| x.max(y)),
                Minimum => map2(a, b, o, n, |x: $t, y: $t| x.min(y)),
                _ => return None,
            }
        };
    }
    Some(match ty {
        ElementType::F32 => float!(f32, max_f32, min_f32),
        ElementType::F64 => float!(f64, max_f64, min_f64),
        ElementType::S8 => int!(i8),
        ElementType::S16 => int!(i16),
        ElementType::S32 => int!(i32),
        ElementType::S64 => int!(i64),
        ElementType::U8 => int!(u8),
        ElementType::U16 => int!(u16),
        ElementType::U32 => int!(u32),
        ElementType::U64 => int!(u64),
        ElementType::Pred => match op {
            And | Minimum | Multiply => map2(a, b, o, n, |x: u8, y: u8| (x != 0 && y != 0) as u8),
            Or | Maximum | Add => map2(a, b, o, n, |x: u8, y: u8| (x != 0 || y != 0) as u8),
            Xor => map2(a, b, o, n, |x: u8, y: u8| ((x != 0) ^ (y != 0)) as u8),
            _ => return None,
        },
        _ => return None,
    })
}

fn unary(op: Opcode, ty: ElementType, a: usize, o: usize, n: usize) -> Option<Kernel> {
    use Opcode::*;
    macro_rules! int {
        ($t:ty) => {
            match op {
                Negate => map1(a, o, n, |x: $t| x.wrapping_neg()),
                Not => map1(a, o, n, |x: $t| !x),
                _ => return None,
            }
        };
    }
    Some(match (ty, op) {
        (ElementType::F32, Negate) => map1(a, o, n, |x: f32| -x),
        (ElementType::F32, Abs) => map1(a, o, n, f32::abs),
        (ElementType::F64, Negate) => map1(a, o, n, |x: f64| -x),
        (ElementType::F64, Abs) => map1(a, o, n, f64::abs),
        (ElementType::Pred, Not) => map1(a, o, n, |x: u8| (x == 0) as u8),
        (ElementType::S8, _) => int!(i8),
        (ElementType::S16, _) => int!(i16),
        (ElementType::S32, _) => int!(i32),
        (ElementType::S64, _) => int!(i64),
        (ElementType::U8, _) => int!(u8),
        (ElementType::U16, _) => int!(u16),
        (ElementType::U32, _) => int!(u32),
        (ElementType::U64, _) => int!(u64),
        _ => return None,
    })
}

fn compare(
    instr: &HloInstruction,
    ty: ElementType,
    a: usize,
    b: usize,
    o: usize,
    n: usize,
) -> Option<Kernel> {
    let (dir, ct) = comparison(instr, ty).ok()?;
    macro_rules! by {
        ($t:ty, $key:expr) => {{
            let key = $key;
            map2(a, b, o, n, move |x: $t, y: $t| {
                dir.holds(key(x).partial_cmp(&key(y))) as u8
            })
        }};
    }
    let w = ty.bit_width();
    Some(match (ct, ty) {
        (CompareType::Float, ElementType::F32) => by!(f32, |x: f32| x),
        (CompareType::Float, ElementType::F64) => by!(f64, |x: f64| x),
        (CompareType::Float, _) => return None,
        (CompareType::TotalOrder, _) => match w {
            8 => by!(u8, |x: u8| total_order_key(x as u64, 8)),
            16 => by!(u16, |x: u16| total_order_key(x as u64, 16)),
            32 => by!(u32, |x: u32| total_order_key(x as u64, 32)),
            64 => by!(u64, |x: u64| total_order_key(x, 64)),
            _ => return None,
        },
        (_, ElementType::Pred) => by!(u8, |x: u8| x != 0),
        (CompareType::Signed, _) if ty.is_integer() => match w {
            8 => by!(u8, |x: u8| x as i8 as i64),
            16 => by!(u16, |x: u16| x as i16 as i64),
            32 => by!(u32, |x: u32| x as i32 as i64),
            64 => by!(u64, |x: u64| x as i64),
            _ => return None,
        },
        (CompareType::Unsigned, _) if ty.is_integer() => match w {
            8 => by!(u8, |x: u8| x),
            16 => by!(u16, |x: u16| x),
            32 => by!(u32, |x: u32| x),
            64 => by!(u64, |x: u64| x),
            _ => return None,
        },
        _ => return None,
    })
}
