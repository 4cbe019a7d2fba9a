//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 description of every route, assembled once from
//! the hand-written paths (`src/web/openapi.json`) and schemas generated from the Rust types.
//!
//! The paths, parameters and prose are written by hand; the schemas of everything the server
//! reads or writes as JSON structures (the crawl spec, crawls, statistics, the frontier, intake
//! reports, errors) are generated with `schemars` from the very types that serde reads and
//! writes, so the document cannot drift from the code. Both use JSON Schema 2020-12, the
//! dialect of OpenAPI 3.1.

use crate::intake::IntakeReport;
use crate::manager::{CrawlView, WorkflowView};
use crate::spec::RawSpec;
use crate::web::api::frontier::FrontierOut;
use crate::web::api::reports::LogOut;
use crate::web::error::{ErrorBody, WebError};
use crate::web::reports::Reports;
use actix_web::HttpResponse;
use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The hand-written part: info, paths, parameters, responses and the schemas of the response
/// types that are not generated (search hits, captures, exports, events).
pub const TEMPLATE_JSON: &str = include_str!("../openapi.json");

/// The JSON Schema dialect of every schema in the document (OpenAPI 3.1's default, stated).
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Why the document could not be assembled (only a broken template or a name clash between
/// generated and hand-written schemas; tests keep both from happening).
#[derive(Debug, thiserror::Error)]
pub enum OpenApiError {
    /// `openapi.json` is not a JSON object with `components.schemas`.
    #[error("the OpenAPI template is malformed: {0}")]
    Template(String),
    /// A generated schema has the name of another one.
    #[error("two OpenAPI schemas are named {0:?}")]
    Clash(String),
}

fn generator(contract: Contract) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
            s.contract = contract;
        })
        .into_generator()
}

/// The generated schemas, by name. Request bodies are described as serde reads them (keys
/// with defaults may be left out), responses as serde writes them (every key present).
pub fn generated_schemas() -> Result<Map<String, Value>, OpenApiError> {
    let mut requests = generator(Contract::Deserialize);
    requests.subschema_for::<RawSpec>();
    let mut schemas = requests.take_definitions(true);
    let mut responses = generator(Contract::Serialize);
    responses.subschema_for::<CrawlView>();
    responses.subschema_for::<WorkflowView>();
    responses.subschema_for::<FrontierOut>();
    responses.subschema_for::<Reports>();
    responses.subschema_for::<LogOut>();
    responses.subschema_for::<IntakeReport>();
    responses.subschema_for::<ErrorBody>();
    for (name, schema) in responses.take_definitions(true) {
        if schemas.insert(name.clone(), schema).is_some() {
            return Err(OpenApiError::Clash(name));
        }
    }
    Ok(schemas)
}

/// Assembles the document: the template with `openapi: 3.1.0`, the dialect, and the generated
/// schemas added to `components.schemas`.
pub fn build() -> Result<Value, OpenApiError> {
    let mut doc: Value =
        serde_json::from_str(TEMPLATE_JSON).map_err(|e| OpenApiError::Template(e.to_string()))?;
    let root = doc
        .as_object_mut()
        .ok_or_else(|| OpenApiError::Template("not an object".into()))?;
    root.insert("openapi".into(), "3.1.0".into());
    root.insert("jsonSchemaDialect".into(), DIALECT.into());
    let schemas = root
        .get_mut("components")
        .and_then(|c| c.get_mut("schemas"))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| OpenApiError::Template("no components.schemas".into()))?;
    for (name, schema) in generated_schemas()? {
        if schemas.insert(name.clone(), schema).is_some() {
            return Err(OpenApiError::Clash(name));
        }
    }
    Ok(doc)
}

/// The document as served, assembled on first use.
pub fn document_json() -> Result<&'static str, &'static str> {
    static DOC: OnceLock<Result<String, String>> = OnceLock::new();
    DOC.get_or_init(|| build().map(|d| d.to_string()).map_err(|e| e.to_string()))
        .as_deref()
        .map_err(|e| e.as_str())
}

/// Serves the OpenAPI document.
pub async fn document() -> HttpResponse {
    match document_json() {
        Ok(doc) => HttpResponse::Ok()
            .content_type("application/json")
            .body(doc),
        Err(e) => {
            tracing::error!("{e}");
            actix_web::ResponseError::error_response(&WebError::Internal(e.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crawl_spec_schema_is_generated_with_every_key() {
        let doc = build().unwrap();
        let spec = &doc["components"]["schemas"]["CrawlSpec"];
        assert_eq!(spec["additionalProperties"], false, "unknown keys refused");
        let keys: Vec<&str> = spec["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in [
            "name",
            "seeds",
            "scope",
            "politeness",
            "limits",
            "warc",
            "network",
            "frontier",
            "topic",
            "scoring",
            "aah",
            "index",
        ] {
            assert!(keys.contains(&key), "CrawlSpec has {key}");
        }
        assert_eq!(spec["required"], serde_json::json!(["name", "seeds"]));
        // Defaults and doc comments are carried over.
        let scope = &doc["components"]["schemas"]["RawScope"];
        assert_eq!(scope["properties"]["max_depth"]["default"], 20);
        assert!(scope["properties"]["max_depth"]["description"]
            .as_str()
            .unwrap()
            .contains("hops"));
        let frontier = &doc["components"]["schemas"]["RawFrontier"];
        assert!(frontier["properties"]["best_n"].is_object());
        assert!(doc["components"]["schemas"]["RawScoring"]["properties"]["learn"].is_object());
    }

    #[test]
    fn the_document_is_openapi_3_1() {
        let doc: Value = serde_json::from_str(document_json().unwrap()).unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(doc["jsonSchemaDialect"], DIALECT);
        let text = doc.to_string();
        assert!(!text.contains("\"nullable\""), "3.0's nullable is gone");
        assert!(
            !text.contains("\"$defs\""),
            "definitions live in components"
        );
    }

    #[test]
    fn the_template_does_not_hand_write_generated_schemas() {
        let template: Value = serde_json::from_str(TEMPLATE_JSON).unwrap();
        let written = template["components"]["schemas"].as_object().unwrap();
        for name in generated_schemas().unwrap().keys() {
            assert!(!written.contains_key(name), "{name} is generated");
        }
    }

    #[test]
    fn every_error_code_is_in_the_schema() {
        let doc = build().unwrap();
        let codes = &doc["components"]["schemas"]["Error"]["properties"]["code"]["enum"];
        assert_eq!(
            codes.as_array().unwrap().len(),
            crate::web::error::CODES.len()
        );
    }
}
