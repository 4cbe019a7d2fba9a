//! Writer tests: size rotation, serial numbering, checkpoints and crash recovery.

use super::tests_support::*;
use super::writer::OPEN_SUFFIX;
use super::*;
use std::io::Write;
use std::path::{Path, PathBuf};

#[test]
fn rotation_gives_files_that_each_start_with_their_warcinfo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let max = 12_000;
    let mut w = WarcWriter::create(config(dir.path(), max)).expect("writer");
    let mut ids_by_file: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut each = Vec::new(); // (location, record id) of members appended one by one
    for n in 0..12 {
        let (members, ex) = capture(w.warcinfo_id(), n, 1500);
        let file = if n % 2 == 0 {
            w.append(&members.concat()).expect("append").file
        } else {
            let refs: Vec<&[u8]> = members.iter().map(|m| &m[..]).collect();
            let locs = w.append_many(&refs).expect("append_many");
            for pair in locs.windows(2) {
                assert_eq!(pair[0].offset + pair[0].length, pair[1].offset);
                assert_eq!(pair[0].file, pair[1].file);
            }
            each.extend(locs.into_iter().zip(ex.iter().map(|e| e.id.clone())));
            each.last().map(|(l, _)| l.file.clone()).expect("some")
        };
        ids_by_file
            .entry(file)
            .or_default()
            .extend(ex.into_iter().map(|e| e.id));
    }
    let big = capture(w.warcinfo_id(), 99, 40_000).0.concat();
    let big_loc = w.append(&big).expect("oversized member");
    let paths = w.close().expect("close");
    assert!(paths.len() >= 4, "{paths:?}");
    for (loc, id) in &each {
        let (head, _) = read_record_at(&dir.path().join(&loc.file), loc.offset).expect("read at");
        assert_eq!(
            (head.record_id(), head.compressed_len),
            (id.as_str(), loc.length)
        );
    }
    let mut rotated_many = 0;
    for (i, p) in paths.iter().enumerate() {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_string();
        let serial = format!("-{i:05}-host-a.example.warc.gz");
        assert!(
            name.starts_with("crawl-") && name.ends_with(&serial),
            "{name}"
        );
        assert_eq!(name.len(), "crawl-".len() + 17 + serial.len());
        let recs = read_all(p);
        let (info, _) = &recs[0];
        assert_eq!(info.record_type(), "warcinfo");
        assert_eq!(info.field("WARC-Filename"), Some(name.as_str()));
        let ids: Vec<String> = recs[1..]
            .iter()
            .map(|(h, _)| h.record_id().to_string())
            .collect();
        if name == big_loc.file {
            assert_eq!(
                big_loc.offset, info.compressed_len,
                "oversized member starts a file of its own"
            );
        } else {
            assert_eq!(&ids, &ids_by_file[&name]);
            assert!(std::fs::metadata(p).expect("meta").len() <= max);
        }
        for (h, _) in &recs[1..] {
            assert_eq!(
                h.field("WARC-Warcinfo-ID"),
                Some(info.record_id()),
                "{name}"
            );
        }
        assert_eq!(check_file(p).expect("check"), vec![], "{name}");
        if i > 0 {
            rotated_many += each
                .iter()
                .filter(|(l, _)| l.file == name && l.offset == info.compressed_len)
                .count();
        }
    }
    assert!(rotated_many > 0, "some append_many call must have rotated");
}

#[test]
fn serial_numbers_continue_after_existing_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    for n in [
        "crawl-20260101000000000-00007-h.warc.gz",
        "crawl-20260101000000000-00003-h.warc.gz.open",
        "other-20260101000000000-00050-h.warc.gz",
        "crawl-notes.txt",
    ] {
        std::fs::write(dir.path().join(n), b"x").expect("write");
    }
    let mut w = WarcWriter::create(config(dir.path(), 1 << 20)).expect("writer");
    let loc = w
        .append(&capture(w.warcinfo_id(), 1, 10).0[0])
        .expect("append");
    assert!(loc.file.contains("-00008-host-a.example"), "{}", loc.file);
    assert_eq!(
        writer::serial_of("crawl-20260101000000000-00012-a-b.warc.gz.open", "crawl"),
        Some(12)
    );
    assert_eq!(
        writer::serial_of("crawl-2026-00012-a.warc.gz", "crawl"),
        None
    );
    assert_eq!(
        writer::serial_of("crawlx-20260101000000000-00012-a.warc.gz", "crawl"),
        None
    );
}

fn open_path(dir: &Path, cp: &Checkpoint) -> PathBuf {
    dir.join(format!("{}.open", cp.file))
}

#[test]
fn recovery_cuts_torn_tails_and_removes_uncommitted_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir.path(), 1 << 30)).expect("writer");
    let mut committed = 1; // warcinfo
    for n in 0..3 {
        for m in capture(w.warcinfo_id(), n, 2000).0 {
            w.append(&m).expect("append");
            committed += 1;
        }
    }
    w.sync().expect("sync");
    let cp = w.checkpoint().expect("checkpoint");
    for m in capture(w.warcinfo_id(), 7, 2000).0 {
        w.append(&m).expect("append");
    }
    let half = capture(w.warcinfo_id(), 8, 2000).0.concat();
    drop(w); // a crash: nothing sealed
    let path = open_path(dir.path(), &cp);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    f.write_all(&half[..half.len() / 2]).expect("torn tail");
    drop(f);
    let before = std::fs::metadata(&path).expect("meta").len();
    assert!(
        !check_file(&path).expect("check").is_empty(),
        "the torn tail is a defect"
    );
    let other = dir
        .path()
        .join("crawl-20990101000000000-00001-host-a.example.warc.gz.open");
    std::fs::write(&other, b"uncommitted").expect("write");
    let keep = dir.path().join("crawl-20000101000000000-00000-old.warc.gz");
    std::fs::write(&keep, b"sealed, never touched").expect("write");

    let report = recover(dir.path(), Some(&cp)).expect("recover");
    assert_eq!(report.sealed.as_deref(), Some(cp.file.as_str()));
    assert_eq!(report.cut_bytes, before - cp.offset);
    assert_eq!(
        report.removed,
        vec![(
            "crawl-20990101000000000-00001-host-a.example.warc.gz.open".to_string(),
            11
        )]
    );
    let sealed = dir.path().join(&cp.file);
    assert!(!path.exists() && !other.exists());
    assert_eq!(std::fs::metadata(&sealed).expect("meta").len(), cp.offset);
    assert_eq!(
        std::fs::read(&keep).expect("read"),
        b"sealed, never touched"
    );
    assert_eq!(check_file(&sealed).expect("check"), vec![]);
    assert_eq!(read_all(&sealed).len(), committed);

    // Idempotent; and a checkpoint beyond the end of the file is refused.
    let again = recover(dir.path(), Some(&cp)).expect("again");
    assert_eq!((again.cut_bytes, again.removed.len()), (0, 0));
    let beyond = Checkpoint {
        file: cp.file.clone(),
        offset: cp.offset + 1,
    };
    assert!(matches!(
        recover(dir.path(), Some(&beyond)),
        Err(ArchiveError::Checkpoint { .. })
    ));
    let missing = Checkpoint {
        file: "nope.warc.gz".into(),
        offset: 0,
    };
    assert!(matches!(
        recover(dir.path(), Some(&missing)),
        Err(ArchiveError::Checkpoint { .. })
    ));
}

#[test]
fn a_file_sealed_after_the_checkpoint_is_kept_whole_and_no_checkpoint_removes_open_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir.path(), 9_000)).expect("writer");
    w.append(&capture(w.warcinfo_id(), 0, 500).0.concat())
        .expect("append");
    w.sync().expect("sync");
    let cp = w.checkpoint().expect("checkpoint");
    // More records: the first file rotates (sealed) and a second one is left open.
    for n in 1..6 {
        w.append(&capture(w.warcinfo_id(), n, 1500).0.concat())
            .expect("append");
    }
    assert!(w.files().len() >= 2);
    drop(w); // a crash after the rotation, before the next commit
    let sealed = dir.path().join(&cp.file);
    let before = std::fs::read(&sealed).expect("read");
    assert!(before.len() as u64 > cp.offset);
    let report = recover(dir.path(), Some(&cp)).expect("recover");
    assert_eq!(report.sealed.as_deref(), Some(cp.file.as_str()));
    assert_eq!(report.cut_bytes, 0, "a sealed file is never cut");
    assert_eq!(
        report.kept_after_checkpoint,
        before.len() as u64 - cp.offset
    );
    assert_eq!(report.removed.len(), 1, "{report:?}");
    assert_eq!(
        std::fs::read(&sealed).expect("read"),
        before,
        "byte for byte"
    );
    assert_eq!(check_file(&sealed).expect("check"), vec![]);
    let again = recover(dir.path(), Some(&cp)).expect("again");
    assert_eq!((again.cut_bytes, again.removed.len()), (0, 0));
    assert_eq!(std::fs::read(&sealed).expect("read"), before);

    let dir2 = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir2.path(), 1 << 20)).expect("writer");
    w.append(&capture(w.warcinfo_id(), 0, 500).0[0])
        .expect("append");
    drop(w);
    let report = recover(dir2.path(), None).expect("recover");
    assert_eq!((report.sealed, report.removed.len()), (None, 1));
    assert_eq!(std::fs::read_dir(dir2.path()).expect("dir").count(), 0);
}

#[test]
fn records_encoded_before_a_rotation_name_the_warcinfo_of_their_file() {
    let size = |body| -> u64 {
        let (m, _) = capture(&new_record_id(), 9, body);
        m.iter().map(|m| m.len() as u64).sum()
    };
    // The first file takes a 4000-byte capture but not the big one after it; the second
    // file takes the big one and the late one.
    let max = size(5000) + size(100) + 1500;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir.path(), max)).expect("writer");
    w.append(&capture(w.warcinfo_id(), 0, 4000).0.concat())
        .expect("first");
    let first_info = w.warcinfo_id().to_string();
    // Two exchanges encoded while the first file is current ...
    let (late, late_ex) = capture(&first_info, 1, 100);
    let (big, _) = capture(&first_info, 2, 5000);
    // ... the big one rotates, and the late one is appended after it without rotating.
    let refs: Vec<&[u8]> = big.iter().map(|m| &m[..]).collect();
    w.append_encoded_for(&refs, &first_info)
        .expect("rotating append");
    let second_info = w.warcinfo_id().to_string();
    assert_ne!(first_info, second_info);
    let refs: Vec<&[u8]> = late.iter().map(|m| &m[..]).collect();
    let locs = w
        .append_encoded_for(&refs, &first_info)
        .expect("late append");
    assert!(locs.iter().all(|l| l.file == locs[0].file));
    // Patched in place, not compressed again: each member keeps its length, and differs from
    // the one encoded only in the warcinfo ID and the CRC.
    w.flush().expect("flush");
    let open = dir.path().join(format!("{}{OPEN_SUFFIX}", locs[0].file));
    let file = std::fs::read(open).expect("the open file");
    for (l, m) in locs.iter().zip(&late) {
        assert_eq!(l.length, m.len() as u64, "patched in place");
        let written = &file[l.offset as usize..(l.offset + l.length) as usize];
        let changed = written.iter().zip(m.iter()).filter(|(a, b)| a != b).count();
        assert!((1..=36 + 4).contains(&changed), "{changed} bytes changed");
    }
    let paths = w.close().expect("close");
    assert_eq!(paths.len(), 2);
    let recs = read_all(&paths[1]);
    assert_eq!(recs[0].0.record_id(), second_info);
    assert_eq!(recs.len(), 1 + big.len() + late.len());
    for (h, _) in &recs[1..] {
        assert_eq!(h.field("WARC-Warcinfo-ID"), Some(second_info.as_str()));
    }
    let late_ids: Vec<&str> = recs[1 + big.len()..]
        .iter()
        .map(|(h, _)| h.record_id())
        .collect();
    let want: Vec<&str> = late_ex.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(late_ids, want);
    assert_eq!(check_file(&paths[1]).expect("check"), vec![]);
}

#[test]
fn checkpoints_keep_the_json_form_every_version_stored() {
    let stored = br#"{"file":"crawl-20261122042607763-00000-h.warc.gz","offset":1234}"#;
    let cp: Checkpoint = serde_json::from_slice(stored).expect("an old checkpoint reads");
    assert_eq!(cp.file, "crawl-20261122042607763-00000-h.warc.gz");
    assert_eq!(cp.offset, 1234);
    assert_eq!(serde_json::to_vec(&cp).expect("json"), stored.to_vec());
}

#[test]
fn the_writer_says_beforehand_which_append_opens_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir.path(), 12_000)).expect("writer");
    let mut opened = 0;
    for n in 0..12 {
        let member = capture(w.warcinfo_id(), n, 1500).0.concat();
        let says = w.opens_a_file(member.len() as u64);
        let before = w.files().len();
        w.append(&member).expect("append");
        assert_eq!(says, w.files().len() != before, "append {n}");
        opened += usize::from(says);
    }
    assert!(opened >= 2, "the appends rotated the file: {opened}");
}
