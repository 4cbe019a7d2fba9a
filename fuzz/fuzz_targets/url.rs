//! Fuzz target `url`: the body is `magpie::fuzzing::url` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::url(data));
