//! Archived pages rewritten for replay inside the cockpit, as pywb rewrites them: every URL an
//! archived HTML page or stylesheet refers to (links, images, `srcset`, stylesheets, scripts,
//! frames, media, `url()` and `@import` in `<style>`, `style="..."` and CSS files, a
//! `<meta http-equiv=refresh>`) is made absolute against the page (and its `<base href>`) and
//! turned into an archive path, `PREFIX/TIMESTAMP/URL`, which the cockpit serves from the
//! crawl's WARC files: the capture of that URL nearest the timestamp. So the page is shown with
//! its styles and images, and a link followed in its frame lands on the archived page it names,
//! never on the live web or on the cockpit's own pages.
//!
//! HTML is rewritten by `lol_html` (a streaming rewriter that parses as browsers do), CSS by
//! `cssparser`'s tokenizer; neither is hand-written here. What the rewriting changes is the
//! URLs only: a `<base>` (its URL is applied, then the element dropped), `target` (links open in
//! their frame: a sandboxed frame may not open windows), and `integrity` (a rewritten
//! stylesheet no longer has its archived hash) aside.

use lol_html::html_content::{ContentType, Element};
use lol_html::{element, text, AsciiCompatibleEncoding, HtmlRewriter, Settings};
use std::cell::RefCell;
use url::Url;

/// Why a page could not be rewritten.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    /// The HTML rewriter gave up (`lol_html`'s reason).
    #[error("rewriting the archived HTML of {url}: {reason}")]
    Html {
        /// The archived page's URL.
        url: String,
        /// Why.
        reason: String,
    },
}

/// Where archived URLs are replayed: `{prefix}/{timestamp}/{url}`.
#[derive(Debug, Clone)]
pub struct ArchivePaths {
    /// The path every archive path starts with (`/replay/KEY/CRAWL`).
    pub prefix: String,
    /// The 14-digit timestamp of the page being rewritten: its links go to the captures
    /// nearest to it, as in pywb.
    pub timestamp: String,
}

impl ArchivePaths {
    /// The archive path of `url`.
    pub fn of(&self, url: &Url) -> String {
        format!("{}/{}/{}", self.prefix, self.timestamp, url)
    }

    /// `value` (a URL as written in the page) resolved against `base` and turned into its
    /// archive path; `None` when it stays as it is (empty, a fragment of the page itself, or
    /// not http(s): `data:`, `mailto:`, `javascript:` (scripts do not run anyway)).
    pub fn rewrite(&self, base: &Url, value: &str) -> Option<String> {
        let v = value.trim();
        if v.is_empty() || v.starts_with('#') {
            return None;
        }
        let url = base.join(v).ok()?;
        matches!(url.scheme(), "http" | "https").then(|| self.of(&url))
    }

    /// A `srcset` with each candidate's URL rewritten (descriptors kept).
    pub fn rewrite_srcset(&self, base: &Url, srcset: &str) -> String {
        srcset
            .split(',')
            .map(|candidate| {
                let c = candidate.trim();
                let (url, descriptor) = c.split_once(char::is_whitespace).unwrap_or((c, ""));
                let url = self.rewrite(base, url).unwrap_or_else(|| url.to_string());
                if descriptor.trim().is_empty() {
                    url
                } else {
                    format!("{url} {}", descriptor.trim())
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One span of CSS to replace: byte range and the text that takes its place.
struct Edit {
    start: usize,
    end: usize,
    with: String,
}

/// `s` as a CSS string, quoted and escaped.
fn css_string(s: &str) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = cssparser::serialize_string(s, &mut out);
    out
}

/// Finds the URLs of a CSS token stream (at any nesting depth): `url(x)`, `url("x")` and
/// `@import "x"`.
fn css_edits<'i>(
    parser: &mut cssparser::Parser<'i, '_>,
    base: &Url,
    paths: &ArchivePaths,
    edits: &mut Vec<Edit>,
) {
    use cssparser::Token;
    let mut import = false;
    loop {
        let start = parser.position().byte_index();
        let token = match parser.next_including_whitespace_and_comments() {
            Ok(t) => t.clone(),
            Err(_) => return,
        };
        let end = parser.position().byte_index();
        let mut replace = |value: &str, wrap: bool| {
            if let Some(to) = paths.rewrite(base, value) {
                let with = if wrap {
                    format!("url({})", css_string(&to))
                } else {
                    css_string(&to)
                };
                edits.push(Edit { start, end, with });
            }
        };
        match &token {
            Token::UnquotedUrl(u) => replace(u, true),
            Token::QuotedString(s) if import => replace(s, false),
            Token::Function(name) if name.eq_ignore_ascii_case("url") => {
                let inner = parser.parse_nested_block(|p| {
                    let found = match p.next() {
                        Ok(Token::QuotedString(s)) => Some(s.to_string()),
                        _ => None,
                    };
                    // The rest of the block is consumed by `parse_nested_block`.
                    Ok::<_, cssparser::ParseError<'i, ()>>(found)
                });
                let end = parser.position().byte_index();
                if let Ok(Some(value)) = inner {
                    if let Some(to) = paths.rewrite(base, &value) {
                        edits.push(Edit {
                            start,
                            end,
                            with: format!("url({})", css_string(&to)),
                        });
                    }
                }
            }
            Token::Function(_)
            | Token::ParenthesisBlock
            | Token::SquareBracketBlock
            | Token::CurlyBracketBlock => {
                let _ = parser.parse_nested_block(|p| {
                    css_edits(p, base, paths, edits);
                    Ok::<_, cssparser::ParseError<'i, ()>>(())
                });
            }
            _ => {}
        }
        import = match &token {
            Token::AtKeyword(k) => k.eq_ignore_ascii_case("import"),
            Token::WhiteSpace(_) | Token::Comment(_) => import,
            _ => false,
        };
    }
}

/// CSS (a stylesheet, a `<style>` element's text or a `style` attribute) with every URL it
/// refers to rewritten to its archive path; the rest is left byte for byte.
pub fn rewrite_css(css: &str, base: &Url, paths: &ArchivePaths) -> String {
    let mut input = cssparser::ParserInput::new(css);
    let mut parser = cssparser::Parser::new(&mut input);
    let mut edits = Vec::new();
    css_edits(&mut parser, base, paths, &mut edits);
    let mut out = String::with_capacity(css.len() + edits.len() * 64);
    let mut at = 0;
    for e in edits {
        if e.start < at || e.end > css.len() {
            continue;
        }
        out.push_str(&css[at..e.start]);
        out.push_str(&e.with);
        at = e.end;
    }
    out.push_str(&css[at..]);
    out
}

/// Attributes that hold one URL.
const URL_ATTRIBUTES: [&str; 6] = ["href", "src", "poster", "action", "data", "background"];

/// An attribute's value as written (`lol_html` keeps character references: `&amp;`) decoded.
fn attribute(el: &Element, name: &str) -> Option<String> {
    el.get_attribute(name)
        .map(|v| html_escape::decode_html_entities(&v).into_owned())
}

/// Sets an attribute to `value` (plain text): `&` written as a reference, `"` by `lol_html`.
fn set(el: &mut Element, name: &str, value: &str) {
    // The names used here are valid attribute names: setting them cannot fail.
    let _ = el.set_attribute(name, &value.replace('&', "&amp;"));
}

fn rewrite_element(el: &mut Element, base: &Url, paths: &ArchivePaths) {
    for name in URL_ATTRIBUTES {
        if let Some(v) = attribute(el, name) {
            if let Some(to) = paths.rewrite(base, &v) {
                set(el, name, &to);
            }
        }
    }
    for name in ["srcset", "imagesrcset"] {
        if let Some(v) = attribute(el, name) {
            set(el, name, &paths.rewrite_srcset(base, &v));
        }
    }
    if let Some(v) = attribute(el, "style") {
        set(el, "style", &rewrite_css(&v, base, paths));
    }
    el.remove_attribute("integrity");
    el.remove_attribute("target");
}

/// `<meta http-equiv="refresh" content="5; url=...">` with its URL rewritten.
fn rewrite_refresh(content: &str, base: &Url, paths: &ArchivePaths) -> Option<String> {
    let (delay, rest) = content.split_once([';', ','])?;
    let rest = rest.trim_start();
    let url = rest
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("url="))
        .map_or(rest, |_| &rest[4..]);
    let url = url.trim().trim_matches(['\'', '"']);
    paths
        .rewrite(base, url)
        .map(|to| format!("{}; url={to}", delay.trim()))
}

/// An archived HTML page (`body`, in `charset` when it is an ASCII-compatible encoding, else
/// UTF-8, as the page's own `<meta charset>` may also say) with every URL it refers to turned
/// into its archive path; `page` is the page's own URL.
pub fn rewrite_html(
    body: &[u8],
    charset: Option<&str>,
    page: &Url,
    paths: &ArchivePaths,
) -> Result<Vec<u8>, RewriteError> {
    let encoding = charset
        .and_then(|c| encoding_rs::Encoding::for_label(c.trim().as_bytes()))
        .and_then(AsciiCompatibleEncoding::new)
        .unwrap_or_else(AsciiCompatibleEncoding::utf_8);
    let base = RefCell::new(page.clone());
    let style = RefCell::new(String::new());
    let mut out = Vec::with_capacity(body.len() + body.len() / 4);
    let settings = Settings::new()
        .with_encoding(encoding)
        .with_adjust_charset_on_meta_tag(charset.is_none())
        .append_element_content_handler(element!("base[href]", |el| {
            if let Some(href) = attribute(el, "href") {
                let joined = base.borrow().join(href.trim());
                if let Ok(u) = joined {
                    *base.borrow_mut() = u;
                }
            }
            el.remove();
            Ok(())
        }))
        .append_element_content_handler(element!(
            "[href], [src], [poster], [action], [data], [background], [srcset], \
             [imagesrcset], [style], [integrity], [target]",
            |el| {
                rewrite_element(el, &base.borrow(), paths);
                Ok(())
            }
        ))
        .append_element_content_handler(element!("meta[http-equiv][content]", |el| {
            let refresh = el
                .get_attribute("http-equiv")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh"));
            if refresh {
                let content = attribute(el, "content").unwrap_or_default();
                match rewrite_refresh(&content, &base.borrow(), paths) {
                    Some(to) => set(el, "content", &to),
                    None => el.remove(),
                }
            }
            Ok(())
        }))
        .append_element_content_handler(text!("style", |t| {
            // A `<style>` element's text comes in chunks: gathered, then rewritten whole.
            style.borrow_mut().push_str(t.as_str());
            if t.last_in_text_node() {
                let css = std::mem::take(&mut *style.borrow_mut());
                t.replace(&rewrite_css(&css, &base.borrow(), paths), ContentType::Html);
            } else {
                t.remove();
            }
            Ok(())
        }));
    let fail = |e: lol_html::errors::RewritingError| RewriteError::Html {
        url: page.to_string(),
        reason: e.to_string(),
    };
    let mut rewriter = HtmlRewriter::new(settings, |c: &[u8]| out.extend_from_slice(c));
    rewriter.write(body).map_err(fail)?;
    rewriter.end().map_err(fail)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> ArchivePaths {
        ArchivePaths {
            prefix: "/replay/k/c".into(),
            timestamp: "20260102030405".into(),
        }
    }

    fn page() -> Url {
        Url::parse("http://a.example/dir/page.html").unwrap()
    }

    #[test]
    fn every_kind_of_url_in_a_page_becomes_an_archive_path() {
        let html = r##"<html><head><base href="/other/"><link rel=stylesheet href="s.css" integrity="sha384-x">
<meta http-equiv="Refresh" content="5; URL=next.html">
<style>body { background: url(bg.png) } @import "more.css"; @media screen { p { background-image: url( 'p.png' ) } }</style>
</head><body style="background:url(&quot;b.png&quot;)"><a href="two.html#x" target="_blank">two</a>
<a href="#top">top</a><a href="mailto:x@a.example">mail</a><a href="//b.example/">b</a>
<a href="q.html?a=1&amp;b=2">q</a>
<img src="i.png" srcset="i1.png 1x, /i2.png 2x"><script src="s.js"></script></body></html>"##;
        let out = rewrite_html(html.as_bytes(), Some("utf-8"), &page(), &paths()).unwrap();
        let out = String::from_utf8(out).unwrap();
        let p = "/replay/k/c/20260102030405/";
        for want in [
            format!(r#"href="{p}http://a.example/other/s.css""#),
            format!(r#"content="5; url={p}http://a.example/other/next.html""#),
            format!(r#"url("{p}http://a.example/other/bg.png")"#),
            format!(r#"@import "{p}http://a.example/other/more.css""#),
            format!(r#"url("{p}http://a.example/other/p.png")"#),
            format!(r#"style="background:url(&quot;{p}http://a.example/other/b.png&quot;)""#),
            format!(r#"<a href="{p}http://a.example/other/two.html#x">"#),
            r##"<a href="#top">"##.to_string(),
            r#"<a href="mailto:x@a.example">"#.to_string(),
            format!(r#"<a href="{p}http://b.example/">"#),
            format!(r#"<a href="{p}http://a.example/other/q.html?a=1&amp;b=2">"#),
            format!(r#"src="{p}http://a.example/other/i.png""#),
            format!(
                r#"srcset="{p}http://a.example/other/i1.png 1x, {p}http://a.example/i2.png 2x""#
            ),
            format!(r#"<script src="{p}http://a.example/other/s.js">"#),
        ] {
            assert!(out.contains(&want), "{want}\nnot in\n{out}");
        }
        for gone in ["<base", "integrity", "target="] {
            assert!(!out.contains(gone), "{gone} left in\n{out}");
        }
    }

    #[test]
    fn css_files_keep_all_but_their_urls() {
        let css = "/* url(no.png) */ a { color: red; background: url(\"x.png\") }\n\
                   @import url(y.css) screen;\n@font-face { src: url(f.woff2) format('woff2') }";
        let out = rewrite_css(css, &page(), &paths());
        let p = "/replay/k/c/20260102030405/http://a.example/dir/";
        assert_eq!(
            out,
            format!(
                "/* url(no.png) */ a {{ color: red; background: url(\"{p}x.png\") }}\n\
                 @import url(\"{p}y.css\") screen;\n\
                 @font-face {{ src: url(\"{p}f.woff2\") format('woff2') }}"
            )
        );
    }

    #[test]
    fn a_page_in_another_encoding_is_rewritten_in_it() {
        let html = b"<p>caf\xe9</p><a href=\"b.html\">b</a>";
        let out = rewrite_html(html, Some("windows-1252"), &page(), &paths()).unwrap();
        assert!(out.starts_with(b"<p>caf\xe9</p>"));
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("/replay/k/c/20260102030405/http://a.example/dir/b.html"));
    }
}
