//! Every URL the frontier has seen, in compact columns indexed by record id, with the seen-set
//! over them.
//!
//! A URL gets a record id (`rid`, its discovery order) the first time it is seen. Its columns
//! hold what the hot paths need without touching the disk: the fingerprint, the exact priority,
//! the state, the host, the running score sum, and the position of its newest record in the
//! URL file together with its score count, packed in 29 bytes per URL; the seen-set adds one
//! `u32` per slot of a hash table keyed by the fingerprint (the table stores only record ids and
//! hashes through the fingerprint column, as `indexmap` does), about 6 to 11 bytes per URL.
//! Nothing here allocates per URL.

use super::huge::Huge;
use super::keys::UrlState;
use hashbrown::HashTable;

/// A URL's state in memory: [`UrlState`] with "queued" split into available and leased.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Slot {
    /// Queued and not in flight: in its host's queue order.
    Available = 0,
    /// Queued and handed out for fetching.
    Leased = 1,
    /// Fetched and archived.
    Done = 2,
    /// Given up on.
    Failed = 3,
    /// Disallowed by robots.txt.
    RobotsBlocked = 4,
    /// Never to be fetched.
    Blacklisted = 5,
}

impl Slot {
    /// Decodes a stored byte.
    pub fn from_byte(b: u8) -> Option<Slot> {
        Some(match b {
            0 => Slot::Available,
            1 => Slot::Leased,
            2 => Slot::Done,
            3 => Slot::Failed,
            4 => Slot::RobotsBlocked,
            5 => Slot::Blacklisted,
            _ => return None,
        })
    }

    /// The state the rest of the crawl sees.
    pub fn state(self) -> UrlState {
        match self {
            Slot::Available | Slot::Leased => UrlState::Queued,
            Slot::Done => UrlState::Done,
            Slot::Failed => UrlState::Failed,
            Slot::RobotsBlocked => UrlState::RobotsBlocked,
            Slot::Blacklisted => UrlState::Blacklisted,
        }
    }

    /// The slot of a final state (`Queued` maps to available).
    pub fn of(state: UrlState) -> Slot {
        match state {
            UrlState::Queued => Slot::Available,
            UrlState::Done => Slot::Done,
            UrlState::Failed => Slot::Failed,
            UrlState::RobotsBlocked => Slot::RobotsBlocked,
            UrlState::Blacklisted => Slot::Blacklisted,
        }
    }
}

/// Offsets in the URL file take the low 40 bits of `loc` (a terabyte), the score count the
/// high 24 (saturating).
const OFFSET_BITS: u32 = 40;
/// The offset bits of `loc` (follows from `OFFSET_BITS`).
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// The most scores counted (follows from `OFFSET_BITS`).
const MAX_SCORES: u32 = (1 << (64 - OFFSET_BITS)) - 1;

/// Flag in the state byte: the newest record is a patch.
const PATCHED: u8 = 0x80;
/// Flag in the state byte: the URL's record has a `via` (so a patch needs none). Kept in
/// memory only: after a reopen it is clear, and patches carry the scorer's `via` again.
const HAS_VIA: u8 = 0x40;
/// The flags of the state byte.
const FLAGS: u8 = PATCHED | HAS_VIA;

/// The offset of a URL that has no record (blacklisted before it was ever queued).
pub const NO_RECORD: u64 = OFFSET_MASK;

/// A new URL's columns.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// Fingerprint of its canonical form.
    pub fp: u64,
    /// Host id.
    pub host: u32,
    /// Priority, exactly as given or computed.
    pub prio: f32,
    /// State.
    pub slot: Slot,
    /// Scores received.
    pub scores: u32,
    /// Their sum.
    pub sum: f32,
    /// Its newest record in the URL file.
    pub offset: u64,
}

/// One URL's columns, packed: 29 bytes, read together (one or two cache lines per URL on the
/// hot paths, where separate columns cost a cache miss each).
#[derive(Clone, Copy)]
#[repr(C, packed)]
struct Cols {
    fp: u64,
    /// Offset of the newest record (low 40 bits) and score count (high 24).
    loc: u64,
    prio: f32,
    sum: f32,
    host: u32,
    /// [`Slot`], and [`PATCHED`].
    slot: u8,
}

/// The columns and the seen-set.
pub struct UrlTable {
    rows: allocator_api2::vec::Vec<Cols, Huge>,
    seen: HashTable<u32, Huge>,
}

impl Default for UrlTable {
    fn default() -> Self {
        UrlTable {
            rows: allocator_api2::vec::Vec::new_in(Huge),
            seen: HashTable::new_in(Huge),
        }
    }
}

impl UrlTable {
    /// URLs seen.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The record id of a fingerprint.
    pub fn find(&self, fp: u64) -> Option<u32> {
        self.seen.find(fp, |&rid| self.fp(rid) == fp).copied()
    }

    /// Adds a URL not seen before (the caller checked with [`UrlTable::find`]); `None` when
    /// four billion URLs were seen.
    pub fn push(&mut self, row: Row) -> Option<u32> {
        let rid = u32::try_from(self.rows.len())
            .ok()
            .filter(|&r| r < u32::MAX)?;
        self.rows.push(Cols {
            fp: row.fp,
            loc: pack(row.offset, row.scores),
            prio: row.prio,
            sum: row.sum,
            host: row.host,
            slot: row.slot as u8,
        });
        let rows = &self.rows;
        self.seen
            .insert_unique(row.fp, rid, |&r| rows[r as usize].fp);
        Some(rid)
    }

    /// Fingerprint.
    pub fn fp(&self, rid: u32) -> u64 {
        self.rows[rid as usize].fp
    }

    /// Priority.
    pub fn prio(&self, rid: u32) -> f32 {
        self.rows[rid as usize].prio
    }

    /// State.
    pub fn slot(&self, rid: u32) -> Slot {
        // Only `set_slot` and `push` write the byte, with a `Slot`.
        Slot::from_byte(self.rows[rid as usize].slot & !FLAGS).unwrap_or(Slot::Failed)
    }

    /// Whether the newest record is a patch (so a rescore reads it to merge).
    pub fn patched(&self, rid: u32) -> bool {
        self.rows[rid as usize].slot & PATCHED != 0
    }

    /// Notes whether the newest record is a patch.
    pub fn set_patched(&mut self, rid: u32, on: bool) {
        self.set_flag(rid, PATCHED, on);
    }

    fn set_flag(&mut self, rid: u32, flag: u8, on: bool) {
        let r = &mut self.rows[rid as usize];
        r.slot = if on { r.slot | flag } else { r.slot & !flag };
    }

    /// Whether the URL's record (not a patch) has a `via`, as far as memory knows.
    pub fn has_via(&self, rid: u32) -> bool {
        self.rows[rid as usize].slot & HAS_VIA != 0
    }

    /// Notes whether the URL's record has a `via`.
    pub fn set_has_via(&mut self, rid: u32, on: bool) {
        self.set_flag(rid, HAS_VIA, on);
    }

    /// Host id.
    pub fn host(&self, rid: u32) -> u32 {
        self.rows[rid as usize].host
    }

    /// Scores received and their sum.
    pub fn scores(&self, rid: u32) -> (u32, f32) {
        let r = self.rows[rid as usize];
        ((r.loc >> OFFSET_BITS) as u32, r.sum)
    }

    /// Offset of the newest record.
    pub fn offset(&self, rid: u32) -> u64 {
        self.rows[rid as usize].loc & OFFSET_MASK
    }

    /// Sets the state.
    pub fn set_slot(&mut self, rid: u32, slot: Slot) {
        let r = &mut self.rows[rid as usize];
        r.slot = (r.slot & FLAGS) | slot as u8;
    }

    /// Sets the priority and score totals after a score.
    pub fn set_scores(&mut self, rid: u32, prio: f32, scores: u32, sum: f32) {
        let r = &mut self.rows[rid as usize];
        r.prio = prio;
        r.sum = sum;
        r.loc = pack(r.loc & OFFSET_MASK, scores);
    }

    /// Points the URL at a newer record.
    pub fn set_offset(&mut self, rid: u32, offset: u64) {
        let r = &mut self.rows[rid as usize];
        r.loc = (r.loc & !OFFSET_MASK) | (offset & OFFSET_MASK);
    }

    /// Whether a queue entry `(inv, rid)` still stands for the URL: it is available and its
    /// priority still maps to `inv`. Entries left behind by rescores and leases fail this and
    /// are skipped.
    pub fn live(&self, inv: u32, rid: u32) -> bool {
        let r = self.rows[rid as usize];
        r.slot & !FLAGS == Slot::Available as u8 && super::keys::inverted(r.prio) == inv
    }

    /// A copy of the rows without the seen-set (for a compaction running beside the crawl:
    /// every accessor but [`UrlTable::find`] works on it).
    pub fn snapshot(&self) -> UrlTable {
        UrlTable {
            rows: self.rows.clone(),
            seen: HashTable::new_in(Huge),
        }
    }

    /// Bytes held by the columns and the seen-set (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Cols>() + self.seen.capacity() * 5
    }
}

fn pack(offset: u64, scores: u32) -> u64 {
    (u64::from(scores.min(MAX_SCORES)) << OFFSET_BITS) | (offset & OFFSET_MASK)
}

/// The largest offset a record may start at.
pub const MAX_OFFSET: u64 = OFFSET_MASK - 1;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fp: u64) -> Row {
        Row {
            fp,
            host: 7,
            prio: 0.25,
            slot: Slot::Available,
            scores: 3,
            sum: 1.5,
            offset: 1234,
        }
    }

    #[test]
    fn columns_round_trip_and_the_seen_set_finds_every_fingerprint() {
        let mut t = UrlTable::default();
        for fp in 0..10_000u64 {
            let fp = fp.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            assert_eq!(t.push(row(fp)), Some(t.len() as u32 - 1));
        }
        for rid in 0..10_000u32 {
            assert_eq!(t.find(t.fp(rid)), Some(rid));
        }
        assert_eq!(t.find(1), None);
        t.set_scores(5, 0.75, MAX_SCORES + 10, 9.0);
        t.set_offset(5, MAX_OFFSET);
        assert_eq!(t.scores(5), (MAX_SCORES, 9.0), "the count saturates");
        assert_eq!(t.offset(5), MAX_OFFSET);
        assert_eq!((t.prio(5), t.host(5)), (0.75, 7));
        t.set_slot(5, Slot::Leased);
        assert_eq!(t.slot(5).state(), UrlState::Queued);
        assert!(!t.live(super::super::keys::inverted(0.75), 5), "leased");
        t.set_slot(5, Slot::Available);
        assert!(t.live(super::super::keys::inverted(0.75), 5));
        assert!(!t.live(super::super::keys::inverted(0.25), 5), "moved");
        t.set_patched(5, true);
        t.set_slot(5, Slot::Done);
        assert!(t.patched(5) && t.slot(5) == Slot::Done);
        t.set_patched(5, false);
        t.set_has_via(5, true);
        assert!(!t.patched(5) && t.has_via(5) && t.slot(5) == Slot::Done);
        t.set_slot(5, Slot::Available);
        assert!(
            t.live(super::super::keys::inverted(0.75), 5),
            "flags do not hide a URL"
        );
    }
}
