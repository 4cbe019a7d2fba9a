//! Fuzz target `body_decode`: the body is `magpie::fuzzing::body_decode` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::body_decode(data));
