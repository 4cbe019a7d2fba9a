//! Fuzz target `html_xpath`: the body is `magpie::fuzzing::html_xpath` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::html_xpath(data));
