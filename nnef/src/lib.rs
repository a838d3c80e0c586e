//! NNEF front end (seed 003: NNEF chapter 3; NNEF 1.0.5 chapters 4 and 5): lexer and parser of
//! flat and compositional documents, the semantic rules of §3.3, shape propagation, `.dat`
//! tensor files and graph containers, and lowering of a graph to the HLO module every backend
//! of this project runs.

pub mod arguments;
pub mod ast;
pub mod container;
pub mod dat;
pub mod error;
pub mod eval;
pub mod generate;
pub mod graph;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod printer;
pub mod shapes;
pub mod stdlib;
pub mod weights;

pub use error::{ErrorKind, NnefError, Span};
pub use parser::{
    parse_document, parse_document_with, parse_fragments, parse_quantization, Dialect,
};
