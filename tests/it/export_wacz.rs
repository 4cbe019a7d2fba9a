//! End-to-end: a crawl of the fixture web with a topic (so magpie's JSON analysis records are
//! archived beside the request and metadata records) is exported.
//!
//! - Every record count the export reports (the CLI's, the preview's, the API's, which share
//!   one code path) equals the number of records the written file holds, read back with the
//!   independent `warc` crate.
//! - `magpie export --format wacz` and `magpie wacz` write WACZ 1.1.1 packages that py-wacz's
//!   `wacz validate` accepts; the test also checks what the validator does not: `pages.jsonl`
//!   lists every archived 2xx HTML page once with its title and nothing else, the CDXJ points
//!   at the records, the WARC files are stored uncompressed, every hash; and both packages
//!   go into pywb the standard way (`wb-manager add --unpack-wacz`), whose `wayback` then
//!   replays their pages byte-identical (`id_` mode) and rewritten with their titles.

use crate::support;

use magpie::crawl::reindex::{self, TextLimits};
use magpie::export::{self, ExportRequest};
use magpie::index::{self, Index, SearchQuery};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{client, harness, pywb, FixtureWeb};

const DUP: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Twin</title></head>\
    <body><p>Identical twin pages about solar power.</p></body></html>";

struct Crawled {
    web: FixtureWeb,
    data: tempfile::TempDir,
}

fn crawl() -> Crawled {
    let web = FixtureWeb::start(1);
    let seeds = support::twin_site(&web, 0, DUP);
    let data = tempfile::tempdir().unwrap();
    let spec = harness::spec(
        "wz",
        &seeds,
        json!({ "topic": { "keywords": ["solar power", "page text"] } }),
    );
    harness::run(spec, data.path());
    let index = Index::open(&index::index_dir(data.path(), "wz")).unwrap();
    reindex::rebuild(
        &index,
        &index::warc_dir(data.path(), "wz"),
        &TextLimits::default(),
    )
    .unwrap();
    Crawled { web, data }
}

/// Records of one WARC file, read with the `warc` crate.
fn records_of(file: &Path) -> Vec<harness::Rec> {
    let dir = tempfile::tempdir().unwrap();
    let crawl_dir = dir.path().join("x").join("warc");
    std::fs::create_dir_all(&crawl_dir).unwrap();
    std::fs::copy(file, crawl_dir.join("a.warc.gz")).unwrap();
    harness::records(dir.path(), "x")
}

#[test]
fn every_reported_record_count_is_the_number_of_records_written() {
    let c = crawl();
    let analysis = harness::records(c.data.path(), "wz")
        .iter()
        .filter(|r| {
            r.field("Content-Type") == Some("application/vnd.magpie.analysis+json")
                && r.kind == "metadata"
        })
        .count();
    assert!(analysis > 0, "the crawl wrote analysis records");
    let data = c.data.path();
    let index = Index::open(&index::index_dir(data, "wz")).unwrap();
    let warcs = index::warc_dir(data, "wz");
    for (q, embeds) in [
        (SearchQuery::default(), false),
        (SearchQuery::text("title:\"basic home\""), true),
        (
            SearchQuery::text(format!("url:\"{}\"", c.web.url(0, "/dup-b.html"))),
            false,
        ),
    ] {
        let req = ExportRequest {
            query: q.clone(),
            with_embeds: embeds,
            crawl: "wz".into(),
        };
        let out = data.join("out.warc.gz");
        let report = export::cli::export_to_file(data, &req, &out).unwrap();
        let recs = records_of(&out);
        let json_records = recs
            .iter()
            .filter(|r| {
                r.field("Content-Type")
                    .is_some_and(|t| t.starts_with("application/vnd.magpie."))
            })
            .count();
        assert!(json_records > 0, "{q:?}: JSON records exported");
        assert_eq!(report.records, recs.len(), "{q:?}: the export's count");
        let preview = export::preview(&index, &warcs, &req, "out.warc.gz").unwrap();
        assert_eq!(preview.records, recs.len(), "{q:?}: the preview's count");
        std::fs::remove_file(&out).unwrap();
    }
}

/// The entries of a ZIP file: name → (bytes, stored uncompressed).
fn unzip(file: &Path) -> BTreeMap<String, (Vec<u8>, bool)> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(file).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..z.len() {
        let mut e = z.by_index(i).unwrap();
        let stored = e.compression() == zip::CompressionMethod::Stored;
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        out.insert(e.name().to_string(), (data, stored));
    }
    out
}

fn magpie(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "magpie {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `wacz validate --file FILE` passes (skipped without py-wacz unless required).
fn wacz_validate(file: &Path) {
    if !harness::tool_available("wacz", &["--help"], "MAGPIE_REQUIRE_WACZ") {
        return;
    }
    let out = Command::new("wacz")
        .args(["validate", "--file"])
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("Validation succeeded"),
        "wacz validate:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn title_of(html: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(html);
    let start = s.find("<title>")? + "<title>".len();
    let end = s[start..].find("</title>")? + start;
    Some(s[start..end].to_string())
}

/// The pages a package must list, from the WARC records themselves: every 2xx `text/html`
/// response or revisit, by URL, with its date and title (a revisit's from its original).
fn expected_pages(recs: &[harness::Rec]) -> BTreeMap<String, (String, Option<String>)> {
    let by_id: BTreeMap<&str, &harness::Rec> = recs
        .iter()
        .filter_map(|r| Some((r.field("WARC-Record-ID")?, r)))
        .collect();
    let mut out = BTreeMap::new();
    for r in recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
    {
        let html = r
            .http_header("content-type")
            .is_some_and(|t| t.starts_with("text/html"));
        if !html || !(200..300).contains(&r.http_status().unwrap_or(0)) {
            continue;
        }
        let body_of = match r.field("WARC-Refers-To") {
            Some(id) if r.kind == "revisit" => by_id[id],
            _ => r,
        };
        let date = r.field("WARC-Date").unwrap().to_string();
        out.entry(r.uri.clone())
            .or_insert((date, title_of(body_of.http_body())));
    }
    out
}

/// Checks a package against the records of its WARC files; returns the files of `archive/`.
fn check_package(wacz: &Path) -> BTreeMap<String, Vec<u8>> {
    wacz_validate(wacz);
    let entries = unzip(wacz);
    let archive: BTreeMap<String, Vec<u8>> = entries
        .iter()
        .filter_map(|(n, (d, stored))| {
            let name = n.strip_prefix("archive/")?;
            assert!(stored, "{n} is stored uncompressed");
            Some((name.to_string(), d.clone()))
        })
        .collect();
    assert!(!archive.is_empty(), "archive/ holds the WARC files");
    let mut names: BTreeSet<String> = entries.keys().cloned().collect();
    for a in archive.keys() {
        names.remove(&format!("archive/{a}"));
    }
    let want: BTreeSet<String> = [
        "datapackage-digest.json",
        "datapackage.json",
        "indexes/index.cdx",
        "pages/pages.jsonl",
    ]
    .map(String::from)
    .into();
    assert_eq!(names, want);

    // The records, read with the warc crate.
    let dir = tempfile::tempdir().unwrap();
    let warc_dir = dir.path().join("x").join("warc");
    std::fs::create_dir_all(&warc_dir).unwrap();
    for (n, d) in &archive {
        std::fs::write(warc_dir.join(n), d).unwrap();
    }
    let recs = harness::records(dir.path(), "x");

    // pages.jsonl: the header, then every archived 2xx HTML page once, with its title.
    let text = String::from_utf8(entries["pages/pages.jsonl"].0.clone()).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(r#"{"format":"json-pages-1.0","id":"pages","title":"All Pages"}"#)
    );
    let mut got = BTreeMap::new();
    for l in lines {
        let v: Value = serde_json::from_str(l).unwrap();
        let url = v["url"].as_str().unwrap().to_string();
        let ts = chrono::DateTime::parse_from_rfc3339(v["ts"].as_str().unwrap())
            .unwrap_or_else(|e| panic!("ts of {url} is RFC 3339: {e}"));
        let title = v["title"].as_str().map(String::from);
        assert!(
            got.insert(url.clone(), (ts.to_rfc3339(), title)).is_none(),
            "{url} listed once"
        );
    }
    let want: BTreeMap<String, (String, Option<String>)> = expected_pages(&recs)
        .into_iter()
        .map(|(u, (d, t))| {
            let d = chrono::DateTime::parse_from_rfc3339(&d)
                .unwrap()
                .to_rfc3339();
            (u, (d, t))
        })
        .collect();
    assert_eq!(got, want, "pages.jsonl");
    assert!(got.values().all(|(_, t)| t.is_some()), "every page titled");

    // indexes/index.cdx (CDXJ): sorted, one line per response and revisit, each at its record.
    let cdxj = String::from_utf8(entries["indexes/index.cdx"].0.clone()).unwrap();
    let lines: Vec<&str> = cdxj.lines().collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "the CDXJ is sorted");
    let captures = recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
        .count();
    assert_eq!(lines.len(), captures);
    for l in &lines {
        let v: Value = serde_json::from_str(&l[l.find('{').unwrap()..]).unwrap();
        let file = warc_dir.join(v["filename"].as_str().unwrap());
        let offset = v["offset"].as_str().unwrap().parse().unwrap();
        let (head, _) = magpie::archive::read_record_at(&file, offset).unwrap();
        assert_eq!(head.field("WARC-Target-URI"), v["url"].as_str());
        assert_eq!(head.field("WARC-Payload-Digest"), v["digest"].as_str());
    }

    // datapackage.json lists every other file with its size and SHA-256; the digest file
    // holds the SHA-256 of datapackage.json.
    let package = &entries["datapackage.json"].0;
    let p: Value = serde_json::from_slice(package).unwrap();
    assert_eq!(p["profile"], "data-package");
    assert_eq!(p["wacz_version"], "1.1.1");
    assert!(p["software"].as_str().unwrap().starts_with("magpie "));
    chrono::DateTime::parse_from_rfc3339(p["created"].as_str().unwrap()).unwrap();
    let sha = |d: &[u8]| format!("sha256:{:x}", Sha256::digest(d));
    let mut listed = BTreeSet::new();
    for r in p["resources"].as_array().unwrap() {
        let path = r["path"].as_str().unwrap();
        let (data, _) = &entries[path];
        assert_eq!(r["bytes"], data.len() as u64, "{path}");
        assert_eq!(r["hash"], sha(data), "{path}");
        assert!(r["name"].as_str().is_some_and(|n| !n.is_empty()));
        listed.insert(path.to_string());
    }
    let others: BTreeSet<String> = entries
        .keys()
        .filter(|n| !n.starts_with("datapackage"))
        .cloned()
        .collect();
    assert_eq!(listed, others);
    let digest: Value = serde_json::from_slice(&entries["datapackage-digest.json"].0).unwrap();
    assert_eq!(digest["path"], "datapackage.json");
    assert_eq!(digest["hash"], sha(package));
    archive
}

#[test]
fn an_export_as_wacz_validates_lists_its_pages_and_replays_in_pywb() {
    let c = crawl();
    let data = c.data.path();
    let out = data.join("sel.wacz");
    let summary = magpie(&[
        "export",
        "wz",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "wacz",
    ]);
    assert!(summary.contains("WACZ 1.1.1"), "{summary}");
    assert!(!data.join("sel.wacz.cdxj").exists(), "the CDXJ is inside");
    let archive = check_package(&out);
    assert_eq!(
        archive.keys().collect::<Vec<_>>(),
        ["sel.warc.gz"],
        "the export's one WARC file"
    );
    let pages = String::from_utf8(unzip(&out)["pages/pages.jsonl"].0.clone()).unwrap();
    for (path, title) in [
        ("/", "Basic home"),
        ("/a.html", "Page A"),
        ("/dup-b.html", "Twin"),
    ] {
        let want = format!("\"url\":\"{}\"", c.web.url(0, path));
        let line = pages.lines().find(|l| l.contains(&want));
        assert!(
            line.is_some_and(|l| l.contains(&format!("\"title\":\"{title}\""))),
            "{path} listed with its title:\n{pages}"
        );
    }
    assert!(!pages.contains("style.css") && !pages.contains("robots.txt"));

    let pages = [
        ("/", client::get(&c.web, 0, "/").body),
        ("/a.html", client::get(&c.web, 0, "/a.html").body),
        ("/dup-b.html", DUP.as_bytes().to_vec()),
    ];
    replay_unpacked(&out, &c.web, &pages);
}

/// pywb's standard way in: `wb-manager init c`, `wb-manager add --unpack-wacz c WACZ` (which
/// copies the WARC files of `archive/` under new names and merges the indexes of `indexes/`
/// with their `filename`s rewritten to match); then `wayback` replays each page of `pages`
/// (path → payload served by the fixture) byte for byte in identity mode, and rewritten
/// (`mp_`) with its title. Skipped without pywb unless `MAGPIE_REQUIRE_PYWB=1`.
fn replay_unpacked(wacz: &Path, web: &FixtureWeb, pages: &[(&str, Vec<u8>)]) {
    if !harness::tool_available("wb-manager", &["--help"], "MAGPIE_REQUIRE_PYWB") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let coll = pywb::init_collection(root.path(), "c");
    // wb-manager exits 0 even when it finds no WARC file or no index in the package (it
    // only logs a warning), so what it added is checked below.
    pywb::wb_manager(
        root.path(),
        &["add", "--unpack-wacz", "c", wacz.to_str().unwrap()],
    );
    let entries = unzip(wacz);
    let packed: BTreeSet<&Vec<u8>> = entries
        .iter()
        .filter(|(n, _)| n.starts_with("archive/"))
        .map(|(_, (d, _))| d)
        .collect();
    let added: Vec<Vec<u8>> = std::fs::read_dir(coll.join("archive"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(added.len(), packed.len(), "pywb added every WARC file");
    assert!(
        added.iter().all(|d| packed.contains(d)),
        "pywb added the package's WARC files unchanged"
    );
    let index = std::fs::read_to_string(coll.join("indexes").join("index.cdxj"))
        .expect("pywb wrote the collection's index from the package's");
    let packed_index = String::from_utf8(entries["indexes/index.cdx"].0.clone()).unwrap();
    assert_eq!(
        index.lines().count(),
        packed_index.lines().count(),
        "pywb took every line of the package's index:\n{index}"
    );
    let wayback = pywb::Wayback::start(root.path());
    for (path, body) in pages {
        let url = web.url(0, path);
        let ts = index
            .lines()
            .find(|l| l.contains(&format!("\"url\": \"{url}\"")))
            .and_then(|l| l.split(' ').nth(1))
            .unwrap_or_else(|| panic!("{url} in pywb's index"));
        let (status, got) = wayback.replay_id("c", ts, &url);
        assert_eq!(status, 200, "{url}: {}", String::from_utf8_lossy(&got));
        assert_eq!(&got, body, "{url} replays byte for byte");
        let title = title_of(body).unwrap_or_else(|| panic!("{url} has a title"));
        let (status, got) = wayback.get(&format!("/c/{ts}mp_/{url}"));
        let text = String::from_utf8_lossy(&got);
        assert_eq!(status, 200, "{url} rewritten: {text}");
        assert!(
            text.contains(&format!("<title>{title}</title>")),
            "{url} replays rewritten with its title:\n{text}"
        );
    }
}

#[test]
fn a_whole_crawl_as_wacz_holds_the_crawl_files_unchanged_and_unpacks_in_pywb() {
    let c = crawl();
    let data = c.data.path();
    let out = data.join("all.wacz");
    let summary = magpie(&[
        "wacz",
        "wz",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(summary.contains("WACZ 1.1.1"), "{summary}");
    let archive = check_package(&out);
    let files: Vec<PathBuf> = harness::warc_files(data, "wz");
    assert_eq!(archive.len(), files.len());
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            archive.get(&name),
            Some(&std::fs::read(&f).unwrap()),
            "{name} byte for byte"
        );
    }
    let pages = [
        ("/", client::get(&c.web, 0, "/").body),
        ("/dup-a.html", DUP.as_bytes().to_vec()),
        ("/dup-b.html", DUP.as_bytes().to_vec()),
    ];
    replay_unpacked(&out, &c.web, &pages);
}
