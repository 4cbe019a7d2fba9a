//! The cockpit's error type and its HTML error page. Statuses follow the API's mapping
//! (`WebError::status_code`); a bad form or query value is a 400 that names the field.

use super::secure;
use crate::manager::ManagerError;
use crate::web::csrf::CsrfError;
use crate::web::error::WebError;
use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

/// Everything a cockpit page can fail with.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The cockpit needs a login session.
    #[error("log in with the API token to use the cockpit")]
    LoginRequired,
    /// An address's `?token=` is not the server's API token.
    #[error("token: this is not the server's API token (it is printed by `magpie serve` and stored in DATA/api-token)")]
    WrongToken,
    /// A form failed the anti-forgery check.
    #[error(transparent)]
    Csrf(#[from] CsrfError),
    /// A form field or query parameter has a value the page cannot use.
    #[error("{field}: {message}")]
    Field {
        /// The field or parameter.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// What the API would answer with (unknown crawl, wrong state, ...).
    #[error(transparent)]
    Web(#[from] WebError),
    /// A replay address whose key belongs to no live session.
    #[error("this replay address belongs to a session that has ended: open the capture again from the cockpit")]
    ReplayKey,
    /// A template failed to render (a bug).
    #[error("cannot render the page: {0}")]
    Render(String),
}

impl PageError {
    /// An error naming a form field or query parameter.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> PageError {
        PageError::Field {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl PageError {
    /// Whether the error is about what the user typed (a 400, a 409 such as a name taken, a
    /// 413), so the page they came from can show it with their input, rather than an error
    /// page. A missing crawl, a refused form key or a server failure is not.
    pub fn is_users(&self) -> bool {
        let s = ResponseError::status_code(self).as_u16();
        matches!(s, 400 | 409 | 413 | 422)
    }
}

impl From<ManagerError> for PageError {
    fn from(e: ManagerError) -> Self {
        PageError::Web(e.into())
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    status: u16,
    reason: &'a str,
    message: String,
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        match self {
            PageError::LoginRequired => StatusCode::SEE_OTHER,
            PageError::WrongToken => StatusCode::UNAUTHORIZED,
            PageError::Csrf(_) | PageError::ReplayKey => StatusCode::FORBIDDEN,
            PageError::Field { .. } => StatusCode::BAD_REQUEST,
            PageError::Web(e) => e.status_code(),
            PageError::Render(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if let PageError::LoginRequired = self {
            return HttpResponse::SeeOther()
                .insert_header((header::LOCATION, "/login"))
                .finish();
        }
        if status.is_server_error() {
            tracing::error!("page failed: {self}");
        }
        let page = ErrorPage {
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or("Error"),
            message: crate::web::error::redact(&self.to_string()),
        };
        let html = page
            .render()
            .unwrap_or_else(|_| "<!doctype html><title>Error</title>".into());
        let mut resp = HttpResponse::build(status);
        secure(&mut resp);
        resp.content_type("text/html; charset=utf-8").body(html)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_messages_name_the_problem() {
        let e = PageError::field("limit", "must be a number");
        assert_eq!(e.status_code(), 400);
        let body = e.error_response();
        assert_eq!(body.status(), 400);
        let e: PageError = ManagerError::NotFound("x<y>".into()).into();
        assert_eq!(e.status_code(), 404);
        assert_eq!(PageError::from(CsrfError::BadToken).status_code(), 403);
        let page = ErrorPage {
            status: 404,
            reason: "Not Found",
            message: "no crawl named \"<script>\"".into(),
        }
        .render()
        .unwrap();
        assert!(page.contains("&#60;script&#62;"), "{page}");
        assert!(!page.contains("<script>"));
    }
}
