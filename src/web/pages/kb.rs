//! The knowledge-base page (`/kb`): the applications the AAH knowledge base holds (detection,
//! levels, extraction and navigation rules, skipped URLs), and an XPath tester (`POST /kb`)
//! that runs any expression on a capture of a crawl, or on pasted HTML, and highlights what it
//! selects.
//!
//! The tester runs whatever a visitor types, so it is bounded: expressions are checked for size
//! and nesting before the XPath engine sees them (400), pages larger than
//! [`MAX_TEST_HTML_BYTES`] are refused (413), and the evaluation runs in a child process
//! (`magpie xpath-test`), at most [`MAX_RUNNING_TESTS`] at once (503 when busy), killed when it
//! outruns `WebConfig::xpath_budget` (503), so a quadratic expression such as
//! `//p[count(preceding::p)>0]` stops costing CPU when its answer is given. The outcome is
//! bounded too: the first 1,000 selected nodes and 5,000 outline lines.

use super::{render, Chrome, Form, PageError};
use crate::aah::tester::{TestRequest, XPathOutcome};
use crate::aah::KnowledgeBase;
use crate::web::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

/// Most bytes of a capture given to the tester.
pub const MAX_CAPTURE_BYTES: u64 = 8 * 1024 * 1024;
/// Largest page (pasted or captured HTML) the tester runs an expression on.
pub const MAX_TEST_HTML_BYTES: usize = 2 * 1024 * 1024;
/// Tester evaluations running at once (including those still running after their budget).
pub const MAX_RUNNING_TESTS: usize = 2;

/// One rule as listed.
pub struct RuleRow {
    /// Where it applies (`level topic`, `every level`).
    pub scope: String,
    /// `detect`, `object post.title`, `nav follow`, `skip URL`.
    pub what: String,
    /// Its name, if any.
    pub name: String,
    /// The expression or pattern as written.
    pub expr: String,
}

/// One application as listed.
pub struct AppRow {
    /// Id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Category.
    pub category: &'static str,
    /// Description.
    pub description: String,
    /// File name.
    pub file: String,
    /// Level ids with kind.
    pub levels: Vec<String>,
    /// Its rules.
    pub rules: Vec<RuleRow>,
}

fn rows(kb: &KnowledgeBase) -> Vec<AppRow> {
    kb.apps
        .iter()
        .map(|a| {
            let mut rules = Vec::new();
            for c in &a.detect.conditions {
                rules.push(RuleRow {
                    scope: "application".into(),
                    what: "detect".into(),
                    name: String::new(),
                    expr: format!("{c:?}"),
                });
            }
            for l in &a.levels {
                let scope = format!("level {} ({})", l.id, l.kind.as_str());
                for o in &l.objects {
                    for f in &o.fields {
                        rules.push(RuleRow {
                            scope: scope.clone(),
                            what: format!("object {}", o.kind),
                            name: f.name.clone(),
                            expr: f.expr.src.clone(),
                        });
                    }
                }
                for n in &l.nav {
                    rules.push(RuleRow {
                        scope: scope.clone(),
                        what: format!("nav {:?}", n.action).to_lowercase(),
                        name: n.name.clone(),
                        expr: n.expr.src.clone(),
                    });
                }
            }
            for n in &a.nav {
                rules.push(RuleRow {
                    scope: "every level".into(),
                    what: format!("nav {:?}", n.action).to_lowercase(),
                    name: n.name.clone(),
                    expr: n.expr.src.clone(),
                });
            }
            for u in &a.skip_urls {
                rules.push(RuleRow {
                    scope: "every level".into(),
                    what: "skip URL".into(),
                    name: u.name.clone(),
                    expr: u.pattern.source().to_string(),
                });
            }
            AppRow {
                id: a.id.clone(),
                name: a.name.clone(),
                category: a.category.as_str(),
                description: a.description.clone(),
                file: a
                    .file
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                levels: a
                    .levels
                    .iter()
                    .map(|l| format!("{} ({})", l.id, l.kind.as_str()))
                    .collect(),
                rules,
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "kb.html")]
struct KbPage {
    chrome: Chrome,
    kb_dir: String,
    kb_error: Option<String>,
    apps: Vec<AppRow>,
    crawls: Vec<String>,
    crawl: String,
    url: String,
    html: String,
    expr: String,
    error: Option<String>,
    outcome: Option<XPathOutcome>,
}

fn build(state: &AppState) -> KbPage {
    let dir = &state.config.kb_dir;
    // Without the folder (an installed binary run elsewhere), show the knowledge base compiled
    // in, which is what crawls use by default.
    let (loaded, kb_dir) = if dir.exists() {
        (KnowledgeBase::load(dir), dir.display().to_string())
    } else {
        (
            crate::aah::builtin(),
            "built in (kb/ of the source)".to_string(),
        )
    };
    let (apps, kb_error) = match loaded {
        Ok(kb) => (rows(&kb), None),
        Err(e) => (vec![], Some(e.to_string())),
    };
    KbPage {
        chrome: Chrome::new("Knowledge base", None, "kb"),
        kb_dir,
        kb_error,
        apps,
        crawls: state.manager.list().into_iter().map(|c| c.id).collect(),
        crawl: String::new(),
        url: String::new(),
        html: String::new(),
        expr: "//a/@href".into(),
        error: None,
        outcome: None,
    }
}

/// `GET /kb`.
pub async fn page(state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let page = build(&state);
    render(&page)
}

/// The HTML of the latest capture of `url` in `crawl`.
fn capture_html(state: &AppState, crawl: &str, url: &str) -> Result<String, String> {
    state.manager.get(crawl).map_err(|e| e.to_string())?;
    let data = state.manager.data();
    let index = crate::index::cli::open_existing(data, crawl).map_err(|e| e.to_string())?;
    let replay = index
        .capture_at(
            &crate::index::warc_dir(data, crawl),
            url,
            None,
            MAX_CAPTURE_BYTES,
        )
        .map_err(|e| e.to_string())?;
    let body = replay.http.get(replay.header_len..).unwrap_or_default();
    Ok(String::from_utf8_lossy(body).into_owned())
}

/// Runs the expression on the page in a child process (`magpie xpath-test`), within the budget
/// and the limit of evaluations at once; an error comes with the status to answer with. The
/// XPath engine cannot be interrupted, so a thread would go on burning a core long after the
/// answer (a quadratic expression on a large page ran for minutes); a process past its budget is
/// killed, and its slot is free at once.
async fn run_bounded(
    state: &AppState,
    html: String,
    expr: String,
) -> Result<XPathOutcome, (StatusCode, String)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let failed = |e: String| (StatusCode::INTERNAL_SERVER_ERROR, e);
    let _permit = state.xpath_slots.clone().try_acquire_owned().map_err(|_| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "the XPath tester is busy with other expressions; try again in a few seconds".into(),
        )
    })?;
    let request = serde_json::to_vec(&TestRequest { expr, html })
        .map_err(|e| failed(format!("the tester request: {e}")))?;
    let mut child = tokio::process::Command::new(&state.config.xpath_runner)
        .arg("xpath-test")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| failed(format!("cannot start the XPath tester process: {e}")))?;
    let (mut stdin, mut stdout) = match (child.stdin.take(), child.stdout.take()) {
        (Some(i), Some(o)) => (i, o),
        _ => return Err(failed("the XPath tester process has no pipes".into())),
    };
    let exchange = async move {
        stdin.write_all(&request).await?;
        drop(stdin);
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).await?;
        Ok::<_, std::io::Error>(out)
    };
    let budget = state.config.xpath_budget;
    let out = match tokio::time::timeout(budget, exchange).await {
        Err(_) => {
            // Dropping the child kills it (`kill_on_drop`); reap it off this task.
            let _ = child.start_kill();
            tokio::spawn(async move { child.wait().await });
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the expression took longer than {} ms on this page and was stopped; simplify it (axes such as preceding:: inside predicates cost time per node squared)",
                    budget.as_millis()
                ),
            ));
        }
        Ok(Err(e)) => return Err(failed(format!("the XPath tester process: {e}"))),
        Ok(Ok(out)) => out,
    };
    let _ = child.wait().await;
    serde_json::from_slice::<Result<XPathOutcome, String>>(&out)
        .map_err(|e| failed(format!("the XPath tester process answered badly: {e}")))?
        .map_err(|e| (StatusCode::BAD_REQUEST, e))
}

/// `POST /kb`: runs `expr` on the capture of `url` in `crawl`, or on `html` when given. A
/// refused expression or source answers 400, a page too large 413, a busy tester or an
/// evaluation over its budget 503, each with the page and the reason in it.
pub async fn test(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::read(&req, &state, &body)?;
    let mut page = build(&state);
    page.expr = form.get("expr").unwrap_or("").to_string();
    page.crawl = form.get("crawl").unwrap_or("").to_string();
    page.url = form.get("url").unwrap_or("").trim().to_string();
    page.html = form.get("html").unwrap_or("").to_string();
    let source = if !page.html.trim().is_empty() {
        Ok(page.html.clone())
    } else if !page.crawl.is_empty() && !page.url.is_empty() {
        let (state, crawl, url) = (state.clone(), page.crawl.clone(), page.url.clone());
        web::block(move || capture_html(&state, &crawl, &url))
            .await
            .map_err(|e| PageError::Render(e.to_string()))?
    } else {
        Err("choose a crawl and a captured URL, or paste HTML".into())
    };
    let result = match source {
        Err(e) => Err((StatusCode::BAD_REQUEST, e)),
        Ok(html) if html.len() > MAX_TEST_HTML_BYTES => Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the page has {} bytes; the tester takes pages of at most {MAX_TEST_HTML_BYTES}",
                html.len()
            ),
        )),
        Ok(html) => run_bounded(&state, html, page.expr.clone()).await,
    };
    let status = match result {
        Ok(o) => {
            page.outcome = Some(o);
            StatusCode::OK
        }
        Err((status, e)) => {
            page.error = Some(e);
            status
        }
    };
    let mut resp = render(&page)?;
    *resp.status_mut() = status;
    Ok(resp)
}
