//! The fetcher's side of [`crate::http::body`]: a recorded exchange's entity for the parser,
//! with errors that name its URL.

use super::client::Fetched;
use super::FetchError;
pub use crate::http::body::DecodedBody;
use crate::http::body::{decode_entity, BodyError};
use std::io::{self, Read};

/// The entity body of a fetched response for parsing ([`decode_entity`]), stopping at `cap`
/// output bytes. A coding magpie cannot decode (`br`, `zstd`, ...) is an
/// [`FetchError::UnsupportedEncoding`], which the caller counts and skips parsing for.
pub fn entity_body(f: &Fetched, cap: usize) -> Result<DecodedBody, FetchError> {
    let url = &f.info.url;
    let io_err = |e: io::Error| FetchError::Io {
        url: url.clone(),
        source: e,
    };
    let mut raw = f.response.reader().map_err(io_err)?;
    io::copy(&mut raw.by_ref().take(f.info.header_len), &mut io::sink()).map_err(io_err)?;
    decode_entity(raw, &f.info.headers, cap).map_err(|e| match e {
        BodyError::Io(e) => io_err(e),
        BodyError::UnsupportedEncoding(coding) => FetchError::UnsupportedEncoding {
            url: url.clone(),
            coding,
        },
        BodyError::Decode(reason) => FetchError::Decode {
            url: url.clone(),
            reason,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::Spool;
    use crate::model::ExchangeInfo;
    use flate2::write::{GzEncoder, ZlibEncoder};
    use flate2::Compression;
    use std::io::Write;
    use std::time::Instant;

    fn fetched(headers: &[(&str, &str)], body: &[u8]) -> Fetched {
        let mut raw = b"HTTP/1.1 200 OK\r\n".to_vec();
        for (n, v) in headers {
            raw.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
        }
        raw.extend_from_slice(b"\r\n");
        let header_len = raw.len() as u64;
        raw.extend_from_slice(body);
        Fetched {
            info: ExchangeInfo {
                url: "http://example.com/x".into(),
                ip: [192, 0, 2, 1].into(),
                started: chrono::Utc::now(),
                duration_ms: 1,
                status: 200,
                headers: headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                header_len,
                truncated: None,
                block_digest: String::new(),
                payload_digest: String::new(),
            },
            request: Vec::new(),
            response: Spool::from_bytes(raw),
        }
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).expect("gzip");
        e.finish().expect("gzip")
    }

    #[test]
    fn identity_passthrough_and_cap() {
        let f = fetched(&[("Content-Type", "text/html")], b"<p>hi</p>");
        let d = entity_body(&f, 100).expect("body");
        assert_eq!(d.bytes, b"<p>hi</p>");
        assert!(!d.capped && !d.partial);
        let d = entity_body(&f, 4).expect("body");
        assert_eq!(d.bytes, b"<p>h");
        assert!(d.capped);
    }

    #[test]
    fn gzip_decoded() {
        let f = fetched(&[("Content-Encoding", "GZIP")], &gzip(b"hello gzip"));
        let d = entity_body(&f, 1 << 20).expect("body");
        assert_eq!(d.bytes, b"hello gzip");
        let f = fetched(&[("content-encoding", "x-gzip")], &gzip(b"x"));
        assert_eq!(entity_body(&f, 10).expect("body").bytes, b"x");
    }

    #[test]
    fn deflate_zlib_and_raw() {
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(b"zlib wrapped").expect("zlib");
        let f = fetched(
            &[("Content-Encoding", "deflate")],
            &z.finish().expect("zlib"),
        );
        assert_eq!(entity_body(&f, 100).expect("body").bytes, b"zlib wrapped");
        let mut r = flate2::write::DeflateEncoder::new(Vec::new(), Compression::default());
        r.write_all(b"raw deflate").expect("deflate");
        let f = fetched(
            &[("Content-Encoding", "deflate")],
            &r.finish().expect("deflate"),
        );
        assert_eq!(entity_body(&f, 100).expect("body").bytes, b"raw deflate");
    }

    #[test]
    fn gzip_bomb_is_capped_fast() {
        let mut e = GzEncoder::new(Vec::new(), Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..100 {
            e.write_all(&zeros).expect("gzip");
        }
        let bomb = e.finish().expect("gzip");
        assert!(bomb.len() < 200_000, "bomb is small: {}", bomb.len());
        let f = fetched(&[("Content-Encoding", "gzip")], &bomb);
        let t = Instant::now();
        let d = entity_body(&f, 1 << 20).expect("body");
        assert!(d.capped);
        assert_eq!(d.bytes.len(), 1 << 20);
        assert!(t.elapsed().as_millis() < 2000, "took {:?}", t.elapsed());
    }

    #[test]
    fn chunked_gzip_decoded() {
        let gz = gzip(b"chunked and gzipped");
        let (a, b) = gz.split_at(10);
        let mut body = format!("{:x}\r\n", a.len()).into_bytes();
        body.extend_from_slice(a);
        body.extend_from_slice(format!("\r\n{:x}\r\n", b.len()).as_bytes());
        body.extend_from_slice(b);
        body.extend_from_slice(b"\r\n0\r\nX-T: 1\r\n\r\n");
        let f = fetched(
            &[
                ("Transfer-Encoding", "chunked"),
                ("Content-Encoding", "gzip"),
            ],
            &body,
        );
        let d = entity_body(&f, 100).expect("body");
        assert_eq!(d.bytes, b"chunked and gzipped");
        let f = fetched(
            &[("Transfer-Encoding", "chunked")],
            b"4\r\nabcd\r\n0\r\n\r\n",
        );
        assert_eq!(entity_body(&f, 100).expect("body").bytes, b"abcd");
    }

    #[test]
    fn truncated_gzip_is_partial_and_garbage_is_an_error() {
        let text: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let gz = gzip(&text);
        let f = fetched(&[("Content-Encoding", "gzip")], &gz[..gz.len() / 2]);
        let d = entity_body(&f, 10 << 20).expect("partial body");
        assert!(d.partial && !d.bytes.is_empty());
        assert_eq!(&d.bytes[..], &text[..d.bytes.len()]);
        let f = fetched(&[("Content-Encoding", "gzip")], b"this is not gzip at all");
        assert_eq!(entity_body(&f, 100).expect_err("garbage").kind(), "decode");
    }

    #[test]
    fn unknown_coding_is_reported() {
        let f = fetched(&[("Content-Encoding", "br")], b"\x1b\x00");
        let err = entity_body(&f, 100).expect_err("br");
        assert_eq!(err.kind(), "unsupported-encoding");
        assert!(err.to_string().contains("br") && err.to_string().contains("example.com"));
    }
}
