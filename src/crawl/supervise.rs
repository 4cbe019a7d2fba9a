//! How the engine's work runs. Panics stay inside the work that had them: a fetch task that
//! panics fails its URL, and an engine that panics fails its crawl, instead of leaving a URL in
//! flight forever or a crawl `running` with nobody to stop it. Blocking file work leaves the
//! async workers free ([`off_the_workers`]).

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

/// Runs blocking work (a commit's fsyncs) from the engine's task. On a multi-threaded runtime
/// the worker thread first hands its other tasks to the other workers (`block_in_place`), so
/// fetches and timers go on during an fsync; on a current-thread runtime (some tests) there is
/// no other worker, and it runs in place.
pub(crate) fn off_the_workers<R>(f: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

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

    /// With one worker thread, a task blocked in `off_the_workers` still lets another task run.
    #[test]
    fn blocking_work_lets_the_other_tasks_run() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        let seen = rt.block_on(async {
            let f = flag.clone();
            let blocked = tokio::spawn(async move {
                off_the_workers(|| {
                    let until = Instant::now() + Duration::from_secs(10);
                    while !f.load(Ordering::SeqCst) && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    f.load(Ordering::SeqCst)
                })
            });
            // Let the blocked task take the only worker first.
            std::thread::sleep(Duration::from_millis(50));
            let f = flag.clone();
            tokio::spawn(async move { f.store(true, Ordering::SeqCst) });
            blocked.await.unwrap()
        });
        assert!(seen, "the other task never ran while the work blocked");
        // Outside a runtime it runs in place.
        assert_eq!(off_the_workers(|| 7), 7);
    }
}
