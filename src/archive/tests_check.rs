//! Tests of the validator on crafted files: each kind of defect must be found at the offset of
//! the record concerned, and clean files must pass.

use super::*;
use flate2::{write::GzEncoder, Compression};
use std::io::Write;

/// Raw record bytes: version line, fields, optional Content-Length, blank line, block, tail.
fn raw(
    version: &str,
    fields: &[(&str, &str)],
    block: &[u8],
    cl: Option<u64>,
    tail: &[u8],
) -> Vec<u8> {
    let mut out = format!("{version}\r\n").into_bytes();
    for (n, v) in fields {
        out.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
    }
    if let Some(cl) = cl {
        out.extend_from_slice(format!("Content-Length: {cl}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(block);
    out.extend_from_slice(tail);
    out
}

/// A well-formed record.
fn good(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    raw(
        "WARC/1.1",
        fields,
        block,
        Some(block.len() as u64),
        b"\r\n\r\n",
    )
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

/// Builds a .warc.gz from raw records (one member each); returns the file and member offsets.
fn file_of(
    dir: &tempfile::TempDir,
    name: &str,
    records: &[Vec<u8>],
) -> (std::path::PathBuf, Vec<u64>) {
    let mut bytes = Vec::new();
    let mut offsets = Vec::new();
    for r in records {
        offsets.push(bytes.len() as u64);
        bytes.extend_from_slice(&gz(r));
    }
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).expect("write");
    (p, offsets)
}

fn info() -> Vec<u8> {
    let body = b"software: magpie\r\n";
    good(
        &[
            ("WARC-Type", "warcinfo"),
            (
                "WARC-Record-ID",
                "<urn:uuid:00000000-0000-4000-8000-000000000000>",
            ),
            ("WARC-Date", "2026-01-02T03:04:05.123456Z"),
            ("WARC-Filename", "x.warc.gz"),
            ("Content-Type", "application/warc-fields"),
        ],
        body,
    )
}

const HTTP: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello";

fn response_fields(id: &str) -> Vec<(String, String)> {
    vec![
        ("WARC-Type".into(), "response".into()),
        ("WARC-Record-ID".into(), id.into()),
        ("WARC-Date".into(), "2026-01-02T03:04:05Z".into()),
        ("WARC-Target-URI".into(), "http://example.com/".into()),
        ("WARC-Block-Digest".into(), sha1_digest(HTTP)),
        ("WARC-Payload-Digest".into(), sha1_digest(b"hello")),
        (
            "Content-Type".into(),
            "application/http; msgtype=response".into(),
        ),
    ]
}

fn as_refs(f: &[(String, String)]) -> Vec<(&str, &str)> {
    f.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect()
}

/// A response with one field replaced (value `None` removes it).
fn response_with(id: &str, name: &str, value: Option<&str>) -> Vec<u8> {
    let mut f = response_fields(id);
    f.retain(|(n, _)| n != name);
    if let Some(v) = value {
        f.insert(1, (name.to_string(), v.to_string()));
    }
    good(&as_refs(&f), HTTP)
}

fn id(n: u32) -> String {
    format!("<urn:uuid:00000000-0000-4000-8000-{n:012}>")
}

/// Asserts exactly one defect at `offset` whose message contains `needle`, and nothing else.
fn expect_only(defects: &[Defect], offset: u64, needle: &str) {
    assert!(
        defects.len() == 1 && defects[0].offset == offset && defects[0].message.contains(needle),
        "wanted one defect at {offset} containing {needle:?}, got {defects:#?}"
    );
}

#[test]
fn clean_file_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    let mut cf = response_fields(&id(9));
    cf.retain(|(n, _)| !n.ends_with("Digest"));
    cf.push(("WARC-Block-Digest".into(), sha1_digest(chunked)));
    cf.push(("WARC-Payload-Digest".into(), sha1_digest(b"hello")));
    let (p, _) = file_of(
        &dir,
        "ok.warc.gz",
        &[
            info(),
            response_with(&id(1), "X", None),
            good(&as_refs(&cf), chunked),
        ],
    );
    assert_eq!(check_file(&p).expect("check"), vec![]);
}

#[test]
fn gzip_framing_damage_is_found_and_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let members = [
        info(),
        response_with(&id(1), "X", None),
        response_with(&id(2), "WARC-Type", None),
    ];
    let (p, offs) = file_of(&dir, "a.warc.gz", &members);
    let mut bytes = std::fs::read(&p).expect("read");
    // Corrupt the deflate data of the second member; the third must still be checked.
    let mid = offs[1] as usize + 15;
    for b in &mut bytes[mid..mid + 8] {
        *b ^= 0x5a;
    }
    std::fs::write(&p, &bytes).expect("write");
    let d = check_file(&p).expect("check");
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].offset, offs[1]);
    assert!(
        d[0].message.contains("gzip") && d[0].message.contains(&format!("offset {}", offs[2])),
        "{d:#?}"
    );
    assert_eq!(d[1].offset, offs[2]);
    assert!(d[1].message.contains("missing WARC-Type"), "{d:#?}");

    // A truncated last member.
    let (p, offs) = file_of(&dir, "b.warc.gz", &members[..2]);
    let bytes = std::fs::read(&p).expect("read");
    let cut = offs[1] as usize + (bytes.len() - offs[1] as usize) / 2;
    std::fs::write(&p, &bytes[..cut]).expect("write");
    expect_only(
        &check_file(&p).expect("check"),
        offs[1],
        "truncated gzip member",
    );

    // Garbage after the last member.
    let (p, _) = file_of(&dir, "c.warc.gz", &members[..2]);
    let mut bytes = std::fs::read(&p).expect("read");
    let end = bytes.len() as u64;
    bytes.extend_from_slice(b"garbage that is not gzip");
    std::fs::write(&p, &bytes).expect("write");
    expect_only(&check_file(&p).expect("check"), end, "not a gzip member");
}

#[test]
fn version_and_required_fields() {
    let dir = tempfile::tempdir().expect("tempdir");
    let r = id(1);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            raw(
                "WARC/0.9",
                &as_refs(&response_fields(&r)),
                HTTP,
                Some(HTTP.len() as u64),
                b"\r\n\r\n",
            ),
            "version line",
        ),
        (
            raw(
                "HTTP/1.1 200 OK",
                &as_refs(&response_fields(&r)),
                HTTP,
                Some(HTTP.len() as u64),
                b"\r\n\r\n",
            ),
            "no WARC version line",
        ),
        (
            response_with(&r, "WARC-Record-ID", None),
            "missing WARC-Record-ID",
        ),
        (
            response_with(&r, "WARC-Record-ID", Some("urn:uuid:1234")),
            "not of the form <urn:",
        ),
        (response_with(&r, "WARC-Date", None), "missing WARC-Date"),
        (
            response_with(&r, "WARC-Date", Some("2026-01-02 03:04:05Z")),
            "WARC-Date",
        ),
        (response_with(&r, "WARC-Type", None), "missing WARC-Type"),
        (
            response_with(&r, "Content-Type", None),
            "missing Content-Type",
        ),
        (
            response_with(&r, "WARC-Target-URI", None),
            "missing WARC-Target-URI",
        ),
        (
            response_with(&r, "WARC-Target-URI", Some("<http://example.com/>")),
            "angle brackets",
        ),
        (
            raw(
                "WARC/1.1",
                &as_refs(&response_fields(&r)),
                HTTP,
                None,
                b"\r\n\r\n",
            ),
            "missing Content-Length",
        ),
    ];
    for (i, (rec, needle)) in cases.into_iter().enumerate() {
        let (p, offs) = file_of(&dir, &format!("v{i}.warc.gz"), &[info(), rec]);
        expect_only(&check_file(&p).expect("check"), offs[1], needle);
    }
    // Fractional seconds are a WARC/1.1 feature.
    let mut f = response_fields(&r);
    f.retain(|(n, _)| n != "WARC-Date");
    f.push(("WARC-Date".into(), "2026-01-02T03:04:05.25Z".into()));
    let old = raw(
        "WARC/1.0",
        &as_refs(&f),
        HTTP,
        Some(HTTP.len() as u64),
        b"\r\n\r\n",
    );
    let (p, offs) = file_of(&dir, "frac.warc.gz", &[info(), old]);
    expect_only(&check_file(&p).expect("check"), offs[1], "only in WARC/1.1");
}

#[test]
fn length_and_terminator_problems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = response_fields(&id(1));
    let n = HTTP.len() as u64;
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            raw("WARC/1.1", &as_refs(&f), HTTP, Some(n - 2), b"\r\n\r\n"),
            format!("Content-Length is {} but the block is {n} bytes", n - 2),
        ),
        (
            raw("WARC/1.1", &as_refs(&f), HTTP, Some(n + 10), b"\r\n\r\n"),
            "ends after".into(),
        ),
        (
            raw("WARC/1.1", &as_refs(&f), HTTP, Some(n), b"\r\n"),
            "not followed by CRLF CRLF".into(),
        ),
        (
            raw("WARC/1.1", &as_refs(&f), HTTP, Some(n), b""),
            "not followed by CRLF CRLF".into(),
        ),
        (
            raw("WARC/1.1", &as_refs(&f), HTTP, Some(n), b"\r\n\r\nJUNK"),
            "unexpected bytes after".into(),
        ),
    ];
    for (i, (rec, needle)) in cases.into_iter().enumerate() {
        let (p, offs) = file_of(
            &dir,
            &format!("l{i}.warc.gz"),
            &[info(), rec, response_with(&id(2), "X", None)],
        );
        expect_only(&check_file(&p).expect("check"), offs[1], &needle);
    }
}

#[test]
fn digest_problems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let r = id(1);
    let bad = sha1_digest(b"something else");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            response_with(&r, "WARC-Block-Digest", Some(&bad)),
            "WARC-Block-Digest mismatch",
        ),
        (
            response_with(&r, "WARC-Payload-Digest", Some(&bad)),
            "WARC-Payload-Digest mismatch",
        ),
        (
            response_with(&r, "WARC-Block-Digest", Some("sha1:NOTBASE32")),
            "malformed WARC-Block-Digest",
        ),
    ];
    for (i, (rec, needle)) in cases.into_iter().enumerate() {
        let (p, offs) = file_of(&dir, &format!("d{i}.warc.gz"), &[info(), rec]);
        expect_only(&check_file(&p).expect("check"), offs[1], needle);
    }
    // Chunked: the raw body's digest (warcio style) passes, a wrong one fails.
    let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    for (i, (payload, ok)) in [
        (sha1_digest(b"5\r\nhello\r\n0\r\n\r\n"), true),
        (sha1_digest(b"5hello"), false),
    ]
    .into_iter()
    .enumerate()
    {
        let mut f = response_fields(&r);
        f.retain(|(n, _)| !n.ends_with("Digest"));
        f.push(("WARC-Block-Digest".into(), sha1_digest(chunked)));
        f.push(("WARC-Payload-Digest".into(), payload));
        let (p, offs) = file_of(
            &dir,
            &format!("c{i}.warc.gz"),
            &[info(), good(&as_refs(&f), chunked)],
        );
        let d = check_file(&p).expect("check");
        if ok {
            assert_eq!(d, vec![]);
        } else {
            expect_only(&d, offs[1], "WARC-Payload-Digest mismatch");
        }
    }
}

#[test]
fn file_level_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    // warcinfo not first
    let (p, offs) = file_of(
        &dir,
        "w.warc.gz",
        &[response_with(&id(1), "X", None), info()],
    );
    expect_only(&check_file(&p).expect("check"), offs[0], "not a warcinfo");
    // duplicate record IDs
    let (p, offs) = file_of(
        &dir,
        "dup.warc.gz",
        &[
            info(),
            response_with(&id(1), "X", None),
            response_with(&id(1), "X", None),
        ],
    );
    expect_only(
        &check_file(&p).expect("check"),
        offs[2],
        &format!(
            "duplicate WARC-Record-ID {} (first at offset {})",
            id(1),
            offs[1]
        ),
    );
    // revisit without the fields pywb needs
    let rv = [
        ("WARC-Type", "revisit"),
        (
            "WARC-Record-ID",
            "<urn:uuid:00000000-0000-4000-8000-000000000077>",
        ),
        ("WARC-Date", "2026-01-02T03:04:05Z"),
        ("WARC-Target-URI", "http://example.com/"),
        ("Content-Type", "application/http; msgtype=response"),
    ];
    let (p, offs) = file_of(
        &dir,
        "rv.warc.gz",
        &[info(), good(&rv, b"HTTP/1.1 200 OK\r\n\r\n")],
    );
    let d = check_file(&p).expect("check");
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d.iter().all(|x| x.offset == offs[1]));
    assert!(
        d[0].message.contains("WARC-Refers-To-Target-URI") && d[1].message.contains("WARC-Profile"),
        "{d:#?}"
    );
    // two records in one gzip member
    let mut two = response_with(&id(1), "X", None);
    two.extend_from_slice(&response_with(&id(2), "X", None));
    let (p, offs) = file_of(&dir, "multi.warc.gz", &[info(), two]);
    expect_only(
        &check_file(&p).expect("check"),
        offs[1],
        "more than one record",
    );
}

#[test]
fn uncompressed_files_are_checked_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = info();
    let b = response_with(&id(1), "WARC-Payload-Digest", Some(&sha1_digest(b"x")));
    let p = dir.path().join("plain.warc");
    std::fs::write(&p, [a.clone(), b.clone()].concat()).expect("write");
    expect_only(
        &check_file(&p).expect("check"),
        a.len() as u64,
        "WARC-Payload-Digest mismatch",
    );
    let empty = dir.path().join("empty.warc.gz");
    std::fs::write(&empty, b"").expect("write");
    expect_only(&check_file(&empty).expect("check"), 0, "no records");
}
