// SPDX-License-Identifier: GPL-2.0-only
//! Counters with the kernel's names and units.
//!
//! `Ev` are event counters (`enum vm_event_item` and the `WORKINGSET_*`
//! node items that behave like events); they only go up. `/proc/vmstat`
//! prints the global value; `memory.stat` prints each memcg's value summed
//! over its subtree, as cgroup v2 does. Gauges (list sizes, free pages,
//! dirty pages ...) are derived from the model's state when a report is made.

macro_rules! events {
    ($($id:ident = $name:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(non_camel_case_types)]
        #[repr(u8)]
        pub enum Ev { $($id,)* }
        impl Ev {
            pub const ALL: &'static [Ev] = &[$(Ev::$id,)*];
            pub const COUNT: usize = Ev::ALL.len();
            pub fn name(self) -> &'static str {
                match self { $(Ev::$id => $name,)* }
            }
        }
    };
}

events! {
    WorkingsetRefaultAnon = "workingset_refault_anon",
    WorkingsetRefaultFile = "workingset_refault_file",
    WorkingsetActivateAnon = "workingset_activate_anon",
    WorkingsetActivateFile = "workingset_activate_file",
    WorkingsetRestoreAnon = "workingset_restore_anon",
    WorkingsetRestoreFile = "workingset_restore_file",
    WorkingsetNodereclaim = "workingset_nodereclaim",
    NrDirtied = "nr_dirtied",
    NrWritten = "nr_written",
    NrVmscanWrite = "nr_vmscan_write",
    NrVmscanImmediateReclaim = "nr_vmscan_immediate_reclaim",
    Pgpgin = "pgpgin",
    Pgpgout = "pgpgout",
    Pswpin = "pswpin",
    Pswpout = "pswpout",
    PgallocDma = "pgalloc_dma",
    PgallocDma32 = "pgalloc_dma32",
    PgallocNormal = "pgalloc_normal",
    Pgfree = "pgfree",
    Pgactivate = "pgactivate",
    Pgdeactivate = "pgdeactivate",
    Pglazyfree = "pglazyfree",
    Pgfault = "pgfault",
    Pgmajfault = "pgmajfault",
    Pglazyfreed = "pglazyfreed",
    Pgrefill = "pgrefill",
    PgstealKswapd = "pgsteal_kswapd",
    PgstealDirect = "pgsteal_direct",
    PgstealKhugepaged = "pgsteal_khugepaged",
    PgstealProactive = "pgsteal_proactive",
    PgscanKswapd = "pgscan_kswapd",
    PgscanDirect = "pgscan_direct",
    PgscanKhugepaged = "pgscan_khugepaged",
    PgscanProactive = "pgscan_proactive",
    PgscanDirectThrottle = "pgscan_direct_throttle",
    PgscanAnon = "pgscan_anon",
    PgscanFile = "pgscan_file",
    PgstealAnon = "pgsteal_anon",
    PgstealFile = "pgsteal_file",
    Pageoutrun = "pageoutrun",
    Pgrotated = "pgrotated",
    OomKill = "oom_kill",
    KswapdLowWmarkHitQuickly = "kswapd_low_wmark_hit_quickly",
    KswapdHighWmarkHitQuickly = "kswapd_high_wmark_hit_quickly",
    AllocstallMovable = "allocstall_movable",
    PgskipDma = "pgskip_dma",
    PgskipDma32 = "pgskip_dma32",
    PgskipNormal = "pgskip_normal",
    UnevictablePgsCulled = "unevictable_pgs_culled",
    UnevictablePgsScanned = "unevictable_pgs_scanned",
    UnevictablePgsRescued = "unevictable_pgs_rescued",
    UnevictablePgsMlocked = "unevictable_pgs_mlocked",
    UnevictablePgsMunlocked = "unevictable_pgs_munlocked",
    UnevictablePgsCleared = "unevictable_pgs_cleared",
    UnevictablePgsStranded = "unevictable_pgs_stranded",
    SwapRa = "swap_ra",
    SwapRaHit = "swap_ra_hit",
    SlabsScanned = "slabs_scanned",
    Pgreuse = "pgreuse",
}

/// Per-memcg state counted in pages (`memcg_page_state`), kept exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum St {
    /// Anonymous pages (`NR_ANON_MAPPED`, swap-backed, mapped or in swap cache).
    Anon,
    /// Page cache pages (`NR_FILE_PAGES`), swap cache included as the kernel does.
    FilePages,
    FileMapped,
    FileDirty,
    FileWriteback,
    AnonWriteback,
    SwapCached,
    Shmem,
    /// Swap slots charged to the memcg (`memory.swap.current`, pages).
    Swap,
    InactiveAnon,
    ActiveAnon,
    InactiveFile,
    ActiveFile,
    Unevictable,
}
impl St {
    pub const COUNT: usize = 14;
}

/// An array of event counters.
#[derive(Clone)]
pub struct Events(pub [u64; Ev::COUNT]);
impl Default for Events {
    fn default() -> Self {
        Events([0; Ev::COUNT])
    }
}
impl Events {
    #[inline]
    pub fn add(&mut self, e: Ev, n: u64) {
        self.0[e as usize] += n;
    }
    #[inline]
    pub fn get(&self, e: Ev) -> u64 {
        self.0[e as usize]
    }
}

/// An array of page-state counters.
#[derive(Clone, Default)]
pub struct States(pub [i64; St::COUNT]);
impl States {
    #[inline]
    pub fn add(&mut self, s: St, n: i64) {
        self.0[s as usize] += n;
    }
    #[inline]
    pub fn get(&self, s: St) -> i64 {
        self.0[s as usize]
    }
}
