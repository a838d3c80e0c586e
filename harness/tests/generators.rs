//! Generated cases are valid by construction: every module verifies against shape inference and
//! the catalog, its arguments match the parameters, and the reference runs it. And generation
//! covers what the issue asks for: scalars, zero-size dimensions, permuted and padded layouts,
//! the XlaBuilder broadcast form, every value class.

use conformance::generate::{self, Filters, GeneratorConfig};
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::Opcode;
use conformance_spec::shape_inference::verify_module;
use conformance_spec::Backend;

#[test]
fn generated_cases_verify_and_run_on_the_reference() {
    let catalog = Catalog::builtin().unwrap();
    let combos = generate::plan(&catalog, &Filters::default()).unwrap();
    let config = GeneratorConfig::default();
    let (mut scalars, mut zero_sized, mut padded, mut permuted, mut broadcasts) = (0, 0, 0, 0, 0);
    let n = 2 * combos.len() as u64;
    for index in 0..n {
        let case = generate::case(&catalog, &combos, &config, 11, index).unwrap();
        verify_module(&case.module)
            .unwrap_or_else(|e| panic!("case {index} ({}): {e}\n{}", case.row, case.module));
        // Each device's arguments in turn (docs/collectives.md).
        let params = conformance_spec::collective::argument_shapes(&case.module);
        assert_eq!(params.len(), case.args.len());
        for (p, a) in params.iter().zip(&case.args) {
            let (p, a) = (p.as_array().unwrap(), a.as_array().unwrap().shape());
            assert_eq!(
                p, a,
                "case {index}: argument shape (with layout) equals the parameter's"
            );
            scalars += a.is_scalar() as usize;
            zero_sized += a.dimensions.contains(&0) as usize;
            padded += a.layout.is_padded() as usize;
            permuted += (!a.layout.is_default_for_rank(a.rank()) && !a.layout.is_padded()) as usize;
        }
        broadcasts += case
            .module
            .entry_computation()
            .instructions
            .iter()
            .any(|i| i.opcode == Opcode::Broadcast) as usize;
        let result = Reference.execute(&case.module, &case.args);
        // With outfeeds, each device gives (root, (outfeed values)) (docs/host-transfers.md).
        let one = conformance_spec::host_transfer::device_result_shape(&case.module);
        // A module of several devices gives the tuple of the devices' results.
        let devices = conformance_spec::collective::DeviceGrid::of(&case.module)
            .unwrap()
            .devices();
        let expected = if devices > 1 {
            conformance_spec::Shape::Tuple(vec![one; devices])
        } else {
            one
        };
        assert!(
            result
                .as_ref()
                .is_ok_and(|r| conformance_spec::shape_inference::shapes_compatible(
                    &r.shape(),
                    &expected
                )),
            "case {index} ({}): {result:?}",
            case.row
        );
    }
    assert!(scalars > 100 && zero_sized > 20 && padded > 100 && permuted > 100 && broadcasts > 50,
        "scalars {scalars}, zero-sized {zero_sized}, padded {padded}, permuted {permuted}, broadcast forms {broadcasts}");
}

#[test]
fn every_convert_pair_is_a_combination() {
    let catalog = Catalog::builtin().unwrap();
    let filters = Filters {
        ops: vec!["convert".into()],
        dtypes: vec![],
    };
    let combos = generate::plan(&catalog, &filters).unwrap();
    // `convert` takes every real type to every type (real → complex included); complex sources
    // are the `convert-complex` entry's (XLA does not convert complex to real).
    let all = conformance_spec::ElementType::ALL.len();
    let real_types = conformance_spec::ElementType::ALL
        .iter()
        .filter(|t| !t.is_complex())
        .count();
    assert_eq!(combos.len(), real_types * all);
}

mod choice_sequences {
    //! The generators draw from proptest choice sequences too: every sequence gives a valid case
    //! (single operations and graphs), and proptest's shrinking of the sequence shrinks the case.
    use conformance::generate::rng::{Choices, Rng};
    use conformance::generate::{self, graph, Filters, GeneratorConfig};
    use conformance_spec::catalog::Catalog;
    use conformance_spec::shape_inference::verify_module;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

    fn words() -> impl Strategy<Value = Vec<u64>> {
        proptest::collection::vec(any::<u64>(), 0..96)
    }

    proptest! {
        #![proptest_config(Config::with_cases(200))]
        #[test]
        fn every_choice_sequence_gives_a_valid_case(combo in 0usize..10_000, w in words(), g in any::<bool>()) {
            let catalog = Catalog::builtin().unwrap();
            let combos = generate::plan(&catalog, &Filters::default()).unwrap();
            let config = GeneratorConfig::default();
            let mut rng = Rng::from_source(Choices::new(w));
            let case = if g {
                graph::build_case(&catalog, &combos, &config, &mut rng, 0, 0).unwrap()
            } else {
                generate::case_with(&catalog, &combos[combo % combos.len()], &config, &mut rng, 0, 0).unwrap()
            };
            prop_assert!(verify_module(&case.module).is_ok(), "{}", case.module);
        }
    }

    /// A property that fails on every case with at least two elements shrinks to a case with
    /// exactly two: shrinking the choices shrinks the dimensions.
    #[test]
    fn shrinking_the_choices_shrinks_the_case() {
        let catalog = Catalog::builtin().unwrap();
        let combos = generate::plan(
            &catalog,
            &Filters {
                ops: vec!["add".into()],
                dtypes: vec!["f32".into()],
            },
        )
        .unwrap();
        let config = GeneratorConfig::default();
        let elements = |w: &[u64]| {
            let mut rng = Rng::from_source(Choices::new(w.to_vec()));
            let case = generate::case_with(&catalog, &combos[0], &config, &mut rng, 0, 0).unwrap();
            case.module
                .entry_computation()
                .root_instruction()
                .shape
                .as_array()
                .unwrap()
                .element_count()
        };
        let mut runner = TestRunner::new(Config {
            cases: 500,
            ..Config::default()
        });
        let result = runner.run(&words(), |w| {
            if elements(&w) >= 2 {
                Err(TestCaseError::fail("two or more elements"))
            } else {
                Ok(())
            }
        });
        match result {
            Err(TestError::Fail(_, minimal)) => assert_eq!(elements(&minimal), 2, "{minimal:?}"),
            other => panic!("expected a shrunk failure, got {other:?}"),
        }
    }
}
