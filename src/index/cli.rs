//! The `magpie search` command: its arguments, logic and output, so `main.rs` only names it;
//! and opening an existing crawl's index, for the commands that read one.

use super::{index_dir, Index, IndexError, SearchQuery, SearchResults};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `magpie search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The crawl name.
    pub crawl: String,
    /// The query, e.g. `"exact phrase" +word -other title:word status:404`.
    #[arg(default_value = "")]
    pub query: String,
    /// Data folder.
    #[arg(long, default_value = "magpie-data")]
    pub data: PathBuf,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// The selection's filters (host, application, kind, language, dates, score).
    #[command(flatten)]
    pub filters: Filters,
    /// Order: match, time, relevance or score.
    #[arg(long, default_value = "match")]
    pub sort: String,
    /// Page number (from 1).
    #[arg(long, default_value_t = 1)]
    pub page: usize,
    /// Results per page.
    #[arg(long, default_value_t = 20)]
    pub per_page: usize,
}

/// Selection filters shared by `magpie search` and `magpie export`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Filters {
    /// Only this host (host[:port]).
    #[arg(long)]
    pub host: Option<String>,
    /// Only this detected application.
    #[arg(long)]
    pub app: Option<String>,
    /// Only pages or only extracted objects: page or object.
    #[arg(long)]
    pub kind: Option<String>,
    /// Only this language.
    #[arg(long)]
    pub lang: Option<String>,
    /// Only documents with at least this score.
    #[arg(long)]
    pub min_score: Option<f32>,
}

impl Filters {
    /// The search for query string `q` with these filters.
    pub fn query(self, q: String) -> Result<SearchQuery, IndexError> {
        Ok(SearchQuery {
            q,
            host: self.host,
            app: self.app,
            kind: self.kind.map(|k| k.parse()).transpose()?,
            lang: self.lang,
            min_score: self.min_score,
            ..SearchQuery::default()
        })
    }
}

/// Runs `magpie search`.
pub fn run_search(a: SearchArgs, out: &mut dyn Write) -> Result<ExitCode, IndexError> {
    let q = SearchQuery {
        sort: a.sort.parse()?,
        page: a.page,
        per_page: a.per_page,
        ..a.filters.query(a.query)?
    };
    search(&a.data, &a.crawl, &q, a.json, out)?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the index of an existing crawl for reading; a crawl without an index is told to
/// rebuild it.
pub fn open_existing(data: &Path, crawl: &str) -> Result<Index, IndexError> {
    let root = data.join(crawl);
    if !root.is_dir() {
        return Err(IndexError::Io {
            path: root,
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such crawl"),
        });
    }
    let dir = index_dir(data, crawl);
    if !dir.join("meta.json").exists() {
        return Err(IndexError::NoIndex {
            dir: dir.display().to_string(),
        });
    }
    Index::open(&dir)
}

/// `magpie search CRAWL QUERY [--json]`: one page of results, as text or as JSON.
pub fn search(
    data: &Path,
    crawl: &str,
    q: &SearchQuery,
    json: bool,
    out: &mut dyn Write,
) -> Result<SearchResults, IndexError> {
    let index = open_existing(data, crawl)?;
    let results = index.search(q)?;
    let io = IndexError::io("stdout");
    if json {
        serde_json::to_writer(&mut *out, &results).map_err(|e| IndexError::Io {
            path: "stdout".into(),
            source: e.into(),
        })?;
        writeln!(out).map_err(io)?;
    } else {
        write_text(&results, q, out).map_err(io)?;
    }
    Ok(results)
}

fn write_text(r: &SearchResults, q: &SearchQuery, out: &mut dyn Write) -> std::io::Result<()> {
    let pages = r.total.div_ceil(q.per_page as u64).max(1);
    writeln!(out, "{} matches (page {} of {pages})", r.total, q.page)?;
    let first = (q.page - 1) * q.per_page;
    for (i, h) in r.hits.iter().enumerate() {
        writeln!(
            out,
            "{:>4}. {}\n      {}",
            first + i + 1,
            h.title.as_deref().unwrap_or("(no title)"),
            h.url
        )?;
        let mut facts = vec![h.time.format("%Y-%m-%d %H:%M:%S").to_string()];
        facts.extend(h.status.map(|s| s.to_string()));
        facts.extend(h.mime.clone().filter(|m| !m.is_empty()));
        facts.push(h.kind.as_str().to_string());
        facts.extend(h.app.clone());
        facts.extend(h.score.map(|s| format!("score {s:.3}")));
        writeln!(
            out,
            "      {}  {}@{}",
            facts.join("  "),
            h.location.file,
            h.location.offset
        )?;
        if !h.snippet.is_empty() {
            writeln!(out, "      {}", terminal_text(&h.snippet))?;
        }
    }
    let list = |name: &str, v: &[super::FacetCount]| -> String {
        let items: Vec<String> = v
            .iter()
            .take(10)
            .map(|c| format!("{} ({})", c.value, c.count))
            .collect();
        format!("{name}: {}", items.join(", "))
    };
    let f = &r.facets;
    for (name, v) in [
        ("hosts", &f.hosts),
        ("status", &f.status_classes),
        ("languages", &f.langs),
        ("applications", &f.apps),
    ] {
        if !v.is_empty() {
            writeln!(out, "{}", list(name, v))?;
        }
    }
    Ok(())
}

/// A snippet for a terminal: marks become `*…*`, entities are decoded.
fn terminal_text(html: &str) -> String {
    html.replace("<mark>", "*")
        .replace("</mark>", "*")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}
