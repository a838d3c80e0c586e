//! Generated cases are valid by construction: every module verifies against shape inference and
//! the catalog, its arguments match the parameters, and the reference runs it. And generation
//! covers what the issue asks for: scalars, zero-size dimensions, permuted and padded layouts,
//! the XlaBuilder broadcast form, every value class.

use conformance::generate::{self, Filters, GeneratorConfig};
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::Opcode;
use conformance_spec::shape_inference::verify_module;
use conformance_spec::{Backend, Literal};

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
        let params = case.module.entry_computation().parameter_shapes();
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
        assert!(
            matches!(result, Ok(Literal::Array(_))),
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
