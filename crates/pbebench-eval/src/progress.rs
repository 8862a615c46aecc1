//! What a run tells its caller as it goes, for a progress display: the library prints
//! nothing (`pbebench eval` draws a bar, or status lines, from these events).

use crate::sample::Sample;
use std::path::Path;

/// Hears the events of a run ([`crate::evaluate_with`]), from which a caller shows its
/// progress. Every method does nothing unless implemented; `()` hears nothing.
pub trait EvalProgress: Sync {
    /// The directory held a run made with other parameters, and `force_new` moved it to
    /// `moved`.
    fn moved_aside(&self, moved: &Path) {
        let _ = moved;
    }
    /// The run holds `total` samples when complete, those stored earlier included.
    fn start(&self, total: usize) {
        let _ = total;
    }
    /// A sample stored by an earlier invocation, with whether its answer passes.
    fn previous(&self, passed: bool) {
        let _ = passed;
    }
    /// A sample stored now: `passed` is whether its answer passes, `None` for a failure
    /// (no answer; a later run retries it).
    fn stored(&self, sample: &Sample, passed: Option<bool>) {
        let _ = (sample, passed);
    }
    /// No more samples come in this invocation.
    fn finished(&self) {}
}

impl EvalProgress for () {}
