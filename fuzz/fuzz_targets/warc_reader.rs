//! Fuzz target `warc_reader`: the body is `magpie::fuzzing::warc_reader` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::warc_reader(data));
