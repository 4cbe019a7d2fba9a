//! Steering a running crawl: pause, resume, stop, scored-URL intake and frontier views, all sent
//! to the engine over one channel, so only the engine task ever touches the frontier.

use crate::aah::{AahError, Adoption};
use crate::frontier::host::HostView;
use crate::frontier::view::QueuedUrl;
use crate::frontier::FrontierError;
use crate::intake::{IntakeReport, ScoredUrl};
use serde::Serialize;
use tokio::sync::oneshot;

/// A command for the engine.
#[derive(Debug)]
pub enum Control {
    /// Start no new fetches until resumed (fetches in flight finish; state stays on disk).
    Pause,
    /// Start fetching again.
    Resume,
    /// Finish fetches in flight, commit and seal the WARC files, and end the run.
    Stop,
    /// Apply scored URLs (already checked for syntax); the items keep their body indexes.
    Intake(Vec<(usize, ScoredUrl)>, oneshot::Sender<IntakeReport>),
    /// The next URLs in fetch order, and host queue states.
    Frontier {
        /// How many URLs.
        limit: usize,
        /// Only this host.
        host: Option<String>,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<FrontierView, Refusal>>,
    },
    /// Blacklist every URL matching a regular expression, queued now or found later.
    Block {
        /// The pattern.
        pattern: String,
        /// Where the answer goes (an unusable pattern is an `Err` saying why).
        reply: oneshot::Sender<Result<super::block::BlockReport, Refusal>>,
    },
    /// Stop blocking a pattern: URLs found later are queued again when it matches them (URLs
    /// it already blacklisted stay blacklisted).
    Unblock {
        /// The pattern, exactly as it was blocked.
        pattern: String,
        /// Where the answer goes: the patterns left in force, or why nothing was removed.
        reply: oneshot::Sender<Result<usize, Refusal>>,
    },
    /// The patterns the application-aware helper relaxed and adopted, with their evidence.
    Relaxations {
        /// Only this host.
        host: Option<String>,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<Vec<Adoption>, Refusal>>,
    },
}

/// Why the engine answered a steering request with no result: the request's fault (the API
/// answers 400 naming the field, the cockpit shows it beside the field) or the crawl's (500).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// A pattern that does not compile, with the reason.
    #[error("pattern: {0}")]
    BadPattern(String),
    /// The crawl holds as many blocked patterns as it may.
    #[error("pattern: at most {0} patterns per crawl")]
    TooManyPatterns(usize),
    /// Unblocking a pattern that is not blocked.
    #[error("pattern: {0:?} is not among the blocked patterns")]
    NotBlocked(String),
    /// The frontier could not be read.
    #[error("frontier: {0}")]
    Frontier(#[from] FrontierError),
    /// The helper's stored adoptions could not be read.
    #[error("the helper's adoptions: {0}")]
    Helper(#[from] AahError),
    /// The engine ended before it answered.
    #[error("the crawl ended before it answered")]
    Ended,
}

impl Refusal {
    /// The field of the request at fault, when the request is at fault; the message starts
    /// with its name.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Refusal::BadPattern(_) | Refusal::TooManyPatterns(_) | Refusal::NotBlocked(_) => {
                Some("pattern")
            }
            Refusal::Frontier(_) | Refusal::Helper(_) | Refusal::Ended => None,
        }
    }

    /// The message without the field's name, for showing beside the field.
    pub fn reason(&self) -> String {
        let message = self.to_string();
        self.field()
            .and_then(|f| message.strip_prefix(f)?.strip_prefix(": "))
            .map_or_else(|| message.clone(), str::to_string)
    }
}

/// The frontier as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct FrontierView {
    /// URLs in the order they would be fetched.
    pub urls: Vec<QueuedUrl>,
    /// Host queues.
    pub hosts: Vec<HostView>,
    /// The URL patterns blocked in this crawl, in the order they were added.
    pub blocked: Vec<String>,
}
