//! Damaged crawl state never silently starts a crawl over: through the real `magpie` binary,
//! a truncated or overwritten `state/db`, a deleted `state/` next to WARC files, and a damaged
//! value in the store each stop the crawl with one error line naming the file, fetch nothing,
//! and leave `--fresh` as the way to start over. A `state/db` cut to half, or with 4 KiB of
//! random bytes in its middle, after a killed crawl (which sled may read back as an earlier
//! commit) also leaves every byte of every WARC file as it was.

use crate::support;

use serde_json::json;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output};
use support::{basic_site, FixtureWeb};

fn magpie(spec: &Path, data: &Path, fresh: bool) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_magpie"));
    c.arg("crawl")
        .arg(spec)
        .arg("--data")
        .arg(data)
        .arg("--json");
    if fresh {
        c.arg("--fresh");
    }
    c.output().expect("run magpie")
}

/// Runs a crawl that stops at `max_pages` with URLs still queued; returns the spec's path.
fn interrupted_crawl(web: &FixtureWeb, dir: &Path, data: &Path) -> std::path::PathBuf {
    let site = basic_site(web, 0);
    let spec = json!({
        "name": "st",
        "seeds": [site.seed],
        "limits": { "max_pages": 3 },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10, "delay_factor": 0.0 },
        "network": { "allow_private": true }
    });
    let path = dir.join("spec.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    let out = magpie(&path, data, false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["stop_reason"], "max-pages");
    assert!(summary["urls_queued"].as_u64().unwrap() > 0);
    path
}

/// Damages the crawl with `damage`, then checks the refusal, and that `--fresh` starts over.
fn refused_then_fresh(damage: impl FnOnce(&Path), names: &str) {
    let web = FixtureWeb::start(2);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = interrupted_crawl(&web, dir.path(), &data);
    damage(&data.join("st"));
    let hits = web.hits().len();

    let out = magpie(&spec, &data, false);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "refused: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    let file = data.join("st").join(names);
    assert!(
        err.contains(&file.display().to_string()),
        "names {names}: {err}"
    );
    assert!(err.contains("--fresh"), "{err}");
    assert_eq!(web.hits().len(), hits, "nothing fetched");

    let out = magpie(&spec, &data, true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(web.hits().len() > hits, "--fresh crawls again");
    let aside = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("st.old-"))
        .count();
    assert_eq!(aside, 1, "the damaged crawl is moved aside, not deleted");
}

#[test]
fn a_truncated_state_db_is_refused() {
    refused_then_fresh(
        |crawl| {
            let db = std::fs::OpenOptions::new()
                .write(true)
                .open(crawl.join("state/db"))
                .unwrap();
            db.set_len(0).unwrap();
        },
        "state/db",
    );
}

#[test]
fn a_state_db_cut_to_half_after_a_clean_stop_is_refused() {
    refused_then_fresh(
        |crawl| {
            let db = std::fs::OpenOptions::new()
                .write(true)
                .open(crawl.join("state/db"))
                .unwrap();
            db.set_len(db.metadata().unwrap().len() / 2).unwrap();
        },
        "state/db",
    );
}

#[test]
fn a_state_db_with_its_first_512_bytes_overwritten_is_refused() {
    refused_then_fresh(
        |crawl| {
            let db = std::fs::OpenOptions::new()
                .write(true)
                .open(crawl.join("state/db"))
                .unwrap();
            db.write_all_at(&[0xa5; 512], 0).unwrap();
        },
        "state/db",
    );
}

#[test]
fn a_deleted_state_next_to_warc_files_is_refused() {
    refused_then_fresh(
        |crawl| std::fs::remove_dir_all(crawl.join("state")).unwrap(),
        "state",
    );
}

#[test]
fn a_damaged_checkpoint_or_totals_value_is_refused() {
    for key in [magpie::store::Meta::Checkpoint, magpie::store::Meta::Totals] {
        refused_then_fresh(
            |crawl| {
                let store = magpie::store::Store::open(&crawl.join("state")).unwrap();
                let mut ws = magpie::store::WriteSet::default();
                ws.put(
                    magpie::store::Key::Meta(key).bytes(),
                    b"{\"file\": 12".to_vec(),
                );
                store.commit(ws).unwrap();
            },
            "state",
        );
    }
}

/// A damaged record the helper reads only when a page of its host comes (an adoption) stops the
/// resumed crawl at that page, with one line naming the record, rather than failing page after
/// page or reading the host without what the store lost.
#[test]
fn a_damaged_record_of_the_helpers_store_stops_the_crawl_naming_it() {
    let web = FixtureWeb::start(2);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = interrupted_crawl(&web, dir.path(), &data);
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&spec).unwrap()).unwrap();
    let seed = url::Url::parse(written["seeds"][0].as_str().unwrap()).unwrap();
    let host = magpie::uri::host_key(&seed);
    {
        let store = magpie::store::Store::open(&data.join("st/state")).unwrap();
        let mut ws = magpie::store::WriteSet::default();
        let key = magpie::store::Key::Adoption {
            host: &host,
            application: "unknown",
            action: "*/category",
        };
        ws.put(key.bytes(), b"{\"host\": ".to_vec());
        store.commit(ws).unwrap();
    }
    // Resumed with room for more pages than the first run's three.
    let mut more = written.clone();
    more["limits"]["max_pages"] = serde_json::json!(50);
    std::fs::write(&spec, more.to_string()).unwrap();
    let hits = web.hits().len();
    let out = magpie(&spec, &data, false);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "stopped: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains(&host) && err.contains("*/category"), "{err}");
    // The page it met the record on (with robots.txt, and what was in flight), not the rest.
    assert!(web.hits().len() <= hits + 4, "{:?}", &web.hits()[hits..]);
}

/// Every file in the crawl's `warc/` folder (sealed or `.open`), with its bytes.
fn warc_snapshot(crawl: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(crawl.join("warc"))
        .unwrap()
        .flatten()
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap();
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// Crawls three 48-page sites (144 pages), kills the crawl (SIGKILL) while the one page left,
/// which never finishes, is still being fetched, damages its `state/db` with `damage` (given
/// the file's length), and checks that the next run stops with one line naming the file,
/// fetches nothing, and leaves every byte of every WARC file as it was: the records of the
/// 144 pages were committed, and none may be cut off, nor the file in progress removed.
fn killed_then_damaged(what: &str, damage: impl FnOnce(&std::fs::File, u64)) {
    let web = FixtureWeb::start(3);
    let mut seeds = Vec::new();
    for host in 0..3 {
        let mut paths: Vec<String> = (0..47).map(|i| format!("/p{i}.html")).collect();
        for p in &paths {
            let body = support::page(&format!("{host}{p}"), "", &["/"]);
            web.route(host, p, support::Reply::html(body));
        }
        if host == 0 {
            paths.push("/slow.html".into());
        }
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let home = support::page(&format!("home {host}"), "", &refs);
        web.route(host, "/", support::Reply::html(home));
        seeds.push(web.url(host, "/"));
    }
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<p>";
    web.route(
        0,
        "/slow.html",
        support::Reply::SlowDrip {
            head: head.to_vec(),
            byte: b'z',
            every: std::time::Duration::from_millis(100),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = json!({
        "name": "st",
        "seeds": seeds,
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 10, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 60000, "max_retries": 0 },
        "network": { "allow_private": true }
    });
    let path = dir.path().join("spec.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .arg("crawl")
        .arg(&path)
        .arg("--data")
        .arg(&data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // 144 pages, their robots.txt, and the slow page.
    let t0 = std::time::Instant::now();
    while web.hits().len() < 144 + 3 + 1 {
        assert!(t0.elapsed().as_secs() < 60, "the crawl made no progress");
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // The last commit written: the state's files and the WARC folder unchanged for a second.
    let crawl = data.join("st");
    let stamps = || {
        let files = ["state/db", "state/frontier/ops.log", "warc"].map(|f| crawl.join(f));
        let mut all: Vec<_> = std::fs::read_dir(crawl.join("warc"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .chain(files)
            .map(|f| {
                let m = std::fs::metadata(&f).unwrap();
                (f, m.len(), m.modified().unwrap())
            })
            .collect();
        all.sort();
        all
    };
    let (mut last, mut since) = (stamps(), std::time::Instant::now());
    while since.elapsed().as_millis() < 1000 {
        assert!(t0.elapsed().as_secs() < 90, "the crawl never went quiet");
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = stamps();
        if now != last {
            (last, since) = (now, std::time::Instant::now());
        }
    }
    assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
    child.kill().unwrap();
    child.wait().unwrap();
    let before = warc_snapshot(&crawl);
    assert!(
        before.keys().any(|n| n.ends_with(".open")),
        "a WARC file in progress: {:?}",
        before.keys()
    );
    let hits = web.hits().len();

    let db_path = crawl.join("state/db");
    let db = std::fs::OpenOptions::new()
        .write(true)
        .open(&db_path)
        .unwrap();
    let len = db.metadata().unwrap().len();
    damage(&db, len);
    drop(db);

    let out = magpie(&path, &data, false);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{what}: refused: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{what}: one line: {err}");
    assert!(
        err.contains(&db_path.display().to_string()) && err.contains("--fresh"),
        "{what}: names the file: {err}"
    );
    assert_eq!(web.hits().len(), hits, "{what}: nothing fetched");
    let after = warc_snapshot(&crawl);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "{what}: no WARC file removed or renamed"
    );
    for (name, bytes) in &before {
        assert!(after[name] == *bytes, "{what}: {name} changed");
    }
}

#[test]
fn a_state_db_cut_to_half_is_refused_and_no_warc_byte_changes() {
    killed_then_damaged("cut to half", |db, len| db.set_len(len / 2).unwrap());
}

#[test]
fn a_state_db_with_4_kib_of_random_bytes_in_its_middle_is_refused_and_no_warc_byte_changes() {
    let seed: u64 = std::env::var("MAGPIE_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("random bytes from MAGPIE_FAULT_SEED={seed}");
    let mut rng = seed | 1;
    let noise: Vec<u8> = (0..4096)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng as u8
        })
        .collect();
    killed_then_damaged(&format!("garbled (seed {seed})"), |db, len| {
        db.write_all_at(&noise, (len / 2).saturating_sub(2048))
            .unwrap()
    });
}
