//! What reaches a crawl while it exists: scored URLs routed to their crawls, blocked patterns,
//! and the views of its frontier, topic and learned relaxations (opening a created crawl's engine
//! only when the answer needs it).

use super::*;

impl Manager {
    /// Applies scored URLs, grouped by crawl; items for unknown or closed crawls are rejected.
    /// A created crawl without an engine gets one (paused) to take them.
    pub async fn intake(self: &Arc<Self>, items: Vec<ScoredUrl>) -> IntakeReport {
        let mut report = IntakeReport {
            received: items.len(),
            ..Default::default()
        };
        let mut by_crawl: BTreeMap<String, Vec<(usize, ScoredUrl)>> = BTreeMap::new();
        for (i, item) in items.into_iter().enumerate() {
            // A control character or an oversized `crawl_id` is refused for what it is, not
            // looked up (and echoed) as an unknown crawl; the engine checks the rest.
            if let Err(reason) = item.check_fields() {
                report.rejected.push(Rejected { index: i, reason });
                continue;
            }
            by_crawl
                .entry(item.crawl_id.clone())
                .or_default()
                .push((i, item));
        }
        for (id, items) in by_crawl {
            let indexes: Vec<usize> = items.iter().map(|(i, _)| *i).collect();
            let reject_all = |report: &mut IntakeReport, indexes: &[usize], reason: String| {
                for &index in indexes {
                    report.rejected.push(Rejected {
                        index,
                        reason: reason.clone(),
                    });
                }
            };
            let Ok(slot) = self.slot(&id) else {
                reject_all(&mut report, &indexes, format!("unknown crawl {id:?}"));
                continue;
            };
            self.wake(&id, &slot);
            let (tx, rx) = oneshot::channel();
            if self
                .send(&id, &slot, Control::Intake(items, tx), "take intake")
                .is_err()
            {
                let state = lock(&slot.status).state;
                reject_all(
                    &mut report,
                    &indexes,
                    format!("crawl {id:?} is {state:?} and takes no intake"),
                );
                continue;
            }
            match rx.await {
                Ok(r) => report.merge(r),
                Err(_) => reject_all(
                    &mut report,
                    &indexes,
                    format!("crawl {id:?} ended before applying the items"),
                ),
            }
        }
        report.rejected.sort_by_key(|r| r.index);
        report
    }

    /// The next URLs in fetch order and the host queues of an open crawl. A created crawl
    /// without an engine gets one (paused): only the engine reads the frontier, which holds the
    /// seeds and whatever intake an earlier run of the server gave it.
    pub async fn frontier(
        self: &Arc<Self>,
        id: &str,
        limit: usize,
        host: Option<String>,
    ) -> Result<FrontierView, ManagerError> {
        let slot = self.slot(id)?;
        self.wake(id, &slot);
        let (tx, rx) = oneshot::channel();
        self.send(
            id,
            &slot,
            Control::Frontier {
                limit,
                host,
                reply: tx,
            },
            "show the frontier",
        )?;
        Ok(rx.await.unwrap_or(Err(Refusal::Ended))?)
    }

    /// The heaviest `n` terms of a crawl's topic vector (keywords, entities and what the
    /// reference pages added), as last published by the crawl; empty for a crawl without a
    /// topic or before it first ran.
    pub fn topic(&self, id: &str, n: usize) -> Result<Vec<TopicTerm>, ManagerError> {
        self.slot(id)?;
        let path = crate::crawl::layout::Layout::new(&self.data, id).topic();
        let topic: crate::analysis::Topic = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                ManagerError::Io(std::io::Error::other(format!("{}: {e}", path.display())))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        Ok(topic
            .top_terms(n)
            .into_iter()
            .map(|(term, weight)| TopicTerm { term, weight })
            .collect())
    }

    /// Blacklists every URL matching `pattern` (a regular expression) in an open crawl: queued
    /// ones leave the frontier, later ones are never queued. A created crawl without an engine
    /// gets one (paused) to store the pattern. An unusable pattern is a [`Refusal`].
    pub async fn block(
        self: &Arc<Self>,
        id: &str,
        pattern: String,
    ) -> Result<crate::crawl::block::BlockReport, ManagerError> {
        self.ask_woken(id, "blacklist a pattern", |reply| Control::Block {
            pattern,
            reply,
        })
        .await
    }

    /// Sends the control `make` builds to a crawl's engine (starting one, paused, for a crawl
    /// that has none) and waits for its answer, or its [`Refusal`].
    async fn ask_woken<T>(
        self: &Arc<Self>,
        id: &str,
        what: &'static str,
        make: impl FnOnce(oneshot::Sender<Result<T, Refusal>>) -> Control,
    ) -> Result<T, ManagerError> {
        let slot = self.slot(id)?;
        self.wake(id, &slot);
        let (tx, rx) = oneshot::channel();
        self.send(id, &slot, make(tx), what)?;
        Ok(rx.await.unwrap_or(Err(Refusal::Ended))?)
    }

    /// Stops blocking `pattern` (exactly as it was blocked) in an open crawl; answers how many
    /// patterns are left. A pattern not in force is [`Refusal::NotBlocked`].
    pub async fn unblock(
        self: &Arc<Self>,
        id: &str,
        pattern: String,
    ) -> Result<usize, ManagerError> {
        self.ask_woken(id, "remove a blocked pattern", |reply| Control::Unblock {
            pattern,
            reply,
        })
        .await
    }

    /// The patterns the application-aware helper of an open crawl relaxed and adopted, with
    /// their evidence (of one host, or all). A created crawl without an engine has fetched
    /// nothing, so it has relaxed nothing: it answers an empty list and is not opened.
    pub async fn relaxations(
        &self,
        id: &str,
        host: Option<String>,
    ) -> Result<Vec<crate::aah::Adoption>, ManagerError> {
        let slot = self.slot(id)?;
        {
            let control = lock(&slot.control);
            if control.is_none() && lock(&slot.status).state == CrawlState::Created {
                return Ok(Vec::new());
            }
        }
        let (tx, rx) = oneshot::channel();
        self.send(
            id,
            &slot,
            Control::Relaxations { host, reply: tx },
            "show the helper's relaxations",
        )?;
        Ok(rx.await.unwrap_or(Err(Refusal::Ended))?)
    }
}
