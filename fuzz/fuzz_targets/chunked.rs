//! Fuzz target `chunked`: the body is `magpie::fuzzing::chunked` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::chunked(data));
