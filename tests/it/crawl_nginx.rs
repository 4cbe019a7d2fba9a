//! A `magpie crawl` process against a real server: nginx (Debian's package) serving three
//! loopback hosts with keep-alive on. The crawl must reuse connections (nginx's own log says
//! how many requests each connection carried), and still record every exchange exactly: each
//! response body equals the file nginx served, and `warcio check` accepts the archive.
//!
//! Without nginx it only prints a note, unless `MAGPIE_REQUIRE_NGINX=1` (as in CI).

use crate::support;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::harness::{records, sha1_label, warc_files, warcio_check};

const HOSTS: [&str; 3] = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];

fn nginx() -> Option<PathBuf> {
    let found = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        if std::env::var("MAGPIE_REQUIRE_NGINX").as_deref() == Ok("1") {
            panic!("nginx is required (MAGPIE_REQUIRE_NGINX=1) but is not installed");
        }
        eprintln!("note: nginx not installed; test skipped");
    }
    found
}

/// The site: per host an index linking ten pages and the next host, a large page, an empty
/// file and a missing page. Returns every path nginx will serve, with its bytes.
fn write_site(root: &Path, port: u16) -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    for (i, host) in HOSTS.iter().enumerate() {
        let next = HOSTS[(i + 1) % HOSTS.len()];
        let mut index = String::from("<html><head><title>index</title></head><body>");
        for p in 0..10 {
            index.push_str(&format!("<p><a href=\"/p{p}.html\">page {p}</a></p>"));
        }
        index.push_str(&format!(
            "<a href=\"http://{next}:{port}/\">next</a> <a href=\"/big.html\">big</a> \
             <a href=\"/empty.txt\">empty</a> <a href=\"/missing.html\">gone</a></body></html>"
        ));
        let mut site: Vec<(String, Vec<u8>)> = vec![
            ("/index.html".into(), index.into_bytes()),
            ("/robots.txt".into(), b"User-agent: *\nAllow: /\n".to_vec()),
            ("/empty.txt".into(), Vec::new()),
            (
                "/big.html".into(),
                format!(
                    "<html><body>{}</body></html>",
                    "<p>words words</p>\n".repeat(12_000)
                )
                .into_bytes(),
            ),
        ];
        for p in 0..10 {
            let page =
                format!("<html><body><h1>{host} page {p}</h1><a href=\"/\">home</a></body></html>");
            site.push((format!("/p{p}.html"), page.into_bytes()));
        }
        for (path, bytes) in site {
            let file = root.join(host).join(path.trim_start_matches('/'));
            std::fs::create_dir_all(file.parent().expect("parent")).expect("site dir");
            std::fs::write(&file, &bytes).expect("site file");
            let url_path = if path == "/index.html" {
                "/".to_string()
            } else {
                path
            };
            files.insert(format!("http://{host}:{port}{url_path}"), bytes);
        }
    }
    files
}

fn write_conf(dir: &Path, site: &Path, port: u16) -> PathBuf {
    let ng = dir.join("nginx");
    std::fs::create_dir_all(ng.join("tmp")).expect("nginx dir");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n");
    let user = if root.unwrap_or(false) {
        "user root root;\n"
    } else {
        ""
    };
    let servers: String = HOSTS
        .iter()
        .map(|h| {
            let root = site.join(h);
            format!(
                "  server {{ listen {h}:{port}; server_name {h}; root {}; index index.html; }}\n",
                root.display()
            )
        })
        .collect();
    let temps: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
        .iter()
        .map(|k| format!("  {k}_temp_path {}/tmp/{k};\n", ng.display()))
        .collect();
    let ngd = ng.display();
    let conf = format!(
        "{user}worker_processes 1;\npid {ngd}/nginx.pid;\nerror_log {ngd}/error.log warn;\n\
         events {{ worker_connections 256; }}\nhttp {{\n\
         types {{ text/html html; text/plain txt; }}\n\
         log_format conns '$connection $connection_requests $status $http_host $request_uri';\n\
         access_log {ngd}/access.log conns;\n{temps}  keepalive_timeout 30;\n{servers}}}\n"
    );
    let path = ng.join("nginx.conf");
    std::fs::write(&path, conf).expect("nginx.conf");
    path
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind((HOSTS[0], 0)).expect("bind");
    l.local_addr().expect("addr").port()
}

struct Nginx {
    bin: PathBuf,
    conf: PathBuf,
    prefix: PathBuf,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new(&self.bin)
            .arg("-c")
            .arg(&self.conf)
            .arg("-p")
            .arg(&self.prefix)
            .args(["-s", "stop"])
            .stderr(std::process::Stdio::null())
            .status();
    }
}

#[test]
fn a_crawl_of_nginx_reuses_connections_and_records_every_exchange_exactly() {
    let Some(bin) = nginx() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let port = free_port();
    let files = write_site(&dir.path().join("site"), port);
    let conf = write_conf(dir.path(), &dir.path().join("site"), port);
    let prefix = conf.parent().expect("prefix").to_path_buf();
    let started = Command::new(&bin)
        .arg("-c")
        .arg(&conf)
        .arg("-p")
        .arg(&prefix)
        .status()
        .expect("nginx runs");
    assert!(started.success(), "nginx started");
    let _nginx = Nginx {
        bin,
        conf,
        prefix: prefix.clone(),
    };

    let spec = serde_json::json!({
        "name": "nginx",
        "seeds": [format!("http://{}:{port}/", HOSTS[0])],
        "scope": {
            "allow": [format!("^http://127\\.0\\.0\\.[234]:{port}/")],
            "sitemaps": false
        },
        "politeness": { "min_delay_ms": 0, "max_delay_ms": 0, "delay_factor": 0.0 },
        "network": { "allow_private": true }
    });
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, spec.to_string()).expect("spec");
    let data = dir.path().join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .arg("crawl")
        .arg(&spec_path)
        .arg("--data")
        .arg(&data)
        .output()
        .expect("magpie runs");
    assert!(
        out.status.success(),
        "crawl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // nginx's view: every path asked once, over fewer connections than requests.
    let log = std::fs::read_to_string(prefix.join("access.log")).expect("access log");
    let mut asked = HashSet::new();
    let mut conns = HashSet::new();
    let mut most = 0u32;
    for line in log.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 5, "log line {line}");
        conns.insert(f[0].to_string());
        most = most.max(f[1].parse().expect("connection_requests"));
        let url = format!("http://{}{}", f[3], f[4]);
        assert!(asked.insert(url.clone()), "{url} asked twice");
    }
    let expected: HashSet<String> = files
        .keys()
        .cloned()
        .chain(
            HOSTS
                .iter()
                .map(|h| format!("http://{h}:{port}/missing.html")),
        )
        .collect();
    assert_eq!(asked, expected, "nginx served exactly the site");
    assert!(
        conns.len() < asked.len() && most > 1,
        "connections were reused: {} requests over {} connections",
        asked.len(),
        conns.len()
    );

    // The archive's view: each response holds exactly what nginx served; a repeated payload
    // (the same robots.txt on every host) is a revisit naming the same digest.
    let recs = records(&data, "nginx");
    let mut seen = 0;
    for r in recs
        .iter()
        .filter(|r| r.kind == "response" || r.kind == "revisit")
    {
        let Some(bytes) = files.get(&r.uri) else {
            assert_eq!(r.http_status(), Some(404), "{}", r.uri);
            continue;
        };
        assert_eq!(r.http_status(), Some(200), "{}", r.uri);
        assert_eq!(
            r.field("WARC-Payload-Digest"),
            Some(sha1_label(bytes).as_str()),
            "{}",
            r.uri
        );
        if r.kind == "response" {
            assert_eq!(r.http_body(), &bytes[..], "{}: body as served", r.uri);
        }
        seen += 1;
    }
    assert_eq!(seen, files.len(), "every file archived once");
    for r in recs.iter().filter(|r| r.kind == "request") {
        let head = String::from_utf8_lossy(&r.body);
        assert!(head.contains("\r\nConnection: keep-alive\r\n"), "{head}");
    }
    warcio_check(&warc_files(&data, "nginx"));
}
