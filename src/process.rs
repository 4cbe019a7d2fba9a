//! Process-wide setup every magpie command does first: the open-file limit raised to its ceiling.
//!
//! Every fetch in flight holds a socket, every idle kept connection another, a large response a
//! spool file, and `magpie serve` a socket per client besides. Linux starts a process with a soft
//! limit of 1,024 open files (systemd's and most shells' default), far below what the hard limit
//! allows (often 524,288): a crawl of a few hundred fetches in flight under a server with slow
//! clients ran out at 1,024, with the file limit the operator could have had for the asking. So
//! the soft limit is raised to the hard one at start; an operator who wants less sets the hard
//! limit (`ulimit -Hn`, `LimitNOFILE=`), which a process cannot lift. Running out anyway is handled
//! where it happens (the crawl pauses fetching, see `crawl::engine`).

use std::fmt;
use std::io;

/// What [`raise_fd_limit`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FdLimit {
    /// The soft limit was raised from `from` to `to`.
    Raised {
        /// The soft limit the process started with.
        from: libc::rlim_t,
        /// The soft limit now.
        to: libc::rlim_t,
    },
    /// The soft limit already was as high as it may go.
    Unchanged {
        /// The soft limit.
        limit: libc::rlim_t,
    },
}

impl fmt::Display for FdLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FdLimit::Raised { from, to } => {
                write!(
                    f,
                    "open-file limit (RLIMIT_NOFILE) raised from {from} to {to}"
                )
            }
            FdLimit::Unchanged { limit } => write!(
                f,
                "open-file limit (RLIMIT_NOFILE) left at {limit}, its hard limit"
            ),
        }
    }
}

/// Why the open-file limit could not be raised (magpie runs on with the limit it has).
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// `getrlimit` failed.
    #[error("cannot read the open-file limit (RLIMIT_NOFILE): {0}")]
    Read(io::Error),
    /// `setrlimit` refused the new soft limit.
    #[error("cannot raise the open-file limit (RLIMIT_NOFILE) from {from} to {to}: {source}")]
    Raise {
        /// The soft limit, unchanged.
        from: libc::rlim_t,
        /// The limit asked for.
        to: libc::rlim_t,
        /// What the OS said.
        source: io::Error,
    },
}

/// The errno's name when `e` says file descriptors ran out: `EMFILE` (this process is at its
/// open-file limit) or `ENFILE` (the whole system is at its). Such a failure is the crawler's
/// own shortage, never the fault of whatever it was opening a socket or a file for.
pub fn out_of_descriptors(e: &io::Error) -> Option<&'static str> {
    match e.raw_os_error() {
        Some(libc::EMFILE) => Some("EMFILE"),
        Some(libc::ENFILE) => Some("ENFILE"),
        _ => None,
    }
}

/// Linux's default `fs.nr_open`: the most a soft limit may be when the hard limit is unlimited
/// (`setrlimit` refuses `RLIM_INFINITY` for open files).
const UNLIMITED_CEILING: libc::rlim_t = 1 << 20;

/// This process's soft limit on open files, if it can be read.
pub fn open_file_limit() -> Option<libc::rlim_t> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a pointer to a live, writable value.
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0).then_some(lim.rlim_cur)
}

/// Raises this process's soft limit on open files to its hard limit (children inherit it).
pub fn raise_fd_limit() -> Result<FdLimit, ProcessError> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a pointer to a live, writable value.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(ProcessError::Read(io::Error::last_os_error()));
    }
    let from = lim.rlim_cur;
    let to = if lim.rlim_max == libc::RLIM_INFINITY {
        UNLIMITED_CEILING.max(from)
    } else {
        lim.rlim_max
    };
    if from >= to {
        return Ok(FdLimit::Unchanged { limit: from });
    }
    let raised = libc::rlimit {
        rlim_cur: to,
        rlim_max: lim.rlim_max,
    };
    // SAFETY: setrlimit reads one `rlimit` through a pointer to a live value.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        return Err(ProcessError::Raise {
            from,
            to,
            source: io::Error::last_os_error(),
        });
    }
    Ok(FdLimit::Raised { from, to })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> libc::rlimit {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
        lim
    }

    #[test]
    fn descriptor_exhaustion_is_told_apart() {
        let emfile = io::Error::from_raw_os_error(libc::EMFILE);
        let enfile = io::Error::from_raw_os_error(libc::ENFILE);
        assert_eq!(out_of_descriptors(&emfile), Some("EMFILE"));
        assert_eq!(out_of_descriptors(&enfile), Some("ENFILE"));
        for other in [
            io::Error::from_raw_os_error(libc::ECONNREFUSED),
            io::Error::from_raw_os_error(libc::ENOSPC),
            io::Error::from(io::ErrorKind::ConnectionReset),
            io::Error::other("Too many open files"),
        ] {
            assert_eq!(out_of_descriptors(&other), None, "{other}");
        }
    }

    #[test]
    fn the_soft_limit_ends_at_the_hard_limit() {
        let before = limits();
        let did = raise_fd_limit().expect("raising within the hard limit is allowed");
        let after = limits();
        assert_eq!(after.rlim_max, before.rlim_max, "the hard limit is kept");
        match did {
            FdLimit::Raised { from, to } => {
                assert_eq!((from, to), (before.rlim_cur, after.rlim_cur));
                assert!(to > from);
            }
            FdLimit::Unchanged { limit } => assert_eq!(limit, after.rlim_cur),
        }
        if before.rlim_max != libc::RLIM_INFINITY {
            assert_eq!(after.rlim_cur, before.rlim_max);
        }
        // A second call has nothing left to do.
        assert_eq!(
            raise_fd_limit().expect("second call"),
            FdLimit::Unchanged {
                limit: after.rlim_cur
            }
        );
        assert!(did.to_string().contains("RLIMIT_NOFILE"));
        assert_eq!(open_file_limit(), Some(after.rlim_cur));
    }
}
