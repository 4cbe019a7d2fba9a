//! The new-crawl page (`/crawls/new`): a form for the whole crawl spec with inline errors per
//! field from the API's own validation; `?from=ID` starts from a copy of a crawl's spec; a pasted
//! or uploaded spec JSON fills the form; the form's spec downloads as JSON. Also
//! `GET /crawls/{id}/spec.json`, a crawl's spec as a download.

use super::fields::{self, Kind};
use super::{render, see_other, Chrome, Form, PageError};
use crate::spec::RawSpec;
use crate::web::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde_json::Value;
use std::collections::BTreeMap;

/// One field as the template shows it.
pub struct FieldView {
    /// Form name (the JSON path).
    pub name: &'static str,
    /// Element id.
    pub id: String,
    /// Label text.
    pub label: &'static str,
    /// `text`, `lines`, `int`, `float`, `bool` or `select`.
    pub kind: &'static str,
    /// Help line.
    pub help: &'static str,
    /// Current value.
    pub value: String,
    /// Choices of a select: (value, selected).
    pub options: Vec<(&'static str, bool)>,
    /// The error to show next to it.
    pub error: Option<String>,
}

/// One fieldset.
pub struct GroupView {
    /// Legend.
    pub legend: &'static str,
    /// Fields.
    pub fields: Vec<FieldView>,
}

#[derive(Template)]
#[template(path = "new_crawl.html")]
struct NewCrawlPage {
    chrome: Chrome,
    groups: Vec<GroupView>,
    general_error: Option<String>,
    spec_json: String,
    import_error: Option<String>,
    notice: Option<String>,
    /// Seeds that cannot be fetched as the crawl is defined: the form asks before creating it.
    seed_warnings: Vec<crate::manager::SeedCheck>,
    /// The seeds those warnings are about (`seeds_checked`): submitted unchanged, they create.
    seeds_checked: String,
    /// "Read the seeds' robots.txt" was ticked.
    check_robots: bool,
    /// Whether "Start the crawl at once" is ticked.
    start: bool,
}

fn groups(spec: &Value, errors: &BTreeMap<String, String>) -> Vec<GroupView> {
    fields::GROUPS
        .iter()
        .map(|g| GroupView {
            legend: g.legend,
            fields: g
                .fields
                .iter()
                .map(|d| {
                    let value = fields::show(spec, d);
                    let (kind, options) = match d.kind {
                        Kind::Text => ("text", vec![]),
                        Kind::Lines => ("lines", vec![]),
                        Kind::Int => ("int", vec![]),
                        Kind::Float => ("float", vec![]),
                        Kind::Bool => ("bool", vec![]),
                        Kind::Select(o) => {
                            ("select", o.iter().map(|x| (*x, *x == value)).collect())
                        }
                    };
                    FieldView {
                        name: d.path,
                        id: format!("f-{}", d.path.replace('.', "-")),
                        label: d.label,
                        kind,
                        help: d.help,
                        error: errors.get(d.path).cloned(),
                        value,
                        options,
                    }
                })
                .collect(),
        })
        .collect()
}

fn page_for(
    spec: &Value,
    errors: &BTreeMap<String, String>,
    import_error: Option<String>,
    notice: Option<String>,
) -> NewCrawlPage {
    NewCrawlPage {
        chrome: Chrome::new("New crawl", None, "new"),
        groups: groups(spec, errors),
        general_error: errors.get(".").cloned(),
        spec_json: String::new(),
        import_error,
        notice,
        seed_warnings: vec![],
        seeds_checked: String::new(),
        check_robots: false,
        start: true,
    }
}

/// `GET /crawls/new[?from=ID]`: the form, with defaults or a copy of a crawl's spec.
pub async fn page(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let q = super::Params::of(&req, &["from"])?;
    let (spec, notice) = match q.get("from") {
        Some(from) => {
            let raw = state.manager.spec(from)?.written().clone();
            let mut v = tidy_floats(serde_json::to_value(raw).unwrap_or_default());
            v["name"] = Value::String(format!("{from}-copy"));
            (
                v,
                Some(format!("A copy of crawl {from}: give it a new name.")),
            )
        }
        None => (fields::defaults(), None),
    };
    let page = page_for(&spec, &BTreeMap::new(), None, notice);
    render(&page)
}

/// The spec's numbers as people wrote them: a spec's `f32` (`scoring.threshold: 0.2`) becomes
/// `0.20000000298023224` when widened into a JSON value; each number that is exactly an `f32`
/// is written back as that `f32`'s shortest decimal.
pub fn tidy_floats(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or_default();
            let narrow = x as f32;
            if f64::from(narrow) == x {
                format!("{narrow}")
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Number(n), Value::Number)
            } else {
                Value::Number(n)
            }
        }
        Value::Array(a) => Value::Array(a.into_iter().map(tidy_floats).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, tidy_floats(v))).collect())
        }
        other => other,
    }
}

fn attachment(name: &str, json: &Value) -> HttpResponse {
    let safe: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    let safe = if safe.is_empty() { "spec".into() } else { safe };
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{safe}.json\""),
        ))
        .body(serde_json::to_string_pretty(json).unwrap_or_default())
}

/// `POST /crawls/new`: `op=create` validates and creates (and starts, with `start`), `op=import`
/// fills the form from the `spec_json` text, `op=download` sends the form's spec as a file.
pub async fn submit(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::read(&req, &state, &body)?;
    let op = form.get("op").unwrap_or("create");
    if op == "import" {
        return import(form.get("spec_json").unwrap_or(""));
    }
    let (spec, mut errors) = fields::from_form(|k| form.get(k).map(str::to_string));
    if op == "download" {
        let name = spec["name"].as_str().unwrap_or("spec").to_string();
        return Ok(attachment(&name, &spec));
    }
    if op != "create" {
        return Err(PageError::field("op", "must be create, import or download"));
    }
    let Some(valid) = fields::validate(&spec, &mut errors) else {
        return invalid(&spec, &errors);
    };
    // Seeds that cannot be fetched are said before the crawl is created; the same seeds sent
    // again (the "Create anyway" button carries them) create it.
    let mut checks = crate::manager::check_seeds(&valid);
    let seeds_typed = form.get("seeds").unwrap_or_default();
    let confirmed = form.get("seeds_checked") == Some(seeds_typed);
    let check_robots = form.get("check_robots").is_some();
    if check_robots && !confirmed {
        let (spec, dir) = (valid.clone(), state.manager.data().to_path_buf());
        checks = state
            .on_crawl_runtime(async move {
                crate::manager::check_robots(&spec, &dir, &mut checks).await;
                checks
            })
            .await?;
    }
    if crate::manager::any_problem(&checks) && !confirmed {
        let mut page = page_for(&spec, &errors, None, None);
        page.seed_warnings = checks
            .into_iter()
            .filter(|c| !c.problems.is_empty())
            .collect();
        page.seeds_checked = seeds_typed.to_string();
        page.start = form.get("start").is_some();
        page.check_robots = check_robots;
        return render(&page);
    }
    let manager = state.manager.clone();
    let created = state
        .on_crawl_runtime(async move { manager.create(valid).await })
        .await?;
    let id = match created {
        Ok(id) => id,
        Err(crate::manager::ManagerError::Exists(name)) => {
            errors.insert(
                "name".into(),
                format!("a crawl named {name:?} exists already"),
            );
            return invalid(&spec, &errors);
        }
        Err(e) => return Err(e.into()),
    };
    if form.get("start").is_some() {
        let (manager, crawl) = (state.manager.clone(), id.clone());
        state
            .on_crawl_runtime(async move { manager.start(&crawl) })
            .await??;
    }
    Ok(see_other(&format!("/crawls/{}", super::urlencode(&id))))
}

fn invalid(spec: &Value, errors: &BTreeMap<String, String>) -> Result<HttpResponse, PageError> {
    let page = page_for(spec, errors, None, None);
    let mut resp = render(&page)?;
    *resp.status_mut() = StatusCode::BAD_REQUEST;
    Ok(resp)
}

fn import(text: &str) -> Result<HttpResponse, PageError> {
    match RawSpec::from_json(text) {
        Err(e) => {
            let mut page = page_for(
                &fields::defaults(),
                &BTreeMap::new(),
                Some(e.to_string()),
                None,
            );
            page.spec_json = text.to_string();
            let mut resp = render(&page)?;
            *resp.status_mut() = StatusCode::BAD_REQUEST;
            Ok(resp)
        }
        Ok(raw) => {
            let spec = serde_json::to_value(raw).unwrap_or_default();
            let mut errors = BTreeMap::new();
            fields::validate(&spec, &mut errors);
            let notice = Some("Spec imported: check the fields, then create the crawl.".into());
            let page = page_for(&spec, &errors, None, notice);
            render(&page)
        }
    }
}

/// `GET /crawls/{id}/spec.json`: the crawl's spec (defaults filled in) as a download.
pub async fn download(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let spec = state.manager.spec(&id)?;
    let v = tidy_floats(serde_json::to_value(spec.written()).unwrap_or_default());
    Ok(attachment(&id, &v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_floats_read_as_written() {
        let v = serde_json::json!({"t": 0.2f32, "w": [0.5f32, 1.0], "n": 3});
        assert_eq!(v["t"].to_string(), "0.20000000298023224", "the widening");
        let t = tidy_floats(v);
        assert_eq!(t.to_string(), r#"{"n":3,"t":0.2,"w":[0.5,1.0]}"#);
        // A true f64 is left alone.
        assert_eq!(tidy_floats(serde_json::json!(0.1f64)).to_string(), "0.1");
    }
}
