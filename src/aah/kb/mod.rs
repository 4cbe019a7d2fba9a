//! The knowledge base in memory: one [`Application`] per XML file of the `kb/` folder, every
//! XPath checked and compiled once at load, every regex compiled, plus the pre-filter that lets a
//! page skip the rules it cannot match. The file format is described in `kb/README.md`,
//! `docs/kb.md` and the grammar `kb/aah-kb.xsd`; `parse` reads it.

mod parse;
mod xml;

use std::path::{Path, PathBuf};

use aho_corasick::AhoCorasick;
use regex::Regex;
use serde::Serialize;

use super::error::AahError;
use super::xpath::Requirement;

/// The general kind of a web application; relaxation prefers patterns of the same category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Weblogs: posts with comments.
    Blog,
    /// Wikis: articles, categories, indexes.
    Wiki,
    /// Discussion boards: forums, threads, posts.
    Forum,
    /// Content management systems: articles, pages, categories.
    Cms,
    /// News sites: articles and section pages.
    News,
    /// Documentation sites: pages of a manual in a table of contents.
    Docs,
}

impl Category {
    /// Every category, in a fixed order.
    pub const ALL: [Category; 6] = [
        Category::Blog,
        Category::Wiki,
        Category::Forum,
        Category::Cms,
        Category::News,
        Category::Docs,
    ];

    /// The lowercase name used in files and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Blog => "blog",
            Category::Wiki => "wiki",
            Category::Forum => "forum",
            Category::Cms => "cms",
            Category::News => "news",
            Category::Docs => "docs",
        }
    }

    /// Parses a category name.
    pub fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// Whether a page level only navigates or also holds web objects to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LevelKind {
    /// Lists of posts, threads, categories: navigation actions only.
    Intermediate,
    /// A single post, thread or article: navigation and extraction actions.
    Terminal,
}

impl LevelKind {
    /// The lowercase name used in files and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            LevelKind::Intermediate => "intermediate",
            LevelKind::Terminal => "terminal",
        }
    }
}

/// A checked XPath expression from the knowledge base.
#[derive(Debug, Clone)]
pub struct Expr {
    /// The expression as written.
    pub src: String,
    /// Line of the element that holds it.
    pub line: usize,
    /// Substrings the page must contain for it to possibly match (detection only).
    pub(crate) req: Requirement,
    /// Pre-filter word ids, resolved once the whole knowledge base is known.
    pub(crate) req_ids: Option<Vec<Vec<usize>>>,
}

/// A plain substring or a regular expression, tested against URLs and header values.
#[derive(Debug, Clone)]
pub enum TextMatch {
    /// The text contains this substring.
    Contains(String),
    /// The regular expression matches somewhere in the text.
    Regex(Regex),
}

impl TextMatch {
    /// Whether `text` matches.
    pub fn is_match(&self, text: &str) -> bool {
        match self {
            TextMatch::Contains(s) => text.contains(s.as_str()),
            TextMatch::Regex(r) => r.is_match(text),
        }
    }

    /// The pattern as written.
    pub fn source(&self) -> &str {
        match self {
            TextMatch::Contains(s) => s,
            TextMatch::Regex(r) => r.as_str(),
        }
    }
}

/// One detection condition.
#[derive(Debug, Clone)]
pub enum Condition {
    /// An XPath expression whose boolean value is true on the page.
    XPath(Expr),
    /// The page URL matches.
    Url(TextMatch),
    /// A response header (name compared case-insensitively) matches.
    Header {
        /// Header name.
        name: String,
        /// What its value must match.
        value: TextMatch,
    },
}

/// A detection rule: conditions of which any one (or all) must hold.
#[derive(Debug, Clone)]
pub struct Detect {
    /// All conditions must hold (`match="all"`), instead of any one.
    pub all: bool,
    /// The conditions, in file order.
    pub conditions: Vec<Condition>,
}

/// A named field of a web object.
#[derive(Debug, Clone)]
pub struct FieldRule {
    /// Field name (`title`, `body`, `author`, `date`, ...).
    pub name: String,
    /// Where its value is, relative to the object's root.
    pub expr: Expr,
    /// An object missing this field makes the extraction action fail (and triggers relaxation).
    pub required: bool,
    /// Shortest plausible value, in characters.
    pub min_len: usize,
}

/// An extraction action: a named object type with its fields.
#[derive(Debug, Clone)]
pub struct ObjectRule {
    /// Object type (`post`, `comment`, `article`, ...).
    pub kind: String,
    /// Where each object is (default: the whole page).
    pub root: Option<Expr>,
    /// One object per root match (comments), instead of the first match only (the post).
    pub repeat: bool,
    /// Finding no object at all is a failure (default: single objects are required).
    pub required: bool,
    /// The fields, in file order.
    pub fields: Vec<FieldRule>,
}

/// What a navigation rule does to the links it selects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NavAction {
    /// Follow, with an optional priority boost in (0, 1].
    Follow(Option<f32>),
    /// Do not queue.
    Skip,
}

/// A navigation action: the links an XPath selects, and what to do with them.
#[derive(Debug, Clone)]
pub struct NavRule {
    /// Rule name, reported as the deciding rule of a link verdict.
    pub name: String,
    /// Selects links: `a`/`area`/`link` elements or `@href` attributes.
    pub expr: Expr,
    /// Follow (boost) or skip.
    pub action: NavAction,
    /// Selecting no link is a failure (and triggers relaxation).
    pub required: bool,
}

/// A URL pattern that is never worth fetching on this application.
#[derive(Debug, Clone)]
pub struct UrlRule {
    /// Rule name (`login`, `edit`, `feed`, ...).
    pub name: String,
    /// The pattern.
    pub pattern: TextMatch,
}

/// A kind of page of an application.
#[derive(Debug, Clone)]
pub struct Level {
    /// Level id, unique in the application (`topic`, `forum`, `index`).
    pub id: String,
    /// Intermediate or terminal.
    pub kind: LevelKind,
    /// How to detect it.
    pub detect: Detect,
    /// Extraction actions (terminal levels only).
    pub objects: Vec<ObjectRule>,
    /// Navigation actions of this level.
    pub nav: Vec<NavRule>,
    /// Verdict for links no rule selects: follow (default) or skip.
    pub others_skip: bool,
    /// Line of the `<level>` element.
    pub line: usize,
}

/// One web application: what one knowledge-base file describes.
#[derive(Debug, Clone)]
pub struct Application {
    /// Lowercase id (`wordpress`, `phpbb`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Category.
    pub category: Category,
    /// Free text for archivists.
    pub description: String,
    /// How to detect the application.
    pub detect: Detect,
    /// Page levels, tried in file order.
    pub levels: Vec<Level>,
    /// Navigation actions that apply on every level.
    pub nav: Vec<NavRule>,
    /// URL patterns never worth fetching.
    pub skip_urls: Vec<UrlRule>,
    /// The file it was read from.
    pub file: PathBuf,
}

/// The loaded knowledge base.
#[derive(Debug, Clone)]
pub struct KnowledgeBase {
    /// Applications, in file-name order.
    pub apps: Vec<Application>,
    prefilter: Prefilter,
}

impl KnowledgeBase {
    /// Loads every `*.xml` file of a folder. Each file is checked completely (XPath compiled,
    /// regexes compiled, names and values validated); the first defect is reported with its file,
    /// line and reason.
    pub fn load(dir: &Path) -> Result<KnowledgeBase, AahError> {
        let mut files = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|source| AahError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| AahError::Read {
                path: dir.to_path_buf(),
                source,
            })?;
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "xml") && path.is_file() {
                files.push(path);
            }
        }
        files.sort();
        if files.is_empty() {
            return Err(AahError::Empty {
                path: dir.to_path_buf(),
            });
        }
        let mut apps: Vec<Application> = Vec::with_capacity(files.len());
        for file in &files {
            let text = std::fs::read_to_string(file).map_err(|source| AahError::Read {
                path: file.clone(),
                source,
            })?;
            let app = parse::application(&text, file)?;
            if let Some(other) = apps.iter().find(|a| a.id == app.id) {
                return Err(AahError::kb(
                    file,
                    1,
                    format!(
                        "application id `{}` is already used by {}",
                        app.id,
                        other.file.display()
                    ),
                ));
            }
            apps.push(app);
        }
        Ok(KnowledgeBase::from_apps(apps))
    }

    /// Parses one application file's text (for tools and tests); `file` names it in errors.
    pub fn parse_file(text: &str, file: &Path) -> Result<Application, AahError> {
        parse::application(text, file)
    }

    /// Builds a knowledge base from applications, indexing their pre-filter words.
    pub fn from_apps(mut apps: Vec<Application>) -> KnowledgeBase {
        let mut words: Vec<String> = Vec::new();
        let mut resolve = |e: &mut Expr| {
            e.req_ids = e.req.as_ref().map(|alts| {
                alts.iter()
                    .map(|alt| {
                        alt.iter()
                            .map(|w| match words.iter().position(|x| x == w) {
                                Some(i) => i,
                                None => {
                                    words.push(w.clone());
                                    words.len() - 1
                                }
                            })
                            .collect()
                    })
                    .collect()
            });
        };
        for app in &mut apps {
            for c in &mut app.detect.conditions {
                if let Condition::XPath(e) = c {
                    resolve(e);
                }
            }
            for level in &mut app.levels {
                for c in &mut level.detect.conditions {
                    if let Condition::XPath(e) = c {
                        resolve(e);
                    }
                }
            }
        }
        let prefilter = Prefilter::new(words);
        KnowledgeBase { apps, prefilter }
    }

    /// The application with this id.
    pub fn app(&self, id: &str) -> Option<&Application> {
        self.apps.iter().find(|a| a.id == id)
    }

    /// Which pre-filter words the page's raw text contains.
    pub(crate) fn scan(&self, text: &str) -> PageWords {
        self.prefilter.scan(text)
    }
}

/// The set of pre-filter words of the knowledge base, matched in one pass over a page.
///
/// An Aho-Corasick automaton over the literal words, searched with overlapping matches so every
/// word is seen wherever it occurs; the scan stops once every word has been found. (A `RegexSet`
/// of the escaped words found the same, at about twice the cost, being a general engine.)
#[derive(Debug, Clone)]
struct Prefilter {
    set: Option<AhoCorasick>,
    len: usize,
}

impl Prefilter {
    fn new(words: Vec<String>) -> Prefilter {
        // Literal patterns of bounded size always build; an error only disables the filter.
        let set = AhoCorasick::new(&words).ok();
        Prefilter {
            set,
            len: words.len(),
        }
    }

    fn scan(&self, text: &str) -> PageWords {
        match &self.set {
            Some(set) if self.len > 0 => {
                let mut present = vec![false; self.len];
                let mut missing = self.len;
                for m in set.find_overlapping_iter(text) {
                    let seen = &mut present[m.pattern().as_usize()];
                    if !*seen {
                        *seen = true;
                        missing -= 1;
                        if missing == 0 {
                            break;
                        }
                    }
                }
                PageWords(Some(present))
            }
            _ => PageWords(None),
        }
    }
}

/// The pre-filter words found on one page (`None`: no filter, everything may match).
#[derive(Debug, Clone)]
pub(crate) struct PageWords(Option<Vec<bool>>);

impl PageWords {
    /// Whether an expression may match on this page.
    pub(crate) fn may_match(&self, e: &Expr) -> bool {
        match (&self.0, &e.req_ids) {
            (Some(present), Some(alts)) => alts
                .iter()
                .any(|alt| alt.iter().all(|&i| present.get(i).copied().unwrap_or(true))),
            _ => true,
        }
    }

    /// Whether the page contains pre-filter word `i` (false without a filter).
    pub(crate) fn present(&self, i: usize) -> bool {
        self.0
            .as_ref()
            .is_some_and(|p| p.get(i).copied().unwrap_or(false))
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
