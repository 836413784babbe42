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

/// A dot product in f32, eight lanes at a time (so that it vectorizes): the
/// search runs over every word of the index, 20,000 rows for each focus
/// change on the page, and f32 ranks them as well as the index's own
/// rounding allows (the page re-ranks its candidates exactly).
fn dot32(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (chunks_a, chunks_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let rest: f32 = chunks_a.remainder().iter().zip(chunks_b.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for ((lane, x), y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += x * y;
        }
    }
    lanes.iter().sum::<f32>() + rest
}

/// Rows ordered by similarity, then by row (so ties resolve to the more frequent word).
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
            let candidate = Ranked(f64::from(dot32(embeddings.row(row), vector)) * inverse_norm / norm, row);
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
            .map(|Ranked(similarity, row)| Neighbor {
                word: embeddings.words()[row].clone(),
                similarity: similarity as f32,
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
