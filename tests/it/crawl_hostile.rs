//! End-to-end: hostile bodies and URL spaces — slow drips, endless bodies, gzip bombs, redirect
//! loops, calendar traps, pages with too many links, and lying or broken encodings — are
//! archived as far as the limits allow, counted, and never stop or stall the crawl.

use crate::support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use support::{client, harness, page, FixtureWeb, Reply};

const MIB: u64 = 1 << 20;

/// A spec with small limits for hostile servers; `extra` overrides single keys per section.
fn spec(name: &str, seed: &str, extra: Value) -> magpie::spec::Spec {
    let mut v = json!({
        "limits": { "timeout_ms": 1000, "max_bytes_per_page": MIB, "max_retries": 1, "retry_delay_ms": 50 },
        "scope": { "sitemaps": false }
    });
    if let Value::Object(sections) = extra {
        for (section, fields) in sections {
            if let Value::Object(fields) = fields {
                for (k, val) in fields {
                    v[&section][k] = val;
                }
            }
        }
    }
    harness::spec(name, &[seed.to_string()], v)
}

/// Serves `/` linking to `targets` and two ordinary pages, `/a.html` and `/b.html`; returns
/// the URLs a complete crawl archives besides the targets: robots.txt, `/`, `/a.html`, `/b.html`.
fn hub(web: &FixtureWeb, targets: &[&str]) -> Vec<String> {
    let mut links = targets.to_vec();
    links.extend(["/a.html", "/b.html"]);
    web.route(0, "/", Reply::html(page("Hub", "", &links)));
    web.route(0, "/a.html", Reply::html(page("A", "", &[])));
    web.route(0, "/b.html", Reply::html(page("B", "", &[])));
    ["/robots.txt", "/", "/a.html", "/b.html"]
        .iter()
        .map(|p| web.url(0, p))
        .collect()
}

/// The archived URLs (responses and revisits) as a set, checking none is archived twice.
fn archived_once(recs: &[harness::Rec]) -> BTreeSet<String> {
    let all = harness::captured(recs);
    let set: BTreeSet<String> = all.iter().cloned().collect();
    assert_eq!(set.len(), all.len(), "a URL was archived twice: {all:?}");
    set
}

fn set(urls: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    urls.into_iter().collect()
}

#[test]
fn a_slow_drip_is_cut_at_the_timeout_and_the_crawl_goes_on() {
    let web = FixtureWeb::start(1);
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<p>";
    web.route(
        0,
        "/drip.html",
        Reply::SlowDrip {
            head: head.to_vec(),
            byte: b'z',
            every: Duration::from_millis(50),
        },
    );
    let mut want = hub(&web, &["/drip.html"]);
    let drip_url = web.url(0, "/drip.html");
    want.push(drip_url.clone());
    let data = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let summary = harness::run(spec("drip", &want[1], json!({})), data.path());
    assert!(t0.elapsed() < Duration::from_secs(6), "{:?}", t0.elapsed());

    let recs = harness::records(data.path(), "drip");
    assert_eq!(archived_once(&recs), set(want));
    let drip = harness::one(&recs, "response", &drip_url);
    assert_eq!(drip.field("WARC-Truncated"), Some("time"));
    assert!(drip.body.starts_with(head));
    let dripped = &drip.body[head.len()..];
    // About 20 bytes arrive in the 1 s the exchange may take.
    assert!(
        (5..=30).contains(&dripped.len()) && dripped.iter().all(|&b| b == b'z'),
        "{dripped:?}"
    );
    let meta =
        String::from_utf8_lossy(&harness::one(&recs, "metadata", &drip_url).body).into_owned();
    let took: u64 = meta
        .split("fetchTimeMs: ")
        .nth(1)
        .and_then(|s| s.split("\r\n").next())
        .and_then(|s| s.parse().ok())
        .expect("fetchTimeMs");
    assert!((1000..2000).contains(&took), "fetch took {took} ms");
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.pages_fetched, 4);
    assert!(summary.errors_by_kind.is_empty(), "{summary:?}");
    harness::warcio_check(&harness::warc_files(data.path(), "drip"));
}

#[test]
fn an_endless_body_is_cut_at_max_bytes_per_page() {
    let web = FixtureWeb::start(1);
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
    web.route(
        0,
        "/endless.html",
        Reply::Endless {
            head: head.to_vec(),
        },
    );
    let mut want = hub(&web, &["/endless.html"]);
    let endless = web.url(0, "/endless.html");
    want.push(endless.clone());
    let data = tempfile::tempdir().unwrap();
    let summary = harness::run(spec("endless", &want[1], json!({})), data.path());

    let recs = harness::records(data.path(), "endless");
    assert_eq!(archived_once(&recs), set(want));
    let rec = harness::one(&recs, "response", &endless);
    assert_eq!(rec.field("WARC-Truncated"), Some("length"));
    assert!(rec.body.starts_with(head));
    assert_eq!(rec.body.len() as u64, head.len() as u64 + MIB);
    assert_eq!(
        rec.field("WARC-Payload-Digest"),
        Some(harness::sha1_label(rec.http_body()).as_str())
    );
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.pages_fetched, 4);
    assert!(summary.errors_by_kind.is_empty(), "{summary:?}");
    harness::warcio_check(&harness::warc_files(data.path(), "endless"));
}

#[test]
fn a_gzip_bomb_is_archived_as_served_and_only_decoded_up_to_the_cap() {
    let web = FixtureWeb::start(1);
    let bomb_url = support::gzip_bomb(&web, 0);
    let bomb = support::gzip_bomb_bytes();
    assert!(bomb.len() as u64 > MIB && (bomb.len() as u64) < 2 * MIB);
    let mut want = hub(&web, &["/bomb.html"]);
    want.push(bomb_url.clone());
    let data = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let extra = json!({"limits": {"max_bytes_per_page": 2 * MIB}});
    let summary = harness::run(spec("bomb", &want[1], extra), data.path());
    assert!(t0.elapsed() < Duration::from_secs(8), "{:?}", t0.elapsed());

    let recs = harness::records(data.path(), "bomb");
    assert_eq!(archived_once(&recs), set(want));
    let rec = harness::one(&recs, "response", &bomb_url);
    assert_eq!(rec.field("WARC-Truncated"), None);
    assert_eq!(rec.http_header("Content-Encoding").as_deref(), Some("gzip"));
    assert_eq!(rec.http_body(), bomb, "the compressed bytes, not inflated");
    assert_eq!(
        rec.field("WARC-Payload-Digest"),
        Some(harness::sha1_label(bomb).as_str())
    );
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.pages_fetched, 4);
    assert_eq!(summary.errors_by_kind.get("decode-capped"), Some(&1));
    assert_eq!(summary.errors_by_kind.len(), 1, "{summary:?}");
    // warcio inflates the whole GiB to digest it: slow, but an independent check.
    harness::warcio_check(&harness::warc_files(data.path(), "bomb"));
}

#[test]
fn a_redirect_loop_archives_each_redirect_once() {
    let web = FixtureWeb::start(1);
    let a = support::redirect_loop(&web, 0);
    let mut want = hub(&web, &["/loop/a"]);
    want.extend([a.clone(), web.url(0, "/loop/b")]);
    let data = tempfile::tempdir().unwrap();
    let summary = harness::run(spec("loop", &want[1], json!({})), data.path());

    let recs = harness::records(data.path(), "loop");
    assert_eq!(archived_once(&recs), set(want));
    for path in ["/loop/a", "/loop/b"] {
        assert_eq!(web.hits_to(0, path).len(), 1, "{path}");
        let rec = harness::one(&recs, "response", &web.url(0, path));
        assert_eq!(rec.http_status(), Some(302), "{path}");
    }
    let b_meta = harness::one(&recs, "metadata", &web.url(0, "/loop/b"));
    assert!(String::from_utf8_lossy(&b_meta.body).contains("hopsFromSeed: LR\r\n"));
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.responses_by_status["3xx"], 2);
    assert_eq!(summary.pages_fetched, 5);
    harness::warcio_check(&harness::warc_files(data.path(), "loop"));
}

#[test]
fn an_endless_redirect_chain_ends_at_max_redirects_and_is_counted() {
    let web = FixtureWeb::start(1);
    web.route_prefix(0, "/hop/", |target| {
        let n: u64 = target.trim_start_matches("/hop/").parse().unwrap_or(0);
        Reply::redirect(302, &format!("/hop/{}", n + 1))
    });
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"scope": {"max_redirects": 5}});
    let summary = harness::run(spec("hops", &web.url(0, "/hop/0"), extra), data.path());
    let hops: Vec<String> = web
        .hits_for(0)
        .iter()
        .map(|h| h.target.clone())
        .filter(|t| t.starts_with("/hop/"))
        .collect();
    let want: Vec<String> = (0..=5).map(|n| format!("/hop/{n}")).collect();
    assert_eq!(hops, want, "the seed and five redirects, then no more");
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(
        summary.out_of_scope_by_reason.get("too-many-redirects"),
        Some(&1)
    );
}

#[test]
fn an_endless_chain_of_sitemap_indexes_ends_at_max_sitemap_depth() {
    let web = FixtureWeb::start(1);
    let base = web.url(0, "/maps/");
    web.route_prefix(0, "/maps/", move |target| {
        let n: u64 = target.trim_start_matches("/maps/").parse().unwrap_or(0);
        let xml = format!(
            "<?xml version=\"1.0\"?><sitemapindex \
             xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
             <sitemap><loc>{base}{}</loc></sitemap></sitemapindex>",
            n + 1
        );
        Reply::typed("application/xml", xml)
    });
    web.route(
        0,
        "/robots.txt",
        Reply::typed(
            "text/plain",
            format!("Sitemap: {}\n", web.url(0, "/maps/0")),
        ),
    );
    web.route(0, "/", Reply::html(support::page("Home", "", &[])));
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"scope": {"max_sitemap_depth": 3, "sitemaps": true}});
    let summary = harness::run(spec("maps", &web.url(0, "/"), extra), data.path());
    let maps = web
        .hits_for(0)
        .iter()
        .filter(|h| h.target.starts_with("/maps/"))
        .count();
    assert_eq!(maps, 3, "robots.txt's sitemap and two nested indexes");
    assert_eq!(
        summary.out_of_scope_by_reason.get("sitemap-too-deep"),
        Some(&1)
    );
}

#[test]
fn an_answer_cut_off_by_the_server_is_retried_then_archived_as_truncated() {
    let web = FixtureWeb::start(1);
    let cut = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n<p>half"
        .to_vec();
    let whole = "<!DOCTYPE html><html><body><p>whole</p></body></html>";
    // Cut off once, then whole: retried, and only the whole answer is archived.
    web.route(
        0,
        "/flaky.html",
        Reply::Sequence(vec![Reply::ResetAfter(cut.clone()), Reply::html(whole)]),
    );
    // Always cut off: archived as received once the retries are spent, marked as cut.
    web.route(0, "/broken.html", Reply::ResetAfter(cut));
    web.route(
        0,
        "/",
        Reply::html(support::page("Home", "", &["/flaky.html", "/broken.html"])),
    );
    let data = tempfile::tempdir().unwrap();
    let summary = harness::run(spec("cut", &web.url(0, "/"), json!({})), data.path());
    let recs = harness::records(data.path(), "cut");
    let flaky = harness::find(&recs, "response", &web.url(0, "/flaky.html"));
    assert_eq!(flaky.len(), 1, "one capture: the whole answer");
    assert_eq!(flaky[0].http_body(), whole.as_bytes());
    assert_eq!(flaky[0].field("WARC-Truncated"), None);
    let broken = harness::find(&recs, "response", &web.url(0, "/broken.html"));
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0].field("WARC-Truncated"), Some("disconnect"));
    assert_eq!(
        web.hits_to(0, "/broken.html").len(),
        2,
        "max_retries is 1 here"
    );
    assert_eq!(summary.errors_by_kind.get("disconnect"), Some(&2));
    harness::warcio_check(&harness::warc_files(data.path(), "cut"));
}

#[test]
fn a_calendar_trap_ends_at_max_depth() {
    let web = FixtureWeb::start(1);
    let seed = support::calendar_trap(&web, 0);
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"scope": {"max_depth": 4}});
    let summary = harness::run(spec("calendar", &seed, extra), data.path());

    let months: Vec<String> = web
        .hits_for(0)
        .iter()
        .map(|h| h.target.clone())
        .filter(|t| t.starts_with("/cal"))
        .collect();
    let want: Vec<String> = (1..=5).map(|m| format!("/cal?m={m}")).collect();
    assert_eq!(months, want, "seed plus four levels, in order");
    let recs = harness::records(data.path(), "calendar");
    let mut archived = set(want.iter().map(|p| web.url(0, p)));
    archived.insert(web.url(0, "/robots.txt"));
    assert_eq!(archived_once(&recs), archived);
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.pages_fetched, 5);
    assert_eq!(summary.out_of_scope_by_reason.get("too-deep"), Some(&1));
    assert_eq!(summary.urls_queued, 0);
}

#[test]
fn a_page_with_ten_thousand_links_keeps_the_first_five_thousand() {
    let web = FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 10_000);
    let data = tempfile::tempdir().unwrap();
    let extra = json!({"limits": {"max_pages": 20}});
    let summary = harness::run(spec("many", &seed, extra), data.path());

    assert_eq!(summary.stop_reason, "max-pages");
    assert_eq!(summary.pages_fetched, 20);
    assert_eq!(summary.urls_discovered, 1 + 5000, "the seed and 5000 links");
    assert_eq!(summary.urls_queued, 5001 - 20);
    let fetched: Vec<usize> = web
        .hits_for(0)
        .iter()
        .filter_map(|h| {
            h.target
                .strip_prefix("/many/")?
                .strip_suffix(".html")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(fetched.len(), 19);
    assert!(fetched.iter().all(|&i| i < 5000), "{fetched:?}");
    let recs = harness::records(data.path(), "many");
    let meta = String::from_utf8_lossy(&harness::one(&recs, "metadata", &seed).body).into_owned();
    let outlinks: Vec<&str> = meta
        .lines()
        .filter(|l| l.starts_with("outlink: "))
        .collect();
    assert_eq!(outlinks.len(), 5000);
    assert!(
        outlinks[4999].contains("/many/4999.html "),
        "{}",
        outlinks[4999]
    );
    assert_eq!(
        harness::captured(&recs).len(),
        21,
        "robots.txt and 20 pages"
    );
    harness::warcio_check(&harness::warc_files(data.path(), "many"));
}

#[test]
fn broken_and_lying_encodings_are_archived_byte_exact_and_parsed_leniently() {
    let web = FixtureWeb::start(1);
    let invalid = support::invalid_utf8(&web, 0);
    let wrong = support::wrong_content_type(&web, 0);
    let latin1 = support::latin1_page(&web, 0);
    let targets = [&invalid, &wrong.html_as_png, &wrong.png_as_html, &latin1];
    let paths: Vec<String> = targets
        .iter()
        .map(|u| u[web.base(0).len()..].to_string())
        .collect();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let mut want = hub(&web, &refs);
    want.extend(targets.iter().map(|u| u.to_string()));
    want.push(web.url(0, "/after-invalid.html"));
    want.push(web.url(0, "/latin1-next.html"));
    let data = tempfile::tempdir().unwrap();
    let summary = harness::run(spec("encodings", &want[1], json!({})), data.path());

    let recs = harness::records(data.path(), "encodings");
    assert_eq!(
        archived_once(&recs),
        set(want),
        "links of the broken UTF-8 and latin1 pages are followed; an image is not parsed"
    );
    assert!(web.hits_to(0, "/from-mislabelled.html").is_empty());
    for (url, path) in targets.iter().zip(&paths) {
        let served = client::get(&web, 0, path).raw;
        let rec = harness::one(&recs, "response", url);
        assert!(
            rec.body == served,
            "{url}: block differs from the bytes served"
        );
    }
    let latin1_meta = harness::one(&recs, "metadata", &latin1);
    assert!(
        String::from_utf8_lossy(&latin1_meta.body).contains(&format!(
            "outlink: {} L a/@href",
            web.url(0, "/latin1-next.html")
        ))
    );
    assert_eq!(summary.stop_reason, "finished");
    assert_eq!(summary.pages_fetched, 9);
    assert!(summary.errors_by_kind.is_empty(), "{summary:?}");
    harness::warcio_check(&harness::warc_files(data.path(), "encodings"));
}
