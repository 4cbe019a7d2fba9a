//! Running crawls from tests and reading back what they archived, with an independent reader
//! (the `warc` crate) and with `warcio check`.

use magpie::crawl::{self, stats::Stats, stats::Summary, CrawlOptions};
use magpie::spec::Spec;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// A spec for the fixture web: loopback allowed, short delays, small timeouts. `extra` is
/// merged over the defaults section by section.
pub fn spec(name: &str, seeds: &[String], extra: Value) -> Spec {
    let mut v = json!({
        "name": name,
        "seeds": seeds,
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 100, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "retry_delay_ms": 50, "max_pages": 500 },
        "network": { "allow_private": true }
    });
    merge(&mut v, extra);
    Spec::from_json(&v.to_string()).expect("test spec is valid")
}

fn merge(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(b), Value::Object(e)) => {
            for (k, v) in e {
                merge(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (b, e) => *b = e,
    }
}

/// Runs a crawl to completion in-process and returns its summary.
pub fn run(spec: Spec, data: &Path) -> Summary {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (_control, control_rx) = tokio::sync::mpsc::unbounded_channel();
    let opts = CrawlOptions {
        data: data.to_path_buf(),
        fresh: false,
        hostname: "testhost".into(),
    };
    rt.block_on(crawl::run(
        spec,
        opts,
        Arc::new(Stats::default()),
        control_rx,
        false,
    ))
    .expect("crawl runs")
}

/// One WARC record as the third-party reader sees it.
#[derive(Debug, Clone)]
pub struct Rec {
    /// The file it is in.
    pub file: PathBuf,
    /// `WARC-Type`.
    pub kind: String,
    /// `WARC-Target-URI`, empty for warcinfo.
    pub uri: String,
    /// All WARC fields, names as the reader normalises them.
    pub fields: HashMap<String, String>,
    /// The record block.
    pub body: Vec<u8>,
}

impl Rec {
    /// A WARC field by name (case-insensitive).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Length of the HTTP head (status line, headers, blank line) that starts the block.
    pub fn http_head_len(&self) -> Option<usize> {
        self.body
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|p| p + 4)
    }

    /// The HTTP status code of a response or revisit block.
    pub fn http_status(&self) -> Option<u16> {
        let line = self.body.split(|&b| b == b'\n').next()?;
        std::str::from_utf8(line)
            .ok()?
            .split(' ')
            .nth(1)?
            .parse()
            .ok()
    }

    /// The first HTTP header called `name` (case-insensitive) in the block's head, trimmed.
    pub fn http_header(&self, name: &str) -> Option<String> {
        let head = String::from_utf8_lossy(&self.body[..self.http_head_len()?]).into_owned();
        head.split("\r\n").skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }

    /// The block after the HTTP head: the payload as received (framing and codings kept).
    pub fn http_body(&self) -> &[u8] {
        &self.body[self.http_head_len().unwrap_or(self.body.len())..]
    }
}

/// The records of type `kind` whose target is `uri`, in file order.
pub fn find<'a>(recs: &'a [Rec], kind: &str, uri: &str) -> Vec<&'a Rec> {
    recs.iter()
        .filter(|r| r.kind == kind && r.uri == uri)
        .collect()
}

/// The only record of type `kind` for `uri`; panics if there is not exactly one.
pub fn one<'a>(recs: &'a [Rec], kind: &str, uri: &str) -> &'a Rec {
    match find(recs, kind, uri).as_slice() {
        [r] => r,
        other => panic!(
            "expected one {kind} record for {uri}, found {}",
            other.len()
        ),
    }
}

/// `sha1:` + base32 of `bytes`, the form of WARC digests, computed independently of magpie.
pub fn sha1_label(bytes: &[u8]) -> String {
    use sha1::Digest;
    format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&sha1::Sha1::digest(bytes))
    )
}

/// The sealed WARC files of a crawl, in name order.
pub fn warc_files(data: &Path, crawl: &str) -> Vec<PathBuf> {
    let dir = data.join(crawl).join("warc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.to_string_lossy().ends_with(".warc.gz"));
    files.sort();
    files
}

/// Every record of the crawl's WARC files, read with the `warc` crate.
pub fn records(data: &Path, crawl: &str) -> Vec<Rec> {
    let mut out = Vec::new();
    for file in warc_files(data, crawl) {
        let f = File::open(&file).expect("open warc");
        let reader = warc::WarcReader::new(BufReader::new(flate2::read::MultiGzDecoder::new(f)));
        for r in reader.iter_raw_records() {
            let (head, body) =
                r.unwrap_or_else(|e| panic!("{}: unreadable record: {e}", file.display()));
            let fields: HashMap<String, String> = head
                .headers
                .iter()
                .map(|(k, v)| {
                    (
                        String::from(k.clone()),
                        String::from_utf8_lossy(v).into_owned(),
                    )
                })
                .collect();
            let get = |n: &str| {
                fields
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(n))
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            out.push(Rec {
                file: file.clone(),
                kind: get("WARC-Type"),
                uri: get("WARC-Target-URI"),
                fields: fields.clone(),
                body,
            });
        }
    }
    out
}

/// Target URIs of `response` (and `revisit`) records.
pub fn captured(recs: &[Rec]) -> Vec<String> {
    recs.iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .map(|r| r.uri.clone())
        .collect()
}

/// Runs `warcio check -v` on the files. Without warcio this fails when
/// `MAGPIE_REQUIRE_WARCIO=1` (as in CI), and otherwise only prints a note.
pub fn warcio_check(files: &[PathBuf]) {
    if let Some(problems) = warcio_problems(files) {
        assert!(problems.is_empty(), "warcio check failed: {problems:?}");
    }
}

/// What `warcio check -v` finds wrong, as (record ID, problem) pairs; `None` without warcio
/// (which fails when `MAGPIE_REQUIRE_WARCIO=1`, as in CI).
pub fn warcio_problems(files: &[PathBuf]) -> Option<Vec<(String, String)>> {
    assert!(!files.is_empty(), "no WARC files to check");
    let out = match Command::new("warcio")
        .arg("check")
        .arg("-v")
        .args(files)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            if std::env::var("MAGPIE_REQUIRE_WARCIO").as_deref() == Ok("1") {
                panic!("warcio is required but cannot run: {e}");
            }
            eprintln!("note: warcio not available ({e}); independent check skipped");
            return None;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut problems = Vec::new();
    let mut record = String::new();
    // warcio's own verdicts on a sound record (checker.py); any other line under a record is a
    // problem it found.
    const SOUND: [&str; 4] = [
        "digest pass",
        "no digest to check",
        "digest present but not checked (revisit)",
        "digest present but not checked",
    ];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    for line in stdout.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("offset ") {
            record = rest.split(' ').nth(2).unwrap_or_default().to_string();
        } else if !line.is_empty() && !SOUND.contains(&line) && !names.iter().any(|n| n == line) {
            problems.push((record.clone(), line.to_string()));
        }
    }
    assert_eq!(
        out.status.success(),
        problems.is_empty(),
        "warcio's verdict and its lines disagree:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(problems)
}

/// Whether a third-party tool runs (`cmd args` exits 0). Without it this fails when the
/// environment variable `require` is `1` (as in CI), and otherwise prints a note, so a test
/// can skip itself on a machine without the tool.
pub fn tool_available(cmd: &str, args: &[&str], require: &str) -> bool {
    let ok = Command::new(cmd)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var(require).as_deref() == Ok("1") {
            panic!("{cmd} is required ({require}=1) but cannot run");
        }
        eprintln!("note: {cmd} not available; test skipped");
    }
    ok
}
