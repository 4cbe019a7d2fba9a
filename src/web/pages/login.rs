//! `/login`: the operator enters the API token once and gets the session cookie that opens the
//! cockpit (see `csrf.rs`); the `?token=` address printed at start does the same in one click.

use super::{render, see_other, Chrome, Form, PageError};
use crate::web::auth::same_secret;
use crate::web::csrf::{cockpit_cookie, SESSION_COOKIE};
use crate::web::AppState;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    chrome: Chrome,
    error: Option<String>,
}

/// `GET /login`.
pub async fn page(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let page = LoginPage {
        chrome: Chrome::new(&req, &state, "Log in", None, "login"),
        error: None,
    };
    render(&page, &page.chrome)
}

/// `POST /login`: checks `token`; sets the session cookie and goes to the crawls.
pub async fn submit(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let form = Form::read(&req, &state, &body)?;
    let token = form.get("token").unwrap_or("").trim();
    if !same_secret(token.as_bytes(), state.config.token.as_bytes()) {
        let page = LoginPage {
            chrome: Chrome::new(&req, &state, "Log in", None, "login"),
            error: Some("token: this is not the server's API token".into()),
        };
        let mut resp = render(&page, &page.chrome)?;
        *resp.status_mut() = StatusCode::UNAUTHORIZED;
        return Ok(resp);
    }
    let mut resp = see_other("/");
    resp.add_cookie(&cockpit_cookie(SESSION_COOKIE, state.csrf.new_session()))
        .map_err(|e| PageError::Render(e.to_string()))?;
    Ok(resp)
}
