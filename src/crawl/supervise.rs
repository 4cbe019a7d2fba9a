//! How the engine's work runs. Panics stay inside the work that had them: a fetch task that
//! panics fails its URL, and an engine that panics fails its crawl, instead of leaving a URL in
//! flight forever or a crawl `running` with nobody to stop it. (Blocking file work leaves the
//! async workers free through [`crate::blocking::off_the_workers`].)

use futures_util::FutureExt;
use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

/// Runs `work` to its end; a panic inside it comes back as `Err` with the panic's message.
///
/// Unwind safety is asserted because what a panicking task leaves behind is never used as it
/// was: its own values are dropped, and what it shares (the store, the frontier) is behind
/// locks and transactions that either completed or did not.
pub async fn catch_panic<F: Future>(work: F) -> Result<F::Output, String> {
    AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .map_err(|payload| panic_message(payload.as_ref()))
}

/// The text a panic was raised with (`panic!("...")` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn panics_become_errors_with_their_message() {
        assert_eq!(catch_panic(async { 7 }).await, Ok(7));
        let n = 3;
        let r = catch_panic(async move {
            tokio::task::yield_now().await;
            if n == 3 {
                panic!("boom at {n}");
            }
            0
        })
        .await;
        assert_eq!(r, Err("boom at 3".to_string()));
        let r = catch_panic(async { std::panic::panic_any(42u8) }).await;
        assert_eq!(r, Err("a panic without a message".to_string()));
    }
}
