//! `/login` and `/logout`: the operator enters the API token once and gets a session (see
//! `csrf.rs`); the `?token=` address printed at start does the same in one click. A login is
//! answered by a page that hands the session's form key to this origin's storage and goes on.

use super::{local_path, render_status, secure, Chrome, Form, PageError};
use crate::web::auth::same_secret;
use crate::web::csrf::FIELD;
use crate::web::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use std::time::Instant;

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    chrome: Chrome,
    error: Option<String>,
    next: String,
}

#[derive(Template)]
#[template(path = "logged_in.html")]
struct LoggedIn<'a> {
    form_key: &'a str,
    next: &'a str,
}

fn login_page(
    req: &HttpRequest,
    state: &AppState,
    error: Option<String>,
    next: &str,
    status: StatusCode,
) -> Result<HttpResponse, PageError> {
    let (token, cookie) = state.sessions.login_form(req);
    let mut chrome = Chrome::new("Log in", None, "login");
    chrome.csrf = token;
    let page = LoginPage {
        chrome,
        error,
        next: local_path(Some(next)).to_string(),
    };
    let mut resp = render_status(&page, status)?;
    if let Some(c) = cookie {
        resp.add_cookie(&c)
            .map_err(|e| PageError::Render(e.to_string()))?;
    }
    Ok(resp)
}

/// `GET /login[?next=PATH]`.
pub async fn page(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, PageError> {
    let next = super::Params::of(&req, &["next"])?
        .get("next")
        .unwrap_or("/")
        .to_string();
    login_page(&req, &state, None, &next, StatusCode::OK)
}

/// `POST /login`: checks the login form's own token, then `token`; starts a session.
pub async fn submit(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    let form = Form::parse(&body);
    state
        .sessions
        .verify_login(&req, form.get(FIELD), &state.hosts)?;
    let next = local_path(form.get("next")).to_string();
    let token = form.get("token").unwrap_or("").trim();
    if !same_secret(token.as_bytes(), state.config.token.as_bytes()) {
        let error = Some("token: this is not the server's API token".to_string());
        return login_page(&req, &state, error, &next, StatusCode::UNAUTHORIZED);
    }
    welcome(&state, &next)
}

/// `POST /logout`: ends the session on the server and clears its cookie.
pub async fn logout(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> Result<HttpResponse, PageError> {
    let body = super::form_body(&req, payload).await?;
    Form::read(&req, &state, &body)?;
    let gone = state.sessions.end(&req);
    let mut resp = super::see_other("/login");
    resp.add_cookie(&gone)
        .map_err(|e| PageError::Render(e.to_string()))?;
    Ok(resp)
}

/// The answer to a login (the form, or a `?token=` address): a new session, whose cookie it
/// sets and whose form key it gives to `cockpit.js`, which keeps it and goes on to `next`.
pub fn welcome(state: &AppState, next: &str) -> Result<HttpResponse, PageError> {
    let (cookie, form_key) = state.sessions.start(Instant::now());
    let next = local_path(Some(next));
    let html = LoggedIn {
        form_key: &form_key,
        next,
    }
    .render()
    .map_err(|e| PageError::Render(e.to_string()))?;
    let mut resp = HttpResponse::Ok();
    secure(&mut resp);
    // The token address must not stay in the history either: no cache, no referrer.
    resp.insert_header((header::REFERRER_POLICY, "no-referrer"));
    resp.cookie(cookie);
    Ok(resp.content_type("text/html; charset=utf-8").body(html))
}
