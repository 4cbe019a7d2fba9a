//! Tests of the index writer: commits with the durable position, a stopped indexer and why,
//! dropped and second writers, schema changes.

use super::tests::doc;
use super::*;
use crate::archive::RecordLocation;

#[test]
fn indexer_commits_with_the_durable_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = Index::open(dir.path()).expect("open");
    assert_eq!(index.position().expect("position"), None);
    let indexer = index
        .indexer(IndexerConfig {
            commit_every: std::time::Duration::from_secs(3600),
            queue: 2,
        })
        .expect("indexer");
    let loc = RecordLocation {
        file: "f.warc.gz".into(),
        offset: 10,
        length: 5,
    };
    for n in 0..5 {
        let d = doc(n, &format!("http://e.org/{n}"), "t", "words", 200, None).finish(
            (&loc).into(),
            None,
            None,
            None,
        );
        indexer.capture(d).expect("queue");
    }
    let cp = |offset| Checkpoint {
        file: "f.warc.gz".into(),
        offset,
    };
    indexer.commit(cp(100)).expect("durable");
    let stats = indexer.close(Some(cp(200))).expect("close");
    assert_eq!(
        stats,
        IndexerStats {
            documents: 5,
            commits: 1
        }
    );
    index.refresh().expect("refresh");
    assert_eq!(index.num_docs(), 5);
    assert_eq!(index.position().expect("position"), Some(cp(200)));
    drop(index);
    let again = Index::open(dir.path()).expect("reopen");
    assert_eq!(again.num_docs(), 5);
    assert_eq!(again.position().expect("position"), Some(cp(200)));
    assert!(again.writer().is_ok(), "lock released by close");
}

#[test]
fn a_stopped_indexer_says_why_to_the_next_send() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("index");
    let index = Index::open(&path).expect("open");
    let indexer = index
        .indexer(IndexerConfig {
            commit_every: std::time::Duration::ZERO,
            queue: 1,
        })
        .expect("indexer");
    indexer
        .capture(doc(1, "http://e.org/1", "t", "x", 200, None))
        .expect("queue");
    // The index's folder moves away: the next commit cannot write its files.
    std::fs::rename(&path, dir.path().join("moved")).expect("move");
    let cp = Checkpoint {
        file: "f".into(),
        offset: 1,
    };
    let mut stopped = None;
    for n in 0..500 {
        let sent = match n {
            0 => indexer.commit(cp.clone()),
            _ => indexer.capture(doc(n, "http://e.org/n", "t", "x", 200, None)),
        };
        if let Err(e) = sent {
            stopped = Some(e);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let text = stopped.expect("the indexer stops").to_string();
    assert!(text.starts_with("the indexer thread stopped: "), "{text}");
    assert!(
        text.contains(&format!("{}: commit", path.display())),
        "the real cause: {text}"
    );
    let closed = indexer.close(None).expect_err("close returns the error");
    assert!(text.contains(&closed.to_string()), "{closed} in {text}");
}

#[test]
fn an_index_out_of_descriptors_is_named_so() {
    use tantivy::directory::error::OpenWriteError;
    let emfile = || std::io::Error::from_raw_os_error(libc::EMFILE);
    let cases = [
        IndexError::Tantivy {
            context: "idx: commit".into(),
            source: tantivy::TantivyError::OpenWriteError(OpenWriteError::wrap_io_error(
                emfile(),
                "seg.idx".into(),
            )),
        },
        IndexError::Tantivy {
            context: "idx: commit".into(),
            source: emfile().into(),
        },
        IndexError::Io {
            path: "idx".into(),
            source: emfile(),
        },
    ];
    for e in &cases {
        assert_eq!(e.out_of_descriptors(), Some("EMFILE"), "{e}");
        let cause = writer::stop_cause(e);
        assert!(cause.contains("out of file descriptors, EMFILE"), "{cause}");
        assert!(cause.contains(&e.to_string()), "{cause}");
    }
    let other = IndexError::Io {
        path: "idx".into(),
        source: std::io::Error::from_raw_os_error(libc::ENOSPC),
    };
    assert_eq!(other.out_of_descriptors(), None);
    assert_eq!(writer::stop_cause(&other), other.to_string());
}

#[test]
fn dropped_indexer_keeps_only_committed_documents() {
    let index = Index::temporary().expect("index");
    let indexer = index
        .indexer(IndexerConfig {
            commit_every: std::time::Duration::ZERO,
            queue: 16,
        })
        .expect("indexer");
    indexer
        .capture(doc(1, "http://e.org/1", "t", "x", 200, None))
        .expect("queue");
    indexer
        .commit(Checkpoint {
            file: "f".into(),
            offset: 1,
        })
        .expect("durable");
    indexer
        .capture(doc(2, "http://e.org/2", "t", "x", 200, None))
        .expect("queue");
    drop(indexer);
    index.refresh().expect("refresh");
    assert_eq!(index.num_docs(), 1, "the second was never durable");
}

#[test]
fn a_second_writer_is_refused_and_schema_changes_are_detected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = Index::open(dir.path()).expect("open");
    let _w = index.writer().expect("writer");
    assert!(matches!(index.writer(), Err(IndexError::Locked { .. })));

    let other = tempfile::tempdir().expect("tempdir");
    let mut b = tantivy::schema::Schema::builder();
    b.add_text_field("something", tantivy::schema::TEXT);
    tantivy::Index::create_in_dir(other.path(), b.build()).expect("foreign index");
    assert!(matches!(
        Index::open(other.path()),
        Err(IndexError::SchemaMismatch { .. })
    ));
    let fresh = Index::recreate(other.path()).expect("recreate");
    assert_eq!(fresh.num_docs(), 0);
}

#[test]
fn a_commit_payload_that_does_not_parse_is_damage_not_a_fresh_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = Index::open(dir.path()).expect("open");
    index
        .indexer(IndexerConfig::default())
        .expect("indexer")
        .close(None)
        .expect("close");
    drop(index);
    // A commit whose payload is not magpie's (a truncated write, another tool's commit).
    {
        let raw = tantivy::Index::open_in_dir(dir.path()).expect("tantivy open");
        let mut w: tantivy::IndexWriter = raw.writer(15_000_000).expect("writer");
        let mut prepared = w.prepare_commit().expect("prepare");
        prepared.set_payload("{\"schema_version\":");
        prepared.commit().expect("commit");
    }
    let err = Index::open(dir.path())
        .err()
        .expect("a damaged payload is an error");
    let msg = err.to_string();
    assert!(matches!(err, IndexError::Damaged { .. }), "{msg}");
    assert!(
        msg.contains("payload") && msg.contains("index rebuild"),
        "{msg}"
    );
}
