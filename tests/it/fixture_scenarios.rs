//! Tests of the fixture web's ready-made scenarios: each serves what crawler tests rely on.

use crate::support;

use std::collections::HashSet;
use std::io::Read;
use support::client::{dechunk, get};
use support::FixtureWeb;

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The `href` values in `html`, in order.
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').expect("closing quote")].to_string())
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The path and query of a fixture URL.
fn target(url: &str) -> &str {
    let rest = url.strip_prefix("http://").expect("http URL");
    &rest[rest.find('/').expect("path")..]
}

#[test]
fn basic_site_has_robots_redirect_404_nofollow_embeds_and_an_offsite_link() {
    let web = FixtureWeb::start(2);
    let site = support::basic_site(&web, 0);
    let robots = get(&web, 0, "/robots.txt");
    assert!(robots.text().contains("Disallow: /private/"));
    let home = get(&web, 0, "/").text();
    for link in [
        "/a.html",
        "/private/secret.html",
        "/missing.html",
        "/old.html",
        "/nofollow.html",
        "/style.css",
    ] {
        assert!(hrefs(&home).iter().any(|h| h == link), "home lacks {link}");
    }
    assert!(home.contains("<img src=\"/img/logo.png\""));
    for url in site
        .pages
        .iter()
        .chain(&site.embeds)
        .chain([&site.disallowed, &site.nofollow_target])
    {
        assert_eq!(get(&web, 0, target(url)).status, 200, "{url}");
    }
    assert!(get(&web, 0, "/style.css")
        .text()
        .contains("url(/img/bg.png)"));
    assert!(get(&web, 0, "/img/logo.png").body.starts_with(b"\x89PNG"));
    assert_eq!(get(&web, 0, target(&site.not_found)).status, 404);
    let moved = get(&web, 0, target(&site.redirect));
    assert_eq!(
        (moved.status, moved.header("location")),
        (301, Some(site.pages[1].as_str()))
    );
    assert!(get(&web, 0, "/nofollow.html")
        .text()
        .contains("<meta name=\"robots\" content=\"nofollow\">"));
    assert!(site.offsite.starts_with(&web.base(1)));
    assert!(hrefs(&get(&web, 0, "/a.html").text()).contains(&site.offsite));
    assert_eq!(get(&web, 1, target(&site.offsite)).status, 200);
}

#[test]
fn redirect_loop_and_calendar_trap_never_end() {
    let web = FixtureWeb::start(1);
    let start = support::redirect_loop(&web, 0);
    let a = get(&web, 0, target(&start));
    assert_eq!((a.status, a.header("location")), (302, Some("/loop/b")));
    let b = get(&web, 0, "/loop/b");
    assert_eq!(b.header("location"), Some(start.as_str()));

    let mut next = target(&support::calendar_trap(&web, 0)).to_string();
    assert_eq!(next, "/cal?m=1");
    for month in 1..=50 {
        let page = get(&web, 0, &next);
        assert!(page.text().contains(&format!("Month {month}")));
        next = hrefs(&page.text()).pop().expect("next month link");
    }
    assert_eq!(next, "/cal?m=51");
    assert_eq!(get(&web, 0, "/cal?m=x").status, 404);
}

#[test]
fn many_links_are_distinct_and_served() {
    let web = FixtureWeb::start(1);
    let url = support::many_links(&web, 0, 500);
    let links = hrefs(&get(&web, 0, target(&url)).text());
    assert_eq!(links.len(), 500);
    assert_eq!(links.iter().collect::<HashSet<_>>().len(), 500);
    assert_eq!(get(&web, 0, &links[499]).status, 200);
}

#[test]
fn sitemaps_lead_from_robots_through_an_index_to_plain_and_gzipped_urlsets() {
    let web = FixtureWeb::start(1);
    let site = support::sitemaps(&web, 0);
    assert!(get(&web, 0, "/robots.txt")
        .text()
        .contains(&format!("Sitemap: {}\n", site.index)));
    let index = get(&web, 0, target(&site.index)).text();
    assert!(
        index.contains("<sitemapindex")
            && index.contains(&site.urlset)
            && index.contains(&site.gz_urlset)
    );
    let plain = get(&web, 0, target(&site.urlset)).text();
    let gz = get(&web, 0, target(&site.gz_urlset));
    assert_eq!(gz.header("content-type"), Some("application/x-gzip"));
    assert_eq!(gz.header("content-encoding"), None);
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_string(&mut unzipped)
        .expect("gunzip");
    for (i, page) in site.pages.iter().enumerate() {
        let listing = if i < 3 { &plain } else { &unzipped };
        assert!(
            listing.contains(&format!("<loc>{page}</loc>")),
            "{page} not listed"
        );
        assert_eq!(get(&web, 0, target(page)).status, 200);
    }
}

#[test]
fn chunked_page_decodes_to_html_with_a_trailer() {
    let web = FixtureWeb::start(1);
    let url = support::chunked_page(&web, 0);
    let r = get(&web, 0, target(&url));
    let (html, trailers) = dechunk(&r.body);
    let html = String::from_utf8(html).expect("utf-8");
    assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
    assert_eq!(hrefs(&html), vec!["/chunked-next.html"]);
    assert_eq!(
        trailers,
        headers(&[("X-Checksum", &format!("len-{}", html.len()))])
    );
    assert!(
        r.body.windows(2).filter(|w| w == b"\r\n").count() >= 10,
        "several chunks"
    );
}

#[test]
fn gzip_zeros_inflate_exactly_and_the_bomb_claims_a_gibibyte() {
    let small = support::gzip_zeros(8);
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&small[..])
        .read_to_end(&mut inflated)
        .expect("valid gzip with correct CRC");
    assert_eq!(inflated.len(), 8 << 20);
    assert!(inflated.iter().all(|&b| b == 0));

    let web = FixtureWeb::start(1);
    let url = support::gzip_bomb(&web, 0);
    let r = get(&web, 0, target(&url));
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert!(
        (900_000..1_200_000).contains(&r.body.len()),
        "{} compressed bytes",
        r.body.len()
    );
    let isize_field = u32::from_le_bytes(r.body[r.body.len() - 4..].try_into().expect("4 bytes"));
    assert_eq!(isize_field, 1 << 30);
    let mut prefix = vec![0u8; 16 << 20];
    flate2::read::GzDecoder::new(&r.body[..])
        .read_exact(&mut prefix)
        .expect("inflate a prefix");
    assert!(prefix.iter().all(|&b| b == 0));
}

#[test]
fn encoding_oddities_carry_the_promised_bytes() {
    let web = FixtureWeb::start(1);
    let bad = get(&web, 0, target(&support::invalid_utf8(&web, 0)));
    assert_eq!(bad.header("content-type"), Some("text/html; charset=utf-8"));
    assert!(std::str::from_utf8(&bad.body).is_err());
    assert!(bad.text().contains("/after-invalid.html"));

    let latin = get(&web, 0, target(&support::latin1_page(&web, 0)));
    assert_eq!(latin.header("content-type"), Some("text/html"));
    assert!(contains(&latin.body, b"Cr\xe8me br\xfbl\xe9e"));
    assert!(contains(&latin.body, b"\x93quoted\x94 5 \x80"));
    assert!(latin.text().contains("charset=windows-1252"));
    assert!(std::str::from_utf8(&latin.body).is_err());

    let wrong = support::wrong_content_type(&web, 0);
    let html = get(&web, 0, target(&wrong.html_as_png));
    assert_eq!(html.header("content-type"), Some("image/png"));
    assert!(html.text().contains("<a href=\"/from-mislabelled.html\""));
    let png = get(&web, 0, target(&wrong.png_as_html));
    assert_eq!(png.header("content-type"), Some("text/html; charset=utf-8"));
    assert!(png.body.starts_with(b"\x89PNG\r\n"));
}
