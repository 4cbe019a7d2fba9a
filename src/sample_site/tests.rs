//! Tests of the sample web: reproducible content, size bounds, link integrity, and the server.

use super::content::{Resource, Site, IMAGE_COUNT};
use super::*;
use std::collections::{HashSet, VecDeque};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn addrs(n: usize) -> Vec<SocketAddr> {
    (0..n)
        .map(|i| SocketAddr::from(([127, 0, 0, 2 + i as u8], 8000 + i as u16)))
        .collect()
}

fn page(site: &Site, host: usize, page: usize) -> String {
    let mut s = String::new();
    site.render_page(host, page, &mut s);
    s
}

/// Every `href="..."` / `src="..."` value and CSS `url(...)` in `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in ["href=\"", "src=\""] {
        for (i, _) in text.match_indices(marker) {
            let rest = &text[i + marker.len()..];
            out.push(rest[..rest.find('"').unwrap_or(rest.len())].to_string());
        }
    }
    for (i, _) in text.match_indices("url(") {
        let rest = &text[i + 4..];
        out.push(rest[..rest.find(')').unwrap_or(rest.len())].to_string());
    }
    out
}

/// Splits a link found on `host` into (host index, path); `None` for a foreign host.
fn locate(bases: &[SocketAddr], host: usize, link: &str) -> Option<(usize, String)> {
    if link.starts_with('/') {
        return Some((host, link.to_string()));
    }
    let rest = link.strip_prefix("http://")?;
    let slash = rest.find('/')?;
    let target = bases.iter().position(|a| a.to_string() == rest[..slash])?;
    Some((target, rest[slash..].to_string()))
}

#[test]
fn same_seed_gives_same_bytes_and_other_seed_differs() {
    let cfg = demo_config();
    let (a, b) = (Site::new(&cfg, &addrs(3)), Site::new(&cfg, &addrs(3)));
    let other = Site::new(
        &SiteConfig {
            seed: cfg.seed + 1,
            ..cfg.clone()
        },
        &addrs(3),
    );
    for (h, p) in [(0, 0), (1, 7), (2, 39)] {
        assert_eq!(page(&a, h, p), page(&b, h, p));
        assert_ne!(page(&a, h, p), page(&other, h, p));
    }
    let (mut ra, mut rb) = (String::new(), String::new());
    a.render_sitemap(1, &mut ra);
    b.render_sitemap(1, &mut rb);
    assert_eq!(ra, rb);
}

#[test]
fn pages_differ_from_each_other() {
    let site = Site::new(&demo_config(), &addrs(3));
    let all: HashSet<String> = (0..40).map(|p| page(&site, 0, p)).collect();
    assert_eq!(all.len(), 40);
}

#[test]
fn page_sizes_stay_within_bounds() {
    for (min, max) in [(4096, 4096), (5000, 9000), (15 * 1024, 30 * 1024)] {
        let cfg = SiteConfig {
            min_page_bytes: min,
            max_page_bytes: max,
            ..demo_config()
        };
        let site = Site::new(&cfg, &addrs(3));
        let mut sizes = HashSet::new();
        for h in 0..3 {
            for p in 0..40 {
                let len = page(&site, h, p).len();
                assert!(
                    (min..=max).contains(&len),
                    "host {h} page {p}: {len} not in {min}..={max}"
                );
                sizes.insert(len);
            }
        }
        assert!(
            min == max || sizes.len() > 10,
            "sizes barely vary: {sizes:?}"
        );
    }
}

#[test]
fn every_link_and_embed_resolves_and_all_pages_are_reachable() {
    let cfg = demo_config();
    let bases = addrs(cfg.hosts);
    let site = Site::new(&cfg, &bases);
    let mut seen = HashSet::from([(0usize, 0usize)]);
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    let mut cross_host = 0;
    while let Some((host, p)) = queue.pop_front() {
        let html = page(&site, host, p);
        for link in links(&html) {
            let (target_host, path) =
                locate(&bases, host, &link).unwrap_or_else(|| panic!("foreign link {link}"));
            cross_host += usize::from(target_host != host);
            let resolved = site.resolve(target_host, &path);
            assert_ne!(
                resolved,
                Resource::NotFound,
                "host {host} page {p} links to missing {link}"
            );
            if let Resource::Page(n) = resolved {
                if seen.insert((target_host, n)) {
                    queue.push_back((target_host, n));
                }
            }
        }
    }
    assert_eq!(
        seen.len(),
        cfg.hosts * cfg.pages_per_host,
        "not every page is reachable"
    );
    assert!(cross_host > 0);
    for css_link in links(content::STYLE_CSS) {
        assert!(
            matches!(site.resolve(0, &css_link), Resource::Image(_)),
            "{css_link}"
        );
    }
}

#[test]
fn pages_are_mostly_about_their_hosts_topic() {
    let site = Site::new(&demo_config(), &addrs(3));
    let html = page(&site, 2, 0);
    let football = words::TOPICS[2]
        .nouns
        .iter()
        .filter(|n| html.contains(*n))
        .count();
    let cooking = words::TOPICS[1]
        .nouns
        .iter()
        .filter(|n| html.contains(*n))
        .count();
    assert!(
        football > cooking,
        "football {football} vs cooking {cooking}"
    );
    assert!(html.contains("<title>") && html.contains("<h2>") && html.contains("<img src=\"/img/"));
}

#[test]
fn resolve_rejects_unknown_and_non_canonical_paths() {
    let site = Site::new(&demo_config(), &addrs(3));
    let mut path = String::new();
    site.push_path(0, 5, &mut path);
    assert_eq!(site.resolve(0, &path), Resource::Page(5));
    assert_eq!(site.resolve(0, &format!("{path}?utm=x")), Resource::Page(5));
    let wrong_topic = if path.starts_with("/cooking/") {
        "/football/5.html"
    } else {
        "/cooking/5.html"
    };
    for bad in [
        wrong_topic,
        "/energy/0.html",
        "/energy/40.html",
        "/img/016.png",
        "/img/16.png",
        "/nope",
        "/img/+1.png",
    ] {
        assert_eq!(site.resolve(0, bad), Resource::NotFound, "{bad}");
    }
    assert_eq!(
        site.resolve(0, &format!("/img/{}.png", IMAGE_COUNT - 1)),
        Resource::Image(IMAGE_COUNT - 1)
    );
}

#[test]
fn tiny_png_is_well_formed() {
    use std::io::Read;
    let png = tiny_png([10, 20, 30]);
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(png.ends_with(&[0xae, 0x42, 0x60, 0x82]), "IEND CRC");
    let idat_len = u32::from_be_bytes([png[33], png[34], png[35], png[36]]) as usize;
    assert_eq!(&png[37..41], b"IDAT");
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&png[41..41 + idat_len])
        .read_to_end(&mut raw)
        .expect("zlib");
    assert_eq!(raw.len(), 8 * 25);
    assert_eq!(&raw[..4], &[0, 10, 20, 30]);
}

#[test]
fn invalid_configs_are_rejected() {
    let bad = [
        SiteConfig {
            hosts: 0,
            ..demo_config()
        },
        SiteConfig {
            pages_per_host: 0,
            ..demo_config()
        },
        SiteConfig {
            min_page_bytes: 9000,
            max_page_bytes: 8000,
            ..demo_config()
        },
        SiteConfig {
            min_page_bytes: 100,
            max_page_bytes: 1000,
            ..demo_config()
        },
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for cfg in bad {
        let err = rt
            .block_on(SampleWeb::start(cfg.clone()))
            .err()
            .expect("rejected");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{cfg:?}");
    }
}

/// Sends `request` and reads until the server closes.
async fn exchange(addr: SocketAddr, request: &str) -> String {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(request.as_bytes()).await.expect("send");
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.expect("read");
    String::from_utf8(out).expect("utf-8 response")
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.0\r\nHost: x\r\nConnection: close\r\n\r\n")
}

#[tokio::test]
async fn serves_pages_robots_sitemap_and_404_then_shuts_down() {
    let cfg = SiteConfig {
        robots_delay: Some(2),
        ..demo_config()
    };
    let web = SampleWeb::start(cfg).await.expect("start");
    let hosts = web.hosts();
    assert_eq!(hosts.len(), 3);
    assert_eq!(
        hosts.iter().collect::<HashSet<_>>().len(),
        3,
        "distinct addresses"
    );
    assert_eq!(web.seeds()[1], format!("http://{}/", hosts[1]));

    let home = exchange(hosts[0], &get("/")).await;
    assert!(home.starts_with("HTTP/1.1 200 OK\r\n"), "{home}");
    let (head, body) = home.split_once("\r\n\r\n").expect("head");
    assert!(head.contains(&format!("Content-Length: {}\r\n", body.len())));
    assert!(head.contains("Connection: close"));
    assert!(body.contains("<link rel=\"stylesheet\" href=\"/style.css\">"));

    let robots = exchange(hosts[1], &get("/robots.txt")).await;
    assert!(
        robots.contains("User-agent: *\nAllow: /\nCrawl-delay: 2\n"),
        "{robots}"
    );
    assert!(robots.contains(&format!("Sitemap: http://{}/sitemap.xml", hosts[1])));

    let sitemap = exchange(hosts[1], &get("/sitemap.xml")).await;
    assert!(sitemap.contains("Content-Type: application/xml"));
    assert_eq!(sitemap.matches("<loc>").count(), 40);
    assert!(sitemap.contains(&format!("<loc>http://{}/</loc>", hosts[1])));

    let css = exchange(hosts[2], &get("/style.css")).await;
    assert!(css.contains("text/css") && css.contains("url(/img/0.png)"));
    let missing = exchange(hosts[2], &get("/no/such/page")).await;
    assert!(missing.starts_with("HTTP/1.1 404 Not Found\r\n"));
    let post = exchange(hosts[2], "POST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n").await;
    assert!(post.starts_with("HTTP/1.1 405 "));
    assert_eq!(web.requests_served(), 6);

    web.shutdown().await;
    assert!(
        TcpStream::connect(hosts[0]).await.is_err(),
        "still listening after shutdown"
    );
}

/// Reads one Content-Length-framed response from a kept-alive connection.
async fn read_one(s: &mut TcpStream) -> (String, Vec<u8>) {
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        assert_eq!(
            s.read(&mut byte).await.expect("read"),
            1,
            "closed inside head"
        );
        got.push(byte[0]);
    }
    let head = String::from_utf8(got).expect("utf-8 head");
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("Content-Length");
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).await.expect("body");
    (head, body)
}

#[tokio::test]
async fn http11_keep_alive_and_head() {
    let web = SampleWeb::start(demo_config()).await.expect("start");
    let mut s = TcpStream::connect(web.hosts()[0]).await.expect("connect");
    s.write_all(b"GET /img/3.png HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("send");
    let (head, body) = read_one(&mut s).await;
    assert!(
        head.contains("Connection: keep-alive\r\n") && head.contains("Content-Type: image/png\r\n")
    );
    assert!(body.starts_with(b"\x89PNG"));

    s.write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("send");
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.expect("read");
    let rest = String::from_utf8(rest).expect("utf-8");
    assert!(
        rest.starts_with("HTTP/1.1 200 OK") && rest.ends_with("\r\n\r\n"),
        "{rest}"
    );
    assert!(rest.contains("Connection: close\r\n") && !rest.contains("Content-Length: 0\r"));
    assert_eq!(web.requests_served(), 2);
    web.shutdown().await;
}
