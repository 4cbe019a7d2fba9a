//! Every route of the server, in two tables: the API's (method, path, handler), which generates
//! the actix configuration and [`ROUTES`], held against the OpenAPI document by a test; and the
//! cockpit pages' ([`PAGE_ROUTES`]), which are HTML and not part of the API description.

use super::error::WebError;
use super::{api, metrics, pages};
use actix_web::dev::ResourceDef;
use actix_web::{web, HttpRequest, HttpResponse};

macro_rules! routes {
    ($table:ident, $configure:ident: $($method:ident $path:literal => $handler:path;)*) => {
        /// Every route of this table as (lower-case method, path pattern); `{name}` marks a path
        /// parameter, as in OpenAPI.
        pub const $table: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        /// Registers every route of this table on an actix app.
        fn $configure(cfg: &mut web::ServiceConfig) {
            $(cfg.route($path, web::$method().to($handler));)*
        }
    };
}

/// Registers the API and the cockpit on an actix app.
pub fn configure(cfg: &mut web::ServiceConfig) {
    configure_api(cfg);
    configure_pages(cfg);
}

/// Whether a path belongs to the cockpit (HTML pages and their assets) rather than the API.
pub fn is_page_path(path: &str) -> bool {
    !(path.starts_with("/api/") || path == "/api" || path == "/metrics")
}

routes! { ROUTES, configure_api:
    get  "/api/v1/openapi.json"                => api::openapi::document;
    get  "/api/v1/crawls"                      => api::crawls::list;
    post "/api/v1/crawls"                      => api::crawls::create;
    get  "/api/v1/crawls/{id}"                 => api::crawls::get;
    post "/api/v1/crawls/{id}/start"           => api::crawls::start;
    post "/api/v1/crawls/{id}/pause"           => api::crawls::pause;
    post "/api/v1/crawls/{id}/resume"          => api::crawls::resume;
    post "/api/v1/crawls/{id}/stop"            => api::crawls::stop;
    post "/api/v1/crawls/{id}/rerun"           => api::crawls::rerun;
    get  "/api/v1/workflows"                   => api::crawls::workflows;
    get  "/api/v1/crawls/{id}/frontier"        => api::frontier::get;
    get  "/api/v1/crawls/{id}/events"          => api::events::stream;
    get  "/api/v1/crawls/{id}/topic"           => api::learned::topic;
    get  "/api/v1/crawls/{id}/relaxations"     => api::learned::relaxations;
    post "/api/v1/crawls/{id}/block"           => api::learned::block;
    delete "/api/v1/crawls/{id}/block"         => api::learned::unblock;
    get  "/api/v1/crawls/{id}/reports"         => api::reports::get;
    get  "/api/v1/crawls/{id}/log"             => api::reports::log;
    get  "/api/v1/crawls/{id}/search"          => api::search::get;
    get  "/api/v1/crawls/{id}/captures"        => api::captures::list;
    get  "/api/v1/crawls/{id}/capture"         => api::captures::replay;
    get  "/api/v1/crawls/{id}/capture/info"    => api::captures::info;
    get  "/api/v1/crawls/{id}/export"          => api::exports::stream;
    get  "/api/v1/crawls/{id}/exports"         => api::export_files::list;
    post "/api/v1/crawls/{id}/exports"         => api::exports::create;
    // `preview` before `{file}`: the first route that matches takes the request.
    get  "/api/v1/crawls/{id}/exports/preview" => api::exports::preview;
    get  "/api/v1/crawls/{id}/exports/{file}"  => api::export_files::download;
    post "/api/v1/urls"                        => api::urls::post;
    get  "/metrics"                            => metrics::get;
}

// Cockpit pages. `/crawls/new` comes before `/crawls/{id}`, so it is never taken for a crawl.
routes! { PAGE_ROUTES, configure_pages:
    get  "/"                            => pages::crawls::page;
    get  "/login"                       => pages::login::page;
    post "/login"                       => pages::login::submit;
    post "/logout"                      => pages::login::logout;
    get  "/static/{file}"               => pages::assets::get;
    get  "/crawls/new"                  => pages::new_crawl::page;
    post "/crawls/new"                  => pages::new_crawl::submit;
    get  "/kb"                          => pages::kb::page;
    get  "/workflows"                   => pages::workflows::page;
    post "/kb"                          => pages::kb::test;
    get  "/crawls/{id}"                 => pages::dashboard::page;
    get  "/crawls/{id}/panels"          => pages::dashboard::panels_fragment;
    // The API's event stream and replay, for the cockpit's pages: the API itself does not take
    // the session (its cookie reaches every port of the host).
    get  "/crawls/{id}/events"          => api::events::stream;
    get  "/crawls/{id}/replay"          => api::captures::replay;
    // In-cockpit replay with archive paths: `{url}` is the rest of the path (and the query).
    get  "/replay/{key}/{id}/{ts}/{url:.*}" => pages::replay::archived;
    get  "/crawls/{id}/exports/{file}"  => api::export_files::download;
    post "/crawls/{id}/action"          => pages::crawls::action;
    get  "/crawls/{id}/spec.json"       => pages::new_crawl::download;
    get  "/crawls/{id}/frontier"        => pages::frontier::page;
    post "/crawls/{id}/frontier"        => pages::frontier::steer;
    get  "/crawls/{id}/hosts"           => pages::hosts::page;
    get  "/crawls/{id}/reports"         => pages::reports::page;
    get  "/crawls/{id}/log"             => pages::log::page;
    get  "/crawls/{id}/url"             => pages::url_story::page;
    get  "/crawls/{id}/intake"          => pages::intake::page;
    get  "/crawls/{id}/seeds"           => pages::seeds::page;
    post "/crawls/{id}/intake"          => pages::intake::submit;
    get  "/crawls/{id}/search"          => pages::search::page;
    get  "/crawls/{id}/capture"         => pages::capture::page;
    get  "/crawls/{id}/export"          => pages::export::page;
    post "/crawls/{id}/export"          => pages::export::create;
}

/// Requests no route takes: 405 with `Allow` when the path exists with other methods, else 404.
pub async fn fallback(req: HttpRequest) -> Result<HttpResponse, actix_web::Error> {
    let path = req.path();
    let allow: Vec<&'static str> = ROUTES
        .iter()
        .chain(PAGE_ROUTES)
        .filter(|(_, p)| ResourceDef::new(*p).is_match(path))
        .map(|(m, _)| match *m {
            "get" => "GET",
            "post" => "POST",
            "put" => "PUT",
            "delete" => "DELETE",
            _ => "PATCH",
        })
        .collect();
    if allow.is_empty() && is_page_path(path) {
        Err(pages::PageError::Web(WebError::NoRoute(path.to_string())).into())
    } else if allow.is_empty() {
        Err(WebError::NoRoute(path.to_string()).into())
    } else {
        Err(WebError::MethodNotAllowed {
            method: req.method().to_string(),
            path: path.to_string(),
            allow,
        }
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];

    #[test]
    fn openapi_describes_exactly_the_routes() {
        let doc = api::openapi::build().expect("the OpenAPI document");
        assert_eq!(doc["openapi"], "3.1.0");
        let paths = doc["paths"].as_object().expect("paths");
        let mut documented = BTreeSet::new();
        for (path, item) in paths {
            for (key, op) in item.as_object().expect("path item") {
                if METHODS.contains(&key.as_str()) {
                    assert!(op["responses"].is_object(), "{key} {path} has responses");
                    assert!(
                        op["operationId"].is_string(),
                        "{key} {path} has an operationId"
                    );
                    documented.insert((key.clone(), path.clone()));
                }
            }
        }
        let routed: BTreeSet<(String, String)> = ROUTES
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        let missing: Vec<_> = routed.difference(&documented).collect();
        assert!(
            missing.is_empty(),
            "routes missing from openapi.json: {missing:?}"
        );
        let extra: Vec<_> = documented.difference(&routed).collect();
        assert!(
            extra.is_empty(),
            "openapi.json documents routes that do not exist: {extra:?}"
        );
    }

    #[test]
    fn openapi_references_resolve() {
        let doc = api::openapi::build().expect("the OpenAPI document");
        let mut refs = Vec::new();
        collect_refs(&doc, &mut refs);
        assert!(!refs.is_empty());
        for r in refs {
            let pointer = r
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("external $ref {r}"));
            assert!(doc.pointer(pointer).is_some(), "dangling $ref {r}");
        }
    }

    fn collect_refs(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("$ref", serde_json::Value::String(s)) => out.push(s.clone()),
                        _ => collect_refs(v, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| collect_refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn routes_are_unique_and_versioned() {
        let set: BTreeSet<_> = ROUTES.iter().collect();
        assert_eq!(set.len(), ROUTES.len(), "no route listed twice");
        for (_, p) in ROUTES {
            assert!(p.starts_with("/api/v1/") || *p == "/metrics", "{p}");
            assert!(!is_page_path(p), "{p}");
        }
    }

    #[test]
    fn pages_stay_out_of_the_api() {
        let set: BTreeSet<_> = PAGE_ROUTES.iter().collect();
        assert_eq!(set.len(), PAGE_ROUTES.len(), "no page listed twice");
        for (_, p) in PAGE_ROUTES {
            assert!(is_page_path(p), "{p}");
        }
        let new = PAGE_ROUTES.iter().position(|r| r.1 == "/crawls/new");
        let crawl = PAGE_ROUTES.iter().position(|r| r.1 == "/crawls/{id}");
        assert!(
            new < crawl,
            "/crawls/new must be matched before /crawls/{{id}}"
        );
    }
}
