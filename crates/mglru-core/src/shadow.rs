// SPDX-License-Identifier: GPL-2.0-only
//! Shadow-entry nodes and the shadow-node shrinker (mm/workingset.c).
//!
//! The page cache and the swap cache are xarrays: leaf nodes of 64 slots
//! (`XA_CHUNK_SHIFT` = 6). A node whose every occupied slot holds a shadow
//! entry costs memory and protects no page, so the kernel keeps such nodes
//! on a per-memcg `list_lru` (`shadow_nodes`, in the order they became
//! shadow-only) and a shrinker frees the oldest ones — and the shadows in
//! them — when there are more than the memcg's LRU and slab pages / 8
//! (`count_shadow_nodes`). Refaults of the pages whose shadows went are not
//! detected. The shrinker runs from `shrink_slab` after each memcg's LRU
//! is shrunk, with `do_shrink_slab`'s batching and deferral.
//!
//! The model tracks the leaf nodes only (interior nodes hold no shadows);
//! each node is charged to the memcg of the folio whose insertion
//! allocated it (page cache, `XA_FLAGS_ACCOUNT`) or to none (the swap
//! cache is not accounted; its nodes sit on the root's list).

use crate::kernel::Kernel;
use crate::memcontrol::{NO_MEMCG, ROOT_MEMCG};
use crate::stat::Ev;

/// `XA_CHUNK_SHIFT`: 64 slots per node.
pub const XA_CHUNK_SHIFT: u32 = 6;
const XA_CHUNK_SIZE: u64 = 1 << XA_CHUNK_SHIFT;
/// `SHRINK_BATCH`.
const SHRINK_BATCH: u64 = 128;
/// What one radix_tree_node costs its memcg: `sizeof(struct xa_node)`
/// (576) plus the obj_cgroup pointer `obj_full_size` charges with it.
pub const XA_NODE_BYTES: u64 = 584;
/// The swap cache, as a space beside the files.
pub const SPACE_SWAP: u32 = u32::MAX;

/// What a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Empty,
    Page,
    Shadow,
}

/// One leaf node's bookkeeping.
#[derive(Clone, Copy, Debug)]
pub struct XaNode {
    /// Occupied slots (`node->count`) and shadow slots (`node->nr_values`).
    pub count: u8,
    pub values: u8,
    /// The memcg the node is charged to; NO_MEMCG while it is not allocated.
    pub memcg: u16,
    /// Position on its memcg's shadow-node list; 0 when not on it.
    pub lru_seq: u64,
}

impl Default for XaNode {
    fn default() -> Self {
        XaNode { count: 0, values: 0, memcg: NO_MEMCG, lru_seq: 0 }
    }
}

/// The leaf nodes of one xarray.
#[derive(Default)]
pub struct XaNodes {
    pub nodes: Vec<XaNode>,
}

impl XaNodes {
    pub fn new(entries: u64) -> XaNodes {
        XaNodes { nodes: vec![XaNode::default(); entries.div_ceil(XA_CHUNK_SIZE) as usize] }
    }

    /// Account the change of slot `index` from `old` to `new`; returns the
    /// node's number.
    #[inline]
    pub fn update(&mut self, index: u64, old: Slot, new: Slot) -> u32 {
        let n = (index >> XA_CHUNK_SHIFT) as u32;
        let node = &mut self.nodes[n as usize];
        if old != Slot::Empty {
            node.count -= 1;
        }
        if old == Slot::Shadow {
            node.values -= 1;
        }
        if new != Slot::Empty {
            node.count += 1;
        }
        if new == Slot::Shadow {
            node.values += 1;
        }
        n
    }

    pub fn bytes(&self) -> u64 {
        (self.nodes.len() * std::mem::size_of::<XaNode>()) as u64
    }
}

impl Kernel {
    fn xa_nodes(&mut self, space: u32) -> &mut XaNodes {
        if space == SPACE_SWAP {
            &mut self.swap.as_mut().expect("swap cache without swap").xa
        } else {
            &mut self.files[space as usize].xa
        }
    }

    /// A slot of `space` changed from `old` to `new`: keep the node's
    /// allocation, charge and shadow-list membership right
    /// (`workingset_update_node` and node allocation/deletion). `memcg` is
    /// whom a newly allocated node is charged to.
    pub(crate) fn xa_slot_changed(&mut self, space: u32, index: u64, old: Slot, new: Slot, memcg: u16) {
        // A space without nodes keeps its entries elsewhere (7.2's swap
        // table: profiles/swap_table_7_2.rs).
        if old == new || self.xa_nodes(space).nodes.is_empty() {
            return;
        }
        let n = self.xa_nodes(space).update(index, old, new);
        self.xa_node_sync(space, n, memcg);
    }

    fn xa_node_sync(&mut self, space: u32, n: u32, memcg: u16) {
        let node = self.xa_nodes(space).nodes[n as usize];
        let mut node2 = node;
        if node.count == 0 {
            // Empty: the node is deleted from the tree.
            if node.lru_seq != 0 {
                self.shadow_list_del(node.memcg, node.lru_seq);
                node2.lru_seq = 0;
            }
            if node.memcg != NO_MEMCG {
                self.memcgs[node.memcg as usize].xa_nodes -= 1;
                if space != SPACE_SWAP {
                    self.memcg_slab_uncharge(node.memcg, XA_NODE_BYTES);
                }
                node2.memcg = NO_MEMCG;
            }
        } else {
            if node.memcg == NO_MEMCG {
                let m = if space == SPACE_SWAP { ROOT_MEMCG } else { memcg };
                node2.memcg = m;
                self.memcgs[m as usize].xa_nodes += 1;
                // The page cache's xarray is XA_FLAGS_ACCOUNT; the swap
                // cache's is not.
                if space != SPACE_SWAP {
                    self.memcg_slab_charge(m, XA_NODE_BYTES);
                }
            }
            let shadow_only = node.count == node.values;
            if shadow_only && node.lru_seq == 0 {
                self.shadow_seq += 1;
                node2.lru_seq = self.shadow_seq;
                self.memcgs[node2.memcg as usize].shadow_nodes.insert(self.shadow_seq, (space, n));
                self.nr_workingset_nodes += 1;
            } else if !shadow_only && node.lru_seq != 0 {
                self.shadow_list_del(node.memcg, node.lru_seq);
                node2.lru_seq = 0;
            }
        }
        self.xa_nodes(space).nodes[n as usize] = node2;
    }

    fn shadow_list_del(&mut self, memcg: u16, seq: u64) {
        let removed = self.memcgs[memcg as usize].shadow_nodes.remove(&seq);
        debug_assert!(removed.is_some());
        self.nr_workingset_nodes -= 1;
    }

    /// `count_shadow_nodes`: how many of the memcg's shadow-only nodes are
    /// over its limit; None for an empty list (`SHRINK_EMPTY`).
    fn count_shadow_nodes(&self, memcg: u16) -> Option<u64> {
        let c = &self.memcgs[memcg as usize];
        let nodes = c.shadow_nodes.len() as u64;
        if nodes == 0 {
            return None;
        }
        // The memcg's own LRU and slab pages (a version step: 6.12 reads
        // both as of the last statistics flush).
        let pages = (self.steps.shadow_limit_pages)(self, memcg);
        let max_nodes = pages >> (XA_CHUNK_SHIFT - 3);
        Some(nodes.saturating_sub(max_nodes))
    }

    /// `shadow_lru_isolate` for the `nr` oldest nodes of the memcg's list:
    /// each node is deleted with its shadows. Returns the nodes freed.
    fn scan_shadow_nodes(&mut self, memcg: u16, nr: u64) -> u64 {
        let mut freed = 0;
        for _ in 0..nr {
            let Some((&seq, &(space, n))) = self.memcgs[memcg as usize].shadow_nodes.iter().next() else {
                break;
            };
            self.shadow_list_del(memcg, seq);
            self.xa_nodes(space).nodes[n as usize].lru_seq = 0;
            let base = u64::from(n) << XA_CHUNK_SHIFT;
            if space == SPACE_SWAP {
                let sw = self.swap.as_mut().unwrap();
                let end = (base + XA_CHUNK_SIZE).min(sw.nr_pages());
                for i in base..end {
                    let e = sw.entry(i as u32);
                    if e & crate::swapfile::SLOT_SHADOW != 0 {
                        sw.set_entry(i as u32, e & !(crate::swapfile::SLOT_SHADOW | crate::swapfile::SLOT_VALUE));
                    }
                }
            } else {
                let fl = &mut self.files[space as usize];
                let end = (base + XA_CHUNK_SIZE).min(fl.pages);
                for i in base..end {
                    if fl.cache.get(i) & crate::file::ENT_SHADOW != 0 {
                        fl.cache.set(i, 0);
                    }
                }
            }
            // Every slot was a shadow: the node is now empty and deleted.
            let node = &mut self.xa_nodes(space).nodes[n as usize];
            debug_assert_eq!(node.count, node.values);
            node.count = 0;
            node.values = 0;
            let m = node.memcg;
            node.memcg = NO_MEMCG;
            self.memcgs[m as usize].xa_nodes -= 1;
            if space != SPACE_SWAP {
                self.memcg_slab_uncharge(m, XA_NODE_BYTES);
            }
            self.count(m, Ev::WorkingsetNodereclaim, 1);
            freed += 1;
        }
        freed
    }

    /// `shrink_slab` for one memcg: the model's only shrinker is the
    /// shadow-node one (`do_shrink_slab` with `seeks` = 0).
    pub(crate) fn shrink_slab(&mut self, memcg: u16, priority: i32) {
        let Some(freeable) = self.count_shadow_nodes(memcg) else {
            return;
        };
        if freeable == 0 {
            return;
        }
        let nr = std::mem::take(&mut self.memcgs[memcg as usize].shrinker_nr_deferred);
        // Shadow nodes need no I/O to recreate: trim half of the excess.
        let delta = freeable / 2;
        let mut total_scan = ((nr >> priority) + delta).min(2 * freeable);
        let mut scanned = 0;
        while total_scan >= SHRINK_BATCH || total_scan >= freeable {
            let nr_to_scan = SHRINK_BATCH.min(total_scan);
            self.scan_shadow_nodes(memcg, nr_to_scan);
            self.ev.add(Ev::SlabsScanned, nr_to_scan);
            total_scan -= nr_to_scan;
            scanned += nr_to_scan;
        }
        let next = (nr + delta).saturating_sub(scanned).min(2 * freeable);
        self.memcgs[memcg as usize].shrinker_nr_deferred = next;
    }
}
