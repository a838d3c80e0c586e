//! `conformance eval FILE`: one backend's results of a program, printed and written to `.npz`.
//!
//! "Give me the exact answer of this program" is a job of its own: with the default backend,
//! `reference`, every float result is the correctly rounded value of the program's exact
//! semantics (seed 004), which no other tool gives. Any backend can be named (`fast`, `xla`, a
//! registered worker), like XLA's `run_hlo_module --input_literals_file/--output_literals_file
//! --print_literals`.

use crate::cli::EvalArgs;
use crate::replay::load;
use conformance_spec::catalog::Catalog;
use conformance_spec::literal::ArrayLiteral;

/// Runs `args.backend` on the program of `args.file` with its inputs and reports the results:
/// one line per output (its name, shape and, with `--print`, its value), and `--outputs` written
/// as `out0`, `out1`, ... (the root's arrays, depth first).
///
/// Exit status: 0 with the results; 1 when the backend fails on the program (its error is
/// printed); 2 for bad input (unreadable files, inputs that do not fit the parameters, an
/// unknown backend, what the reference does not implement or a loop without exit on it).
pub fn eval_command(catalog: &Catalog, args: &EvalArgs) -> Result<i32, (i32, String)> {
    let loaded = load(catalog, &args.file, args.seed, &args.inputs)?;
    let backend = crate::backends::by_name(&args.backend).map_err(|e| (2, e))?;
    let result = match backend.execute(&loaded.program, &loaded.args) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("{}: {e}", backend.name());
            let text = e.to_string();
            // The reference failing on valid input is what it does not implement (or a loop
            // without exit): the program is out of reach, not wrong.
            if args.backend == "reference"
                && (text.starts_with("unsupported:") || text.starts_with("no exit:"))
            {
                return Err((2, message));
            }
            eprintln!("{message}");
            return Ok(1);
        }
    };
    let leaves: Vec<&ArrayLiteral> = result.array_leaves();
    for (k, a) in leaves.iter().enumerate() {
        if args.print {
            println!("out{k} = {a}");
        } else {
            println!("out{k}: {}", a.shape());
        }
    }
    if let Some(path) = &args.outputs {
        let arrays: Vec<(String, &ArrayLiteral)> = leaves
            .iter()
            .enumerate()
            .map(|(k, a)| (format!("out{k}"), *a))
            .collect();
        crate::npz::write_arrays(path, &arrays).map_err(|e| (2, e))?;
        println!("{}: {} array(s) written", path.display(), arrays.len());
    }
    Ok(0)
}
