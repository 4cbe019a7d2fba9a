//! Replays the fuzzing corpora and every input a fuzzer ever crashed on (`fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/`) through the same `magpie::fuzzing` functions the cargo-fuzz
//! targets call, on plain stable `cargo test`, so fixed crashes stay fixed. See docs/fuzzing.md.

use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

/// Every fuzz target and its body; `fuzz/fuzz_targets/<name>.rs` exists for each.
const TARGETS: [(&str, Target); 13] = [
    ("url", magpie::fuzzing::url),
    ("robots", magpie::fuzzing::robots),
    ("spec", magpie::fuzzing::spec),
    ("kb", magpie::fuzzing::kb),
    ("html_xpath", magpie::fuzzing::html_xpath),
    ("xpath_tester", magpie::fuzzing::xpath_tester),
    ("intake", magpie::fuzzing::intake),
    ("warc_reader", magpie::fuzzing::warc_reader),
    ("warc_check", magpie::fuzzing::warc_check),
    ("http_response", magpie::fuzzing::http_response),
    ("chunked", magpie::fuzzing::chunked),
    ("body_decode", magpie::fuzzing::body_decode),
    ("search_query", magpie::fuzzing::search_query),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of a folder, sorted; a missing folder is an empty list.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Feeds every file to `body`, naming the file if it panics.
fn replay(target: &str, body: Target, inputs: &[PathBuf]) {
    for path in inputs {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(
            outcome.is_ok(),
            "fuzz target {target} panics on {}",
            path.display()
        );
    }
}

#[test]
fn every_target_has_a_corpus_and_a_fuzz_target() {
    for (name, _) in TARGETS {
        let corpus = files(&fuzz_dir().join("corpus").join(name));
        assert!(
            !corpus.is_empty(),
            "fuzz/corpus/{name}/ is missing or empty: the regression test would test nothing"
        );
        let target = fuzz_dir().join("fuzz_targets").join(format!("{name}.rs"));
        assert!(target.is_file(), "{} is missing", target.display());
    }
    let declared = files(&fuzz_dir().join("fuzz_targets")).len();
    assert_eq!(
        declared,
        TARGETS.len(),
        "every fuzz target is listed in TARGETS"
    );
}

#[test]
fn corpora_replay_without_panics() {
    for (name, body) in TARGETS {
        replay(name, body, &files(&fuzz_dir().join("corpus").join(name)));
    }
}

#[test]
fn fixed_crashes_stay_fixed() {
    let dir = fuzz_dir().join("regressions");
    let mut seen = 0;
    for (name, body) in TARGETS {
        let inputs = files(&dir.join(name));
        seen += inputs.len();
        replay(name, body, &inputs);
    }
    if let Some(stray) = files(&dir).first() {
        panic!("stray file {} in fuzz/regressions/", stray.display());
    }
    let known: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/ exists") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            known.contains(&name.as_ref()),
            "fuzz/regressions/{name}/ names no fuzz target"
        );
    }
    assert!(seen > 0, "fuzz/regressions/ holds no inputs");
}
