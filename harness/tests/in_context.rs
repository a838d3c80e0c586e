//! A compiler may evaluate a branch, a callee or a loop body differently in context than alone
//! (XLA's `exp` inside a `conditional` differs by 1 ULP from the branch compiled alone): such a
//! value is right when the computation's instructions explain it within their budgets, and wrong
//! otherwise. The backend here is fast with its `exp` results nudged by `ulps` whenever the
//! module it runs has a control-flow root (in context); computations run alone are fast's own.

use conformance::check::Verdict;
use conformance::executor::Stage;
use conformance::graph::check_operation;
use conformance_fast::Fast;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{parse_module, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::{Backend, BackendError, Capabilities};

struct InContext {
    ulps: u128,
}

impl Backend for InContext {
    fn name(&self) -> &str {
        "in-context"
    }
    fn capabilities(&self) -> Capabilities {
        Fast::new().capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        let out = Fast::new().execute(module, args)?;
        let root = module.entry_computation().root_instruction();
        if !matches!(
            root.opcode,
            Opcode::Conditional | Opcode::Call | Opcode::While
        ) {
            return Ok(out);
        }
        // The result of an exp-rooted computation, nudged (finite positive f32 only).
        Ok(match out {
            Literal::Array(a) => {
                let mut a: ArrayLiteral = a;
                let dims = a.dimensions().to_vec();
                conformance_spec::index::for_each_index(&dims, |i| {
                    let b = a.get_bits(i);
                    if b != 0 && b < 0x7f80_0000 {
                        a.set_bits(i, b + self.ulps);
                    }
                });
                Literal::Array(a)
            }
            other => other,
        })
    }
}

const HLO: &str = "HloModule m
b0 {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
b1 {
  x = f32[4] parameter(0)
  ROOT e = f32[4] exponential(x)
}
callee {
  x = f32[4] parameter(0)
  ROOT e = f32[4] exponential(x)
}
ENTRY main {
  i = s32[] parameter(0)
  x = f32[4] parameter(1)
  ROOT c = f32[4] conditional(i, x, x), branch_computations={b0, b1}
}
";

fn verdict(hlo: &str, ulps: u128, op: &str, args: &[Literal]) -> (Verdict, String) {
    let catalog = Catalog::builtin().unwrap();
    let module = parse_module(hlo).unwrap();
    let entry = catalog.op(op).unwrap();
    let reference = conformance_reference::Reference;
    let backend = InContext { ulps };
    let (outcome, fault) = check_operation(
        &catalog,
        entry,
        &module,
        args,
        &[&reference, &backend],
        &Stage::default(),
    );
    let o = &outcome.outcomes[0];
    (o.verdict, format!("{o:?} {fault:?}"))
}

fn args(index: i32) -> Vec<Literal> {
    let x = ArrayLiteral::from_f64s(
        conformance_spec::ArrayShape::new(conformance_spec::ElementType::F32, vec![4]),
        &[0.5, 1.5, 2.25, -3.0],
    )
    .unwrap();
    vec![
        Literal::Array(ArrayLiteral::scalar_bits(
            conformance_spec::ElementType::S32,
            index as u32 as u128,
        )),
        Literal::Array(x),
    ]
}

#[test]
fn a_branch_evaluated_differently_in_context_is_judged_by_its_instructions() {
    // 1 ULP from fast's exp, itself within exp's budget of the exact value: explained, unless
    // both add up past the budget; 0 ULP: the branch alone. Fast's exp is correctly rounded on
    // these inputs, so 1 ULP off stays within exp's 1-ULP budget.
    let (v, why) = verdict(HLO, 0, "conditional", &args(1));
    assert_eq!(v, Verdict::Pass, "{why}");
    let (v, why) = verdict(HLO, 1, "conditional", &args(1));
    assert_eq!(v, Verdict::Pass, "{why}");
    // Far off: not explained, and the message says which branch it should have been.
    let (v, why) = verdict(HLO, 1000, "conditional", &args(1));
    assert_eq!(v, Verdict::Fail, "{why}");
    let call = HLO.replace(
        "ROOT c = f32[4] conditional(i, x, x), branch_computations={b0, b1}",
        "ROOT c = f32[4] call(x), to_apply=callee",
    );
    let (v, why) = verdict(&call, 1, "call", &args(1));
    assert_eq!(v, Verdict::Pass, "{why}");
    let (v, why) = verdict(&call, 1000, "call", &args(1));
    assert_eq!(v, Verdict::Fail, "{why}");
}
