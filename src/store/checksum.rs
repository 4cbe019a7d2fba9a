//! The order-independent checksum of a store's entries, checked at open so that a store sled
//! brought back with committed writes lost or changed is an error, not a silent rollback.

/// The checksum of a store's entries (all but [`Key::Checksum`] itself): how many there are,
/// and the XOR of the xxh3-128 hash of each key and value. XOR makes it independent of order and
/// cheap to keep: a commit takes out the hash of each entry's old version and puts in the new.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Checksum {
    pub(super) entries: u64,
    pub(super) xor: u128,
}

impl Checksum {
    /// Adds an entry.
    pub(super) fn add(&mut self, key: &[u8], value: &[u8]) {
        self.entries = self.entries.wrapping_add(1);
        self.xor ^= entry_hash(key, value);
    }

    /// Takes an entry out.
    pub(super) fn remove(&mut self, key: &[u8], value: &[u8]) {
        self.entries = self.entries.wrapping_sub(1);
        self.xor ^= entry_hash(key, value);
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        let mut v = self.entries.to_le_bytes().to_vec();
        v.extend_from_slice(&self.xor.to_le_bytes());
        v
    }

    pub(super) fn decode(v: &[u8]) -> Option<Checksum> {
        Some(Checksum {
            entries: u64::from_le_bytes(v.get(0..8)?.try_into().ok()?),
            xor: u128::from_le_bytes(v.get(8..24)?.try_into().ok()?),
        })
        .filter(|_| v.len() == 24)
    }
}

/// The hash of one entry: its key's length, key and value (the length keeps `ab`=`c` apart from
/// `a`=`bc`).
fn entry_hash(key: &[u8], value: &[u8]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    h.update(&(key.len() as u64).to_le_bytes());
    h.update(key);
    h.update(value);
    h.digest128()
}
