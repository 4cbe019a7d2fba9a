//! Bytes to text: finds the character encoding of a document the way browsers do, and decodes.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How many bytes the `<meta>` prescan looks at, as in the WHATWG encoding sniffing algorithm.
const PRESCAN_BYTES: usize = 1024;

/// How many bytes encoding detection reads. Detection is only the last resort for undeclared
/// documents, and 64 KiB is plenty to tell legacy encodings apart.
const DETECT_BYTES: usize = 64 * 1024;

/// Decodes a document body to text and names the encoding used (WHATWG name, e.g. `Shift_JIS`).
///
/// The encoding comes from, in order: a byte order mark (it is unambiguous, so it wins over a
/// header, as in browsers); the `charset` parameter of the HTTP `Content-Type`; for HTML, a
/// `<meta charset>` or `<meta http-equiv="Content-Type">` within the first 1024 bytes; finally
/// statistical detection (chardetng), which may answer UTF-8 for valid UTF-8 but never assumes
/// it. Unknown labels are skipped. Invalid byte sequences become U+FFFD; decoding never fails.
pub fn decode(body: &[u8], content_type: Option<&str>, html: bool) -> (String, &'static str) {
    let (encoding, skip) = sniff(body, content_type, html);
    let (text, _had_errors) = encoding.decode_without_bom_handling(&body[skip..]);
    (text.into_owned(), encoding.name())
}

/// The encoding, and how many leading bytes (a BOM) to skip before decoding.
fn sniff(body: &[u8], content_type: Option<&str>, html: bool) -> (&'static Encoding, usize) {
    if let Some((enc, bom_len)) = Encoding::for_bom(body) {
        return (enc, bom_len);
    }
    if let Some(enc) = content_type.and_then(header_charset) {
        return (enc, 0);
    }
    if html {
        if let Some(enc) = prescan(&body[..body.len().min(PRESCAN_BYTES)]) {
            return (enc, 0);
        }
    }
    let sample = &body[..body.len().min(DETECT_BYTES)];
    // ISO-2022-JP is not guessed, as in browsers, so text matches what a replay would show.
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(sample, sample.len() == body.len());
    (detector.guess(None, Utf8Detection::Allow), 0)
}

/// The encoding named by the `charset` parameter of a `Content-Type` value.
fn header_charset(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        Encoding::for_label(value.as_bytes())
    })
}

/// What a label found in a document means: a document cannot really be UTF-16 if its ASCII
/// `<meta>` was readable, and `x-user-defined` means windows-1252 there (WHATWG rules).
fn meta_encoding(label: &[u8]) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(label)?;
    Some(if enc == UTF_16BE || enc == UTF_16LE {
        UTF_8
    } else if enc == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        enc
    })
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn find(s: &[u8], needle: &[u8]) -> Option<usize> {
    s.windows(needle.len()).position(|w| w == needle)
}

/// The WHATWG "prescan a byte stream to determine its encoding": walks tags in the first bytes,
/// skipping comments and other markup, and reads the first `<meta>` that declares a charset.
fn prescan(s: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        if rest.starts_with(b"<!--") {
            i += 2 + find(&rest[2..], b"-->")? + 3;
        } else if starts_with_ci(rest, b"<meta")
            && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/')
        {
            i += 6;
            if let Some(enc) = meta_tag(s, &mut i) {
                return Some(enc);
            }
        } else if rest.len() >= 2
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
        {
            i += rest[1..].iter().position(|&b| is_space(b) || b == b'>')? + 1;
            while attribute(s, &mut i)?.is_some() {}
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            i += rest.iter().position(|&b| b == b'>')? + 1;
        } else {
            i += 1;
        }
    }
    None
}

/// Reads the attributes of one `<meta>` and returns the encoding it declares, if any.
fn meta_tag(s: &[u8], i: &mut usize) -> Option<&'static Encoding> {
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    let mut seen_content = false;
    let mut seen_charset = false;
    // A cut-off tag at the end of the window simply declares nothing.
    while let Some((name, value)) = attribute(s, i).flatten() {
        match name.as_slice() {
            b"http-equiv" if value.eq_ignore_ascii_case(b"content-type") => got_pragma = true,
            b"content" if !seen_content && charset.is_none() => {
                seen_content = true;
                if let Some(label) = charset_from_content(&value) {
                    charset = meta_encoding(label);
                    need_pragma = Some(true);
                }
            }
            b"charset" if !seen_charset => {
                seen_charset = true;
                charset = meta_encoding(trim_space(&value));
                need_pragma = Some(false);
            }
            _ => {}
        }
    }
    match need_pragma {
        Some(true) if !got_pragma => None,
        Some(_) => charset,
        None => None,
    }
}

fn trim_space(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |e| e + 1);
    &s[start..end]
}

/// Reads one attribute at `*i`. `None`: the window ended inside the tag; `Some(None)`: the tag
/// ended; `Some(Some((name, value)))`: an attribute with its lowercased name.
#[allow(clippy::type_complexity)]
fn attribute(s: &[u8], i: &mut usize) -> Option<Option<(Vec<u8>, Vec<u8>)>> {
    while *i < s.len() && (is_space(s[*i]) || s[*i] == b'/') {
        *i += 1;
    }
    match s.get(*i) {
        None => return None,
        Some(b'>') => {
            *i += 1;
            return Some(None);
        }
        _ => {}
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let b = *s.get(*i)?;
        if b == b'=' && !name.is_empty() {
            *i += 1;
            break;
        }
        if is_space(b) {
            while s.get(*i).is_some_and(|&b| is_space(b)) {
                *i += 1;
            }
            if s.get(*i) != Some(&b'=') {
                return Some(Some((name, value)));
            }
            *i += 1;
            break;
        }
        if b == b'/' || b == b'>' {
            return Some(Some((name, value)));
        }
        name.push(b.to_ascii_lowercase());
        *i += 1;
    }
    while s.get(*i).is_some_and(|&b| is_space(b)) {
        *i += 1;
    }
    let b = *s.get(*i)?;
    if b == b'"' || b == b'\'' {
        let end = s[*i + 1..].iter().position(|&c| c == b)?;
        value.extend(s[*i + 1..*i + 1 + end].iter().map(u8::to_ascii_lowercase));
        *i += end + 2;
        return Some(Some((name, value)));
    }
    if b == b'>' {
        return Some(Some((name, value)));
    }
    while let Some(&b) = s.get(*i) {
        if is_space(b) || b == b'>' {
            return Some(Some((name, value)));
        }
        value.push(b.to_ascii_lowercase());
        *i += 1;
    }
    None
}

/// The charset named in a `content="text/html; charset=..."` value (WHATWG algorithm).
fn charset_from_content(value: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        let at = find(&value[i..], b"charset")? + i + 7;
        let mut j = at;
        while value.get(j).is_some_and(|&b| is_space(b)) {
            j += 1;
        }
        if value.get(j) != Some(&b'=') {
            i = at;
            continue;
        }
        j += 1;
        while value.get(j).is_some_and(|&b| is_space(b)) {
            j += 1;
        }
        let rest = &value[j..];
        return match rest.first() {
            Some(&q) if q == b'"' || q == b'\'' => {
                let end = rest[1..].iter().position(|&c| c == q)?;
                Some(&rest[1..1 + end])
            }
            Some(_) => {
                let end = rest
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(rest.len());
                Some(&rest[..end])
            }
            None => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_charset_wins_over_meta() {
        let body = "<meta charset=utf-8><p>caf\u{e9}</p>";
        let bytes = WINDOWS_1252.encode(body).0;
        let (text, name) = decode(&bytes, Some("text/html; Charset=\"ISO-8859-1\""), true);
        assert_eq!(name, "windows-1252");
        assert!(text.contains("café"));
    }

    #[test]
    fn unknown_header_label_falls_through_to_meta() {
        let bytes = b"<html><head><meta charset=\"koi8-r\"></head>\xc1\xc2".to_vec();
        let (text, name) = decode(&bytes, Some("text/html; charset=bogus"), true);
        assert_eq!(name, "KOI8-R");
        assert!(text.ends_with("аб"), "{text}");
    }

    #[test]
    fn meta_http_equiv_and_comments() {
        let html = b"<!-- <meta charset=koi8-r> --><html><head>\n<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=iso-8859-2\">\n</head><body>\xb1</body>";
        let (text, name) = decode(html, Some("text/html"), true);
        assert_eq!(name, "ISO-8859-2");
        assert!(text.contains('ą'), "{text}");
        // content= without the http-equiv pragma is ignored
        let html = b"<meta content=\"text/html; charset=iso-8859-2\"><p>plain ascii</p>";
        assert_ne!(decode(html, None, true).1, "ISO-8859-2");
        // meta is only looked for in HTML
        let xml = b"<meta charset=koi8-r>";
        assert_ne!(decode(xml, None, false).1, "KOI8-R");
        // a meta past the first 1024 bytes is not seen
        let mut late = vec![b' '; 1100];
        late.extend_from_slice(b"<meta charset=koi8-r>");
        assert_ne!(decode(&late, None, true).1, "KOI8-R");
    }

    #[test]
    fn meta_utf16_means_utf8() {
        let (_, name) = decode(b"<meta charset=utf-16le><p>x</p>", None, true);
        assert_eq!(name, "UTF-8");
    }

    #[test]
    fn bom_wins() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("h\u{e9}".as_bytes());
        let (text, name) = decode(&bytes, Some("text/html; charset=windows-1252"), true);
        assert_eq!((text.as_str(), name), ("hé", "UTF-8"));
        let utf16: Vec<u8> = [0xFF, 0xFE, b'h', 0, b'i', 0].to_vec();
        assert_eq!(decode(&utf16, None, true), ("hi".to_owned(), "UTF-16LE"));
    }

    #[test]
    fn detects_windows_1252_without_declaration() {
        let src = "Les élèves étaient très contents de leur année à l'école, où ils ont appris \
                   beaucoup de choses intéressantes sur la géographie et l'économie française.";
        let bytes = WINDOWS_1252.encode(src).0;
        let (text, name) = decode(&bytes, None, true);
        assert_eq!(name, "windows-1252");
        assert_eq!(text, src);
    }

    #[test]
    fn detects_shift_jis_without_declaration() {
        let src = "日本語のテキストです。これは文字コードの自動判定のための文章です。東京都は晴れています。";
        let bytes = encoding_rs::SHIFT_JIS.encode(src).0;
        let (text, name) = decode(&bytes, Some("text/html"), true);
        assert_eq!(name, "Shift_JIS");
        assert_eq!(text, src);
    }

    #[test]
    fn invalid_utf8_becomes_replacement() {
        let bytes = b"ok \xff\xfe\xc3 end";
        let (text, name) = decode(bytes, Some("text/html; charset=utf-8"), true);
        assert_eq!(name, "UTF-8");
        assert!(text.starts_with("ok ") && text.ends_with(" end"));
        assert!(text.contains('\u{FFFD}'));
    }

    #[test]
    fn prescan_survives_truncated_markup() {
        for cut in [
            b"<meta charset=\"koi8".as_slice(),
            b"<!-- never closed",
            b"<meta",
            b"<a href='x",
            b"<",
        ] {
            assert_eq!(prescan(cut), None);
        }
    }
}
