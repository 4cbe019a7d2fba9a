//! Search: a query string in tantivy's query syntax plus typed filters, ranked or sorted,
//! paged, with highlighted snippets and exact facet counts over all matches.

use super::doc::{to_tantivy_time, CaptureKind, Location};
use super::facets::{FacetCollector, Facets};
use super::stored::Stored;
use super::{Index, IndexError};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::ops::Bound;
use std::str::FromStr;
use tantivy::collector::{Count, DocSetCollector, TopDocs};
use tantivy::query::{
    AllQuery, BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Order, Searcher, TantivyDocument, Term};

/// Largest page size accepted.
pub const MAX_PER_PAGE: usize = 1000;
/// Deepest result reachable by paging (`page × per_page`); the top-k collector holds this many.
pub const MAX_DEPTH: usize = 100_000;
/// Characters of text a snippet shows.
const SNIPPET_CHARS: usize = 200;

/// Pages (captures and revisits) or extracted objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocKind {
    /// Captures and revisits.
    Page,
    /// Extracted web objects.
    Object,
}

impl FromStr for DocKind {
    type Err = IndexError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "page" => Ok(DocKind::Page),
            "object" => Ok(DocKind::Object),
            _ => Err(IndexError::BadParameter {
                name: "kind".into(),
                reason: format!("{s:?} is neither page nor object"),
            }),
        }
    }
}

/// The order of results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SortBy {
    /// Best text match first (BM25; title counts double). The default.
    #[default]
    Match,
    /// Newest capture first.
    Time,
    /// Highest topic relevance first (documents without one last).
    Relevance,
    /// Highest page score first (documents without one last).
    Score,
}

impl FromStr for SortBy {
    type Err = IndexError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "match" => Ok(SortBy::Match),
            "time" => Ok(SortBy::Time),
            "relevance" => Ok(SortBy::Relevance),
            "score" => Ok(SortBy::Score),
            _ => Err(IndexError::BadParameter {
                name: "sort".into(),
                reason: format!("{s:?} is not one of match, time, relevance, score"),
            }),
        }
    }
}

/// A search: what the API and the command line accept. Every filter is optional.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchQuery {
    /// tantivy query syntax over title and text (`word`, `"a phrase"`, `+must -not`,
    /// `title:word`, `status:404`, `host:example.org`, `a OR b`); empty matches everything.
    pub q: String,
    /// Only this host key.
    pub host: Option<String>,
    /// Only this registered domain.
    pub domain: Option<String>,
    /// Only this detected application.
    pub app: Option<String>,
    /// Only pages or only objects (both when unset).
    pub kind: Option<DocKind>,
    /// Only this language.
    pub lang: Option<String>,
    /// Only this media type.
    pub mime: Option<String>,
    /// Only documents whose score is at least this.
    pub min_score: Option<f32>,
    /// Captured at or after.
    pub from: Option<DateTime<Utc>>,
    /// Captured before.
    pub to: Option<DateTime<Utc>>,
    /// Result order.
    pub sort: SortBy,
    /// Page number, from 1.
    pub page: usize,
    /// Results per page, 1 to [`MAX_PER_PAGE`].
    pub per_page: usize,
}

impl Default for SearchQuery {
    fn default() -> Self {
        SearchQuery {
            q: String::new(),
            host: None,
            domain: None,
            app: None,
            kind: None,
            lang: None,
            mime: None,
            min_score: None,
            from: None,
            to: None,
            sort: SortBy::Match,
            page: 1,
            per_page: 20,
        }
    }
}

impl SearchQuery {
    /// A query string with default settings.
    pub fn text(q: impl Into<String>) -> SearchQuery {
        SearchQuery {
            q: q.into(),
            ..SearchQuery::default()
        }
    }
}

/// For an object hit: what it is and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectInfo {
    /// `post`, `comment`, ...
    pub object_type: String,
    /// Record ID of the capture it was extracted from.
    pub parent_record_id: String,
    /// Its author, if known.
    pub author: Option<String>,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// `capture`, `revisit` or `object`.
    pub kind: CaptureKind,
    /// URL.
    pub url: String,
    /// Host key.
    pub host: String,
    /// Registered domain.
    pub domain: String,
    /// Capture (or publication) time.
    pub time: DateTime<Utc>,
    /// HTTP status (objects: none).
    pub status: Option<u16>,
    /// Media type (objects: none).
    pub mime: Option<String>,
    /// Language.
    pub lang: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// Application.
    pub app: Option<String>,
    /// Page level.
    pub level: Option<String>,
    /// Topic relevance.
    pub relevance: Option<f32>,
    /// Page score.
    pub score: Option<f32>,
    /// Payload digest (objects: none).
    pub digest: Option<String>,
    /// Record ID of the response/revisit (objects: none).
    pub record_id: Option<String>,
    /// The record (objects: their capture's record).
    pub location: Location,
    /// Object details, for objects.
    pub object: Option<ObjectInfo>,
    /// HTML: a text fragment, escaped, with matched words in `<mark>`.
    pub snippet: String,
    /// The text-match score (0 when the query has no text terms).
    pub rank: f32,
}

/// A page of results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResults {
    /// Documents matching (all pages).
    pub total: u64,
    /// The requested page.
    pub hits: Vec<Hit>,
    /// Counts over all matches.
    pub facets: Facets,
}

impl Index {
    /// Runs a search. A malformed query string is [`IndexError::BadQuery`]; bad paging or a
    /// non-finite `min_score` is [`IndexError::BadParameter`].
    pub fn search(&self, q: &SearchQuery) -> Result<SearchResults, IndexError> {
        if q.page == 0 || q.per_page == 0 || q.per_page > MAX_PER_PAGE {
            return Err(IndexError::BadParameter {
                name: "page/per_page".into(),
                reason: format!(
                    "page must be at least 1 and per_page 1 to {MAX_PER_PAGE} (got {} and {})",
                    q.page, q.per_page
                ),
            });
        }
        let offset = (q.page - 1).saturating_mul(q.per_page);
        if offset.saturating_add(q.per_page) > MAX_DEPTH {
            return Err(IndexError::BadParameter {
                name: "page".into(),
                reason: format!(
                    "results beyond the first {MAX_DEPTH} cannot be paged to; narrow the search"
                ),
            });
        }
        let (query, text_query) = self.build_query(q)?;
        let searcher = self.reader.searcher();
        let top = TopDocs::with_limit(q.per_page).and_offset(offset);
        let ctx = || format!("{}: search {:?}", self.name, q.q);
        let refused = |e| self.query_error(q, e);
        let (ranked, total, facets): (Vec<(f32, DocAddress)>, usize, Facets) = match q.sort {
            SortBy::Match => searcher
                .search(&query, &(top.order_by_score(), Count, FacetCollector))
                .map_err(refused)?,
            SortBy::Time => {
                let (docs, n, f) = searcher
                    .search(
                        &query,
                        &(
                            top.order_by_fast_field::<tantivy::DateTime>("time", Order::Desc),
                            Count,
                            FacetCollector,
                        ),
                    )
                    .map_err(refused)?;
                (docs.into_iter().map(|(_, a)| (0.0, a)).collect(), n, f)
            }
            SortBy::Relevance | SortBy::Score => {
                let field = if q.sort == SortBy::Relevance {
                    "relevance"
                } else {
                    "score"
                };
                let (docs, n, f) = searcher
                    .search(
                        &query,
                        &(
                            top.order_by_fast_field::<f64>(field, Order::Desc),
                            Count,
                            FacetCollector,
                        ),
                    )
                    .map_err(refused)?;
                (docs.into_iter().map(|(_, a)| (0.0, a)).collect(), n, f)
            }
        };
        let snippets = match &text_query {
            Some(tq) => {
                let mut g = SnippetGenerator::create(&searcher, tq.as_ref(), self.fields.text)
                    .map_err(IndexError::tantivy(ctx()))?;
                g.set_max_num_chars(SNIPPET_CHARS);
                Some(g)
            }
            None => None,
        };
        let mut hits = Vec::with_capacity(ranked.len());
        for (rank, addr) in ranked {
            let doc: TantivyDocument = searcher.doc(addr).map_err(IndexError::tantivy(ctx()))?;
            let s = Stored::new(&doc, &self.fields);
            let snippet = match &snippets {
                Some(g) => {
                    let mut sn = g.snippet_from_doc(&doc);
                    if sn.is_empty() {
                        plain_snippet(&s.text(self.fields.text).unwrap_or_default())
                    } else {
                        sn.set_snippet_prefix_postfix("<mark>", "</mark>");
                        sn.to_html()
                    }
                }
                None => plain_snippet(&s.text(self.fields.text).unwrap_or_default()),
            };
            hits.push(s.hit(rank, snippet));
        }
        Ok(SearchResults {
            total: total as u64,
            hits,
            facets,
        })
    }

    /// Addresses of every document matching `q` (paging and order ignored), for export.
    pub(super) fn matching(
        &self,
        q: &SearchQuery,
    ) -> Result<(Searcher, Vec<DocAddress>), IndexError> {
        let (query, _) = self.build_query(q)?;
        let searcher = self.reader.searcher();
        let set = searcher
            .search(&query, &DocSetCollector)
            .map_err(|e| self.query_error(q, e))?;
        let mut docs: Vec<DocAddress> = set.into_iter().collect();
        docs.sort_unstable();
        Ok((searcher, docs))
    }

    /// A search that tantivy refused: a query string asking what this index cannot answer
    /// (`title:*` on a field that is not a fast field, an unknown field) is the client's
    /// mistake, a 400 naming it; anything else is the index's failure.
    fn query_error(&self, q: &SearchQuery, e: tantivy::TantivyError) -> IndexError {
        use tantivy::TantivyError::{FieldNotFound, InvalidArgument, SchemaError};
        match e {
            FieldNotFound(why) | InvalidArgument(why) | SchemaError(why)
                if !q.q.trim().is_empty() =>
            {
                IndexError::BadQuery {
                    query: super::query_limits::excerpt(&q.q),
                    reason: format!("this index cannot answer it: {why}"),
                }
            }
            e => IndexError::Tantivy {
                context: format!(
                    "{}: search {:?}",
                    self.name,
                    super::query_limits::excerpt(&q.q)
                ),
                source: e,
            },
        }
    }

    /// The full query, and the part parsed from the query string (for snippets).
    fn build_query(&self, q: &SearchQuery) -> Result<Built, IndexError> {
        let f = &self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut text_query = None;
        if !q.q.trim().is_empty() {
            super::check_query(&q.q)?;
            let mut parser = QueryParser::for_index(&self.inner, vec![f.title, f.text]);
            parser.set_conjunction_by_default();
            parser.set_field_boost(f.title, 2.0);
            let parsed = parser.parse_query(&q.q).map_err(|e| IndexError::BadQuery {
                query: q.q.clone(),
                reason: e.to_string(),
            })?;
            clauses.push((Occur::Must, parsed.box_clone()));
            text_query = Some(parsed);
        }
        let term = |field: Field, v: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(field, v),
                IndexRecordOption::Basic,
            ))
        };
        let mut filters: Vec<Box<dyn Query>> = Vec::new();
        for (field, value) in [
            (f.host, &q.host),
            (f.domain, &q.domain),
            (f.app, &q.app),
            (f.lang, &q.lang),
            (f.mime, &q.mime),
        ] {
            if let Some(v) = value {
                filters.push(term(field, v));
            }
        }
        match q.kind {
            Some(DocKind::Page) => filters.push(Box::new(BooleanQuery::new(vec![
                (Occur::Should, term(f.kind, CaptureKind::Capture.as_str())),
                (Occur::Should, term(f.kind, CaptureKind::Revisit.as_str())),
            ]))),
            Some(DocKind::Object) => filters.push(term(f.kind, CaptureKind::Object.as_str())),
            None => {}
        }
        if let Some(min) = q.min_score {
            if !min.is_finite() {
                return Err(IndexError::BadParameter {
                    name: "min_score".into(),
                    reason: format!("{min} is not a number"),
                });
            }
            filters.push(Box::new(RangeQuery::new(
                Bound::Included(Term::from_field_f64(f.score, f64::from(min))),
                Bound::Unbounded,
            )));
        }
        if q.from.is_some() || q.to.is_some() {
            let bound = |t: Option<DateTime<Utc>>, incl: bool| match t {
                Some(t) => {
                    let term = Term::from_field_date(f.time, to_tantivy_time(t));
                    if incl {
                        Bound::Included(term)
                    } else {
                        Bound::Excluded(term)
                    }
                }
                None => Bound::Unbounded,
            };
            filters.push(Box::new(RangeQuery::new(
                bound(q.from, true),
                bound(q.to, false),
            )));
        }
        for filter in filters {
            clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(filter, 0.0))));
        }
        let query: Box<dyn Query> = if clauses.is_empty() {
            Box::new(AllQuery)
        } else {
            Box::new(BooleanQuery::new(clauses))
        };
        Ok((query, text_query))
    }
}

/// A search's full query, and the part parsed from the query string (for snippets).
type Built = (Box<dyn Query>, Option<Box<dyn Query>>);

/// The start of the text, escaped, when no term of the query is in it.
fn plain_snippet(text: &str) -> String {
    let mut end = text.len().min(SNIPPET_CHARS);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 16);
    for c in text[..end].chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    if end < text.len() {
        out.push('…');
    }
    out
}
