//! Fuzz target `warc_check`: the body is `magpie::fuzzing::warc_check` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::warc_check(data));
