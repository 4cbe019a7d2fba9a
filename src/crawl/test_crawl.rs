//! Test support: writes WARC files exactly as the crawl engine does (records from
//! `crawl::records`, revisits for repeated payloads) and builds each capture's document the
//! way a live crawl would, so rebuilt indexes can be compared with live ones.

use super::dedup::Original;
use super::records;
use super::reindex::{wants_text, TextLimits};
use crate::archive::{self, WarcWriter, WriterConfig};
use crate::fetch::{entity_body, Fetched, Spool};
use crate::index::{CaptureDoc, Index, RevisitOf};
use crate::model::{CrawlUri, ExchangeInfo, Hop, Link};
use chrono::{DateTime, TimeZone, Utc};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A simulated crawl writing into `dir`.
pub(crate) struct SimCrawl {
    pub dir: PathBuf,
    w: Option<WarcWriter>,
    max_file_bytes: u64,
    originals: HashMap<String, Original>,
    /// Every capture's document as the live crawl would index it, in append order.
    pub live: Vec<CaptureDoc>,
    pub opts: TextLimits,
    clock: i64,
}

/// One exchange to archive.
pub(crate) struct Page<'a> {
    pub path: &'a str,
    pub status: u16,
    pub headers: &'a [(&'a str, &'a str)],
    pub body: Vec<u8>,
    pub hops: &'a str,
    pub links: Vec<(&'a str, Hop)>,
}

impl<'a> Page<'a> {
    pub fn html(path: &'a str, hops: &'a str, body: &str) -> Page<'a> {
        Page {
            path,
            status: 200,
            headers: &[("Content-Type", "text/html; charset=utf-8")],
            body: body.as_bytes().to_vec(),
            hops,
            links: Vec::new(),
        }
    }
}

pub(crate) const BASE: &str = "http://site.example";

impl SimCrawl {
    pub fn new(dir: &Path, max_file_bytes: u64) -> SimCrawl {
        let mut s = SimCrawl {
            dir: dir.to_path_buf(),
            w: None,
            max_file_bytes,
            originals: HashMap::new(),
            live: Vec::new(),
            opts: TextLimits::default(),
            clock: 0,
        };
        s.resume();
        s
    }

    /// Starts a new writer (as a restarted crawl does): a new file with the next serial.
    pub fn resume(&mut self) {
        let cfg = WriterConfig {
            dir: self.dir.clone(),
            prefix: "SIM".into(),
            max_file_bytes: self.max_file_bytes,
            gzip_level: 6,
            hostname: "test".into(),
            info_fields: vec![("isPartOf".into(), "sim".into())],
        };
        self.w = Some(WarcWriter::create(cfg).expect("writer"));
    }

    fn writer(&mut self) -> &mut WarcWriter {
        self.w.as_mut().expect("open writer")
    }

    /// Makes the file durable and returns the checkpoint, as the engine's commit does.
    pub fn checkpoint(&mut self) -> archive::Checkpoint {
        let w = self.writer();
        w.sync().expect("sync");
        w.checkpoint().expect("a file is open")
    }

    /// Seals the current file.
    pub fn close(&mut self) {
        if let Some(w) = self.w.take() {
            w.close().expect("close");
        }
    }

    /// Archives one exchange like the engine, returning the live document.
    pub fn archive(&mut self, p: Page) -> CaptureDoc {
        self.clock += 1_234_567;
        let started: DateTime<Utc> = Utc
            .with_ymd_and_hms(2026, 3, 4, 5, 6, 7)
            .single()
            .expect("time")
            + chrono::Duration::microseconds(self.clock);
        let url = format!("{BASE}{}", p.path);
        let mut raw = format!("HTTP/1.0 {} X\r\n", p.status).into_bytes();
        for (n, v) in p.headers {
            raw.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
        }
        raw.extend_from_slice(b"\r\n");
        let header_len = raw.len() as u64;
        raw.extend_from_slice(&p.body);
        let info = ExchangeInfo {
            url: url.clone(),
            ip: "127.0.0.1".parse().expect("ip"),
            started,
            duration_ms: 2,
            status: p.status,
            headers: p
                .headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            header_len,
            truncated: None,
            block_digest: archive::sha1_digest(&raw),
            payload_digest: archive::sha1_digest(&p.body),
        };
        let fetched = Fetched {
            info,
            request: format!("GET {} HTTP/1.0\r\nHost: site.example\r\n\r\n", p.path).into_bytes(),
            response: Spool::from_bytes(raw),
        };
        let links: Vec<Link> = p
            .links
            .iter()
            .map(|(u, hop)| Link {
                url: format!("{BASE}{u}"),
                hop: *hop,
                context: "a/@href".into(),
                text: String::new(),
                block: None,
            })
            .collect();
        let uri = CrawlUri {
            hops: p.hops.to_string(),
            source: "crawl".into(),
            ..CrawlUri::seed(url.clone())
        };
        let info_id = self.writer().warcinfo_id().to_string();
        let digest = fetched.info.payload_digest.clone();
        let dedup = (200..300).contains(&p.status);
        let original = self.originals.get(&digest).cloned().filter(|_| dedup);
        let enc = records::encode(
            records::capture_of(&fetched),
            &fetched,
            &uri,
            &links,
            None,
            original.as_ref(),
            &info_id,
            6,
        )
        .expect("encode");
        let page = wants_text(&fetched.info, p.hops).then(|| {
            let body = entity_body(&fetched, self.opts.max_decoded_bytes).expect("body");
            let base = url::Url::parse(&url).expect("url");
            crate::parse::html(
                &body.bytes,
                fetched.info.header("content-type"),
                fetched.info.header("content-language"),
                &base,
                &self.opts.parse,
            )
        });
        let doc = CaptureDoc::from_exchange(&fetched.info, page.as_ref(), &enc.record_id, p.hops);
        let w = self.w.as_mut().expect("writer");
        let loc = w.append(&enc.response).expect("append");
        let rest = w.append(&enc.request_and_metadata).expect("append");
        // The engine records the priority a URL was fetched with as its score.
        let revisit_of = original.map(RevisitOf::from);
        let doc = doc.finish(
            (&loc).into(),
            Some((&rest).into()),
            Some(uri.priority),
            revisit_of,
        );
        let doc = match &doc.revisit_of {
            Some(_) => doc,
            None => {
                if dedup {
                    let o = Original {
                        id: enc.record_id.clone(),
                        uri: url.clone(),
                        date: enc.date.clone(),
                    };
                    self.originals.insert(digest, o);
                }
                doc
            }
        };
        self.live.push(doc.clone());
        doc
    }

    /// A small site: robots.txt, a gzip-encoded home page in German with a stylesheet and an
    /// image, a page and its duplicate (a revisit), a 404, a sitemap served as HTML, and a page
    /// without a type.
    pub fn site(&mut self) {
        self.archive(Page {
            path: "/robots.txt",
            status: 200,
            headers: &[("Content-Type", "text/plain")],
            body: b"User-agent: *\nDisallow:\n".to_vec(),
            hops: "P",
            links: vec![],
        });
        let home = "<html lang=\"de-AT\"><head><title>Startseite</title>\
            <link rel=stylesheet href=/style.css></head><body><h1>Willkommen</h1>\
            <p>Der Wanderfalke jagt im Sturzflug.</p><img src=/logo.png>\
            <p><a href=/a.html>A</a></p></body></html>";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        std::io::Write::write_all(&mut gz, home.as_bytes()).expect("gzip");
        self.archive(Page {
            path: "/",
            status: 200,
            headers: &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
            body: gz.finish().expect("gzip"),
            hops: "",
            links: vec![
                ("/style.css", Hop::Embed),
                ("/logo.png", Hop::Embed),
                ("/a.html", Hop::Link),
            ],
        });
        self.archive(Page {
            path: "/style.css",
            status: 200,
            headers: &[("Content-Type", "text/css")],
            body: b"body { background: url(/bg.png) }".to_vec(),
            hops: "E",
            links: vec![("/bg.png", Hop::Embed)],
        });
        for (path, rgb) in [("/logo.png", 1u8), ("/bg.png", 2)] {
            self.archive(Page {
                path,
                status: 200,
                headers: &[("Content-Type", "image/png")],
                body: vec![0x89, b'P', b'N', b'G', rgb, 0, 0, 0],
                hops: if path == "/bg.png" { "EE" } else { "E" },
                links: vec![],
            });
        }
        let a = "<html><head><title>Page A</title></head><body><p>Owls &amp; falcons hunt.</p></body></html>";
        self.archive(Page::html("/a.html", "L", a));
        self.archive(Page::html("/copy.html", "LL", a));
        self.archive(Page {
            status: 404,
            ..Page::html(
                "/missing",
                "L",
                "<title>Not found</title><p>nothing here</p>",
            )
        });
        self.archive(Page::html(
            "/sitemap.xml",
            "M",
            "<title>Map</title><p>sitemap words</p>",
        ));
        self.archive(Page {
            headers: &[],
            ..Page::html("/untyped", "L", "<title>No type</title><p>plain words</p>")
        });
    }
}

/// Every capture document stored in `index`, sorted by record ID.
pub(crate) fn stored_docs(index: &Index) -> Vec<CaptureDoc> {
    index.capture_docs().expect("every capture")
}

/// `docs` sorted by record ID.
pub(crate) fn sorted(mut docs: Vec<CaptureDoc>) -> Vec<CaptureDoc> {
    docs.sort_by(|a, b| a.record_id.cmp(&b.record_id));
    docs
}
