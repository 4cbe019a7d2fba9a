//! Fuzz target `intake`: the body is `magpie::fuzzing::intake` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::intake(data));
