//! The one source of randomness in `core`: a seeded SplitMix64 generator.
//!
//! Why SplitMix64 and not a crate: it is ten lines of `u64` arithmetic (wrapping add, xor,
//! shift, multiply) whose output is defined bit for bit by Steele, Lea & Flood (2014), so it
//! gives the same sequence natively and in wasm32 with no dependency and no OS entropy. It
//! passes BigCrush, which is far more than shuffling rows and drawing 80% samples needs.
//! Every probe derives its own stream from the run seed ([`Rng::derive`]) so that adding
//! one probe to a run does not change the items of another.

use serde::{Deserialize, Serialize};

/// A seeded SplitMix64 generator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    state: u64,
}

const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// An independent generator for a named sub-task (e.g. `"row_permutation"`), so that
    /// streams do not depend on the order in which probes are generated.
    pub fn derive(seed: u64, stream: &str) -> Rng {
        // FNV-1a of the stream name, mixed with the seed through one SplitMix64 step.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in stream.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut r = Rng::new(seed ^ h);
        let s = r.next_u64();
        Rng::new(s)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias (rejection sampling).
    /// Returns 0 when `n == 0` so callers never divide by zero.
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let n = n as u64;
        // Reject the top partial block so every residue is equally likely.
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// `k` distinct indices from `0..n` in random order (all of them if `k >= n`).
    pub fn sample_indices(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..n).collect();
        let k = k.min(n);
        // Partial Fisher–Yates: only the first k positions need to be drawn.
        for i in 0..k {
            let j = i + self.below(n - i);
            idx.swap(i, j);
        }
        idx.truncate(k);
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_vector() {
        // First outputs of SplitMix64 seeded with 0 (reference C implementation by Vigna).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn below_stays_in_range_and_shuffle_is_a_permutation() {
        let mut r = Rng::new(7);
        for n in 1..20 {
            assert!(r.below(n) < n);
        }
        let mut v: Vec<u32> = (0..50).collect();
        r.shuffle(&mut v);
        let mut s = v.clone();
        s.sort();
        assert_eq!(s, (0..50).collect::<Vec<_>>());
        assert_ne!(v, s, "a 50-element shuffle left everything in place");
        let picked = r.sample_indices(10, 4);
        assert_eq!(picked.len(), 4);
        let mut p = picked.clone();
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 4);
    }

    #[test]
    fn derived_streams_differ_and_repeat() {
        let a = Rng::derive(1, "row_permutation").next_u64();
        let b = Rng::derive(1, "word_order").next_u64();
        assert_ne!(a, b);
        assert_eq!(a, Rng::derive(1, "row_permutation").next_u64());
    }
}
