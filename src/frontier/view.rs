//! Read-only views of the frontier for the API and the cockpit: the next URLs in the order they
//! would be fetched, and per-host queue state with the reason a host is waiting.

use super::host::HostView;
use super::{decode_entry, keys, Frontier, FrontierError};
use serde::Serialize;
use std::time::{Duration, Instant};

/// A queued URL as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct QueuedUrl {
    /// The URL.
    pub url: String,
    /// Host key.
    pub host: String,
    /// Priority in [0, 1].
    pub priority: f32,
    /// Navigation depth.
    pub depth: u32,
    /// Times discovered or scored while queued.
    pub discovered: u32,
    /// Scores received.
    pub scores: u32,
    /// Hop path from the seed.
    pub hops: String,
    /// Who queued or last scored it.
    pub source: String,
    /// The page it was found on.
    pub via: Option<String>,
    /// Failed attempts so far.
    pub retries: u8,
    /// Estimated milliseconds until it is fetched (politeness only).
    pub eta_ms: u64,
    /// The breakdown of the latest analysis score it received (document, paragraph, anchor,
    /// URL, parent, total), so the operator sees why it sits where it does; `None` for seeds,
    /// unscored links and URLs only scored by external processes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<crate::model::ScoreParts>,
}

impl Frontier {
    /// The next `limit` URLs in the order they would be fetched (of one host, or of all hosts,
    /// interleaved by when each host may next be fetched from).
    pub fn peek(&self, limit: usize, host: Option<&str>) -> Result<Vec<QueuedUrl>, FrontierError> {
        let now = Instant::now();
        let step = self.cfg.politeness.min_delay.max(Duration::from_millis(1));
        let mut hosts: Vec<(&String, Instant)> = self
            .hosts
            .iter()
            .filter(|(name, h)| h.queued > 0 && host.is_none_or(|x| x == name.as_str()))
            .map(|(name, h)| (name, h.next_allowed.unwrap_or(now).max(now)))
            .collect();
        hosts.sort_by_key(|(_, t)| *t);
        hosts.truncate(limit.max(1));
        let mut out = Vec::new();
        for (name, ready) in hosts {
            let leased = &self.hosts[name].leased;
            let rows = self.store.scan(&keys::host_prefix(name), limit, |k| {
                super::hidden(leased, &self.ws, k)
            })?;
            for (i, (_, v)) in rows.iter().enumerate() {
                let Some((_, u)) = decode_entry(v) else {
                    continue;
                };
                let eta = ready + step * i as u32;
                out.push((
                    eta,
                    QueuedUrl {
                        depth: u.depth(),
                        url: u.url,
                        host: name.clone(),
                        priority: u.priority,
                        discovered: u.discovered,
                        scores: u.scores,
                        hops: u.hops,
                        source: u.source,
                        via: u.via,
                        retries: u.retries,
                        parts: u.parts,
                        eta_ms: eta.saturating_duration_since(now).as_millis() as u64,
                    },
                ));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.priority.total_cmp(&a.1.priority)));
        out.truncate(limit);
        Ok(out.into_iter().map(|(_, q)| q).collect())
    }

    /// Every host's queue state, busiest first.
    pub fn hosts(&self) -> Vec<HostView> {
        let mut v: Vec<HostView> = self.hosts.iter().map(|(n, h)| h.view(n)).collect();
        v.sort_by(|a, b| b.queued.cmp(&a.queued).then(a.host.cmp(&b.host)));
        v
    }
}
