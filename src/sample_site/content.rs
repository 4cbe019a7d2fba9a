//! What the sample site serves: pages, robots.txt, sitemap, stylesheet and images, all derived
//! from the seed and the bound host addresses.
//!
//! Pages are assembled on request from a pool of pre-rendered paragraphs plus a few freshly
//! generated parts (title, headings, links). Assembly is a handful of PRNG draws and memory
//! copies, so the server stays fast without holding every page of a large site in memory.

use super::words::{headline, paragraph, words_within, SplitMix, TOPICS};
use super::SiteConfig;
use std::net::SocketAddr;

/// Number of distinct images under `/img/N.png`.
pub(crate) const IMAGE_COUNT: usize = 16;
/// The smallest accepted `max_page_bytes`: a page's fixed parts (head, navigation, links)
/// always fit below it, so every page can be sized within the configured bounds.
pub(crate) const MIN_MAX_PAGE_BYTES: usize = 4096;
/// Pre-rendered paragraphs per topic; large enough that two pages rarely share many.
const POOL_PER_TOPIC: usize = 256;
/// Navigation links per page (besides "Home").
const NAV_LINKS: usize = 10;
/// Percentage of a host's pages written about the host's own topic.
const ON_TOPIC_PERCENT: usize = 75;

/// The stylesheet every page embeds; its `url()` makes the crawler find an image through CSS.
pub(crate) const STYLE_CSS: &str =
    "body { font-family: Georgia, serif; margin: 2em auto; max-width: 46em; }\n\
header { background: #f4f1ea url(/img/0.png) repeat-x; padding: 1em; }\n\
nav ul { list-style: none; padding: 0; }\n\
nav li { display: inline-block; margin-right: 1em; }\n\
aside { border-top: 1px solid #ccc; font-size: 90%; }\n";

/// What a request path names on one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    Page(usize),
    Robots,
    Sitemap,
    Style,
    Image(usize),
    NotFound,
}

/// Everything needed to answer any request on any host of one sample web.
pub(crate) struct Site {
    seed: u64,
    bases: Vec<String>,
    pages: usize,
    min_bytes: usize,
    max_bytes: usize,
    robots_delay: Option<u32>,
    pool: Vec<Vec<Box<str>>>,
    images: Vec<Vec<u8>>,
}

impl Site {
    /// Pre-renders the paragraph pool and images for hosts bound at `addrs`.
    pub(crate) fn new(cfg: &SiteConfig, addrs: &[SocketAddr]) -> Site {
        let mut rng = SplitMix::new(cfg.seed);
        let pool = TOPICS
            .iter()
            .map(|t| {
                (0..POOL_PER_TOPIC)
                    .map(|_| {
                        let mut p = String::new();
                        paragraph(&mut rng, t, &mut p);
                        p.into_boxed_str()
                    })
                    .collect()
            })
            .collect();
        let images = (0..IMAGE_COUNT)
            .map(|_| {
                let c = rng.next_u64().to_le_bytes();
                tiny_png([c[0], c[1], c[2]])
            })
            .collect();
        Site {
            seed: cfg.seed,
            bases: addrs.iter().map(|a| format!("http://{a}")).collect(),
            pages: cfg.pages_per_host,
            min_bytes: cfg.min_page_bytes,
            max_bytes: cfg.max_page_bytes,
            robots_delay: cfg.robots_delay,
            pool,
            images,
        }
    }

    /// The PNG bytes of image `n` (`n < IMAGE_COUNT`).
    pub(crate) fn image(&self, n: usize) -> &[u8] {
        self.images.get(n).map_or(&[], Vec::as_slice)
    }

    /// Maps a request target (path, optional query ignored) to what it names on `host`.
    pub(crate) fn resolve(&self, host: usize, target: &str) -> Resource {
        let path = target.split(['?', '#']).next().unwrap_or("");
        match path {
            "/" => return Resource::Page(0),
            "/robots.txt" => return Resource::Robots,
            "/sitemap.xml" => return Resource::Sitemap,
            "/style.css" => return Resource::Style,
            _ => {}
        }
        if let Some(n) = path
            .strip_prefix("/img/")
            .and_then(|r| r.strip_suffix(".png"))
        {
            return match canonical_number(n) {
                Some(n) if n < IMAGE_COUNT => Resource::Image(n),
                _ => Resource::NotFound,
            };
        }
        let Some((slug, file)) = path.strip_prefix('/').and_then(|p| p.split_once('/')) else {
            return Resource::NotFound;
        };
        match file.strip_suffix(".html").and_then(canonical_number) {
            Some(n) if n > 0 && n < self.pages && TOPICS[self.topic_of(host, n).1].slug == slug => {
                Resource::Page(n)
            }
            _ => Resource::NotFound,
        }
    }

    /// The page's generator, positioned just after the topic draw, and the topic index.
    fn topic_of(&self, host: usize, page: usize) -> (SplitMix, usize) {
        let mut rng = SplitMix::for_cell(self.seed, host as u64, page as u64);
        let roll = rng.below(100);
        let other = rng.below(TOPICS.len());
        let own = host % TOPICS.len();
        (
            rng,
            if page == 0 || roll < ON_TOPIC_PERCENT {
                own
            } else {
                other
            },
        )
    }

    /// Appends the title of a page (the same text its `<title>` carries).
    fn push_title(&self, host: usize, page: usize, out: &mut String) {
        let (mut rng, topic) = self.topic_of(host, page);
        headline(&mut rng, &TOPICS[topic], out);
    }

    /// Appends the path of `page` on `host`: `/` for page 0, else `/{topic}/{page}.html`.
    pub(crate) fn push_path(&self, host: usize, page: usize, out: &mut String) {
        if page == 0 {
            out.push('/');
        } else {
            out.push('/');
            out.push_str(TOPICS[self.topic_of(host, page).1].slug);
            out.push('/');
            out.push_str(&page.to_string());
            out.push_str(".html");
        }
    }

    /// Same-host link targets: p+1 and the binary-tree children 2p+1, 2p+2 (so the whole
    /// host is reachable from `/` in few hops), then random pages up to `NAV_LINKS`.
    fn nav_targets(&self, rng: &mut SplitMix, page: usize) -> Vec<usize> {
        let want = NAV_LINKS.min(self.pages.saturating_sub(1));
        let mut out = Vec::with_capacity(want);
        let fixed = [page + 1, 2 * page + 1, 2 * page + 2];
        let random = (0..want * 3).map(|_| rng.below(self.pages));
        for t in fixed.into_iter().chain(random) {
            if out.len() == want {
                break;
            }
            if t != page && t != 0 && t < self.pages && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// Appends the HTML of `page` on `host`, sized within the configured byte bounds.
    pub(crate) fn render_page(&self, host: usize, page: usize, out: &mut String) {
        let start = out.len();
        let (mut rng, topic_index) = self.topic_of(host, page);
        let topic = &TOPICS[topic_index];
        let mut title = String::new();
        headline(&mut rng, topic, &mut title);
        let size = rng.range(self.min_bytes, self.max_bytes);

        out.push_str(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
        );
        out.push_str(&title);
        out.push_str("</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body>\n<header>\n<h1>");
        out.push_str(&title);
        out.push_str("</h1>\n<nav>\n<ul>\n");
        if page != 0 {
            out.push_str("<li><a href=\"/\">Home</a></li>\n");
        }
        for target in self.nav_targets(&mut rng, page) {
            out.push_str("<li><a href=\"");
            self.push_path(host, target, out);
            out.push_str("\">");
            self.push_title(host, target, out);
            out.push_str("</a></li>\n");
        }
        out.push_str("</ul>\n</nav>\n</header>\n<main>\n<img src=\"/img/");
        out.push_str(&rng.below(IMAGE_COUNT).to_string());
        out.push_str(".png\" alt=\"");
        headline(&mut rng, topic, out);
        out.push_str("\" width=\"8\" height=\"8\">\n");

        let tail = self.page_tail(&mut rng, host, page);
        let budget = size.saturating_sub(out.len() - start + tail.len());
        self.fill(&mut rng, topic_index, budget, out);
        out.push_str(&tail);
    }

    /// The end of a page: links to 1-3 pages on other hosts, and the footer.
    fn page_tail(&self, rng: &mut SplitMix, host: usize, page: usize) -> String {
        let mut tail = String::from("</main>\n");
        let hosts = self.bases.len();
        if hosts > 1 {
            tail.push_str("<aside>\n<h2>Elsewhere</h2>\n<ul>\n");
            for _ in 0..rng.range(1, 3) {
                let other = (host + 1 + rng.below(hosts - 1)) % hosts;
                let target = rng.below(self.pages);
                tail.push_str("<li><a href=\"");
                tail.push_str(&self.bases[other]);
                self.push_path(other, target, &mut tail);
                tail.push_str("\">");
                self.push_title(other, target, &mut tail);
                tail.push_str("</a></li>\n");
            }
            tail.push_str("</ul>\n</aside>\n");
        }
        tail.push_str("<footer>\n<p>Sample site, host ");
        tail.push_str(&host.to_string());
        tail.push_str(", page ");
        tail.push_str(&page.to_string());
        tail.push_str(".</p>\n</footer>\n</body>\n</html>\n");
        tail
    }

    /// Appends exactly `budget` bytes of body text: a fresh lead paragraph, pooled paragraphs
    /// under occasional headings, and a last paragraph of words padded to the exact size.
    fn fill(&self, rng: &mut SplitMix, topic: usize, budget: usize, out: &mut String) {
        let end = out.len() + budget;
        let mut scratch = String::new();
        paragraph(rng, &TOPICS[topic], &mut scratch);
        for n in 0.. {
            if n > 0 && n % 3 == 0 {
                scratch.push_str("<h2>");
                headline(rng, &TOPICS[topic], &mut scratch);
                scratch.push_str("</h2>\n");
            }
            let from = if rng.chance(85) {
                topic
            } else {
                rng.below(TOPICS.len())
            };
            let pooled = &self.pool[from][rng.below(POOL_PER_TOPIC)];
            if out.len() + scratch.len() + pooled.len() > end {
                break;
            }
            out.push_str(&scratch);
            out.push_str(pooled);
            scratch.clear();
        }
        let gap = end.saturating_sub(out.len());
        if gap >= 8 {
            out.push_str("<p>");
            let used = words_within(rng, &TOPICS[topic], gap - 8, out);
            out.extend(std::iter::repeat_n(' ', gap - 8 - used));
            out.push_str("</p>\n");
        } else {
            out.extend(std::iter::repeat_n('\n', gap));
        }
    }

    /// Appends `/robots.txt` for `host`: allow all, optional Crawl-delay, the sitemap.
    pub(crate) fn render_robots(&self, host: usize, out: &mut String) {
        out.push_str("# Sample site\nUser-agent: *\nAllow: /\n");
        if let Some(delay) = self.robots_delay {
            out.push_str("Crawl-delay: ");
            out.push_str(&delay.to_string());
            out.push('\n');
        }
        out.push_str("\nSitemap: ");
        out.push_str(&self.bases[host]);
        out.push_str("/sitemap.xml\n");
    }

    /// Appends `/sitemap.xml` for `host`: a urlset listing every page of the host.
    pub(crate) fn render_sitemap(&self, host: usize, out: &mut String) {
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
        for page in 0..self.pages {
            out.push_str("<url><loc>");
            out.push_str(&self.bases[host]);
            self.push_path(host, page, out);
            out.push_str("</loc></url>\n");
        }
        out.push_str("</urlset>\n");
    }
}

/// Parses a decimal number written without sign or leading zeros, so each resource has
/// exactly one path.
fn canonical_number(s: &str) -> Option<usize> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten()
}

/// A valid 8x8 single-colour RGB PNG (about 270 bytes), for image fixtures that must decode.
pub fn tiny_png(rgb: [u8; 3]) -> Vec<u8> {
    // Pixels on a side.
    const SIDE: usize = 8;
    // Each scanline: filter byte 0 (none), then SIDE pixels.
    let row: Vec<u8> = std::iter::once(0).chain(rgb.repeat(SIDE)).collect();
    let raw = row.repeat(SIDE);
    // zlib stream with one stored (uncompressed) deflate block.
    let mut zlib = vec![0x78, 0x01, 0x01];
    let len = raw.len() as u16;
    zlib.extend_from_slice(&len.to_le_bytes());
    zlib.extend_from_slice(&(!len).to_le_bytes());
    zlib.extend_from_slice(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    zlib.extend_from_slice(&((b << 16) | a).to_be_bytes());

    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(SIDE as u32).to_be_bytes());
    ihdr.extend_from_slice(&(SIDE as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit, RGB, deflate, no filter, no interlace
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [
        (b"IHDR", &ihdr[..]),
        (b"IDAT", &zlib[..]),
        (b"IEND", &[][..]),
    ] {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        png.extend_from_slice(&crc.sum().to_be_bytes());
    }
    png
}
