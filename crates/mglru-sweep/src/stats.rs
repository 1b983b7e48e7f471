// SPDX-License-Identifier: GPL-2.0-only
//! The spread of replicates: a mean and its 95 % confidence interval.
//!
//! Replicates (crate::replicate) are runs of one configuration that differ
//! only in their seed. Their figures are summarised as the mean ± the half
//! width of the two-sided 95 % interval of Student's t with n − 1 degrees
//! of freedom: `t(0.975, n − 1) · s / √n`, s the sample standard
//! deviation. The quantile comes from statrs. One replicate has a mean and
//! no interval.

use serde_json::{Map, Value};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A mean and the half width of its 95 % interval (None for one value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub half_width: Option<f64>,
    pub n: usize,
}

impl Spread {
    /// The interval as (low, high); a single value is its own interval.
    pub fn interval(&self) -> (f64, f64) {
        let h = self.half_width.unwrap_or(0.0);
        (self.mean - h, self.mean + h)
    }

    /// Whether `x` lies inside the interval (ends included).
    pub fn contains(&self, x: f64) -> bool {
        let (lo, hi) = self.interval();
        lo <= x && x <= hi
    }
}

/// The two-sided 95 % quantile of Student's t for `dof` degrees of
/// freedom (12.706 for 1, 4.303 for 2, → 1.960).
pub fn t95(dof: usize) -> f64 {
    assert!(dof >= 1, "Student's t needs at least one degree of freedom");
    StudentsT::new(0.0, 1.0, dof as f64).expect("dof >= 1 is a valid Student's t").inverse_cdf(0.975)
}

/// The mean of `xs` and its 95 % interval. Panics on no values.
pub fn spread(xs: &[f64]) -> Spread {
    assert!(!xs.is_empty(), "the spread of no values");
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Spread { mean, half_width: None, n };
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Spread { mean, half_width: Some(t95(n - 1) * (var / n as f64).sqrt()), n }
}

/// The suffix of a summary column holding a figure's half width.
pub const CI_SUFFIX: &str = "_ci95";

/// Rows of one configuration's replicates summarised as one row: the
/// text columns (axes, `policy_run`) of the first, `replicates` (how
/// many), then each numeric column's mean under its own name and the half
/// width of its 95 % interval as `NAME_ci95` (0 for one replicate). The
/// replicate and seed columns are left out.
pub fn summarize(rows: &[&Map<String, Value>]) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(first) = rows.first() else { return out };
    for (k, v) in first.iter() {
        if k == "replicate" || k == "seed" {
            continue;
        }
        match v {
            Value::Number(_) => {
                let xs: Vec<f64> = rows.iter().map(|r| r.get(k).and_then(Value::as_f64).unwrap_or(0.0)).collect();
                let s = spread(&xs);
                out.insert(k.clone(), Value::from(s.mean));
                out.insert(format!("{k}{CI_SUFFIX}"), Value::from(s.half_width.unwrap_or(0.0)));
            }
            other => {
                out.insert(k.clone(), other.clone());
            }
        }
    }
    out.insert("replicates".into(), Value::from(rows.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Printed tables of Student's t, two-sided 95 %.
        for (dof, t) in [(1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (29, 2.045)] {
            assert!((t95(dof) - t).abs() < 5e-4, "dof {dof}: {}", t95(dof));
        }
        assert!((t95(100_000) - 1.960).abs() < 1e-3);
    }

    #[test]
    fn spread_of_known_samples() {
        let s = spread(&[1.0, 2.0, 3.0]);
        assert_eq!(s.mean, 2.0);
        // s = 1, n = 3: 4.303 / sqrt(3).
        assert!((s.half_width.unwrap() - 4.3027 / 3f64.sqrt()).abs() < 1e-3, "{s:?}");
        assert!(s.contains(0.0) && !s.contains(-0.5));
        let one = spread(&[5.0]);
        assert_eq!((one.mean, one.half_width), (5.0, None));
        assert_eq!(spread(&[7.0, 7.0, 7.0]).half_width, Some(0.0));
    }

    #[test]
    fn a_summary_row_has_means_and_half_widths() {
        let r = |x: u64, seed: u64| {
            let mut m = Map::new();
            m.insert("memory".into(), Value::from("1G"));
            m.insert("replicate".into(), Value::from(seed));
            m.insert("seed".into(), Value::from(seed));
            m.insert("misses".into(), Value::from(x));
            m
        };
        let (a, b) = (r(10, 0), r(20, 1));
        let s = summarize(&[&a, &b]);
        assert_eq!(s["memory"], "1G");
        assert_eq!(s["misses"], 15.0);
        assert!((s["misses_ci95"].as_f64().unwrap() - t95(1) * 5.0).abs() < 1e-9);
        assert_eq!(s["replicates"], 2);
        assert!(!s.contains_key("seed") && !s.contains_key("replicate"));
    }
}
