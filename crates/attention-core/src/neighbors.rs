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

/// Cosine similarity of two vectors; `None` when either is all zeros: a
/// vector of length 0 has no direction, so no angle to another.
pub fn cosine_similarity(a: &[f32], b: &[f32]) -> Option<f32> {
    let (mut dot, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    (aa != 0.0 && bb != 0.0).then(|| (dot / (aa.sqrt() * bb.sqrt())) as f32)
}

/// [`cosine_similarity`] for a ranking: 0 (no nearer than a vector at a
/// right angle) when either is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    cosine_similarity(a, b).unwrap_or(0.0)
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

/// `a · b` by [`dot32`], or in f64 where f32's sum overflows: a row of a
/// user's vectors near f32's limit (3e38) times a query of length 1 is past
/// it, and its similarity came out as ∞.
fn dot(a: &[f32], b: &[f32]) -> f64 {
    let fast = dot32(a, b);
    if fast.is_finite() {
        return f64::from(fast);
    }
    a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum()
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

/// The rows of an index rounded to 8 bits, a scale for each row, for a
/// first pass that reads a third of the bytes of the f32 rows: every row's
/// score comes with a bound on its error, so the rows that cannot be among
/// the nearest are left out for certain, and the few left are scored exactly.
#[derive(Debug, Clone)]
struct RoundedRows {
    /// Blocks of 16 components a row (zeros after the last component).
    width: usize,
    values: Vec<blocks::Row>,
    /// Per row, times its inverse norm: `scale` (a component is `scale × value`
    /// give or take `error`), `error` and `l1` (Σ |scale × value|).
    scales: Vec<f64>,
    errors: Vec<f64>,
    l1: Vec<f64>,
}

impl RoundedRows {
    /// Room for `rows` rows of dimension `dim`, none added yet.
    fn with_capacity(dim: usize, rows: usize) -> Self {
        let width = dim.div_ceil(16);
        RoundedRows {
            width,
            values: Vec::with_capacity(rows * width),
            scales: Vec::with_capacity(rows),
            errors: Vec::with_capacity(rows),
            l1: Vec::with_capacity(rows),
        }
    }

    /// Adds `vector` (whose norm is 1 / `inverse_norm`) as the next row,
    /// rounded in `row` (a buffer of `width × 16`).
    fn push(&mut self, vector: &[f32], inverse_norm: f64, row: &mut [i8]) {
        let (scale, error, l1) = round_into(vector, i8::MAX, row);
        self.values.extend(row.chunks_exact(16).filter_map(<[i8]>::first_chunk).map(blocks::row));
        self.scales.push(scale * inverse_norm);
        self.errors.push(error * inverse_norm);
        self.l1.push(l1 * inverse_norm);
    }

    fn row(&self, r: usize) -> &[blocks::Row] {
        &self.values[r * self.width..(r + 1) * self.width]
    }
}

/// Rounds `vector` to integers of at most `max` in magnitude, into `out`:
/// component `k` is `scale × out[k]`, give or take `error`. Returns
/// `(scale, error, Σ |scale × out[k]|)`; all zeros for a zero vector.
fn round_into<T: TryFrom<i32> + Copy + Into<i32>>(vector: &[f32], max: T, out: &mut [T]) -> (f64, f64, f64) {
    let largest = vector.iter().fold(0f64, |m, x| m.max(f64::from(x.abs())));
    if largest == 0.0 || !largest.is_finite() {
        // A row without a norm: the search skips it.
        return (0.0, 0.0, 0.0);
    }
    let range = max.into();
    let scale = largest / f64::from(range);
    let inverse = f64::from(range) / largest;
    let (mut error, mut l1) = (0f64, 0f64);
    for (x, slot) in vector.iter().zip(out.iter_mut()) {
        // Half away from zero by a truncating conversion: `round` is a libm
        // call in wasm and on baseline x86-64, and the index rounds every
        // component of its rows (30,000 × 50 on the page, 400,000 × 50 for
        // a whole GloVe file). Any rounding would do: the error is measured.
        let y = f64::from(*x) * inverse;
        let rounded = ((y + 0.5f64.copysign(y)) as i32).clamp(-range, range);
        // In range by the clamp: the conversion cannot fail.
        *slot = T::try_from(rounded).unwrap_or(max);
        let value = scale * f64::from(rounded);
        error = error.max((f64::from(*x) - value).abs());
        l1 += value.abs();
    }
    (scale, error, l1)
}

/// Sixteen components of a rounded row (i8) and of a rounded query (i16),
/// and their dot product. In wasm each block is stored as `v128`s, so that
/// the search reads a block in one load: built from an array in the loop,
/// it was sixteen loads of one lane each, and no faster than the f32 rows.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod blocks {
    use core::arch::wasm32::{
        i16x8, i16x8_extend_high_i8x16, i16x8_extend_low_i8x16, i32x4_add, i32x4_dot_i16x8,
        i32x4_extract_lane, i32x4_splat, i8x16, v128,
    };

    pub type Row = v128;
    pub type Query = [v128; 2];

    pub fn row(r: &[i8; 16]) -> Row {
        i8x16(
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
            r[15],
        )
    }

    pub fn query(q: &[i16; 16]) -> Query {
        [
            i16x8(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]),
            i16x8(q[8], q[9], q[10], q[11], q[12], q[13], q[14], q[15]),
        ]
    }

    /// Σ row × query, exact: the query's range keeps it within i32 (`candidates`).
    pub fn dot(row: &[Row], query: &[Query]) -> i32 {
        let mut sum = i32x4_splat(0);
        for (r, [low, high]) in row.iter().zip(query) {
            sum = i32x4_add(sum, i32x4_dot_i16x8(i16x8_extend_low_i8x16(*r), *low));
            sum = i32x4_add(sum, i32x4_dot_i16x8(i16x8_extend_high_i8x16(*r), *high));
        }
        i32x4_extract_lane::<0>(sum)
            + i32x4_extract_lane::<1>(sum)
            + i32x4_extract_lane::<2>(sum)
            + i32x4_extract_lane::<3>(sum)
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod blocks {
    pub type Row = [i8; 16];
    pub type Query = [i16; 16];

    pub fn row(r: &[i8; 16]) -> Row {
        *r
    }

    pub fn query(q: &[i16; 16]) -> Query {
        *q
    }

    /// Σ row × query, exact: the query's range keeps it within i32 (`candidates`).
    pub fn dot(row: &[Row], query: &[Query]) -> i32 {
        // Block by block: a fixed length of 16 that the compiler vectorizes.
        row.iter()
            .zip(query)
            .map(|(r, q)| r.iter().zip(q).map(|(a, b)| i32::from(*a) * i32::from(*b)).sum::<i32>())
            .sum()
    }
}

/// Cached inverse norms of every vocabulary row, so that repeated searches
/// (one per token) cost one dot product per word, and the rows rounded to
/// 8 bits for the first pass of a search.
#[derive(Debug, Clone)]
pub struct NeighborIndex {
    inverse_norms: Vec<f64>,
    rounded: RoundedRows,
}

impl NeighborIndex {
    pub fn new(embeddings: &Embeddings) -> Self {
        let mut index = Self::start(embeddings);
        index.extend(embeddings, embeddings.len());
        index
    }

    /// An index of none of `embeddings`' rows yet, which [`extend`](NeighborIndex::extend)
    /// fills a few rows at a time: the page builds the index of a user's
    /// file of 100,000 words in short tasks, where building it whole took
    /// one of about 0.4 s.
    pub fn start(embeddings: &Embeddings) -> Self {
        NeighborIndex {
            inverse_norms: Vec::with_capacity(embeddings.len()),
            rounded: RoundedRows::with_capacity(embeddings.dim(), embeddings.len()),
        }
    }

    /// Adds the next `rows` rows of `embeddings` (the store it was started
    /// with); true once it holds all of them.
    pub fn extend(&mut self, embeddings: &Embeddings, rows: usize) -> bool {
        let start = self.inverse_norms.len();
        let mut rounded = vec![0i8; self.rounded.width * 16];
        for r in start..start.saturating_add(rows).min(embeddings.len()) {
            let row = embeddings.row(r);
            let norm = row.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            let inverse_norm = if norm > 0.0 { 1.0 / norm } else { 0.0 };
            self.inverse_norms.push(inverse_norm);
            self.rounded.push(row, inverse_norm, &mut rounded);
        }
        self.is_whole(embeddings)
    }

    /// Whether it holds every row of `embeddings`: only then may it search them.
    pub fn is_whole(&self, embeddings: &Embeddings) -> bool {
        self.inverse_norms.len() == embeddings.len()
    }

    /// The `count` words nearest to `vector`, most similar first, leaving out
    /// the words in `exclude`. Empty when the vector's length is not the
    /// vocabulary's dimension or the vector is all zeros. The same words and
    /// similarities as scoring every row exactly: the rounded first pass
    /// only leaves out rows that cannot be among them.
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
        // Scaled to a length in [1, 2) by a power of two (exact: the same
        // scores, scaled): with rows and a vector of 1e30 (or 1e-30) each,
        // f32's products overflowed to ∞ and NaN (or all underflowed to 0).
        let scale = 2f64.powi(-(norm.log2().floor() as i32));
        let vector: Vec<f32> = vector.iter().map(|x| (f64::from(*x) * scale) as f32).collect();
        let (vector, norm) = (&vector[..], norm * scale);
        let excluded: Vec<usize> = exclude.iter().filter_map(|w| embeddings.rank(w)).collect();
        let mut heap = BinaryHeap::with_capacity(count + 1);
        for row in self.candidates(vector, norm, count, &excluded) {
            // Ranked by q·k / |k|: the cosine times |q|, the same order without a division per word.
            let candidate = Ranked(dot(embeddings.row(row), vector) * self.inverse_norms[row], row);
            // Full: only a better candidate than the worst kept goes in.
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

    /// The rows that may be among the `count` nearest of `vector` (of length
    /// `norm`), in order: each row's score from the rounded rows, within a
    /// bound of the exact one; a row whose best possible score is below the
    /// worst possible score of `count` others is left out.
    fn candidates(&self, vector: &[f32], norm: f64, count: usize, excluded: &[usize]) -> Vec<usize> {
        let rows = &self.rounded;
        // The query's range leaves room for the sum in i32 (|Σ| ≤ 127 × range
        // × the components): all of i16 up to 512 components, less beyond.
        let room = i64::from(i32::MAX) / (127 * 16 * rows.width.max(1) as i64);
        let range = i16::try_from(room.clamp(1, i64::from(i16::MAX))).unwrap_or(i16::MAX);
        let mut rounded = vec![0i16; rows.width * 16];
        let (query_scale, query_error, _) = round_into(vector, range, &mut rounded);
        let query: Vec<blocks::Query> =
            rounded.chunks_exact(16).filter_map(<[i16]>::first_chunk).map(blocks::query).collect();
        let vector_l1: f64 = vector.iter().map(|x| f64::from(x.abs())).sum();
        // The exact pass sums in f32 (a relative error under 1e-5 of |q|·|k|
        // at these lengths, times 1/|k|): with room to spare.
        let slack = 1e-4 * norm;
        let mut floors: Vec<f64> = Vec::with_capacity(count + 1); // the `count` best lower bounds, ascending
                                                                  // The worst possible score of the `count`-th row so far: a row that cannot reach it is out.
        let floor_of = |floors: &[f64]| if floors.len() == count { floors[0] } else { f64::NEG_INFINITY };
        let mut kept: Vec<(usize, f64)> = Vec::new(); // (row, upper bound)
        for (row, inverse_norm) in self.inverse_norms.iter().enumerate() {
            if *inverse_norm == 0.0 || excluded.contains(&row) {
                continue;
            }
            let score = f64::from(blocks::dot(rows.row(row), &query)) * rows.scales[row] * query_scale;
            // |x·v − x̂·v̂| ≤ max|x − x̂|·Σ|v| + max|v − v̂|·Σ|x̂|, all over |x|.
            let error = rows.errors[row] * vector_l1 + query_error * rows.l1[row] + slack;
            let floor = floor_of(&floors);
            if score + error < floor {
                continue;
            }
            kept.push((row, score + error));
            let low = score - error;
            if floors.len() < count || low > floor {
                let at = floors.partition_point(|f| *f < low);
                floors.insert(at, low);
                if floors.len() > count {
                    floors.remove(0);
                }
            }
        }
        let floor = floor_of(&floors);
        kept.into_iter().filter(|(_, high)| *high >= floor).map(|(row, _)| row).collect()
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

    /// Every row scored exactly, as the search did before its rounded first pass.
    fn every_row_scored(
        index: &NeighborIndex,
        e: &Embeddings,
        query: &[f32],
        count: usize,
    ) -> Vec<(String, f32)> {
        let norm = query.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        let mut all: Vec<Ranked> = (0..e.len())
            .filter(|r| index.inverse_norms[*r] != 0.0)
            .map(|r| Ranked(dot(e.row(r), query) * index.inverse_norms[r], r))
            .collect();
        all.sort();
        all.into_iter()
            .take(count)
            .map(|Ranked(score, r)| (e.words()[r].clone(), (score / norm) as f32))
            .collect()
    }

    #[test]
    fn the_rounded_first_pass_finds_exactly_what_scoring_every_row_finds() {
        // 1,100 components: past 512, the query's range narrows so that the sums fit in i32.
        for (dim, seed) in [(50, 1), (8, 2), (51, 3), (16, 4), (300, 5), (1, 6), (1100, 7)] {
            let mut e = random_embeddings(if dim > 500 { 400 } else { 1500 }, dim, seed);
            // Ties: a few rows repeated further down, and a row of zeros.
            let mut words = e.words().to_vec();
            let mut vectors: Vec<f32> = (0..e.len()).flat_map(|r| e.row(r).to_vec()).collect();
            for r in [5, 17, e.len() - 1] {
                words.push(format!("copy{r}"));
                vectors.extend_from_slice(e.row(r));
            }
            words.push("zero".into());
            vectors.extend(std::iter::repeat_n(0.0, dim));
            // All ones: with a query of ones, the largest sum the first pass can meet.
            words.push("ones".into());
            vectors.extend(std::iter::repeat_n(1.0, dim));
            e = Embeddings::new(dim, words, vectors).unwrap();
            let index = NeighborIndex::new(&e);
            let mut rng = SeededRng::new(seed + 100);
            for q in 0..24 {
                // Random queries, rows themselves (with their copies), and tiny or huge ones.
                let query: Vec<f32> = match q % 4 {
                    _ if q == 3 => vec![1.0; dim],
                    0 => e.row(5).to_vec(),
                    1 => e.row((rng.next_u64() % e.len() as u64) as usize).iter().map(|x| x * 1e-6).collect(),
                    2 => (0..dim).map(|_| ((rng.next_unit() * 2.0 - 1.0) * 1e4) as f32).collect(),
                    _ => (0..dim).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect(),
                };
                for count in [1, 6, 14] {
                    let found: Vec<(String, f32)> = index
                        .nearest(&e, &query, count, &[])
                        .into_iter()
                        .map(|n| (n.word, n.similarity))
                        .collect();
                    assert_eq!(
                        found,
                        every_row_scored(&index, &e, &query, count),
                        "dim {dim}, query {q}, count {count}"
                    );
                }
            }
            // The first pass leaves out most rows: that is its point.
            let query: Vec<f32> = (0..dim).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect();
            let norm = query.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            if dim >= 8 {
                let left = index.candidates(&query, norm, 6, &[]).len();
                assert!(left < e.len() / 10, "dim {dim}: {left} of {} rows scored exactly", e.len());
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
    fn an_index_built_a_few_rows_at_a_time_finds_what_one_built_whole_finds() {
        let e = random_embeddings(100, 20, 3);
        let mut index = NeighborIndex::start(&e);
        assert!(!index.is_whole(&e));
        let steps = std::iter::repeat_with(|| index.extend(&e, 33)).take_while(|whole| !whole).count();
        assert_eq!(steps, 3, "33 + 33 + 33 rows, then the last");
        assert!(index.extend(&e, 33), "extending a whole index adds nothing");
        let v = e.vector("w7").unwrap().to_vec();
        let words =
            |found: Vec<Neighbor>| found.into_iter().map(|n| (n.word, n.similarity)).collect::<Vec<_>>();
        assert_eq!(
            words(index.nearest(&e, &v, 5, &[])),
            words(NeighborIndex::new(&e).nearest(&e, &v, 5, &[]))
        );
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

    /// A user's own vectors may be of any size f32 holds: the similarities
    /// are those of the same vectors scaled to ordinary lengths.
    #[test]
    fn huge_and_tiny_vectors_give_the_similarities_of_ordinary_ones() {
        let e = random_embeddings(50, 8, 11);
        let index = NeighborIndex::new(&e);
        let v = e.vector("w7").unwrap().to_vec();
        let expected = index.nearest(&e, &v, 5, &[]);
        // 3e38: near f32's limit, where a row times the query overflowed f32.
        for factor in [1e30f32, 1e-30, 3e38] {
            let scaled: Vec<f32> = (0..e.len()).flat_map(|r| e.row(r)).map(|x| x * factor).collect();
            let words = e.words().to_vec();
            let big = Embeddings::new(8, words, scaled).unwrap();
            let query: Vec<f32> = v.iter().map(|x| x * factor).collect();
            let found = NeighborIndex::new(&big).nearest(&big, &query, 5, &[]);
            assert_eq!(
                found.iter().map(|n| &n.word).collect::<Vec<_>>(),
                expected.iter().map(|n| &n.word).collect::<Vec<_>>()
            );
            for (got, want) in found.iter().zip(&expected) {
                assert!(
                    (got.similarity - want.similarity).abs() < 1e-5,
                    "×{factor}: {got:?} against {want:?}"
                );
            }
        }
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
        assert_eq!(cosine_similarity(&[1.0, 0.0], &[0.0, 0.0]), None);
        assert_eq!(cosine_similarity(&[0.0, 0.0], &[1.0, 0.0]), None);
        assert_eq!(cosine_similarity(&[1.0, 0.0], &[-3.0, 0.0]), Some(-1.0));
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-7);
    }
}
