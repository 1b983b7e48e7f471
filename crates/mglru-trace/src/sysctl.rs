// SPDX-License-Identifier: GPL-2.0-only
//! The sysctls a trace (or the command line) may set.

use crate::size::{parse_in_range, parse_u64};
use crate::suggest::did_you_mean;
use std::fmt;

/// A tunable of the simulated kernel, set by `sysctl NAME=VALUE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sysctl {
    /// `vm.swappiness`: 0..=200.
    Swappiness,
    /// `vm.page-cluster`: 0..=10 (log2 of the swap readahead in pages).
    PageCluster,
    /// `vm.min_free_kbytes`: at least 128.
    MinFreeKbytes,
    /// `vm.watermark_scale_factor`: 1..=3000.
    WatermarkScaleFactor,
    /// `vm.watermark_boost_factor`: 0..=2147483647 (boosts happen only
    /// with pages grouped by mobility, `--migratetypes`).
    WatermarkBoostFactor,
    /// `vm.dirty_ratio`: 0..=100.
    DirtyRatio,
    /// `vm.dirty_background_ratio`: 0..=100.
    DirtyBackgroundRatio,
    /// `vm.dirty_expire_centisecs`: any u32.
    DirtyExpireCentisecs,
    /// `vm.dirty_writeback_centisecs`: any u32.
    DirtyWritebackCentisecs,
    /// `lru_gen.enabled` (`/sys/kernel/mm/lru_gen/enabled`): a mask of
    /// 0..=7; `y` means 7 and `n` means 0.
    LruGenEnabled,
    /// `lru_gen.min_ttl_ms` (`/sys/kernel/mm/lru_gen/min_ttl_ms`): any u32.
    LruGenMinTtlMs,
}

impl Sysctl {
    /// Every sysctl, in the order of the enum.
    pub const ALL: [Sysctl; 11] = [
        Sysctl::Swappiness,
        Sysctl::PageCluster,
        Sysctl::MinFreeKbytes,
        Sysctl::WatermarkScaleFactor,
        Sysctl::WatermarkBoostFactor,
        Sysctl::DirtyRatio,
        Sysctl::DirtyBackgroundRatio,
        Sysctl::DirtyExpireCentisecs,
        Sysctl::DirtyWritebackCentisecs,
        Sysctl::LruGenEnabled,
        Sysctl::LruGenMinTtlMs,
    ];

    /// The name as written in a trace, e.g. `vm.page-cluster`.
    pub fn name(self) -> &'static str {
        match self {
            Sysctl::Swappiness => "vm.swappiness",
            Sysctl::PageCluster => "vm.page-cluster",
            Sysctl::MinFreeKbytes => "vm.min_free_kbytes",
            Sysctl::WatermarkScaleFactor => "vm.watermark_scale_factor",
            Sysctl::WatermarkBoostFactor => "vm.watermark_boost_factor",
            Sysctl::DirtyRatio => "vm.dirty_ratio",
            Sysctl::DirtyBackgroundRatio => "vm.dirty_background_ratio",
            Sysctl::DirtyExpireCentisecs => "vm.dirty_expire_centisecs",
            Sysctl::DirtyWritebackCentisecs => "vm.dirty_writeback_centisecs",
            Sysctl::LruGenEnabled => "lru_gen.enabled",
            Sysctl::LruGenMinTtlMs => "lru_gen.min_ttl_ms",
        }
    }

    /// Looks a sysctl up by its exact name.
    pub fn from_name(name: &str) -> Option<Sysctl> {
        Sysctl::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// A description of the accepted values, for messages and docs.
    pub fn accepted_values(self) -> &'static str {
        match self {
            Sysctl::Swappiness => "an integer between 0 and 200",
            Sysctl::PageCluster => "an integer between 0 and 10",
            Sysctl::MinFreeKbytes => "an integer of at least 128",
            Sysctl::WatermarkScaleFactor => "an integer between 1 and 3000",
            Sysctl::WatermarkBoostFactor => "an integer between 0 and 2147483647",
            Sysctl::DirtyRatio | Sysctl::DirtyBackgroundRatio => "an integer between 0 and 100",
            Sysctl::DirtyExpireCentisecs
            | Sysctl::DirtyWritebackCentisecs
            | Sysctl::LruGenMinTtlMs => "an integer between 0 and 4294967295",
            Sysctl::LruGenEnabled => "y, n, or a 32-bit mask of which bits 0x7 count (e.g. 0x0003)",
        }
    }

    /// Parses and normalises a value for this sysctl.
    pub fn parse_value(self, value: &str) -> Result<u64, String> {
        let name = self.name();
        let u32max = u64::from(u32::MAX);
        match self {
            Sysctl::Swappiness => parse_in_range(value, name, 0, 200),
            Sysctl::PageCluster => parse_in_range(value, name, 0, 10),
            Sysctl::MinFreeKbytes => {
                let v = parse_u64(value, name)?;
                if v < 128 {
                    Err(format!("{name} must be at least 128, found `{value}`"))
                } else {
                    Ok(v)
                }
            }
            Sysctl::WatermarkScaleFactor => parse_in_range(value, name, 1, 3000),
            Sysctl::WatermarkBoostFactor => parse_in_range(value, name, 0, i32::MAX as u64),
            Sysctl::DirtyRatio | Sysctl::DirtyBackgroundRatio => {
                parse_in_range(value, name, 0, 100)
            }
            Sysctl::DirtyExpireCentisecs
            | Sysctl::DirtyWritebackCentisecs
            | Sysctl::LruGenMinTtlMs => parse_in_range(value, name, 0, u32max),
            Sysctl::LruGenEnabled => parse_lru_gen_enabled(value),
        }
    }
}

impl fmt::Display for Sysctl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// As 6.12's `enabled_store`: a value starting with `y`/`n` (any case)
/// turns every capability on/off; otherwise a number (hex with `0x`)
/// that fits in 32 bits, of which only the three capability bits
/// (`NR_LRU_GEN_CAPS`) count — the kernel ignores the others.
fn parse_lru_gen_enabled(value: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "lru_gen.enabled must be y, n, or a 32-bit mask (hex 0x0..0xffffffff or decimal; bits 0x1, 0x2, 0x4 count), found `{value}`"
        )
    };
    match value.as_bytes().first() {
        Some(b'y' | b'Y') => return Ok(7),
        Some(b'n' | b'N') => return Ok(0),
        _ => {}
    }
    let v = if let Some(hex) = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        if hex.is_empty() || hex.len() > 16 {
            return Err(bad());
        }
        u64::from_str_radix(hex, 16).map_err(|_| bad())?
    } else {
        parse_u64(value, "lru_gen.enabled").map_err(|_| bad())?
    };
    if v > u64::from(u32::MAX) {
        return Err(bad());
    }
    Ok(v & 7)
}

/// Parses `NAME` and `VALUE` of `sysctl NAME=VALUE` (also used for the
/// command line's `--sysctl NAME=VALUE`) and normalises the value to u64.
///
/// | name | values |
/// |------|--------|
/// | `vm.swappiness` | 0..=200 |
/// | `vm.page-cluster` | 0..=10 |
/// | `vm.min_free_kbytes` | >= 128 |
/// | `vm.watermark_scale_factor` | 1..=3000 |
/// | `vm.watermark_boost_factor` | 0..=2147483647 (boosts only with `--migratetypes`) |
/// | `vm.dirty_ratio` | 0..=100 |
/// | `vm.dirty_background_ratio` | 0..=100 |
/// | `vm.dirty_expire_centisecs` | u32 |
/// | `vm.dirty_writeback_centisecs` | u32 |
/// | `lru_gen.enabled` | `y…` (= 7), `n…` (= 0), a 32-bit hex (`0x0007`) or decimal mask, of which bits 0x7 count (as in 6.12's `enabled_store`) |
/// | `lru_gen.min_ttl_ms` | u32 |
///
/// ```
/// use mglru_trace::{parse_sysctl, Sysctl};
/// assert_eq!(parse_sysctl("vm.swappiness", "100"), Ok((Sysctl::Swappiness, 100)));
/// assert_eq!(parse_sysctl("lru_gen.enabled", "y"), Ok((Sysctl::LruGenEnabled, 7)));
/// assert!(parse_sysctl("vm.page_cluster", "3").unwrap_err().contains("vm.page-cluster"));
/// ```
pub fn parse_sysctl(name: &str, value: &str) -> Result<(Sysctl, u64), String> {
    let Some(s) = Sysctl::from_name(name) else {
        let names: Vec<&str> = Sysctl::ALL.iter().map(|s| s.name()).collect();
        return Err(format!(
            "unknown sysctl `{name}`{}; valid sysctls: {}",
            did_you_mean(name, names.iter().copied()),
            names.join(", ")
        ));
    };
    if value.is_empty() {
        return Err(format!(
            "missing value for {name}: write {name}=VALUE with VALUE {}",
            s.accepted_values()
        ));
    }
    Ok((s, s.parse_value(value)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid() {
        assert_eq!(
            parse_sysctl("vm.swappiness", "0"),
            Ok((Sysctl::Swappiness, 0))
        );
        assert_eq!(
            parse_sysctl("vm.swappiness", "200"),
            Ok((Sysctl::Swappiness, 200))
        );
        assert_eq!(
            parse_sysctl("vm.page-cluster", "10"),
            Ok((Sysctl::PageCluster, 10))
        );
        assert_eq!(
            parse_sysctl("vm.min_free_kbytes", "128"),
            Ok((Sysctl::MinFreeKbytes, 128))
        );
        assert_eq!(
            parse_sysctl("vm.watermark_boost_factor", "0"),
            Ok((Sysctl::WatermarkBoostFactor, 0))
        );
        assert_eq!(
            parse_sysctl("vm.watermark_boost_factor", "2147483647"),
            Ok((Sysctl::WatermarkBoostFactor, 2147483647))
        );
        assert_eq!(
            parse_sysctl("vm.watermark_scale_factor", "3000"),
            Ok((Sysctl::WatermarkScaleFactor, 3000))
        );
        assert_eq!(
            parse_sysctl("vm.dirty_ratio", "100"),
            Ok((Sysctl::DirtyRatio, 100))
        );
        assert_eq!(
            parse_sysctl("vm.dirty_background_ratio", "0"),
            Ok((Sysctl::DirtyBackgroundRatio, 0))
        );
        assert_eq!(
            parse_sysctl("vm.dirty_expire_centisecs", "4294967295"),
            Ok((Sysctl::DirtyExpireCentisecs, 4294967295))
        );
        assert_eq!(
            parse_sysctl("vm.dirty_writeback_centisecs", "500"),
            Ok((Sysctl::DirtyWritebackCentisecs, 500))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "y"),
            Ok((Sysctl::LruGenEnabled, 7))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "n"),
            Ok((Sysctl::LruGenEnabled, 0))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "0x0007"),
            Ok((Sysctl::LruGenEnabled, 7))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "0x3"),
            Ok((Sysctl::LruGenEnabled, 3))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "5"),
            Ok((Sysctl::LruGenEnabled, 5))
        );
        // enabled_store looks at the first character and at the
        // capability bits only.
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "yes"),
            Ok((Sysctl::LruGenEnabled, 7))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "0x000b"),
            Ok((Sysctl::LruGenEnabled, 3))
        );
        assert_eq!(
            parse_sysctl("lru_gen.enabled", "8"),
            Ok((Sysctl::LruGenEnabled, 0))
        );
        assert_eq!(
            parse_sysctl("lru_gen.min_ttl_ms", "1000"),
            Ok((Sysctl::LruGenMinTtlMs, 1000))
        );
        for s in Sysctl::ALL {
            assert_eq!(Sysctl::from_name(s.name()), Some(s));
        }
    }

    #[test]
    fn invalid() {
        let cases = [
            ("vm.swappiness", "201"),
            ("vm.swappiness", "-1"),
            ("vm.swappiness", "abc"),
            ("vm.page-cluster", "11"),
            ("vm.min_free_kbytes", "127"),
            ("vm.min_free_kbytes", "99999999999999999999"),
            ("vm.watermark_scale_factor", "0"),
            ("vm.watermark_scale_factor", "3001"),
            ("vm.watermark_boost_factor", "2147483648"),
            ("vm.watermark_boost_factor", "-1"),
            ("vm.dirty_ratio", "101"),
            ("vm.dirty_background_ratio", "101"),
            ("vm.dirty_expire_centisecs", "4294967296"),
            ("vm.dirty_writeback_centisecs", "-5"),
            ("lru_gen.enabled", "0x100000000"),
            ("lru_gen.enabled", "4294967296"),
            ("lru_gen.enabled", "0x"),
            ("lru_gen.enabled", "0xz"),
            ("lru_gen.enabled", "maybe"),
            ("lru_gen.min_ttl_ms", "4294967296"),
            ("vm.swappiness", ""),
        ];
        for (n, v) in cases {
            let e = parse_sysctl(n, v).unwrap_err();
            assert!(e.contains(n), "{n}={v}: {e}");
        }
        let e = parse_sysctl("vm.page_cluster", "3").unwrap_err();
        assert!(e.contains("did you mean `vm.page-cluster`"), "{e}");
        let e = parse_sysctl("vm.bogus", "3").unwrap_err();
        assert!(
            e.contains("unknown sysctl") && e.contains("vm.swappiness"),
            "{e}"
        );
    }
}
