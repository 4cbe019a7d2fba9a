//! CDXJ indexes as pywb reads them: one line per `response`, `revisit` and `resource` record,
//! `SURT timestamp14 {"url": …, "mime": …, "status": …, "digest": …, "length": …, "offset": …,
//! "filename": …}`, sorted bytewise.
//!
//! Field rules follow pywb's indexer (`cdx-indexer -j`): `mime` is the HTTP `Content-Type` up
//! to the first `;` or space (`warc/revisit` for revisits), `status` only for responses,
//! numbers as strings, empty fields left out. The one exception is `digest`, written as the
//! record's `WARC-Payload-Digest` with its label (`sha1:BASE32`), as the `cdxj-indexer` of
//! py-wacz, Browsertrix and ReplayWeb.page writes it: a digest stays self-describing, and the
//! CDXJ inside a WACZ looks like every other WACZ's (`docs/index.md` compares the tools).

use super::ExportError;
use crate::archive::{RecordHead, WarcReader};
use crate::http::head::HttpHead;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

/// Bytes of a record block read to find the HTTP head.
pub(crate) const HEAD_PROBE: u64 = 64 * 1024;

/// One CDXJ line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxjEntry {
    /// SURT key of the URL.
    pub surt: String,
    /// `YYYYmmddHHMMSS` of `WARC-Date`.
    pub timestamp: String,
    /// `WARC-Target-URI`.
    pub url: String,
    /// Media type (`warc/revisit` for revisits).
    pub mime: String,
    /// HTTP status, for responses.
    pub status: Option<String>,
    /// Payload digest as in `WARC-Payload-Digest`, label included (`sha1:BASE32`).
    pub digest: Option<String>,
    /// Length of the record's gzip member.
    pub length: u64,
    /// Offset of the member.
    pub offset: u64,
    /// WARC file name.
    pub filename: String,
}

impl CdxjEntry {
    /// The entry for a record, given its head and the start of its block; `None` for record
    /// types replay does not look up, or a record without a URL or date.
    pub fn from_record(
        head: &RecordHead,
        block_start: &[u8],
        filename: &str,
        offset: u64,
        length: u64,
    ) -> Option<CdxjEntry> {
        let kind = head.record_type();
        if !matches!(kind, "response" | "revisit" | "resource") {
            return None;
        }
        let url = head
            .field("WARC-Target-URI")?
            .trim_matches(['<', '>'])
            .to_string();
        let date = chrono::DateTime::parse_from_rfc3339(head.field("WARC-Date")?).ok()?;
        let http = (kind != "resource")
            .then(|| HttpHead::parse_stored(block_start))
            .flatten();
        let mime = match kind {
            "revisit" => "warc/revisit".to_string(),
            "resource" => media_type(head.field("Content-Type")),
            _ => media_type(http.as_ref().and_then(|h| h.header("content-type"))),
        };
        let status = match (kind, &http) {
            ("response", Some(h)) => Some(h.status.to_string()),
            _ => None,
        };
        let digest = head
            .field("WARC-Payload-Digest")
            .map(|d| d.trim().to_string())
            .filter(|d| !d.is_empty());
        let surt = url::Url::parse(&url)
            .map_or_else(|_| url.to_ascii_lowercase(), |u| crate::uri::surt(&u));
        Some(CdxjEntry {
            surt,
            timestamp: date
                .with_timezone(&chrono::Utc)
                .format("%Y%m%d%H%M%S")
                .to_string(),
            url,
            mime,
            status,
            digest,
            length,
            offset,
            filename: filename.to_string(),
        })
    }

    /// The line, without the newline.
    pub fn line(&self) -> String {
        let mut fields: Vec<(&str, String)> = vec![("url", self.url.clone())];
        if !self.mime.is_empty() {
            fields.push(("mime", self.mime.clone()));
        }
        if let Some(s) = &self.status {
            fields.push(("status", s.clone()));
        }
        if let Some(d) = &self.digest {
            fields.push(("digest", d.clone()));
        }
        fields.push(("length", self.length.to_string()));
        fields.push(("offset", self.offset.to_string()));
        fields.push(("filename", self.filename.clone()));
        let mut line = format!("{} {} {{", self.surt, self.timestamp);
        for (i, (k, v)) in fields.iter().enumerate() {
            if i > 0 {
                line.push_str(", ");
            }
            line.push_str(&json_string(k));
            line.push_str(": ");
            line.push_str(&json_string(v));
        }
        line.push('}');
        line
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The media type of a `Content-Type` value as pywb indexes it: up to the first `;` or space,
/// `unk` when absent.
fn media_type(ct: Option<&str>) -> String {
    match ct.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => c.split([';', ' ']).next().unwrap_or(c).to_string(),
        None => "unk".into(),
    }
}

/// The CDXJ entries of a WARC file, in file order.
pub fn index_file(path: &Path) -> Result<Vec<CdxjEntry>, ExportError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let f = File::open(path).map_err(|e| ExportError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut r = WarcReader::with_origin(BufReader::with_capacity(256 << 10, f), name.clone(), 0)?;
    let mut out = Vec::new();
    while let Some(head) = r.next_record()? {
        if !matches!(head.record_type(), "response" | "revisit" | "resource") {
            continue;
        }
        let mut block = Vec::new();
        r.block()
            .take(head.content_length.min(HEAD_PROBE))
            .read_to_end(&mut block)
            .map_err(|e| crate::archive::ArchiveError::Corrupt {
                file: name.clone(),
                offset: head.offset,
                message: format!("reading the block: {e}"),
            })?;
        let length = r.finish_record()?;
        out.extend(CdxjEntry::from_record(
            &head,
            &block,
            &name,
            head.offset,
            length,
        ));
    }
    Ok(out)
}

/// Writes the entries' lines sorted bytewise (the order pywb's binary search needs).
pub fn write_sorted(entries: &[CdxjEntry], out: &mut dyn Write) -> std::io::Result<()> {
    let mut lines: Vec<String> = entries.iter().map(CdxjEntry::line).collect();
    lines.sort_unstable();
    for l in lines {
        out.write_all(l.as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(fields: &[(&str, &str)]) -> RecordHead {
        RecordHead {
            offset: 0,
            compressed_len: 0,
            version: "WARC/1.1".into(),
            fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            content_length: 0,
        }
    }

    #[test]
    fn response_line_matches_pywb_layout() {
        let h = head(&[
            ("WARC-Type", "response"),
            ("WARC-Date", "2026-11-22T04:26:07.763412Z"),
            ("WARC-Target-URI", "http://www.Example.org/a?b=2&a=1"),
            ("WARC-Payload-Digest", "sha1:ABCDEF"),
        ]);
        let block = b"HTTP/1.0 200 OK\r\nContent-Type: text/HTML; charset=utf-8\r\n\r\nx";
        let e = CdxjEntry::from_record(&h, block, "f.warc.gz", 10, 20).expect("entry");
        assert_eq!(
            e.line(),
            "org,example)/a?a=1&b=2 20261122042607 {\"url\": \"http://www.Example.org/a?b=2&a=1\", \
             \"mime\": \"text/HTML\", \"status\": \"200\", \"digest\": \"sha1:ABCDEF\", \"length\": \"20\", \
             \"offset\": \"10\", \"filename\": \"f.warc.gz\"}"
        );
    }

    #[test]
    fn revisits_have_no_status_and_other_records_no_line() {
        let h = head(&[
            ("WARC-Type", "revisit"),
            ("WARC-Date", "2026-11-22T04:26:07Z"),
            ("WARC-Target-URI", "http://example.org/"),
            ("WARC-Payload-Digest", "sha1:XYZ"),
        ]);
        let e = CdxjEntry::from_record(&h, b"HTTP/1.0 200 OK\r\n\r\n", "f", 0, 1).expect("entry");
        assert_eq!(e.mime, "warc/revisit");
        assert_eq!(e.status, None);
        assert!(!e.line().contains("status"));
        let req = head(&[
            ("WARC-Type", "request"),
            ("WARC-Date", "2026-11-22T04:26:07Z"),
            ("WARC-Target-URI", "http://example.org/"),
        ]);
        assert!(CdxjEntry::from_record(&req, b"", "f", 0, 1).is_none());
        let no_date = head(&[
            ("WARC-Type", "response"),
            ("WARC-Target-URI", "http://e.org/"),
        ]);
        assert!(CdxjEntry::from_record(&no_date, b"", "f", 0, 1).is_none());
    }

    #[test]
    fn lines_are_sorted_bytewise() {
        let mk = |surt: &str, ts: &str| CdxjEntry {
            surt: surt.into(),
            timestamp: ts.into(),
            url: "u".into(),
            mime: "m".into(),
            status: None,
            digest: None,
            length: 1,
            offset: 0,
            filename: "f".into(),
        };
        let mut out = Vec::new();
        write_sorted(
            &[mk("org,b)/", "2"), mk("org,a)/x", "1"), mk("org,a)/", "3")],
            &mut out,
        )
        .expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        let keys: Vec<&str> = text
            .lines()
            .map(|l| &l[..l.find(' ').unwrap_or(0)])
            .collect();
        assert_eq!(keys, ["org,a)/", "org,a)/x", "org,b)/"]);
    }
}
