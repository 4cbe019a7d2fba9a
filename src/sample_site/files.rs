//! The sample web written out as static files, so any web server (nginx in the peer benchmark,
//! `tests/bench/peers.py`) can serve the very bytes the built-in server does, and other
//! crawlers can be measured on the same web.

use super::content::{Resource, Site, IMAGE_COUNT, STYLE_CSS};
use super::{host_ip, validate, SiteConfig};
use std::fs;
use std::io;
use std::net::SocketAddr;
use std::path::Path;

/// What [`write_files`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// HTML pages, over all hosts.
    pub pages: usize,
    /// Files of any kind (pages, robots.txt, sitemap.xml, style.css, images).
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
}

/// Writes every resource of the sample web `cfg` for hosts on 127.0.0.2, 127.0.0.3, ... at
/// `port` into `dir/<ip>/`: `index.html` for `/`, `<topic>/<n>.html`, `robots.txt`,
/// `sitemap.xml`, `style.css` and `img/<n>.png`. Links between hosts name `<ip>:<port>`, so a
/// server must listen there for the web to be whole.
pub fn write_files(cfg: &SiteConfig, port: u16, dir: &Path) -> io::Result<Written> {
    validate(cfg)?;
    let addrs = (0..cfg.hosts)
        .map(|i| host_ip(i).map(|ip| SocketAddr::from((ip, port))))
        .collect::<io::Result<Vec<_>>>()?;
    let site = Site::new(cfg, &addrs);
    let mut done = Written {
        pages: 0,
        files: 0,
        bytes: 0,
    };
    let mut text = String::new();
    let mut path = String::new();
    for (host, addr) in addrs.iter().enumerate() {
        let root = dir.join(addr.ip().to_string());
        let mut put = |name: &str, bytes: &[u8]| -> io::Result<()> {
            let file = root.join(name.trim_start_matches('/'));
            let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", file.display()));
            if let Some(parent) = file.parent() {
                fs::create_dir_all(parent).map_err(named)?;
            }
            fs::write(&file, bytes).map_err(named)?;
            done.files += 1;
            done.bytes += bytes.len() as u64;
            Ok(())
        };
        for page in 0..cfg.pages_per_host {
            path.clear();
            site.push_path(host, page, &mut path);
            // The path resolves back to this page: the file is what the built-in server sends.
            debug_assert_eq!(site.resolve(host, &path), Resource::Page(page));
            text.clear();
            site.render_page(host, page, &mut text);
            let name = if page == 0 { "index.html" } else { &path };
            put(name, text.as_bytes())?;
        }
        text.clear();
        site.render_robots(host, &mut text);
        put("robots.txt", text.as_bytes())?;
        text.clear();
        site.render_sitemap(host, &mut text);
        put("sitemap.xml", text.as_bytes())?;
        put("style.css", STYLE_CSS.as_bytes())?;
        for n in 0..IMAGE_COUNT {
            put(&format!("img/{n}.png"), site.image(n))?;
        }
        done.pages += cfg.pages_per_host;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written web is whole: every link and image of every page names a written file, on
    /// its own host or another one at the same port, and every page is reachable from `/`.
    #[test]
    fn every_link_resolves_to_a_written_file() {
        let cfg = SiteConfig {
            hosts: 3,
            pages_per_host: 25,
            min_page_bytes: 4096,
            max_page_bytes: 6000,
            seed: 11,
            robots_delay: None,
        };
        let dir = tempfile::tempdir().expect("temporary folder");
        let w = write_files(&cfg, 8087, dir.path()).expect("written");
        assert_eq!(w.pages, 75);
        assert_eq!(w.files, 3 * (25 + 3 + IMAGE_COUNT));
        let link = regex::Regex::new(r#"(?:href|src)="([^"]+)""#).expect("regex");
        let file_of = |host: &str, path: &str| {
            let name = if path == "/" {
                "index.html"
            } else {
                &path[1..]
            };
            dir.path().join(host).join(name)
        };
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![("127.0.0.2".to_string(), "/".to_string())];
        while let Some((host, path)) = todo.pop() {
            if !seen.insert((host.clone(), path.clone())) {
                continue;
            }
            let text = fs::read_to_string(file_of(&host, &path)).expect("a page");
            for m in link.captures_iter(&text) {
                let target = &m[1];
                let (h, p) = match target.strip_prefix("http://") {
                    Some(rest) => {
                        let (authority, p) = rest.split_once('/').expect("a path");
                        let (h, port) = authority.split_once(':').expect("a port");
                        assert_eq!(port, "8087", "{target}");
                        (h.to_string(), format!("/{p}"))
                    }
                    None => (host.clone(), target.to_string()),
                };
                assert!(file_of(&h, &p).is_file(), "{target} on {host}{path}");
                if p.ends_with(".html") || p == "/" {
                    todo.push((h, p));
                }
            }
        }
        let pages = seen
            .iter()
            .filter(|(_, p)| p.ends_with(".html") || p == "/")
            .count();
        assert_eq!(
            pages, 75,
            "every page is reachable from the first host's root"
        );
        assert!(write_files(&cfg, 8087, &dir.path().join("127.0.0.2/index.html")).is_err());
    }
}
