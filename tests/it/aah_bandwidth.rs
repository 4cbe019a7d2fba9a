//! What the application-aware helper saves, measured in the spirit of ARCOMEM's evaluation
//! against wget: a fixture phpBB forum and a fixture WordPress blog, each crawled to the end
//! twice with the same spec except `aah.enabled`, counting the HTTP requests the sites received,
//! the response bytes and the terminal pages (topic pages, posts) captured.
//!
//! The sites are generated in the markup of `tests/fixtures/kb/phpbb/*.html` (prosilver) and
//! `tests/fixtures/kb/wordpress/*.html` (Twenty Twenty-Five), with the links those templates
//! carry for a guest, and every link target a real install serves as a page is served as one:
//! login and registration forms, the login box phpBB shows a guest for "Post Reply", "Quote"
//! and member profiles, search results, print views, Atom and RSS feeds, the WordPress REST
//! API and oEmbed documents, `?replytocom=` copies of posts, calendar day archives. What each
//! site serves is listed in `docs/evaluation.md` ("What the application-aware helper saves").
//!
//! `cargo test --test it aah_bandwidth:: -- --nocapture` prints the figures as Markdown tables.

use crate::aah_sites;
use crate::support;

use aah_sites::{blog, forum, Served};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use support::{harness, FixtureWeb};

/// A fixture site: `(base URL, request target)` to response.
type Site = Arc<dyn Fn(&str, &str) -> Served + Send + Sync>;

/// What one crawl of a fixture site cost and reached.
struct Measure {
    requests: usize,
    bytes_received: u64,
    body_bytes: usize,
    archived: u64,
    app_skip: u64,
    terminal: BTreeSet<String>,
    terminal_fetches: usize,
    by_class: BTreeMap<&'static str, (usize, usize)>,
}

/// Crawls the site `serve` describes from `seed_path` to the end, with the helper on or off.
fn measure(name: &str, seed_path: &str, aah: bool, serve: Site) -> Measure {
    let web = FixtureWeb::start(1);
    let base = web.base(0);
    let (b, s) = (base.clone(), serve.clone());
    web.route_prefix(0, "/", move |target| s(&b, target).reply);
    let data = tempfile::tempdir().unwrap();
    let crawl = format!("{name}-{}", if aah { "on" } else { "off" });
    let spec = harness::spec(
        &crawl,
        &[web.url(0, seed_path)],
        json!({
            "aah": { "enabled": aah },
            "limits": { "max_pages": 20000 },
            // Commenters' avatars: the only off-site requisites; no network here.
            "scope": { "deny": ["^https?://secure\\.gravatar\\.com/"] }
        }),
    );
    let summary = harness::run(spec, data.path());
    assert_eq!(summary.stop_reason, "finished", "{summary:?}");
    let hits = web.hits();
    let mut by_class: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut body_bytes = 0;
    for h in &hits {
        let s = serve(&base, &h.target);
        let e = by_class.entry(s.class).or_default();
        e.0 += 1;
        e.1 += s.body_len;
        body_bytes += s.body_len;
    }
    // Terminal pages: from what was archived, by the content each response showed.
    let recs = harness::records(data.path(), &crawl);
    let mut terminal = BTreeSet::new();
    let mut terminal_fetches = 0;
    for r in recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
    {
        let target = r.uri.strip_prefix(&base).unwrap_or("/");
        if let Some(k) = serve(&base, target).terminal {
            terminal.insert(k);
            terminal_fetches += 1;
        }
    }
    Measure {
        requests: hits.len(),
        bytes_received: summary.bytes_received,
        body_bytes,
        archived: summary.pages_fetched,
        app_skip: summary
            .out_of_scope_by_reason
            .get("app-skip")
            .copied()
            .unwrap_or(0),
        terminal,
        terminal_fetches,
        by_class,
    }
}

fn pct(on: f64, off: f64) -> String {
    format!("{:.0}%", 100.0 * (off - on) / off)
}

fn report(site: &str, all_terminal: usize, off: &Measure, on: &Measure) -> String {
    let mut s =
        format!("\n#### {site}\n\n| | helper off | helper on | saved |\n|---|---:|---:|---:|\n");
    s.push_str(&format!(
        "| HTTP requests (robots.txt included) | {} | {} | {} |\n",
        off.requests,
        on.requests,
        pct(on.requests as f64, off.requests as f64)
    ));
    s.push_str(&format!(
        "| bytes received (`bytes_received`, headers included) | {} | {} | {} |\n",
        off.bytes_received,
        on.bytes_received,
        pct(on.bytes_received as f64, off.bytes_received as f64)
    ));
    s.push_str(&format!(
        "| response body bytes served | {} | {} | {} |\n",
        off.body_bytes,
        on.body_bytes,
        pct(on.body_bytes as f64, off.body_bytes as f64)
    ));
    s.push_str(&format!(
        "| responses archived (`pages_fetched`) | {} | {} | |\n",
        off.archived, on.archived
    ));
    s.push_str(&format!(
        "| terminal pages captured (of {all_terminal}) | {} | {} | |\n",
        off.terminal.len(),
        on.terminal.len()
    ));
    s.push_str(&format!(
        "| responses showing a terminal page (with duplicates) | {} | {} | |\n",
        off.terminal_fetches, on.terminal_fetches
    ));
    s.push_str(&format!(
        "| links refused by the helper (`app-skip`) | {} | {} | |\n",
        off.app_skip, on.app_skip
    ));
    s.push_str(&format!(
        "| requests per terminal page | {:.1} | {:.1} | |\n\nRequests (body bytes) by kind of target:\n\n| target | helper off | helper on |\n|---|---:|---:|\n",
        off.requests as f64 / off.terminal.len().max(1) as f64,
        on.requests as f64 / on.terminal.len().max(1) as f64
    ));
    let classes: BTreeSet<&str> = off
        .by_class
        .keys()
        .chain(on.by_class.keys())
        .copied()
        .collect();
    for c in classes {
        let f = |m: &Measure| {
            m.by_class
                .get(c)
                .map(|(n, b)| format!("{n} ({b})"))
                .unwrap_or_else(|| "0".into())
        };
        s.push_str(&format!("| {c} | {} | {} |\n", f(off), f(on)));
    }
    s
}

fn check(site: &str, all: &BTreeSet<String>, off: &Measure, on: &Measure) {
    // The plain crawl reaches every terminal page of the site: the fixture is connected.
    assert_eq!(
        &off.terminal, all,
        "{site}: helper off misses terminal pages"
    );
    let missed: Vec<&String> = off.terminal.difference(&on.terminal).collect();
    assert!(missed.is_empty(), "{site}: helper on misses {missed:?}");
    assert!(
        on.requests < off.requests,
        "{site}: requests {} vs {}",
        on.requests,
        off.requests
    );
    assert!(
        on.bytes_received < off.bytes_received,
        "{site}: bytes {} vs {}",
        on.bytes_received,
        off.bytes_received
    );
    assert!(
        on.app_skip > 0 && off.app_skip == 0,
        "{site}: app-skip {} / {}",
        on.app_skip,
        off.app_skip
    );
}

#[test]
fn helper_saves_requests_and_bytes_on_a_phpbb_forum_and_reaches_the_same_topic_pages() {
    let board = Arc::new(forum::Board::new());
    let all = board.terminal_keys();
    assert!(all.len() >= 20, "a few dozen terminal pages: {}", all.len());
    let b = board.clone();
    let serve: Site = Arc::new(move |base, target| forum::serve(&b, base, target));
    let off = measure("forum", "/", false, serve.clone());
    let on = measure("forum", "/", true, serve);
    println!(
        "{}",
        report(
            &format!(
                "phpBB forum: {} topics, {} posts, {} topic pages",
                forum::TOPICS.len(),
                board.posts.len(),
                all.len()
            ),
            all.len(),
            &off,
            &on
        )
    );
    check("forum", &all, &off, &on);
}

#[test]
fn helper_saves_requests_and_bytes_on_a_wordpress_blog_and_reaches_the_same_posts() {
    let blog = Arc::new(blog::Blog::new());
    let all = blog.terminal_keys();
    assert!(all.len() >= 20, "a few dozen terminal pages: {}", all.len());
    let b = blog.clone();
    let serve: Site = Arc::new(move |base, target| blog::serve(&b, base, target));
    let off = measure("blog", "/", false, serve.clone());
    let on = measure("blog", "/", true, serve);
    let comments: usize = blog.posts.iter().map(|p| p.comments).sum();
    println!(
        "{}",
        report(
            &format!(
                "WordPress blog: {} posts, {comments} comments, 1 static page",
                blog.posts.len()
            ),
            all.len(),
            &off,
            &on
        )
    );
    check("blog", &all, &off, &on);
}
