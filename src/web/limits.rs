//! Time and number bounds on what clients send: connections, request heads and bodies.
//!
//! A client that trickles a body (one byte every few seconds) would otherwise hold a socket and
//! a handler for ever, with no credential needed on open routes such as `POST /login`; enough
//! of them exhaust the process's file descriptors, and with them the crawls' own sockets and
//! files. So every request body passes through [`bound_body`]: it must keep arriving (no pause
//! longer than [`BODY_IDLE`]) and be complete within [`BODY_TOTAL`], else the request ends with
//! 408 and its connection is closed. The server itself bounds heads, serves one request per
//! connection and bounds the number of connections (see `serve` in `mod.rs`).

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::HttpMessage;
use futures_util::Stream;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{sleep, Instant, Sleep};

/// Longest pause allowed between two pieces of a request body.
pub const BODY_IDLE: Duration = Duration::from_secs(10);
/// Longest time a whole request body may take (64 MiB intake batches need about 1 MB/s).
pub const BODY_TOTAL: Duration = Duration::from_secs(60);
/// Longest time a request head may take to arrive.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections serve one request each (no keep-alive): actix bounds the head of a
/// connection's first request only, so a client could otherwise send one quick request and
/// then trickle the next head for ever, holding the socket. On loopback a new connection per
/// request costs next to nothing.
pub const KEEP_ALIVE: actix_web::http::KeepAlive = actix_web::http::KeepAlive::Disabled;
/// Connections each HTTP worker serves at once; more wait in the listen queue. With the default
/// two workers the server holds at most 512 sockets, well under the usual 1,024 descriptors.
pub const MAX_CONNECTIONS_PER_WORKER: usize = 256;

/// Middleware: the request's body must arrive within [`BODY_IDLE`] per piece and
/// [`BODY_TOTAL`] in all; a reader of it gets a `TimedOut` error past either.
pub async fn bound_body(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let inner = req.take_payload();
    req.set_payload(Payload::from(
        Box::pin(Timed::new(inner, BODY_IDLE, BODY_TOTAL))
            as Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>,
    ));
    next.call(req).await
}

/// A payload that fails with `TimedOut` when it stalls or takes too long.
struct Timed {
    inner: Payload,
    idle_for: Duration,
    idle: Pin<Box<Sleep>>,
    total: Pin<Box<Sleep>>,
}

impl Timed {
    fn new(inner: Payload, idle_for: Duration, total: Duration) -> Timed {
        Timed {
            inner,
            idle_for,
            idle: Box::pin(sleep(idle_for)),
            total: Box::pin(sleep(total)),
        }
    }
}

fn timed_out(what: &str) -> PayloadError {
    PayloadError::Io(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        what.to_string(),
    ))
}

impl Stream for Timed {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.total.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(timed_out(&format!(
                "the request body took longer than {} s",
                BODY_TOTAL.as_secs()
            )))));
        }
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(item) => {
                let next = Instant::now() + self.idle_for;
                self.idle.as_mut().reset(next);
                Poll::Ready(item)
            }
            Poll::Pending => match self.idle.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(timed_out(&format!(
                    "the request body stalled for {} s",
                    self.idle_for.as_secs()
                ))))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn trickle(pieces: usize, gap: Duration) -> Payload {
        let s = futures_util::stream::unfold(0usize, move |i| async move {
            if i == pieces {
                return None;
            }
            tokio::time::sleep(gap).await;
            Some((Ok::<_, PayloadError>(Bytes::from_static(b"x")), i + 1))
        });
        Payload::from(Box::pin(s) as Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>)
    }

    async fn drain(mut t: Timed) -> Result<usize, String> {
        let mut n = 0;
        while let Some(piece) = t.next().await {
            n += piece.map_err(|e| e.to_string())?.len();
        }
        Ok(n)
    }

    #[tokio::test(start_paused = true)]
    async fn a_steady_body_passes() {
        let t = Timed::new(trickle(5, Duration::from_secs(1)), BODY_IDLE, BODY_TOTAL);
        assert_eq!(drain(t).await, Ok(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_stalled_body_fails() {
        let t = Timed::new(trickle(3, Duration::from_secs(11)), BODY_IDLE, BODY_TOTAL);
        let err = drain(t).await.unwrap_err();
        assert!(err.contains("stalled for 10 s"), "{err}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickled_body_fails_at_the_total_limit() {
        // One byte every 5 s never stalls, but never ends either.
        let t = Timed::new(trickle(1000, Duration::from_secs(5)), BODY_IDLE, BODY_TOTAL);
        let err = drain(t).await.unwrap_err();
        assert!(err.contains("longer than 60 s"), "{err}");
    }
}
