//! A disagreement inside an NNEF graph is localized to the graph operation it comes from: a
//! backend that computes `exponential` as `exponential-minus-one` is caught at the `exp`
//! invocation's line:col, not at the output.

use conformance::nnef_cmd::{check_nnef, InputShapes};
use conformance_fast::Fast;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{HloModule, Opcode};
use conformance_spec::literal::Literal;
use conformance_spec::{Backend, BackendError, Capabilities};

/// The fast backend with `exponential` replaced by `exponential-minus-one` everywhere.
struct WrongExp(Fast);

impl Backend for WrongExp {
    fn name(&self) -> &str {
        "wrong-exp"
    }
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        let mut module = module.clone();
        for c in &mut module.computations {
            for i in &mut c.instructions {
                if i.opcode == Opcode::Exponential {
                    i.opcode = Opcode::ExponentialMinusOne;
                }
            }
        }
        self.0.execute(&module, args)
    }
}

#[test]
fn a_wrong_operation_is_named_with_its_line_and_column() {
    let dir = std::env::temp_dir().join(format!("conformance-nnef-loc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("graph.nnef");
    std::fs::write(
        &file,
        "version 1.0;\ngraph G( input ) -> ( output )\n{\n    input = external<scalar>(shape = [2, 8]);\n    a = relu(input);\n    b = exp(a);\n    output = add(b, a);\n}\n",
    )
    .unwrap();
    let catalog = Catalog::builtin().unwrap();
    let reference = conformance_reference::Reference;
    let wrong = WrongExp(Fast::sequential());
    let backends: [&dyn Backend; 2] = [&reference, &wrong];
    let checks = check_nnef(&catalog, &file, &backends, 1, &InputShapes::default()).unwrap();
    assert_eq!(checks.len(), 1);
    assert!(!checks[0].agrees());
    let (fault, operation) = checks[0].fault.clone().expect("localized");
    assert_eq!(fault.backend, "wrong-exp");
    assert_eq!(operation.as_deref(), Some("exp at 6:9"), "{fault:?}");
    // The correct backend agrees.
    let fast = Fast::sequential();
    let backends: [&dyn Backend; 2] = [&reference, &fast];
    let checks = check_nnef(&catalog, &file, &backends, 1, &InputShapes::default()).unwrap();
    assert!(checks[0].agrees());
    std::fs::remove_dir_all(&dir).unwrap();
}
