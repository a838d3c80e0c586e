//! `conformance-spec`: what an XLA operation *is*.
//!
//! Element types, shapes and layouts (seed 000), literals, the HLO IR with its text format, the
//! backend interface, and the YAML catalog of operations (seed 004).

pub mod backend;
pub mod catalog;
pub mod collective;
pub mod custom_call;
pub mod dynamic_dimensions;
pub mod element_type;
pub mod hlo;
pub mod host_transfer;
pub mod index;
pub mod layout;
pub mod literal;
pub mod random;
pub mod shape;
pub mod shape_inference;

pub use backend::{Backend, BackendError, Capabilities, SubnormalMode};
pub use element_type::{ElementType, FloatClass, FloatFormat, SpecialEncoding};
pub use hlo::{HloComputation, HloInstruction, HloModule, Opcode};
pub use layout::{Layout, PaddingValue};
pub use literal::{ArrayLiteral, Literal};
pub use shape::{ArrayShape, Shape};
