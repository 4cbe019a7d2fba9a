//! pywb driven from tests: a collection folder made with `wb-manager init`, a `wayback`
//! server on a free loopback port (stopped on drop), and GETs of replay URLs.

use super::client;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `wayback`, stopped on drop.
pub struct Wayback {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Drop for Wayback {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `wb-manager init NAME` in `root`; returns the collection's folder (with `archive/` and
/// `indexes/`).
pub fn init_collection(root: &Path, name: &str) -> PathBuf {
    let st = Command::new("wb-manager")
        .args(["init", name])
        .current_dir(root)
        .output()
        .expect("run wb-manager");
    assert!(
        st.status.success(),
        "wb-manager init: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    root.join("collections").join(name)
}

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
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let w = Wayback { child, addr };
    let t0 = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "wayback did not start"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    w
}

impl Wayback {
    /// GETs a path; returns the status and the body (de-chunked).
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
}
