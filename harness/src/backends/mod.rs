//! The backend registry: names on the command line to in-process backends.
//!
//! External backends (the process protocol, XLA through jaxlib) join this registry in their own issue.

use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::Backend;

/// Names `--backends` accepts.
pub const NAMES: &[&str] = &["reference", "fast"];

/// The backend with this name.
///
/// Errors: an unknown name, with the list of known ones.
pub fn by_name(name: &str) -> Result<Box<dyn Backend>, String> {
    match name {
        "reference" => Ok(Box::new(Reference)),
        "fast" => Ok(Box::new(Fast::new())),
        other => Err(format!(
            "unknown backend `{other}` (known: {})",
            NAMES.join(", ")
        )),
    }
}
