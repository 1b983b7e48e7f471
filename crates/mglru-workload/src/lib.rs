// SPDX-License-Identifier: GPL-2.0-only
//! Workload generators and trace importers for the mglru simulator.
//!
//! Everything here produces trace format v1 text (docs/TRACE_FORMAT.md),
//! one statement per line, lazily: a generator or importer holds a small
//! state and produces the next few lines on demand, so memory does not
//! grow with the number of operations.
//!
//! * [`workload`] turns a specification such as
//!   `fio:--name=r --rw=randread --size=1G --runtime=10s --time_based;memory=512M`
//!   or `ycsb:workload=b,records=100000,operations=1000000` into a trace;
//!   [`workload_names`] lists the generators.
//! * [`import`] converts a trace of a real program (fio iolog, blkparse,
//!   strace, valgrind lackey, libCacheSim oracleGeneral or CSV).
//!
//! Every generator and importer, its parameters, defaults and the mapping
//! to pages are documented in docs/WORKLOADS.md.

mod ebizzy;
mod fio;
mod import;
mod kbuild;
mod lru;
mod memtier;
mod mix;
mod rng;
mod stream;
mod util;
mod vms;
mod ycsb;

use std::path::Path;

/// A stream of trace v1 lines (without trailing newlines), generated
/// lazily: O(1) memory in the number of operations.
pub type Lines = Box<dyn Iterator<Item = Result<String, String>> + Send>;

/// The same stream as statements for `mglru_trace::TraceReader::from_statements`:
/// the lines of [`Lines`], the accesses of the generators that can
/// without text (fio) as `Statement::Access` and `Statement::Pages`.
pub use mglru_trace::Statements;

/// Settings for the importers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// RAM of the simulated machine (the `memory` statement); default 1 GiB.
    pub memory: Option<u64>,
    /// If given, the imported tasks run in memcg `trace` with this
    /// `memory.max`.
    pub memcg_max: Option<u64>,
    /// The unit of block-addressed inputs: the sector size of blkparse
    /// (default 512); for the libCacheSim formats, setting it switches to
    /// block mode (object id = block number, every request is one block).
    pub block_size: Option<u64>,
    /// Must be 4096: trace v1 pages are 4 KiB.
    pub page_size: u64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { memory: None, memcg_max: None, block_size: None, page_size: 4096 }
    }
}

const NAMES: &[(&str, &str)] = &[
    ("fio", "a fio command line: fio:--name=J --rw=randread --size=1G ...[;memory=4G,memcg_max=..,rate_iops=..]"),
    ("fio-job", "a fio job file ([global] + [job] sections): fio-job:PATH[;memory=..,...]"),
    ("memtier", "memtier_benchmark against memcached (slab model): memtier:--ratio=1:10 --key-pattern=R:R ...[ && NEXT RUN][;memory=..]"),
    ("ycsb", "YCSB core workloads a-f against a MongoDB/WiredTiger-shaped store: ycsb:workload=b,records=..,operations=..,cache=.."),
    ("lru-file-readtwice", "vm-scalability: nr_task files, each read sequentially by two dd processes (nr_task=,size=)"),
    ("lru-file-mmap-read", "vm-scalability: nr_task processes, each mmap-reading its own file once (nr_task=,size=)"),
    ("mmap-pread-seq", "vm-scalability: nr_task processes mmap-reading one shared file sequentially (nr_task=,size=)"),
    ("mmap-xread-seq-mt", "vm-scalability: nr_task threads of one process reading one shared mapping sequentially (nr_task=,size=)"),
    ("ebizzy", "Barry Song's ebizzy variant: hot/cold chunks + used-once copies (seq=16|160,threads=4,chunk_size=200M,chunks=10,loops=160)"),
    ("kbuild", "a parallel kernel build on tmpfs (seed 004): make -jN compilers in a memcg with zram (jobs=96,units=2700,heap=100M,memcg_max=3G,scale=N)"),
    ("file-anon-mix", "seed 004's file/anon mix pressure reproducer: mmap readers + anon alloc/free rounds in a 48G memcg (scale=N)"),
    ("mixed-memcg", "seed 003's mixed workloads: fio buffered randread in one memcg + memcached/memtier in another, global pressure (scale=N)"),
];

/// The generators, as `(name, one-line description)`, for `--help`.
pub fn workload_names() -> &'static [(&'static str, &'static str)] {
    NAMES
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggest<'a>(word: &str, options: impl Iterator<Item = &'a str>) -> String {
    let best = options
        .map(|o| (edit_distance(word, o), o))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d);
    match best {
        Some((_, o)) => format!(" (did you mean `{}`?)", o),
        None => String::new(),
    }
}

/// A specification is one line of text: a newline or another control
/// character would end the generated trace's header comment early (the
/// fuzzer's `memtier:` finding of 2026-12-03), so it is refused, named.
fn one_line(spec: &str) -> Result<(), String> {
    match spec.char_indices().find(|(_, c)| c.is_control()) {
        Some((i, c)) => Err(format!(
            "the workload specification holds control character U+{:04X} at byte {i}: a specification is one line of text; remove it",
            c as u32
        )),
        None => Ok(()),
    }
}

/// Builds the trace of a workload. `spec` is `NAME[:k=v,k=v...]`; `fio`,
/// `fio-job` and `memtier` take a command line (or path) after the colon,
/// optionally followed by `;k=v,...` generator parameters. The error names
/// the bad part and how to fix it.
pub fn workload(spec: &str) -> Result<Lines, String> {
    let spec = spec.trim();
    one_line(spec)?;
    let (name, rest) = match spec.split_once(':') {
        Some((n, r)) => (n.trim(), r),
        None => (spec, ""),
    };
    match name {
        "fio" | "fio-job" => fio::generator(name, rest),
        "memtier" => memtier::generator(rest),
        "ycsb" => ycsb::generator(rest),
        "lru-file-readtwice" | "lru-file-mmap-read" | "mmap-pread-seq" | "mmap-xread-seq-mt" => {
            vms::generator(name, rest)
        }
        "ebizzy" => ebizzy::generator(rest),
        "kbuild" => kbuild::generator(rest),
        "file-anon-mix" => mix::file_anon_mix(rest),
        "mixed-memcg" => mix::mixed_memcg(rest),
        "" => Err(format!(
            "empty workload specification: give NAME[:PARAMS], NAME one of {}",
            NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )),
        other => Err(format!(
            "unknown workload `{}`{}; valid workloads: {}",
            other,
            suggest(other, NAMES.iter().map(|(n, _)| *n)),
            NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// [`workload`] as statements (see [`Statements`]): for feeding the model
/// directly, without formatting and parsing text. The statements stand
/// for exactly the lines [`workload`] gives. On a machine with more than
/// one CPU they are made on a helper thread, ahead of the reader.
pub fn workload_statements(spec: &str) -> Result<Statements, String> {
    let trimmed = spec.trim();
    one_line(trimmed)?;
    let (name, rest) = match trimmed.split_once(':') {
        Some((n, r)) => (n.trim(), r),
        None => (trimmed, ""),
    };
    let stmts: Statements = match name {
        "fio" | "fio-job" => fio::generator_statements(name, rest)?,
        _ => Box::new(workload(spec)?.map(|l| l.map(mglru_trace::Statement::Text))),
    };
    // Made on a helper thread if there is a second CPU: the same
    // statements, made while the model works (stream.rs).
    Ok(stream::on_thread(stmts))
}

/// The importer formats.
pub const IMPORT_FORMATS: &[&str] = &["fio-iolog", "blkparse", "strace", "lackey", "oracle-general", "cachesim-csv"];

/// Converts the trace of a real program at `path` into trace v1.
/// `format` is one of fio-iolog, blkparse, strace, lackey, oracle-general,
/// cachesim-csv, optionally followed by `:k=v,...` format options (see
/// docs/WORKLOADS.md). Errors in the input appear in the stream as
/// `Err("FILE:LINE: what was expected")`.
pub fn import(format: &str, path: &Path, opts: &ImportOptions) -> Result<Lines, String> {
    let (name, fopts) = match format.split_once(':') {
        Some((n, o)) => (n.trim(), o),
        None => (format.trim(), ""),
    };
    if opts.page_size != 4096 {
        return Err(format!(
            "page_size {} is not supported: trace v1 pages are 4096 bytes",
            opts.page_size
        ));
    }
    if opts.block_size == Some(0) {
        return Err("block_size must be greater than 0".to_string());
    }
    import::check_options(opts)?;
    if IMPORT_FORMATS.contains(&name) {
        import::check_input(path)?;
    }
    let lines = match name {
        "fio-iolog" => import::iolog::import(path, fopts, opts),
        "blkparse" => import::blkparse::import(path, fopts, opts),
        "strace" => import::strace::import(path, fopts, opts),
        "lackey" => import::lackey::import(path, fopts, opts),
        "oracle-general" => import::cachesim::import_oracle(path, fopts, opts),
        "cachesim-csv" => import::cachesim::import_csv(path, fopts, opts),
        other => Err(format!(
            "unknown import format `{}`{}; valid formats: {}",
            other,
            suggest(other, IMPORT_FORMATS.iter().copied()),
            IMPORT_FORMATS.join(", ")
        )),
    };
    // Every message quotes at most an excerpt of a long line or field.
    let lines = lines.map_err(|e| import::shorten_quotes(&e))?;
    Ok(Box::new(lines.map(|l| l.map_err(|e| import::shorten_quotes(&e)))))
}
