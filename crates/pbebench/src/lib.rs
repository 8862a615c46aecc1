//! # pbebench
//!
//! Multi-step programming by examples over string-rewrite cascades: exact `replace`
//! semantics ([`rule`]), rule interactions and categories ([`relations`]), the PBEBench
//! generator ([`generate`]), datasets ([`instance`], [`dataset`]), and exact behavioural
//! equivalence of cascades over an input space ([`equiv`]).
// One measured exception, allowed where it is: `rule::byte_positions` calls SSE2
// intrinsics on x86-64.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod dataset;
pub mod equiv;
pub mod generate;
pub mod instance;
pub mod metrics;
pub mod prompt;
pub mod pylit;
pub mod relations;
pub mod response;
pub mod rule;
pub mod score;
pub mod wordlists;

pub use instance::Instance;
pub use relations::{Category, RelationMode, Relations};
pub use rule::{Cascade, Rule, RuleError, TooLong};
