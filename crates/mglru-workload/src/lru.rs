// SPDX-License-Identifier: GPL-2.0-only
//! A fixed-capacity LRU map from keys to dense slots, used for memcached's
//! own item LRU and WiredTiger's cache. Memory is O(capacity).

use std::collections::HashMap;

const NIL: u32 = u32::MAX;

pub(crate) struct Lru {
    map: HashMap<u64, u32>,
    keys: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
}

impl Lru {
    pub fn new() -> Lru {
        Lru { map: HashMap::new(), keys: Vec::new(), prev: Vec::new(), next: Vec::new(), head: NIL, tail: NIL }
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.tail = p;
        }
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NIL;
        self.next[s as usize] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = s;
        }
        self.head = s;
        if self.tail == NIL {
            self.tail = s;
        }
    }

    /// The slot of `key`, made most recently used; None if absent.
    pub fn touch(&mut self, key: u64) -> Option<u32> {
        let s = *self.map.get(&key)?;
        self.unlink(s);
        self.push_front(s);
        Some(s)
    }

    /// The key held by `slot`.
    pub fn key_of(&self, slot: u32) -> u64 {
        self.keys[slot as usize]
    }

    /// Inserts `key` (or touches it if present). Free slots are used in
    /// order 0, 1, 2, ...; when `capacity` slots are in use the least
    /// recently used one is reused. Returns the slot and the evicted key.
    pub fn insert(&mut self, key: u64, capacity: u64) -> (u32, Option<u64>) {
        if let Some(s) = self.touch(key) {
            return (s, None);
        }
        let (s, evicted) = if (self.keys.len() as u64) < capacity.min(NIL as u64) {
            self.keys.push(key);
            self.prev.push(NIL);
            self.next.push(NIL);
            ((self.keys.len() - 1) as u32, None)
        } else {
            let victim = self.tail;
            self.unlink(victim);
            let old = self.keys[victim as usize];
            self.map.remove(&old);
            self.keys[victim as usize] = key;
            (victim, Some(old))
        };
        self.map.insert(key, s);
        self.push_front(s);
        (s, evicted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_least_recently_used() {
        let mut l = Lru::new();
        assert_eq!(l.insert(10, 2), (0, None));
        assert_eq!(l.insert(11, 2), (1, None));
        assert_eq!(l.touch(10), Some(0));
        assert_eq!(l.insert(12, 2), (1, Some(11)));
        assert_eq!(l.touch(11), None);
        assert_eq!(l.key_of(1), 12);
    }
}
