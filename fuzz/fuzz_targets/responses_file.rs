//! Fuzz target `responses_file`: see crates/pbebench/tests/readers/mod.rs for what it checks.
#![no_main]

#[path = "../../crates/pbebench/tests/readers/mod.rs"]
mod readers;

use std::sync::OnceLock;

/// A pool of one thread, the fuzzer's own: the reader's parallel parsing runs inline
/// instead of waking another thread for every case (which, on a busy machine, made the
/// target a hundred times slower than the reading itself).
static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build()
            .expect("a thread pool")
    });
    pool.install(|| readers::responses_file(data));
});
