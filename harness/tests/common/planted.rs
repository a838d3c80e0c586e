//! What the planted-bug tests share: sweep an operation until a backend with a planted bug
//! fails, minimize the case, and check that the minimized case still shows the bug while fast
//! (the same backend without it) passes.

use conformance::check::{check, Verdict};
use conformance::executor::Stage;
use conformance::generate::{case, plan, Filters, GeneratorConfig};
use conformance::minimize::{minimize, Target};
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::{Backend, HloModule, Literal};

/// Sweeps `op_id` (s32 and f32, sweep seed `seed`, at most 400 cases) against `planted` until
/// it fails, then returns the minimized case. Panics when the bug is never found or the
/// minimized case does not isolate it.
pub fn found_and_minimized(
    op_id: &str,
    seed: u64,
    planted: &dyn Backend,
) -> (HloModule, Vec<Literal>) {
    let catalog = Catalog::builtin().unwrap();
    let op = catalog.op(op_id).unwrap();
    let filters = Filters {
        ops: vec![op_id.into()],
        dtypes: vec!["s32".into(), "f32".into()],
    };
    let combos = plan(&catalog, &filters).unwrap();
    let config = GeneratorConfig::default();
    let backends: [&dyn Backend; 2] = [&Reference, planted];
    for index in 0..400u64 {
        let c = case(&catalog, &combos, &config, seed, index).unwrap();
        let outcome = check(op, &c.module, &c.args, &backends, &Stage::default());
        let o = &outcome.outcomes[0];
        if o.verdict != Verdict::Fail {
            continue;
        }
        let target = Target {
            backend: 1,
            verdict: Verdict::Fail,
            class: o
                .comparison
                .as_ref()
                .and_then(|c| c.classes.keys().next().copied()),
        };
        let m = minimize(op, &c.module, &c.args, &backends, target).unwrap();
        // Still the planted bug, and the fixed backend agrees on the minimized case.
        let again = check(op, &m.module, &m.args, &backends, &Stage::default());
        assert_eq!(again.outcomes[0].verdict, Verdict::Fail, "{}", m.module);
        let fixed: [&dyn Backend; 2] = [&Reference, &Fast::new()];
        let fine = check(op, &m.module, &m.args, &fixed, &Stage::default());
        assert_eq!(fine.outcomes[0].verdict, Verdict::Pass, "{}", m.module);
        return (m.module, m.args);
    }
    panic!("the planted bug in {op_id} was not found in 400 cases");
}
