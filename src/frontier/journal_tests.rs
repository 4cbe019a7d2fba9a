//! Tests of the frontier's files: commits replayed, torn and damaged batches, rewrites.

use super::*;

fn reopen(dir: &Path, committed: u64) -> Result<(Journal, Vec<Vec<u8>>), JournalError> {
    let mut seen = Vec::new();
    let j = Journal::open(dir, committed, |p| {
        seen.push(p.to_vec());
        Ok(())
    })?;
    Ok((j, seen))
}

#[test]
fn batches_replay_up_to_the_committed_number_and_the_rest_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = reopen(dir.path(), 0).unwrap();
    let a = j.append(b"first").unwrap();
    j.ops().extend_from_slice(b"one");
    assert_eq!(j.read(a).unwrap(), b"first", "staged records read back");
    assert_eq!(j.commit().unwrap(), 1);
    assert_eq!(j.commit().unwrap(), 1, "nothing staged: no batch");
    let b = j.append(&[7u8; 2000]).unwrap();
    j.ops().extend_from_slice(b"two");
    assert_eq!(j.commit().unwrap(), 2);
    assert_eq!(j.read(a).unwrap(), b"first");
    assert_eq!(j.read(b).unwrap(), vec![7u8; 2000], "longer than one read");
    drop(j);
    // The crawl state only reached commit 1: commit 2 is cut off, its record too.
    let (mut j, seen) = reopen(dir.path(), 1).unwrap();
    assert_eq!(seen, vec![b"one".to_vec()]);
    assert!(j.read(b).is_err(), "the record of commit 2 is gone");
    j.ops().extend_from_slice(b"three");
    assert_eq!(j.commit().unwrap(), 2);
    drop(j);
    let (_, seen) = reopen(dir.path(), 2).unwrap();
    assert_eq!(seen, vec![b"one".to_vec(), b"three".to_vec()]);
}

#[test]
fn a_torn_tail_is_cut_off_and_a_lost_commit_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = reopen(dir.path(), 0).unwrap();
    j.ops().extend_from_slice(b"one");
    j.commit().unwrap();
    drop(j);
    let ops = dir.path().join("ops.log");
    let mut f = OpenOptions::new().append(true).open(&ops).unwrap();
    f.write_all(&[9u8; 30]).unwrap();
    let (_, seen) = reopen(dir.path(), 1).unwrap();
    assert_eq!(seen.len(), 1, "the torn bytes are ignored");
    let err = reopen(dir.path(), 2).err().unwrap().to_string();
    assert!(
        err.contains("ends at commit 1") && err.contains("ops.log"),
        "{err}"
    );
    std::fs::write(&ops, b"garbage!garbage!").unwrap();
    let err = reopen(dir.path(), 1).err().unwrap().to_string();
    assert!(err.contains("does not start as"), "{err}");
}

#[test]
fn a_rewritten_log_replays_every_chunk_then_the_commits_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = reopen(dir.path(), 0).unwrap();
    for op in [b"a", b"b"] {
        j.ops().extend_from_slice(op);
        j.commit().unwrap();
    }
    let mut chunks = vec![b"x".to_vec(), b"y".to_vec(), b"z".to_vec()].into_iter();
    j.start_rewrite(move |v| {
        v.extend(chunks.next().unwrap());
        chunks.len() > 0
    })
    .unwrap();
    // A commit made while the rewrite runs is carried over into the new log.
    j.ops().extend_from_slice(b"c");
    assert_eq!(j.commit().unwrap(), 3);
    j.finish_rewrite(true).unwrap();
    assert!(!dir.path().join("ops.log.new").exists());
    drop(j);
    let (_, seen) = reopen(dir.path(), 3).unwrap();
    let want: Vec<Vec<u8>> = [b"x", b"y", b"z", b"c"].map(|s| s.to_vec()).into();
    assert_eq!(seen, want);
    let (_, seen) = reopen(dir.path(), 2).unwrap();
    assert_eq!(seen.len(), 3, "the commit after the rewrite is cut off");
}

#[test]
fn a_flipped_byte_in_a_record_fails_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let (mut j, _) = reopen(dir.path(), 0).unwrap();
    let a = j.append(b"a record").unwrap();
    j.ops().push(1);
    j.commit().unwrap();
    let data = dir.path().join("urls.dat");
    let f = OpenOptions::new().write(true).open(&data).unwrap();
    f.write_all_at(b"X", a + 9).unwrap();
    let err = j.read(a).err().unwrap().to_string();
    assert!(
        err.contains("checksum") && err.contains("urls.dat"),
        "{err}"
    );
}
