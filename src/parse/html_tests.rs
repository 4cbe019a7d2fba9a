//! Tests of HTML parsing: link kinds and contexts, base, anchor text, blocks, caps, robustness.

use url::Url;

use super::{html, ParseLimits};
use crate::model::{Hop, Link, ParsedPage};

fn base() -> Url {
    Url::parse("http://example.org/dir/page.html").unwrap()
}

fn parse(doc: &str) -> ParsedPage {
    html(
        doc.as_bytes(),
        Some("text/html; charset=utf-8"),
        None,
        &base(),
        &ParseLimits::default(),
    )
}

/// (url, hop, context) of every link, for compact comparisons.
fn triples(page: &ParsedPage) -> Vec<(String, Hop, String)> {
    page.links
        .iter()
        .map(|l| (l.url.clone(), l.hop, l.context.clone()))
        .collect()
}

fn t(url: &str, hop: Hop, ctx: &str) -> (String, Hop, String) {
    let url = if url.starts_with("http") {
        url.to_owned()
    } else {
        format!("http://example.org{url}")
    };
    (url, hop, ctx.to_owned())
}

fn link<'p>(page: &'p ParsedPage, url_suffix: &str) -> &'p Link {
    page.links
        .iter()
        .find(|l| l.url.ends_with(url_suffix))
        .unwrap_or_else(|| panic!("no link ending in {url_suffix}"))
}

#[test]
fn every_link_kind() {
    let doc = r#"<!DOCTYPE html><html><head>
<meta http-equiv="refresh" content="5; url=/refreshed">
<link rel="stylesheet" href="/s.css"><link rel="icon" href="/i.ico">
<link rel="apple-touch-icon" href="/t.png"><link rel="preload" href="/p.woff2" as="font">
<link rel="modulepreload" href="/m.js"><link rel="manifest" href="/app.webmanifest">
<link rel="next" href="/page2"><link rel="alternate" hreflang="de" href="/de/">
<link rel="canonical" href="/canon"><link rel="dns-prefetch" href="//cdn.example.net">
<script src="/app.js"></script>
<style>body { background: url(/bg.png) } @import "/imp.css";</style>
</head><body background="/body.png">
<a href="/a">A</a>
<map><area href="/area" alt="Area"></map>
<img src="/img.png" srcset="/img-1x.png 1x, /img-2x.png 2x">
<picture><source srcset="/pic-480.webp 480w, /pic-800.webp 800w"><img src="/pic.jpg"></picture>
<iframe src="/frame.html"></iframe>
<frameset><frame src="/f.html"></frameset>
<embed src="/e.swf"><object data="/o.pdf"></object>
<video src="/v.mp4" poster="/poster.jpg"><source src="/v.webm"><track src="/subs.vtt"></video>
<audio src="/a.mp3"></audio>
<input type="image" src="/btn.png"><input type="text" src="/ignored">
<form action="/not-followed"><button formaction="/nor-this">x</button></form>
<div style="background-image: url('/inline.png')">styled</div>
<noscript><img src="/pixel.gif"></noscript>
<a href="javascript:void(0)">js</a><a href="mailto:x@example.org">mail</a>
<a href="tel:+1">tel</a><a href="data:text/html,x">data</a><a href="http://[bad">bad</a>
</body></html>"#;
    let page = parse(doc);
    let expected = vec![
        t("/refreshed", Hop::Redirect, "meta/@content"),
        t("/s.css", Hop::Embed, "link/@href"),
        t("/i.ico", Hop::Embed, "link/@href"),
        t("/t.png", Hop::Embed, "link/@href"),
        t("/p.woff2", Hop::Embed, "link/@href"),
        t("/m.js", Hop::Embed, "link/@href"),
        t("/app.webmanifest", Hop::Embed, "link/@href"),
        t("/page2", Hop::Link, "link/@href"),
        t("/de/", Hop::Link, "link/@href"),
        t("/canon", Hop::Link, "link/@href"),
        t("/app.js", Hop::Embed, "script/@src"),
        t("/bg.png", Hop::Embed, "style/url()"),
        t("/imp.css", Hop::Embed, "style/@import"),
        t("/body.png", Hop::Embed, "body/@background"),
        t("/a", Hop::Link, "a/@href"),
        t("/area", Hop::Link, "area/@href"),
        t("/img.png", Hop::Embed, "img/@src"),
        t("/img-1x.png", Hop::Embed, "img/@srcset"),
        t("/img-2x.png", Hop::Embed, "img/@srcset"),
        t("/pic-480.webp", Hop::Embed, "source/@srcset"),
        t("/pic-800.webp", Hop::Embed, "source/@srcset"),
        t("/pic.jpg", Hop::Embed, "img/@src"),
        t("/frame.html", Hop::Embed, "iframe/@src"),
        t("/e.swf", Hop::Embed, "embed/@src"),
        t("/o.pdf", Hop::Embed, "object/@data"),
        t("/v.mp4", Hop::Embed, "video/@src"),
        t("/poster.jpg", Hop::Embed, "video/@poster"),
        t("/v.webm", Hop::Embed, "source/@src"),
        t("/subs.vtt", Hop::Embed, "track/@src"),
        t("/a.mp3", Hop::Embed, "audio/@src"),
        t("/btn.png", Hop::Embed, "input/@src"),
        t("/inline.png", Hop::Embed, "@style/url()"),
        t("/pixel.gif", Hop::Embed, "img/@src"),
    ];
    assert_eq!(triples(&page), expected);
    assert_eq!(page.charset, "UTF-8");
    assert!(page.links.iter().all(|l| !l.url.contains("not-followed")));
}

#[test]
fn frames_in_a_frameset_document() {
    let page = parse(
        r#"<html><frameset cols="50%,50%"><frame src="left.html"><frame src="/right.html"></frameset></html>"#,
    );
    assert_eq!(
        triples(&page),
        [
            t("/dir/left.html", Hop::Embed, "frame/@src"),
            t("/right.html", Hop::Embed, "frame/@src"),
        ]
    );
}

#[test]
fn base_href_applies_to_all_links() {
    let page = parse(
        r#"<html><head><link rel=stylesheet href="s.css"><base href="http://cdn.example.net/root/">
           <base href="http://ignored.example/"></head>
           <body><a href="x.html">x</a><img src="/abs.png"><a href="//other.example/y">y</a></body></html>"#,
    );
    assert_eq!(
        triples(&page),
        [
            t(
                "http://cdn.example.net/root/s.css",
                Hop::Embed,
                "link/@href"
            ),
            t("http://cdn.example.net/root/x.html", Hop::Link, "a/@href"),
            t("http://cdn.example.net/abs.png", Hop::Embed, "img/@src"),
            t("http://other.example/y", Hop::Link, "a/@href"),
        ]
    );
    // A relative base resolves against the document URL; an unusable one leaves it in force.
    let page = parse(r#"<base href="../other/"><a href="z">z</a>"#);
    assert_eq!(page.links[0].url, "http://example.org/other/z");
    let page = parse(r#"<base href="javascript:x"><a href="z">z</a>"#);
    assert_eq!(page.links[0].url, "http://example.org/dir/z");
}

#[test]
fn meta_refresh_and_robots() {
    let page = parse(
        r#"<meta name="ROBOTS" content="noindex, nofollow"><meta http-equiv="Refresh" content="0;URL='/moved?a=1#x'"><meta http-equiv=refresh content="30">"#,
    );
    assert!(page.nofollow && page.noindex);
    assert_eq!(
        triples(&page),
        [t("/moved?a=1", Hop::Redirect, "meta/@content")]
    );
    let page = parse(r#"<meta name="robots" content="nofollow"><a href="/x">x</a>"#);
    assert!(page.nofollow && !page.noindex);
    assert_eq!(page.links.len(), 1, "links are recorded even with nofollow");
    let page = parse(r#"<meta name="description" content="nofollow">"#);
    assert!(!page.nofollow);
}

#[test]
fn anchor_text_title_and_alt() {
    let page = parse(
        r#"<p>Read <a href="/1" title="The first">the   <b>first</b>
           article</a> today.</p>
           <a href="/2"><img src="/logo.png" alt="Company logo"> Home</a>
           <a href="/3" title="Same">Same</a>
           <map><area href="/4" alt="Region" title="Tip"></map>
           <a href="/5"><span>no</span><span>space</span><div>Card title</div><p>Card text</p></a>"#,
    );
    assert_eq!(link(&page, "/1").text, "the first article The first");
    assert_eq!(link(&page, "/2").text, "Company logo Home");
    assert_eq!(link(&page, "/3").text, "Same");
    assert_eq!(link(&page, "/4").text, "Region Tip");
    assert_eq!(link(&page, "/5").text, "nospace Card title Card text");
    assert_eq!(
        link(&page, "/logo.png").text,
        "",
        "embeds have no anchor text"
    );
}

#[test]
fn blocks_and_link_blocks() {
    let page = parse(
        r#"<html><head><title> The  Title </title><link rel=stylesheet href=/s.css>
           <script>var hidden = "script text";</script><style>.x{}</style></head>
           <body>
           <h1>Heading <a href="/h">home</a></h1>
           <p>First paragraph with a <a href="/in-p">link inside</a> and more text.<br>Second line.</p>
           <ul><li>Item one <img src="/i1.png"></li><li><a href="/item2">Item two</a></li></ul>
           <div><a href="/img-only"><img src="/x.png"></a></div>
           <div>Intro text <a href="/card"><div>Card heading</div></a></div>
           <noscript>enable js</noscript><template><p>template text</p></template>
           <table><tr><td>Cell &amp; more</td><th>Head&nbsp;cell</th></tr></table>
           loose text at the end
           </body></html>"#,
    );
    assert_eq!(page.title.as_deref(), Some("The Title"));
    assert_eq!(
        page.blocks,
        [
            "Heading home",
            "First paragraph with a link inside and more text. Second line.",
            "Item one",
            "Item two",
            "Intro text",
            "Card heading",
            "Cell & more",
            "Head cell",
            "loose text at the end",
        ]
    );
    let block = |suffix: &str| link(&page, suffix).block;
    assert_eq!(block("/s.css"), None);
    assert_eq!(block("/h"), Some(0));
    assert_eq!(block("/in-p"), Some(1));
    assert_eq!(block("/i1.png"), Some(2));
    assert_eq!(block("/item2"), Some(3));
    assert_eq!(block("/img-only"), None);
    assert_eq!(block("/card"), Some(5), "the block holding the anchor text");
}

#[test]
fn language_and_charset() {
    let page = html(
        b"<html lang=' de-AT '><p>x</p>",
        None,
        Some("en"),
        &base(),
        &ParseLimits::default(),
    );
    assert_eq!(page.declared_lang.as_deref(), Some("de-AT"));
    let page = html(
        b"<html><p>x</p>",
        None,
        Some(" fr "),
        &base(),
        &ParseLimits::default(),
    );
    assert_eq!(page.declared_lang.as_deref(), Some("fr"));
    let page = html(
        b"<html><p>x</p>",
        None,
        None,
        &base(),
        &ParseLimits::default(),
    );
    assert_eq!(page.declared_lang, None);
    let body = b"<meta charset=windows-1252><title>Caf\xe9</title><a href=\"/caf\xe9\">caf\xe9</a>";
    let page = html(
        body,
        Some("text/html"),
        None,
        &base(),
        &ParseLimits::default(),
    );
    assert_eq!(page.charset, "windows-1252");
    assert_eq!(page.title.as_deref(), Some("Café"));
    assert_eq!(page.links[0].url, "http://example.org/caf%C3%A9");
    assert_eq!(page.links[0].text, "café");
}

#[test]
fn links_capped_at_max_links() {
    let mut doc = String::from("<html><body>");
    for i in 0..10_000 {
        doc.push_str(&format!("<a href=\"/p{i}\">page {i}</a> "));
    }
    doc.push_str("<p>tail text</p></body></html>");
    let limits = ParseLimits {
        max_links: 500,
        ..ParseLimits::default()
    };
    let page = html(doc.as_bytes(), None, None, &base(), &limits);
    assert_eq!(page.links.len(), 500);
    assert_eq!(page.links[499].url, "http://example.org/p499");
    assert_eq!(page.links[499].text, "page 499");
    assert_eq!(page.blocks.last().map(String::as_str), Some("tail text"));
}

#[test]
fn long_urls_and_html_byte_cap() {
    let long = format!("/{}", "x".repeat(3000));
    let doc = format!("<a href=\"{long}\">long</a><a href=\"/short\">short</a>");
    let page = parse(&doc);
    assert_eq!(triples(&page), [t("/short", Hop::Link, "a/@href")]);

    let doc = format!(
        "<a href=\"/early\">e</a>{}<a href=\"/late\">l</a>",
        " ".repeat(5000)
    );
    let limits = ParseLimits {
        max_html_bytes: 2000,
        ..ParseLimits::default()
    };
    let page = html(doc.as_bytes(), None, None, &base(), &limits);
    assert_eq!(triples(&page), [t("/early", Hop::Link, "a/@href")]);
}

#[test]
fn binary_garbage_does_not_panic() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for round in 0..20 {
        let bytes: Vec<u8> = (0..8192 + round * 997)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let page = html(
            &bytes,
            Some("text/html"),
            None,
            &base(),
            &ParseLimits::default(),
        );
        assert!(!page.charset.is_empty());
    }
    let nasty = "<a href=\"\u{0}\"><img srcset=\",,,\" src=\"\t\"><meta http-equiv=refresh content=\";url=\"><base href><style>url(</style><svg><a href=\"/svg\"><title>t</title></a></svg>";
    let page = parse(nasty);
    assert!(page
        .links
        .iter()
        .all(|l| l.url.starts_with("http://example.org/")));
    assert_eq!(page.title, None, "an SVG <title> is not the page title");
}

#[test]
fn hostile_structure_is_bounded() {
    // An attribute flood as the very first tag leaves nothing to parse, without panicking.
    let flood: String = (0..5000).map(|i| format!("a{i} ")).collect();
    let page = parse(&format!("<img {flood}src=/x.png><a href=/y>y</a>"));
    assert!(page.links.is_empty() && page.blocks.is_empty());
    // Deep nesting keeps what came before the cut.
    let doc = format!(
        "<p>before <a href=/ok>ok</a></p>{}",
        "<span>".repeat(50_000)
    );
    let page = parse(&doc);
    assert_eq!(triples(&page), [t("/ok", Hop::Link, "a/@href")]);
    assert_eq!(page.blocks, ["before ok"]);
}

#[test]
fn page_furniture_blocks_are_marked() {
    let page = parse(
        "<body><header><p>Site name</p></header>\
         <nav><ul><li><a href=\"/a\">Menu one</a></li><li>Menu two</li></ul></nav>\
         <main><article><header><h1>Article title</h1></header><p>Body text.</p>\
         <footer>By the author</footer></article>\
         <aside>Related links</aside></main>\
         <div role=\"navigation search\">Breadcrumbs</div>\
         <footer><p>Copyright</p></footer></body>",
    );
    assert_eq!(
        page.blocks,
        [
            "Site name",
            "Menu one",
            "Menu two",
            "Article title",
            "Body text.",
            "By the author",
            "Related links",
            "Breadcrumbs",
            "Copyright"
        ]
    );
    // The page's header, navigation, aside, landmark roles and footer; not the article's own
    // header (its title) and footer (its byline).
    assert_eq!(page.boilerplate, [0, 1, 2, 6, 7, 8]);
    assert_eq!(
        link(&page, "/a").block,
        Some(1),
        "a menu link keeps its block"
    );
}

#[test]
fn without_text_links_title_and_directives_stay() {
    let doc = r#"<html lang="de"><head><title>T</title><meta name="robots" content="nofollow"></head>
        <body><p>Some words <a href="/a">anchor <img src="/i.png" alt="alt"></a></p></body></html>"#;
    let limits = ParseLimits {
        text: false,
        ..ParseLimits::default()
    };
    let page = html(doc.as_bytes(), None, None, &base(), &limits);
    let full = html(doc.as_bytes(), None, None, &base(), &ParseLimits::default());
    assert_eq!(triples(&page), triples(&full));
    assert_eq!(
        (
            page.title.as_deref(),
            page.declared_lang.as_deref(),
            page.nofollow
        ),
        (Some("T"), Some("de"), true)
    );
    assert!(page.blocks.is_empty());
    assert!(page
        .links
        .iter()
        .all(|l| l.text.is_empty() && l.block.is_none()));
    assert_eq!(full.links[0].text, "anchor alt");
    assert!(!full.blocks.is_empty());
}
