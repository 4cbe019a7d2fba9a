//! The crawl resource over real HTTP: create, list, get, the lifecycle actions and their
//! 404/409 cases, bad specs naming their field, authentication, unknown routes, and crawl
//! states kept across a server restart.

use crate::cockpit_support;
use crate::web_support;

use serde_json::{json, Value};
use web_support::{black_hole, idle_spec, open_warcs, status_json, TestServer, TOKEN};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawls_move_through_their_lifecycle() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (_hole, seed) = black_hole();
    let spec = json!({
        "name": "life",
        "seeds": [seed],
        "network": { "allow_private": true },
        "limits": { "timeout_ms": 1500, "retry_delay_ms": 1000, "max_retries": 2 },
        "scope": { "sitemaps": false }
    });
    let resp = srv.post("/api/v1/crawls").json(&spec).send().await.unwrap();
    assert_eq!(resp.status(), 201);
    assert_eq!(resp.headers()["location"], "/api/v1/crawls/life");
    let (_, body) = status_json(resp).await;
    assert_eq!(body["id"], "life");
    assert_eq!(body["warnings"], json!([]), "its seed can be fetched");

    let (status, dup) = srv.post_json("/api/v1/crawls", &spec).await;
    assert_eq!(
        (status, dup["code"].as_str()),
        (409, Some("exists")),
        "{dup}"
    );

    let (status, list) = srv.get_json("/api/v1/crawls").await;
    assert_eq!(status, 200);
    let crawls = list["crawls"].as_array().unwrap();
    assert_eq!(crawls.len(), 1);
    assert_eq!(crawls[0]["id"], "life");
    assert_eq!(crawls[0]["state"], "created");
    assert_eq!(crawls[0]["stats"]["pages_fetched"], 0);
    // Nothing is opened before the crawl starts: its folder holds its spec and status only.
    let mut files: Vec<String> = std::fs::read_dir(dir.path().join("life"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["spec.json", "status.json"]);
    assert_eq!(crawls[0]["stats"]["urls_queued"], 0, "no frontier yet");

    let one = srv.crawl("life").await;
    assert_eq!(
        one["spec"]["limits"]["max_pages"], 10_000,
        "defaults filled in"
    );
    assert_eq!(one["spec"]["frontier"]["update"], "avg");

    for action in ["pause", "resume"] {
        let (status, body) = srv.action("life", action).await;
        assert_eq!(status, 409, "{action} a created crawl: {body}");
        assert_eq!(body["code"], "wrong-state");
        assert_eq!(body["state"], "created");
    }
    assert_eq!(
        srv.action("life", "start").await,
        (200, json!({"id": "life", "state": "running"}))
    );
    assert_eq!(
        srv.action("life", "start").await.0,
        200,
        "starting a running crawl is harmless"
    );
    assert_eq!(
        srv.action("life", "pause").await,
        (200, json!({"id": "life", "state": "paused"}))
    );
    assert_eq!(srv.crawl("life").await["state"], "paused");
    assert_eq!(
        srv.action("life", "pause").await.0,
        409,
        "pause a paused crawl"
    );
    assert_eq!(
        srv.action("life", "resume").await,
        (200, json!({"id": "life", "state": "running"}))
    );

    let (status, body) = srv.action("life", "stop").await;
    assert_eq!(
        (status, &body["state"]),
        (200, &json!("finished")),
        "{body}"
    );
    assert!(
        open_warcs(dir.path(), "life").is_empty(),
        "WARC files sealed"
    );
    let status_file: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("life/status.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(status_file["state"], "finished");
    assert_eq!(
        srv.action("life", "stop").await.0,
        200,
        "stopping a finished crawl is harmless"
    );
    assert_eq!(srv.action("life", "pause").await.0, 409);
    let (status, body) = srv.get_json("/api/v1/crawls/life/frontier").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("wrong-state")),
        "{body}"
    );

    assert_eq!(
        srv.action("life", "start").await.1["state"],
        "running",
        "a finished crawl runs again"
    );
    let (status, body) = srv.action("life", "stop").await;
    assert_eq!(
        (status, &body["state"]),
        (200, &json!("finished")),
        "{body}"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_specs_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let cases = [
        (
            json!({"name": "x", "seeds": ["ftp://example.org/"]}),
            "seeds[0]",
            "not an http(s) URL",
        ),
        (
            json!({"name": "x", "seeds": ["http://a.org/"], "limits": {"max_pages": "many"}}),
            "limits.max_pages",
            "invalid type",
        ),
        (
            json!({"name": "../x", "seeds": ["http://a.org/"]}),
            "name",
            "letters",
        ),
        (json!({"name": "x", "seeds": []}), "seeds", "at least one"),
        (
            json!({"name": "api-token", "seeds": ["http://a.org/"]}),
            "name",
            "is reserved: DIR/api-token holds the server's API token",
        ),
        (
            json!({"name": "x", "seeds": ["http://a.org/"], "frontier": {"update": "median"}}),
            "frontier.update",
            "unknown variant",
        ),
        (
            json!({"name": "x", "seeds": ["http://a.org/"], "scope": {"deny": ["(["]}}),
            "scope.deny[0]",
            "regex",
        ),
    ];
    for (spec, field, needle) in cases {
        let (status, body) = srv.post_json("/api/v1/crawls", &spec).await;
        assert_eq!(status, 400, "{spec}: {body}");
        assert_eq!(body["code"], "invalid-spec");
        assert_eq!(body["field"], field, "{body}");
        assert!(body["error"].as_str().unwrap().contains(needle), "{body}");
    }
    let resp = srv
        .post("/api/v1/crawls")
        .body("{\"name\": \"x\",\n \"seeds\": [")
        .send()
        .await
        .unwrap();
    let (status, body) = status_json(resp).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("line 2"), "{body}");
    let resp = srv
        .post("/api/v1/crawls")
        .body(r#"{"name": "x", "seeds": ["http://a.org/"]} trailing"#)
        .send()
        .await
        .unwrap();
    let (status, body) = status_json(resp).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "invalid-spec");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("text after the spec's JSON object (trailing characters"),
        "{body}"
    );
    let resp = srv
        .post("/api/v1/crawls")
        .body(vec![0xff, 0xfe])
        .send()
        .await
        .unwrap();
    assert_eq!(status_json(resp).await.0, 400, "not UTF-8");
    let resp = srv
        .post("/api/v1/crawls")
        .body(vec![b' '; 2 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(status_json(resp).await.0, 413, "a spec over 1 MiB");
    assert_eq!(
        srv.get_json("/api/v1/crawls").await.1,
        json!({"crawls": [], "unopened": []}),
        "nothing created"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "no folder created"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_crawls_and_routes() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    for path in [
        "/api/v1/crawls/nope",
        "/api/v1/crawls/nope/frontier",
        "/api/v1/crawls/nope/events",
    ] {
        let (status, body) = srv.get_json(path).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (404, Some("not-found")),
            "{path}: {body}"
        );
        assert!(body["error"].as_str().unwrap().contains("nope"));
    }
    for action in ["start", "pause", "resume", "stop"] {
        assert_eq!(srv.action("nope", action).await.0, 404, "{action}");
    }
    let (status, body) = srv.get_json("/api/v1/nothing").await;
    assert_eq!((status, body["code"].as_str()), (404, Some("no-route")));
    let resp = srv
        .client
        .delete(srv.url("/api/v1/crawls"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "GET, POST");
    let resp = srv.get("/api/v1/crawls/x/start").send().await.unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "POST");
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changes_need_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = idle_spec("auth");
    let no_token = srv
        .client
        .post(srv.url("/api/v1/crawls"))
        .json(&spec)
        .send()
        .await
        .unwrap();
    assert_eq!(no_token.status(), 401);
    assert_eq!(
        no_token.headers()["www-authenticate"],
        "Bearer realm=\"magpie\""
    );
    assert_eq!(status_json(no_token).await.1["code"], "unauthorized");
    let wrong = srv
        .client
        .post(srv.url("/api/v1/crawls"))
        .bearer_auth("test-token-0123456789abcdeX")
        .json(&spec);
    assert_eq!(wrong.send().await.unwrap().status(), 401);
    let basic = srv
        .client
        .post(srv.url("/api/v1/crawls"))
        .header("Authorization", format!("Basic {TOKEN}"));
    assert_eq!(basic.json(&spec).send().await.unwrap().status(), 401);
    let urls = srv.client.post(srv.url("/api/v1/urls")).body("{}");
    assert_eq!(urls.send().await.unwrap().status(), 401);
    assert_eq!(
        srv.get_json("/api/v1/crawls").await,
        (200, json!({"crawls": [], "unopened": []})),
        "reads are open on loopback"
    );
    srv.create(&spec).await;
    let start = srv
        .client
        .post(srv.url("/api/v1/crawls/auth/start"))
        .send()
        .await
        .unwrap();
    assert_eq!(start.status(), 401);
    assert_eq!(
        srv.crawl("auth").await["state"],
        "created",
        "an unauthorized start does nothing"
    );
    srv.stop().await;

    let closed = TestServer::start(dir.path(), |c| c.public_reads = false).await;
    for path in [
        "/api/v1/crawls",
        "/api/v1/crawls/auth",
        "/metrics",
        "/api/v1/openapi.json",
    ] {
        assert_eq!(
            closed.get(path).send().await.unwrap().status(),
            401,
            "{path} without token"
        );
        let ok = closed.get(path).bearer_auth(TOKEN).send().await.unwrap();
        assert_eq!(ok.status(), 200, "{path} with token");
    }
    closed.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_keeps_crawl_states_and_intake() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&idle_spec("kept")).await;
    srv.create(&idle_spec("done")).await;
    assert_eq!(srv.action("done", "start").await.0, 200);
    srv.wait_for("done", 15, "the idle crawl to finish", |c| {
        c["state"] == "finished"
    })
    .await;
    srv.stop().await;

    let srv = TestServer::start(dir.path(), |_| {}).await;
    assert_eq!(srv.crawl("kept").await["state"], "created");
    assert_eq!(srv.crawl("done").await["state"], "finished");
    let seed = srv.crawl("kept").await["spec"]["seeds"][0]
        .as_str()
        .unwrap()
        .to_string();
    let item = json!({"crawl_id": "kept", "url": format!("{seed}later"), "score": 0.4});
    let (_, report) = srv.post_json("/api/v1/urls", &item).await;
    assert_eq!(
        report["inserted"], 1,
        "a created crawl takes intake after a restart: {report}"
    );
    let item = json!({"crawl_id": "done", "url": format!("{seed}later"), "score": 0.4});
    let (_, report) = srv.post_json("/api/v1/urls", &item).await;
    assert!(
        report["rejected"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("takes no intake"),
        "{report}"
    );
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_status_file_shows_the_crawl_as_failed_instead_of_hiding_it() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&idle_spec("hurt")).await;
    srv.stop().await;
    std::fs::write(dir.path().join("hurt/status.json"), b"{\"state\": \"runn").unwrap();

    let srv = TestServer::start(dir.path(), |_| {}).await;
    let c = srv.crawl("hurt").await;
    assert_eq!(c["state"], "failed", "{c}");
    let error = c["error"].as_str().unwrap();
    assert!(
        error.contains("hurt/status.json") && error.contains("damaged"),
        "{error}"
    );
    // Starting it resumes it, and writes a sound status again.
    assert_eq!(srv.action("hurt", "start").await.0, 200);
    srv.wait_for("hurt", 15, "the crawl to run to its end", |c| {
        c["state"] == "finished"
    })
    .await;
    srv.stop().await;
    let text = std::fs::read_to_string(dir.path().join("hurt/status.json")).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&text).is_ok(),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_whose_spec_cannot_be_read_is_listed_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    srv.create(&idle_spec("sound")).await;
    srv.create(&idle_spec("hurt")).await;
    srv.stop().await;
    let spec = dir.path().join("hurt/spec.json");
    let before = b"{\"name\": \"hurt\",\n  \"seeds\": [\"http://127.0.0.1:9/\"],\n  \"limits\": {\"max_pages\": -3}}";
    std::fs::write(&spec, before).unwrap();
    // A folder without a spec is no crawl, nor is a file beside the crawls: not reported.
    std::fs::create_dir(dir.path().join("exports")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();

    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (status, list) = srv.get_json("/api/v1/crawls").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = list["crawls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["sound"], "{list}");
    let unopened = list["unopened"].as_array().unwrap();
    assert_eq!(unopened.len(), 1, "{list}");
    assert_eq!(unopened[0]["folder"], "hurt");
    let error = unopened[0]["error"].as_str().unwrap();
    assert!(
        error.contains("hurt/spec.json") && error.contains("max_pages") && error.contains("line 3"),
        "{error}"
    );
    let mut b = cockpit_support::Browser::login(&srv.base, TOKEN).await;
    let page = b.get("/").await.body;
    assert!(
        page.contains("id=\"unopened\"") && page.contains("max_pages"),
        "{page}"
    );
    srv.stop().await;
    assert_eq!(
        std::fs::read(&spec).unwrap(),
        before,
        "nothing in it is changed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_change_whose_status_file_cannot_be_saved_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let (_hole, seed) = black_hole();
    let spec = json!({
        "name": "stuck",
        "seeds": [seed],
        "network": { "allow_private": true },
        "limits": { "timeout_ms": 5000, "max_retries": 0 },
        "scope": { "sitemaps": false }
    });
    srv.create(&spec).await;
    assert_eq!(srv.action("stuck", "start").await.0, 200);
    // `status.json` turned into a folder that is not empty: the rename over it fails.
    let status = dir.path().join("stuck/status.json");
    std::fs::remove_file(&status).unwrap();
    std::fs::create_dir_all(status.join("in-the-way")).unwrap();
    let (code, body) = srv.action("stuck", "pause").await;
    assert_eq!(code, 500, "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.contains("stuck/status.json"), "{body}");
    std::fs::remove_dir_all(&status).unwrap();
    srv.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_lists_the_crawls_magpie_crawl_made() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    // A crawl made with the command line (which records how it ended), one whose process
    // never got to say (killed: no status.json), and an old copy moved aside by --fresh.
    let spec = data.join("cli.json");
    std::fs::write(&spec, idle_spec("cli").to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_magpie"))
        .args(["crawl", spec.to_str().unwrap(), "--data"])
        .arg(data)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = std::fs::read_to_string(data.join("cli").join("status.json")).unwrap();
    assert!(status.contains("finished"), "{status}");
    std::fs::create_dir_all(data.join("killed")).unwrap();
    std::fs::write(
        data.join("killed").join("spec.json"),
        idle_spec("killed").to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(data.join("cli.old-20261125")).unwrap();
    std::fs::copy(
        data.join("cli").join("spec.json"),
        data.join("cli.old-20261125").join("spec.json"),
    )
    .unwrap();

    let srv = TestServer::start(data, |_| {}).await;
    let (code, list) = srv.get_json("/api/v1/crawls").await;
    assert_eq!(code, 200);
    let ids: Vec<&str> = list["crawls"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(ids, ["cli", "killed"], "{list}");
    let cli = srv.crawl("cli").await;
    assert_eq!(cli["state"], "finished");
    assert!(
        cli["stats"]["stop_reason"]
            .as_str()
            .is_some_and(|r| r.contains("magpie crawl")),
        "{cli}"
    );
    assert_eq!(srv.crawl("killed").await["state"], "finished");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_posted_to_the_server_cannot_name_a_knowledge_base_folder() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let mut spec = idle_spec("kbdir");
    spec["aah"] = json!({ "kb": "/etc" });
    let (code, body) = srv.post_json("/api/v1/crawls", &spec).await;
    assert_eq!(code, 400, "{body}");
    let text = body.to_string();
    assert!(text.contains("aah.kb"), "{text}");
    assert!(
        !text.contains("passwd") && !text.contains("line"),
        "no file of /etc is read: {text}"
    );
    assert!(!dir.path().join("kbdir").exists(), "nothing created");
    // Nor with the helper off: the folder would be stored with the crawl and served back.
    spec["aah"] = json!({ "enabled": false, "kb": "/etc" });
    let (code, body) = srv.post_json("/api/v1/crawls", &spec).await;
    assert_eq!(code, 400, "{body}");
    assert!(!dir.path().join("kbdir").exists(), "nothing created");
}

/// `?check_robots=true` reads each seed's robots.txt before answering, and names the seeds it
/// keeps out; without it, nothing is fetched and no such warning is given.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeds_can_be_checked_against_their_robots_txt() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let site = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = site.local_addr().unwrap();
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = site.accept().await {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).await;
            let body = "User-agent: *\nDisallow: /private/\n";
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(answer.as_bytes()).await;
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = |name: &str| {
        json!({
            "name": name,
            "seeds": [format!("http://{addr}/private/a.html"), format!("http://{addr}/open.html")],
            "network": { "allow_private": true },
        })
    };
    let (status, plain) = srv.post_json("/api/v1/crawls", &spec("plain")).await;
    assert_eq!(status, 201, "{plain}");
    assert_eq!(plain["warnings"], json!([]));
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "nothing read"
    );

    let (status, checked) = srv
        .post_json("/api/v1/crawls?check_robots=true", &spec("checked"))
        .await;
    assert_eq!(status, 201, "{checked}");
    let warnings: Vec<&str> = checked["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("/private/a.html")
            && warnings[0].contains("robots.txt disallows it for the user agent"),
        "{warnings:?}"
    );
    assert_eq!(checked["seeds"][1]["problems"], json!([]));

    let (status, bad) = srv
        .post_json("/api/v1/crawls?check_robots=maybe", &spec("bad"))
        .await;
    assert_eq!(status, 400, "{bad}");
}
