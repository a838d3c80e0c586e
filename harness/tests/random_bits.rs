//! `rng-bit-generator` judged by the harness (docs/random.md): bit for bit against a backend of
//! the reference's layout, by shapes and χ² tests against any other; broken generators of either
//! kind are caught, with the class and the p-values that say why; a Threefry with one rotation
//! constant wrong is found by a sweep and minimized.

#[path = "common/planted.rs"]
mod planted;

use conformance::check::Verdict;
use conformance::compare::DiffClass;
use conformance::executor::Stage;
use conformance::graph::check_operation;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{
    ArrayShape, Backend, BackendError, Capabilities, ElementType, HloModule, Literal,
};

/// Fast's results, altered by `edit`, from a backend declaring `layout`.
struct Altered {
    layout: Option<String>,
    edit: fn(&mut ArrayLiteral, &mut ArrayLiteral),
}

impl Backend for Altered {
    fn name(&self) -> &str {
        "altered"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            rng_bit_layout: self.layout.clone(),
            ..Fast::new().capabilities()
        }
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        match Fast::new().execute(module, args)? {
            Literal::Tuple(mut t) => {
                if let [Literal::Array(s), Literal::Array(d)] = &mut t[..] {
                    (self.edit)(s, d);
                }
                Ok(Literal::Tuple(t))
            }
            other => Ok(other),
        }
    }
}

fn keep(_: &mut ArrayLiteral, _: &mut ArrayLiteral) {}

/// Another key: the bits differ everywhere, and are just as random.
fn other_key(_: &mut ArrayLiteral, d: &mut ArrayLiteral) {
    let n = d.shape().element_count();
    let module = module(n as i64);
    let state = state(&[99, 1, 2]);
    if let Ok(Literal::Tuple(t)) = Reference.execute(&module, &[state]) {
        if let Literal::Array(x) = &t[1] {
            *d = x.clone();
        }
    }
}

/// The top bit of every word cleared.
fn top_bit_stuck(_: &mut ArrayLiteral, d: &mut ArrayLiteral) {
    for i in 0..d.shape().element_count() {
        let b = d.get_bits_linear(i);
        d.set_bits_linear(i, b & 0x7fff_ffff);
    }
}

/// One element's lowest bit flipped.
fn one_bit(_: &mut ArrayLiteral, d: &mut ArrayLiteral) {
    let b = d.get_bits_linear(3);
    d.set_bits_linear(3, b ^ 1);
}

/// The state not advanced.
fn stale_state(s: &mut ArrayLiteral, _: &mut ArrayLiteral) {
    s.set_bits_linear(1, 1);
}

fn module(n: i64) -> HloModule {
    parse_module(&format!(
        "HloModule m\nENTRY e {{\n  s = u64[3]{{0}} parameter(0)\n  ROOT r = (u64[3]{{0}}, u32[{n}]{{0}}) rng-bit-generator(s), algorithm=rng_philox\n}}\n"
    ))
    .unwrap()
}

fn state(words: &[u64]) -> Literal {
    let bits: Vec<u128> = words.iter().map(|&w| u128::from(w)).collect();
    Literal::Array(
        ArrayLiteral::from_bits(ArrayShape::new(ElementType::U64, vec![3]), &bits).unwrap(),
    )
}

fn judge(backend: &Altered) -> conformance::check::BackendOutcome {
    let catalog = Catalog::builtin().unwrap();
    let op = catalog.op("rng-bit-generator-PHILOX").unwrap();
    let (outcome, _) = check_operation(
        &catalog,
        op,
        &module(4096),
        &[state(&[7, 1, 2])],
        &[&Reference, backend],
        &Stage::default(),
    );
    outcome.outcomes[0].clone()
}

#[test]
fn the_same_layout_is_compared_bit_for_bit() {
    let same = || Some(conformance_spec::random::XLA_LAYOUT.to_string());
    let o = judge(&Altered {
        layout: same(),
        edit: keep,
    });
    assert_eq!(o.verdict, Verdict::Pass, "{o:?}");
    let c = o.comparison.unwrap();
    assert!(
        c.statistics.is_empty(),
        "no statistics for a bit-exact comparison"
    );
    for edit in [
        one_bit as fn(&mut ArrayLiteral, &mut ArrayLiteral),
        stale_state,
        other_key,
    ] {
        let o = judge(&Altered {
            layout: same(),
            edit,
        });
        assert_eq!(o.verdict, Verdict::Fail, "{o:?}");
        assert!(o
            .comparison
            .unwrap()
            .classes
            .contains_key(&DiffClass::Exact));
    }
}

#[test]
fn another_layout_is_judged_by_shapes_and_statistics() {
    // Other bits, as random: passes, each test's p-value reported.
    for edit in [
        keep as fn(&mut ArrayLiteral, &mut ArrayLiteral),
        other_key,
        one_bit,
        stale_state,
    ] {
        let o = judge(&Altered { layout: None, edit });
        assert_eq!(o.verdict, Verdict::Pass, "{o:?}");
        let c = o.comparison.unwrap();
        assert_eq!(c.statistics.len(), 3, "{:?}", c.statistics);
        assert!(c.statistics.iter().all(|t| t.p_value.0 >= 1e-6));
    }
    // A stuck bit is caught by the bit frequencies, named with its p-value.
    let o = judge(&Altered {
        layout: None,
        edit: top_bit_stuck,
    });
    assert_eq!(o.verdict, Verdict::Fail, "{o:?}");
    let c = o.comparison.unwrap();
    assert!(c.classes.contains_key(&DiffClass::Statistical));
    let t = c
        .statistics
        .iter()
        .find(|t| t.name == "bit frequencies")
        .unwrap();
    assert!(t.rejects() && t.p_value.0 < 1e-100, "{t:?}");
}

/// Fast with one of Threefry's eight rotation constants wrong (round 3 rotates by 25, not 26):
/// a sweep of `rng-bit-generator` with THREE_FRY finds it and minimizes it to a few elements.
#[test]
fn a_threefry_with_one_rotation_wrong_is_found_and_minimized() {
    let mut rotations = [13, 15, 26, 6, 17, 29, 16, 24];
    rotations[2] = 25;
    let broken = Fast::new().with_threefry_rotations(rotations);
    let (module, args) = planted::found_and_minimized("rng-bit-generator-THREE_FRY", 17, &broken);
    let root = module.entry_computation().root_instruction();
    let data = root.shape.tuple_shapes().and_then(|t| t.get(1)).unwrap();
    let elements = data.as_array().unwrap().element_count();
    assert!(elements <= 2, "{module}");
    assert_eq!(args.len(), 1, "{module}");
}
