//! Every tunable constant of `src/` (a number or a duration fixed in the code: caps, shares,
//! delays, thresholds) is listed, with its value and why it is what it is, in one place:
//! `docs/constants.md`, which this test writes from the code and checks is current. Each
//! constant stays beside the code it tunes; the catalogue is where an operator or a reviewer
//! finds them all.
//!
//! `MAGPIE_BLESS=1 cargo test --test it constants` rewrites the catalogue after a change.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The types of a tunable constant.
const TYPES: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i32", "i64", "f32", "f64", "Duration",
];

struct Constant {
    name: String,
    value: String,
    why: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs")
            && !p.file_stem().unwrap().to_string_lossy().contains("tests")
        {
            out.push(p);
        }
    }
}

/// The tunable constants of one file, outside its test module, in order.
fn constants(text: &str) -> Vec<Constant> {
    let decl = regex::Regex::new(
        r"^\s*(?:pub(?:\([a-z]+\))? )?const ([A-Z][A-Z0-9_]*): ([A-Za-z0-9]+) =\s*(.*)$",
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut doc: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]" {
            break;
        }
        // A doc comment, or a plain one above a constant local to a function.
        if let Some(d) = trimmed.strip_prefix("//") {
            doc.push(d.trim_start_matches('/').trim().to_string());
            i += 1;
            continue;
        }
        if let Some(c) = decl.captures(line) {
            if TYPES.contains(&&c[2]) {
                let mut value = c[3].to_string();
                while !value.trim_end().ends_with(';') && i + 1 < lines.len() {
                    i += 1;
                    value.push(' ');
                    value.push_str(lines[i].trim());
                }
                let value = value.trim_end().trim_end_matches(';').trim().to_string();
                out.push(Constant {
                    name: c[1].to_string(),
                    value,
                    why: doc.join(" "),
                });
            }
        }
        if !trimmed.starts_with("#[") {
            doc.clear();
        }
        i += 1;
    }
    out
}

fn catalogue(root: &Path) -> String {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut text = String::from(
        "# Tunable constants\n\n\
         Every number and duration fixed in magpie's code that tunes its behaviour (caps, \
         shares, delays, thresholds), with its value and why, by file in the order of the code. \
         What an operator sets per crawl is in the spec (`docs/crawl-spec.md`); these are the \
         rest. Written from the code by `tests/it/constants.rs`, which fails when this file is \
         out of date; `MAGPIE_BLESS=1 cargo test --release --test it constants` rewrites it.\n",
    );
    let mut total = 0;
    for f in &files {
        let found = constants(&std::fs::read_to_string(f).unwrap());
        if found.is_empty() {
            continue;
        }
        total += found.len();
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        write!(
            text,
            "\n## `{rel}`\n\n| constant | value | why |\n|---|---|---|\n"
        )
        .unwrap();
        for c in found {
            let why = if c.why.is_empty() {
                "(no comment)".to_string()
            } else {
                c.why.replace('|', "\\|")
            };
            let value = c.value.replace('|', "\\|");
            writeln!(text, "| `{}` | `{}` | {} |", c.name, value, why).unwrap();
        }
    }
    write!(text, "\n{total} constants.\n").unwrap();
    text
}

#[test]
fn every_tunable_constant_is_in_the_catalogue_with_why() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let want = catalogue(root);
    let path = root.join("docs/constants.md");
    if std::env::var_os("MAGPIE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/constants.md is not the catalogue of the code's constants; rewrite it with \
         MAGPIE_BLESS=1 cargo test --release --test it constants"
    );
    // Each constant says why it is what it is.
    let silent: Vec<&str> = want
        .lines()
        .filter(|l| l.ends_with("| (no comment) |"))
        .collect();
    assert!(
        silent.is_empty(),
        "constants without a doc comment: {silent:#?}"
    );
}
