//! The crawl's one transaction: writes staged by every part, applied whole by `Store::commit`.

use std::collections::BTreeMap;

/// Staged writes, applied atomically by [`Store::commit`]. Later writes to a key win.
#[derive(Debug, Default)]
pub struct WriteSet {
    pub(super) ops: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
}

impl WriteSet {
    /// Stages `key = value`.
    pub fn put(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.ops.insert(key, Some(value));
    }

    /// Stages the removal of `key`.
    pub fn delete(&mut self, key: Vec<u8>) {
        self.ops.insert(key, None);
    }

    /// What is staged for `key`: `Some(None)` for a staged delete, `None` if nothing is staged.
    pub fn staged(&self, key: &[u8]) -> Option<Option<&[u8]>> {
        self.ops.get(key).map(|v| v.as_deref())
    }

    /// Number of staged operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Nothing staged.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The staged operations on keys starting with `prefix`, in key order.
    pub fn staged_prefix<'a>(
        &'a self,
        prefix: &'a [u8],
    ) -> impl Iterator<Item = (&'a [u8], Option<&'a [u8]>)> + 'a {
        self.ops
            .range(prefix.to_vec()..)
            .take_while(move |(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.as_slice(), v.as_deref()))
    }

    /// Stages everything `other` staged, after what is staged here (its writes win).
    pub fn append(&mut self, other: WriteSet) {
        self.ops.extend(other.ops);
    }
}
