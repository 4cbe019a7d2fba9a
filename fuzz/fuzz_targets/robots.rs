//! Fuzz target `robots`: the body is `magpie::fuzzing::robots` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::robots(data));
