//! Blocking work from async code: a commit's fsyncs, a WARC file's rotation, a wait for room
//! in the indexer's queue. The crawl's engine and the index hand such work here, so the tokio
//! workers that run fetches and timers are never held by it.

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
