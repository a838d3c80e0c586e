//! The tolerance models that judge a result beyond a per-element ULP budget, one module each,
//! chosen by the catalog entry (DESIGN.md, "Comparison"; `tolerance.order_set`) or by the
//! backend's declared capabilities, and dispatched from [`crate::check::check`]:
//!
//! - [`order_set`]: `sort` (`order_set: sort-equivalents`): equivalent elements in any order
//!   when unstable, any permutation when the comparator is not a strict weak order;
//! - [`scatter_orders`]: `scatter` (`order_set: scatter-updates`): every order of applying
//!   colliding updates;
//! - [`subnormals`]: a backend that flushes subnormals (capabilities), one named class;
//! - [`error_bounds`]: the numerical family (`tolerance.error_bound`: FFT, triangular solve,
//!   Cholesky, batch norm): normwise bounds from error analysis with the reference's exact
//!   condition numbers and scales;
//! - [`random`]: random numbers (`tolerance.random`): bit-exact against a backend that declares
//!   the reference's bit layout, statistical tests at stated false-alarm rates otherwise;
//! - [`distributions`]: samples of `rng` (`tolerance.random: uniform | normal`), every backend's
//!   judged against the distribution (support, Kolmogorov–Smirnov or χ², serial correlation);
//! - [`propagated`]: a backend that runs whole NNEF operations (tract): each tensor judged
//!   within the bound the lowering's instruction budgets propagate to it;
//! - [`fused`]: a backend that contracts a multiply feeding an add or subtract into one fused
//!   multiply-add, one named class (applied where a graph is localized, which sees the pair).
//!
//! The error bound of sums (`tolerance.accumulation`) is computed with the reference's term
//! counts in `check`, and the condition-number widening in `spec::catalog::conditioning`.

pub mod distributions;
pub mod error_bounds;
pub mod fused;
pub mod order_set;
#[cfg(feature = "tract")]
pub mod propagated;
pub mod random;
pub mod scatter_orders;
pub mod subnormals;
