//! The synthetic topical web: a deterministic multi-host web whose pages are written from
//! topical vocabularies and linked with topical locality, for simulated crawls.
//!
//! Shape (every number is a [`SynthOptions`] field or stated here):
//!
//! - each host has a main topic (hosts are dealt round-robin over the topics); a page is about
//!   its host's topic with probability 85%, else about another topic;
//! - page kinds: the host's home page, its "About us" and "Contact" pages (off-topic, linked
//!   from every page of the host, as site boilerplate is on the real web), articles, hubs (8%,
//!   many links, mostly to pages of their topic on any host) and bridges (8%, off-topic
//!   directory pages written in general words that link anywhere, so on-topic pages are also
//!   reached through off-topic ones);
//! - an article's or home page's link stays on its topic with probability `locality` (half of
//!   those on the same host), else goes to any page of the web; every page also links home, to
//!   the boilerplate pages, and to two pages of its host with navigation anchors ("Archive",
//!   "Next page");
//! - anchors are words of the target's title with probability 65%, else generic ("read more");
//!   half the links sit next to a few words about the target's topic;
//! - sentences mix function words (30%), words of the page's topic (28%), words of other topics
//!   (4%) and general words; a quarter of the hosts have a topic word in their name, and 60% of
//!   paths are slugs of the page title.

use std::fmt::Write as _;

use super::corpus::{Web, WebPage};
use super::vocab::{GENERAL, GENERIC_ANCHORS, GLUE, NAV_ANCHORS, SYLLABLES, TOPICS};
use crate::spec::RawTopic;

/// The shape of a synthetic web.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthOptions {
    /// Seed of all random choices: the same options give the same web, byte for byte.
    pub seed: u64,
    /// Number of topics (at most 6); topic 0 (astronomy) is the crawl's.
    pub topics: usize,
    /// Number of hosts.
    pub hosts: usize,
    /// Fewest pages per host.
    pub min_pages: usize,
    /// Most pages per host.
    pub max_pages: usize,
    /// Percentage of an article's links that stay on its topic.
    pub locality: usize,
    /// Number of seeds (on-topic pages).
    pub seeds: usize,
}

impl Default for SynthOptions {
    /// About 1,700 pages on 60 hosts over 6 topics, 75% locality, 5 seeds.
    fn default() -> Self {
        SynthOptions {
            seed: 1,
            topics: 6,
            hosts: 60,
            min_pages: 15,
            max_pages: 45,
            locality: 75,
            seeds: 5,
        }
    }
}

/// splitmix64: small, fast and reproducible everywhere.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Home,
    /// "About us" and "Contact": linked from every page of the host.
    Boilerplate,
    Article,
    Hub,
    Bridge,
}

struct Page {
    host: usize,
    kind: Kind,
    topic: Option<usize>,
    title: String,
    url: String,
}

/// Generates the web described by `opts`.
pub fn generate(opts: &SynthOptions) -> Web {
    let topics = opts.topics.clamp(1, TOPICS.len());
    let hosts = opts.hosts.max(topics);
    let mut rng = Rng::new(opts.seed);
    let mut host_names = Vec::with_capacity(hosts);
    for h in 0..hosts {
        let mut name = String::new();
        if rng.chance(25) {
            name.push_str(rng.pick(TOPICS[h % topics].words));
            name.push('-');
        }
        for _ in 0..3 {
            name.push_str(rng.pick(SYLLABLES));
        }
        let _ = write!(name, "{h}.example");
        host_names.push(name);
    }
    let mut pages: Vec<Page> = vec![];
    let mut by_topic: Vec<Vec<u32>> = vec![vec![]; topics];
    let mut by_host: Vec<Vec<u32>> = vec![vec![]; hosts];
    for (h, host_name) in host_names.iter().enumerate() {
        for i in 0..rng.range(
            opts.min_pages.max(1),
            opts.max_pages.max(opts.min_pages.max(1)),
        ) {
            let kind = match (i, rng.below(100)) {
                (0, _) => Kind::Home,
                (1 | 2, _) => Kind::Boilerplate,
                (_, r) if r < 8 => Kind::Hub,
                (_, r) if r < 16 => Kind::Bridge,
                _ => Kind::Article,
            };
            let topic = match kind {
                Kind::Bridge | Kind::Boilerplate => None,
                _ if topics > 1 && !rng.chance(85) => {
                    Some((h % topics + 1 + rng.below(topics - 1)) % topics)
                }
                _ => Some(h % topics),
            };
            let title = match (kind, i) {
                (Kind::Boilerplate, 1) => "About us".to_owned(),
                (Kind::Boilerplate, _) => "Contact".to_owned(),
                _ => title(&mut rng, kind, topic),
            };
            let url = if kind == Kind::Home {
                format!("http://{host_name}/")
            } else if kind == Kind::Boilerplate {
                format!(
                    "http://{host_name}/{}.html",
                    if i == 1 { "about" } else { "contact" }
                )
            } else if rng.chance(60) {
                let slug: Vec<String> = title.split(' ').map(str::to_lowercase).collect();
                format!("http://{host_name}/{}-{i}.html", slug.join("-"))
            } else {
                format!("http://{host_name}/page/{i}")
            };
            let id = pages.len() as u32;
            if let Some(t) = topic {
                by_topic[t].push(id);
            }
            by_host[h].push(id);
            pages.push(Page {
                host: h,
                kind,
                topic,
                title,
                url,
            });
        }
    }
    let graph = Graph {
        pages: &pages,
        by_topic: &by_topic,
        by_host: &by_host,
        locality: opts.locality,
    };
    let web_pages: Vec<WebPage> = (0..pages.len())
        .map(|id| WebPage {
            url: pages[id].url.clone(),
            html: graph.html(&mut rng, id).into_bytes(),
            on_topic: pages[id].topic == Some(0),
        })
        .collect();
    // Seeds: on-topic pages, on distinct hosts while there are enough.
    let mut pool = by_topic[0].clone();
    let mut seeds: Vec<u32> = vec![];
    while seeds.len() < opts.seeds && !pool.is_empty() {
        let id = pool.swap_remove(rng.below(pool.len()));
        let host = pages[id as usize].host;
        if seeds.iter().all(|&s| pages[s as usize].host != host) || pool.len() < opts.seeds {
            seeds.push(id);
        }
    }
    seeds.sort_unstable();
    let on = web_pages.iter().filter(|p| p.on_topic).count();
    Web {
        description: format!(
            "synthetic web (seed {}): {} pages on {hosts} hosts, {topics} topics, {on} pages \
             about {}, locality {}%, {} seeds",
            opts.seed,
            web_pages.len(),
            TOPICS[0].name,
            opts.locality,
            seeds.len()
        ),
        pages: web_pages,
        seeds,
        topic: RawTopic {
            keywords: TOPICS[0].words[..4].iter().map(|w| w.to_string()).collect(),
            languages: vec!["en".into()],
            ..RawTopic::default()
        },
    }
}

fn capitalised(out: &mut String, word: &str) {
    let mut chars = word.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_uppercase());
        out.push_str(chars.as_str());
    }
}

fn title(rng: &mut Rng, kind: Kind, topic: Option<usize>) -> String {
    let mut t = String::new();
    let words = topic.map_or(GENERAL, |t| TOPICS[t].words);
    for i in 0..rng.range(2, 3) {
        if i > 0 {
            t.push(' ');
        }
        capitalised(&mut t, rng.pick(words));
    }
    match kind {
        Kind::Hub => t.push_str(" Resources"),
        Kind::Bridge => t.push_str(" Directory"),
        Kind::Home => t.push_str(" Home"),
        Kind::Article | Kind::Boilerplate => {}
    }
    t
}

/// Appends a sentence about `topic` (general text when `None`).
fn sentence(rng: &mut Rng, topic: Option<usize>, out: &mut String) {
    let n = rng.range(8, 16);
    for i in 0..n {
        let r = rng.below(100);
        let word = if r < 30 {
            rng.pick(GLUE)
        } else if let (Some(t), true) = (topic, r < 58) {
            rng.pick(TOPICS[t].words)
        } else if r < 62 || (topic.is_none() && r < 66) {
            let other = rng.below(TOPICS.len());
            rng.pick(TOPICS[other].words)
        } else {
            rng.pick(GENERAL)
        };
        if i == 0 {
            capitalised(out, word);
        } else {
            out.push(' ');
            out.push_str(word);
        }
    }
    out.push_str(". ");
}

struct Graph<'a> {
    pages: &'a [Page],
    by_topic: &'a [Vec<u32>],
    by_host: &'a [Vec<u32>],
    locality: usize,
}

impl Graph<'_> {
    fn target(&self, rng: &mut Rng, from: usize) -> usize {
        let p = &self.pages[from];
        let stay = match p.kind {
            Kind::Bridge | Kind::Boilerplate => 0,
            Kind::Hub => 90,
            Kind::Home | Kind::Article => self.locality,
        };
        if let (Some(t), true) = (p.topic, rng.chance(stay)) {
            let same_host: Vec<u32> = if p.kind != Kind::Hub && rng.chance(50) {
                self.by_host[p.host]
                    .iter()
                    .copied()
                    .filter(|&i| self.pages[i as usize].topic == Some(t))
                    .collect()
            } else {
                vec![]
            };
            let pool = if same_host.len() > 1 {
                &same_host
            } else {
                &self.by_topic[t]
            };
            return pool[rng.below(pool.len())] as usize;
        }
        rng.below(self.pages.len())
    }

    fn anchor(&self, rng: &mut Rng, to: usize, out: &mut String) {
        if rng.chance(65) {
            let words: Vec<&str> = self.pages[to].title.split(' ').collect();
            let n = rng.range(2, 3).min(words.len());
            out.push_str(&words[..n].join(" "));
        } else {
            out.push_str(rng.pick(GENERIC_ANCHORS));
        }
    }

    /// The link to `to`, with (half the time) a few words about its topic before it.
    fn link(&self, rng: &mut Rng, to: usize, out: &mut String) {
        if let (Some(t), true) = (self.pages[to].topic, rng.chance(50)) {
            out.push_str(" More on ");
            out.push_str(rng.pick(TOPICS[t].words));
            out.push_str(" and ");
            out.push_str(rng.pick(TOPICS[t].words));
            out.push(':');
        }
        let _ = write!(out, " <a href=\"{}\">", self.pages[to].url);
        self.anchor(rng, to, out);
        out.push_str("</a>");
    }

    fn html(&self, rng: &mut Rng, id: usize) -> String {
        let p = &self.pages[id];
        let mut h = String::with_capacity(4096);
        let _ = write!(
            h,
            "<!doctype html>\n<html lang=\"en\"><head><title>{}</title></head><body>\n<nav>",
            p.title
        );
        let host_pages = &self.by_host[p.host];
        let _ = write!(
            h,
            "<a href=\"{}\">Home</a>",
            self.pages[host_pages[0] as usize].url
        );
        for (k, name) in ["About us", "Contact"].iter().enumerate() {
            if let Some(&to) = host_pages.get(k + 1) {
                if self.pages[to as usize].kind == Kind::Boilerplate {
                    let _ = write!(h, " <a href=\"{}\">{name}</a>", self.pages[to as usize].url);
                }
            }
        }
        for _ in 0..2 {
            let to = host_pages[rng.below(host_pages.len())] as usize;
            let _ = write!(
                h,
                " <a href=\"{}\">{}</a>",
                self.pages[to].url,
                rng.pick(NAV_ANCHORS)
            );
        }
        let _ = write!(h, "</nav>\n<h1>{}</h1>\n", p.title);
        let (links, paragraphs) = match p.kind {
            Kind::Home => (rng.range(6, 12), rng.range(1, 2)),
            Kind::Boilerplate => (rng.range(0, 2), rng.range(1, 2)),
            Kind::Article => (rng.range(3, 8), rng.range(3, 6)),
            Kind::Hub => (rng.range(15, 30), 1),
            Kind::Bridge => (rng.range(10, 20), 1),
        };
        for _ in 0..paragraphs {
            h.push_str("<p>");
            for _ in 0..rng.range(2, 4) {
                sentence(rng, p.topic, &mut h);
            }
            h.push_str("</p>\n");
        }
        let list = matches!(p.kind, Kind::Hub | Kind::Bridge);
        if list {
            h.push_str("<ul>\n");
        }
        for _ in 0..links {
            let to = self.target(rng, id);
            h.push_str(if list { "<li>" } else { "<p>" });
            if !list {
                sentence(rng, p.topic, &mut h);
            }
            self.link(rng, to, &mut h);
            h.push_str(if list { "</li>\n" } else { "</p>\n" });
        }
        if list {
            h.push_str("</ul>\n");
        }
        h.push_str("<footer>");
        sentence(rng, None, &mut h);
        h.push_str("</footer>\n</body></html>\n");
        h
    }
}
