//! Damaged crawl state never silently starts a crawl over: through the real `magpie` binary,
//! a truncated or overwritten `state/db`, a deleted `state/` next to WARC files, and a damaged
//! value in the store each stop the crawl with one error line naming the file, fetch nothing,
//! and leave `--fresh` as the way to start over.

mod support;

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
    for key in ["checkpoint", "totals"] {
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
