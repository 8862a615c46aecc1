//! Fuzz target `dataset`: see crates/pbebench/tests/readers/mod.rs for what it checks.
#![no_main]

#[path = "../../crates/pbebench/tests/readers/mod.rs"]
mod readers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    readers::dataset_line(data);
    readers::dataset_file(data);
    readers::dataset_numbers(data);
});
