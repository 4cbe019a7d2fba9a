//! Steering a running crawl: pause, resume, stop, scored-URL intake and frontier views, all sent
//! to the engine over one channel, so only the engine task ever touches the frontier.

use crate::aah::Adoption;
use crate::frontier::host::HostView;
use crate::frontier::view::QueuedUrl;
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
        reply: oneshot::Sender<Result<FrontierView, String>>,
    },
    /// Blacklist every URL matching a regular expression, queued now or found later.
    Block {
        /// The pattern.
        pattern: String,
        /// Where the answer goes (an unusable pattern is an `Err` saying why).
        reply: oneshot::Sender<Result<super::block::BlockReport, String>>,
    },
    /// Stop blocking a pattern: URLs found later are queued again when it matches them (URLs
    /// it already blacklisted stay blacklisted).
    Unblock {
        /// The pattern, exactly as it was blocked.
        pattern: String,
        /// Where the answer goes: the patterns left in force, or why nothing was removed.
        reply: oneshot::Sender<Result<usize, String>>,
    },
    /// The patterns the application-aware helper relaxed and adopted, with their evidence.
    Relaxations {
        /// Only this host.
        host: Option<String>,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<Vec<Adoption>, String>>,
    },
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
