//! The entity of a response, as the parser or a browser reads it: chunked framing removed and
//! `Content-Encoding` undone. The fetcher decodes a copy of what it recorded with it, the index's
//! replay decodes a stored block with it, so both read one body one way.

use super::chunked::DechunkReader;
use super::head::is_chunked;
use flate2::read::{DeflateDecoder, GzDecoder, ZlibDecoder};
use std::io::{self, BufRead, BufReader, Read};

/// A decoded body, ready for parsing (never what is archived).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedBody {
    /// The entity, de-chunked and decoded, at most the cap.
    pub bytes: Vec<u8>,
    /// Decoding stopped at the cap: the entity is longer (or a compression bomb).
    pub capped: bool,
    /// The compressed stream ended early or broke; `bytes` is what could be decoded. Expected for
    /// truncated exchanges, and still worth parsing.
    pub partial: bool,
}

/// Why a body could not be decoded. Callers add the URL.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// Reading the recorded bytes failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A content coding magpie does not decode (`br`, `zstd`, ...), as declared, lowercased.
    #[error("unsupported content encoding {0}")]
    UnsupportedEncoding(String),
    /// The compressed stream yielded nothing at all: what the decoder said.
    #[error("cannot decode body: {0}")]
    Decode(String),
}

/// The entity body of a response whose head (`headers`) has been read off `body`: removes
/// chunked framing if present, then decodes `Content-Encoding` gzip / x-gzip / deflate,
/// stopping at `cap` output bytes.
///
/// The cap applies to the output, so a small gzip bomb stops after `cap` bytes (`capped`).
/// Identity bodies pass through (also capped).
pub fn decode_entity<'a>(
    body: Box<dyn Read + 'a>,
    headers: &[(String, String)],
    cap: usize,
) -> Result<DecodedBody, BodyError> {
    let mut reader: Box<dyn Read + 'a> = if is_chunked(headers) {
        Box::new(DechunkReader::new(body))
    } else {
        body
    };
    // Codings are listed in the order applied; undo them last to first.
    let codings = content_codings(headers);
    for coding in codings.iter().rev() {
        reader = match coding.as_str() {
            "gzip" | "x-gzip" => Box::new(GzDecoder::new(reader)),
            "deflate" => deflate_reader(reader)?,
            other => return Err(BodyError::UnsupportedEncoding(other.to_string())),
        };
    }
    let mut bytes = Vec::new();
    let result = reader.take(cap as u64 + 1).read_to_end(&mut bytes);
    let capped = bytes.len() > cap;
    bytes.truncate(cap);
    let partial = match result {
        Ok(_) => false,
        Err(_) if !codings.is_empty() && !bytes.is_empty() => true,
        Err(e) if !codings.is_empty() => return Err(BodyError::Decode(e.to_string())),
        Err(e) => return Err(BodyError::Io(e)),
    };
    Ok(DecodedBody {
        bytes,
        capped,
        partial,
    })
}

/// Content codings in the order applied, lowercased, without `identity`.
fn content_codings(headers: &[(String, String)]) -> Vec<String> {
    headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-encoding"))
        .flat_map(|(_, v)| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect()
}

/// HTTP `deflate` is meant to be zlib-wrapped, but many servers send a raw deflate stream;
/// look at the first two bytes to tell which.
fn deflate_reader<'a>(inner: Box<dyn Read + 'a>) -> io::Result<Box<dyn Read + 'a>> {
    let mut buffered = BufReader::new(inner);
    let head = buffered.fill_buf()?;
    let zlib = head.len() >= 2
        && head[0] & 0x0f == 8
        && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0;
    Ok(if zlib {
        Box::new(ZlibDecoder::new(buffered))
    } else {
        Box::new(DeflateDecoder::new(buffered))
    })
}
