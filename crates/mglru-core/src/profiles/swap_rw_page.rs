// SPDX-License-Identifier: GPL-2.0-only
//! Swap on a synchronous device through `rw_page` (6.1): 6.1's
//! `swap_readpage` and `__swap_writepage` first try `bdev_read_page` /
//! `bdev_write_page`, which call the driver's `rw_page` (brd's and zram's
//! in 6.1) directly, without a bio; only when that fails do they build
//! one and `submit_bio` it. `submit_bio` is where `pgpgin`/`pgpgout` are
//! counted, so on such a device 6.1 swaps without moving them (`pswpin`/
//! `pswpout` still count). 6.12 removed `rw_page`: every swap I/O is a
//! bio (6.1 mm/page_io.c: `swap_readpage`, `__swap_writepage`; 6.1
//! block/bdev.c: `bdev_read_page`).

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;
use crate::stat::Ev;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "swap-rw-page",
    source: "6.1 mm/page_io.c: swap_readpage, __swap_writepage (bdev_read_page, bdev_write_page)",
    summary: "swap I/O on a synchronous device (brd, zram) bypasses the bio layer: no pgpgin/pgpgout for it",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.count_swap_bio = count_swap_bio;
}

fn count_swap_bio(k: &mut Kernel, e: Ev) {
    if !k.swap.as_ref().is_some_and(|s| s.sync_io) {
        k.ev.add(e, 4);
    }
}
