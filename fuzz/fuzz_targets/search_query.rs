//! Fuzz target `search_query`: the body is `magpie::fuzzing::search_query` (see docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| magpie::fuzzing::search_query(data));
