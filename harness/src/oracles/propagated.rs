//! Propagated error bounds: the tolerance model that judges a backend running whole NNEF
//! operations (tract) against our lowering of them, at NNEF-tensor granularity. Every top-level
//! tensor of a graph is lowered together and evaluated by the reference instruction by
//! instruction; each instruction's catalog budget (ULPs, or the summation bound of a contraction
//! or reduction) is propagated forward as a per-element absolute error bound (first order: sums
//! add, products scale, monotone functions map interval ends, data movement moves the bounds, a
//! comparison whose operands are within their bounds of each other may go either way). A
//! backend's tensor within its bound is explained by accumulated rounding; an instruction inside
//! one operation's lowering that rounds (not the one computing the operation's result) is allowed
//! one ULP more than its budget, since such a backend need not round where the lowering does.
//! Used by [`crate::nnef_tract`].

use std::collections::BTreeMap;

use conformance_nnef::container::GraphSource;
use conformance_nnef::graph::Graph;
use conformance_nnef::{arguments, lower};
use conformance_spec::catalog::Catalog;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{AttrValue, HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::Backend;

use crate::compare::{compare, Allowance, Budget, Comparison};

/// Per element of an instruction's value, how far a backend may be from the reference's value
/// when every instruction before it (in the lowering) is within its own budget.
#[derive(Clone, Debug)]
pub(crate) enum Bound {
    /// Bit-exact or within the instruction's own budget alone.
    Exact,
    /// No rule propagates bounds through this instruction (named): judged by its budget alone.
    Unknown(String),
    /// Absolute bounds (infinite: the working precision does not determine the element), and
    /// whether each goes beyond the instruction's own ULP budget.
    Elements(Vec<f64>, Vec<bool>),
}

impl Bound {
    /// The bounds of `n` elements (0 where exact), or `None` when unknown.
    fn errors(&self, n: usize) -> Option<Vec<f64>> {
        match self {
            Bound::Exact => Some(vec![0.0; n]),
            Bound::Elements(e, _) if e.len() == n => Some(e.clone()),
            _ => None,
        }
    }
}

/// Every top-level tensor of a graph, lowered together and evaluated by the reference instruction
/// by instruction, with each instruction's propagated [`Bound`] and catalog budget.
pub(crate) struct Bounds {
    /// The top-level tensors (not inputs or variables), in body order.
    pub(crate) tensors: Vec<String>,
    /// Each tensor's instruction (index into `values`).
    at: BTreeMap<String, usize>,
    values: Vec<Option<Literal>>,
    bounds: Vec<Bound>,
    budgets: Vec<Budget>,
}

impl Bounds {
    pub(crate) fn new(
        catalog: &Catalog,
        graph: &Graph,
        source: &GraphSource,
        seed: u64,
        reference: &dyn Backend,
        file: &str,
    ) -> Result<Bounds, String> {
        let mut tensors: Vec<String> = Vec::new();
        for op in graph
            .operations
            .iter()
            .filter(|op| !["external", "variable"].contains(&op.name.as_str()))
        {
            for t in op.results.iter().flat_map(|(_, v)| v.tensor_names()) {
                if graph.tensor(t).is_some() && !tensors.iter().any(|x| x == t) {
                    tensors.push(t.to_string());
                }
            }
        }
        let lowered = lower::lower_quantized(graph, &tensors).map_err(|e| e.in_file(file))?;
        let args = arguments::arguments(graph, &lowered.parameters, Some(source), seed);
        let args = args.map_err(|e| e.to_string())?;
        let module = lowered.module;
        let entry = module.entry_computation();
        let roots = match tensors.len() {
            1 => vec![entry.root],
            _ => entry.root_instruction().operands.clone(),
        };
        let at: BTreeMap<String, usize> = tensors.iter().cloned().zip(roots).collect();
        let called = crate::minimize::called_computations(&module);
        let fast = crate::backends::by_name("fast")?;
        let n = entry.instructions.len();
        let mut values: Vec<Option<Literal>> = vec![None; n];
        let (mut bounds, mut budgets) = (vec![Bound::Exact; n], vec![Budget::default(); n]);
        for (i, instr) in entry.instructions.iter().enumerate() {
            if tensors.len() > 1 && i == entry.root {
                continue;
            }
            let op = crate::graph::entry_of(catalog, &module, instr);
            if let (Some(op), Some(a)) = (op, instr.shape.as_array()) {
                budgets[i] = crate::check::budget(op, a.element_type);
            }
            let operands: Option<Vec<Literal>> =
                instr.operands.iter().map(|&o| values[o].clone()).collect();
            let missing = || {
                format!(
                    "instruction `{}` has an operand without a value",
                    instr.name
                )
            };
            let operands = operands.ok_or_else(missing)?;
            let value = match instr.opcode {
                Opcode::Parameter => args
                    .get(instr.parameter_number.unwrap_or(0) as usize)
                    .cloned(),
                Opcode::Constant => instr.literal.clone(),
                _ => {
                    let (m, a) = crate::minimize::single_op_module_of(instr, &operands, &called);
                    let v = reference.execute(&m, &a);
                    Some(v.map_err(|e| format!("the reference on `{}`: {e}", instr.name))?)
                }
            };
            let value = value.ok_or_else(missing)?;
            // An instruction inside one operation's lowering may round differently (or not at
            // all) in tract: one ULP more than its budget.
            let inside = !at.values().any(|&r| r == i) && rounds(instr.opcode);
            let step = Step {
                instr,
                module: &module,
                called: &called,
                ulps: budgets[i].ulps + u64::from(inside),
                accumulates: op.is_some_and(|op| op.tolerance.accumulation.is_some()),
            };
            let operand_bounds: Vec<&Bound> = instr.operands.iter().map(|&o| &bounds[o]).collect();
            bounds[i] = step.bound(&operands, &operand_bounds, &value, fast.as_ref());
            values[i] = Some(value);
        }
        Ok(Bounds {
            tensors,
            at,
            values,
            bounds,
            budgets,
        })
    }

    /// tract's value `got` of top-level tensor `tensor` compared with the reference's within its
    /// propagated bound; `None` when the tensor is not known.
    pub(crate) fn judge(&self, tensor: &str, got: &Literal) -> Option<Comparison> {
        let &i = self.at.get(tensor)?;
        let expected = self.values.get(i)?.as_ref()?;
        let allowances: Vec<Vec<Allowance>> = match &self.bounds[i] {
            Bound::Elements(e, loose) => vec![e
                .iter()
                .zip(loose)
                .map(|(&e, &loose)| match () {
                    _ if !e.is_finite() => Allowance::Masked,
                    _ if loose => Allowance::within(e),
                    _ => Allowance::Budget,
                })
                .collect()],
            _ => vec![],
        };
        Some(compare(expected, got, &self.budgets[i], &allowances))
    }

    /// Names the instructions bounds could not propagate through, if any.
    pub(crate) fn unbounded_note(&self) -> Option<String> {
        let mut why: Vec<&str> = Vec::new();
        for b in &self.bounds {
            if let Bound::Unknown(w) = b {
                if !why.contains(&w.as_str()) {
                    why.push(w);
                }
            }
        }
        (!why.is_empty()).then(|| format!("judged by the budget alone past {}", why.join("; ")))
    }
}

/// True for an opcode whose float result is rounded (not data movement, selection or sign).
fn rounds(op: Opcode) -> bool {
    let exact = "broadcast reshape transpose slice concatenate pad reverse copy bitcast gather \
        dynamic-slice maximum minimum negate abs and or xor not clamp select compare floor ceil \
        round-nearest-even round-nearest-afz sign convert parameter constant iota tuple \
        get-tuple-element";
    !exact.split_whitespace().any(|e| e == op.name())
}

/// The values of a literal as `f64` (integers and predicates too), logical row-major.
fn numbers(l: &Literal) -> Option<Vec<f64>> {
    let a = l.as_array()?;
    a.to_f64s()
        .or_else(|| Some(a.to_i128s()?.into_iter().map(|x| x as f64).collect()))
}

/// One ULP of `ty` at `x` (the spacing above |x|).
fn ulp(ty: ElementType, x: f64) -> f64 {
    let y = x.abs() as f32;
    match ty {
        ElementType::F32 if y.is_finite() => (f32::from_bits(y.to_bits() + 1) - y) as f64,
        ElementType::F32 => f64::INFINITY,
        t => t
            .float_format()
            .map_or(0.0, |f| 2.0 * f.unit_roundoff() * x.abs()),
    }
}

/// NaN (an undetermined bound) as infinity.
fn finite_or_inf(d: f64) -> f64 {
    if d.is_nan() {
        f64::INFINITY
    } else {
        d
    }
}

/// A literal of the shape of `like` holding bounds `e` (rounded up; integers and predicates:
/// nonzero where positive).
fn bound_literal(like: &Literal, e: &[f64]) -> Option<Literal> {
    let shape = like.as_array()?.shape().clone();
    let lit = if shape.element_type.float_format().is_some() {
        let up: Vec<f64> = e.iter().map(|x| x * (1.0 + 1e-6)).collect();
        ArrayLiteral::from_f64s(shape, &up)
    } else {
        let v: Vec<i128> = e
            .iter()
            .map(|&x| x.max(0.0).ceil().min(1e9) as i128)
            .collect();
        ArrayLiteral::from_i128s(shape, &v)
    };
    lit.ok().map(Literal::Array)
}

/// One instruction of the lowering, with what its bound depends on.
struct Step<'a> {
    instr: &'a HloInstruction,
    module: &'a HloModule,
    called: &'a [HloComputation],
    /// Its own budget in ULPs.
    ulps: u64,
    /// Its result is a sum (catalog `tolerance.accumulation`): the summation bound applies.
    accumulates: bool,
}

impl Step<'_> {
    /// The bound of the instruction's value `value` from its operands' values and bounds.
    /// Movements and contractions of bounds run on `fast` (sums of nonnegative terms; widened by
    /// 1%).
    fn bound(
        &self,
        operands: &[Literal],
        bounds: &[&Bound],
        value: &Literal,
        fast: &dyn Backend,
    ) -> Bound {
        use Opcode::*;
        let instr = self.instr;
        let unknown = |why: &str| {
            Bound::Unknown(format!("`{}` ({}): {why}", instr.name, instr.opcode.name()))
        };
        if matches!(instr.opcode, Parameter | Constant | Iota) {
            return Bound::Exact;
        }
        if let Some(Bound::Unknown(w)) = bounds.iter().find(|b| matches!(b, Bound::Unknown(_))) {
            return Bound::Unknown(w.clone());
        }
        let all_exact = bounds.iter().all(|b| matches!(b, Bound::Exact));
        let (Some(v), Some(vals)) = (value.as_array(), numbers(value)) else {
            // A tuple (variadic reduce): exact when its operands are.
            return if all_exact {
                Bound::Exact
            } else {
                unknown("a tuple")
            };
        };
        let (ty, n) = (v.element_type(), vals.len());
        let args: Option<Vec<Vec<f64>>> = operands.iter().map(numbers).collect();
        let errs: Option<Vec<Vec<f64>>> = operands
            .iter()
            .zip(bounds)
            .map(|(o, b)| b.errors(numbers(o)?.len()))
            .collect();
        let (Some(args), Some(errs)) = (args, errs) else {
            return unknown("operand bounds of another shape");
        };
        // The bound of each element the instruction's inputs carry to it.
        let propagated =
            match instr.opcode {
                _ if all_exact => Some(vec![0.0; n]),
                GetTupleElement => None,
                Broadcast | Reshape | Transpose | Slice | Concatenate | Pad | Reverse | Copy
                | Bitcast | Gather | DynamicSlice | Reduce | ReduceWindow => {
                    if !self.reducer_propagates() {
                        return unknown("a reducer other than add, maximum, minimum or or");
                    }
                    // The same movement or reduction of the operands' bounds (index operands keep
                    // their values).
                    let lits = operands.iter().zip(&errs).map(|(o, e)| {
                        match o.as_array()?.element_type() {
                            t if t != ty && t.is_integer() => Some(o.clone()),
                            _ => bound_literal(o, e),
                        }
                    });
                    self.apply(lits.collect(), fast)
                }
                Convolution | Dot => {
                    // |x̃·w̃ − x·w| ≤ e_x·(|w| + e_w) + |x|·e_w, evaluated as the same contraction.
                    let (x, w) = (&operands[0], &operands[1]);
                    let abs_plus = |v: &[f64], e: &[f64]| -> Vec<f64> {
                        v.iter().zip(e).map(|(v, e)| v.abs() + e).collect()
                    };
                    let x_term = [
                        bound_literal(x, &errs[0]),
                        bound_literal(w, &abs_plus(&args[1], &errs[1])),
                    ];
                    let zeros = vec![0.0; args[0].len()];
                    let w_term = [
                        bound_literal(x, &abs_plus(&args[0], &zeros)),
                        bound_literal(w, &errs[1]),
                    ];
                    let x_term = self.apply(x_term.into_iter().collect(), fast);
                    let w_term = self.apply(w_term.into_iter().collect(), fast);
                    x_term
                        .zip(w_term)
                        .map(|(a, b)| a.iter().zip(&b).map(|(a, b)| a + b).collect())
                }
                op => elementwise(op, &args, &errs, n),
            };
        let Some(propagated) = propagated else {
            return unknown("no rule for its bound");
        };
        let accumulated = self.accumulated(operands, ty, n);
        let float = ty.float_format().is_some();
        if propagated.iter().chain(&accumulated).all(|&e| e == 0.0) && (self.ulps == 0 || !float) {
            return Bound::Exact;
        }
        let (mut errors, mut loose) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for k in 0..n {
            let (p, a) = (propagated[k], accumulated[k]);
            let spacing = if float { ulp(ty, vals[k]) } else { 0.0 };
            // The exact result of perturbed operands rounds once more.
            let own = (self.ulps + u64::from(p > 0.0 || a > 0.0)) as f64 * spacing;
            errors.push(finite_or_inf(p + a + own));
            loose.push(p != 0.0 || a != 0.0);
        }
        Bound::Elements(errors, loose)
    }

    /// For a reduction, whether bounds reduce as values do (add, maximum, minimum, or).
    fn reducer_propagates(&self) -> bool {
        let to_apply = self.instr.attributes.iter().find(|a| a.name == "to_apply");
        match to_apply.map(|a| &a.value) {
            Some(AttrValue::Computation(c)) => self.module.computation(c).is_some_and(|c| {
                let op = c.root_instruction().opcode;
                matches!(
                    op,
                    Opcode::Add | Opcode::Maximum | Opcode::Minimum | Opcode::Or
                )
            }),
            _ => true,
        }
    }

    /// Per element of a sum, the summation bound γ(n)·Σ|terms| (zero for other instructions).
    fn accumulated(&self, operands: &[Literal], ty: ElementType, n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n];
        if !self.accumulates {
            return out;
        }
        let (m, a) = crate::minimize::single_op_module_of(self.instr, operands, self.called);
        let u = ty.float_format().map_or(0.0, |f| f.unit_roundoff());
        if let Ok(Some(leaves)) = conformance_reference::accumulation_bounds(&m, &a) {
            for (acc, b) in out.iter_mut().zip(leaves.first().into_iter().flatten()) {
                let nu = b.terms as f64 * u;
                *acc = if nu < 1.0 {
                    nu / (1.0 - nu) * b.abs_sum + b.slack
                } else {
                    f64::INFINITY
                };
                *acc = finite_or_inf(*acc);
            }
        }
        out
    }

    /// Runs the instruction on `fast` with operands `lits`: its values, widened by 1%.
    fn apply(&self, lits: Option<Vec<Literal>>, fast: &dyn Backend) -> Option<Vec<f64>> {
        let (m, a) = crate::minimize::single_op_module_of(self.instr, &lits?, self.called);
        let out = numbers(&fast.execute(&m, &a).ok()?)?;
        Some(
            out.into_iter()
                .map(|x| finite_or_inf(x.abs() * 1.01))
                .collect(),
        )
    }
}

/// The bound an element-wise instruction carries from operand values `x` and bounds `e`;
/// `None` for an opcode without a rule.
fn elementwise(op: Opcode, x: &[Vec<f64>], e: &[Vec<f64>], n: usize) -> Option<Vec<f64>> {
    use Opcode::*;
    let at = |v: &[f64], k: usize| {
        if v.len() == 1 {
            v[0]
        } else {
            v.get(k).copied().unwrap_or(f64::NAN)
        }
    };
    // The largest change of a monotone function over [x − e, x + e].
    let monotone = |f: fn(f64) -> f64, a: f64, ea: f64| -> f64 {
        let (lo, hi, mid) = (f(a - ea), f(a + ea), f(a));
        if ea == 0.0 {
            0.0
        } else {
            finite_or_inf((hi - mid).abs().max((mid - lo).abs()))
        }
    };
    let unary: Option<fn(f64) -> f64> = match op {
        Exponential => Some(f64::exp),
        ExponentialMinusOne => Some(f64::exp_m1),
        Log => Some(f64::ln),
        LogPlusOne => Some(f64::ln_1p),
        Sqrt => Some(f64::sqrt),
        Rsqrt => Some(|x| 1.0 / x.sqrt()),
        Tanh => Some(f64::tanh),
        Logistic => Some(|x| 1.0 / (1.0 + (-x).exp())),
        Floor => Some(f64::floor),
        Ceil => Some(f64::ceil),
        RoundNearestEven => Some(f64::round_ties_even),
        RoundNearestAfz => Some(f64::round),
        Sign => Some(|x| if x == 0.0 { 0.0 } else { x.signum() }),
        Erf => Some(libm::erf),
        _ => None,
    };
    let operand =
        |i: usize, k: usize| -> Option<(f64, f64)> { Some((at(x.get(i)?, k), at(e.get(i)?, k))) };
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let (a, ea) = operand(0, k)?;
        let (b, eb) = operand(1, k).unwrap_or((0.0, 0.0));
        let r = match op {
            _ if unary.is_some() => monotone(unary?, a, ea),
            Add | Subtract => ea + eb,
            Multiply => b.abs() * ea + a.abs() * eb + ea * eb,
            Divide if b.abs() > eb => (ea + (a / b).abs() * eb) / (b.abs() - eb),
            Divide => f64::INFINITY,
            Maximum | Minimum | Negate | Abs | Copy | And | Or | Xor | Not | Convert => ea.max(eb),
            Clamp => ea.max(eb).max(operand(2, k)?.1),
            Sine | Cosine => ea.min(2.0),
            // tan is increasing between poles: a decreasing pair of ends crosses one.
            Tan if (a - ea).tan() <= a.tan() && a.tan() <= (a + ea).tan() => {
                monotone(f64::tan, a, ea)
            }
            Tan => f64::INFINITY,
            // |∇atan2(y, x)| = (|x|, |y|) / (x² + y²), over the ball of the bounds.
            Atan2 if a.hypot(b) > ea + eb => {
                (b.abs() * ea + a.abs() * eb) / (a.hypot(b) - ea - eb).powi(2)
            }
            Atan2 => std::f64::consts::PI,
            Power => {
                let f = a.powf(b);
                let crosses_zero = a - ea <= 0.0 && 0.0 <= a + ea;
                let corners = [
                    (a - ea, b - eb),
                    (a - ea, b + eb),
                    (a + ea, b - eb),
                    (a + ea, b + eb),
                ];
                let zero = crosses_zero.then_some((0.0, b));
                let d = corners
                    .into_iter()
                    .chain(zero)
                    .map(|(p, q)| (p.powf(q) - f).abs())
                    .fold(0.0, f64::max);
                finite_or_inf(d)
            }
            // A comparison of operands within their bounds of each other may go either way.
            Compare => f64::from(ea + eb > 0.0 && (a - b).abs() <= ea + eb),
            Select => {
                let ((t, et), (f, ef)) = (operand(1, k)?, operand(2, k)?);
                match () {
                    _ if ea > 0.0 => finite_or_inf(et.max(ef) + (t - f).abs()),
                    _ if a != 0.0 => et,
                    _ => ef,
                }
            }
            _ => return None,
        };
        out.push(r);
    }
    Some(out)
}
