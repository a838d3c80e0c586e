//! The backend registry: names on the command line to backends.
//!
//! - `reference` and `fast` run in process;
//! - the [`BUILTIN_WORKERS`] are workers of this repository run by the project's Python
//!   environment (`.venv`, made by `scripts/setup-python.sh`; another interpreter with
//!   `CONFORMANCE_PYTHON`): `xla` (XLA's CPU backend through jaxlib), `iree` and `iree-f64`
//!   (IREE's llvm-cpu backend, f64 demoted to f32 as IREE does by default, or kept), and
//!   `stablehlo-interpreter` (StableHLO's reference interpreter bundled in jaxlib);
//! - any other name registered with `--worker NAME=COMMAND` is a worker process speaking the
//!   protocol of docs/protocol.md ([`process::ProcessBackend`]).
//!
//! docs/backends.md describes each backend, what it declares and where it deviates.

pub mod process;
pub mod wire;

use conformance_fast::kernels::Isa;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::Backend;
use process::{Limits, ProcessBackend};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// A worker of this repository that `--backends` names directly.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinWorker {
    /// Its name in `--backends`, reports and corpus file names.
    pub name: &'static str,
    /// The worker script, relative to the workspace root.
    pub script: &'static str,
    /// Arguments after the script.
    pub args: &'static [&'static str],
    /// Python modules it needs: the backend is installed when all of them import.
    pub modules: &'static [&'static str],
}

/// The workers of this repository, by name.
pub const BUILTIN_WORKERS: &[BuiltinWorker] = &[
    BuiltinWorker {
        name: "xla",
        script: "workers/xla/xla_worker.py",
        args: &[],
        modules: &["jax", "jaxlib"],
    },
    BuiltinWorker {
        name: "iree",
        script: "workers/iree/iree_worker.py",
        args: &[],
        modules: &["iree.compiler", "iree.runtime"],
    },
    BuiltinWorker {
        name: "iree-f64",
        script: "workers/iree/iree_worker.py",
        args: &["--f64"],
        modules: &["iree.compiler", "iree.runtime"],
    },
    BuiltinWorker {
        name: "stablehlo-interpreter",
        script: "workers/stablehlo_interpreter/stablehlo_interpreter_worker.py",
        args: &[],
        modules: &["jax", "jaxlib"],
    },
];

/// Names `--backends` accepts besides registered workers.
pub const NAMES: &[&str] = &[
    "reference",
    "fast",
    "fast-avx512",
    "fast-avx2",
    "fast-scalar",
    "fast-split",
    "xla",
    "iree",
    "iree-f64",
    "stablehlo-interpreter",
];

/// Consecutive cases of a sweep sharing one module when a backend compiles
/// ([`compiles`]) and `--inputs-per-module` is not given.
pub const DEFAULT_INPUTS_PER_MODULE: u64 = 8;

/// True for a backend that compiles each module before running it (every worker: XLA, IREE, …),
/// for which a sweep groups cases sharing a module; false for `reference`, `fast` and fast's
/// variants ([`fast_variant`]).
pub fn compiles(name: &str) -> bool {
    name != "reference" && !name.starts_with("fast")
}

/// The fast backend a `fast…` name selects: `fast`; `fast-avx512`, `fast-avx2`, `fast-scalar`
/// (its SIMD kernels compiled for that instruction set only, [`Fast::with_isa`], to check the
/// paths a CPU of that kind runs); `fast-split` (every parallel path on tiny tasks,
/// [`Fast::with_split_tasks`], to check task boundaries). `None` for any other name.
///
/// Errors: an instruction set this CPU lacks.
pub fn fast_variant(name: &str) -> Option<Result<Fast, String>> {
    let variant = match name {
        "fast" => return Some(Ok(Fast::new())),
        "fast-split" => return Some(Ok(Fast::new().with_split_tasks())),
        _ => name.strip_prefix("fast-")?,
    };
    let isa = Isa::parse(variant).ok()?;
    Some(if isa.is_available() {
        Ok(Fast::new().with_isa(isa))
    } else {
        Err(format!(
            "backend `{name}` needs {} kernels, which this CPU ({}) cannot run",
            variant.to_uppercase(),
            Isa::hardware().name()
        ))
    })
}

/// Workers registered with `--worker NAME=COMMAND`, in registration order.
static WORKERS: Mutex<Vec<(String, Vec<String>)>> = Mutex::new(Vec::new());

/// Parses `NAME=COMMAND` (the command split on whitespace).
///
/// Errors: a missing `=`, an empty or built-in name, an empty command.
pub fn parse_worker(text: &str) -> Result<(String, Vec<String>), String> {
    let (name, command) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected NAME=COMMAND"))?;
    let name = name.trim();
    if name.is_empty() || name.contains(',') || NAMES.contains(&name) {
        return Err(format!(
            "`{text}`: the worker needs a name of its own (not empty, no comma, not one of {})",
            NAMES.join(", ")
        ));
    }
    let command: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    if command.is_empty() {
        return Err(format!("`{text}`: the command is empty"));
    }
    Ok((name.to_string(), command))
}

/// Registers a worker for [`by_name`] (a later registration of the same name wins).
pub fn register_worker(name: String, command: Vec<String>) {
    let mut w = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
    w.retain(|(n, _)| *n != name);
    w.push((name, command));
}

/// The workspace root (where `.venv` and `workers/` are).
fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The project's Python interpreter: `CONFORMANCE_PYTHON`, else `.venv/bin/python`.
fn python() -> PathBuf {
    match std::env::var_os("CONFORMANCE_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => workspace_root().join(".venv/bin/python"),
    }
}

/// The command of a worker of this repository.
///
/// Errors: the Python environment or the worker script is missing (naming the set-up script).
pub fn builtin_command(worker: &BuiltinWorker) -> Result<Vec<String>, String> {
    let python = python();
    let script = workspace_root().join(worker.script);
    if !python.exists() {
        return Err(format!(
            "backend `{}` needs the project's Python environment ({} is missing): run \
             scripts/setup-python.sh, or point CONFORMANCE_PYTHON at a python with {} installed",
            worker.name,
            python.display(),
            worker.modules.join(", ")
        ));
    }
    if !script.exists() {
        return Err(format!(
            "the worker of `{}`, {}, is missing",
            worker.name,
            script.display()
        ));
    }
    let mut command = vec![
        python.to_string_lossy().into_owned(),
        script.to_string_lossy().into_owned(),
    ];
    command.extend(worker.args.iter().map(|a| a.to_string()));
    Ok(command)
}

/// The command of the XLA worker ([`builtin_command`]).
///
/// Errors: as [`builtin_command`].
pub fn xla_command() -> Result<Vec<String>, String> {
    builtin_command(&BUILTIN_WORKERS[0])
}

/// Whether backend `name` can run here: `Ok` for in-process backends and registered workers;
/// for a [`BuiltinWorker`], whether its Python environment exists and imports its modules
/// (checked once per process, by running the interpreter).
///
/// Errors: one line saying what is missing and how to install it.
pub fn installed(name: &str) -> Result<(), String> {
    static CHECKED: Mutex<Option<HashMap<String, Result<(), String>>>> = Mutex::new(None);
    let Some(worker) = BUILTIN_WORKERS.iter().find(|w| w.name == name) else {
        return Ok(());
    };
    let mut checked = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
    let map = checked.get_or_insert_with(HashMap::new);
    if let Some(r) = map.get(name) {
        return r.clone();
    }
    let result = builtin_command(worker).and_then(|command| {
        let imports = format!("import {}", worker.modules.join(", "));
        let out = std::process::Command::new(&command[0])
            .args(["-c", &imports])
            .output()
            .map_err(|e| format!("backend `{name}`: cannot run {}: {e}", command[0]))?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last().unwrap_or("").trim().to_string();
        Err(format!(
            "backend `{name}` is not installed ({last}): run scripts/setup-python.sh"
        ))
    });
    map.insert(name.to_string(), result.clone());
    result
}

/// The backend with this name, workers with the default [`Limits`].
///
/// Errors: an unknown name, with the list of known ones; a built-in worker without its Python
/// environment.
pub fn by_name(name: &str) -> Result<Box<dyn Backend>, String> {
    by_name_with(name, Limits::default())
}

/// The backend with this name; a worker gets `limits`.
///
/// Errors: as [`by_name`].
pub fn by_name_with(name: &str, limits: Limits) -> Result<Box<dyn Backend>, String> {
    if let Some(worker) = BUILTIN_WORKERS.iter().find(|w| w.name == name) {
        let command = builtin_command(worker)?;
        return Ok(Box::new(ProcessBackend::new(name, command, limits)));
    }
    if let Some(fast) = fast_variant(name) {
        return fast.map(|f| Box::new(f) as Box<dyn Backend>);
    }
    match name {
        "reference" => Ok(Box::new(Reference)),
        other => {
            let workers = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
            match workers.iter().find(|(n, _)| n == other) {
                Some((n, command)) => Ok(Box::new(ProcessBackend::new(n, command.clone(), limits))),
                None => {
                    let mut known: Vec<&str> = NAMES.to_vec();
                    known.extend(workers.iter().map(|(n, _)| n.as_str()));
                    Err(format!(
                        "unknown backend `{other}` (known: {}; register a worker with \
                         --worker NAME=COMMAND)",
                        known.join(", ")
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_options_parse_or_say_what_is_wrong() {
        assert_eq!(
            parse_worker("mine=python3 w.py --fast").unwrap(),
            (
                "mine".to_string(),
                vec!["python3".into(), "w.py".into(), "--fast".into()]
            )
        );
        assert!(parse_worker("mine").unwrap_err().contains("NAME=COMMAND"));
        assert!(parse_worker("fast=x")
            .unwrap_err()
            .contains("name of its own"));
        assert!(parse_worker("m=  ").unwrap_err().contains("empty"));
        assert!(by_name("nonesuch").err().unwrap().contains("--worker"));
    }

    #[test]
    fn fast_variants_are_named_and_refuse_missing_instruction_sets() {
        assert_eq!(by_name("fast").unwrap().name(), "fast");
        assert_eq!(by_name("fast-scalar").unwrap().name(), "fast-scalar");
        assert_eq!(by_name("fast-split").unwrap().name(), "fast-split");
        assert!(!compiles("fast-split") && !compiles("fast-avx2") && compiles("xla"));
        for isa in ["avx2", "avx512"] {
            let name = format!("fast-{isa}");
            match by_name(&name) {
                Ok(b) => {
                    assert!(Isa::parse(isa).unwrap().is_available());
                    assert_eq!(b.name(), name);
                }
                Err(e) => {
                    assert!(!Isa::parse(isa).unwrap().is_available());
                    assert!(e.contains("cannot run"), "{e}");
                }
            }
        }
        assert!(fast_variant("fast-sse2").is_none());
        assert!(by_name("fast-sse2")
            .err()
            .unwrap()
            .contains("unknown backend"));
    }
}
