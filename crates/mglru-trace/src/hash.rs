// SPDX-License-Identifier: GPL-2.0-only
//! Name lookup for the resolver: a fast non-cryptographic string hash and
//! an open-addressing index from hashes to dense ids.
//!
//! Names come from trace files the user controls, so resistance to hash
//! flooding is not needed; speed on short strings is, because every access
//! line looks up a task and a file or region.

const K: u64 = 0x9e37_79b9_7f4a_7c15;

#[inline(always)]
fn load8(b: &[u8], i: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(a)
}

#[inline(always)]
fn load4(b: &[u8], i: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(a)
}

/// Hashes a name (multiply-rotate over 8-byte words, with a final
/// avalanche so that all bits of the result depend on all input bits).
#[inline]
pub(crate) fn hash_str(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut h: u64 = (b.len() as u64).wrapping_mul(K);
    let mut i = 0;
    while i + 8 <= b.len() {
        h = (h.rotate_left(5) ^ load8(b, i)).wrapping_mul(K);
        i += 8;
    }
    let rest = b.len() - i;
    if rest > 0 {
        let w = if rest >= 4 {
            u64::from(load4(b, i)) | (u64::from(load4(b, b.len() - 4)) << 32)
        } else {
            u64::from(b[i]) | (u64::from(b[i + rest / 2]) << 8) | (u64::from(b[b.len() - 1]) << 16)
        };
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(0xd6e8_feb8_6659_fd93);
    h ^ (h >> 29)
}

/// Hash of a name scoped to a task (region names are per task).
#[inline]
pub(crate) fn hash_scoped(scope: u32, s: &str) -> u64 {
    let h = hash_str(s) ^ u64::from(scope).wrapping_mul(K);
    (h ^ (h >> 31)).wrapping_mul(0x94d0_49bb_1331_11eb)
}

/// String equality tuned for short names (no library call for up to 16
/// bytes).
#[inline(always)]
pub(crate) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => load4(a, 0) == load4(b, 0) && load4(a, n - 4) == load4(b, n - 4),
        8..=16 => load8(a, 0) == load8(b, 0) && load8(a, n - 8) == load8(b, n - 8),
        _ => a == b,
    }
}

const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    id: u32,
}

/// An open-addressing (linear probing) index from name hashes to ids. The
/// names themselves live in the caller's tables; `find` takes a predicate
/// that checks whether an id's name matches.
pub(crate) struct Index {
    slots: Vec<Slot>,
    used: usize,
}

impl Index {
    pub fn new() -> Index {
        Index {
            slots: vec![Slot { hash: 0, id: EMPTY }; 16],
            used: 0,
        }
    }

    /// The id whose hash is `hash` and for which `is(id)` holds.
    #[inline]
    pub fn find(&self, hash: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s.id == EMPTY {
                return None;
            }
            if s.hash == hash && is(s.id) {
                return Some(s.id);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `id` under `hash` (the caller has checked it is not present).
    pub fn insert(&mut self, hash: u64, id: u32) {
        if (self.used + 1) * 2 > self.slots.len() {
            let bigger = vec![Slot { hash: 0, id: EMPTY }; self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, bigger);
            for s in old.into_iter().filter(|s| s.id != EMPTY) {
                self.put(s);
            }
        }
        self.put(Slot { hash, id });
        self.used += 1;
    }

    /// Adds `id` under `hash` in place of an id for which `dead(id)`
    /// holds: a name defined again after its `munmap` or `unlink` takes its
    /// dead namesake's slot, so that a name mapped and unmapped N times
    /// costs one probe, not N (100,000 cycles took 21 s).
    pub fn insert_over(&mut self, hash: u64, id: u32, mut dead: impl FnMut(u32) -> bool) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].id != EMPTY {
            let s = self.slots[i];
            if s.hash == hash && dead(s.id) {
                self.slots[i].id = id;
                return;
            }
            i = (i + 1) & mask;
        }
        self.insert(hash, id);
    }

    /// The slots probed to find `hash` or an empty slot (for tests).
    #[cfg(test)]
    pub fn probes(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        let mut n = 1;
        while self.slots[i].id != EMPTY {
            i = (i + 1) & mask;
            n += 1;
        }
        n
    }

    fn put(&mut self, s: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = s.hash as usize & mask;
        while self.slots[i].id != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abd",
            "abce",
            "abcdefgi",
            "xbcdefghijklmnop",
        ];
        for a in words {
            for b in words {
                assert_eq!(same(a, b), a == b, "{a} {b}");
            }
        }
        assert!(!same("a1c", "a2c"));
        assert!(!same("abcdefghij", "abcdefXhij"));
    }

    #[test]
    fn index() {
        let names: Vec<String> = (0..10_000).map(|i| format!("n{i}")).collect();
        let mut idx = Index::new();
        for (i, n) in names.iter().enumerate() {
            idx.insert(hash_str(n), i as u32);
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(
                idx.find(hash_str(n), |id| names[id as usize] == *n),
                Some(i as u32)
            );
        }
        assert_eq!(
            idx.find(hash_str("nope"), |id| names[id as usize] == "nope"),
            None
        );
        assert_ne!(hash_scoped(1, "x"), hash_scoped(2, "x"));
    }
}
