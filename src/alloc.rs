//! The allocator of every magpie process: mimalloc, committing its arenas only as they are used.
//!
//! This library names the global allocator, so the `magpie` binary, its tests and its
//! benchmarks all run the same one. The crawl hands millions of small strings (URLs, parsed
//! pages) from one stage to the next; glibc's malloc spent a fifth of the frontier's time
//! merging them back (`malloc_consolidate`), and mimalloc doubled the frontier's update and
//! insert rates (docs/benchmarks-frontier.md).
//!
//! On the crawl itself it measured the same CPU per page as glibc. Its default on Linux
//! commits each arena eagerly, and with transparent huge pages that more than tripled a
//! crawl's peak RSS (61-75 MB with glibc, 201-371 MB) for no speed; committing on use keeps it
//! near 100-120 MB with the frontier as fast. It also gives freed memory back to the OS only
//! 10 ms after it could (100 ms for arenas): a crawl frees a page's buffers within
//! milliseconds, so returning them at once lowered the default crawl's peak RSS by about a
//! fifth, again for no speed (docs/benchmarks.md, "The allocator").
//! Fuzz builds keep the sanitizer's allocator, and the `system-alloc` feature the system's, to
//! measure one against the other.

#[cfg(not(any(fuzzing, feature = "system-alloc")))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(all(target_os = "linux", not(any(fuzzing, feature = "system-alloc"))))]
mod tune {
    use std::ffi::{c_int, c_long};

    unsafe extern "C" {
        fn mi_option_set(option: c_int, value: c_long);
        #[cfg(test)]
        fn mi_option_get(option: c_int) -> c_long;
    }

    /// `mi_option_arena_eager_commit` in mimalloc 3's `mi_option_t` (the version
    /// `Cargo.lock` pins; the test below fails if the option moves).
    const ARENA_EAGER_COMMIT: c_int = 4;
    /// `mi_option_purge_delay` (milliseconds; default 10).
    const PURGE_DELAY: c_int = 15;

    /// Runs before `main` and before any Rust allocation (the loader calls `.init_array`
    /// entries first), so no arena exists yet when the options are set.
    #[used]
    #[unsafe(link_section = ".init_array")]
    static TUNE: extern "C" fn() = tune;

    extern "C" fn tune() {
        // SAFETY: sets plain integer options; mimalloc allows it at any time.
        unsafe {
            mi_option_set(ARENA_EAGER_COMMIT, 0);
            mi_option_set(PURGE_DELAY, 0);
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn arenas_commit_on_use_and_purge_at_once() {
            // SAFETY: reads options.
            assert_eq!(unsafe { mi_option_get(ARENA_EAGER_COMMIT) }, 0);
            assert_eq!(unsafe { mi_option_get(PURGE_DELAY) }, 0);
            // Its neighbour, `use_numa_nodes`, defaults to 0 too; `os_tag` (two on) to 100.
            assert_eq!(unsafe { mi_option_get(PURGE_DELAY + 3) }, 100, "os_tag");
            // The option's default is 2 ("eager where the OS overcommits"): a different
            // index would read some other option, whose default is rarely 0 after a set.
            assert_eq!(
                unsafe { mi_option_get(ARENA_EAGER_COMMIT + 1) },
                1,
                "purge_decommits"
            );
        }
    }
}
