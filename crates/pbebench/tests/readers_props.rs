//! The readers of untrusted text (`readers/mod.rs`: the response parser, a response line
//! and a whole responses file, a dataset line and a whole dataset file, Python literals,
//! templates, cascade arguments, word lists) on random bytes and on random glue of the
//! tokens their grammars use: a short run of each coverage-guided fuzz target of `fuzz/`,
//! in the normal suite. Besides never panicking, each case must stay within a memory
//! budget in proportion to its input, checked structurally by a counting allocator: the
//! most bytes live at once, and all bytes allocated (a proxy for the work done, since
//! these readers allocate as they go), never a clock.

mod readers;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live and allocated bytes, process-wide (the one test of this binary runs the
/// cases one after another). The one `unsafe` of the test suite: a global allocator
/// cannot be written without it.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        TOTAL.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the layout is the caller's, passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What a case may use: a fixed allowance (the thread pool of the parallel reader, read
/// buffers) plus a multiple of its input. A quadratic reader on a few kilobytes, or one
/// that looped while its memory grew, would pass neither.
const FIXED: usize = 24 << 20;
const PEAK_PER_BYTE: usize = 512;
const TOTAL_PER_BYTE: usize = 8 << 10;

/// Runs `target` on `data` and checks its budget.
fn within_budget(name: &str, target: readers::Target, data: &[u8]) -> Result<(), TestCaseError> {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let total = TOTAL.load(Ordering::Relaxed);
    target(data);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let allocated = TOTAL.load(Ordering::Relaxed) - total;
    prop_assert!(
        peak <= FIXED + PEAK_PER_BYTE * data.len(),
        "{name}: {peak} bytes live at once for {} bytes of input",
        data.len()
    );
    prop_assert!(
        allocated <= 2 * FIXED + TOTAL_PER_BYTE * data.len(),
        "{name}: {allocated} bytes allocated for {} bytes of input",
        data.len()
    );
    Ok(())
}

/// Tokens of every grammar the readers know, glued at random: JSON, Python literals and
/// escapes, fences and thinking tags, template braces, the authors' fields.
const TOKENS: [&str; 56] = [
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    "\"",
    "'",
    "'''",
    "\\",
    "\n",
    " ",
    "\r\n",
    "```",
    "```python\n",
    "<think>",
    "</think>",
    "replace",
    "s = s.replace(",
    ".replace(",
    "\"id\"",
    "\"response\"",
    "\"responses\"",
    "\"sample\"",
    "\"input\"",
    "\"index\"",
    "\"outputs\"",
    "\"inputs\"",
    "\"programs\"",
    "\"alphabet\"",
    "\"max_rules\"",
    "\"max_rule_len\"",
    "\"cascade\"",
    "\"cascade_len\"",
    "18446744073709551615",
    "1e8",
    "-1",
    "null",
    "0",
    "7",
    "\"3_1\"",
    "{inputs}",
    "{outputs",
    "{{",
    "}}",
    "\\N{",
    "SNOWMAN}",
    "\\x4",
    "\\u00e9",
    "r'",
    "b'",
    "ab",
    "ʔː",
    "\u{feff}",
];

fn glued() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(&TOKENS[..]), 0..60)
        .prop_map(|tokens| tokens.concat().into_bytes())
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![prop::collection::vec(any::<u8>(), 0..512), glued()]
}

/// Every target, a few hundred cases each (the fuzz targets run for hours the same way).
/// One test, so that no other case of this binary allocates beside the one measured.
#[test]
fn every_reader_of_untrusted_text_stays_within_its_budget() {
    // The budget is a real bound: a case that holds a thousand times its input fails it.
    fn greedy(data: &[u8]) {
        let held = vec![0_u8; FIXED + 1000 * data.len() + 1];
        std::hint::black_box(&held);
    }
    let refused = within_budget("greedy", greedy, b"x")
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("greedy: ") && refused.contains("bytes of input"),
        "{refused}"
    );
    for (name, target) in readers::TARGETS {
        let mut runner = TestRunner::new(Config {
            cases: 300,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&bytes(), |data| within_budget(name, target, &data))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
