//! Encoding of single WARC/1.1 records as gzip members, and constructors for the record kinds
//! the crawler writes (response, request, metadata, revisit, warcinfo).
//!
//! Everything here is pure (no shared state), so records can be encoded on worker threads in
//! parallel and handed to the single-threaded [`super::WarcWriter`] as finished bytes.

use super::{gzip, sha1_digest, ArchiveError};
use flate2::{write::DeflateEncoder, Compression, CrcWriter};
use std::io::{Read, Write};
use std::net::IpAddr;

/// The `WARC-Profile` of revisits that reuse an earlier capture's identical payload (WARC/1.1).
pub const REVISIT_PROFILE: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

const CT_RESPONSE: &str = "application/http; msgtype=response";
const CT_REQUEST: &str = "application/http; msgtype=request";
const CT_FIELDS: &str = "application/warc-fields";

/// Encodes ONE record as ONE complete gzip member.
///
/// Fields are written in the given order, exactly as given (names keep their case), then
/// `Content-Length` (computed from `block_len`), a blank line, the block read from `block`,
/// and CRLF CRLF. Records up to a few MiB are compressed in one call with libdeflate (see
/// `gzip`); larger blocks are streamed through flate2, which keeps memory at the size of the
/// compressed output even for huge blocks. Errors if `block` yields fewer or more than `block_len` bytes, if a field cannot be
/// written (empty or non-token name, a control character such as CR, LF, NUL or tab in a
/// value, see [`is_control_char`]) or if the caller passed `Content-Length`.
/// `Content-Type` is added only if the caller put it in `fields`. `level` is the gzip level
/// (0-9; larger values are treated as 9).
pub fn encode_record(
    fields: &[(&str, &str)],
    block: &mut dyn Read,
    block_len: u64,
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let mut head = String::with_capacity(
        64 + fields
            .iter()
            .map(|(n, v)| n.len() + v.len() + 4)
            .sum::<usize>(),
    );
    head.push_str("WARC/1.1\r\n");
    // The head up to the `WARC-Warcinfo-ID` line is stored uncompressed, so that a rotation
    // can name another file's warcinfo without compressing the record again (`gzip.rs`).
    let mut stored = 0;
    for (name, value) in fields {
        check_field(name, value)?;
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
        if name.eq_ignore_ascii_case("WARC-Warcinfo-ID") && head.len() <= gzip::MAX_STORED {
            stored = head.len();
        }
    }
    head.push_str("Content-Length: ");
    head.push_str(&block_len.to_string());
    head.push_str("\r\n\r\n");

    if block_len <= gzip::ONE_SHOT_MAX {
        return gzip::member(level, |plain| {
            plain.reserve(head.len() + block_len as usize + 4);
            plain.extend_from_slice(head.as_bytes());
            let copied = block.take(block_len).read_to_end(plain)? as u64;
            check_block_end(block, block_len, copied)?;
            plain.extend_from_slice(b"\r\n\r\n");
            Ok(stored)
        });
    }
    // Streamed: the stored head only while the length the trailer keeps (modulo 4 GiB) is exact.
    let total = head.len() as u64 + block_len + 4;
    let stored = if total < 1 << 32 { stored } else { 0 };
    let capacity = (block_len / 3).min(8 << 20) as usize + head.len() / 2 + 64;
    let mut out = Vec::with_capacity(capacity);
    gzip::start_member(&mut out, &head.as_bytes()[..stored]);
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head.as_bytes()[..stored]);
    let mut enc = CrcWriter::new(DeflateEncoder::new(out, Compression::new(level.min(9))));
    enc.write_all(&head.as_bytes()[stored..])?;
    let copied = std::io::copy(&mut block.take(block_len), &mut enc)?;
    check_block_end(block, block_len, copied)?;
    enc.write_all(b"\r\n\r\n")?;
    crc.combine(&crc32fast::Hasher::new_with_initial_len(
        enc.crc().sum(),
        enc.crc().amount() as u64,
    ));
    let mut out = enc.into_inner().finish()?;
    gzip::end_member(&mut out, crc.finalize(), total);
    Ok(out)
}

/// Errors unless exactly `block_len` bytes were copied and `block` has nothing more.
fn check_block_end(block: &mut dyn Read, block_len: u64, copied: u64) -> Result<(), ArchiveError> {
    if copied != block_len {
        return Err(ArchiveError::BlockLength {
            declared: block_len,
            actual: format!("had {copied} bytes"),
        });
    }
    let mut probe = [0u8; 1];
    if read_retrying(block, &mut probe)? != 0 {
        return Err(ArchiveError::BlockLength {
            declared: block_len,
            actual: "had more bytes".into(),
        });
    }
    Ok(())
}

fn read_retrying(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Refuses fields that would corrupt the header or duplicate the computed length.
fn check_field(name: &str, value: &str) -> Result<(), ArchiveError> {
    let bad = |reason: &str| ArchiveError::InvalidField {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    if name.is_empty() {
        return Err(bad("empty field name"));
    }
    if !name.bytes().all(is_token_byte) {
        return Err(bad("field name must be an HTTP token"));
    }
    if name.eq_ignore_ascii_case("Content-Length") {
        return Err(bad("Content-Length is computed from the block length"));
    }
    if value.chars().any(is_control_char) {
        return Err(bad(
            "value contains a control character (CR, LF, NUL, tab, U+0080-U+009F, U+2028...)",
        ));
    }
    Ok(())
}

/// Whether `c` must never reach a WARC header, a `warc-fields` line or a log line: the C0
/// controls (CR, LF, NUL, tab...), DEL, the C1 controls (U+0080-U+009F, among them NEL) and
/// the Unicode line and paragraph separators (U+2028, U+2029), which some readers also take as
/// line breaks.
pub fn is_control_char(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Percent-encodes (`%XX` per UTF-8 byte) every character of `v` for which `escape` holds;
/// borrows `v` when there is none, which is the usual case.
fn percent_escape(v: &str, escape: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    if !v.chars().any(&escape) {
        return std::borrow::Cow::Borrowed(v);
    }
    let mut out = String::with_capacity(v.len() + 8);
    let mut buf = [0u8; 4];
    for c in v.chars() {
        if escape(c) {
            for b in c.encode_utf8(&mut buf).bytes() {
                // Writing to a String cannot fail.
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A value made safe for one `warc-fields` line: control characters ([`is_control_char`])
/// percent-encoded, so that a CR LF in outside data (a scorer's `via`, a knowledge base's
/// application name) can never end the line and start a forged field. Spaces are kept.
pub fn escape_value(v: &str) -> std::borrow::Cow<'_, str> {
    percent_escape(v, is_control_char)
}

/// A value made safe for one space-separated column (of `crawl.log`, or the URL of an
/// `outlink` line): control characters and all whitespace percent-encoded (a space is `%20`),
/// so the value is one column whatever it holds.
pub fn escape_column(v: &str) -> std::borrow::Cow<'_, str> {
    percent_escape(v, |c| is_control_char(c) || c.is_whitespace())
}

/// Appends one `name: value` line of an `application/warc-fields` block (warcinfo, or the
/// Heritrix-style metadata of a capture). `value` goes through [`escape_value`], so whatever it
/// holds, exactly one line is added; a `name` that is not an HTTP token is an error.
pub fn push_field(block: &mut String, name: &str, value: &str) -> Result<(), ArchiveError> {
    let value = escape_value(value);
    check_field(name, &value)?;
    block.push_str(name);
    block.push_str(": ");
    block.push_str(&value);
    block.push_str("\r\n");
    Ok(())
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// What every record about one fetched URL shares.
#[derive(Debug, Clone, Copy)]
pub struct RecordCommon<'a> {
    /// This record's `WARC-Record-ID` (from [`super::new_record_id`]).
    pub record_id: &'a str,
    /// `WARC-Date` (from [`super::warc_date`]); a request and its response share it.
    pub date: &'a str,
    /// `WARC-Target-URI`, without angle brackets.
    pub target_uri: &'a str,
    /// `WARC-Warcinfo-ID` of the file the record goes to ([`super::WarcWriter::warcinfo_id`]);
    /// omitted when empty.
    pub warcinfo_id: &'a str,
    /// `WARC-IP-Address`, when known.
    pub ip: Option<IpAddr>,
}

/// The leading fields: type, warcinfo, id, date, target.
fn common_fields<'a>(
    kind: &'a str,
    c: &RecordCommon<'a>,
    out: &mut Vec<(&'a str, &'a str)>,
) -> Result<(), ArchiveError> {
    if c.target_uri.is_empty() {
        return Err(ArchiveError::InvalidField {
            name: "WARC-Target-URI".into(),
            reason: format!("a {kind} record needs a target URI"),
        });
    }
    out.push(("WARC-Type", kind));
    // Second, so that the stored head of the record's member is short (see `encode_record`).
    if !c.warcinfo_id.is_empty() {
        out.push(("WARC-Warcinfo-ID", c.warcinfo_id));
    }
    out.push(("WARC-Record-ID", c.record_id));
    out.push(("WARC-Date", c.date));
    out.push(("WARC-Target-URI", c.target_uri));
    Ok(())
}

/// A `response` record whose block (status line, headers, body as received) streams from
/// `block`; the digests were computed by the fetcher while the bytes arrived.
/// `truncated` is the `WARC-Truncated` reason, if the body was cut short.
pub fn response_record(
    c: &RecordCommon,
    block: &mut dyn Read,
    block_len: u64,
    block_digest: &str,
    payload_digest: &str,
    truncated: Option<&str>,
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let ip = c.ip.map(|ip| ip.to_string());
    let mut f = Vec::with_capacity(10);
    common_fields("response", c, &mut f)?;
    if let Some(ip) = &ip {
        f.push(("WARC-IP-Address", ip.as_str()));
    }
    f.push(("WARC-Block-Digest", block_digest));
    f.push(("WARC-Payload-Digest", payload_digest));
    if let Some(t) = truncated {
        f.push(("WARC-Truncated", t));
    }
    f.push(("Content-Type", CT_RESPONSE));
    encode_record(&f, block, block_len, level)
}

/// The `request` record sent for a response: same date, `WARC-Concurrent-To` the response.
pub fn request_record(
    c: &RecordCommon,
    concurrent_to: &str,
    request_bytes: &[u8],
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let ip = c.ip.map(|ip| ip.to_string());
    let digest = sha1_digest(request_bytes);
    let mut f = Vec::with_capacity(10);
    common_fields("request", c, &mut f)?;
    if let Some(ip) = &ip {
        f.push(("WARC-IP-Address", ip.as_str()));
    }
    f.push(("WARC-Concurrent-To", concurrent_to));
    f.push(("WARC-Block-Digest", &digest));
    f.push(("Content-Type", CT_REQUEST));
    encode_record(
        &f,
        &mut &request_bytes[..],
        request_bytes.len() as u64,
        level,
    )
}

/// A `metadata` record about a capture (for example `application/warc-fields` with Heritrix's
/// `via`, `hopsFromSeed`, `outlink` lines, or `application/json`), concurrent to the response.
pub fn metadata_record(
    c: &RecordCommon,
    concurrent_to: &str,
    content_type: &str,
    body: &[u8],
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    metadata_tied(
        c,
        ("WARC-Concurrent-To", concurrent_to),
        content_type,
        body,
        level,
    )
}

/// A `metadata` record tied to another record by `tie` (a field name and a Record-ID; none when
/// the ID is empty).
fn metadata_tied(
    c: &RecordCommon,
    tie: (&'static str, &str),
    content_type: &str,
    body: &[u8],
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let digest = sha1_digest(body);
    let mut f = Vec::with_capacity(8);
    common_fields("metadata", c, &mut f)?;
    if !tie.1.is_empty() {
        f.push(tie);
    }
    f.push(("WARC-Block-Digest", &digest));
    f.push(("Content-Type", content_type));
    encode_record(&f, &mut &body[..], body.len() as u64, level)
}

/// A `metadata` record written after its capture's records, about it: `WARC-Refers-To` the
/// capture's record instead of `WARC-Concurrent-To` (which says "made in the same fetch").
pub fn later_metadata_record(
    c: &RecordCommon,
    refers_to: &str,
    content_type: &str,
    body: &[u8],
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    metadata_tied(c, ("WARC-Refers-To", refers_to), content_type, body, level)
}

/// A `revisit` record for a payload identical to an earlier capture: the block is the new
/// response's status line and headers only (`WARC-Truncated: length`), and the Refers-To fields
/// let replay tools find the original even under another URL.
pub fn revisit_record(
    c: &RecordCommon,
    payload_digest: &str,
    refers_to_id: &str,
    refers_to_uri: &str,
    refers_to_date: &str,
    http_headers: &[u8],
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let ip = c.ip.map(|ip| ip.to_string());
    let digest = sha1_digest(http_headers);
    let mut f = Vec::with_capacity(14);
    common_fields("revisit", c, &mut f)?;
    if let Some(ip) = &ip {
        f.push(("WARC-IP-Address", ip.as_str()));
    }
    f.push(("WARC-Profile", REVISIT_PROFILE));
    f.push(("WARC-Refers-To", refers_to_id));
    f.push(("WARC-Refers-To-Target-URI", refers_to_uri));
    f.push(("WARC-Refers-To-Date", refers_to_date));
    f.push(("WARC-Payload-Digest", payload_digest));
    f.push(("WARC-Block-Digest", &digest));
    f.push(("WARC-Truncated", "length"));
    f.push(("Content-Type", CT_RESPONSE));
    encode_record(&f, &mut &http_headers[..], http_headers.len() as u64, level)
}

/// The `warcinfo` record that opens every file: `application/warc-fields` lines describing the
/// crawl (software, format, operator, isPartOf, robots policy, ...). It has no Target-URI.
/// Values are escaped ([`push_field`]): a control character in one (a user agent, an export's
/// query) is percent-encoded, never a line break.
pub fn warcinfo_record(
    record_id: &str,
    date: &str,
    filename: &str,
    fields: &[(String, String)],
    level: u32,
) -> Result<Vec<u8>, ArchiveError> {
    let mut body = String::with_capacity(fields.iter().map(|(n, v)| n.len() + v.len() + 4).sum());
    for (name, value) in fields {
        push_field(&mut body, name, value)?;
    }
    let digest = sha1_digest(body.as_bytes());
    let f = [
        ("WARC-Type", "warcinfo"),
        ("WARC-Record-ID", record_id),
        ("WARC-Date", date),
        ("WARC-Filename", filename),
        ("WARC-Block-Digest", digest.as_str()),
        ("Content-Type", CT_FIELDS),
    ];
    encode_record(&f, &mut body.as_bytes(), body.len() as u64, level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;

    fn gunzip(member: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        GzDecoder::new(member)
            .read_to_end(&mut out)
            .expect("valid gzip");
        out
    }

    #[test]
    fn exact_layout_and_field_case() {
        let m = encode_record(
            &[
                ("WARC-Type", "resource"),
                ("x-Odd-CASE", "v a l"),
                ("Content-Type", "text/plain"),
            ],
            &mut &b"hello"[..],
            5,
            6,
        )
        .expect("encode");
        assert_eq!(&m[..2], &[0x1f, 0x8b]);
        assert_eq!(
            gunzip(&m),
            b"WARC/1.1\r\nWARC-Type: resource\r\nx-Odd-CASE: v a l\r\nContent-Type: text/plain\r\n\
Content-Length: 5\r\n\r\nhello\r\n\r\n"
                .to_vec()
        );
    }

    #[test]
    fn wrong_block_length_is_an_error() {
        let short = encode_record(&[("WARC-Type", "resource")], &mut &b"abc"[..], 4, 1);
        assert!(
            matches!(short, Err(ArchiveError::BlockLength { declared: 4, .. })),
            "{short:?}"
        );
        let long = encode_record(&[("WARC-Type", "resource")], &mut &b"abcde"[..], 4, 1);
        assert!(
            matches!(long, Err(ArchiveError::BlockLength { declared: 4, .. })),
            "{long:?}"
        );
    }

    #[test]
    fn bad_fields_are_refused() {
        for (n, v) in [
            ("", "x"),
            ("Bad Name", "x"),
            ("X", "a\r\nInjected: 1"),
            ("X", "a\tb"),
            ("X", "a\u{85}b"),
            ("X", "a\u{2028}b"),
            ("X", "a\x7fb"),
            ("content-length", "3"),
        ] {
            let r = encode_record(&[(n, v)], &mut &b""[..], 0, 1);
            assert!(
                matches!(r, Err(ArchiveError::InvalidField { .. })),
                "{n:?} {v:?}: {r:?}"
            );
        }
    }

    #[test]
    fn a_forged_line_cannot_enter_a_fields_block() {
        let mut block = String::new();
        push_field(&mut block, "via", "http://a/\r\nWARC-Forged: 1").unwrap();
        push_field(
            &mut block,
            "sourceTag",
            "s\nWARC-Forged: 2\0\u{85}\u{2028}x",
        )
        .unwrap();
        push_field(&mut block, "isPartOf", "two words").unwrap();
        assert_eq!(
            block,
            "via: http://a/%0D%0AWARC-Forged: 1\r\n\
             sourceTag: s%0AWARC-Forged: 2%00%C2%85%E2%80%A8x\r\n\
             isPartOf: two words\r\n"
        );
        assert_eq!(block.lines().count(), 3);
        assert!(!block.lines().any(|l| l.starts_with("WARC-Forged")));
        assert!(push_field(&mut block, "bad name", "v").is_err());
        assert_eq!(escape_column("a b\tc\r\n"), "a%20b%09c%0D%0A");
        assert!(matches!(
            escape_value("plain"),
            std::borrow::Cow::Borrowed(_)
        ));

        // The warcinfo record escapes its values too.
        let fields = [("operator".to_string(), "x\r\nWARC-Forged: 1".to_string())];
        let info = gunzip(&warcinfo_record("<urn:uuid:i>", "d", "f.warc.gz", &fields, 1).unwrap());
        let text = String::from_utf8(info).unwrap();
        assert!(
            text.contains("operator: x%0D%0AWARC-Forged: 1\r\n"),
            "{text}"
        );
        assert!(!text.contains("\nWARC-Forged"), "{text}");
    }

    #[test]
    fn constructors_refuse_empty_target() {
        let c = RecordCommon {
            record_id: "<urn:uuid:x>",
            date: "d",
            target_uri: "",
            warcinfo_id: "",
            ip: None,
        };
        assert!(request_record(&c, "<urn:uuid:y>", b"GET / HTTP/1.1\r\n\r\n", 1).is_err());
    }

    #[test]
    fn one_shot_and_streamed_records_hold_the_same_bytes_and_patch_in_place() {
        let (old, new) = ("<urn:uuid:old-one>", "<urn:uuid:new-one>");
        for len in [gzip::ONE_SHOT_MAX - 200, gzip::ONE_SHOT_MAX + 1] {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let fields = [("WARC-Type", "resource"), ("WARC-Warcinfo-ID", old)];
            let m = encode_record(&fields, &mut &data[..], len, 1).expect("encode");
            let head = |id: &str| {
                let mut h =
                    format!("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Warcinfo-ID: {id}\r\n");
                h.push_str(&format!("Content-Length: {len}\r\n\r\n"));
                h.into_bytes()
            };
            let mut want = head(old);
            want.extend_from_slice(&data);
            want.extend_from_slice(b"\r\n\r\n");
            assert!(gunzip(&m) == want, "block of {len} bytes");
            // The warcinfo line is in the stored head, whichever path encoded the record.
            let field = |id: &str| format!("WARC-Warcinfo-ID: {id}\r\n").into_bytes();
            let patched = gzip::patch_stored(&m, &field(old), &field(new)).expect("stored head");
            want.splice(..head(old).len(), head(new));
            assert!(gunzip(&patched) == want, "patched block of {len} bytes");
            let short = encode_record(&fields, &mut &data[1..], len, 1);
            assert!(matches!(short, Err(ArchiveError::BlockLength { .. })));
        }
    }

    #[test]
    fn large_block_streams() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
        let m = encode_record(
            &[("WARC-Type", "resource")],
            &mut &data[..],
            data.len() as u64,
            1,
        )
        .expect("encode");
        let out = gunzip(&m);
        let body_start = out
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("head end")
            + 4;
        assert_eq!(&out[body_start..out.len() - 4], &data[..]);
    }
}
