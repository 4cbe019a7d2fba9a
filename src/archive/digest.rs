//! SHA-1 digests in the WARC form `sha1:` + base32, computed in one go or incrementally, and
//! parsing of digest field values for verification.

use data_encoding::{BASE32, HEXLOWER_PERMISSIVE};
use sha1::{Digest, Sha1};

/// `sha1:` + upper-case RFC 4648 base32 of the SHA-1 of `bytes` (32 characters), the form
/// warcio, pywb and Heritrix write and compare.
pub fn sha1_digest(bytes: &[u8]) -> String {
    format_sha1(&Sha1::digest(bytes).into())
}

/// Formats a raw SHA-1 value as a WARC digest field value.
pub(crate) fn format_sha1(raw: &[u8; 20]) -> String {
    let mut s = String::with_capacity(37);
    s.push_str("sha1:");
    s.push_str(&BASE32.encode(raw));
    s
}

/// Incremental SHA-1 in the WARC form, so blocks can be digested while they stream through
/// (fetch spool, gzip encoder) without being held in memory.
#[derive(Clone, Default)]
pub struct Sha1Digester(Sha1);

impl Sha1Digester {
    /// A digester with nothing fed yet.
    pub fn new() -> Sha1Digester {
        Sha1Digester(Sha1::new())
    }

    /// Feeds more bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest of everything fed, as `sha1:` + base32.
    pub fn finish(self) -> String {
        format_sha1(&self.finish_raw())
    }

    /// The raw 20-byte SHA-1.
    pub(crate) fn finish_raw(self) -> [u8; 20] {
        self.0.finalize().into()
    }
}

impl std::io::Write for Sha1Digester {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a digest field value says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ParsedDigest {
    /// A SHA-1 value (written as base32 or hex).
    Sha1([u8; 20]),
    /// Another algorithm, which this module cannot verify.
    Other(String),
    /// `sha1:` with a value that is neither 32 base32 nor 40 hex characters.
    Malformed,
}

/// Parses `algorithm:value`. SHA-1 values are accepted in base32 (any case) or hex, since both
/// occur in the wild.
pub(crate) fn parse_digest(value: &str) -> ParsedDigest {
    let Some((alg, v)) = value.trim().split_once(':') else {
        return ParsedDigest::Malformed;
    };
    if !alg.eq_ignore_ascii_case("sha1") && !alg.eq_ignore_ascii_case("sha-1") {
        return ParsedDigest::Other(alg.to_ascii_lowercase());
    }
    let decoded = match v.len() {
        32 => BASE32.decode(v.to_ascii_uppercase().as_bytes()).ok(),
        40 => HEXLOWER_PERMISSIVE.decode(v.as_bytes()).ok(),
        _ => None,
    };
    match decoded.and_then(|d| <[u8; 20]>::try_from(d.as_slice()).ok()) {
        Some(raw) => ParsedDigest::Sha1(raw),
        None => ParsedDigest::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        // SHA-1("abc") = a9993e364706816aba3e25717850c26c9cd0d89d
        assert_eq!(sha1_digest(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
        assert_eq!(sha1_digest(b"abc").len(), 37);
    }

    #[test]
    fn incremental_equals_one_shot() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut d = Sha1Digester::new();
        for chunk in data.chunks(777) {
            d.update(chunk);
        }
        assert_eq!(d.finish(), sha1_digest(&data));
        let mut w = Sha1Digester::default();
        std::io::copy(&mut &data[..], &mut w).expect("copy into digester");
        assert_eq!(w.finish(), sha1_digest(&data));
    }

    #[test]
    fn parses_base32_hex_and_others() {
        let want = Sha1::digest(b"abc");
        let raw: [u8; 20] = want.into();
        assert_eq!(
            parse_digest("sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"),
            ParsedDigest::Sha1(raw)
        );
        assert_eq!(
            parse_digest("SHA1:vgmt4nsha2awvor6evyxqugcnsonbwe5"),
            ParsedDigest::Sha1(raw)
        );
        assert_eq!(
            parse_digest("sha1:a9993e364706816aba3e25717850c26c9cd0d89d"),
            ParsedDigest::Sha1(raw)
        );
        assert_eq!(
            parse_digest("sha256:abcd"),
            ParsedDigest::Other("sha256".into())
        );
        assert_eq!(parse_digest("sha1:XYZ"), ParsedDigest::Malformed);
        assert_eq!(parse_digest("nocolon"), ParsedDigest::Malformed);
    }
}
