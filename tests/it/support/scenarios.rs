//! Ready-made sites for end-to-end crawler tests: ordinary structure, traps and sitemaps.
//!
//! Each builder registers routes on a [`FixtureWeb`] host and returns the URLs a test needs.
//! Builders that serve `/robots.txt` (`basic_site`, `sitemaps`) claim it for their host, so
//! combine those on different hosts.

use super::{FixtureWeb, Reply};
use magpie::sample_site::tiny_png;
use std::io::Write;

/// A small HTML page with a title and the given links in one paragraph.
pub fn page(title: &str, extra_head: &str, links: &[&str]) -> String {
    let anchors: Vec<String> = links
        .iter()
        .enumerate()
        .map(|(i, href)| format!("<a href=\"{href}\">link {i}</a>"))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n{extra_head}\n</head>\n\
         <body>\n<h1>{title}</h1>\n<p>Text about {title}. {}</p>\n</body>\n</html>\n",
        anchors.join(" ")
    )
}

/// URLs of [`basic_site`].
#[derive(Debug, Clone)]
pub struct BasicSite {
    /// `/`: the seed.
    pub seed: String,
    /// `/robots.txt` (`Disallow: /private/`).
    pub robots: String,
    /// The HTML pages a polite crawler fetches: `/`, `/a.html`, `/b.html`, `/nofollow.html`.
    pub pages: Vec<String>,
    /// The embeds: `/style.css`, `/img/logo.png`, and `/img/bg.png` (only named in the CSS).
    pub embeds: Vec<String>,
    /// `/private/secret.html`: linked from `/`, exists, but robots.txt disallows it.
    pub disallowed: String,
    /// `/missing.html`: linked from `/`, answers 404.
    pub not_found: String,
    /// `/old.html`: 301 to `/a.html`.
    pub redirect: String,
    /// `/nofollow.html`: `<meta name="robots" content="nofollow">`.
    pub nofollow: String,
    /// `/nofollow-target.html`: linked only from the nofollow page.
    pub nofollow_target: String,
    /// `/elsewhere.html` on the next host (the same host if there is only one), linked from `/a.html`.
    pub offsite: String,
}

/// An ordinary small site on `host`; see [`BasicSite`] for what it holds.
pub fn basic_site(web: &FixtureWeb, host: usize) -> BasicSite {
    let other = (host + 1) % web.hosts();
    let u = |path: &str| web.url(host, path);
    let site = BasicSite {
        seed: u("/"),
        robots: u("/robots.txt"),
        pages: vec![u("/"), u("/a.html"), u("/b.html"), u("/nofollow.html")],
        embeds: vec![u("/style.css"), u("/img/logo.png"), u("/img/bg.png")],
        disallowed: u("/private/secret.html"),
        not_found: u("/missing.html"),
        redirect: u("/old.html"),
        nofollow: u("/nofollow.html"),
        nofollow_target: u("/nofollow-target.html"),
        offsite: web.url(other, "/elsewhere.html"),
    };
    let head = "<link rel=\"stylesheet\" href=\"/style.css\">";
    let home_links = [
        "/a.html",
        "/b.html",
        "/old.html",
        "/missing.html",
        "/private/secret.html",
        "/nofollow.html",
    ];
    let home = page("Basic home", head, &home_links)
        .replace("<p>", "<p><img src=\"/img/logo.png\" alt=\"logo\"> ");
    web.route(host, "/", Reply::html(home));
    web.route(
        host,
        "/robots.txt",
        Reply::typed("text/plain", "User-agent: *\nDisallow: /private/\n"),
    );
    web.route(
        host,
        "/a.html",
        Reply::html(page("Page A", head, &["/b.html", &site.offsite])),
    );
    web.route(
        host,
        "/b.html",
        Reply::html(page("Page B", "", &["/", "/a.html"])),
    );
    web.route(
        host,
        "/private/secret.html",
        Reply::html(page("Secret", "", &[])),
    );
    web.route(host, "/old.html", Reply::redirect(301, &u("/a.html")));
    let nofollow_head = "<meta name=\"robots\" content=\"nofollow\">";
    web.route(
        host,
        "/nofollow.html",
        Reply::html(page("No follow", nofollow_head, &["/nofollow-target.html"])),
    );
    web.route(
        host,
        "/nofollow-target.html",
        Reply::html(page("Not to be followed", "", &[])),
    );
    web.route(
        host,
        "/style.css",
        Reply::typed(
            "text/css",
            "body { background: url(/img/bg.png) repeat; }\n",
        ),
    );
    web.route(
        host,
        "/img/logo.png",
        Reply::typed("image/png", tiny_png([200, 30, 30])),
    );
    web.route(
        host,
        "/img/bg.png",
        Reply::typed("image/png", tiny_png([240, 240, 240])),
    );
    web.route(
        other,
        "/elsewhere.html",
        Reply::html(page("Elsewhere", "", &[])),
    );
    site
}

/// `/loop/a` redirects (302) to `/loop/b`, which redirects back; returns the URL of `/loop/a`.
pub fn redirect_loop(web: &FixtureWeb, host: usize) -> String {
    web.route(host, "/loop/a", Reply::redirect(302, "/loop/b"));
    web.route(
        host,
        "/loop/b",
        Reply::redirect(302, &web.url(host, "/loop/a")),
    );
    web.url(host, "/loop/a")
}

/// An infinite calendar: `/cal?m=N` links to `/cal?m=N+1` for every N; returns `/cal?m=1`.
pub fn calendar_trap(web: &FixtureWeb, host: usize) -> String {
    web.route_prefix(host, "/cal?m=", |target| {
        match target
            .strip_prefix("/cal?m=")
            .and_then(|n| n.parse::<u64>().ok())
        {
            Some(n) => Reply::html(page(
                &format!("Month {n}"),
                "",
                &[&format!("/cal?m={}", n + 1)],
            )),
            None => Reply::not_found(),
        }
    });
    web.url(host, "/cal?m=1")
}

/// `/many.html` with `n` distinct links to `/many/0.html` ... (all served, without links);
/// returns the URL of `/many.html`.
pub fn many_links(web: &FixtureWeb, host: usize, n: usize) -> String {
    let targets: Vec<String> = (0..n).map(|i| format!("/many/{i}.html")).collect();
    let refs: Vec<&str> = targets.iter().map(String::as_str).collect();
    web.route(
        host,
        "/many.html",
        Reply::html(page("Many links", "", &refs)),
    );
    web.route_prefix(host, "/many/", |target| Reply::html(page(target, "", &[])));
    web.url(host, "/many.html")
}

/// URLs of [`sitemaps`].
#[derive(Debug, Clone)]
pub struct SitemapSite {
    /// `/robots.txt`, naming the index in a `Sitemap:` line.
    pub robots: String,
    /// `/sitemap_index.xml`: a sitemap index listing the two urlsets.
    pub index: String,
    /// `/sitemap-pages.xml`: a plain urlset.
    pub urlset: String,
    /// `/sitemap-more.xml.gz`: a gzipped urlset (`application/x-gzip`, no Content-Encoding).
    pub gz_urlset: String,
    /// The pages the urlsets list (`/sm/1.html` ... `/sm/6.html`); nothing links to them.
    pub pages: Vec<String>,
}

/// Sitemaps reachable only through robots.txt; see [`SitemapSite`]. `/` is a page without links.
pub fn sitemaps(web: &FixtureWeb, host: usize) -> SitemapSite {
    let u = |path: &str| web.url(host, path);
    let site = SitemapSite {
        robots: u("/robots.txt"),
        index: u("/sitemap_index.xml"),
        urlset: u("/sitemap-pages.xml"),
        gz_urlset: u("/sitemap-more.xml.gz"),
        pages: (1..=6).map(|i| u(&format!("/sm/{i}.html"))).collect(),
    };
    let robots = format!("User-agent: *\nAllow: /\n\nSitemap: {}\n", site.index);
    web.route(host, "/robots.txt", Reply::typed("text/plain", robots));
    let index = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
         <sitemap><loc>{}</loc></sitemap>\n<sitemap><loc>{}</loc></sitemap>\n</sitemapindex>\n",
        site.urlset, site.gz_urlset
    );
    web.route(
        host,
        "/sitemap_index.xml",
        Reply::typed("application/xml", index),
    );
    web.route(
        host,
        "/sitemap-pages.xml",
        Reply::typed("application/xml", urlset(&site.pages[..3])),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(urlset(&site.pages[3..]).as_bytes())
        .expect("gzip urlset");
    web.route(
        host,
        "/sitemap-more.xml.gz",
        Reply::typed("application/x-gzip", gz.finish().expect("gzip urlset")),
    );
    web.route(host, "/", Reply::html(page("Sitemap home", "", &[])));
    for i in 1..=6 {
        web.route(
            host,
            &format!("/sm/{i}.html"),
            Reply::html(page(&format!("Listed page {i}"), "", &[])),
        );
    }
    site
}

fn urlset(locs: &[String]) -> String {
    let urls: String = locs
        .iter()
        .map(|l| format!("<url><loc>{l}</loc><lastmod>2024-05-01</lastmod></url>\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{urls}</urlset>\n"
    )
}

/// `/chunked.html`: HTML sent with `Transfer-Encoding: chunked` in four chunks (split inside
/// tags) and an `X-Checksum` trailer, linking to `/chunked-next.html`; returns its URL.
pub fn chunked_page(web: &FixtureWeb, host: usize) -> String {
    let html = page("Chunked page", "", &["/chunked-next.html"]);
    let bytes = html.as_bytes();
    let cuts = [0, 17, bytes.len() / 2, bytes.len() - 9, bytes.len()];
    let chunks = cuts
        .windows(2)
        .map(|w| bytes[w[0]..w[1]].to_vec())
        .collect();
    let trailers = vec![("X-Checksum".to_string(), format!("len-{}", bytes.len()))];
    web.route(
        host,
        "/chunked.html",
        Reply::Chunked {
            headers: vec![],
            chunks,
            trailers,
        },
    );
    web.route(
        host,
        "/chunked-next.html",
        Reply::html(page("After chunked", "", &[])),
    );
    web.url(host, "/chunked.html")
}

/// The basic site of `host` plus two pages with one identical payload (`dup`), linked from
/// `/dups.html`: the seeds to crawl it, so that one twin becomes a revisit of the other.
pub fn twin_site(web: &FixtureWeb, host: usize, dup: &'static str) -> Vec<String> {
    let site = basic_site(web, host);
    web.route(
        host,
        "/dups.html",
        Reply::html(page("Dups", "", &["/dup-a.html", "/dup-b.html"])),
    );
    web.route(host, "/dup-a.html", Reply::html(dup));
    web.route(host, "/dup-b.html", Reply::html(dup));
    vec![site.seed, web.url(host, "/dups.html")]
}
