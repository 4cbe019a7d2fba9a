//! pywb, the independent replay tool, driven as a user would: `wb-manager` collections and a
//! `wayback` server on a free loopback port, stopped on drop.

use super::client;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether pywb can run. Without it this fails when `MAGPIE_REQUIRE_PYWB=1` (as in CI), and
/// otherwise only prints a note.
pub fn available() -> bool {
    let ok = Command::new("wb-manager")
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        if std::env::var("MAGPIE_REQUIRE_PYWB").as_deref() == Ok("1") {
            panic!("pywb is required (MAGPIE_REQUIRE_PYWB=1) but wb-manager cannot run");
        }
        eprintln!("note: pywb not available; replay test skipped");
    }
    ok
}

/// Runs `wb-manager ARGS` in `root`, failing the test with its output if it fails.
pub fn wb_manager(root: &Path, args: &[&str]) {
    let out = Command::new("wb-manager")
        .args(args)
        .current_dir(root)
        .output()
        .expect("wb-manager runs");
    assert!(
        out.status.success(),
        "wb-manager {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `wb-manager init NAME` in `root`; returns the collection's folder (with `archive/` and
/// `indexes/`), for tests that place files there themselves.
pub fn init_collection(root: &Path, name: &str) -> PathBuf {
    wb_manager(root, &["init", name]);
    root.join("collections").join(name)
}

/// A collection made the standard way: `wb-manager init NAME`, then `wb-manager add NAME
/// FILES` (pywb indexes the files itself). Returns the collection's folder.
pub fn collection(root: &Path, name: &str, files: &[PathBuf]) -> PathBuf {
    init_collection(root, name);
    let mut args = vec!["add".to_string(), name.to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    wb_manager(root, &args);
    root.join("collections").join(name)
}

/// A running `wayback` serving the collections under `root`.
pub struct Wayback {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Wayback {
    /// Starts `wayback` in `root` and waits until it accepts connections.
    pub fn start(root: &Path) -> Wayback {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("wayback")
            .args(["-p", &port.to_string(), "-b", "127.0.0.1"])
            .current_dir(root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start wayback");
        let w = Wayback {
            child,
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
        };
        let t0 = Instant::now();
        while TcpStream::connect(w.addr).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "wayback did not start"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        w
    }

    /// GETs a path; returns status and body (de-chunked).
    pub fn get(&self, path: &str) -> (u16, Vec<u8>) {
        let req = format!(
            "GET {path} HTTP/1.0\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        );
        let r = client::parse(client::send(self.addr, req.as_bytes()).unwrap());
        let body = if r
            .header("transfer-encoding")
            .is_some_and(|v| v.contains("chunked"))
        {
            client::dechunk(&r.body).0
        } else {
            r.body
        };
        (r.status, body)
    }

    /// The payload pywb replays for `url` at `timestamp` (14 digits) in identity mode.
    pub fn replay_id(&self, coll: &str, timestamp: &str, url: &str) -> (u16, Vec<u8>) {
        self.get(&format!("/{coll}/{timestamp}id_/{url}"))
    }
}

impl Drop for Wayback {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `WARC-Date` as the 14-digit timestamp of replay URLs.
pub fn timestamp14(warc_date: &str) -> String {
    warc_date
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect()
}
