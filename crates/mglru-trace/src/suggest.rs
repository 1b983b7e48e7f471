// SPDX-License-Identifier: GPL-2.0-only
//! "Did you mean ...?" suggestions for misspelt keywords and names.

/// Edit distance (optimal string alignment: insertions, deletions,
/// substitutions and transpositions of adjacent bytes) between two short
/// strings; inputs longer than 64 bytes are never considered close.
fn distance(a: &[u8], b: &[u8]) -> usize {
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut pp: [usize; 65] = [0; 65];
    let mut prev: [usize; 65] = [0; 65];
    let mut cur: [usize; 65] = [0; 65];
    for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *p = j;
    }
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let mut d = (prev[j - 1] + usize::from(a[i - 1] != b[j - 1]))
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(pp[j - 2] + 1);
            }
            cur[j] = d;
        }
        pp = prev;
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate to `s`, if it is close enough to be a plausible
/// typo. `_` and `-` are treated as equal, and so is letter case.
pub(crate) fn closest<'a, I>(s: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let norm = |x: &str| -> Vec<u8> {
        x.bytes()
            .map(|c| {
                if c == b'-' {
                    b'_'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect()
    };
    let ns = norm(s);
    let mut best: Option<(&'a str, usize)> = None;
    for c in candidates {
        let d = distance(&ns, &norm(c));
        let limit = (c.len().max(s.len()) / 3).max(1);
        let better = match best {
            None => true,
            Some((_, bd)) => d < bd,
        };
        if d <= limit && better {
            best = Some((c, d));
        }
    }
    best.map(|(c, _)| c)
}

/// `" (did you mean `x`?)"` or an empty string.
pub(crate) fn did_you_mean<'a, I>(s: &str, candidates: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    match closest(s, candidates) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let kws = ["read", "write", "load", "store", "lru_gen"];
        assert_eq!(closest("raed", kws), Some("read"));
        assert_eq!(closest("lru-gen", kws), Some("lru_gen"));
        assert_eq!(closest("Store", kws), Some("store"));
        assert_eq!(closest("xyzzy", kws), None);
        assert_eq!(
            closest("vm.page_cluster", ["vm.page-cluster", "vm.swappiness"]),
            Some("vm.page-cluster")
        );
    }
}
