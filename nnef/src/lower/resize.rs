//! Up-sampling (NNEF 1.0.5 §4.3.4): `multilinear_upsample(input, factor, method, border)`.
//! (`nearest_upsample`, `nearest_downsample` and `area_downsample` are compounds over `box` and
//! `debox`, lowered through their expansions.)
//!
//! Multilinear interpolation is separable: each spatial dimension (factor `f`, input extent `x`)
//! is interpolated in turn. Output index `i` reads `(1 - u)·input~[j] + u·input~[j + 1]` with
//! - `'asymmetric'`: `j = floor(i / f)`, `u = frac(i / f)`;
//! - `'symmetric'`: `j = floor((i - f₀) / f)`, `u = frac((i - f₀) / f)`, `f₀ = (f - 1) / 2`;
//! - `'aligned'`: `j = floor(i / g)`, `u = frac(i / g)`, `g = (x·f - 1) / (x - 1)`;
//!
//! computed exactly in rationals, and `input~` extended by `border` (`constant`: zero terms
//! vanish; `replicate`: clamped indices; `reflect`, `reflect-even`: mirrored indices). Terms of
//! weight 0 are not taken (so a non-finite neighbour does not leak in through `0·∞`). Each term
//! is a `gather` of static indices along the dimension times a static weight vector.

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{GatherDimensionNumbers, Opcode};

use super::border::Border;
use super::{attrs, fail, At, Lowerer, Rule};
use crate::error::NnefError;
use crate::graph::{DataType, Operation};

pub(super) const RULES: &[(&str, Rule)] = &[("multilinear_upsample", multilinear_upsample)];

/// Interpolation schemes of `method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Asymmetric,
    Symmetric,
    Aligned,
}

/// One interpolation term per output index: the input index read and its weight (`None`: no
/// term).
type Term = Vec<Option<(i64, f64)>>;

/// The two terms of each output index `0..x·f` along one dimension.
fn terms(method: Method, border: Border, x: i64, f: i64) -> (Term, Term) {
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for i in 0..x * f {
        // i / step = num / den, exactly.
        let (num, den) = match method {
            Method::Asymmetric => (i, f),
            Method::Symmetric => (2 * i - f + 1, 2 * f),
            Method::Aligned if x > 1 => (i * (x - 1), x * f - 1),
            Method::Aligned => (0, 1),
        };
        let j = num.div_euclid(den);
        let u = num.rem_euclid(den) as f64 / den as f64;
        first.push(term(border, x, j, 1.0 - u));
        second.push(term(border, x, j + 1, u));
    }
    (first, second)
}

/// The term reading `input~[t]` with weight `w` (none for weight 0 or a zero border value).
fn term(border: Border, x: i64, t: i64, w: f64) -> Option<(i64, f64)> {
    if w == 0.0 {
        return None;
    }
    let t = if (0..x).contains(&t) {
        t
    } else {
        match border {
            Border::Constant | Border::Ignore => return None,
            Border::Replicate => t,
            Border::Reflect if t < 0 => -t,
            Border::Reflect => 2 * (x - 1) - t,
            Border::ReflectEven if t < 0 => -t - 1,
            Border::ReflectEven => 2 * x - 1 - t,
        }
    };
    Some((t.clamp(0, x - 1), w))
}

fn multilinear_upsample(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let mut y = l.input(op, "input", DataType::Scalar)?;
    let d = l.dims(y);
    let factor = attrs::integers(op, "factor")?;
    if d.len() < 3 || factor.len() != d.len() - 2 || factor.iter().any(|&f| f <= 0) {
        return Err(fail(
            op,
            format!("'factor' {factor:?} needs one positive item per spatial dimension of {d:?}"),
        ));
    }
    let method = match attrs::string(op, "method")? {
        "asymmetric" => Method::Asymmetric,
        "symmetric" => Method::Symmetric,
        "aligned" => Method::Aligned,
        m => {
            return Err(fail(
                op,
                format!("method '{m}' is not one of 'asymmetric', 'symmetric', 'aligned'"),
            ))
        }
    };
    let border = Border::read(op, Border::FILLING)?;
    for (k, &f) in factor.iter().enumerate() {
        let axis = k + 2;
        let (first, second) = terms(method, border, d[axis], f);
        let a = l.interpolation_term(op, y, axis, &first)?;
        let b = l.interpolation_term(op, y, axis, &second)?;
        y = match (a, b) {
            (Some(a), Some(b)) => l.b.binary(Opcode::Add, a, b).at(op)?,
            (Some(t), None) | (None, Some(t)) => t,
            (None, None) => {
                let mut dims = l.dims(y);
                dims[axis] *= f;
                l.full(op, ElementType::F32, 0.0, &dims)?
            }
        };
    }
    l.bind(op, "output", y)
}

impl Lowerer<'_> {
    /// `weight[i]·x[..., index[i], ...]` along `axis` (0 where the term is absent), or `None`
    /// when no output index has this term.
    fn interpolation_term(
        &mut self,
        op: &Operation,
        x: usize,
        axis: usize,
        term: &Term,
    ) -> Result<Option<usize>, NnefError> {
        if term.iter().all(Option::is_none) {
            return Ok(None);
        }
        let n = term.len() as i64;
        let index: Vec<f64> = term
            .iter()
            .map(|t| t.map_or(0.0, |(j, _)| j as f64))
            .collect();
        let weight: Vec<f64> = term.iter().map(|t| t.map_or(0.0, |(_, w)| w)).collect();
        let index = self.constant(op, ElementType::S32, &[n], &index)?;
        let xd = self.dims(x);
        let r = xd.len() as i64;
        let a = axis as i64;
        let dn = GatherDimensionNumbers {
            offset_dims: (0..r).filter(|&k| k != a).collect(),
            collapsed_slice_dims: vec![a],
            start_index_map: vec![a],
            index_vector_dim: 1,
        };
        let mut sizes = xd.clone();
        sizes[axis] = 1;
        let taken = self.b.gather(x, index, &dn, &sizes, false).at(op)?;
        let out = self.dims(taken);
        let w = self.constant(op, ElementType::F32, &[n], &weight)?;
        let w = self.b.broadcast(w, &out, &[a]).at(op)?;
        let product = self.b.binary(Opcode::Multiply, taken, w).at(op)?;
        if term.iter().all(Option::is_some) {
            return Ok(Some(product));
        }
        let present: Vec<f64> = term
            .iter()
            .map(|t| if t.is_some() { 1.0 } else { 0.0 })
            .collect();
        let mask = self.constant(op, ElementType::Pred, &[n], &present)?;
        let mask = self.b.broadcast(mask, &out, &[a]).at(op)?;
        let zero = self.full(op, ElementType::F32, 0.0, &out)?;
        Ok(Some(self.b.select(mask, product, zero).at(op)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(t: &Term) -> Vec<Option<(i64, f64)>> {
        t.clone()
    }

    #[test]
    fn symmetric_factor_two_matches_the_standard_filter() {
        // The standard's 1-D filter [0.25, 0.75, 0.75, 0.25] with stride 2, padding (1, 1):
        // output 0 = 0.75·in[0] (+ 0.25·in[-1] = 0 for 'constant'), output 1 = 0.75·in[0] + 0.25·in[1].
        let (a, b) = terms(Method::Symmetric, Border::Constant, 3, 2);
        assert_eq!(
            weights(&a)[..4],
            [None, Some((0, 0.75)), Some((0, 0.25)), Some((1, 0.75))]
        );
        assert_eq!(
            weights(&b)[..4],
            [
                Some((0, 0.75)),
                Some((1, 0.25)),
                Some((1, 0.75)),
                Some((2, 0.25))
            ]
        );
        // 'replicate' clamps index -1 to 0.
        let (a, _) = terms(Method::Symmetric, Border::Replicate, 3, 2);
        assert_eq!(a[0], Some((0, 0.25)));
    }

    #[test]
    fn asymmetric_and_aligned_weights() {
        let (a, b) = terms(Method::Asymmetric, Border::Constant, 2, 2);
        assert_eq!(
            a,
            vec![
                Some((0, 1.0)),
                Some((0, 0.5)),
                Some((1, 1.0)),
                Some((1, 0.5))
            ]
        );
        assert_eq!(b, vec![None, Some((1, 0.5)), None, None]);
        // aligned, x = 2, f = 2: g = 3, i / g = 0, 1/3, 2/3, 1.
        let (a, b) = terms(Method::Aligned, Border::Replicate, 2, 2);
        assert_eq!(a[3], Some((1, 1.0)));
        assert_eq!(b[1], Some((1, 1.0 / 3.0)));
        assert_eq!(term(Border::Reflect, 3, -1, 0.5), Some((1, 0.5)));
        assert_eq!(term(Border::ReflectEven, 3, 3, 0.5), Some((2, 0.5)));
    }
}
