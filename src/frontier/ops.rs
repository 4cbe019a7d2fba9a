//! The operations of the frontier's log: what changed in a commit, in fixed little-endian
//! fields after a tag byte. Replaying them in order rebuilds the URL table and the hosts.

/// One logged change.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// A host is known, with its id.
    Host {
        /// Host id.
        id: u32,
        /// Host key.
        name: String,
        /// `scheme://host[:port]`.
        origin: String,
    },
    /// A URL is seen (queued, or marked without ever being queued).
    Add {
        /// Its record id: the number of URLs seen before it.
        rid: u32,
        /// Host id.
        host: u32,
        /// Fingerprint.
        fp: u64,
        /// Priority.
        prio: f32,
        /// State byte ([`super::table::Slot`]).
        slot: u8,
        /// Scores received.
        scores: u32,
        /// Their sum.
        sum: f32,
        /// Its record in `urls.dat`.
        offset: u64,
    },
    /// A queued URL was rescored.
    Score {
        /// Record id.
        rid: u32,
        /// New priority.
        prio: f32,
        /// Scores received.
        scores: u32,
        /// Their sum.
        sum: f32,
        /// Its patch record.
        offset: u64,
    },
    /// A fetch ended: the state byte, counted for the host (fetched or error).
    Complete {
        /// Record id.
        rid: u32,
        /// The final state.
        slot: u8,
    },
    /// A URL was marked (blacklisted, or dropped with its host) without a fetch.
    Mark {
        /// Record id.
        rid: u32,
        /// The final state.
        slot: u8,
    },
    /// A fetch is to be tried again, with the URL's record rewritten.
    Retry {
        /// Record id.
        rid: u32,
        /// Its new record.
        offset: u64,
    },
    /// A host's counters, as of a compaction.
    Counts {
        /// Host id.
        host: u32,
        /// Pages fetched.
        fetched: u64,
        /// Errors.
        errors: u64,
    },
}

impl Op {
    /// Appends the encoding.
    pub fn encode(&self, v: &mut Vec<u8>) {
        match self {
            Op::Host { id, name, origin } => {
                v.push(1);
                v.extend_from_slice(&id.to_le_bytes());
                for s in [name, origin] {
                    v.extend_from_slice(&(s.len().min(u16::MAX as usize) as u16).to_le_bytes());
                    v.extend_from_slice(&s.as_bytes()[..s.len().min(u16::MAX as usize)]);
                }
            }
            Op::Add {
                rid,
                host,
                fp,
                prio,
                slot,
                scores,
                sum,
                offset,
            } => {
                v.push(2);
                v.extend_from_slice(&rid.to_le_bytes());
                v.extend_from_slice(&host.to_le_bytes());
                v.extend_from_slice(&fp.to_le_bytes());
                v.extend_from_slice(&prio.to_le_bytes());
                v.push(*slot);
                v.extend_from_slice(&scores.to_le_bytes());
                v.extend_from_slice(&sum.to_le_bytes());
                v.extend_from_slice(&offset.to_le_bytes());
            }
            Op::Score {
                rid,
                prio,
                scores,
                sum,
                offset,
            } => {
                v.push(3);
                v.extend_from_slice(&rid.to_le_bytes());
                v.extend_from_slice(&prio.to_le_bytes());
                v.extend_from_slice(&scores.to_le_bytes());
                v.extend_from_slice(&sum.to_le_bytes());
                v.extend_from_slice(&offset.to_le_bytes());
            }
            Op::Complete { rid, slot } | Op::Mark { rid, slot } => {
                v.push(if matches!(self, Op::Complete { .. }) {
                    4
                } else {
                    5
                });
                v.extend_from_slice(&rid.to_le_bytes());
                v.push(*slot);
            }
            Op::Retry { rid, offset } => {
                v.push(6);
                v.extend_from_slice(&rid.to_le_bytes());
                v.extend_from_slice(&offset.to_le_bytes());
            }
            Op::Counts {
                host,
                fetched,
                errors,
            } => {
                v.push(7);
                v.extend_from_slice(&host.to_le_bytes());
                v.extend_from_slice(&fetched.to_le_bytes());
                v.extend_from_slice(&errors.to_le_bytes());
            }
        }
    }
}

/// Decodes the operations of one batch, in order; the error names the byte offset.
pub fn decode_all(mut b: &[u8], mut f: impl FnMut(Op) -> Result<(), String>) -> Result<(), String> {
    let total = b.len();
    while !b.is_empty() {
        let at = total - b.len();
        let op = decode(&mut b).ok_or_else(|| format!("undecodable operation at byte {at}"))?;
        f(op)?;
    }
    Ok(())
}

fn decode(b: &mut &[u8]) -> Option<Op> {
    let (&tag, rest) = b.split_first()?;
    *b = rest;
    let len = match tag {
        1 => return decode_host(b),
        2 => 37,
        3 => 24,
        4 | 5 => 5,
        6 => 12,
        7 => 20,
        _ => return None,
    };
    let (body, rest) = b.split_at_checked(len)?;
    *b = rest;
    let u32_at = |i: usize| u32::from_le_bytes(body[i..i + 4].try_into().unwrap_or_default());
    let u64_at = |i: usize| u64::from_le_bytes(body[i..i + 8].try_into().unwrap_or_default());
    let f32_at = |i: usize| f32::from_bits(u32_at(i));
    Some(match tag {
        2 => Op::Add {
            rid: u32_at(0),
            host: u32_at(4),
            fp: u64_at(8),
            prio: f32_at(16),
            slot: body[20],
            scores: u32_at(21),
            sum: f32_at(25),
            offset: u64_at(29),
        },
        3 => Op::Score {
            rid: u32_at(0),
            prio: f32_at(4),
            scores: u32_at(8),
            sum: f32_at(12),
            offset: u64_at(16),
        },
        4 => Op::Complete {
            rid: u32_at(0),
            slot: body[4],
        },
        5 => Op::Mark {
            rid: u32_at(0),
            slot: body[4],
        },
        6 => Op::Retry {
            rid: u32_at(0),
            offset: u64_at(4),
        },
        _ => Op::Counts {
            host: u32_at(0),
            fetched: u64_at(4),
            errors: u64_at(12),
        },
    })
}

fn decode_host(b: &mut &[u8]) -> Option<Op> {
    let (id, rest) = b.split_at_checked(4)?;
    let id = u32::from_le_bytes(id.try_into().ok()?);
    let mut rest = rest;
    let mut string = || -> Option<String> {
        let (n, r) = rest.split_at_checked(2)?;
        let n = u16::from_le_bytes(n.try_into().ok()?) as usize;
        let (s, r) = r.split_at_checked(n)?;
        rest = r;
        String::from_utf8(s.to_vec()).ok()
    };
    let name = string()?;
    let origin = string()?;
    *b = rest;
    Some(Op::Host { id, name, origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_round_trips_and_a_cut_batch_is_an_error() {
        let ops = vec![
            Op::Host {
                id: 3,
                name: "a.test".into(),
                origin: "http://a.test".into(),
            },
            Op::Add {
                rid: 1,
                host: 3,
                fp: u64::MAX - 5,
                prio: 0.75,
                slot: 0,
                scores: 2,
                sum: 1.25,
                offset: 1 << 39,
            },
            Op::Score {
                rid: 1,
                prio: 0.5,
                scores: 3,
                sum: 1.75,
                offset: 99,
            },
            Op::Complete { rid: 1, slot: 2 },
            Op::Mark { rid: 4, slot: 5 },
            Op::Retry { rid: 1, offset: 7 },
            Op::Counts {
                host: 3,
                fetched: 10,
                errors: 2,
            },
        ];
        let mut v = Vec::new();
        for op in &ops {
            op.encode(&mut v);
        }
        let mut back = Vec::new();
        decode_all(&v, |op| {
            back.push(op);
            Ok(())
        })
        .unwrap();
        assert_eq!(back, ops);
        let err = decode_all(&v[..v.len() - 1], |_| Ok(())).unwrap_err();
        assert!(err.contains("undecodable operation at byte"), "{err}");
        assert!(decode_all(&[42], |_| Ok(())).is_err());
    }
}
