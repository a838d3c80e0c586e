//! The YAML catalog of operations (`spec/ops/*.yaml`): data model, loader and validation, and the
//! masks of implementation-defined elements.
//!
//! [`Catalog::builtin`] gives the catalog compiled into the binary; [`Catalog::load_dir`] and
//! [`Catalog::from_sources`] read other files. Every error names `file:line:col`
//! ([`CatalogError`]).

pub mod conditioning;
pub mod error;
mod examples;
pub mod loader;
pub mod masks;
pub mod model;
mod rules;
mod spans;
mod validate;
pub mod values;

pub use error::{CatalogError, Diagnostic};
pub use loader::{default_comparison_type, shared, Catalog, SourceLocation, BUILTIN_FILES};
pub use model::*;
pub use values::{parse_element, parse_element_exact};
