// SPDX-License-Identifier: GPL-2.0-only
//! Small integer helpers with the kernel's semantics.

/// `int_sqrt`: floor of the square root.
pub fn int_sqrt(x: u64) -> u64 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// `fls`: position of the most significant set bit, 1-based; 0 for 0.
pub fn fls(x: u64) -> u32 {
    64 - x.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn int_sqrt_floor() {
        assert_eq!(int_sqrt(0), 0);
        assert_eq!(int_sqrt(15), 3);
        assert_eq!(int_sqrt(16), 4);
        assert_eq!(int_sqrt(1 << 40), 1 << 20);
        assert_eq!(fls(1), 1);
        assert_eq!(fls(32), 6);
    }
}
