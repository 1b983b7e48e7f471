// SPDX-License-Identifier: GPL-2.0-only
//! Deterministic randomness: a SplitMix64 generator, keyed bijections of
//! `[0, n)` (a small Feistel network with cycle walking), and the
//! distributions the generators need (Gray et al.'s zipf sampler as used
//! by fio and YCSB, fio's pareto, normal).

/// The SplitMix64 finalizer: a good 64-bit mixing function.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A seed for sub-stream `stream` of `seed` (independent-looking streams
/// for each job, client, thread, pass, ...).
pub fn derive(seed: u64, stream: u64) -> u64 {
    mix64(seed ^ mix64(stream.wrapping_add(0x9e37_79b9_7f4a_7c15)))
}

/// 64-bit FNV-1a over the 8 little-endian bytes of `x`.
pub fn fnv1a64(x: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in x.to_le_bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// 64-bit FNV-1a over a byte string.
pub fn fnv1a64_bytes(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough for
/// workload generation.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// A uniform double in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `[0, n)` (`n > 0`), without modulo bias
    /// (Lemire's multiply-and-reject).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        if n <= 1 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// A standard normal deviate (Box-Muller, one value per call).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // (0, 1]
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// A keyed pseudo-random bijection of `[0, n)`: a 4-round Feistel network
/// on the smallest even number of bits covering `n`, with cycle walking.
/// O(1) memory whatever `n` is; `invert` undoes `apply`.
#[derive(Clone, Debug)]
pub struct Perm {
    n: u64,
    half: u32,
    keys: [u64; 4],
}

impl Perm {
    pub fn new(n: u64, seed: u64) -> Perm {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half = bits.div_ceil(2).max(1);
        let keys = [derive(seed, 1), derive(seed, 2), derive(seed, 3), derive(seed, 4)];
        Perm { n, half, keys }
    }

    #[inline(always)]
    fn mask(&self) -> u64 {
        (1u64 << self.half) - 1
    }

    #[inline(always)]
    fn round(&self, r: u64, k: u64) -> u64 {
        mix64(r ^ k) & self.mask()
    }

    #[inline(always)]
    fn enc(&self, x: u64) -> u64 {
        let m = self.mask();
        let (mut l, mut r) = (x >> self.half, x & m);
        for &k in &self.keys {
            let t = l ^ self.round(r, k);
            l = r;
            r = t;
        }
        (l << self.half) | r
    }

    #[cfg(test)]
    fn dec(&self, y: u64) -> u64 {
        let m = self.mask();
        let (mut l, mut r) = (y >> self.half, y & m);
        for &k in self.keys.iter().rev() {
            let t = r ^ self.round(l, k);
            r = l;
            l = t;
        }
        (l << self.half) | r
    }

    /// The image of `x` (`x < n`).
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        if self.n <= 1 {
            return 0;
        }
        let mut y = self.enc(x);
        while y >= self.n {
            y = self.enc(y);
        }
        y
    }

    /// The preimage of `y` (`y < n`).
    #[cfg(test)]
    pub fn invert(&self, y: u64) -> u64 {
        if self.n <= 1 {
            return 0;
        }
        let mut x = self.dec(y);
        while x >= self.n {
            x = self.dec(x);
        }
        x
    }
}

/// The generalized harmonic number `sum_{i=1..n} i^-theta`: exact for
/// small `n`, Euler-Maclaurin (relative error < 1e-12) beyond, so that it
/// costs O(1) for any `n`.
pub fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 1000;
    if n <= 100_000 {
        let mut s = 0.0;
        for i in 1..=n {
            s += (i as f64).powf(-theta);
        }
        return s;
    }
    let mut s = 0.0;
    for i in 1..EXACT {
        s += (i as f64).powf(-theta);
    }
    let (m, nf) = (EXACT as f64, n as f64);
    let f = |x: f64| x.powf(-theta);
    let integral = if (theta - 1.0).abs() < 1e-12 {
        (nf / m).ln()
    } else {
        (nf.powf(1.0 - theta) - m.powf(1.0 - theta)) / (1.0 - theta)
    };
    let d1 = |x: f64| -theta * x.powf(-theta - 1.0);
    let d3 = |x: f64| -theta * (theta + 1.0) * (theta + 2.0) * x.powf(-theta - 3.0);
    s + integral + (f(m) + f(nf)) / 2.0 + (d1(nf) - d1(m)) / 12.0 - (d3(nf) - d3(m)) / 720.0
}

/// Zipf-distributed ranks in `[0, n)` with exponent `theta` (rank 0 the
/// most popular), sampled with the method of Gray et al., "Quickly
/// generating billion-record synthetic databases" (SIGMOD 1994) — the
/// sampler fio (`random_distribution=zipf`) and YCSB (`ZipfianGenerator`)
/// use. `theta` must be positive and not 1.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
    half_pow_theta: f64,
}

impl Zipf {
    pub fn new(n: u64, theta: f64) -> Zipf {
        Zipf::with_zeta(n, theta, zeta(n, theta))
    }

    /// With a precomputed `zetan` (YCSB's scrambled zipfian uses the
    /// constant for 10^10 items).
    pub fn with_zeta(n: u64, theta: f64, zetan: f64) -> Zipf {
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = if n > 2 {
            (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan)
        } else {
            0.0
        };
        Zipf { n, theta, zetan, alpha, eta, half_pow_theta: 0.5f64.powf(theta) }
    }

    /// Grows the item count to `n` (incrementally updating zeta), as
    /// YCSB does for the `latest` distribution.
    pub fn grow(&mut self, n: u64) {
        if n <= self.n {
            return;
        }
        let mut z = self.zetan;
        if n - self.n > 100_000 {
            z = zeta(n, self.theta);
        } else {
            for i in self.n + 1..=n {
                z += (i as f64).powf(-self.theta);
            }
        }
        *self = Zipf::with_zeta(n, self.theta, z);
    }

    /// The rank for a uniform `u` in `[0, 1)`.
    pub fn rank(&self, u: f64) -> u64 {
        if self.n <= 1 {
            return 0;
        }
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + self.half_pow_theta || self.n == 2 {
            return 1;
        }
        let v = self.scaled(u);
        if v.is_nan() || v < 0.0 {
            return 0;
        }
        (v as u64).min(self.n - 1)
    }

    /// `n * (eta * u - eta + 1)^alpha`: the rank before it is cut to an
    /// integer in `[0, n)`, for `u` past the first two ranks.
    #[inline(always)]
    fn scaled(&self, u: f64) -> f64 {
        (self.n as f64) * (self.eta * u - self.eta + 1.0).powf(self.alpha)
    }

    pub fn sample(&self, rng: &mut Rng) -> u64 {
        self.rank(rng.next_f64())
    }

    /// `map` of the rank [`sample`](Self::sample) draws (the same draw
    /// of `rng`), looked up in `t` where the draw's slot has a single rank
    /// (see [`ZipfTable`]). `t` must be new or have been used only with
    /// this sampler and this `map` (a pure function).
    #[inline(always)]
    pub fn sample_mapped(&self, t: &mut ZipfTable, rng: &mut Rng, map: impl Fn(u64) -> u64) -> u64 {
        // The 53 bits `next_f64` makes `u` of; the slot is their top BITS
        // (< the table's length, so no bounds check).
        let x = rng.next_u64() >> 11;
        let slot = (x >> (53 - ZipfTable::BITS)) as usize;
        let e = t.slots[slot];
        if e < ZipfTable::MIXED {
            return u64::from(e);
        }
        self.sample_slot(t, x, map)
    }

    /// [`sample_mapped`](Self::sample_mapped) of draw `x` whose slot holds
    /// no value: computed, and the slot filled if it was not looked at.
    #[inline(never)]
    fn sample_slot(&self, t: &mut ZipfTable, x: u64, map: impl Fn(u64) -> u64) -> u64 {
        let slot = (x >> (53 - ZipfTable::BITS)) as usize;
        let v = map(self.rank(x as f64 * (1.0 / (1u64 << 53) as f64)));
        if t.slots[slot] == ZipfTable::UNKNOWN {
            // A single-rank slot's rank is this draw's: `v` is its value.
            let single = self.slot_rank(slot as u64) != ZipfTable::MIXED;
            t.slots[slot] = if single && v < u64::from(ZipfTable::MIXED) { v as u32 } else { ZipfTable::MIXED };
        }
        v
    }

    /// The rank every draw of table slot `slot` gets, or
    /// [`ZipfTable::MIXED`].
    fn slot_rank(&self, slot: u64) -> u32 {
        let shift = 53 - ZipfTable::BITS;
        let scale = 1.0 / (1u64 << 53) as f64;
        // The slot's first and last `u` (exact: 53-bit integers).
        let (u0, u1) = ((slot << shift) as f64 * scale, ((slot << shift) + (1 << shift) - 1) as f64 * scale);
        let n = self.n;
        if n <= 1 || n - 1 >= u64::from(ZipfTable::MIXED) {
            return ZipfTable::MIXED;
        }
        // `rank`'s branches compare `uz`, which grows with `u`.
        let (uz0, uz1) = (u0 * self.zetan, u1 * self.zetan);
        if uz1 < 1.0 {
            return 0;
        }
        if uz0 < 1.0 {
            return ZipfTable::MIXED;
        }
        let two = 1.0 + self.half_pow_theta;
        if n == 2 || uz1 < two {
            return 1;
        }
        if uz0 < two {
            return ZipfTable::MIXED;
        }
        // Every `u` of the slot takes the `powf` branch. Its `b = eta * u
        // - eta + 1` is a chain of correctly rounded operations with
        // constants, so it moves monotonically with `u`, and `b^alpha`
        // with `b`: the exact value of every draw in the slot lies between
        // the exact values at the two ends. libm's `pow` (and the product
        // with `n`) is within a few units in the last place (about 1e-16
        // relative) of the exact value; widened by 1e-12 on each side, the
        // ends' computed values bound what any draw of the slot computes.
        // If the whole band truncates to one rank, that is every draw's.
        let (v0, v1) = (self.scaled(u0), self.scaled(u1));
        if v0.is_nan() || v1.is_nan() {
            return ZipfTable::MIXED;
        }
        const MARGIN: f64 = 1e-12;
        let (lo, hi) = (v0.min(v1) * (1.0 - MARGIN), v0.max(v1) * (1.0 + MARGIN));
        if lo < 0.0 || !hi.is_finite() {
            return ZipfTable::MIXED;
        }
        let (a, b) = ((lo as u64).min(n - 1), (hi as u64).min(n - 1));
        if a == b {
            a as u32
        } else {
            ZipfTable::MIXED
        }
    }
}

/// What a [`Zipf`] sampler's draws map to ([`Zipf::sample_mapped`]; fio
/// maps a rank to the block it scatters it to), by the top
/// [`ZipfTable::BITS`] bits of the uniform draw, filled in as the slots
/// are first met: a slot whose draws all give one rank (all the slots of
/// the first couple of thousand ranks at zipf(1.2) over a million items,
/// about 80 % of the draws) holds the mapped rank, and a draw there needs
/// neither `pow` nor the map; a slot that spans two or more ranks is marked
/// and its draws computed as always. The ranks are exactly those of
/// [`Zipf::rank`] (see `Zipf::slot_rank`). 256 KiB.
#[derive(Clone, Debug)]
pub struct ZipfTable {
    slots: Box<[u32; 1 << ZipfTable::BITS]>,
}

impl ZipfTable {
    /// Slots: 2^16 of 4 bytes (small enough to stay in a core's L2 cache).
    const BITS: u32 = 16;
    /// Not looked at yet.
    const UNKNOWN: u32 = u32::MAX;
    /// More than one rank in the slot.
    const MIXED: u32 = u32::MAX - 1;

    pub fn new() -> ZipfTable {
        let slots = vec![ZipfTable::UNKNOWN; 1 << ZipfTable::BITS].into_boxed_slice();
        ZipfTable { slots: slots.try_into().expect("the table's length") }
    }
}

/// fio's pareto: rank = floor((n-1) * u^(ln h / ln(1-h))), so that a
/// fraction `h` of the ranks receives a fraction `1-h` of the accesses
/// (`pareto:0.2` is the 80/20 rule). `0 < h < 1`.
#[derive(Clone, Debug)]
pub struct Pareto {
    n: u64,
    pow: f64,
}

impl Pareto {
    pub fn new(n: u64, h: f64) -> Pareto {
        Pareto { n, pow: h.ln() / (1.0 - h).ln() }
    }

    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let v = ((self.n - 1) as f64) * rng.next_f64().powf(self.pow);
        (v as u64).min(self.n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perm_is_bijection() {
        for &n in &[1u64, 2, 3, 7, 16, 100, 1000, 4097] {
            let p = Perm::new(n, 42);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.apply(x);
                assert!(y < n);
                assert!(!seen[y as usize]);
                seen[y as usize] = true;
                assert_eq!(p.invert(y), x);
            }
        }
    }

    #[test]
    fn zeta_approx_matches_exact() {
        for &theta in &[0.5, 0.99, 1.2] {
            let n = 300_000u64;
            let mut exact = 0.0;
            for i in 1..=n {
                exact += (i as f64).powf(-theta);
            }
            let approx = zeta(n, theta);
            assert!((exact - approx).abs() / exact < 1e-10, "theta {} {} {}", theta, exact, approx);
        }
    }

    #[test]
    fn zipf_head_is_hot() {
        let z = Zipf::new(1000, 0.99);
        let mut rng = Rng::new(1);
        let mut hits0 = 0;
        let n = 100_000;
        for _ in 0..n {
            let r = z.sample(&mut rng);
            assert!(r < 1000);
            if r == 0 {
                hits0 += 1;
            }
        }
        // P(rank 0) = 1/zeta(1000, 0.99) ~ 0.13
        let p = hits0 as f64 / n as f64;
        assert!((p - 1.0 / zeta(1000, 0.99)).abs() < 0.01, "{}", p);
    }

    /// The table gives `rank`'s rank for every draw: for random draws, and
    /// at the first and last draws of every slot and around each rank's
    /// first draw (found by bisection), where a wrong slot would show.
    #[test]
    fn zipf_table_is_exact() {
        let scale = 1.0 / (1u64 << 53) as f64;
        for &(n, theta) in &[(1u64 << 20, 1.2), (1000, 0.99), (3, 0.5), (2, 1.5), (1, 1.2), (12_345_678, 0.8), (1u64 << 20, 2.5)] {
            let z = Zipf::new(n, theta);
            let mut t = ZipfTable::new();
            // Random draws through the table, against `sample`.
            let (mut a, mut b) = (Rng::new(n ^ 5), Rng::new(n ^ 5));
            let map = |r: u64| r ^ 0x5a5;
            for _ in 0..300_000 {
                assert_eq!(z.sample_mapped(&mut t, &mut a, map), map(z.sample(&mut b)), "n {n} theta {theta}");
            }
            // Every slot filled; each single-rank slot checked at its ends
            // and at points inside.
            let shift = 53 - ZipfTable::BITS;
            let mut single = 0;
            for slot in 0..(1u64 << ZipfTable::BITS) {
                let r = z.slot_rank(slot);
                if r == ZipfTable::MIXED {
                    continue;
                }
                single += 1;
                let k0 = slot << shift;
                for k in [k0, k0 + 1, k0 + (1 << (shift - 1)), k0 + (1 << shift) - 2, k0 + (1 << shift) - 1] {
                    assert_eq!(z.rank(k as f64 * scale), u64::from(r), "n {n} theta {theta} slot {slot} k {k}");
                }
            }
            if n > 2 {
                assert!(single > 0, "n {n} theta {theta}: some slots hold one rank");
            }
            // Around the first draw of each of the first ranks.
            for r in 1..200u64.min(n) {
                let (mut lo, mut hi) = (0u64, 1u64 << 53);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if z.rank(mid as f64 * scale) >= r {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                for k in hi.saturating_sub(2)..(hi + 2).min(1 << 53) {
                    let e = z.slot_rank(k >> shift);
                    if e != ZipfTable::MIXED {
                        assert_eq!(z.rank(k as f64 * scale), u64::from(e), "n {n} theta {theta} rank {r} k {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn pareto_80_20() {
        let pa = Pareto::new(1000, 0.2);
        let mut rng = Rng::new(3);
        let n = 100_000;
        let hot = (0..n).filter(|_| pa.sample(&mut rng) < 200).count();
        let p = hot as f64 / n as f64;
        assert!((p - 0.8).abs() < 0.02, "{}", p);
    }

    #[test]
    fn below_in_range() {
        let mut rng = Rng::new(9);
        for n in 1..50u64 {
            for _ in 0..50 {
                assert!(rng.below(n) < n);
            }
        }
    }
}
