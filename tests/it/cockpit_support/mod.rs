//! Cockpit test helpers: a browser-like session over plain HTTP (keeps the cockpit's cookies,
//! and the form key the login hands over, as `cockpit.js` keeps it) for the page tests.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

pub mod browser;

use regex::Regex;
use reqwest::header;

/// A page fetched as a browser would see it.
pub struct Page {
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: header::HeaderMap,
    /// The HTML.
    pub body: String,
    /// The session's form key the browser holds, if logged in.
    form_key: Option<String>,
}

impl Page {
    /// What the page's first form sends in its `csrf` field: the token written in it (the
    /// login form), or else the session's form key, which `cockpit.js` fills in at submit.
    pub fn csrf(&self) -> String {
        let re = Regex::new(r#"name="csrf" value="([0-9a-f]*)""#).unwrap();
        let written = re
            .captures(&self.body)
            .unwrap_or_else(|| panic!("no csrf field in:\n{}", self.body))[1]
            .to_string();
        if written.is_empty() {
            self.form_key.clone().expect("a form key: log in first")
        } else {
            written
        }
    }
}

/// The form key and the next address in a login's answer (`data-form-key`, `data-next`).
pub fn login_answer(html: &str) -> (String, String) {
    let key = Regex::new(r#"data-form-key="([0-9a-f]{64})""#).unwrap();
    let next = Regex::new(r#"data-next="([^"]*)""#).unwrap();
    let key = key
        .captures(html)
        .unwrap_or_else(|| panic!("no form key in:\n{html}"))[1]
        .to_string();
    (
        key,
        next.captures(html).expect("a next address")[1].to_string(),
    )
}

/// A browser-ish client: no redirects followed, the cockpit's cookies kept.
pub struct Browser {
    base: String,
    client: reqwest::Client,
    cookies: Vec<String>,
    form_key: Option<String>,
}

impl Browser {
    /// A session against `base` (`http://127.0.0.1:PORT`).
    pub fn new(base: &str) -> Browser {
        Browser {
            base: base.to_string(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: vec![],
            form_key: None,
        }
    }

    /// A session logged in as the operator would, through the address `magpie serve` prints
    /// (`/?token=TOKEN`).
    pub async fn login(base: &str, token: &str) -> Browser {
        let mut b = Browser::new(base);
        let p = b.get(&format!("/?token={token}")).await;
        assert_eq!(p.status, 200, "the token address logs in: {}", p.body);
        let (key, next) = login_answer(&p.body);
        assert_eq!(next, "/");
        b.form_key = Some(key);
        b
    }

    /// The `name=value` pair of the session cookie (`magpie_PORT_session`).
    pub fn session_cookie(&self) -> String {
        self.cookies
            .iter()
            .find(|c| {
                c.starts_with("magpie_") && c.split('=').next().unwrap().ends_with("_session")
            })
            .unwrap_or_else(|| panic!("no session cookie in {:?}", self.cookies))
            .clone()
    }

    /// The `name=value` pair of a cookie the browser holds.
    pub fn cookie(&self, name: &str) -> String {
        self.cookies
            .iter()
            .find(|c| c.starts_with(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no cookie {name} in {:?}", self.cookies))
            .clone()
    }

    fn keep(&mut self, resp: &reqwest::Response) {
        for v in resp.headers().get_all(header::SET_COOKIE) {
            let pair = v.to_str().unwrap().split(';').next().unwrap().to_string();
            let name = pair.split('=').next().unwrap().to_string();
            self.cookies.retain(|c| !c.starts_with(&format!("{name}=")));
            self.cookies.push(pair);
        }
    }

    async fn finish(&mut self, resp: reqwest::Response) -> Page {
        self.keep(&resp);
        Page {
            status: resp.status().as_u16(),
            headers: resp.headers().clone(),
            body: resp.text().await.unwrap(),
            form_key: self.form_key.clone(),
        }
    }

    /// GET a page.
    pub async fn get(&mut self, path: &str) -> Page {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .header(header::COOKIE, self.cookies.join("; "))
            .send()
            .await
            .unwrap();
        self.finish(resp).await
    }

    /// POST a form as the browser would (with its cookies, without any token of its own).
    pub async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Page {
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .header(header::COOKIE, self.cookies.join("; "))
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(form)
                    .finish(),
            )
            .send()
            .await
            .unwrap();
        self.finish(resp).await
    }

    /// Forgets every cookie (a visitor from another site's page would not send them).
    pub fn forget_cookies(&mut self) {
        self.cookies.clear();
    }
}
