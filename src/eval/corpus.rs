//! A web to crawl offline: pages with URLs, HTML bodies and topic labels, plus the seeds and
//! the topic. Built by the generator or read from a directory in the format below (which the
//! generator can also write, so a synthetic web can be inspected or edited).
//!
//! Directory format:
//!
//! - `labels.tsv`: one page per line, tab-separated: `url`, `file` (path of the HTML body,
//!   relative to the directory), `label` (`on` for a page about the topic, `off` otherwise)
//!   and an optional `role` (`seed` for a crawl seed). Empty lines, lines starting with `#`
//!   and a first line starting with `url<TAB>` are skipped.
//! - `topic.json` (optional): the spec's `topic` section (keywords, entities, languages). The
//!   seeds are always added as reference pages. Without it the topic is the seeds alone.
//!
//! Targets (for target recall) are all `on` pages that are not seeds.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use super::EvalError;
use crate::spec::RawTopic;

/// One page of an offline web.
#[derive(Debug, Clone, PartialEq)]
pub struct WebPage {
    /// Its URL, in the form `url::Url` serialises it (links are looked up by this).
    pub url: String,
    /// The HTML body.
    pub html: Vec<u8>,
    /// Whether the page is about the topic (ground truth).
    pub on_topic: bool,
}

/// An offline web with its crawl setup.
#[derive(Debug, Clone, PartialEq)]
pub struct Web {
    /// All pages; a page's index is its id.
    pub pages: Vec<WebPage>,
    /// Ids of the seed pages.
    pub seeds: Vec<u32>,
    /// The topic section of the spec the crawls use.
    pub topic: RawTopic,
    /// What this web is, for the report.
    pub description: String,
}

impl Web {
    /// Page ids by URL.
    pub(crate) fn index(&self) -> HashMap<&str, u32> {
        self.pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.url.as_str(), i as u32))
            .collect()
    }

    /// Ids of the target pages: on-topic pages that are not seeds.
    pub fn targets(&self) -> Vec<u32> {
        (0..self.pages.len() as u32)
            .filter(|&i| self.pages[i as usize].on_topic && !self.seeds.contains(&i))
            .collect()
    }

    /// Reads a web from a directory (see the module documentation for the format).
    pub fn read_dir(dir: &Path) -> Result<Web, EvalError> {
        let labels_path = dir.join("labels.tsv");
        let labels = read(&labels_path)?;
        let labels = String::from_utf8_lossy(&labels);
        let bad = |line: usize, message: String| EvalError::Labels {
            path: labels_path.display().to_string(),
            line,
            message,
        };
        let mut web = Web {
            pages: vec![],
            seeds: vec![],
            topic: RawTopic::default(),
            description: format!("pages from {}", dir.display()),
        };
        for (n, line) in labels.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty()
                || line.starts_with('#')
                || (n == 0 && line.starts_with("url\t"))
            {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            if !(3..=4).contains(&cols.len()) {
                return Err(bad(
                    n + 1,
                    format!(
                        "expected 3 or 4 tab-separated columns, found {}",
                        cols.len()
                    ),
                ));
            }
            let url = url::Url::parse(cols[0].trim())
                .map_err(|e| bad(n + 1, format!("not a URL ({e}): {}", cols[0])))?;
            let on_topic = match cols[2].trim() {
                "on" => true,
                "off" => false,
                other => {
                    return Err(bad(
                        n + 1,
                        format!("label must be `on` or `off`, not {other:?}"),
                    ))
                }
            };
            match cols.get(3).map(|r| r.trim()) {
                None | Some("") => {}
                Some("seed") => web.seeds.push(web.pages.len() as u32),
                Some(other) => {
                    return Err(bad(
                        n + 1,
                        format!("role must be `seed` or empty, not {other:?}"),
                    ))
                }
            }
            let html = read(&dir.join(cols[1].trim()))?;
            web.pages.push(WebPage {
                url: url.as_str().to_owned(),
                html,
                on_topic,
            });
        }
        if web.seeds.is_empty() {
            return Err(bad(0, "no page has the role `seed`".into()));
        }
        let topic_path = dir.join("topic.json");
        if topic_path.exists() {
            let text = read(&topic_path)?;
            web.topic = serde_json::from_slice(&text).map_err(|e| EvalError::Topic {
                path: topic_path.display().to_string(),
                message: e.to_string(),
            })?;
        }
        Ok(web)
    }

    /// Writes the web to a directory in the format [`Web::read_dir`] reads.
    pub fn write_dir(&self, dir: &Path) -> Result<(), EvalError> {
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| EvalError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut labels = String::from("url\tfile\tlabel\trole\n");
        for (i, p) in self.pages.iter().enumerate() {
            let file = format!("p{i:05}.html");
            let path = dir.join(&file);
            std::fs::write(&path, &p.html).map_err(io(&path))?;
            let role = if self.seeds.contains(&(i as u32)) {
                "seed"
            } else {
                ""
            };
            let label = if p.on_topic { "on" } else { "off" };
            let _ = writeln!(labels, "{}\t{file}\t{label}\t{role}", p.url);
        }
        let path = dir.join("labels.tsv");
        std::fs::write(&path, labels).map_err(io(&path))?;
        let path = dir.join("topic.json");
        let topic = serde_json::to_string_pretty(&self.topic).unwrap_or_default();
        std::fs::write(&path, topic).map_err(io(&path))?;
        Ok(())
    }
}

fn read(path: &Path) -> Result<Vec<u8>, EvalError> {
    std::fs::read(path).map_err(|source| EvalError::Io {
        path: path.display().to_string(),
        source,
    })
}
