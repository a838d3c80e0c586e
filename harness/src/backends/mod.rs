//! The backend registry: names on the command line to backends.
//!
//! - `reference` and `fast` run in process;
//! - `xla` is XLA's CPU backend through jaxlib: the worker `workers/xla/xla_worker.py` run by the
//!   project's Python environment (`.venv`, made by `scripts/setup-python.sh`; another
//!   interpreter with `CONFORMANCE_PYTHON`);
//! - any other name registered with `--worker NAME=COMMAND` is a worker process speaking the
//!   protocol of docs/protocol.md ([`process::ProcessBackend`]).

pub mod process;
pub mod wire;

use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::Backend;
use process::{Limits, ProcessBackend};
use std::path::PathBuf;
use std::sync::Mutex;

/// Names `--backends` accepts besides registered workers.
pub const NAMES: &[&str] = &["reference", "fast", "xla"];

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

/// The command of the XLA worker.
///
/// Errors: the Python environment or the worker script is missing (naming the set-up script).
pub fn xla_command() -> Result<Vec<String>, String> {
    let root = workspace_root();
    let python = match std::env::var_os("CONFORMANCE_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => root.join(".venv/bin/python"),
    };
    let script = root.join("workers/xla/xla_worker.py");
    if !python.exists() {
        return Err(format!(
            "backend `xla` needs the project's Python environment ({} is missing): run \
             scripts/setup-python.sh, or point CONFORMANCE_PYTHON at a python with jax installed",
            python.display()
        ));
    }
    if !script.exists() {
        return Err(format!("the XLA worker {} is missing", script.display()));
    }
    Ok(vec![
        python.to_string_lossy().into_owned(),
        script.to_string_lossy().into_owned(),
    ])
}

/// The backend with this name, workers with the default [`Limits`].
///
/// Errors: an unknown name, with the list of known ones; `xla` without its environment.
pub fn by_name(name: &str) -> Result<Box<dyn Backend>, String> {
    by_name_with(name, Limits::default())
}

/// The backend with this name; a worker gets `limits`.
///
/// Errors: as [`by_name`].
pub fn by_name_with(name: &str, limits: Limits) -> Result<Box<dyn Backend>, String> {
    match name {
        "reference" => Ok(Box::new(Reference)),
        "fast" => Ok(Box::new(Fast::new())),
        "xla" => Ok(Box::new(ProcessBackend::new("xla", xla_command()?, limits))),
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
}
