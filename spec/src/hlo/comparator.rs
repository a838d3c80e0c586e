//! Recognition of `sort` comparators (seed 004, Sort): the `to_apply` computations that compare
//! one operand's elements — or several, lexicographically — so that a backend can sort by keys
//! (radix sort, typed comparisons) instead of evaluating the computation per comparison.
//!
//! A comparator of a sort over `n` operands takes `2n` scalar parameters: parameter `2i` is operand
//! `i`'s element on the left-hand side, `2i + 1` on the right-hand side; it returns `pred[]`
//! "lhs < rhs". [`recognize`] accepts:
//!
//! - a key: `compare(a, b), direction=LT|GT` where `{a, b}` are the parameters `2k` and `2k + 1`
//!   (either order; `compare(p1, p0), direction=LT` sorts descending), with `type=` absent, or
//!   `TOTALORDER` / `FLOAT` on floats, `SIGNED` on signed integers, `UNSIGNED` on unsigned integers
//!   and `pred`; each side may be the parameter itself or its **canonicalization** as JAX emits it
//!   for floating-point sorts (`jnp.sort`, `jnp.argsort`, `lax.sort`):
//!   `select(compare(p, p), direction=NE), N, select(compare(p, Z), direction=EQ), Z, p))`
//!   with scalar constants `N` (JAX: `nan`) and `Z` (JAX: `0`), which sends every NaN to `N` and
//!   both zeros to `Z` before comparing (the two selects may also come in the other nesting);
//! - a lexicographic chain: `or(KEY, and(compare(a, b), direction=EQ), REST))` where `KEY` is a key
//!   as above, the `EQ` compare reads the same two values with the same comparison type, and `REST`
//!   is a key or another chain (what `lax.sort(..., num_keys=m)` and `jnp.lexsort` emit). `or` and
//!   `and` operands may come in either order.
//!
//! Anything else gives `None`: the caller evaluates the computation.

use super::ir::{HloComputation, HloInstruction, Opcode};
use crate::element_type::{ElementType, FloatClass, FloatFormat};
use crate::literal::Literal;
use crate::shape::Shape;
use std::cmp::Ordering;

/// How a key's values are ordered (the `type=` of its `compare`, seed 004, element-wise comparison
/// operations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyOrder {
    /// A total order: `TOTALORDER` on floats (−NaN < −inf < … < −0 < +0 < … < +inf < +NaN, on the
    /// sign-magnitude bit patterns), or the integer order of a signed, unsigned or `pred` key
    /// (`false < true`).
    Total,
    /// IEEE 754 `<` on floats (`FLOAT`, the default for floating types): −0 and +0 are
    /// equivalent and a NaN compares false against everything — not a strict weak order when NaNs
    /// are present, so a sort may then return any permutation.
    Partial,
}

/// JAX's float canonicalization of a key before comparing: every NaN becomes `nan`, and a value
/// equal (IEEE `==`) to `zero` becomes `zero` (JAX: `nan` = +NaN, `zero` = +0, so −0 and +0 tie
/// and every NaN sorts last under [`KeyOrder::Total`]). Both are raw bit patterns of the key's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Canonicalization {
    pub nan: u64,
    pub zero: u64,
}

/// One key of a recognized comparator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortKey {
    /// The sort operand whose elements are the key (parameters `2·operand` and `2·operand + 1`).
    pub operand: usize,
    /// True when the comparator's "less than" is the key's "greater than".
    pub descending: bool,
    pub order: KeyOrder,
    /// Applied to both sides before comparing (floating-point keys only).
    pub canonical: Option<Canonicalization>,
}

/// A recognized comparator: keys, most significant first (one for `compare(p0, p1)`, several for
/// a lexicographic chain). Equivalent elements (equal in every key) keep their input order in a
/// stable sort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SortKeys {
    pub keys: Vec<SortKey>,
}

/// Recognizes a sort comparator (see the module documentation); `None` when it is not one of the
/// recognized forms. The caller checks that the keys' operands exist and have the parameters'
/// element types.
pub fn recognize(comp: &HloComputation) -> Option<SortKeys> {
    if comp.root >= comp.instructions.len() {
        return None;
    }
    let params = comp.parameters();
    if params.is_empty() || !params.len().is_multiple_of(2) {
        return None;
    }
    for (i, p) in params.iter().enumerate() {
        match &p.shape {
            Shape::Array(a) if a.rank() == 0 && p.parameter_number == Some(i as i64) => {}
            _ => return None,
        }
    }
    let keys = chain(comp, comp.root)?;
    Some(SortKeys { keys })
}

impl SortKeys {
    /// The comparator's verdict "lhs < rhs" as an ordering of two elements given as one
    /// `(element type, bits)` per operand on each side: the first key that orders them decides.
    /// `None` when a [`KeyOrder::Partial`] key meets a NaN (the comparator then says "not less"
    /// both ways) or an element type has no key order (complex).
    pub fn compare(
        &self,
        lhs: &[(ElementType, u128)],
        rhs: &[(ElementType, u128)],
    ) -> Option<Ordering> {
        for k in &self.keys {
            let (ty, a) = *lhs.get(k.operand)?;
            let (_, b) = *rhs.get(k.operand)?;
            match k.compare(ty, a, b)? {
                Ordering::Equal => continue,
                o => return Some(o),
            }
        }
        Some(Ordering::Equal)
    }
}

impl SortKey {
    /// The key's ordering of two elements of type `ty` (descending applied). `None` when a
    /// [`KeyOrder::Partial`] key meets a NaN, or `ty` has no order (complex).
    pub fn compare(&self, ty: ElementType, a: u128, b: u128) -> Option<Ordering> {
        if self.order == KeyOrder::Partial && ty.is_float() {
            let f = ty.float_format()?;
            let (a, b) = (
                self.canonicalize(f, a as u64),
                self.canonicalize(f, b as u64),
            );
            if f.classify(a) == FloatClass::Nan || f.classify(b) == FloatClass::Nan {
                return None;
            }
        }
        let map = KeyMap::new(*self, ty)?;
        Some(map.apply(a as u64).cmp(&map.apply(b as u64)))
    }

    fn canonicalize(&self, f: FloatFormat, bits: u64) -> u64 {
        match self.canonical {
            None => bits,
            Some(c) => canonicalize(f, c, bits),
        }
    }
}

/// `c` applied to `bits` of format `f`: NaN → `c.nan`; IEEE-equal to `c.zero` → `c.zero`.
fn canonicalize(f: FloatFormat, c: Canonicalization, bits: u64) -> u64 {
    let class = f.classify(bits);
    if class == FloatClass::Nan {
        c.nan
    } else if bits == c.zero
        || (class == FloatClass::Zero && f.classify(c.zero) == FloatClass::Zero)
    {
        c.zero
    } else {
        bits
    }
}

/// A key's order as unsigned integers: [`KeyMap::apply`] maps an element's bits to a `width`-bit
/// unsigned integer whose order is the key's order (descending included), so that sorting by it
/// (stably) is sorting by the key. For a [`KeyOrder::Partial`] float key, −0 maps with +0 and
/// every NaN above +inf (the comparator does not order NaNs; this is one deterministic choice).
///
/// Integers and total-order floats without canonicalization map by two XORs (branch-free):
/// `key = bits ^ xor ^ (negative ? neg_xor : 0)`, a bijection that [`KeyMap::invert`] undoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyMap {
    /// Bits of the mapped key (the element type's width; 1 for `pred`).
    pub width: u32,
    mask: u64,
    /// Flipped in every key: the sign bit (signed integers, floats), and all bits when descending.
    xor: u64,
    /// Flipped in addition in the keys of negative floats (the magnitude bits).
    neg_xor: u64,
    /// All bits when descending.
    descending: u64,
    /// Canonicalization, partial order or `pred`: the bits are prepared before the XORs.
    prepare: Option<Prepare>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prepare {
    /// Any non-zero byte is `true`.
    Pred,
    Float {
        format: FloatFormat,
        canonical: Option<Canonicalization>,
        partial: bool,
        /// The bits of +inf in IEEE formats (a magnitude above it is a NaN), 0 in others.
        infinity: u64,
        /// True when `canonical.zero` is a zero (then both zeros map to it).
        zero_is_zero: bool,
    },
}

impl KeyMap {
    /// The map of `key` on elements of `ty`; `None` for complex types.
    pub fn new(key: SortKey, ty: ElementType) -> Option<KeyMap> {
        if ty.is_complex() {
            return None;
        }
        let width = if ty.is_pred() { 1 } else { ty.bit_width() };
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let top = 1u64 << (width - 1);
        let descending = if key.descending { mask } else { 0 };
        let (sign_xor, neg_xor, prepare) = if ty.is_pred() {
            (0, 0, Some(Prepare::Pred))
        } else if ty.is_signed_integer() {
            (top, 0, None)
        } else if ty.is_unsigned_integer() {
            (0, 0, None)
        } else {
            let partial = key.order == KeyOrder::Partial;
            let format = ty.float_format()?;
            let prepare = (key.canonical.is_some() || partial).then_some(Prepare::Float {
                format,
                canonical: key.canonical,
                partial,
                infinity: format.infinity_bits().unwrap_or(0),
                zero_is_zero: key
                    .canonical
                    .is_some_and(|c| format.classify(c.zero) == FloatClass::Zero),
            });
            (top, mask ^ top, prepare)
        };
        Some(KeyMap {
            width,
            mask,
            xor: sign_xor ^ descending,
            neg_xor,
            descending,
            prepare,
        })
    }

    /// The ascending total order of `ty` (seed 004's total order on floats, the integer order on
    /// integers, `false < true`): what `topk` orders by. `None` for complex types.
    pub fn total_order(ty: ElementType) -> Option<KeyMap> {
        KeyMap::new(
            SortKey {
                operand: 0,
                descending: false,
                order: KeyOrder::Total,
                canonical: None,
            },
            ty,
        )
    }

    /// The key of an element's raw bits (low `width` bits read; for `pred` the low byte).
    #[inline]
    pub fn apply(&self, bits: u64) -> u64 {
        let b = match self.prepare {
            None => bits & self.mask,
            Some(p) => match self.prepared(p, bits) {
                Some(b) => b,
                None => return self.mask ^ self.descending, // a NaN of a partial order: last
            },
        };
        let negative = (b >> (self.width - 1)) & 1;
        b ^ self.xor ^ (negative.wrapping_neg() & self.neg_xor)
    }

    /// The bits whose key is `key`, when the map is a bijection (integers other than `pred`,
    /// total-order floats without canonicalization); `None` otherwise.
    #[inline]
    pub fn invert(&self, key: u64) -> Option<u64> {
        if self.prepare.is_some() {
            return None;
        }
        let k = key & self.mask;
        // The key's top bit, descending undone, is clear exactly for negative floats.
        let negative = (((k ^ self.descending) >> (self.width - 1)) & 1) ^ 1;
        Some(k ^ self.xor ^ (negative.wrapping_neg() & self.neg_xor))
    }

    /// The bits after canonicalization and the partial order's merges; `None` for a NaN of a
    /// partial order.
    fn prepared(&self, p: Prepare, bits: u64) -> Option<u64> {
        match p {
            Prepare::Pred => Some((bits & 0xff != 0) as u64),
            Prepare::Float {
                format,
                canonical,
                partial,
                infinity,
                zero_is_zero,
            } => {
                // (NaN, zero) by the magnitude in IEEE formats, else by classification.
                let class = |b: u64| {
                    if infinity != 0 {
                        let magnitude = b & (self.mask >> 1);
                        (magnitude > infinity, magnitude == 0)
                    } else {
                        let c = format.classify(b);
                        (c == FloatClass::Nan, c == FloatClass::Zero)
                    }
                };
                let mut b = bits & self.mask;
                if let Some(c) = canonical {
                    let (nan, zero) = class(b);
                    if nan {
                        b = c.nan & self.mask;
                    } else if b == c.zero || (zero && zero_is_zero) {
                        b = c.zero & self.mask;
                    }
                }
                if partial {
                    match class(b) {
                        (true, _) => return None,
                        (_, true) => b = 0,
                        _ => {}
                    }
                }
                Some(b)
            }
        }
    }
}

/// Seed 004's total order on a float's bits as an unsigned integer: negative patterns are
/// complemented, positive ones get the sign bit set (`top` is the sign bit, `mask` the width).
#[inline]
pub fn total_order_bits(bits: u64, top: u64, mask: u64) -> u64 {
    if bits & top != 0 {
        !bits & mask
    } else {
        bits | top
    }
}

/// The keys of the chain rooted at instruction `i`.
fn chain(comp: &HloComputation, i: usize) -> Option<Vec<SortKey>> {
    let ins = comp.instructions.get(i)?;
    match ins.opcode {
        Opcode::Compare => strict_key(comp, ins).map(|(k, _)| vec![k]),
        Opcode::Or if ins.operands.len() == 2 => {
            for (s, a) in [(0, 1), (1, 0)] {
                let strict = comp.instructions.get(ins.operands[s])?;
                let and = comp.instructions.get(ins.operands[a])?;
                if strict.opcode != Opcode::Compare
                    || and.opcode != Opcode::And
                    || and.operands.len() != 2
                {
                    continue;
                }
                let Some((key, sides)) = strict_key(comp, strict) else {
                    continue;
                };
                for (e, r) in [(0, 1), (1, 0)] {
                    let eq = comp.instructions.get(and.operands[e])?;
                    if is_equality(comp, eq, strict, sides) {
                        if let Some(rest) = chain(comp, and.operands[r]) {
                            let mut keys = vec![key];
                            keys.extend(rest);
                            return Some(keys);
                        }
                    }
                }
            }
            None
        }
        _ => None,
    }
}

/// A strict comparison `compare(a, b), direction=LT|GT` of one operand's two sides: the key and the
/// operand indices of `a` and `b`.
fn strict_key(comp: &HloComputation, ins: &HloInstruction) -> Option<(SortKey, [usize; 2])> {
    if ins.operands.len() != 2 {
        return None;
    }
    let greater = match ins.attr_enum("direction")? {
        "LT" => false,
        "GT" => true,
        _ => return None,
    };
    let (pa, ca, ty) = side(comp, ins.operands[0])?;
    let (pb, cb, tb) = side(comp, ins.operands[1])?;
    if ca != cb || ty != tb || pa / 2 != pb / 2 || pa == pb {
        return None;
    }
    let order = order_of(ins, ty)?;
    if ca.is_some() && !ty.is_float() {
        return None;
    }
    let swapped = pa % 2 == 1;
    Some((
        SortKey {
            operand: pa / 2,
            descending: greater != swapped,
            order,
            canonical: ca,
        },
        [ins.operands[0], ins.operands[1]],
    ))
}

/// True when `eq` is `compare(., .), direction=EQ` of the same two values as `strict`, with the
/// same comparison type.
fn is_equality(
    comp: &HloComputation,
    eq: &HloInstruction,
    strict: &HloInstruction,
    sides: [usize; 2],
) -> bool {
    if eq.opcode != Opcode::Compare || eq.attr_enum("direction") != Some("EQ") {
        return false;
    }
    let same = eq.operands == sides || eq.operands == [sides[1], sides[0]];
    let Some((_, _, ty)) = side(comp, sides[0]) else {
        return false;
    };
    same && order_of(eq, ty).is_some() && order_of(eq, ty) == order_of(strict, ty)
}

/// The key order a compare's `type=` gives on `ty`; `None` when the type does not apply.
fn order_of(ins: &HloInstruction, ty: ElementType) -> Option<KeyOrder> {
    match ins.attribute("type") {
        None => {}
        Some(super::ir::AttrValue::Enum(_)) => {}
        Some(_) => return None,
    }
    match (ins.attr_enum("type"), ty) {
        (None, t) if t.is_float() => Some(KeyOrder::Partial),
        (None, t) if t.is_integer() || t.is_pred() => Some(KeyOrder::Total),
        (Some("FLOAT"), t) if t.is_float() => Some(KeyOrder::Partial),
        (Some("TOTALORDER"), t) if t.is_float() => Some(KeyOrder::Total),
        (Some("SIGNED"), t) if t.is_signed_integer() => Some(KeyOrder::Total),
        (Some("UNSIGNED"), t) if t.is_unsigned_integer() || t.is_pred() => Some(KeyOrder::Total),
        _ => None,
    }
}

/// One side of a key comparison: a scalar parameter, or JAX's canonicalization of one. Returns the
/// parameter number, the canonicalization and the element type.
fn side(comp: &HloComputation, i: usize) -> Option<(usize, Option<Canonicalization>, ElementType)> {
    let ins = comp.instructions.get(i)?;
    if let Some((p, ty)) = parameter(ins) {
        return Some((p, None, ty));
    }
    // select(ne(p, p), N, select(eq(p, Z), Z, p)) or select(eq(p, Z), Z, select(ne(p, p), N, p)).
    let outer = select_parts(ins)?;
    let inner = select_parts(comp.instructions.get(outer.2)?)?;
    let p_ins = comp.instructions.get(inner.2)?;
    let (p, ty) = parameter(p_ins)?;
    let (nan_test, nan, zero_test, zero) = if is_nan_test(comp, outer.0, inner.2) {
        (outer.0, outer.1, inner.0, inner.1)
    } else {
        (inner.0, inner.1, outer.0, outer.1)
    };
    if !is_nan_test(comp, nan_test, inner.2) {
        return None;
    }
    // The equality test compares p with the same constant the select substitutes.
    let zt = comp.instructions.get(zero_test)?;
    if zt.opcode != Opcode::Compare
        || zt.attr_enum("direction") != Some("EQ")
        || !matches!(zt.attr_enum("type"), None | Some("FLOAT"))
        || zt.operands.len() != 2
    {
        return None;
    }
    let other = match zt.operands[..] {
        [a, b] if a == inner.2 => b,
        [a, b] if b == inner.2 => a,
        _ => return None,
    };
    let nan_bits = constant_bits(comp, nan, ty)?;
    let zero_bits = constant_bits(comp, zero, ty)?;
    if constant_bits(comp, other, ty)? != zero_bits || !ty.is_float() {
        return None;
    }
    Some((
        p,
        Some(Canonicalization {
            nan: nan_bits,
            zero: zero_bits,
        }),
        ty,
    ))
}

/// `select(c, t, f)`'s operand indices.
fn select_parts(ins: &HloInstruction) -> Option<(usize, usize, usize)> {
    match ins.operands[..] {
        [c, t, f] if ins.opcode == Opcode::Select => Some((c, t, f)),
        _ => None,
    }
}

/// True when instruction `t` is `compare(p, p), direction=NE` (FLOAT) of instruction `p`.
fn is_nan_test(comp: &HloComputation, t: usize, p: usize) -> bool {
    comp.instructions.get(t).is_some_and(|t| {
        t.opcode == Opcode::Compare
            && t.attr_enum("direction") == Some("NE")
            && matches!(t.attr_enum("type"), None | Some("FLOAT"))
            && t.operands == [p, p]
    })
}

/// A scalar parameter's number and element type.
fn parameter(ins: &HloInstruction) -> Option<(usize, ElementType)> {
    if ins.opcode != Opcode::Parameter {
        return None;
    }
    let a = ins.shape.as_array().filter(|a| a.rank() == 0)?;
    Some((usize::try_from(ins.parameter_number?).ok()?, a.element_type))
}

/// The bits of a scalar constant of type `ty`.
fn constant_bits(comp: &HloComputation, i: usize, ty: ElementType) -> Option<u64> {
    let ins = comp.instructions.get(i)?;
    if ins.opcode != Opcode::Constant {
        return None;
    }
    match ins.literal.as_ref()? {
        Literal::Array(a) if a.shape().rank() == 0 && a.element_type() == ty => {
            Some(a.get_bits_linear(0) as u64)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_module;

    /// JAX's canonicalization of parameter `p` (named `c<p>`).
    fn canon(ty: &str, p: usize) -> String {
        format!(
            "  p{p} = {ty}[] parameter({p})\n  ne{p} = pred[] compare(p{p}, p{p}), direction=NE\n  \
             n{p} = {ty}[] constant(nan)\n  z{p} = {ty}[] constant(0)\n  \
             ez{p} = pred[] compare(p{p}, z{p}), direction=EQ\n  \
             s{p} = {ty}[] select(ez{p}, z{p}, p{p})\n  c{p} = {ty}[] select(ne{p}, n{p}, s{p})\n"
        )
    }

    fn keys(body: &str) -> Option<SortKeys> {
        let text = format!(
            "HloModule m\ncmp {{\n{body}}}\nENTRY e {{\n  x = f32[2] parameter(0)\n  ROOT s = f32[2] sort(x), dimensions={{0}}, to_apply=cmp\n}}\n"
        );
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        recognize(m.computation("cmp").unwrap())
    }

    fn key(operand: usize, descending: bool, order: KeyOrder, canonical: bool) -> SortKey {
        SortKey {
            operand,
            descending,
            order,
            canonical: canonical.then_some(Canonicalization {
                nan: 0x7fc0_0000,
                zero: 0,
            }),
        }
    }

    #[test]
    fn jax_float_sort_and_argsort() {
        let body = format!(
            "{}{}  ROOT lt = pred[] compare(c0, c1), direction=LT, type=TOTALORDER\n",
            canon("f32", 0),
            canon("f32", 1)
        );
        assert_eq!(
            keys(&body).unwrap().keys,
            vec![key(0, false, KeyOrder::Total, true)]
        );
        let body = format!(
            "  q2 = s32[] parameter(2)\n  q3 = s32[] parameter(3)\n{}{}  ROOT lt = pred[] compare(c0, c1), direction=LT, type=TOTALORDER\n",
            canon("f32", 0),
            canon("f32", 1)
        );
        assert_eq!(
            keys(&body).unwrap().keys,
            vec![key(0, false, KeyOrder::Total, true)]
        );
    }

    #[test]
    fn plain_keys_directions_and_types() {
        let plain = |ty: &str, root: &str| {
            keys(&format!(
                "  p0 = {ty}[] parameter(0)\n  p1 = {ty}[] parameter(1)\n  ROOT r = pred[] {root}\n"
            ))
        };
        use KeyOrder::*;
        let one = |k| Some(SortKeys { keys: vec![k] });
        assert_eq!(
            plain("s32", "compare(p0, p1), direction=LT"),
            one(key(0, false, Total, false))
        );
        assert_eq!(
            plain("u32", "compare(p0, p1), direction=GT"),
            one(key(0, true, Total, false))
        );
        assert_eq!(
            plain("f32", "compare(p1, p0), direction=LT"),
            one(key(0, true, Partial, false))
        );
        assert_eq!(
            plain("f32", "compare(p1, p0), direction=GT, type=TOTALORDER"),
            one(key(0, false, Total, false))
        );
        assert_eq!(
            plain("pred", "compare(p0, p1), direction=LT"),
            one(key(0, false, Total, false))
        );
        assert_eq!(
            plain("s32", "compare(p0, p1), direction=LT, type=UNSIGNED"),
            None
        );
        assert_eq!(
            plain("s32", "compare(p0, p1), direction=LT, type=TOTALORDER"),
            None
        );
        assert_eq!(plain("f32", "compare(p0, p1), direction=LE"), None);
        assert_eq!(plain("f32", "compare(p0, p0), direction=LT"), None);
    }

    #[test]
    fn lexicographic_chains() {
        // lax.sort((f32, s32, u8), num_keys=3) as JAX emits it.
        let body = format!(
            "{}{}  lt0 = pred[] compare(c0, c1), direction=LT, type=TOTALORDER\n  \
             eq0 = pred[] compare(c0, c1), direction=EQ, type=TOTALORDER\n  \
             p2 = s32[] parameter(2)\n  p3 = s32[] parameter(3)\n  \
             lt1 = pred[] compare(p2, p3), direction=LT\n  eq1 = pred[] compare(p2, p3), direction=EQ\n  \
             p4 = u8[] parameter(4)\n  p5 = u8[] parameter(5)\n  \
             lt2 = pred[] compare(p5, p4), direction=LT\n  \
             and1 = pred[] and(eq1, lt2)\n  or1 = pred[] or(lt1, and1)\n  \
             and0 = pred[] and(or1, eq0)\n  ROOT or0 = pred[] or(and0, lt0)\n",
            canon("f32", 0),
            canon("f32", 1)
        );
        assert_eq!(
            keys(&body).unwrap().keys,
            vec![
                key(0, false, KeyOrder::Total, true),
                key(1, false, KeyOrder::Total, false),
                key(2, true, KeyOrder::Total, false),
            ]
        );
        // An equality of other values than the key's breaks the chain.
        let bad = body.replace(
            "eq1 = pred[] compare(p2, p3)",
            "eq1 = pred[] compare(p2, p2)",
        );
        assert_eq!(keys(&bad), None);
    }

    #[test]
    fn other_computations_are_not_recognized() {
        let abs = "  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n  a0 = f32[] abs(p0)\n  \
                   a1 = f32[] abs(p1)\n  ROOT r = pred[] compare(a0, a1), direction=LT\n";
        assert_eq!(keys(abs), None);
    }

    #[test]
    fn key_maps_follow_the_orders() {
        let f32_total = KeyMap::total_order(ElementType::F32).unwrap();
        let seq = [
            0xffc0_0000u64,
            0xff80_0000,
            0xbf80_0000,
            0x8000_0000,
            0,
            0x3f80_0000,
            0x7f80_0000,
            0x7fc0_0000,
        ];
        for w in seq.windows(2) {
            assert!(f32_total.apply(w[0]) < f32_total.apply(w[1]), "{w:x?}");
        }
        let jax = KeyMap::new(key(0, false, KeyOrder::Total, true), ElementType::F32).unwrap();
        assert_eq!(jax.apply(0x8000_0000), jax.apply(0));
        assert_eq!(jax.apply(0xffc0_0000), jax.apply(0x7fc0_0001));
        assert!(jax.apply(0x7f80_0000) < jax.apply(0xffc0_0000));
        let s8 = KeyMap::total_order(ElementType::S8).unwrap();
        assert!(s8.apply(0x80) < s8.apply(0xff) && s8.apply(0xff) < s8.apply(0));
        let desc = KeyMap::new(key(0, true, KeyOrder::Total, false), ElementType::U16).unwrap();
        assert!(desc.apply(5) < desc.apply(4));
        let partial = key(0, false, KeyOrder::Partial, false);
        assert_eq!(
            partial.compare(ElementType::F32, 0x8000_0000, 0),
            Some(Ordering::Equal)
        );
        assert_eq!(partial.compare(ElementType::F32, 0x7fc0_0000, 0), None);
        assert_eq!(KeyMap::total_order(ElementType::C64), None);
        assert_eq!(
            f32_total.apply(0xbf80_0000),
            total_order_bits(0xbf80_0000, 1 << 31, 0xffff_ffff)
        );
    }

    #[test]
    fn fast_classification_matches_the_formats() {
        // The canonicalizing map against `canonicalize` (by classification) and the total order.
        let types = [
            ElementType::F8E4M3FN,
            ElementType::F8E5M2,
            ElementType::F8E4M3FNUZ,
            ElementType::F8E5M2FNUZ,
            ElementType::F8E4M3B11FNUZ,
            ElementType::F8E4M3,
            ElementType::F8E3M4,
            ElementType::F16,
            ElementType::Bf16,
        ];
        for ty in types {
            let f = ty.float_format().unwrap();
            let w = ty.bit_width();
            let (top, mask) = (1u64 << (w - 1), (1u64 << w) - 1);
            let c = Canonicalization {
                nan: f.nan_bits(),
                zero: 0,
            };
            let k = SortKey {
                operand: 0,
                descending: false,
                order: KeyOrder::Total,
                canonical: Some(c),
            };
            let m = KeyMap::new(k, ty).unwrap();
            for b in (0..=mask).step_by(if w > 8 { 7 } else { 1 }) {
                let want = total_order_bits(canonicalize(f, c, b), top, mask);
                assert_eq!(m.apply(b), want, "{ty} {b:x}");
            }
        }
    }

    #[test]
    fn bijective_maps_invert() {
        for (ty, desc) in [
            (ElementType::F32, false),
            (ElementType::F32, true),
            (ElementType::S8, true),
            (ElementType::U16, false),
            (ElementType::F64, true),
            (ElementType::Bf16, false),
        ] {
            let m = KeyMap::new(key(0, desc, KeyOrder::Total, false), ty).unwrap();
            let w = ty.bit_width();
            for b in [
                0u64,
                1,
                0x80,
                0x7f,
                0xff,
                0x8000,
                0x7fff_ffff,
                0x8000_0000,
                u64::MAX,
            ] {
                let b = if w == 64 { b } else { b & ((1 << w) - 1) };
                assert_eq!(m.invert(m.apply(b)), Some(b), "{ty} {desc} {b:x}");
            }
        }
        let jax = KeyMap::new(key(0, false, KeyOrder::Total, true), ElementType::F32).unwrap();
        assert_eq!(jax.invert(0), None);
    }
}
