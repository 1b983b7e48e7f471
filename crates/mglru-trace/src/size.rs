// SPDX-License-Identifier: GPL-2.0-only
//! Numbers, sizes and durations.

/// Result of scanning a run of ASCII digits.
enum Digits {
    /// The value and the number of digit bytes consumed.
    Ok(u64, usize),
    /// No digit at the start.
    Empty,
    /// The digits do not fit in a u64.
    Overflow,
}

#[inline(always)]
fn scan_digits(b: &[u8]) -> Digits {
    let mut n = 0;
    while n < b.len() && b[n].is_ascii_digit() {
        n += 1;
    }
    if n == 0 {
        return Digits::Empty;
    }
    let mut v: u64 = 0;
    if n <= 19 {
        // At most 19 digits cannot overflow a u64.
        for &c in &b[..n] {
            v = v * 10 + u64::from(c - b'0');
        }
    } else {
        for &c in &b[..n] {
            v = match v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(v) => v,
                None => return Digits::Overflow,
            };
        }
    }
    Digits::Ok(v, n)
}

/// Parses a plain non-negative decimal integer. `what` names the argument
/// in the error message (e.g. "PAGE").
#[inline(always)]
pub(crate) fn parse_u64(s: &str, what: &str) -> Result<u64, String> {
    match scan_digits(s.as_bytes()) {
        Digits::Ok(v, n) if n == s.len() => Ok(v),
        d => Err(u64_error(s, what, matches!(d, Digits::Overflow))),
    }
}

#[cold]
fn u64_error(s: &str, what: &str, overflow: bool) -> String {
    if overflow {
        format!("{what} `{s}` is too large: the maximum is {}", u64::MAX)
    } else {
        format!("expected {what} as a non-negative decimal integer, found `{s}`")
    }
}

/// Parses a plain non-negative decimal integer that must lie in `lo..=hi`.
pub(crate) fn parse_in_range(s: &str, what: &str, lo: u64, hi: u64) -> Result<u64, String> {
    match scan_digits(s.as_bytes()) {
        Digits::Ok(v, n) if n == s.len() => {
            if v < lo || v > hi {
                Err(format!("{what} must be between {lo} and {hi}, found `{s}`"))
            } else {
                Ok(v)
            }
        }
        Digits::Overflow => Err(format!("{what} must be between {lo} and {hi}, found `{s}`")),
        _ => Err(format!(
            "expected {what} as an integer between {lo} and {hi}, found `{s}`"
        )),
    }
}

/// Parses a size in bytes: plain digits, optionally followed by a suffix.
///
/// Suffixes (case-insensitive): `B` (bytes), `K`/`KiB` (1024), `M`/`MiB`
/// (1024²), `G`/`GiB` (1024³), `T`/`TiB` (1024⁴). There are no decimal
/// (power of 1000) units and no fractions: write `1536M`, not `1.5G`.
///
/// ```
/// use mglru_trace::parse_size;
/// assert_eq!(parse_size("4096"), Ok(4096));
/// assert_eq!(parse_size("64K"), Ok(64 << 10));
/// assert_eq!(parse_size("2GiB"), Ok(2 << 30));
/// assert!(parse_size("1.5G").is_err());
/// ```
pub fn parse_size(s: &str) -> Result<u64, String> {
    parse_size_ascii(s).map_err(|e| stray_char(s, "size", "64M").unwrap_or(e))
}

/// For a value that failed to parse: the character in it that is not
/// plain printable ASCII (a no-break space pasted from a web page, a
/// control byte), named, since quoting the value would hide it.
pub(crate) fn stray_char(s: &str, what: &str, example: &str) -> Option<String> {
    let (at, c) = s.char_indices().find(|&(_, c)| !c.is_ascii_graphic())?;
    let name = match c {
        ' ' => "a space",
        '\u{a0}' => "a no-break space",
        '\u{202f}' => "a narrow no-break space",
        '\u{2009}' => "a thin space",
        '\u{200b}' => "a zero-width space",
        '\u{feff}' => "a byte-order mark",
        '\r' => "a carriage return (CRLF line ends?)",
        c if c.is_control() => "a control character",
        _ => "a character outside ASCII",
    };
    Some(format!(
        "the {what} `{}` holds {name} (U+{:04X}) at byte {at}: a {what} is plain ASCII like {example}; type it again without the character",
        s.escape_default(),
        c as u32
    ))
}

fn parse_size_ascii(s: &str) -> Result<u64, String> {
    let (v, n) = match scan_digits(s.as_bytes()) {
        Digits::Ok(v, n) => (v, n),
        Digits::Overflow => {
            return Err(format!(
                "size `{s}` is too large: the maximum is {} bytes",
                u64::MAX
            ))
        }
        Digits::Empty => {
            let hint = if s.starts_with('-') {
                " (sizes cannot be negative)"
            } else {
                ""
            };
            return Err(format!(
                "expected a size like 4096, 64K, 2M, 1G or 1GiB, found `{s}`{hint}"
            ));
        }
    };
    let suffix = &s[n..];
    if suffix.starts_with('.') || suffix.starts_with(',') {
        return Err(format!(
            "fractional size `{s}` is not supported: use an integer with a smaller unit, e.g. 1536M instead of 1.5G"
        ));
    }
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        "kb" | "mb" | "gb" | "tb" => {
            return Err(format!(
                "ambiguous size suffix in `{s}`: use K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024)"
            ))
        }
        _ => {
            return Err(format!(
                "unknown size suffix `{suffix}` in `{s}`: expected no suffix or one of B, K, M, G, T, KiB, MiB, GiB, TiB"
            ))
        }
    };
    if shift == 0 {
        return Ok(v);
    }
    if v > (u64::MAX >> shift) {
        return Err(format!(
            "size `{s}` is too large: the maximum is {} bytes",
            u64::MAX
        ));
    }
    Ok(v << shift)
}

/// Parses a duration into nanoseconds: an integer followed by one of the
/// units `ns`, `us`, `ms`, `s` (e.g. `10ms`, `1500us`, `2s`). The unit is
/// required and fractions are not supported (write `1500ms`, not `1.5s`).
///
/// ```
/// use mglru_trace::parse_duration_ns;
/// assert_eq!(parse_duration_ns("10ms"), Ok(10_000_000));
/// assert!(parse_duration_ns("1.5s").is_err());
/// assert!(parse_duration_ns("10").is_err());
/// ```
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    parse_duration_ascii(s).map_err(|e| stray_char(s, "duration", "10ms").unwrap_or(e))
}

fn parse_duration_ascii(s: &str) -> Result<u64, String> {
    let (v, n) = match scan_digits(s.as_bytes()) {
        Digits::Ok(v, n) => (v, n),
        Digits::Overflow => {
            return Err(format!(
                "duration `{s}` is too large: the maximum is {} ns",
                u64::MAX
            ))
        }
        Digits::Empty => {
            return Err(format!(
                "expected a duration like 500ns, 10us, 10ms or 2s, found `{s}`"
            ))
        }
    };
    let unit = &s[n..];
    if unit.starts_with('.') || unit.starts_with(',') {
        return Err(format!(
            "fractional duration `{s}` is not supported: use an integer with a smaller unit, e.g. 1500ms instead of 1.5s"
        ));
    }
    let mul: u64 = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "" => {
            return Err(format!(
                "duration `{s}` has no unit: write {s}ns, {s}us, {s}ms or {s}s"
            ))
        }
        _ => {
            return Err(format!(
                "unknown duration unit `{unit}` in `{s}`: expected ns, us, ms or s"
            ))
        }
    };
    v.checked_mul(mul).ok_or_else(|| {
        format!(
            "duration `{s}` is too large: the maximum is {} ns",
            u64::MAX
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 35: "unknown size suffix `M` ... expected one of ... M" for a
    /// no-break space; the character is named instead.
    #[test]
    fn an_invisible_character_in_a_value_is_named() {
        let e = parse_size("64\u{a0}M").unwrap_err();
        assert!(e.contains("holds a no-break space (U+00A0) at byte 2"), "{e}");
        let e = parse_size("64M\u{1}").unwrap_err();
        assert!(e.contains("a control character (U+0001) at byte 3"), "{e}");
        let e = parse_duration_ns("10\u{200b}ms").unwrap_err();
        assert!(e.contains("zero-width space (U+200B)"), "{e}");
        assert!(parse_size("64Q").unwrap_err().contains("unknown size suffix"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4096B"), Ok(4096));
        assert_eq!(parse_size("1K"), Ok(1024));
        assert_eq!(parse_size("1k"), Ok(1024));
        assert_eq!(parse_size("3KiB"), Ok(3072));
        assert_eq!(parse_size("2M"), Ok(2 << 20));
        assert_eq!(parse_size("2m"), Ok(2 << 20));
        assert_eq!(parse_size("2MiB"), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1T"), Ok(1 << 40));
        assert_eq!(parse_size("5TiB"), Ok(5 << 40));
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_size("16777215T"), Ok(16777215 << 40));
    }

    #[test]
    fn bad_sizes() {
        for s in [
            "", "K", "-1", "1.5G", "12Q", "1KB", "1 K", "0x10", "1GG", "+1",
        ] {
            assert!(parse_size(s).is_err(), "{s}");
        }
        let e = parse_size("18446744073709551616").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        let e = parse_size("16777216T").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        let e = parse_size("1.5G").unwrap_err();
        assert!(e.contains("1536M"), "{e}");
        let e = parse_size("1KB").unwrap_err();
        assert!(e.contains("KiB"), "{e}");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("0ns"), Ok(0));
        assert_eq!(parse_duration_ns("7ns"), Ok(7));
        assert_eq!(parse_duration_ns("1500us"), Ok(1_500_000));
        assert_eq!(parse_duration_ns("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration_ns("2s"), Ok(2_000_000_000));
        assert_eq!(
            parse_duration_ns("18446744073s"),
            Ok(18_446_744_073_000_000_000)
        );
    }

    #[test]
    fn bad_durations() {
        for s in ["", "s", "10", "1.5s", "10m", "10 ms", "-1s", "10MS", "1h"] {
            assert!(parse_duration_ns(s).is_err(), "{s}");
        }
        assert!(parse_duration_ns("10").unwrap_err().contains("no unit"));
        assert!(parse_duration_ns("1.5s").unwrap_err().contains("1500ms"));
        assert!(parse_duration_ns("18446744074s")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_duration_ns("99999999999999999999ns")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn integers() {
        assert_eq!(parse_u64("0", "PAGE"), Ok(0));
        assert_eq!(parse_u64("123", "PAGE"), Ok(123));
        assert!(parse_u64("", "PAGE").is_err());
        assert!(parse_u64("-1", "PAGE")
            .unwrap_err()
            .contains("non-negative"));
        assert!(parse_u64("1x", "PAGE").is_err());
        assert!(parse_u64("99999999999999999999", "PAGE")
            .unwrap_err()
            .contains("too large"));
        assert_eq!(parse_in_range("200", "SWAPPINESS", 0, 200), Ok(200));
        assert!(parse_in_range("201", "SWAPPINESS", 0, 200).is_err());
        assert!(parse_in_range("99999999999999999999", "X", 0, 200).is_err());
    }
}
