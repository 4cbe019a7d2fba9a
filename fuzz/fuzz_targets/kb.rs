//! Fuzz target `kb`: the body is `magpie::fuzzing::kb` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::kb(data));
