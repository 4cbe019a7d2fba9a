//! The processor threads: one per core, fed from one queue, run the processor chain on fetched
//! exchanges.
//!
//! Why not `spawn_blocking` behind a semaphore: there, every page waits for a permit, then for a
//! blocking-pool thread to wake, and the permit is held idle meanwhile; on two cores those
//! hand-offs left about a sixth of the CPU unused. The blocking pool also grows to dozens of
//! threads, each with its own allocator heap. Here a thread that finishes a page takes the next
//! one from the queue at once, and the number of threads (so of pages being processed, and of
//! heaps) is fixed.

use super::supervise::panic_message;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tokio::sync::oneshot;

/// A queued job; called with `true` on a processor thread, or with `false` where it was queued
/// when the threads have stopped (it then only reports that).
type Job = Box<dyn FnOnce(bool) + Send>;

/// A fixed set of threads taking jobs from one queue. Dropping it closes the queue: the threads
/// finish the jobs already queued and end, and nobody waits for them (the last owner may be an
/// async task, which must not block).
pub(crate) struct Processors {
    tx: crossbeam_channel::Sender<Job>,
}

impl Processors {
    /// Starts `n` threads (at least one).
    pub(crate) fn start(n: usize) -> std::io::Result<Processors> {
        let (tx, rx) = crossbeam_channel::unbounded::<Job>();
        for i in 0..n.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("magpie-proc-{i}"))
                .spawn(move || {
                    yield_to_later_stages();
                    while let Ok(job) = rx.recv() {
                        // `f` is guarded inside the job; this keeps the thread alive should
                        // the step after it panic too.
                        let _ = catch_unwind(AssertUnwindSafe(|| job(true)));
                    }
                })?;
        }
        Ok(Processors { tx })
    }

    /// Runs `f` on a processor thread, then `finish` with its result, or with the message of
    /// the panic that stopped `f` (the thread itself goes on), on the same thread: a result that
    /// goes straight on to its next stage wakes no other thread. Should the threads have
    /// stopped, `finish` is told so at once, on the calling thread.
    pub(crate) fn then<T, F, G>(&self, f: F, finish: G)
    where
        F: FnOnce() -> T + Send + 'static,
        G: FnOnce(Result<T, String>) + Send + 'static,
    {
        let job: Job = Box::new(move |run| {
            if run {
                finish(catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_message(p.as_ref())));
            } else {
                finish(Err("the processor threads have stopped".to_string()));
            }
        });
        if let Err(refused) = self.tx.send(job) {
            (refused.into_inner())(false);
        }
    }

    /// Runs `f` on a processor thread; the result comes back through the future.
    pub(crate) fn run<T, F>(&self, f: F) -> impl std::future::Future<Output = Result<T, String>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        self.then(f, move |out| {
            let _ = done.send(out);
        });
        async move {
            result
                .await
                .unwrap_or_else(|_| Err("a processor thread dropped its job".to_string()))
        }
    }
}

/// Lowers the calling thread's priority a little (its nice value plus 5), so that on busy cores
/// the stages after the processor chain (the engine, the index writer, the fetches) run first.
/// Those stages consume what the processors produce; without this, a processor thread gets the
/// same share of the CPU as the index writer's single thread, the writer falls behind, and
/// finished pages pile up in its queue (tantivy buffers up to 10,000 documents) instead of the
/// crawl slowing down. Failing to change the priority is harmless.
fn yield_to_later_stages() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread; no memory is shared with the kernel.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        // getpriority may return -1 as a nice value; errno tells an error apart.
        *libc::__errno_location() = 0;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        if now != -1 || *libc::__errno_location() == 0 {
            let _ = libc::setpriority(libc::PRIO_PROCESS, tid, (now + 5).min(19));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_on_the_threads_and_panics_come_back_as_errors() {
        let p = Processors::start(2).expect("threads");
        let name = p
            .run(|| std::thread::current().name().map(str::to_owned))
            .await;
        assert!(name
            .expect("ran")
            .expect("named")
            .starts_with("magpie-proc-"));
        let all: Vec<_> = (0..50u64).map(|i| p.run(move || i * i)).collect();
        for (i, r) in all.into_iter().enumerate() {
            assert_eq!(r.await, Ok((i * i) as u64));
        }
        let failed = p.run(|| -> u8 { panic!("bad page") }).await;
        assert_eq!(failed, Err("bad page".to_string()));
        assert_eq!(p.run(|| 7).await, Ok(7), "a panic does not stop the thread");
    }

    #[test]
    fn the_result_goes_on_from_the_processor_thread() {
        let p = Processors::start(1).expect("threads");
        let (tx, rx) = std::sync::mpsc::channel();
        p.then(
            || 6 * 7,
            move |r| {
                let name = std::thread::current().name().map(str::to_owned);
                tx.send((r, name)).expect("send");
            },
        );
        let (r, name) = rx.recv().expect("finished");
        assert_eq!(r, Ok(42));
        assert!(name.expect("named").starts_with("magpie-proc-"));
    }

    #[test]
    fn dropping_the_pool_finishes_queued_jobs() {
        let (tx, rx) = std::sync::mpsc::channel();
        let p = Processors::start(1).expect("threads");
        for i in 0..10 {
            let tx = tx.clone();
            p.then(move || i, move |r| tx.send(r).expect("send"));
        }
        drop((p, tx));
        let done: Vec<_> = rx.iter().collect();
        assert_eq!(done, (0..10).map(Ok).collect::<Vec<_>>());
    }

    #[test]
    fn a_panic_after_the_job_does_not_stop_the_thread() {
        let p = Processors::start(1).expect("threads");
        p.then(|| (), |_| panic!("in the step after"));
        let (tx, rx) = std::sync::mpsc::channel();
        p.then(|| 1, move |r| tx.send(r).expect("send"));
        assert_eq!(rx.recv(), Ok(Ok(1)));
    }

    #[test]
    fn the_threads_run_below_the_callers_priority() {
        let p = Processors::start(1).expect("threads");
        let (tx, rx) = std::sync::mpsc::channel();
        // SAFETY: getpriority only reads the calling thread's nice value.
        let mine = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        p.then(
            || unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                libc::getpriority(libc::PRIO_PROCESS, tid)
            },
            move |r| tx.send(r).expect("send"),
        );
        let theirs = rx.recv().expect("ran").expect("no panic");
        assert_eq!(theirs, (mine + 5).min(19));
    }
}
