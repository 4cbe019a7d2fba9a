//! The API's one error type, and the only place where errors become HTTP statuses and JSON
//! error bodies (`{"error": ..., "code": ..., "field"?, "line"?, "column"?}`).

use crate::export::wacz::WaczError;
use crate::export::ExportError;
use crate::index::IndexError;
use crate::intake::BodyError;
use crate::manager::CrawlState;
use crate::manager::ManagerError;
use crate::spec::SpecError;
use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

/// Everything a request can fail with. Handlers return it; [`ResponseError`] turns it into
/// a response, so clients always get JSON with a stable `code`.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The `Host` header names another server (a DNS-rebinding page, or a name the operator
    /// did not allow).
    #[error("this server does not answer to the host {0:?}: use its address, localhost, or a name given with `magpie serve --allowed-host`")]
    UnknownHost(String),
    /// No or a wrong bearer token.
    #[error(
        "this request needs the header `Authorization: Bearer <token>` with the server's token"
    )]
    Unauthorized,
    /// No route has this path.
    #[error("no such resource: {0}")]
    NoRoute(String),
    /// The path exists, the method does not.
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed {
        /// The method asked for.
        method: String,
        /// The path.
        path: String,
        /// The methods the path has.
        allow: Vec<&'static str>,
    },
    /// The crawl manager refused (unknown crawl, name taken, wrong state) or failed.
    #[error(transparent)]
    Manager(#[from] ManagerError),
    /// A crawl spec that does not parse or validate.
    #[error("invalid spec: {0}")]
    Spec(#[from] SpecError),
    /// An intake body that is not valid JSON / NDJSON of scored URLs.
    #[error("malformed intake body: {0}")]
    Body(#[from] BodyError),
    /// The body is larger than the configured limit.
    #[error("request body larger than {limit} bytes")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// A bad query string, path parameter or body encoding.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// One named parameter (query string or JSON body) has a bad value.
    #[error("bad parameter {name}: {reason}")]
    BadParameter {
        /// The parameter.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Searching, looking up or replaying captures failed (a bad query is a 400, a crawl
    /// without an index a 409, an unknown URL a 404).
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Writing an export failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// A named thing inside a crawl (an export file) does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// The thing to create exists already (an export of that name).
    #[error("{0}")]
    Conflict(String),
    /// The body could not be read from the connection.
    #[error("cannot read the request body: {0}")]
    Payload(String),
    /// The body stalled or took too long (`limits.rs`); the connection is closed.
    #[error("request body too slow: {0}")]
    SlowBody(String),
    /// A bug or a failed background task.
    #[error("internal error: {0}")]
    Internal(String),
    /// The listener or another OS resource failed.
    #[error("server I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// A WACZ export's failures are an export's: the selection's are a 400, the rest a 500 naming
/// the file.
impl From<WaczError> for WebError {
    fn from(e: WaczError) -> Self {
        match e {
            WaczError::Export(e) => WebError::Export(e),
            WaczError::Index(e) => WebError::Index(e),
            e => WebError::Internal(e.to_string()),
        }
    }
}

impl WebError {
    /// A stable machine-readable name of the error, for clients that branch on it.
    pub fn code(&self) -> &'static str {
        match self {
            WebError::UnknownHost(_) => "unknown-host",
            WebError::Unauthorized => "unauthorized",
            WebError::NoRoute(_) => "no-route",
            WebError::MethodNotAllowed { .. } => "method-not-allowed",
            WebError::Manager(m) => match m {
                ManagerError::NotFound(_) => "not-found",
                ManagerError::Exists(_) => "exists",
                ManagerError::WrongState { .. } => "wrong-state",
                ManagerError::Spec(_) => "invalid-spec",
                ManagerError::Refused(r) if r.field().is_some() => "bad-parameter",
                ManagerError::Refused(_) => "frontier",
                ManagerError::Invalid(_) => "bad-parameter",
                ManagerError::Io(_) => "io",
            },
            WebError::Spec(_) => "invalid-spec",
            WebError::Body(_) => "malformed-body",
            WebError::BadParameter { .. } => "bad-parameter",
            WebError::Index(e) | WebError::Export(ExportError::Index(e)) => index_status(e).1,
            WebError::Export(ExportError::NotGzip { .. }) => "not-exportable",
            WebError::Export(_) => "export",
            WebError::NotFound(_) => "not-found",
            WebError::Conflict(_) => "exists",
            WebError::TooLarge { .. } => "too-large",
            WebError::BadRequest(_) => "bad-request",
            WebError::Payload(_) => "payload",
            WebError::SlowBody(_) => "slow-body",
            WebError::Internal(_) => "internal",
            WebError::Io(_) => "io",
        }
    }
}

/// The status and code of an index error: the caller's mistakes are 4xx, an index that must be
/// built or rebuilt first is 409, and only failures of the machine are 500.
fn index_status(e: &IndexError) -> (StatusCode, &'static str) {
    match e {
        IndexError::BadQuery { .. } => (StatusCode::BAD_REQUEST, "bad-query"),
        IndexError::BadParameter { .. } => (StatusCode::BAD_REQUEST, "bad-parameter"),
        IndexError::NotFound { .. } => (StatusCode::NOT_FOUND, "not-found"),
        IndexError::NoIndex { .. } => (StatusCode::CONFLICT, "no-index"),
        IndexError::SchemaMismatch { .. } => (StatusCode::CONFLICT, "schema-mismatch"),
        IndexError::Stale { .. } => (StatusCode::CONFLICT, "stale-index"),
        IndexError::Locked { .. } => (StatusCode::CONFLICT, "locked"),
        IndexError::Tantivy { .. }
        | IndexError::Io { .. }
        | IndexError::Damaged { .. }
        | IndexError::Archive(_)
        | IndexError::Stopped(_) => (StatusCode::INTERNAL_SERVER_ERROR, "index"),
    }
}

fn spec_field(e: &SpecError) -> &str {
    match e {
        SpecError::Json { path, .. } | SpecError::Invalid { path, .. } => path,
    }
}

/// Every `code` an error body can carry; the OpenAPI document lists them as the enum of
/// `Error.code`, so clients can rely on the set (a test holds [`WebError::code`] to it).
pub const CODES: &[&str] = &[
    "unknown-host",
    "unauthorized",
    "no-route",
    "method-not-allowed",
    "not-found",
    "exists",
    "wrong-state",
    "invalid-spec",
    "frontier",
    "bad-parameter",
    "io",
    "malformed-body",
    "bad-query",
    "no-index",
    "schema-mismatch",
    "stale-index",
    "locked",
    "index",
    "not-exportable",
    "export",
    "too-large",
    "bad-request",
    "payload",
    "internal",
];

/// The JSON body of every error response. A struct rather than ad-hoc JSON so that the
/// OpenAPI document's `Error` schema is generated from what is actually sent.
#[derive(Debug, Default, Serialize, schemars::JsonSchema)]
#[schemars(rename = "Error")]
pub struct ErrorBody {
    /// What is wrong, for people.
    pub error: String,
    /// What is wrong, for programs.
    #[schemars(schema_with = "code_schema")]
    pub code: &'static str,
    /// invalid-spec: JSON path of the bad field; bad-parameter: the parameter; bad-query: `q`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// malformed-body: 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// malformed-body: 1-based column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// wrong-state: the crawl's state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<CrawlState>,
    /// bad-query: the query string as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// bad-query: what the query parser said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn code_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": CODES })
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::UnknownHost(_) => StatusCode::MISDIRECTED_REQUEST,
            WebError::Unauthorized => StatusCode::UNAUTHORIZED,
            WebError::NoRoute(_) => StatusCode::NOT_FOUND,
            WebError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            WebError::Manager(m) => match m {
                ManagerError::NotFound(_) => StatusCode::NOT_FOUND,
                ManagerError::Exists(_) | ManagerError::WrongState { .. } => StatusCode::CONFLICT,
                ManagerError::Spec(_) | ManagerError::Invalid(_) => StatusCode::BAD_REQUEST,
                ManagerError::Refused(r) if r.field().is_some() => StatusCode::BAD_REQUEST,
                ManagerError::Refused(_) | ManagerError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            WebError::Spec(_) | WebError::Body(_) | WebError::BadRequest(_) => {
                StatusCode::BAD_REQUEST
            }
            WebError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::BadParameter { .. } => StatusCode::BAD_REQUEST,
            WebError::Index(e) | WebError::Export(ExportError::Index(e)) => index_status(e).0,
            WebError::Export(ExportError::NotGzip { .. }) | WebError::Conflict(_) => {
                StatusCode::CONFLICT
            }
            WebError::Export(_) => StatusCode::INTERNAL_SERVER_ERROR,
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::Payload(_) => StatusCode::BAD_REQUEST,
            WebError::SlowBody(_) => StatusCode::REQUEST_TIMEOUT,
            WebError::Internal(_) | WebError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if status.is_server_error() {
            tracing::error!("request failed: {self}");
        }
        let mut body = ErrorBody {
            error: redact(&self.to_string()),
            code: self.code(),
            ..ErrorBody::default()
        };
        match self {
            WebError::Spec(e) | WebError::Manager(ManagerError::Spec(e)) => {
                body.field = Some(spec_field(e).to_string());
                body.error = redact(&e.to_string());
            }
            WebError::Body(BodyError::Json { line, column, .. }) => {
                body.line = Some(*line);
                body.column = Some(*column);
            }
            WebError::Manager(ManagerError::WrongState { state, .. }) => {
                body.state = Some(*state);
            }
            WebError::Manager(ManagerError::Refused(r)) => {
                body.field = r.field().map(str::to_string);
            }
            WebError::BadParameter { name, .. }
            | WebError::Index(IndexError::BadParameter { name, .. })
            | WebError::Export(ExportError::Index(IndexError::BadParameter { name, .. })) => {
                body.field = Some(name.clone());
            }
            WebError::Index(IndexError::BadQuery { query, reason })
            | WebError::Export(ExportError::Index(IndexError::BadQuery { query, reason })) => {
                body.field = Some("q".into());
                body.query = Some(query.clone());
                body.reason = Some(reason.clone());
            }
            _ => {}
        }
        let mut resp = HttpResponse::build(status);
        match self {
            WebError::Unauthorized => {
                resp.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"magpie\""));
            }
            WebError::MethodNotAllowed { allow, .. } => {
                resp.insert_header((header::ALLOW, allow.join(", ")));
            }
            _ => {}
        }
        resp.json(body)
    }
}

/// Data folders whose absolute paths errors sent to clients name as `DATA`: a client needs to
/// know which file, not where the server keeps it. The full path still goes to the server's
/// own log.
static HIDDEN: std::sync::RwLock<Vec<(String, &'static str)>> = std::sync::RwLock::new(Vec::new());

/// Names the data folder `DATA` in errors sent from now on.
pub(crate) fn hide_paths(data: &std::path::Path) {
    let mut hidden = HIDDEN.write().unwrap_or_else(|e| e.into_inner());
    let mut add = |p: &std::path::Path, name: &'static str| {
        let text = p.display().to_string();
        if text.len() > 1 && !hidden.iter().any(|(h, _)| *h == text) {
            hidden.push((text, name));
        }
    };
    if let Ok(abs) = std::path::absolute(data) {
        add(&abs, "DATA");
    }
    if let Ok(canon) = data.canonicalize() {
        add(&canon, "DATA");
    }
    // Longest first, so that of two nested folders the inner one is named.
    hidden.sort_by_key(|(h, _)| std::cmp::Reverse(h.len()));
}

/// A message for a client: the hidden folders' paths replaced by their short names.
pub(crate) fn redact(message: &str) -> String {
    let hidden = HIDDEN.read().unwrap_or_else(|e| e.into_inner());
    hidden.iter().fold(message.to_string(), |m, (path, name)| {
        m.replace(path.as_str(), name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::control::Refusal;

    #[test]
    fn errors_for_clients_name_the_data_folder_not_where_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data-for-redaction");
        std::fs::create_dir_all(&data).unwrap();
        hide_paths(&data);
        let msg = format!("crawl state {}/c1/state/db is damaged", data.display());
        assert_eq!(redact(&msg), "crawl state DATA/c1/state/db is damaged");
        let e = WebError::Internal(msg);
        let body = actix_web::body::to_bytes(e.error_response().into_body());
        let body = futures_util::FutureExt::now_or_never(body)
            .unwrap()
            .unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(text.contains("DATA/c1/state/db"), "{text}");
        assert!(!text.contains(&dir.path().display().to_string()), "{text}");
    }

    #[test]
    fn statuses_follow_the_documented_mapping() {
        let cases: Vec<(WebError, u16)> = vec![
            (WebError::Unauthorized, 401),
            (ManagerError::NotFound("x".into()).into(), 404),
            (ManagerError::Exists("x".into()).into(), 409),
            (
                ManagerError::WrongState {
                    id: "x".into(),
                    state: CrawlState::Created,
                    action: "pause",
                }
                .into(),
                409,
            ),
            (crate::spec::Spec::from_json("{}").unwrap_err().into(), 400),
            (BodyError::Empty.into(), 400),
            (WebError::TooLarge { limit: 1 }, 413),
            (ManagerError::Refused(Refusal::Ended).into(), 500),
            (
                ManagerError::Refused(Refusal::NotBlocked("x".into())).into(),
                400,
            ),
            (
                IndexError::BadQuery {
                    query: "(".into(),
                    reason: "x".into(),
                }
                .into(),
                400,
            ),
            (IndexError::NoIndex { dir: "d".into() }.into(), 409),
            (IndexError::NotFound { url: "u".into() }.into(), 404),
            (
                ExportError::Index(IndexError::BadParameter {
                    name: "kind".into(),
                    reason: "x".into(),
                })
                .into(),
                400,
            ),
            (IndexError::Stopped("x".into()).into(), 500),
        ];
        for (e, want) in cases {
            assert_eq!(e.status_code().as_u16(), want, "{e}");
            assert!(CODES.contains(&e.code()), "{} is listed in CODES", e.code());
        }
    }

    #[test]
    fn spec_errors_name_the_field() {
        let e: WebError = crate::spec::Spec::from_json(r#"{"name":"t","seeds":["ftp://x/"]}"#)
            .unwrap_err()
            .into();
        let resp = e.error_response();
        assert_eq!(resp.status(), 400);
        let body = actix_web::body::to_bytes(resp.into_body());
        let body = futures_util::FutureExt::now_or_never(body)
            .unwrap()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["field"], "seeds[0]");
        assert_eq!(v["code"], "invalid-spec");
        assert!(v["error"].as_str().unwrap().contains("not an http(s) URL"));
    }

    #[test]
    fn a_refused_pattern_names_its_field_and_a_crawl_failure_does_not() {
        let body = |r: Refusal| {
            let e: WebError = ManagerError::Refused(r).into();
            let body = actix_web::body::to_bytes(e.error_response().into_body());
            let body = futures_util::FutureExt::now_or_never(body)
                .unwrap()
                .unwrap();
            serde_json::from_slice::<serde_json::Value>(&body).unwrap()
        };
        let v = body(Refusal::NotBlocked("/x/".into()));
        assert_eq!(v["field"], "pattern");
        assert_eq!(v["code"], "bad-parameter");
        assert_eq!(
            v["error"],
            "pattern: \"/x/\" is not among the blocked patterns"
        );
        assert_eq!(
            Refusal::NotBlocked("/x/".into()).reason(),
            "\"/x/\" is not among the blocked patterns"
        );
        let v = body(Refusal::Ended);
        assert!(v.get("field").is_none(), "{v}");
        assert_eq!(v["code"], "frontier");
    }
}
