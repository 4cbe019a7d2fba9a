//! The module boundaries the compiler does not check, read from the source: which of magpie's
//! modules a module may name (`crate::x`), and which module alone may name an outside crate
//! (`sled::`, `tantivy::`...). Test code (`tests*.rs`, `*_tests.rs`, `test_*.rs`, and what
//! follows `#[cfg(test)]` in a file) is not held to them; comments are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/index/cli.rs` -> `index`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().unwrap().to_string_lossy();
    name.starts_with("tests") || name.ends_with("_tests.rs") || name.starts_with("test_")
}

/// The non-test, non-comment lines of a file.
fn code(text: &str) -> impl Iterator<Item = &str> {
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
}

/// For each top-level module: the words `prefix` is followed by (`crate::` -> module names,
/// or `""` with a crate list: the outside crates named).
fn names(pattern: &regex::Regex) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| !is_test_file(f)) {
        let text = std::fs::read_to_string(f).unwrap();
        let module = module_of(&src, f);
        for line in code(&text) {
            for c in pattern.captures_iter(line) {
                out.entry(module.clone())
                    .or_default()
                    .insert(c[1].to_string());
            }
        }
    }
    out
}

#[test]
fn modules_name_only_the_modules_below_them() {
    let used = names(&regex::Regex::new(r"\bcrate::([a-z_]+)").unwrap());
    // What each module may name; a module not listed may name anything (the crawl, the
    // manager, the web server and the command line sit on top).
    let allowed: &[(&str, &[&str])] = &[
        ("model", &[]),
        ("uri", &[]),
        ("store", &[]),
        ("http", &[]),
        ("blocking", &[]),
        ("process", &[]),
        ("spec", &["analysis", "archive", "frontier"]),
        ("scope", &["model", "spec", "uri"]),
        ("intake", &["archive", "uri"]),
        ("frontier", &["blocking", "model", "store"]),
        ("fetch", &["http", "model", "process"]),
        ("parse", &["model", "sample_site", "uri"]),
        ("aah", &["model", "parse", "store", "uri"]),
        ("analysis", &["model"]),
        ("archive", &["http"]),
        // The index stores and finds documents; reading pages for them (fetch's decoding,
        // parse, the spec's limits) is the crawl's, live and in a rebuild (`crawl::reindex`).
        (
            "index",
            &["archive", "blocking", "http", "model", "process", "uri"],
        ),
        ("export", &["archive", "http", "index", "uri"]),
    ];
    let mut wrong = Vec::new();
    for (module, may) in allowed {
        for name in used.get(*module).into_iter().flatten() {
            if name != module && !may.contains(&name.as_str()) {
                wrong.push(format!("{module} names crate::{name}"));
            }
        }
    }
    for (module, names) in &used {
        if [
            "model", "uri", "spec", "frontier", "fetch", "parse", "aah", "analysis", "archive",
            "index", "store", "http",
        ]
        .contains(&module.as_str())
        {
            for top in ["crawl", "manager", "web"] {
                if names.contains(top) {
                    wrong.push(format!("{module} names crate::{top}, which sits above it"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn each_outside_dependency_lives_in_its_module() {
    let homes: &[(&str, &[&str])] = &[
        ("sled", &["store"]),
        ("tantivy", &["index"]),
        ("sxd_xpath", &["aah"]),
        ("sxd_document", &["aah"]),
        ("actix_web", &["web"]),
        ("askama", &["web"]),
        ("lol_html", &["web"]),
        ("cssparser", &["web"]),
        ("whatlang", &["analysis"]),
        ("chardetng", &["parse"]),
        ("hashbrown", &["frontier"]),
        ("mimalloc", &["alloc"]),
        // The knowledge base is XML, and the helper reads the parse stage's HTML tree.
        ("quick_xml", &["aah", "parse"]),
        ("scraper", &["aah", "parse"]),
        ("html5ever", &["aah", "parse"]),
    ];
    let alternation: Vec<&str> = homes.iter().map(|(c, _)| *c).collect();
    let pattern = regex::Regex::new(&format!(r"\b({})::", alternation.join("|"))).unwrap();
    let used = names(&pattern);
    let mut wrong = Vec::new();
    for (module, crates) in &used {
        for c in crates {
            let (_, home) = homes.iter().find(|(name, _)| name == c).unwrap();
            if !home.contains(&module.as_str()) {
                wrong.push(format!("{module} names {c}, which lives in {home:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
