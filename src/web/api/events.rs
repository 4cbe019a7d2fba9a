//! `GET /api/v1/crawls/{id}/events`: server-sent events. A `stats` event (the crawl's state and
//! live statistics, as `GET /api/v1/crawls/{id}` shows them) at once and then every second,
//! and the crawl's notable events (`host-blocked`, `crawl-paused`, `crawl-resumed`,
//! `fetching-paused`, `crawl-finished`, ...) as they happen. The stream ends when the server
//! shuts down.

use crate::crawl::stats::Event;
use crate::manager::Manager;
use crate::web::error::WebError;
use crate::web::AppState;
use actix_web::http::header;
use actix_web::{web, HttpResponse};
use serde::Serialize;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::{broadcast, watch};

/// What one event stream follows.
struct Follow {
    id: String,
    manager: Arc<Manager>,
    events: broadcast::Receiver<Event>,
    tick: tokio::time::Interval,
    closing: watch::Receiver<bool>,
}

/// One SSE frame: `event: KIND` and one line of JSON data.
fn frame(kind: &str, data: &impl Serialize) -> web::Bytes {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "null".into());
    web::Bytes::from(format!("event: {kind}\ndata: {json}\n\n"))
}

impl Follow {
    /// The next frame, or `None` when the stream should end.
    async fn next(&mut self) -> Option<web::Bytes> {
        loop {
            if *self.closing.borrow() {
                return None;
            }
            tokio::select! {
                changed = self.closing.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
                _ = self.tick.tick() => {
                    let view = self.manager.get(&self.id).ok()?;
                    return Some(frame("stats", &view));
                }
                ev = self.events.recv() => match ev {
                    Ok(e) => return Some(frame(&e.kind, &e)),
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        return Some(frame("lagged", &serde_json::json!({ "missed": missed })));
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }
}

/// Opens the event stream of a crawl; 404 for an unknown crawl.
pub async fn stream(
    id: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, WebError> {
    let id = id.into_inner();
    let stats = state.manager.stats(&id)?;
    let mut tick = tokio::time::interval(state.config.stats_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let follow = Follow {
        id,
        manager: state.manager.clone(),
        events: stats.events.subscribe(),
        tick,
        closing: state.closing(),
    };
    let body = futures_util::stream::unfold(follow, |mut f| async move {
        let bytes = f.next().await?;
        Some((Ok::<_, Infallible>(bytes), f))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}
