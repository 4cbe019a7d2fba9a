//! `magpie kb check` and `magpie kb detect`: the JSON output contract, and errors as one line
//! naming file, line and reason.

use std::path::PathBuf;
use std::process::{Command, Output};

fn magpie(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run magpie")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn fixture(p: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kb")
        .join(p)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn kb_check_validates_the_shipped_knowledge_base() {
    let o = magpie(&["kb", "check"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("12 applications: ok"), "{out}");
    assert!(out.contains("phpbb (forum"), "{out}");
}

#[test]
fn kb_check_reports_a_bad_file_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.xml"),
        "<application id=\"x\" name=\"X\" category=\"forum\">\n  <detect>\n    <xpath expr=\"//div[@class='a'\"/>\n  </detect>\n</application>\n",
    )
    .unwrap();
    let o = magpie(&["kb", "check", dir.path().to_str().unwrap()]);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("bad.xml:3: bad XPath"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn kb_detect_json_follows_the_contract() {
    let url = "https://forum.example.org/viewtopic.php?t=1";
    let o = magpie(&[
        "kb",
        "detect",
        &fixture("phpbb/topic.html"),
        "--url",
        url,
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 5);
    for k in ["url", "application", "level", "objects", "links"] {
        assert!(keys.contains(&k), "{k} missing: {out}");
    }
    // Printed in the documented order.
    let pos = |k: &str| out.find(&format!("\"{k}\"")).unwrap();
    assert!(pos("url") < pos("application") && pos("application") < pos("level"));
    assert!(pos("level") < pos("objects") && pos("objects") < pos("links"));
    assert_eq!(v["url"], url);
    assert_eq!(
        v["application"],
        serde_json::json!({"name": "phpbb", "category": "forum", "relaxed": false})
    );
    assert_eq!(
        v["level"],
        serde_json::json!({"name": "topic", "kind": "terminal", "relaxed": false})
    );
    let first = &v["objects"][0];
    assert_eq!(first["type"], "post");
    assert_eq!(first["fields"]["author"], "admin");
    assert_eq!(
        first["fields"]["body"],
        "This is an example post in your phpBB3 installation. Everything seems to be working."
    );
    let links = v["links"].as_array().unwrap();
    assert!(!links.is_empty());
    for l in links {
        let action = l["action"].as_str().unwrap();
        assert!(
            ["follow", "boost", "skip", "defer"].contains(&action),
            "{l}"
        );
        assert!(l["url"].as_str().unwrap().starts_with("https://"), "{l}");
        assert!(!l["rule"].as_str().unwrap().is_empty());
    }
    let login = links
        .iter()
        .find(|l| l["url"].as_str().unwrap().contains("mode=login"))
        .unwrap();
    assert_eq!(login["action"], "skip");
    assert_eq!(login["rule"], "phpbb/*/login");
    let next = links
        .iter()
        .find(|l| l["url"].as_str().unwrap().contains("start=10"))
        .unwrap();
    assert_eq!(next["action"], "boost");
    assert_eq!(next["rule"], "phpbb/topic/next-page");
}

#[test]
fn kb_detect_on_an_unknown_page_claims_no_application() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("plain.html");
    std::fs::write(
        &page,
        "<html><body><p>Hello</p><a href='/x'>x</a></body></html>",
    )
    .unwrap();
    let o = magpie(&[
        "kb",
        "detect",
        page.to_str().unwrap(),
        "--url",
        "https://plain.example/",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // No application claimed; the page's structure is read all the same.
    assert!(v["application"].is_null(), "{v}");
    assert!(v["level"]["kind"].is_string(), "{v}");
    assert_eq!(
        v["links"],
        serde_json::json!([{"url": "https://plain.example/x", "action": "follow", "rule": "default"}])
    );
}

#[test]
fn kb_detect_prints_a_readable_report() {
    let o = magpie(&[
        "kb",
        "detect",
        &fixture("wordpress/post.html"),
        "--url",
        "https://blog.example.org/2024/05/14/hello-world/",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("application: wordpress (blog)"), "{out}");
    assert!(out.contains("level: post (terminal)"), "{out}");
    assert!(out.contains("title: Hello world!"), "{out}");
    assert!(out.contains("[wordpress/*/login]"), "{out}");
}

#[test]
fn kb_detect_names_a_missing_file() {
    let o = magpie(&[
        "kb",
        "detect",
        "no-such-page.html",
        "--url",
        "https://x.example/",
    ]);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("no-such-page.html"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn outside_the_source_tree_the_tools_use_the_built_in_knowledge_base() {
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_magpie"))
            .args(args)
            .current_dir(elsewhere.path())
            .output()
            .expect("run magpie")
    };
    let o = run(&["kb", "check"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("built-in knowledge base: 12 applications: ok"),
        "{}",
        text(&o.stdout)
    );
    let o = run(&[
        "kb",
        "detect",
        "--json",
        "--url",
        "https://blog.example.org/2024/05/14/hello-world/",
        &fixture("wordpress/post.html"),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["application"]["name"], "wordpress");
    // A folder named on the command line must exist: no silent fallback.
    let o = run(&["kb", "check", "no-such-kb"]);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("no-such-kb"), "{err}");
    assert_eq!(err.matches("os error").count(), 1, "the cause once: {err}");
}

/// A reader that stops early (`magpie kb detect --pages LIST | head`) ends the command quietly:
/// no panic, no error, where `println!` would panic on the broken pipe.
#[test]
fn a_closed_standard_output_ends_the_command_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let real = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kb/real/trac");
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(real.join("truth.json")).unwrap()).unwrap();
    let mut list = String::new();
    for p in truth["pages"].as_array().unwrap() {
        let file = real.join(p["file"].as_str().unwrap());
        list.push_str(&format!(
            "{} {}\n",
            p["url"].as_str().unwrap(),
            file.display()
        ));
    }
    let list_file = dir.path().join("pages.txt");
    std::fs::write(&list_file, list).unwrap();
    // The report is far larger than a pipe holds (about 260 KB), so writing it meets the
    // closed pipe whenever the reader closes it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["kb", "detect", "--json", "--pages"])
        .arg(&list_file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?}: {err}", out.status);
}
