//! The application-aware helper (AAH, ARCOMEM §4.1): knows, from an XML knowledge base written
//! by archivists, how to recognise web applications (WordPress, phpBB, MediaWiki, ...) and their
//! kinds of pages, which web objects to extract from them and which links are worth queueing; and
//! adapts patterns that fail on templates the knowledge base does not describe exactly.
//!
//! Each page goes through three steps in [`Helper::analyze`]: detect the application (XPath,
//! URL and header conditions, cheaply pre-filtered), detect the page level (intermediate:
//! navigation only; terminal: navigation and extraction), run the crawling actions. The result,
//! an [`AppMatch`], serialises to JSON for a WARC metadata record ([`AAH_MEDIA_TYPE`]).
//!
//! - `kb`: the knowledge base (format in `kb/README.md` and `docs/kb.md`);
//! - `xpath`: checking expressions before sxd-xpath sees them, pre-filter words, safe evaluation;
//! - `dom`: HTML (html5ever, scripting off, guarded) to an sxd-document with documented names;
//! - `engine`: running detection, extraction and navigation rules on one page;
//! - `native`: the fast path for simple attribute-testing paths (the XPath engine does the rest);
//! - `helper`, `actions`, `detection`: the per-page orchestration, the actions, relaxed
//!   detection, and per-host memory;
//! - `relax`: relaxation, validation and adoption of patterns, relearning on recrawls, and the
//!   typed store wrapper;
//! - `generic`: pages of applications the knowledge base does not know: category from general
//!   evidence (schema.org, generator, URL, class and link words), list or single item from the
//!   layout, title and body; `unknown`: how the helper uses it and adopts a host's category;
//!   `reread`: the pages it read too early, kept to be read again; `memory`: what the helper
//!   remembers of hosts, changed only by its owner from what readings return;
//! - `output`: the result types; `cli`: `magpie kb check` and `magpie kb detect`.

mod actions;
mod builtin;
pub mod cli;
mod detection;
pub(crate) mod dom;
pub(crate) mod engine;
mod error;
pub mod generic;
mod helper;
pub(crate) mod kb;
mod memory;
mod native;
mod output;
pub(crate) mod relax;
mod reread;
pub mod tester;
mod unknown;
pub(crate) mod xpath;

pub use builtin::builtin;
pub use error::AahError;
pub use generic::NoPage;
pub use helper::{Helper, HelperOptions, Reading};
pub use kb::{Category, KnowledgeBase, LevelKind};
pub use memory::{Reread, Rereading, Taught};
pub use output::{
    ActionReport, ActionStatus, AppInfo, AppMatch, Contract, LevelInfo, LinkAction, LinkVerdict,
    WebObject, AAH_MEDIA_TYPE, DEFAULT_RULE,
};
pub use relax::store::Adoption;
pub use reread::{Capture, Revision};
