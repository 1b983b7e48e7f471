// SPDX-License-Identifier: GPL-2.0-only
//! Small helpers shared by the generators and importers: number, size and
//! duration parsing, name sanitising, a shell-like tokenizer, the
//! `k=v,k=v` parameter list, and formatting of trace values.

use std::collections::VecDeque;

pub const PAGE: u64 = 4096;
pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;
pub const GIB: u64 = 1024 * 1024 * 1024;
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// Pages needed to hold `bytes` bytes (rounded up, at least 1).
pub fn pages_for(bytes: u64) -> u64 {
    bytes.div_ceil(PAGE).max(1)
}

/// The pages touched by a request of `len` bytes at byte `off`:
/// `floor(off/4K) ..= ceil((off+len)/4K)-1`, as `(first, count)`.
/// A zero-length request touches the page holding `off`.
pub fn page_span(off: u64, len: u64) -> (u64, u64) {
    let first = off / PAGE;
    let end = off.saturating_add(len.max(1)).div_ceil(PAGE);
    (first, end - first)
}

/// Formats a byte count with the largest binary suffix that divides it
/// exactly (`4096` -> `4K`, `1006632960` -> `960M`, `1000` -> `1000`).
pub fn fmt_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "T"), (GIB, "G"), (MIB, "M"), (KIB, "K")];
    if bytes == 0 {
        return "0".to_string();
    }
    for (unit, suffix) in UNITS {
        if bytes % unit == 0 {
            return format!("{}{}", bytes / unit, suffix);
        }
    }
    bytes.to_string()
}

/// Formats a duration in nanoseconds as a trace DURATION with the largest
/// unit that divides it exactly (`120000000` -> `120ms`).
pub fn fmt_ns(ns: u64) -> String {
    if ns == 0 {
        return "0ns".to_string();
    }
    for (unit, suffix) in [(NS_PER_SEC, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns % unit == 0 {
            return format!("{}{}", ns / unit, suffix);
        }
    }
    format!("{}ns", ns)
}

/// Human-readable duration for comments (`360s`, `1.5ms` style is avoided:
/// whole units or a plain nanosecond count).
pub fn fmt_secs(ns: u64) -> String {
    if ns % NS_PER_SEC == 0 {
        format!("{}s", ns / NS_PER_SEC)
    } else {
        fmt_ns(ns)
    }
}

/// Makes `s` usable as a trace name: characters other than letters, digits,
/// `_`, `-`, `.` (and `/` when `allow_slash`) become `_`.
pub fn sanitize(s: &str, allow_slash: bool) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' || (allow_slash && c == '/') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        "_".to_string()
    } else {
        out
    }
}

fn split_number(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn parse_digits(num: &str, what: &str, whole: &str) -> Result<u64, String> {
    if num.is_empty() {
        return Err(format!("bad {} `{}`: expected a number", what, whole));
    }
    num.parse::<u64>()
        .map_err(|_| format!("bad {} `{}`: number too large", what, whole))
}

fn mul(n: u64, m: u64, what: &str, whole: &str) -> Result<u64, String> {
    n.checked_mul(m)
        .ok_or_else(|| format!("bad {} `{}`: too large", what, whole))
}

/// A size for a generator parameter: digits with an optional suffix
/// `B`, `K`/`KiB`, `M`/`MiB`, `G`/`GiB`, `T`/`TiB` (powers of 1024,
/// case-insensitive), like trace v1 sizes. `KB`-style suffixes and
/// fractions are rejected.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.contains('.') {
        return Err(format!(
            "bad size `{}`: fractions are not allowed; write e.g. `1536M` instead of `1.5G`",
            s
        ));
    }
    let (num, suf) = split_number(t);
    let n = parse_digits(num, "size", s)?;
    let m = match suf.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => KIB,
        "m" | "mib" => MIB,
        "g" | "gib" => GIB,
        "t" | "tib" => 1 << 40,
        "kb" | "mb" | "gb" | "tb" => {
            return Err(format!(
                "bad size `{}`: `{}` is ambiguous; use K/M/G/T (powers of 1024)",
                s, suf
            ))
        }
        _ => {
            return Err(format!(
                "bad size `{}`: unknown suffix `{}` (use B, K, M, G or T)",
                s, suf
            ))
        }
    };
    mul(n, m, "size", s)
}

/// A size as fio parses it with its default `kb_base=1024`: digits with an
/// optional suffix `k`, `m`, `g`, `t`, `p` (any case, optionally followed
/// by `i`/`b`/`ib`), all powers of 1024.
pub fn parse_fio_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.ends_with('%') {
        return Err(format!(
            "size `{}`: percentages need the real device size; give an absolute size such as 1G",
            s
        ));
    }
    if t.contains('.') {
        return Err(format!(
            "size `{}`: fractions are not supported; write e.g. 1536m instead of 1.5g",
            s
        ));
    }
    let (num, suf) = split_number(t);
    let n = parse_digits(num, "size", s)?;
    let lower = suf.to_ascii_lowercase();
    let base = lower.trim_end_matches('b').trim_end_matches('i');
    let m: u64 = match base {
        "" => 1,
        "k" => KIB,
        "m" => MIB,
        "g" => GIB,
        "t" => 1 << 40,
        "p" => 1 << 50,
        _ => {
            return Err(format!(
                "size `{}`: unknown suffix `{}` (use k, m, g, t or p)",
                s, suf
            ))
        }
    };
    mul(n, m, "size", s)
}

/// A time as fio parses it: digits with an optional unit `us`, `ms`, `s`,
/// `m`, `h`, `d` (default seconds). Returns nanoseconds.
pub fn parse_fio_time(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, suf) = split_number(t);
    let n = parse_digits(num, "time", s)?;
    let m: u64 = match suf.to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => NS_PER_SEC,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "m" | "min" => 60 * NS_PER_SEC,
        "h" | "hour" => 3600 * NS_PER_SEC,
        "d" | "day" => 86400 * NS_PER_SEC,
        _ => {
            return Err(format!(
                "time `{}`: unknown unit `{}` (use us, ms, s, m, h or d)",
                s, suf
            ))
        }
    };
    mul(n, m, "time", s)
}

/// A duration for a generator parameter: digits with a unit `ns`, `us`,
/// `ms`, `s`, `m` (minutes) or `h`; a bare number means seconds.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, suf) = split_number(t);
    let n = parse_digits(num, "duration", s)?;
    let m: u64 = match suf {
        "" | "s" => NS_PER_SEC,
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "m" | "min" => 60 * NS_PER_SEC,
        "h" => 3600 * NS_PER_SEC,
        _ => {
            return Err(format!(
                "bad duration `{}`: unknown unit `{}` (use ns, us, ms, s, m or h)",
                s, suf
            ))
        }
    };
    mul(n, m, "duration", s)
}

/// Parses a boolean written as `1`/`0`, `y`/`n`, `yes`/`no`, `true`/`false`,
/// `on`/`off`.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "y" | "yes" | "true" | "on" => Some(true),
        "0" | "n" | "no" | "false" | "off" => Some(false),
        _ => None,
    }
}

/// Splits a command line like a POSIX shell would for our purposes:
/// whitespace separates words; single quotes keep everything literally;
/// double quotes keep whitespace (backslash escapes `"`, `\`, `$`); a
/// backslash outside quotes escapes the next character, and
/// backslash-newline is removed (line continuation).
pub fn shell_split(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated single quote in the command line".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => cur.push(ch),
                            Some('\n') => {}
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err("unterminated double quote in the command line".to_string()),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated double quote in the command line".to_string()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some('\r') if chars.peek() == Some(&'\n') => {
                    chars.next();
                }
                Some(ch) => {
                    in_word = true;
                    cur.push(ch);
                }
                None => {}
            },
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Finds the last `sep` in `s` that is outside single or double quotes.
pub fn rfind_unquoted(s: &str, sep: char) -> Option<usize> {
    let mut in_s = false;
    let mut in_d = false;
    let mut escaped = false;
    let mut last = None;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !in_s => escaped = true,
            '\'' if !in_d => in_s = !in_s,
            '"' if !in_s => in_d = !in_d,
            c if c == sep && !in_s && !in_d => last = Some(i),
            _ => {}
        }
    }
    last
}

/// Generator parameters `k=v,k=v` (`;` also separates). Every key read
/// with `take*` is remembered; `finish` rejects keys nobody asked for,
/// listing the valid ones.
pub struct Params {
    gen: String,
    items: Vec<(String, String, bool)>,
    asked: Vec<&'static str>,
}

impl Params {
    pub fn parse(gen: &str, s: &str) -> Result<Params, String> {
        let mut items: Vec<(String, String, bool)> = Vec::new();
        for part in s.split([',', ';']) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (k, v) = match part.split_once('=') {
                Some((k, v)) => (k.trim(), v.trim()),
                None => {
                    return Err(format!(
                        "{}: parameter `{}` has no value: write it as key=value",
                        gen, part
                    ))
                }
            };
            if k.is_empty() {
                return Err(format!("{}: parameter `{}` has an empty name", gen, part));
            }
            if items.iter().any(|(key, _, _)| key == k) {
                return Err(format!("{}: parameter `{}` is given twice", gen, k));
            }
            items.push((k.to_string(), v.to_string(), false));
        }
        Ok(Params { gen: gen.to_string(), items, asked: Vec::new() })
    }

    pub fn gen(&self) -> &str {
        &self.gen
    }

    /// The raw value of `key`, if given.
    pub fn take(&mut self, key: &'static str) -> Option<String> {
        if !self.asked.contains(&key) {
            self.asked.push(key);
        }
        for item in self.items.iter_mut() {
            if item.0 == key {
                item.2 = true;
                return Some(item.1.clone());
            }
        }
        None
    }

    fn wrap<T>(&self, key: &str, r: Result<T, String>) -> Result<T, String> {
        r.map_err(|e| format!("{}: parameter {}=: {}", self.gen, key, e))
    }

    pub fn size(&mut self, key: &'static str, default: u64) -> Result<u64, String> {
        Ok(self.size_opt(key)?.unwrap_or(default))
    }

    pub fn size_opt(&mut self, key: &'static str) -> Result<Option<u64>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => {
                let r = parse_size(&v);
                self.wrap(key, r).map(Some)
            }
        }
    }

    pub fn u64(&mut self, key: &'static str, default: u64) -> Result<u64, String> {
        Ok(self.u64_opt(key)?.unwrap_or(default))
    }

    pub fn u64_opt(&mut self, key: &'static str) -> Result<Option<u64>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => {
                let r = v
                    .parse::<u64>()
                    .map_err(|_| format!("`{}` is not a non-negative integer", v));
                self.wrap(key, r).map(Some)
            }
        }
    }

    /// A number of tasks (processes, threads, jobs, clients): at least 1
    /// and at most `MAX_TASKS`.
    pub fn tasks(&mut self, key: &'static str, default: u64) -> Result<u64, String> {
        let v = self.count(key, default)?;
        check_tasks(&format!("{}: parameter {}={}", self.gen, key, v), v)?;
        Ok(v)
    }

    /// A positive integer (at least 1).
    pub fn count(&mut self, key: &'static str, default: u64) -> Result<u64, String> {
        let v = self.u64(key, default)?;
        if v == 0 {
            return Err(format!("{}: parameter {}= must be at least 1", self.gen, key));
        }
        Ok(v)
    }

    pub fn f64(&mut self, key: &'static str, default: f64) -> Result<f64, String> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => {
                let r = v
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| format!("`{}` is not a number", v));
                self.wrap(key, r)
            }
        }
    }

    pub fn duration(&mut self, key: &'static str, default: u64) -> Result<u64, String> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => {
                let r = parse_duration(&v);
                self.wrap(key, r)
            }
        }
    }

    pub fn bool(&mut self, key: &'static str, default: bool) -> Result<bool, String> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => {
                let r = parse_bool(&v).ok_or_else(|| format!("`{}` is not a boolean (use 1 or 0)", v));
                self.wrap(key, r)
            }
        }
    }

    pub fn string(&mut self, key: &'static str, default: &str) -> String {
        self.take(key).unwrap_or_else(|| default.to_string())
    }

    /// Rejects parameters that no `take*` call asked for.
    pub fn finish(self) -> Result<(), String> {
        if let Some((k, _, _)) = self.items.iter().find(|(_, _, used)| !used) {
            let mut valid: Vec<&str> = self.asked.clone();
            valid.sort_unstable();
            return Err(format!(
                "{}: unknown parameter `{}`; valid parameters: {}",
                self.gen,
                k,
                valid.join(", ")
            ));
        }
        Ok(())
    }
}

/// Machine settings every generator accepts: `memory=`, `swap=`,
/// `swap_sync=`, `memcg_max=` and `seed=`.
#[derive(Clone, Debug)]
pub struct Machine {
    pub memory: u64,
    pub swap: Option<u64>,
    pub swap_sync: bool,
    pub memcg_max: Option<u64>,
    pub seed: u64,
}

pub const DEFAULT_SEED: u64 = 0x6d67_6c72_7531; // "mglru1"

impl Machine {
    /// Reads the machine parameters with the given defaults.
    pub fn from_params(
        p: &mut Params,
        memory: u64,
        swap: Option<u64>,
        swap_sync: bool,
        memcg_max: Option<u64>,
    ) -> Result<Machine, String> {
        let memory = p.size("memory", memory)?;
        check_memory(&format!("{}: memory=", p.gen()), memory)?;
        let swap = match p.take("swap") {
            None => swap,
            Some(v) if v == "0" || v == "none" => None,
            Some(v) => Some(
                parse_size(&v).map_err(|e| format!("{}: parameter swap=: {} (swap= takes a size or none)", p.gen(), e))?,
            ),
        };
        if let Some(s) = swap {
            if s > mglru_trace::MAX_SWAP {
                return Err(format!("{}: swap={} is larger than trace v1 allows ({})", p.gen(), fmt_size(s), fmt_size(mglru_trace::MAX_SWAP)));
            }
        }
        let swap_sync = p.bool("swap_sync", swap_sync)?;
        let memcg_max = match p.take("memcg_max") {
            None => memcg_max,
            Some(v) if v == "none" => None,
            Some(v) if v == "max" => Some(u64::MAX),
            Some(v) => Some(parse_size(&v).map_err(|e| {
                format!("{}: parameter memcg_max=: {} (memcg_max= takes a size, max or none)", p.gen(), e)
            })?),
        };
        let seed = p.u64("seed", DEFAULT_SEED)?;
        Ok(Machine { memory, swap, swap_sync, memcg_max, seed })
    }

    /// `memory` and `swap` statements.
    pub fn setup_lines(&self, out: &mut VecDeque<String>) {
        out.push_back(format!("memory {}", fmt_size(self.memory)));
        if let Some(s) = self.swap {
            out.push_back(format!("swap {} sync={}", fmt_size(s.max(PAGE)), if self.swap_sync { "y" } else { "n" }));
        }
    }

    /// A `memcg NAME [max=...]` statement text for `memcg_max`.
    pub fn memcg_line(name: &str, max: Option<u64>) -> String {
        match max {
            None => format!("memcg {}", name),
            Some(u64::MAX) => format!("memcg {} max=max", name),
            Some(m) => format!("memcg {} max={}", name, fmt_size(m)),
        }
    }
}

/// Divides a count by `scale`, keeping at least `min`.
pub fn scaled(v: u64, scale: u64, min: u64) -> u64 {
    (v / scale.max(1)).max(min)
}

/// Divides a size by `scale`, rounded down to whole pages, keeping at
/// least `min`.
pub fn scaled_size(v: u64, scale: u64, min: u64) -> u64 {
    ((v / scale.max(1)) / PAGE * PAGE).max(min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("2GiB").unwrap(), 2 * GIB);
        assert!(parse_size("1.5G").unwrap_err().contains("fractions"));
        assert!(parse_size("1GB").unwrap_err().contains("ambiguous"));
        assert_eq!(parse_fio_size("960m").unwrap(), 960 * MIB);
        assert_eq!(parse_fio_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_fio_size("1KB").unwrap(), 1024);
        assert_eq!(parse_fio_size("204800m").unwrap(), 200 * GIB);
        assert!(parse_fio_size("50%").is_err());
        assert_eq!(parse_fio_time("5m").unwrap(), 300 * NS_PER_SEC);
        assert_eq!(parse_fio_time("10").unwrap(), 10 * NS_PER_SEC);
        assert_eq!(parse_fio_time("250ms").unwrap(), 250_000_000);
        assert_eq!(fmt_size(960 * MIB), "960M");
        assert_eq!(fmt_size(1000), "1000");
        assert_eq!(fmt_ns(120_000_000), "120ms");
        assert_eq!(fmt_ns(1_500_000), "1500us");
    }

    #[test]
    fn spans() {
        assert_eq!(page_span(0, 4096), (0, 1));
        assert_eq!(page_span(4095, 2), (0, 2));
        assert_eq!(page_span(8192, 8192), (2, 2));
        assert_eq!(page_span(100, 0), (0, 1));
    }

    #[test]
    fn shell() {
        let w = shell_split("fio --filename_format='test.$jobnum.img' -name=a \\\n --x=\"a b\"").unwrap();
        assert_eq!(w, vec!["fio", "--filename_format=test.$jobnum.img", "-name=a", "--x=a b"]);
        assert!(shell_split("a 'b").is_err());
        assert_eq!(rfind_unquoted("a';'b;c", ';'), Some(5));
    }
}

/// The most tasks a generator may create: Linux's `PID_MAX_LIMIT` on
/// 64-bit (4 × 1024 × 1024), the most a real system can run at once.
pub const MAX_TASKS: u64 = 4 * 1024 * 1024;

/// Refuses more than `MAX_TASKS` tasks; `what` names where they were asked for.
pub fn check_tasks(what: &str, n: u64) -> Result<(), String> {
    if n > MAX_TASKS {
        return Err(format!(
            "{what} asks for {n} tasks, more than Linux can run (PID_MAX_LIMIT, {MAX_TASKS}): use fewer"
        ));
    }
    Ok(())
}

/// Refuses a machine size outside trace v1's `memory` bounds (16M to 1T less two pages:
/// the model needs 16M and addresses 2^28 - 2 pages); `what` names the input.
pub fn check_memory(what: &str, memory: u64) -> Result<(), String> {
    if memory < mglru_trace::MIN_MEMORY {
        return Err(format!("{what} must be at least {} (the model's smallest machine), found {}", fmt_size(mglru_trace::MIN_MEMORY), fmt_size(memory)));
    }
    if memory > mglru_trace::MAX_MEMORY {
        return Err(format!("{what} must be below 1T (the model's largest machine is 1T less two 4K pages; 1023G fits), found {}", fmt_size(memory)));
    }
    Ok(())
}

/// Refuses a file larger than trace v1 allows; `what` names the input
/// that sized it.
pub fn check_file_size(what: &str, bytes: u64) -> Result<(), String> {
    if bytes > mglru_trace::MAX_FILE_SIZE {
        return Err(format!(
            "{what} makes a file of {} bytes, larger than trace v1 allows ({} per file, {} for all files together)",
            bytes,
            fmt_size(mglru_trace::MAX_FILE_SIZE),
            fmt_size(mglru_trace::MAX_TOTAL_FILE_SIZE)
        ));
    }
    Ok(())
}

/// Refuses files that add up to more than trace v1 allows.
pub fn check_total_files(what: &str, pages: u128) -> Result<(), String> {
    if pages > (mglru_trace::MAX_TOTAL_FILE_SIZE / PAGE) as u128 {
        return Err(format!(
            "{what} makes files of {} pages in all, more than trace v1 allows ({} for all files together)",
            pages,
            fmt_size(mglru_trace::MAX_TOTAL_FILE_SIZE)
        ));
    }
    Ok(())
}

/// Refuses an anonymous region larger than trace v1 allows.
pub fn check_region_size(what: &str, bytes: u64) -> Result<(), String> {
    if bytes > mglru_trace::MAX_REGION_SIZE {
        return Err(format!(
            "{what} makes an anonymous region of {} bytes, larger than trace v1 allows ({})",
            bytes,
            fmt_size(mglru_trace::MAX_REGION_SIZE)
        ));
    }
    Ok(())
}
