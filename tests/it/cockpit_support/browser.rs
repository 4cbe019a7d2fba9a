//! A headless Chromium driven through chromedriver (WebDriver), for the cockpit's end-to-end
//! tests. Without chromedriver the tests are skipped with a message, unless
//! `MAGPIE_REQUIRE_BROWSER=1` (set by CI), which makes its absence a failure.

use fantoccini::{Client, ClientBuilder};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running chromedriver and a session in a fresh Chromium profile; both end on drop.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
}

/// Starts chromedriver and Chromium; `None` (after saying why) when they are not installed and
/// the browser is not required.
pub async fn start() -> Option<Browser> {
    let required = std::env::var("MAGPIE_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let driver = find(&["chromedriver"]);
    let chrome = find(&["chromium", "chromium-browser", "google-chrome"]);
    let (Some(driver), Some(chrome)) = (driver, chrome) else {
        assert!(
            !required,
            "MAGPIE_REQUIRE_BROWSER=1 but chromedriver or chromium is not on PATH \
             (Debian: apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "SKIPPED: browser test needs chromedriver and chromium on PATH \
             (Debian: apt-get install chromium chromium-driver)"
        );
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let child = Command::new(&driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let profile = tempfile::tempdir().expect("profile dir");
    let caps = serde_json::json!({
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": chrome,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1280,1000",
                format!("--user-data-dir={}", profile.path().display()),
            ]
        }
    });
    let caps = match caps {
        serde_json::Value::Object(m) => m,
        _ => unreachable!(),
    };
    let url = format!("http://127.0.0.1:{port}");
    let mut last = String::new();
    for _ in 0..100 {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&url)
            .await
        {
            Ok(client) => {
                // Element look-ups retry for a while, so a page still loading after a click
                // is waited for instead of failing the test.
                let timeouts = fantoccini::wd::TimeoutConfiguration::new(
                    None,
                    Some(Duration::from_secs(30)),
                    Some(Duration::from_secs(5)),
                );
                client
                    .update_timeouts(timeouts)
                    .await
                    .expect("set timeouts");
                return Some(Browser {
                    client,
                    driver: child,
                    _profile: profile,
                });
            }
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "cannot start a Chromium session through {}: {last}",
        driver.display()
    );
}

impl Browser {
    /// Saves a screenshot to `docs/screenshots/NAME.png` when `MAGPIE_SCREENSHOTS=1`.
    pub async fn screenshot(&self, name: &str) {
        if std::env::var("MAGPIE_SCREENSHOTS").is_ok_and(|v| v == "1") {
            let png = self.client.screenshot().await.expect("screenshot");
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots");
            std::fs::create_dir_all(&dir).expect("screenshot dir");
            std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
        }
    }

    /// Ends the session and the driver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
    }
}
