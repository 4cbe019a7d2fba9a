//! End-to-end: `magpie cdxj` against pywb's own indexer (`cdx-indexer -j -s`) on a crawl of the
//! fixture web with a topic (so the crawl writes magpie's JSON metadata records too), and
//! against webrecorder's `cdxj-indexer` (py-wacz's) where it is installed. What must agree and
//! what may differ is exactly what `docs/index.md` states:
//!
//! - every magpie line has a pywb line with the same key, timestamp, `url`, `mime`, `status`,
//!   `length`, `offset` and `filename`, in the same order;
//! - `digest` is `sha1:` + pywb's value (pywb strips the label; `cdxj-indexer` keeps it, and
//!   magpie's digest equals `cdxj-indexer`'s);
//! - pywb's extra lines are metadata records only (magpie indexes response, revisit and
//!   resource records).

use crate::support;

use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{harness, FixtureWeb};

const DUP: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Twin</title></head>\
    <body><p>Identical twin pages about solar power.</p></body></html>";

/// One parsed CDXJ line.
#[derive(Debug, Clone)]
struct Line {
    key: String,
    ts: String,
    fields: Map<String, Value>,
}

impl Line {
    fn parse(l: &str) -> Line {
        let mut parts = l.splitn(3, ' ');
        let key = parts.next().unwrap_or_default().to_string();
        let ts = parts.next().unwrap_or_default().to_string();
        let json: Value = serde_json::from_str(parts.next().unwrap_or("{}"))
            .unwrap_or_else(|e| panic!("bad CDXJ line {l:?}: {e}"));
        Line {
            key,
            ts,
            fields: json.as_object().cloned().unwrap_or_default(),
        }
    }

    fn get(&self, k: &str) -> &str {
        self.fields.get(k).and_then(Value::as_str).unwrap_or("")
    }

    /// Where the record is: (file, offset).
    fn at(&self) -> (String, String) {
        (self.get("filename").into(), self.get("offset").into())
    }
}

fn lines(text: &str) -> Vec<Line> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(Line::parse)
        .collect()
}

fn run(cmd: &str, args: &[&str], files: &[PathBuf], dir: &Path) -> String {
    let out = Command::new(cmd)
        .args(args)
        .args(files.iter().map(|f| f.file_name().unwrap()))
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn crawl() -> (FixtureWeb, tempfile::TempDir) {
    let web = FixtureWeb::start(1);
    let seeds = support::twin_site(&web, 0, DUP);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "cdx",
        &seeds,
        json!({ "topic": { "keywords": ["solar power", "page text"] } }),
    );
    harness::run(spec, data.path());
    (web, data)
}

#[test]
fn magpie_cdxj_agrees_with_pywb_cdx_indexer_field_by_field() {
    if !harness::tool_available("cdx-indexer", &["--help"], "MAGPIE_REQUIRE_PYWB") {
        return;
    }
    let (_web, data) = crawl();
    let files = harness::warc_files(data.path(), "cdx");
    let dir = files[0].parent().unwrap().to_path_buf();
    let ours = lines(&run(env!("CARGO_BIN_EXE_magpie"), &["cdxj"], &files, &dir));
    let pywb = lines(&run("cdx-indexer", &["-j", "-s"], &files, &dir));
    assert!(
        ours.iter().any(|l| l.get("mime") == "warc/revisit"),
        "the crawl has a revisit"
    );

    let by_place: HashMap<(String, String), &Line> = pywb.iter().map(|l| (l.at(), l)).collect();
    let mut matched = Vec::new();
    for o in &ours {
        let p = by_place
            .get(&o.at())
            .unwrap_or_else(|| panic!("pywb has no line for {o:?}"));
        assert_eq!((&o.key, &o.ts), (&p.key, &p.ts), "key and timestamp");
        for k in ["url", "mime", "status", "length", "offset", "filename"] {
            assert_eq!(o.fields.get(k), p.fields.get(k), "{k} of {}", o.get("url"));
        }
        assert_eq!(
            o.get("digest"),
            format!("sha1:{}", p.get("digest")),
            "digest of {}",
            o.get("url")
        );
        let mut keys: Vec<&String> = o.fields.keys().collect();
        let mut pkeys: Vec<&String> = p.fields.keys().collect();
        keys.sort();
        pkeys.sort();
        assert_eq!(keys, pkeys, "the same fields for {}", o.get("url"));
        matched.push(o.at());
    }
    // The same order: pywb's lines, less its extra ones, are magpie's.
    let pywb_order: Vec<(String, String)> = pywb
        .iter()
        .map(Line::at)
        .filter(|a| matched.contains(a))
        .collect();
    assert_eq!(pywb_order, matched, "sorted alike");
    // pywb's extra lines are metadata records, which magpie does not index.
    for p in pywb.iter().filter(|p| !matched.contains(&p.at())) {
        let offset: u64 = p.get("offset").parse().unwrap();
        let (head, _) = magpie::archive::read_record_at(&dir.join(p.get("filename")), offset)
            .expect("record at the line's offset");
        assert_eq!(head.record_type(), "metadata", "pywb's extra line {p:?}");
    }

    // webrecorder's cdxj-indexer (py-wacz's) keeps the digest's label, as magpie does.
    if harness::tool_available("cdxj-indexer", &["--help"], "MAGPIE_REQUIRE_WACZ") {
        let theirs = lines(&run("cdxj-indexer", &[], &files, &dir));
        let digests: HashMap<(String, String), String> = theirs
            .iter()
            .map(|l| (l.at(), l.get("digest").to_string()))
            .collect();
        for o in &ours {
            assert_eq!(
                digests.get(&o.at()).map(String::as_str),
                Some(o.get("digest")),
                "cdxj-indexer's digest of {}",
                o.get("url")
            );
        }
    }
}
