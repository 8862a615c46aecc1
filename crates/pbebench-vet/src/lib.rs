//! # pbebench-vet
//!
//! Vetting and reporting for pbebench (SPEC §6–7, after ProgramBench Vetted): the
//! [`audit`] of a dataset (gold and dummy gates, shortcut solvers, stated lengths,
//! duplicates, labels, calibration over a panel of results), the [`report`] of scored
//! results (leaderboard, SVG plots, a logistic regression of pass on difficulty, one
//! self-contained `index.html`), and the end-to-end [`demo`].
//!
//! The data it reads are the files of the earlier stages: datasets, the scoring path's
//! results ([`results`]) and the generator's statistics ([`genstats`]).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod audit;
pub mod demo;
pub mod genstats;
pub mod logit;
pub mod report;
pub mod results;
pub mod shortcuts;
pub mod svg;

pub use audit::{audit, AuditFindings, AuditOptions, AuditProgress};
pub use results::{ResultSet, ResultsError};
