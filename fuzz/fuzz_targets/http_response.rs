//! Fuzz target `http_response`: the body is `magpie::fuzzing::http_response` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::http_response(data));
