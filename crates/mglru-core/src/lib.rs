// SPDX-License-Identifier: GPL-2.0-only
//! mglru-core: a deterministic, user-space model of Linux 6.12 memory
//! reclaim, with the classic active/inactive LRU and the multi-gen LRU.
//!
//! No I/O, no wall clock, no randomness but the seeded [`sim::rng::Rng`]: the
//! same operations give the same counters, bit for bit.

pub mod buddy;
pub mod demand;
pub mod file;
pub mod filemap;
pub mod folio;
pub mod fork;
pub mod json;
pub mod kernel;
pub mod kswapd;
pub mod lru_gen;
pub mod lru_gen_walk;
pub mod lruvec;
pub mod madvise;
pub mod memcontrol;
pub mod memory;
pub mod mlock;
pub mod mm;
pub mod mmap;
pub mod oom;
pub mod page_alloc;
pub mod profiles;
pub mod psi;
pub mod report;
pub mod rmap;
pub mod sched;
pub mod shadow;
pub mod shmem;
pub mod sim;
/// The simulator's own machinery under its old paths (the CLI and tests use them).
pub use sim::{check, cost, rng};
pub mod stat;
pub mod swap;
pub mod swap_state;
pub mod swapfile;
pub mod truncate;
pub mod util;
pub mod vmscan;
pub mod vmstat;
pub mod workingset;
pub mod writeback;

/// Whether `--policy mglru` can run (the MGLRU issue flips this).
pub const MGLRU_IMPLEMENTED: bool = true;

pub use cost::CostModel;
pub use kernel::{Kernel, Policy, ReclaimWork};
pub use report::Report;
pub use sim::{RunOptions, SimError, Simulator};
