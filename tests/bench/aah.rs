//! Criterion benchmark of the application-aware helper: the whole shipped knowledge base on
//! ~100 KB pages (a WordPress post with many comments, a phpBB topic with many posts, and a
//! page of no known application, which only the pre-filter scan touches).
//! Run with `cargo bench --bench aah`; figures go to `docs/benchmarks-aah.md`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use magpie::aah::Helper;
use magpie::model::Link;
use magpie::parse::{html, ParseLimits};
use url::Url;

const TARGET: usize = 100 * 1024;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(p: &str) -> String {
    std::fs::read_to_string(root().join("tests/fixtures/kb").join(p)).unwrap()
}

/// Grows a fixture to about 100 KB by repeating the block between two markers.
fn grow(page: &str, start: &str, end: &str) -> String {
    let a = page.find(start).unwrap();
    let b = a + page[a..].find(end).unwrap() + end.len();
    let block = &page[a..b];
    let mut out = String::with_capacity(TARGET + block.len());
    out.push_str(&page[..b]);
    let mut i = 0;
    while out.len() + (page.len() - b) < TARGET {
        out.push_str(
            &block
                .replace("comment-1", &format!("comment-{}", 1000 + i))
                .replace("id=\"p2\"", &format!("id=\"p{}\"", 1000 + i)),
        );
        i += 1;
    }
    out.push_str(&page[b..]);
    out
}

fn plain_page() -> String {
    let mut s = String::from("<!DOCTYPE html><html><head><title>Plain</title></head><body><main>");
    let mut i = 0;
    while s.len() < TARGET {
        s.push_str(&format!(
            "<section class=\"entry\"><h2>Heading {i}</h2><p>Some ordinary text about wetlands and the birds that live there, number {i}.</p><a href=\"/page/{i}\">more</a></section>\n"
        ));
        i += 1;
    }
    s.push_str("</main></body></html>");
    s
}

fn case(body: String, url: &str) -> (Url, String, Vec<Link>) {
    let url = Url::parse(url).unwrap();
    let links = html(body.as_bytes(), None, None, &url, &ParseLimits::default()).links;
    (url, body, links)
}

fn bench(c: &mut Criterion) {
    let helper = Helper::load(&root().join("kb")).unwrap();
    let wp = case(
        grow(
            &fixture("wordpress/post.html"),
            "<li id=\"comment-1\"",
            "</li><!-- #comment-## -->\n</ol>",
        ),
        "https://blog.example.org/2024/05/14/hello-world/",
    );
    let phpbb = case(
        grow(
            &fixture("phpbb/topic.html"),
            "<div id=\"p2\"",
            "<hr class=\"divider\" />",
        ),
        "https://forum.example.org/viewtopic.php?t=1",
    );
    let plain = case(plain_page(), "https://plain.example.org/");
    for (name, (url, body, links)) in [
        ("wordpress_post", &wp),
        ("phpbb_topic", &phpbb),
        ("no_application", &plain),
    ] {
        let m = helper
            .analyze(url, &[], body.as_bytes(), links)
            .unwrap()
            .app;
        eprintln!(
            "{name}: {} bytes, {} links, application {:?}, {} objects",
            body.len(),
            links.len(),
            m.application.as_ref().map(|a| a.name.as_str()),
            m.objects.len()
        );
        c.bench_function(&format!("aah/full_kb_100k/{name}"), |b| {
            b.iter(|| black_box(helper.analyze(url, &[], black_box(body.as_bytes()), links)))
        });
    }
    // What reading a page of an unknown application costs (a host's first pages, or every page
    // of a host that shows a category): `analyze` on the same host repeatedly skips it once
    // five pages showed no category, so it is measured on its own.
    for (name, (url, body, _)) in [("no_application", &plain), ("wordpress_post", &wp)] {
        c.bench_function(&format!("aah/generic_read_100k/{name}"), |b| {
            b.iter(|| black_box(magpie::aah::generic::read_html(black_box(body), url)))
        });
    }
    // For scale: what the parse stage itself costs on the same page.
    let (url, body, _) = &wp;
    c.bench_function("aah/parse_stage_100k/wordpress_post", |b| {
        b.iter(|| {
            black_box(html(
                black_box(body.as_bytes()),
                None,
                None,
                url,
                &ParseLimits::default(),
            ))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
