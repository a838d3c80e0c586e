//! `conformance`: the differential harness. Generates cases from the catalog, runs them on the
//! exact reference and on other backends, compares results ULP-aware under the catalog's
//! tolerance, and reports.

pub mod backends;
pub mod bench;
pub mod check;
pub mod cli;
pub mod compare;
pub mod conv_zeros;
pub mod corpus;
pub mod corpus_nnef;
pub mod eval;
pub mod executor;
pub mod figures;
pub mod fuzzing;
pub mod generate;
pub mod graph;
pub mod known;
pub mod minimize;
pub mod nnef_cmd;
#[cfg(feature = "tract")]
pub mod nnef_tract;
pub mod npz;
pub mod oracles;
pub mod replay;
pub mod replay_results;
pub mod report;
pub mod results;
pub mod run;
pub mod summary;
pub mod text_input;
pub mod validate;
