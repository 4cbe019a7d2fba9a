//! The stream finds what the tree walk finds with text off: checked on the pages of real
//! installations (`tests/fixtures/kb/real`, recorded from Debian, PyPI and npm packages), on
//! the same pages cut short anywhere, on the sample web, and on the corners the stream decides
//! without a tree.

use super::*;
use crate::model::ParsedPage;
use crate::parse::html;
use url::Url;

fn limits() -> ParseLimits {
    ParseLimits {
        text: false,
        ..ParseLimits::default()
    }
}

fn both(body: &[u8], url: &str) -> (ParsedPage, ParsedPage) {
    let base = Url::parse(url).unwrap();
    let l = limits();
    let tree = html(body, Some("text/html"), Some("en"), &base, &l);
    let stream = html_links(body, Some("text/html"), Some("en"), &base, &l);
    (tree, stream)
}

fn same(body: &[u8], url: &str, what: &str) {
    let (tree, stream) = both(body, url);
    let key = |p: &ParsedPage| {
        p.links
            .iter()
            .map(|l| (l.url.clone(), l.hop, l.context.clone(), l.text.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&tree), key(&stream), "links of {what}");
    assert_eq!(tree.title, stream.title, "title of {what}");
    assert_eq!(
        tree.declared_lang, stream.declared_lang,
        "language of {what}"
    );
    assert_eq!(
        (tree.nofollow, tree.noindex, &tree.charset),
        (stream.nofollow, stream.noindex, &stream.charset),
        "directives of {what}"
    );
}

fn real_pages() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kb/real");
    let mut out = Vec::new();
    for site in std::fs::read_dir(&root).unwrap() {
        let pages = site.unwrap().path().join("pages");
        for p in std::fs::read_dir(pages).into_iter().flatten() {
            out.push(p.unwrap().path());
        }
    }
    out.sort();
    out
}

#[test]
fn real_pages_give_the_same_links_whole_and_cut_short() {
    let pages = real_pages();
    assert!(pages.len() > 150, "{} pages", pages.len());
    let mut rng = crate::sample_site::SplitMix::new(17);
    for p in &pages {
        let body = std::fs::read(p).unwrap();
        let what = p.display().to_string();
        same(&body, "http://real.test/dir/page.html", &what);
        for _ in 0..3 {
            let cut = rng.below(body.len() + 1);
            same(
                &body[..cut],
                "http://real.test/dir/",
                &format!("{what} cut at {cut}"),
            );
        }
    }
}

#[test]
fn sample_web_pages_give_the_same_links() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = crate::sample_site::SiteConfig {
        hosts: 2,
        pages_per_host: 30,
        ..crate::sample_site::demo_config()
    };
    crate::sample_site::write_files(&cfg, 8087, dir.path()).unwrap();
    let mut n = 0;
    for host in std::fs::read_dir(dir.path()).unwrap() {
        for f in walk(&host.unwrap().path()) {
            if f.extension().is_some_and(|e| e == "html") {
                same(
                    &std::fs::read(&f).unwrap(),
                    "http://127.0.0.2:8087/x/1.html",
                    "sample",
                );
                n += 1;
            }
        }
    }
    assert!(n >= 60, "{n} pages");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn corners_decided_without_a_tree() {
    let cases = [
        // A <base> in the head applies to the links before it; one in the body from there on.
        "<html><head><link rel=stylesheet href=a.css><base href='http://other.test/b/'><meta http-equiv=refresh content='0; url=r'></head><body><a href=x>x</a></body>",
        "<p>text</p><a href=one>1</a><base href='http://other.test/'><a href=two>2</a>",
        "<link rel=stylesheet href=a.css></head>\n<base href='/sub/'><a href=x>x</a>",
        // Raw text: no links inside, and its end tag closes it.
        "<title>A <a href=no>title</a></title><script>var a='<a href=no2>'</script><style>@import 'i.css'; p{background:url(bg.png)}</style><textarea><a href=no3></textarea><a href=yes>y</a>",
        "<iframe src=frame.html><a href=no></iframe><noembed><img src=no.png></noembed><xmp><a href=no></xmp>",
        "<a href=x>x<plaintext><a href=no>",
        // Anchors: nested, area inside a, titles, unclosed.
        "<a href=1 title='One'>a<a href=2 title=' Two  words '>b</a></a><map><area href=3 title=Three></map>",
        "<a href=outer title=Outer><map><area href=in title=In></map></a>",
        "<a href=open title=unclosed>never closed",
        // SVG and MathML are not HTML; an HTML tag breaks out of them.
        "<svg><a href=svg-link>s</a><image href=i.png/><style>@import 'no.css';</style><title>no</title></svg><a href=after>a</a>",
        "<svg><g><p>breaks out</p><a href=html-again>h</a>",
        "<math><mi><a href=math>m</a></mi></math><svg/><a href=after-self-closing>a</a>",
        // Everything the element rules cover, plus <image>, <html lang> and robots.
        "<html lang=' de '><meta name=robots content='nofollow, noindex'><body background=bg.gif><img src=i.png srcset='a.png 1x, b.png 2x' data-src=d.png><image src=old.png><video src=v.mp4 poster=p.jpg></video><object data=o.swf></object><input type=image src=btn.png><td background=td.png style='background:url(s.png)'>",
        "",
        "<!doctype html><title></title><title>second</title>",
        "<a href=''>empty</a><a href='javascript:x()'>js</a><a href='mailto:a@b'>m</a><a href='  '>sp</a>",
    ];
    for (i, c) in cases.iter().enumerate() {
        same(
            c.as_bytes(),
            "http://site.test/dir/page.html",
            &format!("case {i}: {c}"),
        );
    }
    let (_, s) = both(cases[0].as_bytes(), "http://site.test/dir/page.html");
    assert_eq!(s.links[0].url, "http://other.test/b/a.css");
}

#[test]
fn the_link_cap_holds_in_the_head_too() {
    let mut page = String::from("<head>");
    for i in 0..50 {
        page.push_str(&format!("<link rel=stylesheet href=s{i}.css>"));
    }
    page.push_str("</head><body><a href=late>l</a>");
    let base = Url::parse("http://site.test/").unwrap();
    let l = ParseLimits {
        max_links: 10,
        ..limits()
    };
    let s = html_links(page.as_bytes(), None, None, &base, &l);
    assert_eq!(s.links.len(), 10);
    let t = html(page.as_bytes(), None, None, &base, &l);
    assert_eq!(t.links, s.links);
}
