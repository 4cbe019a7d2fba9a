//! Fuzz target `xpath_tester`: the body is `magpie::fuzzing::xpath_tester` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::xpath_tester(data));
