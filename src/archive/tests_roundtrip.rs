//! Round-trip tests: every record kind is encoded, written, and read back by this module's
//! reader, by the independent `warc` crate and (when installed) by warcio; plus the reader on
//! multi-record members, uncompressed files and damaged data.

use super::tests_support::*;
use super::*;
use std::io::{Read, Write};

#[test]
fn every_kind_round_trips_through_three_readers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir.path(), 1 << 30)).expect("writer");
    assert!(w.checkpoint().is_none());
    let info_id = w.warcinfo_id().to_string();
    let mut expects = Vec::new();
    let mut locations = Vec::new();
    for n in 0..3 {
        let (members, ex) = capture(w.warcinfo_id(), n, 5000 + n as usize * 70_000);
        for m in &members {
            locations.push(w.append(m).expect("append"));
        }
        expects.extend(ex);
    }
    assert_eq!(
        w.warcinfo_id(),
        info_id,
        "the reserved id is the file's warcinfo"
    );
    let cp = w.checkpoint().expect("checkpoint");
    let files = w.files();
    let total = w.bytes_written();
    let paths = w.close().expect("close");
    assert_eq!(paths.len(), 1);
    let name = paths[0]
        .file_name()
        .and_then(|n| n.to_str())
        .expect("name")
        .to_string();
    assert_eq!(files, vec![name.clone()]);
    assert_eq!(
        cp,
        Checkpoint {
            file: name.clone(),
            offset: total
        }
    );
    assert_eq!(std::fs::metadata(&paths[0]).expect("meta").len(), total);
    assert!(!dir.path().join(format!("{name}.open")).exists());

    // This module's reader.
    let recs = read_all(&paths[0]);
    assert_eq!(recs.len(), 1 + expects.len());
    let (info, info_block) = &recs[0];
    assert_eq!(info.record_type(), "warcinfo");
    assert_eq!(info.record_id(), info_id);
    assert_eq!(info.field("WARC-Filename"), Some(name.as_str()));
    assert!(info.field("WARC-Target-URI").is_none());
    assert_eq!(
        info_block,
        b"software: magpie/0.1\r\nformat: WARC File Format 1.1\r\nisPartOf: test-crawl\r\n"
    );
    for (((head, block), e), loc) in recs[1..].iter().zip(&expects).zip(&locations) {
        check_expect(head, block, e, &info_id);
        assert_eq!((head.offset, head.compressed_len), (loc.offset, loc.length));
        assert_eq!(loc.file, name);
        let (h2, b2) = read_record_at(&paths[0], loc.offset).expect("read at");
        assert_eq!((&h2, &b2), (head, block));
        let (h3, b3) = read_record_prefix(&paths[0], loc.offset, 10).expect("prefix");
        assert_eq!((h3.record_id(), &b3[..]), (head.record_id(), &block[..10]));
    }

    // The independent reader (its own gzip and parser).
    let reader = warc::WarcReader::from_path_gzip(&paths[0]).expect("warc crate");
    let theirs: Vec<_> = reader
        .iter_records()
        .collect::<Result<_, _>>()
        .expect("warc crate parses every record");
    assert_eq!(theirs.len(), recs.len());
    use warc::WarcHeader as H;
    for (rec, (head, block)) in theirs.iter().zip(&recs) {
        assert_eq!(rec.warc_id(), head.record_id());
        assert_eq!(rec.warc_type().to_string(), head.record_type());
        assert_eq!(rec.body(), &block[..]);
        assert_eq!(rec.content_length(), head.content_length);
        for h in [
            H::TargetURI,
            H::PayloadDigest,
            H::BlockDigest,
            H::ConcurrentTo,
            H::RefersTo,
            H::ContentType,
            H::Filename,
        ] {
            assert_eq!(
                rec.header(h.clone()).as_deref(),
                head.field(&h.to_string()),
                "{h}"
            );
        }
    }
    assert_eq!(check_file(&paths[0]).expect("check"), vec![]);
}

#[test]
fn multi_record_members_and_uncompressed_files_are_read() {
    let (members, ex) = capture("<urn:uuid:00000000-0000-4000-8000-000000000001>", 3, 300);
    let plain: Vec<Vec<u8>> = members
        .iter()
        .map(|m| {
            let mut v = Vec::new();
            flate2::read::GzDecoder::new(&m[..])
                .read_to_end(&mut v)
                .expect("gunzip");
            v
        })
        .collect();
    // Uncompressed: offsets and lengths are the raw record positions.
    let all = plain.concat();
    let heads: Vec<RecordHead> = WarcReader::new(&all[..])
        .expect("reader")
        .collect::<Result<_, _>>()
        .expect("read");
    let mut at = 0;
    for ((h, raw), e) in heads.iter().zip(&plain).zip(&ex) {
        assert_eq!(
            (h.offset, h.compressed_len, h.record_id()),
            (at, raw.len() as u64, e.id.as_str())
        );
        at += raw.len() as u64;
    }
    // One member with two records, then a normal member.
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&plain[..2].concat()).expect("gzip");
    let mut file = enc.finish().expect("gzip");
    let second = file.len() as u64;
    file.extend_from_slice(&members[2]);
    let heads: Vec<RecordHead> = WarcReader::new(&file[..])
        .expect("reader")
        .collect::<Result<_, _>>()
        .expect("read");
    let got: Vec<(u64, u64)> = heads.iter().map(|h| (h.offset, h.compressed_len)).collect();
    assert_eq!(
        got,
        vec![(0, 0), (0, second), (second, members[2].len() as u64)]
    );
}

#[test]
fn reader_reports_damage_with_its_offset() {
    let (members, _) = capture("<urn:uuid:00000000-0000-4000-8000-000000000001>", 3, 3000);
    let mut file = members[..2].concat();
    file.truncate(members[0].len() + members[1].len() / 2);
    let results: Vec<_> = WarcReader::with_origin(&file[..], "f.warc.gz", 0)
        .expect("reader")
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    match &results[1] {
        Err(ArchiveError::Corrupt { file, offset, .. }) => assert_eq!(
            (file.as_str(), *offset),
            ("f.warc.gz", members[0].len() as u64)
        ),
        other => panic!("expected a Corrupt error, got {other:?}"),
    }
}

#[test]
fn warcio_accepts_written_files() {
    let required = std::env::var("MAGPIE_REQUIRE_WARCIO").is_ok_and(|v| v == "1");
    let present = std::process::Command::new("warcio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            !required,
            "MAGPIE_REQUIRE_WARCIO=1 but `warcio` is not on PATH (pip install warcio)"
        );
        eprintln!("note: warcio not on PATH; skipping the warcio cross-check");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = WarcWriter::create(config(dir.path(), 1 << 30)).expect("writer");
    let mut locations = Vec::new();
    for n in 0..3 {
        for m in capture(w.warcinfo_id(), n, 20_000).0 {
            locations.push(w.append(&m).expect("append"));
        }
    }
    let paths = w.close().expect("close");
    let out = std::process::Command::new("warcio")
        .arg("check")
        .arg("-v")
        .arg(&paths[0])
        .output()
        .expect("run warcio");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "warcio check failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.matches("digest pass").count(), 1 + 3 * 3, "{text}"); // revisits are not checked
    let idx = std::process::Command::new("warcio")
        .args(["index", "-f", "offset,length,warc-record-id"])
        .arg(&paths[0])
        .output()
        .expect("run warcio index");
    assert!(idx.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&idx.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 1 + locations.len());
    for (line, loc) in lines[1..].iter().zip(&locations) {
        let num = |v: &serde_json::Value| {
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        };
        assert_eq!(num(&line["offset"]), Some(loc.offset), "{line}");
        assert_eq!(num(&line["length"]), Some(loc.length), "{line}");
    }
}
