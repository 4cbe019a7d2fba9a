//! What the helper says about one page: the detected application and level, the web objects
//! extracted, a verdict per navigation link and a report per action. Serialised as JSON for the
//! WARC metadata record (`application/vnd.magpie.aah+json`, see `docs/kb.md`) and by
//! `magpie kb detect --json`.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::kb::{Category, LevelKind};

/// The media type of the JSON form of an [`AppMatch`], for a WARC metadata record.
pub use crate::model::AAH_MEDIA_TYPE;

/// The detected application.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppInfo {
    /// Lowercase knowledge-base id (`wordpress`, `phpbb`).
    pub name: String,
    /// Its category.
    pub category: Category,
    /// Detected through an adopted relaxation, not the knowledge base as written.
    pub relaxed: bool,
}

/// The detected page level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelInfo {
    /// Level id from the knowledge base (`topic`, `post`, `index`).
    pub name: String,
    /// Intermediate (navigation only) or terminal (navigation and extraction).
    pub kind: LevelKind,
    /// Detected through an adopted relaxation.
    pub relaxed: bool,
}

/// One extracted web object.
#[derive(Debug, Clone, PartialEq)]
pub struct WebObject {
    /// Object type (`post`, `comment`, `article`).
    pub kind: String,
    /// Field name and whitespace-normalised text, in knowledge-base order; empty fields omitted.
    pub fields: Vec<(String, String)>,
}

impl WebObject {
    /// The value of a field.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Serialize for WebObject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Fields<'a>(&'a [(String, String)]);
        impl Serialize for Fields<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("type", &self.kind)?;
        m.serialize_entry("fields", &Fields(&self.fields))?;
        m.end()
    }
}

/// What to do with a navigation link.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkAction {
    /// Queue it as usual.
    Follow,
    /// Queue it with a higher priority (see [`LinkVerdict::boost`]).
    Boost,
    /// Do not queue it.
    Skip,
    /// Queue it with the lowest priority: on a host whose category no page has shown yet, a
    /// link the helper would skip there once it knows (`/login`, a `.txt` rendering) is
    /// fetched last, and taken out of the queue if the host turns out to be a forum, wiki,
    /// blog, news or docs site; on any other host it is still archived.
    Defer,
}

/// The `rule` of a verdict no knowledge-base rule gave: the link is simply followed.
pub const DEFAULT_RULE: &str = "default";

/// The verdict on one navigation link of the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkVerdict {
    /// The link's absolute URL, as the parse stage found it.
    pub url: String,
    /// Follow, boost, skip or defer.
    pub action: LinkAction,
    /// For `boost`: how much to add to the priority (in (0, 1]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boost: Option<f32>,
    /// The deciding rule: `app/level/name` for a knowledge-base action, `app/*/name` for an
    /// application-wide one or a skipped URL pattern, `default` when no rule applied.
    pub rule: String,
    /// The URL to queue in its place: the host is known to redirect this one there (a folder's
    /// path without its final slash), so the redirect is not fetched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instead: Option<String>,
}

/// How an action fared on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionStatus {
    /// The knowledge-base expression worked.
    Ok,
    /// An adopted relaxation worked where the knowledge-base expression failed.
    Relaxed,
    /// It failed; a relaxed candidate is being validated on further pages (not used yet).
    Pending,
    /// It failed and nothing replaced it.
    Failed,
    /// A rule learned on this page (a navigation rule of an unknown application's host).
    Learned,
}

/// What happened to one action (extraction field or object, navigation rule, detection).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionReport {
    /// Action id within the application: `level/object`, `level/object/field`, `level/rule`,
    /// `*/rule`, `detect` or `level/detect`.
    pub action: String,
    /// Outcome.
    pub status: ActionStatus,
    /// The expression that was used (or is being validated, for `pending`).
    pub expr: String,
    /// For `relaxed` and `pending`: the knowledge-base expression that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
}

/// Everything the helper learned from one page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppMatch {
    /// The page URL.
    pub url: String,
    /// The detected application, if any.
    pub application: Option<AppInfo>,
    /// The detected level, if any.
    pub level: Option<LevelInfo>,
    /// Extracted web objects, in document order per object rule.
    pub objects: Vec<WebObject>,
    /// One verdict per navigation link (hop `L`) of the page, in the order given.
    pub links: Vec<LinkVerdict>,
    /// Actions applied and their outcome.
    pub actions: Vec<ActionReport>,
}

impl AppMatch {
    /// A page nothing was detected on: every navigation link is followed.
    pub fn nothing(url: &str) -> AppMatch {
        AppMatch {
            url: url.to_owned(),
            application: None,
            level: None,
            objects: Vec::new(),
            links: Vec::new(),
            actions: Vec::new(),
        }
    }

    /// The verdict on a URL, if the page linked to it.
    pub fn verdict(&self, url: &str) -> Option<&LinkVerdict> {
        self.links.iter().find(|l| l.url == url)
    }

    /// The `magpie kb detect --json` contract: `url`, `application`, `level`, `objects` and
    /// `links`, in that order (the action reports are left out).
    pub fn contract(&self) -> Contract<'_> {
        Contract {
            url: &self.url,
            application: self.application.as_ref(),
            level: self.level.as_ref(),
            objects: &self.objects,
            links: &self.links,
        }
    }
}

/// The stable JSON shape printed by `magpie kb detect --json` (see [`AppMatch::contract`]).
#[derive(Debug, Serialize)]
pub struct Contract<'a> {
    /// The page URL.
    pub url: &'a str,
    /// The detected application, or null.
    pub application: Option<&'a AppInfo>,
    /// The detected level, or null.
    pub level: Option<&'a LevelInfo>,
    /// Extracted objects.
    pub objects: &'a [WebObject],
    /// Link verdicts.
    pub links: &'a [LinkVerdict],
}
