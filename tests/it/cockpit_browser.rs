//! The cockpit end to end in a real headless Chromium: create a crawl of the fixture web through
//! the form (an inline validation error first), watch the dashboard's counters move live, pause
//! and resume, blacklist a URL from the frontier inspector, run the XPath tester; then search a
//! crawl, open a capture whose archived script must not run, and export from the export page.

use crate::cockpit_support;
use crate::support;
use crate::web_support;

use cockpit_support::browser;
use fantoccini::Locator;
use std::time::Duration;
use web_support::TestServer;

/// Polls `f` until it gives `Some`, for up to `secs` seconds.
async fn eventually<T, F, Fut>(secs: u64, what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operate_a_crawl_in_the_browser() {
    let Some(b) = browser::start().await else {
        return;
    };
    let web = support::FixtureWeb::start(1);
    let seed = support::many_links(&web, 0, 200);
    let dir = tempfile::tempdir().unwrap();
    let kb = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kb");
    let srv = TestServer::start(dir.path(), |c| c.kb_dir = kb).await;
    let c = &b.client;

    // The address `magpie serve` prints logs the browser in.
    c.goto(&srv.url(&format!("/?token={}", web_support::TOKEN)))
        .await
        .unwrap();
    assert_eq!(c.current_url().await.unwrap().as_str(), srv.url("/"));

    // The form: a bad seed is refused inline, with the value kept.
    c.goto(&srv.url("/crawls/new")).await.unwrap();
    let field = |name: &str| format!("[name='{name}']");
    let set = |name: &'static str, value: String| {
        let c = c.clone();
        async move {
            let el = c
                .find(Locator::Css(&format!("[name='{name}']")))
                .await
                .unwrap();
            el.clear().await.unwrap();
            el.send_keys(&value).await.unwrap();
        }
    };
    set("name", "browser".into()).await;
    set("seeds", "ftp://not-http.example/".into()).await;
    set("politeness.min_delay_ms", "150".into()).await;
    set("politeness.delay_factor", "0".into()).await;
    c.find(Locator::Css(&field("network.allow_private")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Id("create"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let err = c
        .find(Locator::Css("p.error[data-field='seeds']"))
        .await
        .expect("inline error on the seeds field");
    assert!(err.text().await.unwrap().contains("not an http(s) URL"));
    b.screenshot("new-crawl").await;

    // Fix it and create: the crawl starts, the dashboard opens.
    set("seeds", seed.clone()).await;
    c.find(Locator::Id("create"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually(10, "the dashboard", || async {
        let url = c.current_url().await.ok()?;
        url.path().ends_with("/crawls/browser").then_some(())
    })
    .await;

    // Live counters: the page is not reloaded, the pages figure grows through the event stream.
    let pages = || async {
        let t = c.find(Locator::Id("pages")).await.ok()?.text().await.ok()?;
        t.replace(',', "").parse::<u64>().ok()
    };
    let first = pages().await.unwrap_or(0);
    let later = eventually(20, "live page count to grow", || async {
        let n = pages().await?;
        (n > first + 2).then_some(n)
    })
    .await;
    assert!(later > first);
    // The panels below the counters (last fetches, hosts, status classes, ...) are re-rendered
    // from the server while the crawl runs, without a reload.
    eventually(20, "the live panels to refresh", || async {
        let n = c
            .find(Locator::Id("panels"))
            .await
            .ok()?
            .attr("data-updates")
            .await
            .ok()??;
        (n.parse::<u32>().ok()? >= 1).then_some(())
    })
    .await;
    c.find(Locator::Css("#panels #recent td.url"))
        .await
        .expect("the last fetches, rendered live");
    b.screenshot("dashboard").await;

    // At phone width the dashboard reflows: nothing but the wide tables' own scroll boxes is
    // wider than the window.
    c.set_window_size(390, 844).await.unwrap();
    let overflow = c
        .execute(
            "return document.documentElement.scrollWidth - window.innerWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        overflow.as_i64().unwrap_or(i64::MAX) <= 0,
        "no horizontal scrolling at 390 px: {overflow}"
    );
    b.screenshot("dashboard-phone").await;
    c.set_window_size(1280, 1000).await.unwrap();

    // Pause, then blacklist the next queued URL from the frontier inspector.
    c.find(Locator::Id("action-pause"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually(10, "the crawl to pause", || async {
        let t = c
            .find(Locator::Css("[data-state]"))
            .await
            .ok()?
            .text()
            .await
            .ok()?;
        (t == "paused").then_some(())
    })
    .await;
    c.goto(&srv.url("/crawls/browser/frontier")).await.unwrap();
    let button = c
        .find(Locator::Css("button[data-blacklist]"))
        .await
        .expect("a queued URL");
    let victim = button.attr("data-blacklist").await.unwrap().unwrap();
    // The paused crawl's frontier says it is paused, not that its hosts take a politeness pause.
    let note = c.find(Locator::Id("paused-note")).await.unwrap();
    assert!(note.text().await.unwrap().contains("paused"));
    let waits = c.find(Locator::Css("#hosts tbody")).await.unwrap();
    let waits = waits.text().await.unwrap();
    assert!(
        waits.contains("the crawl is paused by the operator"),
        "{waits}"
    );
    c.find(Locator::Id("hop-legend"))
        .await
        .expect("the hop codes explained");
    b.screenshot("frontier").await;
    button.click().await.unwrap();
    let report = c.find(Locator::Id("intake-report")).await.unwrap();
    assert!(report.text().await.unwrap().contains("1 blacklisted"));
    let (_, f) = srv
        .get_json("/api/v1/crawls/browser/frontier?limit=1000")
        .await;
    assert!(
        !f["urls"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["url"] == victim.as_str()),
        "{victim} left the queue"
    );

    // Resume from the dashboard.
    c.goto(&srv.url("/crawls/browser")).await.unwrap();
    c.find(Locator::Id("action-resume"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Running again (200 links at 150 ms: it has far to go), once the dashboard has reloaded.
    let badge = || async {
        let el = c.find(Locator::Css("[data-state]")).await.ok()?;
        Some((el.attr("data-state").await.ok()??, el.text().await.ok()?))
    };
    let shown = |id: &'static str| async move {
        c.find(Locator::Id(id))
            .await
            .ok()?
            .is_displayed()
            .await
            .ok()
    };
    eventually(10, "the crawl to run again", || async {
        (badge().await? == ("running".into(), "running".into())).then_some(())
    })
    .await;
    assert_eq!(shown("action-pause").await, Some(true));
    assert_eq!(shown("action-resume").await, Some(false));

    // Paused elsewhere (through the API) while the dashboard is open: the badge and the
    // buttons follow without a reload.
    c.execute("window.notReloaded = true;", vec![])
        .await
        .unwrap();
    let (status, _) = srv.action("browser", "pause").await;
    assert_eq!(status, 200);
    eventually(10, "the buttons to follow the pause", || async {
        let paused = badge().await? == ("paused".into(), "paused".into());
        (paused && shown("action-resume").await? && !shown("action-pause").await?).then_some(())
    })
    .await;
    let same = c
        .execute("return window.notReloaded === true;", vec![])
        .await;
    assert_eq!(same.unwrap(), serde_json::json!(true), "no reload");

    // Stop asks first; confirmed, the crawl is shown as stopped by the operator.
    c.find(Locator::Id("action-stop"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let ask = c.find(Locator::Id("confirm-stop")).await.unwrap();
    assert!(ask.text().await.unwrap().contains("URLs still queued"));
    assert_eq!(
        srv.crawl("browser").await["state"],
        "paused",
        "not stopped yet"
    );
    b.screenshot("confirm-stop").await;
    c.find(Locator::Id("confirm-stop-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually(20, "the crawl to be shown stopped", || async {
        if badge().await? != ("finished".into(), "stopped".into()) {
            // The dashboard follows the stream; reload if it opened before the end.
            c.refresh().await.ok()?;
            return None;
        }
        Some(())
    })
    .await;
    let why = c.find(Locator::Id("outcome-reason")).await.unwrap();
    assert!(why
        .text()
        .await
        .unwrap()
        .contains("stopped by the operator"));
    assert_eq!(shown("action-rerun").await, Some(true));
    assert_eq!(shown("action-stop").await, Some(false));
    c.goto(&srv.url("/crawls/browser/hosts")).await.unwrap();
    b.screenshot("hosts").await;
    // After the crawl: the hosts page keeps its figures; the reports lead to the log viewer,
    // whose filter is a form, and a logged URL to its story.
    c.find(Locator::Id("hosts-closed")).await.unwrap();
    let responses = c
        .find(Locator::Css("#host-table [data-col='responses']"))
        .await
        .unwrap();
    assert_ne!(responses.text().await.unwrap(), "0");
    c.find(Locator::Css("nav.tabs a[href='/crawls/browser/reports']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let html_row = "#mime-table tr[data-key='text/html']";
    let lines = c
        .find(Locator::Css(&format!("{html_row} [data-col='lines']")))
        .await
        .unwrap();
    assert_ne!(lines.text().await.unwrap(), "0");
    b.screenshot("reports").await;
    c.find(Locator::Css(&format!("{html_row} a[href*='/log?']")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Id("log-table")).await.unwrap();
    set("status", "2xx".into()).await;
    c.find(Locator::Css("#log-filters button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually(10, "the filtered log", || async {
        c.current_url()
            .await
            .ok()?
            .as_str()
            .contains("status=2xx")
            .then_some(())
    })
    .await;
    let rows = c
        .find_all(Locator::Css("#log-table tbody tr"))
        .await
        .unwrap();
    assert!(!rows.is_empty());
    for r in &rows {
        let s = r.attr("data-status").await.unwrap().unwrap();
        assert!(s.starts_with('2'), "{s}");
    }
    b.screenshot("log").await;
    c.find(Locator::Css("#log-table tbody td.url a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.find(Locator::Css("#story li[data-what='fetched']"))
        .await
        .unwrap();
    c.find(Locator::Css("#story li[data-what='archived'] a"))
        .await
        .unwrap();
    b.screenshot("url-story").await;
    c.goto(&srv.url("/")).await.unwrap();
    b.screenshot("crawls").await;

    // The XPath tester highlights its matches.
    c.goto(&srv.url("/kb")).await.unwrap();
    set("expr", "//a[contains(@href, 'many')]".into()).await;
    set(
        "html",
        "<html><body><a href='/many/1.html'>one</a><a href='/x'>x</a><a href='/many/2.html'>two</a></body></html>".into(),
    )
    .await;
    c.find(Locator::Id("run-xpath"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let count = c.find(Locator::Id("match-count")).await.unwrap();
    assert_eq!(count.text().await.unwrap(), "2");
    let marks = c.find_all(Locator::Css("#outline mark")).await.unwrap();
    assert_eq!(marks.len(), 2);
    b.screenshot("kb").await;

    search_capture_and_export(&b, &srv, &web).await;

    b.close().await;
    srv.stop().await;
}

/// An archived page whose script would change its own text and the cockpit's title.
const SCRIPTED: &str = "<!DOCTYPE html><html lang=\"en\"><head><title>Osprey nest</title></head>\
    <body><p>The osprey builds a nest of sticks.</p><p id=\"s\">script did not run</p>\
    <script>document.getElementById('s').textContent = 'script ran';\
    try { parent.document.title = 'pwned'; } catch (e) {}</script></body></html>";

/// Search a crawl, open a capture in its sandboxed iframe, export from the export page.
async fn search_capture_and_export(
    b: &browser::Browser,
    srv: &TestServer,
    web: &support::FixtureWeb,
) {
    let c = &b.client;
    web.route(0, "/osprey.html", support::Reply::html(SCRIPTED));
    let spec = serde_json::json!({
        "name": "birds",
        "seeds": [web.url(0, "/osprey.html")],
        "network": { "allow_private": true },
        "scope": { "sitemaps": false },
        "politeness": { "min_delay_ms": 0, "delay_factor": 0.0 },
        "limits": { "timeout_ms": 3000, "max_pages": 5 }
    });
    srv.create(&spec).await;
    srv.action("birds", "start").await;
    srv.wait_for("birds", 30, "the crawl to finish", |c| {
        c["state"] == "finished"
    })
    .await;
    eventually(10, "the capture to be indexed", || async {
        let (_, r) = srv.get_json("/api/v1/crawls/birds/search?q=osprey").await;
        (r["total"].as_u64()? > 0).then_some(())
    })
    .await;

    // Search through the form, from the crawl's tabs.
    c.goto(&srv.url("/crawls/birds")).await.unwrap();
    c.find(Locator::LinkText("Search"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let q = c.find(Locator::Id("q")).await.unwrap();
    q.send_keys("osprey").await.unwrap();
    c.find(Locator::Css("form[role='search'] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let mark = c
        .find(Locator::Css("#hits mark"))
        .await
        .expect("a highlighted hit");
    assert_eq!(mark.text().await.unwrap().to_lowercase(), "osprey");
    b.screenshot("search").await;

    // Open the capture: sandboxed (no scripts, no same origin), its script did not run.
    c.find(Locator::Css("#hits a.hit-title"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let frame = c.find(Locator::Id("capture-frame")).await.unwrap();
    let sandbox = frame.attr("sandbox").await.unwrap();
    assert_eq!(sandbox.as_deref(), Some(""), "sandboxed with no allowances");
    let src = frame.attr("src").await.unwrap().unwrap();
    assert!(src.starts_with("/replay/"), "an archive path: {src}");
    let title = c.title().await.unwrap();
    assert!(title.starts_with("Capture of"), "{title}");
    frame.clone().enter_frame().await.unwrap();
    let text = eventually(10, "the archived page to load", || async {
        c.find(Locator::Id("s")).await.ok()?.text().await.ok()
    })
    .await;
    assert_eq!(text, "script did not run");
    c.enter_parent_frame().await.unwrap();
    assert_eq!(c.title().await.unwrap(), title, "the cockpit is untouched");
    b.screenshot("capture").await;

    // Export from the export page: what is typed is what is written, Preview pressed or not.
    c.find(Locator::LinkText("Export"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let embeds = c.find(Locator::Id("with_embeds")).await.unwrap();
    assert!(
        embeds.prop("checked").await.unwrap().as_deref() == Some("true"),
        "page requisites are exported by default"
    );
    let q = c.find(Locator::Id("q")).await.unwrap();
    q.send_keys("osprey").await.unwrap();
    let name = c.find(Locator::Id("name")).await.unwrap();
    name.send_keys("osprey").await.unwrap();
    c.find(Locator::Id("export-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let notice = c.find(Locator::Id("export-created")).await.unwrap();
    let said = notice.text().await.unwrap();
    assert!(
        said.contains("query \u{201c}osprey\u{201d}") && said.contains(" 1 captures selected"),
        "the banner states the selection and its counts: {said}"
    );
    let link = c.find(Locator::Id("download-warc")).await.unwrap();
    let href = link.attr("href").await.unwrap().unwrap();
    assert_eq!(href, "/crawls/birds/exports/osprey.warc.gz");
    b.screenshot("export").await;
    // Preview still shows the counts of what is typed.
    c.find(Locator::Id("preview-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let n = c.find(Locator::Id("preview-captures")).await.unwrap();
    assert_eq!(n.text().await.unwrap(), "1");
    assert!(
        !c.current_url().await.unwrap().as_str().contains("csrf"),
        "the form key never goes into an address"
    );
    // The operator's browser downloads it with its session (the API's path needs the token).
    let session = c
        .get_all_cookies()
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.name().starts_with("magpie_") && k.name().ends_with("_session"))
        .expect("a session cookie");
    let file = srv
        .get(&href)
        .header("cookie", format!("{}={}", session.name(), session.value()))
        .send()
        .await
        .unwrap();
    assert_eq!(file.status(), 200);
    let bytes = file.bytes().await.unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
    // The downloaded export passes the independent reader.
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("osprey.warc.gz");
    std::fs::write(&path, &bytes).unwrap();
    support::harness::warcio_check(&[path]);
}

/// Steering from the browser: the intake form answers per item with the priority before and
/// after, the inspector's Send score says what it did, a refused pattern stays in its field
/// with the reason, a blocked pattern is listed and removed, a bad search value stays typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steer_and_correct_in_the_browser() {
    let Some(b) = browser::start().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), |_| {}).await;
    let spec = web_support::idle_spec("steer");
    let seed = spec["seeds"][0].as_str().unwrap().to_string();
    srv.create(&spec).await;
    let c = &b.client;
    c.goto(&srv.url(&format!("/?token={}", web_support::TOKEN)))
        .await
        .unwrap();
    eventually(10, "the login", || async {
        let url = c.current_url().await.ok()?;
        (url.as_str() == srv.url("/")).then_some(())
    })
    .await;
    let type_into = |css: &'static str, value: String| {
        let c = c.clone();
        async move {
            let el = c.find(Locator::Css(css)).await.unwrap();
            el.clear().await.unwrap();
            el.send_keys(&value).await.unwrap();
        }
    };
    let click = |css: &'static str| {
        let c = c.clone();
        async move {
            c.find(Locator::Css(css))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
        }
    };
    let text = |css: &'static str| {
        let c = c.clone();
        async move {
            c.find(Locator::Css(css))
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };

    // The intake form.
    let (a, bad) = (format!("{seed}a"), format!("{seed}b"));
    c.goto(&srv.url("/crawls/steer/intake")).await.unwrap();
    type_into("#lines", format!("{a} 0.8\n{bad} -1\n")).await;
    click("#intake-send").await;
    let rows = c
        .find_all(Locator::Css("#intake-items tbody tr"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);
    let first = rows[0].text().await.unwrap();
    assert!(
        first.contains("not queued → 0.800") && first.contains("queued"),
        "{first}"
    );
    let second = rows[1].text().await.unwrap();
    assert!(
        second.contains("rejected: score -1 is outside [0, 1]"),
        "{second}"
    );
    b.screenshot("intake").await;
    // A line that cannot be read: the text stays in the field.
    type_into("#lines", format!("{a} lots")).await;
    click("#intake-send").await;
    assert!(text("#intake-error").await.contains("line 1"));
    let kept = c
        .find(Locator::Id("lines"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(kept.as_deref(), Some(format!("{a} lots").as_str()));

    // Send score from the inspector: 0.2 to a URL at 0.8 under avg makes 0.5, and it says so.
    c.goto(&srv.url("/crawls/steer/frontier")).await.unwrap();
    let xpath = format!("//button[@data-score='{a}']/preceding-sibling::input[@name='score']");
    let input = c.find(Locator::XPath(&xpath)).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys("0.2").await.unwrap();
    c.find(Locator::Css(&format!("button[data-score='{a}']")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let row = text("#intake-items tbody tr").await;
    assert!(
        row.contains("0.800 → 0.500") && row.contains("rescored"),
        "{row}"
    );
    assert!(text("#intake-report").await.contains("update function avg"));
    b.screenshot("frontier-steered").await;

    // A pattern that does not compile stays in its field with the reason.
    type_into("#pattern", "(calendar".into()).await;
    click("#block-form button").await;
    assert!(text("#steer-error").await.contains("pattern"));
    let kept = c
        .find(Locator::Id("pattern"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(kept.as_deref(), Some("(calendar"));
    // Fixed, it is listed; removed, it is gone.
    type_into("#pattern", "/calendar/".into()).await;
    click("#block-form button").await;
    assert!(text("#block-report").await.contains("/calendar/"));
    click("button[data-unblock='/calendar/']").await;
    assert!(text("#unblock-report").await.contains("removed"));
    c.find(Locator::Id("no-patterns"))
        .await
        .expect("no pattern left");

    // A bad search value: the search page, the form as typed.
    c.goto(&srv.url("/crawls/steer/search")).await.unwrap();
    type_into("#q", "turbine".into()).await;
    type_into("#min_score", "lots".into()).await;
    click("form[role='search'] button").await;
    assert!(text("#search-error").await.contains("min_score"));
    let q = c
        .find(Locator::Id("q"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(q.as_deref(), Some("turbine"));

    // A crawl whose seed cannot be fetched: the form says so before creating it; created
    // anyway, it ends as "no seed reachable" and the seeds report says why.
    c.goto(&srv.url("/crawls/new")).await.unwrap();
    type_into("[name='name']", "refused".into()).await;
    type_into("[name='seeds']", seed.clone()).await;
    click("#create").await;
    let warning = text("#seed-warnings").await;
    assert!(warning.contains("Allow private addresses"), "{warning}");
    let (status, _) = srv.get_json("/api/v1/crawls/refused").await;
    assert_eq!(status, 404, "not created yet");
    b.screenshot("seed-warnings").await;
    click("#create-anyway").await;
    eventually(30, "the crawl to end with no seed reachable", || async {
        let el = c.find(Locator::Css("[data-state]")).await.ok()?;
        if el.attr("data-outcome").await.ok()?? == "no-seed-reachable" {
            return Some(());
        }
        c.refresh().await.ok()?;
        None
    })
    .await;
    assert!(text("#outcome-reason").await.contains("private-address"));
    click("#seeds-link").await;
    let row = text("#seeds tbody tr").await;
    assert!(
        row.contains("network.allow_private") && row.contains("not archived"),
        "{row}"
    );
    b.screenshot("seeds").await;

    b.close().await;
    srv.stop().await;
}
