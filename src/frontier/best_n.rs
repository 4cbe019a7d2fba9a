//! The best-N-first gate: how good must a URL be to be fetched while others are in flight?
//!
//! A sequential best-first crawler fetches the single best URL each time. With many fetches in
//! flight, "the best URL of every host that may be fetched now" can be a poor URL on a host
//! that has nothing better, spending the page budget on it while better URLs wait on busy
//! hosts. Pant, Srinivasan & Menczer's *best-N-first* crawler keeps the fetches among the N best
//! queued URLs instead; this module answers "is this URL among the N best?" in O(log) time.
//!
//! Priorities are counted in [`BUCKETS`] buckets (steps of 1e-4 over [0, 1]) in a Fenwick tree,
//! so the N-th best priority is found by a binary descent, and every queue change is one
//! update. Ties are generous: every URL in the N-th best URL's bucket passes.

/// Buckets of priority; bucket 0 holds the best URLs (priority 1).
pub const BUCKETS: usize = 10_001;

/// Inverted-priority units per bucket (inverted priorities run from 0 to 1e9).
const STEP: u32 = 100_000;

/// Counts of queued URLs by priority bucket.
#[derive(Debug, Clone)]
pub struct BestN {
    tree: Vec<u32>,
    total: u64,
    /// Counting is off (the crawl has no best-N gate): every update is free.
    off: bool,
}

impl Default for BestN {
    fn default() -> Self {
        BestN {
            tree: vec![0; BUCKETS + 1],
            total: 0,
            off: false,
        }
    }
}

/// The bucket of an inverted priority.
pub fn bucket(inv: u32) -> usize {
    ((inv / STEP) as usize).min(BUCKETS - 1)
}

impl BestN {
    /// Counts that count nothing, for a crawl without the gate.
    pub fn off() -> BestN {
        BestN {
            tree: Vec::new(),
            total: 0,
            off: true,
        }
    }

    /// Counts one more URL at inverted priority `inv`.
    pub fn add(&mut self, inv: u32) {
        if self.off {
            return;
        }
        self.total += 1;
        let mut i = bucket(inv) + 1;
        while i <= BUCKETS {
            self.tree[i] = self.tree[i].wrapping_add(1);
            i += i & i.wrapping_neg();
        }
    }

    /// Counts one URL less at inverted priority `inv`.
    pub fn remove(&mut self, inv: u32) {
        if self.off {
            return;
        }
        self.total = self.total.saturating_sub(1);
        let mut i = bucket(inv) + 1;
        while i <= BUCKETS {
            self.tree[i] = self.tree[i].wrapping_sub(1);
            i += i & i.wrapping_neg();
        }
    }

    /// URLs counted.
    #[cfg(test)]
    pub fn len(&self) -> u64 {
        self.total
    }

    /// The bucket of the `n`-th best URL (1-based); `None` when fewer than `n` are counted.
    pub fn nth_bucket(&self, n: u64) -> Option<usize> {
        if n == 0 || n > self.total {
            return None;
        }
        // Binary descent: the largest prefix with fewer than n URLs; the answer is next.
        let mut pos = 0usize;
        let mut left = n;
        let mut step = (BUCKETS + 1).next_power_of_two() / 2;
        while step > 0 {
            let next = pos + step;
            if next <= BUCKETS && u64::from(self.tree[next]) < left {
                pos = next;
                left -= u64::from(self.tree[next]);
            }
            step /= 2;
        }
        Some(pos)
    }

    /// Whether a URL at inverted priority `inv` is among the `n` best counted.
    pub fn admits(&self, inv: u32, n: u64) -> bool {
        self.nth_bucket(n).is_none_or(|b| bucket(inv) <= b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::keys::inverted;

    #[test]
    fn the_nth_best_bucket_follows_adds_and_removes() {
        let mut b = BestN::default();
        for p in [0.9, 0.5, 0.5, 0.1, 1.0, 0.0] {
            b.add(inverted(p));
        }
        assert_eq!(b.len(), 6);
        assert_eq!(b.nth_bucket(1), Some(bucket(inverted(1.0))));
        assert_eq!(b.nth_bucket(2), Some(bucket(inverted(0.9))));
        assert_eq!(b.nth_bucket(3), Some(bucket(inverted(0.5))));
        assert_eq!(b.nth_bucket(4), Some(bucket(inverted(0.5))));
        assert_eq!(b.nth_bucket(6), Some(bucket(inverted(0.0))));
        assert_eq!(b.nth_bucket(7), None);
        assert!(b.admits(inverted(0.5), 3), "ties with the N-th pass");
        assert!(!b.admits(inverted(0.1), 3));
        assert!(
            b.admits(inverted(0.0), 100),
            "fewer than N queued: all pass"
        );
        b.remove(inverted(1.0));
        b.remove(inverted(0.9));
        assert_eq!(b.nth_bucket(1), Some(bucket(inverted(0.5))));
        assert!(b.admits(inverted(0.1), 3));
    }

    #[test]
    fn matches_a_sorted_list_on_random_priorities() {
        let mut b = BestN::default();
        let mut all = vec![];
        let mut x = 12345u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = (x >> 40) as f32 / (1u64 << 24) as f32;
            b.add(inverted(p));
            all.push(bucket(inverted(p)));
        }
        all.sort_unstable();
        for n in [1u64, 2, 10, 64, 500, 1999, 2000] {
            assert_eq!(b.nth_bucket(n), Some(all[n as usize - 1]), "n = {n}");
        }
    }
}
