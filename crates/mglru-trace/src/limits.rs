// SPDX-License-Identifier: GPL-2.0-only
//! Upper (and a few lower) bounds on what a trace may ask for.
//!
//! A trace is input from a user, so every size and duration in it is
//! bounded where it is read, with an error that names the statement and
//! the limit: a value that fits in 64 bits is not therefore one the model
//! can afford. The bounds follow from what the simulator spends on each
//! request, measured on the release build (docs/ROBUSTNESS.md):
//!
//! * RAM costs the model about 32 bytes of state per 4 KiB page, and its
//!   page-table encoding addresses at most 2^28 pages: `memory` is bounded
//!   by [`MAX_MEMORY`], `swap` by [`MAX_SWAP`]. Below [`MIN_MEMORY`] the
//!   zones and watermarks the model builds do not fit.
//! * A file's page cache is indexed by an array with one slot per 512
//!   pages, allocated when the file is defined (about 64 MiB per TiB of
//!   file): one file is bounded by [`MAX_FILE_SIZE`] and all the files of
//!   a trace together by [`MAX_TOTAL_FILE_SIZE`], so no trace makes the
//!   model allocate more than about a GiB for files it barely touches.
//! * An anonymous region costs nothing until it is touched; it is bounded
//!   by [`MAX_REGION_SIZE`] so that page numbers stay far from overflow.
//! * Idle time is simulated by running the kernel's periodic work (timers,
//!   the flusher, statistics flushes) through it. The model skips the
//!   periodic work that cannot change anything, so an idle period costs
//!   real time in proportion to the events in it; a busy one still runs
//!   psi's averaging every 2 s, as the kernel does. One `sleep`, and all
//!   the `sleep`s of a trace together, are bounded by [`MAX_SLEEP_NS`]
//!   (a year), which also bounds what a time profile may jump.

/// The smallest `memory` the model accepts (16 MiB).
pub const MIN_MEMORY: u64 = 16 << 20;

/// The most pages of RAM or swap the model holds: its page-table entry
/// holds a page number below 2^28, two values kept for markers.
pub const MAX_PAGES: u64 = (1 << 28) - 2;

/// The largest `memory`: 1 TiB less two 4 KiB pages (MAX_PAGES pages).
pub const MAX_MEMORY: u64 = MAX_PAGES << 12;

/// The largest `swap` device: 1 TiB less two 4 KiB pages.
pub const MAX_SWAP: u64 = MAX_PAGES << 12;

/// How the limit of `memory` and `swap` reads in messages.
pub(crate) const MAX_PAGES_TEXT: &str = "1T less two 4K pages (268435454 pages; 1023G fits)";

/// The largest `file` (4 TiB).
pub const MAX_FILE_SIZE: u64 = 4 << 40;

/// The largest sum of the sizes of all the files of a trace (16 TiB).
pub const MAX_TOTAL_FILE_SIZE: u64 = 16 << 40;

/// The largest `anon` region (16 TiB).
pub const MAX_REGION_SIZE: u64 = 16 << 40;

/// The longest `sleep`, and the longest idle time of a whole trace (the
/// sum of its `sleep`s): 365 days, in nanoseconds.
pub const MAX_SLEEP_NS: u64 = 365 * 86_400 * 1_000_000_000;

/// The most tasks a trace may define (`task` and `fork` together): Linux's
/// `PID_MAX_LIMIT` on 64-bit machines. The model keeps about 2.3 KB of host
/// memory per task defined, about 8.5 KB once it has touched memory (its
/// mm and page tables; docs/ROBUSTNESS.md), so the limit costs at most
/// some 36 GB: a trace near it needs a large host.
pub const MAX_TASKS: u64 = 1 << 22;

/// Formats a byte count for a message: the largest binary unit that
/// divides it exactly (`16M`, `1T`), or plain bytes.
pub(crate) fn size_text(bytes: u64) -> String {
    for (shift, unit) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] {
        if bytes != 0 && bytes % (1u64 << shift) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// The message for a `sleep` longer than [`MAX_SLEEP_NS`].
pub(crate) fn sleep_too_long(what: &str) -> String {
    format!(
        "sleep `{what}` is too long: the limit is 365 days ({MAX_SLEEP_NS}ns), because simulated idle time costs real time; shorten the idle period"
    )
}

/// The message for a `sleep` that takes a trace's idle time, the sum of
/// its `sleep`s, past [`MAX_SLEEP_NS`].
pub(crate) fn idle_too_long(total: u128) -> String {
    format!(
        "the sleeps of this trace add up to {total}ns, more than the limit of 365 days ({MAX_SLEEP_NS}ns), because simulated idle time costs real time; shorten the idle periods"
    )
}
