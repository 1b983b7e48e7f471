// SPDX-License-Identifier: GPL-2.0-only
//! Syntax of one trace statement: tokens, arguments and options.
//!
//! The parser borrows everything from the line; it does not allocate
//! unless it reports an error. Names are resolved to ids later, in
//! `resolve.rs`.

use crate::size::{parse_duration_ns, parse_in_range, parse_size, parse_u64};
use crate::suggest::did_you_mean;
use crate::sysctl::{parse_sysctl, Sysctl};
use crate::limits::{
    size_text, sleep_too_long, MAX_FILE_SIZE, MAX_MEMORY, MAX_PAGES_TEXT, MAX_REGION_SIZE, MAX_SLEEP_NS, MAX_SWAP,
    MIN_MEMORY,
};
use crate::{Advice, PAGE_SIZE};

/// A parse error: a byte offset into the line and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PErr {
    pub off: usize,
    pub msg: String,
}

pub(crate) type PResult<T> = Result<T, PErr>;

#[inline]
pub(crate) fn perr<T>(off: usize, msg: String) -> PResult<T> {
    Err(PErr { off, msg })
}

/// A token and its byte offset in the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tok<'a> {
    pub s: &'a str,
    pub off: usize,
}

/// Splits a line into tokens separated by spaces, tabs (and stray carriage
/// returns); `#` ends the line.
pub(crate) struct Tokens<'a> {
    line: &'a str,
    pos: usize,
    last_end: usize,
}

impl<'a> Tokens<'a> {
    pub fn new(line: &'a str) -> Tokens<'a> {
        Tokens {
            line,
            pos: 0,
            last_end: 0,
        }
    }

    /// Offset where a missing token is reported: one past the end of the
    /// last token (or 0 on an empty line).
    pub fn missing_off(&self) -> usize {
        if self.last_end == 0 {
            0
        } else {
            self.last_end + 1
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Tok<'a>;

    #[inline(always)]
    fn next(&mut self) -> Option<Tok<'a>> {
        let b = self.line.as_bytes();
        let mut i = self.pos;
        // Separators: space, tab and carriage return; `#` ends the line.
        // Other control characters are part of tokens (and then rejected
        // by whatever reads the token).
        while i < b.len() {
            let c = b[i];
            if c > b' ' {
                break;
            }
            if c != b' ' && c != b'\t' && c != b'\r' {
                break;
            }
            i += 1;
        }
        if i >= b.len() || b[i] == b'#' {
            self.pos = b.len();
            return None;
        }
        let start = i;
        while i < b.len() {
            let c = b[i];
            if c > b' ' {
                if c == b'#' {
                    break;
                }
            } else if c == b' ' || c == b'\t' || c == b'\r' {
                break;
            }
            i += 1;
        }
        self.pos = i;
        self.last_end = i;
        debug_assert!(self.line.is_char_boundary(start) && self.line.is_char_boundary(i));
        // SAFETY: `start` is 0 or follows an ASCII separator, and `i` is the
        // end of the line or the index of an ASCII byte (separator or `#`);
        // both are therefore char boundaries of the UTF-8 string `line`.
        let s = unsafe { self.line.get_unchecked(start..i) };
        Some(Tok { s, off: start })
    }
}

/// The kind of a page-access statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    Load,
    Store,
}

impl AccessKind {
    /// True for `load`/`store` (a region), false for `read`/`write` (a file).
    pub fn is_region(self) -> bool {
        matches!(self, AccessKind::Load | AccessKind::Store)
    }

    /// The statement's keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Load => "load",
            AccessKind::Store => "store",
        }
    }
}

/// Memcg limits of a `memcg` statement, in bytes (`u64::MAX` = `max`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max: Option<u64>,
    pub high: Option<u64>,
    pub low: Option<u64>,
    pub min: Option<u64>,
    pub swap_max: Option<u64>,
}

/// A parsed page-access statement (`read`, `write`, `load`, `store`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Access<'a> {
    pub kind: AccessKind,
    pub task: Tok<'a>,
    pub target: Tok<'a>,
    pub page: u64,
    pub count: u64,
    /// Offset of the PAGE token (for range errors).
    pub page_off: usize,
}

/// Fast path for the hot statements: parses `line` if it is a page access
/// (`None` if it is anything else, including blank).
#[inline(always)]
pub(crate) fn parse_access(line: &str) -> Option<PResult<Access<'_>>> {
    let mut toks = Tokens::new(line);
    let kw = toks.next()?;
    let kind = match kw.s {
        "read" => AccessKind::Read,
        "load" => AccessKind::Load,
        "store" => AccessKind::Store,
        "write" => AccessKind::Write,
        _ => return None,
    };
    let mut p = P { toks, kw: kw.s };
    Some(p.access(kind))
}

/// True for bytes that can be part of a token on the fast path.
#[inline(always)]
fn plain(c: u8) -> bool {
    c > b' ' && c != b'#'
}

/// Index of the first byte at or after `i` that is not [`plain`] (or the
/// length of `b`). Scans 8 bytes at a time where possible.
#[inline(always)]
fn scan_plain(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while i + 8 <= b.len() {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(a);
        // Bytes below 0x21, and bytes equal to `#`. In both tests the
        // lowest flagged byte is exact (false positives only appear above
        // a true hit), so the lowest bit of the union is the first stop.
        let low = w.wrapping_sub(ONES * 0x21) & !w & HIGH;
        let x = w ^ (ONES * u64::from(b'#'));
        let hash = x.wrapping_sub(ONES) & !x & HIGH;
        let m = low | hash;
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && plain(b[i]) {
        i += 1;
    }
    i
}

/// Fastest path for the most common line shape: an access statement with
/// single spaces between tokens, no comment and decimal numbers of at most
/// 19 digits, e.g. `read 1 data 4096 8`. Returns `None` for anything else
/// (including every malformed line); the caller then uses the general
/// parser, which accepts every valid form and reports errors.
#[inline(always)]
pub(crate) fn parse_access_simple(line: &str) -> Option<Access<'_>> {
    let b = line.as_bytes();
    if b.len() < 11 {
        return None;
    }
    let (kind, mut i) = match &b[..5] {
        b"read " => (AccessKind::Read, 5),
        b"load " => (AccessKind::Load, 5),
        b"store" if b[5] == b' ' => (AccessKind::Store, 6),
        b"write" if b[5] == b' ' => (AccessKind::Write, 6),
        _ => return None,
    };
    // task
    let ts = i;
    i = scan_plain(b, i);
    if i == ts || i >= b.len() || b[i] != b' ' {
        return None;
    }
    let te = i;
    i += 1;
    // target
    let gs = i;
    i = scan_plain(b, i);
    if i == gs || i >= b.len() || b[i] != b' ' {
        return None;
    }
    let ge = i;
    i += 1;
    // page
    let ps = i;
    let mut page: u64 = 0;
    while i < b.len() {
        let d = b[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        page = page.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    if i == ps || i - ps > 19 {
        return None;
    }
    let mut count: u64 = 1;
    if i < b.len() {
        if b[i] != b' ' {
            return None;
        }
        i += 1;
        let cs = i;
        count = 0;
        while i < b.len() {
            let d = b[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            count = count.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        if i == cs || i - cs > 19 || i != b.len() || count == 0 {
            return None;
        }
    }
    page.checked_add(count)?;
    debug_assert!(line.is_char_boundary(ts) && line.is_char_boundary(te));
    debug_assert!(line.is_char_boundary(gs) && line.is_char_boundary(ge));
    // SAFETY: `ts` and `gs` directly follow an ASCII byte (the keyword's
    // last letter or a space) and `te` and `ge` index ASCII spaces, so all
    // four are char boundaries of `line`, and `ts <= te`, `gs <= ge`.
    let (task, target) = unsafe { (line.get_unchecked(ts..te), line.get_unchecked(gs..ge)) };
    Some(Access {
        kind,
        task: Tok { s: task, off: ts },
        target: Tok { s: target, off: gs },
        page,
        count,
        page_off: ps,
    })
}

/// One parsed statement with unresolved names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stmt<'a> {
    Memory {
        bytes: u64,
    },
    Swap {
        bytes: u64,
        sync_io: bool,
        ram: bool,
        /// zram's compression ratio in hundredths.
        zram: Option<u32>,
    },
    Sysctl {
        name: Sysctl,
        value: u64,
    },
    Memcg {
        name: Tok<'a>,
        parent: Option<Tok<'a>>,
        limits: Limits,
        oom_group: Option<bool>,
        /// Offsets of `peak=reset` and `swap.peak=reset` if given.
        reset_peak: Option<usize>,
        reset_swap_peak: Option<usize>,
    },
    File {
        name: Tok<'a>,
        pages: u64,
        readahead_pages: u64,
        kind: crate::FileKind,
        /// `zram_ratio=R` (hundredths), a shmem file only.
        zram_ratio: Option<u32>,
    },
    Task {
        id: Tok<'a>,
        memcg: Option<Tok<'a>>,
        /// The CPU and the offset of `cpu=`.
        cpu: Option<(u32, usize)>,
        oom_score_adj: Option<i16>,
    },
    Stat {
        memcg: Tok<'a>,
    },
    Cpus {
        n: u32,
    },
    Anon {
        task: Tok<'a>,
        region: Tok<'a>,
        pages: u64,
        populate: bool,
        shared: bool,
    },
    Mmap {
        task: Tok<'a>,
        region: Tok<'a>,
        file: Tok<'a>,
        populate: bool,
    },
    Access(Access<'a>),
    Advise {
        task: Tok<'a>,
        target: Tok<'a>,
        advice: Advice,
    },
    Reclaim {
        memcg: Tok<'a>,
        bytes: u64,
        swappiness: Option<u32>,
    },
    Sleep {
        ns: u64,
        /// Offset of the DURATION token.
        off: usize,
    },
    Exit {
        task: Tok<'a>,
    },
    Munmap {
        task: Tok<'a>,
        region: Tok<'a>,
    },
    Fork {
        task: Tok<'a>,
        child: Tok<'a>,
    },
    Mlock {
        task: Tok<'a>,
        region: Tok<'a>,
        lock: bool,
    },
    Unlink {
        file: Tok<'a>,
    },
    Truncate {
        file: Tok<'a>,
        pages: u64,
        /// Offset of the SIZE token.
        off: usize,
    },
    Dump,
    LruGen {
        evict: bool,
        memcg: Tok<'a>,
        gen: u64,
        swappiness: Option<u32>,
        extra: Option<u64>,
    },
}

/// All statement keywords, in documentation order.
pub(crate) const KEYWORDS: [&str; 26] = [
    "memory", "swap", "sysctl", "memcg", "file", "task", "anon", "mmap", "read", "write", "load",
    "store", "advise", "reclaim", "sleep", "exit", "dump", "lru_gen", "cpus", "munmap", "unlink",
    "truncate", "mlock", "munlock", "stat", "fork",
];

/// `oom_score_adj`'s range (`OOM_SCORE_ADJ_MIN`, `OOM_SCORE_ADJ_MAX`).
pub const OOM_SCORE_ADJ_MIN: i16 = -1000;
pub const OOM_SCORE_ADJ_MAX: i16 = 1000;

/// The range of zram's compression ratio (`ratio=`), in hundredths.
pub const ZRAM_RATIO_MIN: u32 = 100;
pub const ZRAM_RATIO_MAX: u32 = 100_000;

/// Most CPUs a machine may have (`cpus N`, `task ... cpu=K`): the model
/// keeps per-CPU folio batches and a charge stock for each.
pub const MAX_CPUS: u32 = 1024;

/// The synopsis of a statement, quoted in error messages.
pub(crate) fn usage(kw: &str) -> &'static str {
    match kw {
        "memory" => "memory SIZE",
        "swap" => "swap SIZE [sync=y|n] [ram=y|n] [zram=y [ratio=R]]",
        "sysctl" => "sysctl NAME=VALUE",
        "memcg" => "memcg NAME [parent=NAME] [max=SIZE|max] [high=SIZE|max] [low=SIZE|max] [min=SIZE|max] [swap.max=SIZE|max] [oom.group=0|1] [peak=reset] [swap.peak=reset]",
        "file" => "file NAME size=SIZE [readahead=SIZE] [tmpfs=y|n] [memfd=y|n] [zram_ratio=R]",
        "task" => "task ID [memcg=NAME] [cpu=K] [oom_score_adj=N]",
        "stat" => "stat MEMCG",
        "cpus" => "cpus N",
        "anon" => "anon ID REGION size=SIZE [populate=y|n] [shared=y|n]",
        "mmap" => "mmap ID REGION file=NAME [populate=y|n]",
        "read" => "read ID FILE PAGE [COUNT]",
        "write" => "write ID FILE PAGE [COUNT]",
        "load" => "load ID REGION PAGE [COUNT]",
        "store" => "store ID REGION PAGE [COUNT]",
        "advise" => "advise ID FILE|REGION normal|random|sequential|dontneed|willneed|noreuse",
        "reclaim" => "reclaim MEMCG SIZE [swappiness=N]",
        "sleep" => "sleep DURATION",
        "exit" => "exit ID",
        "munmap" => "munmap ID REGION",
        "fork" => "fork ID CHILD",
        "mlock" => "mlock ID REGION",
        "munlock" => "munlock ID REGION",
        "unlink" => "unlink FILE",
        "truncate" => "truncate FILE SIZE",
        "dump" => "dump",
        "lru_gen" => "lru_gen + MEMCG NODE MAX_GEN [SWAPPINESS [FORCE_SCAN]]  or  lru_gen - MEMCG NODE MIN_GEN [SWAPPINESS [NR_TO_RECLAIM]]",
        _ => "",
    }
}

/// Parses one line. Returns `None` for a blank or comment-only line,
/// otherwise the keyword token and the statement.
#[inline]
pub(crate) fn parse_line(line: &str) -> PResult<Option<(Tok<'_>, Stmt<'_>)>> {
    let mut toks = Tokens::new(line);
    let Some(kw) = toks.next() else {
        return Ok(None);
    };
    let mut p = P { toks, kw: kw.s };
    let st = match kw.s {
        // Hot statements first.
        "read" => Stmt::Access(p.access(AccessKind::Read)?),
        "load" => Stmt::Access(p.access(AccessKind::Load)?),
        "store" => Stmt::Access(p.access(AccessKind::Store)?),
        "write" => Stmt::Access(p.access(AccessKind::Write)?),
        "sleep" => p.sleep()?,
        "memory" => p.memory()?,
        "swap" => p.swap()?,
        "sysctl" => p.sysctl()?,
        "memcg" => p.memcg()?,
        "file" => p.file()?,
        "task" => p.task()?,
        "cpus" => p.cpus()?,
        "anon" => p.anon()?,
        "mmap" => p.mmap()?,
        "advise" => p.advise()?,
        "reclaim" => p.reclaim()?,
        "stat" => {
            let memcg = p.name_arg("MEMCG")?;
            p.end()?;
            Stmt::Stat { memcg }
        }
        "exit" => p.exit()?,
        "munmap" => p.munmap()?,
        "fork" => p.fork()?,
        "mlock" => p.mlock(true)?,
        "munlock" => p.mlock(false)?,
        "unlink" => p.unlink()?,
        "truncate" => p.truncate()?,
        "dump" => {
            p.end()?;
            Stmt::Dump
        }
        "lru_gen" => p.lru_gen()?,
        other => {
            if let Some((i, c)) = invisible_char(other) {
                return perr(kw.off + i, invisible_message(c, kw.off + i));
            }
            return perr(
                kw.off,
                format!(
                    "unknown statement `{other}`{}; valid statements: {}",
                    did_you_mean(other, KEYWORDS),
                    KEYWORDS.join(", ")
                ),
            )
        }
    };
    Ok(Some((kw, st)))
}

/// The first character of `s` that does not show when printed (a control
/// character, a byte-order mark, a zero-width space or joiner), with its
/// byte offset: quoting such a token in a message would show nothing.
fn invisible_char(s: &str) -> Option<(usize, char)> {
    s.char_indices().find(|&(_, c)| {
        c.is_control() || matches!(c, '\u{feff}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{00ad}')
    })
}

#[cold]
fn invisible_message(c: char, off: usize) -> String {
    if c == '\u{feff}' && off == 0 {
        return "the line starts with a byte-order mark (U+FEFF), which a trace must not have: save the file as UTF-8 without a BOM".to_string();
    }
    format!(
        "invisible character U+{:04X} (`{}`) where a statement keyword was expected: a trace is plain text; remove the character",
        c as u32,
        c.escape_unicode()
    )
}

/// Characters allowed in names besides letters and digits.
fn name_char_ok(c: char, allow_slash: bool) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || (allow_slash && c == '/')
}

/// Checks the characters of a name being defined.
fn check_name(t: Tok<'_>, what: &str, allow_slash: bool) -> PResult<()> {
    for (i, c) in t.s.char_indices() {
        if !name_char_ok(c, allow_slash) {
            let allowed = if allow_slash {
                "letters, digits, `_`, `-`, `.` and `/`"
            } else {
                "letters, digits, `_`, `-` and `.`"
            };
            return perr(
                t.off + i,
                format!(
                    "invalid character `{}` in {what} `{}`: names may contain only {allowed}",
                    c.escape_debug(),
                    t.s
                ),
            );
        }
    }
    Ok(())
}

fn size_arg(t: Tok<'_>, what: &str) -> PResult<u64> {
    parse_size(t.s).map_err(|m| PErr {
        off: t.off,
        msg: format!("bad {what}: {m}"),
    })
}

/// A `y`/`n` option value.
fn yes_no(v: Tok<'_>, name: &str) -> PResult<bool> {
    match v.s {
        "y" => Ok(true),
        "n" => Ok(false),
        _ => perr(v.off, format!("expected {name}=y or {name}=n, found {name}={}", v.s)),
    }
}

/// Bytes to whole pages, rounded up.
fn pages_up(bytes: u64) -> u64 {
    bytes.div_ceil(PAGE_SIZE)
}

/// Parser state for one statement.
struct P<'a> {
    toks: Tokens<'a>,
    kw: &'a str,
}

impl<'a> P<'a> {
    fn usage(&self) -> &'static str {
        usage(self.kw)
    }

    /// A required positional argument.
    #[inline(always)]
    fn arg(&mut self, what: &str) -> PResult<Tok<'a>> {
        match self.toks.next() {
            Some(t) => Ok(t),
            None => perr(
                self.toks.missing_off(),
                format!("missing {what}; usage: {}", self.usage()),
            ),
        }
    }

    /// A required positional name argument (which must not look like an
    /// option).
    fn name_arg(&mut self, what: &str) -> PResult<Tok<'a>> {
        let t = self.arg(what)?;
        if t.s.contains('=') {
            return perr(
                t.off,
                format!(
                    "expected {what}, found option `{}`; usage: {}",
                    t.s,
                    self.usage()
                ),
            );
        }
        Ok(t)
    }

    /// Fails if any token is left.
    #[inline(always)]
    fn end(&mut self) -> PResult<()> {
        match self.toks.next() {
            None => Ok(()),
            Some(t) => perr(
                t.off,
                format!("unexpected extra token `{}`; usage: {}", t.s, self.usage()),
            ),
        }
    }

    /// Parses the remaining tokens as `key=value` options with keys from
    /// `allowed`; calls `f(index of key, value token)` for each.
    fn options(
        &mut self,
        allowed: &[&str],
        mut f: impl FnMut(usize, Tok<'a>) -> PResult<()>,
    ) -> PResult<()> {
        let mut seen = 0u32;
        while let Some(t) = self.toks.next() {
            let Some(eq) = t.s.find('=') else {
                return perr(
                    t.off,
                    format!("unexpected extra token `{}`; usage: {}", t.s, self.usage()),
                );
            };
            let key = &t.s[..eq];
            let Some(idx) = allowed.iter().position(|a| *a == key) else {
                let list: Vec<String> = allowed.iter().map(|a| format!("{a}=")).collect();
                let valid = if list.is_empty() {
                    format!("`{}` takes no options", self.kw)
                } else {
                    format!("valid options: {}", list.join(", "))
                };
                return perr(
                    t.off,
                    format!(
                        "unknown option `{key}=` for `{}`{}; {valid}; usage: {}",
                        self.kw,
                        did_you_mean(key, allowed.iter().copied()),
                        self.usage()
                    ),
                );
            };
            if seen & (1 << idx) != 0 {
                return perr(t.off, format!("option `{key}=` is given twice"));
            }
            seen |= 1 << idx;
            let v = Tok {
                s: &t.s[eq + 1..],
                off: t.off + eq + 1,
            };
            if v.s.is_empty() {
                return perr(
                    v.off,
                    format!("missing value after `{key}=`; usage: {}", self.usage()),
                );
            }
            f(idx, v)?;
        }
        Ok(())
    }

    fn memory(&mut self) -> PResult<Stmt<'a>> {
        let t = self.arg("SIZE")?;
        let bytes = size_arg(t, "memory size")?;
        if bytes < MIN_MEMORY {
            return perr(
                t.off,
                format!(
                    "memory size `{}` is too small: the model needs at least {}",
                    t.s,
                    size_text(MIN_MEMORY)
                ),
            );
        }
        if bytes > MAX_MEMORY {
            return perr(
                t.off,
                format!(
                    "memory size `{}` is too large: the limit is {} (the model keeps about 32 bytes per page of RAM)",
                    t.s,
                    MAX_PAGES_TEXT
                ),
            );
        }
        self.end()?;
        Ok(Stmt::Memory { bytes })
    }

    fn swap(&mut self) -> PResult<Stmt<'a>> {
        let t = self.arg("SIZE")?;
        let bytes = size_arg(t, "swap size")?;
        if bytes < PAGE_SIZE {
            return perr(
                t.off,
                format!(
                    "swap size `{}` is too small: it must be at least 4K (leave out the swap statement for no swap)",
                    t.s
                ),
            );
        }
        if bytes > MAX_SWAP {
            return perr(
                t.off,
                format!(
                    "swap size `{}` is too large: the limit is {}",
                    t.s,
                    MAX_PAGES_TEXT
                ),
            );
        }
        let (mut sync, mut ram, mut zram) = (None, None, None);
        let mut ratio: Option<(u32, usize)> = None;
        self.options(&["sync", "ram", "zram", "ratio"], |k, v| {
            if k == 3 {
                ratio = Some((zram_ratio(v, "ratio")?, v.off - "ratio=".len()));
                return Ok(());
            }
            let name = ["sync", "ram", "zram"][k];
            let on = match v.s {
                "y" => true,
                "n" => false,
                _ => {
                    return perr(
                        v.off,
                        format!("expected {name}=y or {name}=n, found {name}={}", v.s),
                    )
                }
            };
            // Errors about a combination point at the option itself.
            let at = v.off - name.len() - 1;
            match k {
                0 => sync = Some((on, at)),
                1 => ram = Some((on, at)),
                _ => zram = Some((on, at)),
            }
            Ok(())
        })?;
        let is_zram = matches!(zram, Some((true, _)));
        if is_zram {
            if let Some((false, off)) = sync {
                return perr(
                    off,
                    "zram is always a synchronous device (SWP_SYNCHRONOUS_IO): leave out sync=n (or write sync=y)".to_string(),
                );
            }
            if let Some((true, off)) = ram {
                return perr(
                    off,
                    "ram=y is a brd RAM disk and zram=y a zram device: choose one".to_string(),
                );
            }
        } else if let Some((_, off)) = ratio {
            return perr(
                off,
                "ratio= is zram's compression ratio: it needs zram=y".to_string(),
            );
        }
        Ok(Stmt::Swap {
            bytes,
            sync_io: is_zram || matches!(sync, Some((true, _))),
            ram: matches!(ram, Some((true, _))),
            zram: is_zram.then(|| ratio.map_or(DEFAULT_ZRAM_RATIO, |r| r.0)),
        })
    }

    fn sysctl(&mut self) -> PResult<Stmt<'a>> {
        let t = self.arg("NAME=VALUE")?;
        let Some(eq) = t.s.find('=') else {
            let hint = match self.toks.next() {
                Some(n) if n.s.starts_with('=') => {
                    " (write it without spaces around `=`)".to_string()
                }
                _ => String::new(),
            };
            return perr(
                t.off,
                format!(
                    "expected NAME=VALUE, found `{}`{hint}; usage: sysctl NAME=VALUE",
                    t.s
                ),
            );
        };
        let (name, value) = (&t.s[..eq], &t.s[eq + 1..]);
        if value.is_empty() {
            if let Some(n) = self.toks.next() {
                return perr(
                    n.off,
                    format!("write `{name}={}` without spaces around `=`", n.s),
                );
            }
        }
        let (name, value) = parse_sysctl(name, value).map_err(|m| {
            let off = if crate::sysctl::Sysctl::from_name(name).is_some() {
                t.off + eq + 1
            } else {
                t.off
            };
            PErr { off, msg: m }
        })?;
        self.end()?;
        Ok(Stmt::Sysctl { name, value })
    }

    fn memcg(&mut self) -> PResult<Stmt<'a>> {
        let name = self.name_arg("memcg NAME")?;
        check_name(name, "memcg name", false)?;
        let mut parent = None;
        let mut l = Limits::default();
        let mut oom_group = None;
        let (mut reset_peak, mut reset_swap_peak) = (None, None);
        self.options(
            &["parent", "max", "high", "low", "min", "swap.max", "oom.group", "peak", "swap.peak"],
            |i, v| {
                if i == 0 {
                    parent = Some(v);
                    return Ok(());
                }
                if i == 6 {
                    oom_group = Some(match v.s {
                        "1" => true,
                        "0" => false,
                        _ => {
                            return perr(
                                v.off,
                                format!("expected oom.group=0 or oom.group=1, found oom.group={}", v.s),
                            )
                        }
                    });
                    return Ok(());
                }
                if i >= 7 {
                    let what = if i == 7 { "peak" } else { "swap.peak" };
                    if v.s != "reset" {
                        return perr(
                            v.off,
                            format!("expected {what}=reset (a write to memory.{what} resets it), found {what}={}", v.s),
                        );
                    }
                    // The offset of the option itself, for errors.
                    let off = v.off - what.len() - 1;
                    if i == 7 {
                        reset_peak = Some(off);
                    } else {
                        reset_swap_peak = Some(off);
                    }
                    return Ok(());
                }
                let what = ["", "max", "high", "low", "min", "swap.max"][i];
                let bytes = if v.s == "max" {
                    u64::MAX
                } else {
                    parse_size(v.s).map_err(|m| PErr {
                        off: v.off,
                        msg: format!("bad value for {what}=: {m} (or `max` for no limit)"),
                    })?
                };
                let slot = match i {
                    1 => &mut l.max,
                    2 => &mut l.high,
                    3 => &mut l.low,
                    4 => &mut l.min,
                    _ => &mut l.swap_max,
                };
                *slot = Some(bytes);
                Ok(())
            },
        )?;
        Ok(Stmt::Memcg {
            name,
            parent,
            limits: l,
            oom_group,
            reset_peak,
            reset_swap_peak,
        })
    }

    fn file(&mut self) -> PResult<Stmt<'a>> {
        let name = self.name_arg("file NAME")?;
        check_name(name, "file name", true)?;
        let mut size: Option<u64> = None;
        let mut readahead = crate::DEFAULT_READAHEAD / PAGE_SIZE;
        // The offsets of readahead=, tmpfs=y and memfd=y where given.
        let mut readahead_at = None;
        let mut tmpfs_at = None;
        let mut memfd_at = None;
        let mut zram: Option<(u32, usize)> = None;
        self.options(&["size", "readahead", "tmpfs", "memfd", "zram_ratio"], |i, v| {
            if i == 4 {
                zram = Some((zram_ratio(v, "zram_ratio")?, v.off - "zram_ratio=".len()));
                return Ok(());
            }
            if i == 2 || i == 3 {
                if yes_no(v, if i == 2 { "tmpfs" } else { "memfd" })? {
                    if i == 2 {
                        tmpfs_at = Some(v.off);
                    } else {
                        memfd_at = Some(v.off);
                    }
                }
                return Ok(());
            }
            if i == 0 {
                let b = size_arg(v, "file size")?;
                if b == 0 {
                    return perr(v.off, "file size must be greater than 0".to_string());
                }
                if b > MAX_FILE_SIZE {
                    return perr(
                        v.off,
                        format!(
                            "file size `{}` is too large: the limit is {} per file",
                            v.s,
                            size_text(MAX_FILE_SIZE)
                        ),
                    );
                }
                size = Some(pages_up(b));
            } else {
                readahead = size_arg(v, "readahead size")? / PAGE_SIZE;
                readahead_at = Some(v.off);
            }
            Ok(())
        })?;
        let kind = match (tmpfs_at, memfd_at) {
            (Some(_), Some(m)) => {
                return perr(
                    m - "memfd=".len(),
                    "tmpfs=y and memfd=y together: a memfd is already a tmpfs file (one no directory names); give one of them".to_string(),
                );
            }
            (Some(_), None) => crate::FileKind::Tmpfs,
            (None, Some(_)) => crate::FileKind::Memfd,
            (None, None) => crate::FileKind::Disk,
        };
        if kind.is_shmem() {
            if let Some(off) = readahead_at {
                return perr(
                    off - "readahead=".len(),
                    "readahead= on a tmpfs or memfd file: shmem reads the page cache without readahead; leave readahead= out".to_string(),
                );
            }
            readahead = 0;
        } else if let Some((_, off)) = zram {
            return perr(
                off,
                "zram_ratio= is how well a shmem file's data compresses when it is swapped to zram: it needs tmpfs=y or memfd=y (a disk file's pages are not swapped)".to_string(),
            );
        }
        let Some(pages) = size else {
            return perr(
                self.toks.missing_off(),
                format!(
                    "missing size= for file `{}`; usage: {}",
                    name.s,
                    self.usage()
                ),
            );
        };
        Ok(Stmt::File {
            name,
            pages,
            readahead_pages: readahead,
            kind,
            zram_ratio: zram.map(|z| z.0),
        })
    }

    fn task(&mut self) -> PResult<Stmt<'a>> {
        let id = self.name_arg("task ID")?;
        check_name(id, "task ID", false)?;
        let mut memcg = None;
        let mut cpu = None;
        let mut oom_score_adj = None;
        self.options(&["memcg", "cpu", "oom_score_adj"], |k, v| {
            match k {
                0 => memcg = Some(v),
                1 => cpu = Some((cpu_number(v, "cpu=", MAX_CPUS - 1)?, v.off - 4)),
                _ => {
                    let n = v.s.parse::<i64>().map_err(|_| PErr {
                        off: v.off,
                        msg: format!(
                            "oom_score_adj= expects a whole number from {OOM_SCORE_ADJ_MIN} to {OOM_SCORE_ADJ_MAX}, found `{}`",
                            v.s
                        ),
                    })?;
                    if !(i64::from(OOM_SCORE_ADJ_MIN)..=i64::from(OOM_SCORE_ADJ_MAX)).contains(&n) {
                        return perr(
                            v.off,
                            format!(
                                "oom_score_adj={n} is out of range: the kernel accepts {OOM_SCORE_ADJ_MIN} (never kill) to {OOM_SCORE_ADJ_MAX} (kill first)"
                            ),
                        );
                    }
                    oom_score_adj = Some(n as i16);
                }
            }
            Ok(())
        })?;
        Ok(Stmt::Task { id, memcg, cpu, oom_score_adj })
    }

    fn cpus(&mut self) -> PResult<Stmt<'a>> {
        let t = self.arg("N")?;
        let n = cpu_number(t, "cpus", MAX_CPUS)?;
        if n == 0 {
            return perr(t.off, "cpus 0: a machine needs at least one CPU".to_string());
        }
        self.end()?;
        Ok(Stmt::Cpus { n })
    }

    fn anon(&mut self) -> PResult<Stmt<'a>> {
        let task = self.name_arg("task ID")?;
        let region = self.name_arg("REGION name")?;
        check_name(region, "region name", false)?;
        let mut pages = None;
        let mut populate = false;
        let mut shared = false;
        self.options(&["size", "populate", "shared"], |k, v| {
            if k == 1 {
                populate = yes_no(v, "populate")?;
                return Ok(());
            }
            if k == 2 {
                shared = yes_no(v, "shared")?;
                return Ok(());
            }
            let b = size_arg(v, "region size")?;
            if b == 0 {
                return perr(v.off, "region size must be greater than 0".to_string());
            }
            if b > MAX_REGION_SIZE {
                return perr(
                    v.off,
                    format!(
                        "region size `{}` is too large: the limit is {}",
                        v.s,
                        size_text(MAX_REGION_SIZE)
                    ),
                );
            }
            pages = Some(pages_up(b));
            Ok(())
        })?;
        let Some(pages) = pages else {
            return perr(
                self.toks.missing_off(),
                format!(
                    "missing size= for region `{}`; usage: {}",
                    region.s,
                    self.usage()
                ),
            );
        };
        Ok(Stmt::Anon {
            task,
            region,
            pages,
            populate,
            shared,
        })
    }

    fn mmap(&mut self) -> PResult<Stmt<'a>> {
        let task = self.name_arg("task ID")?;
        let region = self.name_arg("REGION name")?;
        check_name(region, "region name", false)?;
        let mut file = None;
        let mut populate = false;
        self.options(&["file", "populate"], |k, v| {
            if k == 1 {
                populate = yes_no(v, "populate")?;
            } else {
                file = Some(v);
            }
            Ok(())
        })?;
        let Some(file) = file else {
            return perr(
                self.toks.missing_off(),
                format!(
                    "missing file= for region `{}`; usage: {}",
                    region.s,
                    self.usage()
                ),
            );
        };
        Ok(Stmt::Mmap { task, region, file, populate })
    }

    #[inline(always)]
    fn access(&mut self, kind: AccessKind) -> PResult<Access<'a>> {
        let task = self.arg("task ID")?;
        let target = self.arg(if kind.is_region() { "REGION" } else { "FILE" })?;
        let pt = self.arg("PAGE")?;
        let page = parse_u64(pt.s, "PAGE").map_err(|msg| PErr { off: pt.off, msg })?;
        let count = match self.toks.next() {
            None => 1,
            Some(ct) => {
                let c = parse_u64(ct.s, "COUNT").map_err(|msg| PErr { off: ct.off, msg })?;
                if c == 0 {
                    return perr(
                        ct.off,
                        "COUNT must be at least 1 (leave it out for a single page)".to_string(),
                    );
                }
                self.end()?;
                c
            }
        };
        if page.checked_add(count).is_none() {
            return perr(pt.off, format!("PAGE+COUNT overflows: {page}+{count}"));
        }
        Ok(Access {
            kind,
            task,
            target,
            page,
            count,
            page_off: pt.off,
        })
    }

    fn advise(&mut self) -> PResult<Stmt<'a>> {
        let task = self.arg("task ID")?;
        let target = self.arg("FILE or REGION")?;
        let a = self.arg("advice")?;
        let Some(advice) = Advice::from_name(a.s) else {
            let names: Vec<&str> = Advice::ALL.iter().map(|a| a.name()).collect();
            return perr(
                a.off,
                format!(
                    "unknown advice `{}`{}; expected one of {}",
                    a.s,
                    did_you_mean(a.s, names.iter().copied()),
                    names.join(", ")
                ),
            );
        };
        self.end()?;
        Ok(Stmt::Advise {
            task,
            target,
            advice,
        })
    }

    fn reclaim(&mut self) -> PResult<Stmt<'a>> {
        let memcg = self.arg("MEMCG")?;
        let t = self.arg("SIZE")?;
        let bytes = size_arg(t, "reclaim size")?;
        if bytes == 0 {
            return perr(t.off, "reclaim size must be greater than 0".to_string());
        }
        // memory.reclaim's `swappiness=` (6.12 on): MIN_SWAPPINESS to
        // MAX_SWAPPINESS, or 7.2's `max` (anon only). Which kernel takes
        // which is the simulator's to say.
        let mut swappiness = None;
        self.options(&["swappiness"], |_, v| {
            if v.s == "max" {
                swappiness = Some(crate::SWAPPINESS_ANON_ONLY);
                return Ok(());
            }
            match v.s.parse::<u32>() {
                Ok(n) if n <= 200 => {
                    swappiness = Some(n);
                    Ok(())
                }
                _ => perr(
                    v.off,
                    format!("invalid swappiness `{}`: memory.reclaim takes a number from 0 to 200, or max (Linux 7.2: anon only)", v.s),
                ),
            }
        })?;
        Ok(Stmt::Reclaim { memcg, bytes, swappiness })
    }

    fn sleep(&mut self) -> PResult<Stmt<'a>> {
        let t = self.arg("DURATION")?;
        let ns = parse_duration_ns(t.s).map_err(|msg| PErr { off: t.off, msg })?;
        if ns > MAX_SLEEP_NS {
            return perr(t.off, sleep_too_long(t.s));
        }
        self.end()?;
        Ok(Stmt::Sleep { ns, off: t.off })
    }

    fn exit(&mut self) -> PResult<Stmt<'a>> {
        let task = self.arg("task ID")?;
        self.end()?;
        Ok(Stmt::Exit { task })
    }

    fn munmap(&mut self) -> PResult<Stmt<'a>> {
        let task = self.name_arg("task ID")?;
        let region = self.name_arg("REGION")?;
        self.end()?;
        Ok(Stmt::Munmap { task, region })
    }

    fn fork(&mut self) -> PResult<Stmt<'a>> {
        let task = self.name_arg("task ID")?;
        let child = self.name_arg("CHILD task ID")?;
        check_name(child, "task ID", false)?;
        self.end()?;
        Ok(Stmt::Fork { task, child })
    }

    fn mlock(&mut self, lock: bool) -> PResult<Stmt<'a>> {
        let task = self.name_arg("task ID")?;
        let region = self.name_arg("REGION")?;
        self.end()?;
        Ok(Stmt::Mlock { task, region, lock })
    }

    fn unlink(&mut self) -> PResult<Stmt<'a>> {
        let file = self.name_arg("FILE")?;
        self.end()?;
        Ok(Stmt::Unlink { file })
    }

    fn truncate(&mut self) -> PResult<Stmt<'a>> {
        let file = self.name_arg("FILE")?;
        let t = self.arg("SIZE")?;
        let bytes = size_arg(t, "truncate size")?;
        self.end()?;
        // A partial last page stays in the page cache (its tail is
        // zeroed): the file keeps every page that holds a byte.
        Ok(Stmt::Truncate { file, pages: pages_up(bytes), off: t.off })
    }

    fn lru_gen(&mut self) -> PResult<Stmt<'a>> {
        let op = self.arg("`+` (aging) or `-` (eviction)")?;
        let evict = match op.s {
            "+" => false,
            "-" => true,
            _ => return perr(
                op.off,
                format!(
                    "expected `+` (aging) or `-` (eviction) after lru_gen, found `{}`; usage: {}",
                    op.s,
                    self.usage()
                ),
            ),
        };
        let memcg = self.arg("MEMCG")?;
        let nt = self.arg("NODE")?;
        let node = parse_u64(nt.s, "NODE").map_err(|msg| PErr { off: nt.off, msg })?;
        if node != 0 {
            return perr(nt.off, format!("bad NODE `{}`: only node 0 exists", nt.s));
        }
        let gen_what = if evict { "MIN_GEN" } else { "MAX_GEN" };
        let gt = self.arg(gen_what)?;
        let gen = parse_u64(gt.s, gen_what).map_err(|msg| PErr { off: gt.off, msg })?;
        let mut swappiness = None;
        let mut extra = None;
        if let Some(st) = self.toks.next() {
            swappiness = Some(if st.s == "max" {
                crate::SWAPPINESS_ANON_ONLY
            } else {
                parse_in_range(st.s, "SWAPPINESS", 0, 200).map_err(|m| PErr {
                    off: st.off,
                    msg: format!("{m} (or `max` for anon only)"),
                })? as u32
            });
            if let Some(xt) = self.toks.next() {
                extra = Some(if evict {
                    parse_u64(xt.s, "NR_TO_RECLAIM").map_err(|msg| PErr { off: xt.off, msg })?
                } else {
                    match xt.s {
                        "0" => 0,
                        "1" => 1,
                        _ => {
                            return perr(
                                xt.off,
                                format!("FORCE_SCAN must be 0 or 1, found `{}`", xt.s),
                            )
                        }
                    }
                });
                self.end()?;
            }
        }
        Ok(Stmt::LruGen {
            evict,
            memcg,
            gen,
            swappiness,
            extra,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<(&str, usize)> {
        Tokens::new(s).map(|t| (t.s, t.off)).collect()
    }

    #[test]
    fn tokenizer() {
        assert_eq!(toks(""), vec![]);
        assert_eq!(toks("   # x y"), vec![]);
        assert_eq!(
            toks("read 1\tf  3 # c"),
            vec![("read", 0), ("1", 5), ("f", 7), ("3", 10)]
        );
        assert_eq!(toks("dump#x"), vec![("dump", 0)]);
        assert_eq!(toks("a b\r"), vec![("a", 0), ("b", 2)]);
    }

    #[test]
    fn scan() {
        let s = b"abcdefghijklmnop qrstuvw#xyz\t1234567890123456789\x01z";
        for i in 0..s.len() {
            let mut j = i;
            while j < s.len() && plain(s[j]) {
                j += 1;
            }
            assert_eq!(scan_plain(s, i), j, "{i}");
        }
    }

    #[test]
    fn simple_access_agrees_with_general_parser() {
        let lines = [
            "read 1 f 3",
            "read 1 f 3 4",
            "write t file.x 0 1",
            "load t heap 12345678901",
            "store a b 1 2",
            "read 1 f 3 ",
            "read 1 f 3  4",
            "read 1 f 3 0",
            "read 1 f x",
            "read 1 f 3 4 5",
            "read 1  f 3",
            "read 1 f 3 #c",
            "read\t1 f 3",
            "reads 1 f 3",
            "read 1 f 99999999999999999999",
            "read 1 f -1",
            "store é ü 5 6",
            "read 1 f 18446744073709551615 1",
            "read 1 f 1844674407370955161 1",
        ];
        for l in lines {
            let general = match parse_line(l) {
                Ok(Some((_, Stmt::Access(a)))) => Some(a),
                _ => None,
            };
            if let Some(a) = parse_access_simple(l) {
                assert_eq!(Some(a), general, "{l}");
            }
        }
        assert!(parse_access_simple("read 1 f 3 4").is_some());
        assert!(parse_access_simple("store t heap 7").is_some());
    }

    #[test]
    fn statements() {
        let (_, s) = parse_line("read 1 f 3").unwrap().unwrap();
        assert!(matches!(
            s,
            Stmt::Access(Access {
                kind: AccessKind::Read,
                page: 3,
                count: 1,
                ..
            })
        ));
        let (_, s) = parse_line("file a/b size=5000").unwrap().unwrap();
        assert!(matches!(
            s,
            Stmt::File {
                pages: 2,
                readahead_pages: 32,
                ..
            }
        ));
        let (_, s) = parse_line("memcg a max=max low=1M").unwrap().unwrap();
        match s {
            Stmt::Memcg { limits, .. } => {
                assert_eq!(limits.max, Some(u64::MAX));
                assert_eq!(limits.low, Some(1 << 20));
                assert_eq!(limits.high, None);
            }
            _ => panic!(),
        }
        assert!(parse_line("  # nothing").unwrap().is_none());
        let e = parse_line("read 1 f").unwrap_err();
        assert_eq!(e.off, 9);
        assert!(e.msg.contains("missing PAGE"));
    }
}

/// zram's compression ratio when `ratio=` is not given (2.00): see
/// docs/TRACE_FORMAT.md `swap`.
pub const DEFAULT_ZRAM_RATIO: u32 = 200;

/// `ratio=R` (of `swap`) or `zram_ratio=R` (of `file`), option `key`: a
/// decimal number with at most two decimals, in hundredths.
fn zram_ratio(v: Tok<'_>, key: &str) -> PResult<u32> {
    let bad = || PErr {
        off: v.off,
        msg: format!(
            "{key}= expects zram's compression ratio, a number like 2 or 2.5 (at most two decimals) from 1 to {}, found `{}`",
            ZRAM_RATIO_MAX / 100,
            v.s
        ),
    };
    let (int, frac) = match v.s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (v.s, ""),
    };
    if int.is_empty() || int.len() > 6 || frac.len() > 2 || !int.bytes().all(|c| c.is_ascii_digit()) || !frac.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    if v.s.ends_with('.') {
        return Err(bad());
    }
    let mut h: u32 = int.parse::<u32>().map_err(|_| bad())? * 100;
    if !frac.is_empty() {
        let f: u32 = frac.parse().map_err(|_| bad())?;
        h += if frac.len() == 1 { f * 10 } else { f };
    }
    if !(ZRAM_RATIO_MIN..=ZRAM_RATIO_MAX).contains(&h) {
        return perr(
            v.off,
            format!(
                "{key}={} is out of range: a compression ratio is at least 1 (incompressible) and at most {}",
                v.s,
                ZRAM_RATIO_MAX / 100
            ),
        );
    }
    Ok(h)
}

/// A CPU count or number: a decimal integer at most `max`.
fn cpu_number(t: Tok<'_>, what: &str, max: u32) -> PResult<u32> {
    match t.s.parse::<u64>() {
        Ok(v) if v <= max as u64 => Ok(v as u32),
        Ok(_) => perr(t.off, format!("{what} `{}` is too large: at most {max}", t.s)),
        Err(_) => perr(t.off, format!("{what} expects a whole number, found `{}`", t.s)),
    }
}
