//! Fuzz target `spec`: the body is `magpie::fuzzing::spec` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::spec(data));
