//! Every route of the server, in one table: method, path, handler. The table generates both
//! the actix configuration and [`ROUTES`], which tests hold against `openapi.json`.
//! Cockpit pages, when added, are listed here too.

use super::error::WebError;
use super::{api, metrics};
use actix_web::dev::ResourceDef;
use actix_web::{web, HttpRequest, HttpResponse};

macro_rules! routes {
    ($($method:ident $path:literal => $handler:path;)*) => {
        /// Every route as (lower-case method, path pattern); `{name}` marks a path parameter,
        /// as in OpenAPI.
        pub const ROUTES: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        /// Registers every route on an actix app.
        pub fn configure(cfg: &mut web::ServiceConfig) {
            $(cfg.route($path, web::$method().to($handler));)*
        }
    };
}

routes! {
    get  "/api/v1/openapi.json"                => api::openapi::document;
    get  "/api/v1/crawls"                      => api::crawls::list;
    post "/api/v1/crawls"                      => api::crawls::create;
    get  "/api/v1/crawls/{id}"                 => api::crawls::get;
    post "/api/v1/crawls/{id}/start"           => api::crawls::start;
    post "/api/v1/crawls/{id}/pause"           => api::crawls::pause;
    post "/api/v1/crawls/{id}/resume"          => api::crawls::resume;
    post "/api/v1/crawls/{id}/stop"            => api::crawls::stop;
    get  "/api/v1/crawls/{id}/frontier"        => api::frontier::get;
    get  "/api/v1/crawls/{id}/events"          => api::events::stream;
    get  "/api/v1/crawls/{id}/topic"           => api::learned::topic;
    get  "/api/v1/crawls/{id}/relaxations"     => api::learned::relaxations;
    get  "/api/v1/crawls/{id}/search"          => api::search::get;
    get  "/api/v1/crawls/{id}/captures"        => api::captures::list;
    get  "/api/v1/crawls/{id}/capture"         => api::captures::replay;
    get  "/api/v1/crawls/{id}/capture/info"    => api::captures::info;
    get  "/api/v1/crawls/{id}/export"          => api::exports::stream;
    get  "/api/v1/crawls/{id}/exports"         => api::exports::list;
    post "/api/v1/crawls/{id}/exports"         => api::exports::create;
    // `preview` before `{file}`: the first route that matches takes the request.
    get  "/api/v1/crawls/{id}/exports/preview" => api::exports::preview;
    get  "/api/v1/crawls/{id}/exports/{file}"  => api::exports::download;
    post "/api/v1/urls"                        => api::urls::post;
    get  "/metrics"                            => metrics::get;
}

/// Requests no route takes: 405 with `Allow` when the path exists with other methods, else 404.
pub async fn fallback(req: HttpRequest) -> Result<HttpResponse, WebError> {
    let path = req.path();
    let allow: Vec<&'static str> = ROUTES
        .iter()
        .filter(|(_, p)| ResourceDef::new(*p).is_match(path))
        .map(|(m, _)| match *m {
            "get" => "GET",
            "post" => "POST",
            "put" => "PUT",
            "delete" => "DELETE",
            _ => "PATCH",
        })
        .collect();
    if allow.is_empty() {
        Err(WebError::NoRoute(path.to_string()))
    } else {
        Err(WebError::MethodNotAllowed {
            method: req.method().to_string(),
            path: path.to_string(),
            allow,
        })
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
        let doc: serde_json::Value =
            serde_json::from_str(api::openapi::OPENAPI_JSON).expect("openapi.json is JSON");
        assert!(
            doc["openapi"].as_str().unwrap_or("").starts_with("3."),
            "OpenAPI 3"
        );
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
        let doc: serde_json::Value = serde_json::from_str(api::openapi::OPENAPI_JSON).unwrap();
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
        }
    }
}
