//! The YAML catalog of operations (`spec/ops/*.yaml`): data model, loader and validation.

pub mod model;

pub use model::*;
