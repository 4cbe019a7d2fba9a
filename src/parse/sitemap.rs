//! Sitemaps (sitemaps.org): `<urlset>` lists pages, `<sitemapindex>` lists further sitemaps.
//! Read with a streaming XML reader, gzip-compressed files included, with bounded output and
//! no DTD processing at all.

use std::io::{BufRead, BufReader, Read};

use flate2::read::GzDecoder;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;
use quick_xml::Reader;
use url::Url;

use super::{ParseError, ParseLimits};
use crate::uri::{parse_absolute, resolve_quiet};

/// Most bytes read from a sitemap, after decompression: the protocol's own limit (50 MiB), which
/// also bounds a gzip bomb.
const MAX_SITEMAP_BYTES: u64 = 50 << 20;

/// What a sitemap lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sitemap {
    /// Page URLs (`<urlset><url><loc>`), absolute, in document order.
    pub urls: Vec<String>,
    /// Further sitemaps (`<sitemapindex><sitemap><loc>`), absolute, in document order.
    pub sitemaps: Vec<String>,
}

impl Sitemap {
    fn len(&self) -> usize {
        self.urls.len() + self.sitemaps.len()
    }
}

/// Parses a sitemap: XML `urlset` or `sitemapindex`, optionally gzip-compressed (detected by its
/// magic bytes, since servers label `.xml.gz` files inconsistently), or the protocol's plain-text
/// form (one absolute URL per line).
///
/// At most `limits.max_links` entries are kept, each `<loc>` is resolved against `base` and
/// dropped if unfetchable or longer than `limits.max_url_len`. A DOCTYPE is refused, and entity
/// references other than XML's five predefined ones and character references are dropped,
/// so entity-expansion attacks cannot work. A document damaged part-way (for instance cut by
/// the fetch size limit) yields the entries read before the damage.
pub fn sitemap(body: &[u8], base: &Url, limits: &ParseLimits) -> Result<Sitemap, ParseError> {
    if body.starts_with(&[0x1f, 0x8b]) {
        let reader = BufReader::new(GzDecoder::new(body).take(MAX_SITEMAP_BYTES));
        return read(reader, base, limits);
    }
    let body = &body[..body.len().min(MAX_SITEMAP_BYTES as usize)];
    let text_start = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    match text_start.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'<') | None => read(body, base, limits),
        Some(_) => Ok(plain_text(text_start, limits)),
    }
}

/// The plain-text form: one absolute URL per line.
fn plain_text(body: &[u8], limits: &ParseLimits) -> Sitemap {
    let text = String::from_utf8_lossy(body);
    let urls = text
        .lines()
        .filter_map(|line| parse_absolute(line, limits.max_url_len).ok())
        .take(limits.max_links)
        .map(String::from)
        .collect();
    Sitemap {
        urls,
        sitemaps: Vec::new(),
    }
}

/// Which list the `<loc>` being read belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Url,
    Sitemap,
}

fn read<R: BufRead>(input: R, base: &Url, limits: &ParseLimits) -> Result<Sitemap, ParseError> {
    let mut reader = Reader::from_reader(input);
    reader.config_mut().trim_text(false);
    let mut out = Sitemap::default();
    let mut buf = Vec::new();
    let mut depth = 0usize;
    let mut root: Option<Kind> = None;
    let mut in_loc = false;
    let mut loc = String::new();
    let err_url = || base.as_str().to_owned();

    loop {
        let event = match reader.read_event_into(&mut buf) {
            Ok(event) => event,
            Err(source) if out.len() == 0 => {
                return Err(ParseError::Xml {
                    url: err_url(),
                    position: reader.error_position(),
                    source,
                })
            }
            Err(_) => break,
        };
        match event {
            Event::DocType(_) => return Err(ParseError::Doctype { url: err_url() }),
            Event::Start(e) => {
                depth += 1;
                let name = e.local_name();
                match depth {
                    1 => {
                        root = Some(match name.as_ref() {
                            b"urlset" => Kind::Url,
                            b"sitemapindex" => Kind::Sitemap,
                            other => {
                                return Err(ParseError::NotSitemap {
                                    url: err_url(),
                                    root: String::from_utf8_lossy(other).into_owned(),
                                })
                            }
                        })
                    }
                    3 if name.as_ref() == b"loc" => {
                        in_loc = true;
                        loc.clear();
                    }
                    _ => {}
                }
            }
            Event::Empty(e) if depth == 0 => {
                return match e.local_name().as_ref() {
                    b"urlset" | b"sitemapindex" => Ok(out),
                    other => Err(ParseError::NotSitemap {
                        url: err_url(),
                        root: String::from_utf8_lossy(other).into_owned(),
                    }),
                };
            }
            Event::End(_) => {
                if in_loc && depth == 3 {
                    in_loc = false;
                    if let Ok(url) = resolve_quiet(&loc, base, limits.max_url_len) {
                        match root {
                            Some(Kind::Url) => out.urls.push(url.into()),
                            Some(Kind::Sitemap) => out.sitemaps.push(url.into()),
                            None => {}
                        }
                        if out.len() >= limits.max_links {
                            break;
                        }
                    }
                }
                depth = depth.saturating_sub(1);
            }
            Event::Text(t) if in_loc => {
                push_capped(&mut loc, &t.decode().unwrap_or_default(), limits)
            }
            Event::CData(t) if in_loc => {
                push_capped(&mut loc, &t.decode().unwrap_or_default(), limits)
            }
            Event::GeneralRef(r) if in_loc => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    Ok(None) => r
                        .decode()
                        .ok()
                        .and_then(|name| resolve_predefined_entity(&name).map(str::to_owned)),
                    Err(_) => None,
                };
                if let Some(s) = resolved {
                    push_capped(&mut loc, &s, limits);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if root.is_none() && out.len() == 0 {
        return Err(ParseError::NotSitemap {
            url: err_url(),
            root: String::new(),
        });
    }
    Ok(out)
}

/// Appends to a `<loc>` being read, but never beyond what could still be an acceptable URL, so
/// a hostile multi-megabyte `<loc>` costs no memory (it is then refused as too long).
fn push_capped(loc: &mut String, s: &str, limits: &ParseLimits) {
    if loc.len() <= limits.max_url_len {
        loc.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn base() -> Url {
        Url::parse("http://example.org/sitemap.xml").unwrap()
    }

    fn parse(body: &str) -> Result<Sitemap, ParseError> {
        sitemap(body.as_bytes(), &base(), &ParseLimits::default())
    }

    #[test]
    fn urlset() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>http://example.org/a?x=1&amp;y=2</loc><lastmod>2024-01-01</lastmod></url>
  <url>
    <loc>
      http://example.org/b#frag
    </loc>
    <image:image><image:loc>http://example.org/img.png</image:loc></image:image>
  </url>
  <url><loc><![CDATA[http://example.org/c]]></loc></url>
  <url><loc>/relative</loc></url>
  <url><loc>mailto:x@example.org</loc></url>
  <url><loc>http://example.org/&#100;&unknown;</loc></url>
</urlset>"#;
        let map = parse(xml).unwrap();
        assert_eq!(
            map.urls,
            [
                "http://example.org/a?x=1&y=2",
                "http://example.org/b",
                "http://example.org/c",
                "http://example.org/relative",
                "http://example.org/d",
            ]
        );
        assert!(map.sitemaps.is_empty());
    }

    #[test]
    fn sitemapindex_gzipped() {
        let xml = r#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>http://example.org/s1.xml.gz</loc></sitemap>
  <sitemap><loc>http://example.org/s2.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
</sitemapindex>"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(xml.as_bytes()).unwrap();
        let body = gz.finish().unwrap();
        let map = sitemap(&body, &base(), &ParseLimits::default()).unwrap();
        assert_eq!(
            map.sitemaps,
            ["http://example.org/s1.xml.gz", "http://example.org/s2.xml"]
        );
        assert!(map.urls.is_empty());
    }

    #[test]
    fn doctype_and_entity_bomb_refused() {
        let bomb = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY ext SYSTEM "file:///etc/passwd">
]>
<urlset><url><loc>http://example.org/&lol3;&ext;</loc></url></urlset>"#;
        let err = parse(bomb).unwrap_err();
        assert!(matches!(err, ParseError::Doctype { .. }), "{err}");
        assert!(err.to_string().contains("http://example.org/sitemap.xml"));
    }

    #[test]
    fn cap_respected() {
        let mut xml = String::from("<urlset>");
        for i in 0..1000 {
            xml.push_str(&format!("<url><loc>http://example.org/p{i}</loc></url>"));
        }
        xml.push_str("</urlset>");
        let limits = ParseLimits {
            max_links: 25,
            ..ParseLimits::default()
        };
        let map = sitemap(xml.as_bytes(), &base(), &limits).unwrap();
        assert_eq!(map.urls.len(), 25);
        assert_eq!(map.urls[24], "http://example.org/p24");
    }

    #[test]
    fn long_loc_refused_without_buffering() {
        let xml = format!("<urlset><url><loc>http://example.org/{}</loc></url><url><loc>http://example.org/ok</loc></url></urlset>", "a".repeat(100_000));
        let map = parse(&xml).unwrap();
        assert_eq!(map.urls, ["http://example.org/ok"]);
    }

    #[test]
    fn damaged_and_wrong_documents() {
        let cut = "<urlset><url><loc>http://example.org/1</loc></url><url><loc>http://exa";
        assert_eq!(parse(cut).unwrap().urls, ["http://example.org/1"]);
        assert!(
            matches!(parse("<html><body>hi</body></html>"), Err(ParseError::NotSitemap { root, .. }) if root == "html")
        );
        assert!(matches!(
            parse("<urlset><url></urlset>"),
            Err(ParseError::Xml { .. })
        ));
        assert!(matches!(parse(""), Err(ParseError::NotSitemap { .. })));
        assert_eq!(parse("<urlset/>").unwrap(), Sitemap::default());
        let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        let _ = sitemap(&garbage, &base(), &ParseLimits::default());
    }

    #[test]
    fn plain_text_form() {
        let body = "http://example.org/a\r\n\nnot a url\nhttps://example.org/b\n";
        assert_eq!(
            parse(body).unwrap().urls,
            ["http://example.org/a", "https://example.org/b"]
        );
    }
}
