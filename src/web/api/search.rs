//! `GET /api/v1/crawls/{id}/search`: full-text search of a crawl's captures and web objects,
//! with highlighted snippets, facet counts over every match, and pagination. The query string
//! is tantivy's syntax (see `docs/index.md`); a malformed one is a 400 that says why.

use super::{blocking, encode, given, index_of, parse_time};
use crate::index::{DocKind, Facets, Hit, SearchQuery, SortBy, MAX_DEPTH};
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};

/// Query parameters, all optional, taken as text so each bad value names its parameter.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// The query string (empty: everything).
    pub q: Option<String>,
    /// Only this host key.
    pub host: Option<String>,
    /// Only this registered domain.
    pub domain: Option<String>,
    /// Only this detected application.
    pub app: Option<String>,
    /// `page` or `object`.
    pub kind: Option<String>,
    /// Only this language.
    pub lang: Option<String>,
    /// Only this media type.
    pub mime: Option<String>,
    /// Only documents scored at least this.
    pub min_score: Option<String>,
    /// Captured at or after (RFC 3339 or a timestamp).
    pub from: Option<String>,
    /// Captured before (RFC 3339 or a timestamp).
    pub to: Option<String>,
    /// `match` (default), `time`, `relevance` or `score`.
    pub sort: Option<String>,
    /// Page number, from 1.
    pub page: Option<String>,
    /// Results per page, 1 to 1000 (default 20).
    pub per_page: Option<String>,
}

fn number<T: std::str::FromStr>(name: &str, v: Option<String>) -> Result<Option<T>, WebError>
where
    T::Err: std::fmt::Display,
{
    given(v)
        .map(|v| {
            v.parse::<T>().map_err(|e| WebError::BadParameter {
                name: name.into(),
                reason: format!("{v:?}: {e}"),
            })
        })
        .transpose()
}

impl SearchParams {
    /// The library search these parameters ask for; a bad value is a 400 naming it.
    pub fn into_query(self) -> Result<SearchQuery, WebError> {
        let min_score: Option<f32> = number("min_score", self.min_score)?;
        if min_score.is_some_and(|s| !s.is_finite()) {
            return Err(WebError::BadParameter {
                name: "min_score".into(),
                reason: "must be a finite number".into(),
            });
        }
        let defaults = SearchQuery::default();
        let q = self.q.unwrap_or_default();
        crate::index::check_query(&q)?;
        Ok(SearchQuery {
            q,
            host: given(self.host),
            domain: given(self.domain),
            app: given(self.app),
            kind: given(self.kind).map(|k| k.parse::<DocKind>()).transpose()?,
            lang: given(self.lang),
            mime: given(self.mime),
            min_score,
            from: given(self.from)
                .map(|v| parse_time("from", &v))
                .transpose()?,
            to: given(self.to).map(|v| parse_time("to", &v)).transpose()?,
            sort: given(self.sort)
                .map(|s| s.parse::<SortBy>())
                .transpose()?
                .unwrap_or_default(),
            page: number("page", self.page)?.unwrap_or(defaults.page),
            per_page: number("per_page", self.per_page)?.unwrap_or(defaults.per_page),
        })
    }
}

/// A hit with the API path that replays it.
#[derive(Serialize)]
struct HitOut {
    #[serde(flatten)]
    hit: Hit,
    /// `GET` this to see the capture (pages; objects link to their capture's URL and time).
    replay: String,
}

#[derive(Serialize)]
struct SearchOut {
    crawl: String,
    q: String,
    total: u64,
    page: usize,
    per_page: usize,
    /// Pages reachable (paging stops at the first 100,000 results).
    pages: u64,
    hits: Vec<HitOut>,
    facets: Facets,
}

/// Runs the search on the crawl's index: 404 for an unknown crawl, 409 without an index,
/// 400 for a bad query string or parameter.
pub async fn get(
    id: web::Path<String>,
    params: web::Query<SearchParams>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let query = params.into_inner().into_query()?;
    let index = index_of(&state, &id).await?;
    let q = query.clone();
    let results = blocking(move || Ok(index.search(&q)?)).await?;
    let per_page = query.per_page as u64;
    let reachable = results.total.min(MAX_DEPTH as u64);
    let hits = results
        .hits
        .into_iter()
        .map(|hit| HitOut {
            replay: format!(
                "/api/v1/crawls/{}/capture?url={}&at={}",
                encode(&id),
                encode(&hit.url),
                encode(
                    &hit.time
                        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
                )
            ),
            hit,
        })
        .collect();
    Ok(HttpResponse::Ok().json(SearchOut {
        crawl: id,
        q: query.q,
        total: results.total,
        page: query.page,
        per_page: query.per_page,
        pages: reachable.div_ceil(per_page),
        hits,
        facets: results.facets,
    }))
}
