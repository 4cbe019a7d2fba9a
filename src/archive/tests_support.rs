//! Shared fixtures of the archive tests: a writer configuration, deterministic bodies, one
//! encoded capture of every record kind with what it must read back as, and a full-file read.

use super::*;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

pub(super) fn config(dir: &Path, max: u64) -> WriterConfig {
    WriterConfig {
        dir: dir.to_path_buf(),
        prefix: "crawl".into(),
        max_file_bytes: max,
        gzip_level: 6,
        hostname: "host-a.example".into(),
        info_fields: vec![
            ("software".into(), "magpie/0.1".into()),
            ("format".into(), "WARC File Format 1.1".into()),
            ("isPartOf".into(), "test-crawl".into()),
        ],
    }
}

/// Deterministic, poorly compressible bytes.
pub(super) fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = crate::sample_site::SplitMix::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// What a written record must look like when read back.
pub(super) struct Expect {
    pub kind: &'static str,
    pub id: String,
    pub target: Option<String>,
    pub content_type: &'static str,
    pub extra: Vec<(&'static str, String)>,
    pub block: Vec<u8>,
}

/// Encodes one capture (response, request, metadata, revisit) of URL number `n`.
pub(super) fn capture(warcinfo_id: &str, n: u64, body_len: usize) -> (Vec<Vec<u8>>, Vec<Expect>) {
    let uri = format!("http://example.com/page/{n}?q=a%20b");
    let date = "2026-11-22T03:58:05.123456Z";
    let body = noise(n, body_len);
    let mut resp = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    let head_only = resp.clone();
    resp.extend_from_slice(&body);
    let (resp_id, req_id, meta_id, rev_id) = (
        new_record_id(),
        new_record_id(),
        new_record_id(),
        new_record_id(),
    );
    let ip: std::net::IpAddr = "127.0.0.1".parse().expect("ip");
    fn common<'a>(
        id: &'a str,
        date: &'a str,
        uri: &'a str,
        info: &'a str,
        ip: std::net::IpAddr,
    ) -> RecordCommon<'a> {
        RecordCommon {
            record_id: id,
            date,
            target_uri: uri,
            warcinfo_id: info,
            ip: Some(ip),
        }
    }
    let (bd, pd) = (sha1_digest(&resp), sha1_digest(&body));
    let request =
        format!("GET /page/{n}?q=a%20b HTTP/1.1\r\nHost: example.com\r\n\r\n").into_bytes();
    let meta = format!("via: http://example.com/\r\nhopsFromSeed: L\r\noutlink: http://example.com/{n}/x L a/@href\r\n").into_bytes();
    let members = vec![
        response_record(
            &common(&resp_id, date, &uri, warcinfo_id, ip),
            &mut &resp[..],
            resp.len() as u64,
            &bd,
            &pd,
            None,
            6,
        )
        .expect("response"),
        request_record(
            &common(&req_id, date, &uri, warcinfo_id, ip),
            &resp_id,
            &request,
            6,
        )
        .expect("request"),
        metadata_record(
            &common(&meta_id, date, &uri, warcinfo_id, ip),
            &resp_id,
            "application/warc-fields",
            &meta,
            6,
        )
        .expect("metadata"),
        revisit_record(
            &common(&rev_id, date, &uri, warcinfo_id, ip),
            &pd,
            &resp_id,
            &uri,
            date,
            &head_only,
            6,
        )
        .expect("revisit"),
    ];
    let t = Some(uri.clone());
    let expects = vec![
        Expect {
            kind: "response",
            id: resp_id.clone(),
            target: t.clone(),
            content_type: "application/http; msgtype=response",
            extra: vec![
                ("WARC-IP-Address", "127.0.0.1".into()),
                ("WARC-Block-Digest", bd),
                ("WARC-Payload-Digest", pd.clone()),
            ],
            block: resp,
        },
        Expect {
            kind: "request",
            id: req_id,
            target: t.clone(),
            content_type: "application/http; msgtype=request",
            extra: vec![
                ("WARC-Concurrent-To", resp_id.clone()),
                ("WARC-Block-Digest", sha1_digest(&request)),
            ],
            block: request,
        },
        Expect {
            kind: "metadata",
            id: meta_id,
            target: t.clone(),
            content_type: "application/warc-fields",
            extra: vec![("WARC-Concurrent-To", resp_id.clone())],
            block: meta,
        },
        Expect {
            kind: "revisit",
            id: rev_id,
            target: t,
            content_type: "application/http; msgtype=response",
            extra: vec![
                ("WARC-Profile", REVISIT_PROFILE.into()),
                ("WARC-Refers-To", resp_id),
                ("WARC-Refers-To-Target-URI", uri.clone()),
                ("WARC-Refers-To-Date", date.into()),
                ("WARC-Payload-Digest", pd),
                ("WARC-Truncated", "length".into()),
            ],
            block: head_only,
        },
    ];
    (members, expects)
}

/// Reads a file with this module's reader, streaming each block.
pub(super) fn read_all(p: &Path) -> Vec<(RecordHead, Vec<u8>)> {
    let f = File::open(p).expect("open");
    let mut r =
        WarcReader::with_origin(BufReader::new(f), p.display().to_string(), 0).expect("reader");
    let mut out = Vec::new();
    while let Some(mut head) = r.next_record().expect("record") {
        let mut block = Vec::new();
        r.block().read_to_end(&mut block).expect("block");
        head.compressed_len = r.finish_record().expect("finish");
        out.push((head, block));
    }
    out
}

pub(super) fn check_expect(head: &RecordHead, block: &[u8], e: &Expect, warcinfo_id: &str) {
    assert_eq!(head.version, "WARC/1.1");
    let names: Vec<&str> = head.fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        &names[..4],
        &[
            "WARC-Type",
            "WARC-Warcinfo-ID",
            "WARC-Record-ID",
            "WARC-Date",
        ]
    );
    assert_eq!(names.last(), Some(&"Content-Length"));
    assert_eq!(head.record_type(), e.kind);
    assert_eq!(head.record_id(), e.id);
    assert_eq!(head.field("WARC-Target-URI").map(str::to_string), e.target);
    assert_eq!(
        head.field("WARC-Warcinfo-ID"),
        Some(warcinfo_id),
        "{}",
        e.kind
    );
    assert_eq!(head.field("Content-Type"), Some(e.content_type));
    for (n, v) in &e.extra {
        assert_eq!(head.field(n), Some(v.as_str()), "{} {n}", e.kind);
    }
    assert_eq!(head.content_length, e.block.len() as u64);
    assert_eq!(block, &e.block[..], "{} block", e.kind);
}
