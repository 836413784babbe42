//! What a vector "means": the vocabulary words nearest to it by cosine
//! similarity. Used to show what attention mixed into a context vector,
//! beside the words nearest to the token's own embedding.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::embeddings::Embeddings;

/// A vocabulary word and its cosine similarity to the vector asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbor {
    pub word: String,
    pub similarity: f32,
}

/// Cosine similarity of two vectors; 0 when either is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        (dot / (aa.sqrt() * bb.sqrt())) as f32
    }
}

/// A dot product in f32, four lanes at a time: the search runs over every
/// word of the index (30,000 rows on the page) for each focus change, and f32
/// ranks them as well as the index's own rounding allows (the page re-ranks
/// its candidates exactly). The sums are the same on every target: two
/// four-lane accumulators take the even and the odd groups of four
/// components, lane `k` of the first summing components `k`, `k + 8`, …;
/// then the two are added lane by lane, the lanes in order, and the rest last.
fn dot32(a: &[f32], b: &[f32]) -> f32 {
    let whole = a.len().min(b.len()) / 4 * 4;
    let rest: f32 = a[whole..].iter().zip(&b[whole..]).map(|(x, y)| x * y).sum();
    let [l0, l1, l2, l3] = lanes4(&a[..whole], &b[..whole]);
    l0 + l1 + l2 + l3 + rest
}

/// The lane sums of [`dot32`] in wasm's `f32x4` (`a` and `b` of a length
/// that is a multiple of 4): the compiler does not vectorize the plain loop
/// for wasm (it does natively), and the search was 4× slower in the page
/// than natively. Two accumulators, so that each add does not wait for the
/// one before.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn lanes4(a: &[f32], b: &[f32]) -> [f32; 4] {
    use core::arch::wasm32::{f32x4, f32x4_add, f32x4_extract_lane, f32x4_mul, f32x4_splat, v128};
    // Arrays, not slices: the four values load as one v128.
    let load = |c: &[f32; 4]| f32x4(c[0], c[1], c[2], c[3]);
    let add = |sum: v128, x: Option<&[f32; 4]>, y: Option<&[f32; 4]>| match (x, y) {
        (Some(x), Some(y)) => f32x4_add(sum, f32x4_mul(load(x), load(y))),
        _ => sum,
    };
    let (mut even, mut odd) = (f32x4_splat(0.0), f32x4_splat(0.0));
    let (pairs_a, pairs_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let (last_a, last_b) = (pairs_a.remainder(), pairs_b.remainder());
    for (x, y) in pairs_a.zip(pairs_b) {
        even = add(even, x.first_chunk(), y.first_chunk());
        odd = add(odd, x.last_chunk(), y.last_chunk());
    }
    even = add(even, last_a.first_chunk(), last_b.first_chunk());
    let sum = f32x4_add(even, odd);
    [
        f32x4_extract_lane::<0>(sum),
        f32x4_extract_lane::<1>(sum),
        f32x4_extract_lane::<2>(sum),
        f32x4_extract_lane::<3>(sum),
    ]
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn lanes4(a: &[f32], b: &[f32]) -> [f32; 4] {
    let mut sums = [[0f32; 4]; 2];
    for (k, (x, y)) in a.chunks_exact(4).zip(b.chunks_exact(4)).enumerate() {
        for ((lane, x), y) in sums[k % 2].iter_mut().zip(x).zip(y) {
            *lane += x * y;
        }
    }
    let [even, odd] = sums;
    [even[0] + odd[0], even[1] + odd[1], even[2] + odd[2], even[3] + odd[3]]
}

/// Rows ordered by score (the cosine times the query's length), then by row (so ties resolve to the more frequent word).
#[derive(PartialEq)]
struct Ranked(f64, usize);

impl Eq for Ranked {}

impl Ord for Ranked {
    // The heap keeps the worst candidate on top: lower similarity, or later row.
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(self.1.cmp(&other.1))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Cached inverse norms of every vocabulary row, so that repeated searches
/// (one per token) cost one dot product per word.
#[derive(Debug, Clone)]
pub struct NeighborIndex {
    inverse_norms: Vec<f64>,
}

impl NeighborIndex {
    pub fn new(embeddings: &Embeddings) -> Self {
        let inverse_norms = (0..embeddings.len())
            .map(|r| {
                let norm = embeddings.row(r).iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
                if norm > 0.0 {
                    1.0 / norm
                } else {
                    0.0
                }
            })
            .collect();
        NeighborIndex { inverse_norms }
    }

    /// The `count` words nearest to `vector`, most similar first, leaving out
    /// the words in `exclude`. Empty when the vector's length is not the
    /// vocabulary's dimension or the vector is all zeros.
    pub fn nearest(
        &self,
        embeddings: &Embeddings,
        vector: &[f32],
        count: usize,
        exclude: &[&str],
    ) -> Vec<Neighbor> {
        let norm = vector.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        if vector.len() != embeddings.dim() || count == 0 || norm == 0.0 || !norm.is_finite() {
            return Vec::new();
        }
        let excluded: Vec<usize> = exclude.iter().filter_map(|w| embeddings.rank(w)).collect();
        let mut heap = BinaryHeap::with_capacity(count + 1);
        for (row, inverse_norm) in self.inverse_norms.iter().enumerate() {
            if *inverse_norm == 0.0 || excluded.contains(&row) {
                continue;
            }
            // Ranked by q·k / |k|: the cosine times |q|, the same order without a division per word.
            let candidate = Ranked(f64::from(dot32(embeddings.row(row), vector)) * inverse_norm, row);
            // Full: only a better candidate than the worst kept goes in (most words do not).
            if heap.len() == count && heap.peek().is_some_and(|worst| candidate >= *worst) {
                continue;
            }
            heap.push(candidate);
            if heap.len() > count {
                heap.pop();
            }
        }
        heap.into_sorted_vec()
            .into_iter()
            .map(|Ranked(score, row)| Neighbor {
                word: embeddings.words()[row].clone(),
                similarity: (score / norm) as f32,
            })
            .collect()
    }
}

/// A neighbour from an approximate index, checked against exact vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub word: String,
    pub similarity: f32,
    /// The similarity comes from `exact`'s vector; false: from the index's
    /// (rounded) vector, because `exact` does not hold the word (yet).
    pub exact: bool,
}

/// Re-ranks `candidates` (found in an approximate index, such as a q16
/// subset) by their cosine with `vector` computed from `exact`'s vectors
/// where it has them, most similar first. Searching the small index for a
/// few more candidates than needed, then re-ranking exactly, gives the exact
/// nearest words without holding every exact vector.
pub fn rerank(candidates: Vec<Neighbor>, exact: &Embeddings, vector: &[f32]) -> Vec<Checked> {
    let mut checked: Vec<Checked> = candidates
        .into_iter()
        .map(|n| match exact.vector(&n.word) {
            Some(v) => Checked { similarity: cosine(v, vector), word: n.word, exact: true },
            None => Checked { similarity: n.similarity, word: n.word, exact: false },
        })
        .collect();
    checked.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    checked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multihead::SeededRng;

    fn random_embeddings(n: usize, d: usize, seed: u64) -> Embeddings {
        let mut rng = SeededRng::new(seed);
        let words = (0..n).map(|i| format!("w{i}")).collect();
        let vectors = (0..n * d).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect();
        Embeddings::new(d, words, vectors).unwrap()
    }

    #[test]
    fn matches_a_brute_force_sort() {
        for seed in 0..20 {
            let e = random_embeddings(300, 8, seed);
            let index = NeighborIndex::new(&e);
            let mut rng = SeededRng::new(seed + 1000);
            let query: Vec<f32> = (0..8).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect();
            let mut all: Vec<(f32, usize)> = (0..e.len()).map(|r| (cosine(e.row(r), &query), r)).collect();
            all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let found = index.nearest(&e, &query, 10, &[]);
            assert_eq!(found.len(), 10);
            for (got, (similarity, row)) in found.iter().zip(&all) {
                assert_eq!(got.word, e.words()[*row], "seed {seed}");
                assert!((got.similarity - similarity).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn the_f32_dot_product_agrees_with_f64_at_every_length() {
        let mut rng = SeededRng::new(3);
        for len in (0..=20).chain([50, 51]) {
            let a: Vec<f32> = (0..len).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect();
            let b: Vec<f32> = (0..len).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect();
            let exact: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            assert!((f64::from(dot32(&a, &b)) - exact).abs() < 1e-5, "length {len}");
        }
        // Lane by lane, in order: components 0, 4, 8 go to lane 0 (8 from the even accumulator), 9 is the rest.
        let ones = [1.0f32; 9];
        let powers: Vec<f32> = (0..9).map(|k| 2f32.powi(k)).collect();
        assert_eq!(dot32(&ones, &powers), 511.0);
    }

    #[test]
    fn a_word_is_its_own_nearest_unless_excluded() {
        let e = random_embeddings(100, 6, 5);
        let index = NeighborIndex::new(&e);
        let v = e.vector("w42").unwrap().to_vec();
        let found = index.nearest(&e, &v, 3, &[]);
        assert_eq!(found[0].word, "w42");
        assert!((found[0].similarity - 1.0).abs() < 1e-6);
        let found = index.nearest(&e, &v, 3, &["w42"]);
        assert!(found.iter().all(|n| n.word != "w42"));
    }

    #[test]
    fn a_rounded_index_reranked_with_exact_vectors_finds_the_exact_neighbours() {
        let exact = random_embeddings(400, 8, 9);
        let rounded = Embeddings::from_subset(&exact.to_subset(crate::Precision::F16).unwrap()).unwrap();
        let index = NeighborIndex::new(&rounded);
        let query = exact.vector("w7").unwrap().to_vec();
        let truth = NeighborIndex::new(&exact).nearest(&exact, &query, 5, &[]);
        let checked = rerank(index.nearest(&rounded, &query, 5 + 8, &[]), &exact, &query);
        for (got, want) in checked.iter().zip(&truth) {
            assert_eq!((&got.word, got.exact), (&want.word, true));
            // Re-ranked: the exact cosine (the search's own is a dot product in f32).
            let exact_cosine = cosine(exact.vector(&got.word).unwrap(), &query);
            assert_eq!(got.similarity, exact_cosine);
            assert!((want.similarity - exact_cosine).abs() < 1e-6);
        }
        // Without the exact vectors the index's own values stand, flagged.
        let (few, _) = exact.subset(1, []);
        assert!(rerank(index.nearest(&rounded, &query, 3, &[]), &few, &query).iter().any(|c| !c.exact));
    }

    #[test]
    fn degenerate_queries_give_nothing() {
        let e = random_embeddings(10, 4, 1);
        let index = NeighborIndex::new(&e);
        assert!(index.nearest(&e, &[0.0; 4], 3, &[]).is_empty());
        assert!(index.nearest(&e, &[1.0; 3], 3, &[]).is_empty());
        assert!(index.nearest(&e, &[1.0; 4], 0, &[]).is_empty());
        assert_eq!(index.nearest(&e, &[1.0; 4], 50, &[]).len(), 10);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 0.0]), 0.0);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-7);
    }
}
