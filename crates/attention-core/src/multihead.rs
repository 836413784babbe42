//! Multi-head attention: `h` heads of dimension `d_k = d_model / h`, each
//! attending on its own, then averaged for the overview.
//!
//! Two ways to give each head its own view of the tokens:
//! - [`HeadMode::Split`]: head `h` sees dimensions `h·d_k .. (h+1)·d_k` of the
//!   raw vectors as its Q, K and V; no weights at all.
//! - [`HeadMode::Projected`]: head `h` multiplies the vectors by its own
//!   `W_q, W_k, W_v: (d_model, d_k)`, drawn from [`SeededRng`] with the seed in
//!   the mode, uniformly in `±√(3/d_model)` (variance `1/d_model`, so the
//!   projected vectors keep the scale of the inputs).
//!
//! Each head scales by `1/√d_k`. `x: (n, d_model)` row-major; every head's
//! [`Attention`] is `(n, n)` and its context `(n, d_k)`.

use crate::attention::{attend_with, Attention, Extras, Matrix, Options};
use crate::error::{Error, Result};

/// How the heads get their queries, keys and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadMode {
    /// Random projections from a seeded generator (the seed goes in share links).
    Projected { seed: u64 },
    /// Each head takes its own slice of the dimensions.
    Split,
}

/// The result of multi-head attention.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHead {
    /// `d_k = d_model / heads`.
    pub head_dim: usize,
    /// One attention per head, in head order.
    pub heads: Vec<Attention>,
    /// The element-wise mean of the heads' weights, `(n, n)`.
    pub average: Vec<f32>,
    /// The heads' context vectors side by side, `(n, d_model)` (no output projection).
    pub context: Vec<f32>,
}

/// The head counts that divide `d_model` (for 50: 1, 2, 5, 10, 25, 50).
pub fn head_counts(d_model: usize) -> Vec<usize> {
    (1..=d_model).filter(|h| d_model % h == 0).collect()
}

/// Runs `heads` heads over `x: (n, d_model)`; `heads` must divide `d_model`.
pub fn multi_head(x: &Matrix, heads: usize, mode: HeadMode, options: &Options) -> Result<MultiHead> {
    let (n, d_model) = (x.rows(), x.cols());
    if heads == 0 || d_model % heads != 0 {
        return Err(Error::InvalidOption(format!(
            "{heads} heads do not divide {d_model} dimensions; choose one of {:?}",
            head_counts(d_model)
        )));
    }
    let head_dim = d_model / heads;
    let mut results = Vec::with_capacity(heads);
    for h in 0..heads {
        let [q, k, v] = head_inputs(x, heads, mode, h)?;
        results.push(attend_with(&q, &k, &v, options, &Extras::default())?);
    }
    let mut average = vec![0f32; n * n];
    for head in &results {
        for (a, w) in average.iter_mut().zip(&head.weights) {
            *a += w / heads as f32;
        }
    }
    let mut context = vec![0f32; n * d_model];
    for (h, head) in results.iter().enumerate() {
        for i in 0..n {
            context[i * d_model + h * head_dim..i * d_model + (h + 1) * head_dim]
                .copy_from_slice(&head.context[i * head_dim..(i + 1) * head_dim]);
        }
    }
    Ok(MultiHead { head_dim, heads: results, average, context })
}

/// The projection matrices of head `head` in projected mode with `seed`:
/// `[W_q, W_k, W_v]`, each `(d_model, d_k)`, exactly as [`multi_head`] draws them.
pub fn projections(seed: u64, d_model: usize, heads: usize, head: usize) -> Result<[Matrix; 3]> {
    if heads == 0 || d_model % heads != 0 || head >= heads {
        return Err(Error::InvalidOption(format!("no head {head} of {heads} over {d_model} dimensions")));
    }
    let head_dim = d_model / heads;
    let mut rng = SeededRng::new(seed);
    rng.skip((head * 3 * d_model * head_dim) as u64);
    Ok([
        projection(&mut rng, d_model, head_dim),
        projection(&mut rng, d_model, head_dim),
        projection(&mut rng, d_model, head_dim),
    ])
}

/// The queries, keys and values head `head` attends with, `[Q, K, V]`, each
/// `(n, d_k)`: the head's slice of `x` in split mode, `x · W` in projected
/// mode. [`multi_head`] computes exactly these, so the step-by-step panel of
/// one head shows the numbers of its heatmap.
pub fn head_inputs(x: &Matrix, heads: usize, mode: HeadMode, head: usize) -> Result<[Matrix; 3]> {
    let d_model = x.cols();
    if heads == 0 || d_model % heads != 0 || head >= heads {
        return Err(Error::InvalidOption(format!("no head {head} of {heads} over {d_model} dimensions")));
    }
    let head_dim = d_model / heads;
    Ok(match mode {
        HeadMode::Split => {
            let slice = x.columns(head * head_dim..(head + 1) * head_dim);
            [slice.clone(), slice.clone(), slice]
        }
        HeadMode::Projected { seed } => {
            let [w_q, w_k, w_v] = projections(seed, d_model, heads, head)?;
            [x.matmul(&w_q)?, x.matmul(&w_k)?, x.matmul(&w_v)?]
        }
    })
}

fn projection(rng: &mut SeededRng, rows: usize, cols: usize) -> Matrix {
    let bound = (3.0 / rows as f64).sqrt();
    let data = (0..rows * cols).map(|_| ((rng.next_unit() * 2.0 - 1.0) * bound) as f32).collect();
    Matrix::from_vec(rows, cols, data)
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator whose stream is
/// fixed by its definition. Share links hold a seed, and a link must reopen the
/// same heads forever, on every platform; general-purpose generators in
/// libraries reserve the right to change their streams between versions.
#[derive(Debug, Clone)]
pub struct SeededRng {
    state: u64,
}

impl SeededRng {
    pub fn new(seed: u64) -> Self {
        SeededRng { state: seed }
    }

    /// The step the state takes for each number drawn.
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(Self::GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Moves past the next `count` numbers at once: the state only ever
    /// adds GAMMA (head 4,095 of 4,096 skipped 10¹¹ numbers one by one).
    pub fn skip(&mut self, count: u64) {
        self.state = self.state.wrapping_add(count.wrapping_mul(Self::GAMMA));
    }

    /// Uniform in `[0, 1)`, from the top 53 bits (exact in `f64`).
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize, d: usize) -> Matrix {
        let mut rng = SeededRng::new(7);
        Matrix::from_vec(n, d, (0..n * d).map(|_| (rng.next_unit() * 4.0 - 2.0) as f32).collect())
    }

    #[test]
    fn splitmix64_matches_its_published_sequence() {
        // The reference implementation's first outputs for seed 1234567.
        let mut rng = SeededRng::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
        assert_eq!(rng.next_u64(), 9817491932198370423);
    }

    #[test]
    fn skipping_equals_drawing() {
        let (mut drawn, mut skipped) = (SeededRng::new(99), SeededRng::new(99));
        for _ in 0..1000 {
            drawn.next_u64();
        }
        skipped.skip(1000);
        assert_eq!(drawn.next_u64(), skipped.next_u64());
    }

    #[test]
    fn head_counts_of_50() {
        assert_eq!(head_counts(50), [1, 2, 5, 10, 25, 50]);
    }

    #[test]
    fn one_split_head_is_plain_attention() {
        let x = sample(5, 10);
        let one = multi_head(&x, 1, HeadMode::Split, &Options::default()).unwrap();
        let plain = crate::attention::self_attention(&x, &Options::default()).unwrap();
        assert_eq!(one.heads[0].weights, plain.weights);
        assert_eq!(one.average, plain.weights);
        assert_eq!(one.context, plain.context);
    }

    #[test]
    fn split_heads_see_their_own_slice() {
        let x = sample(4, 10);
        let mh = multi_head(&x, 5, HeadMode::Split, &Options::default()).unwrap();
        assert_eq!((mh.head_dim, mh.heads.len()), (2, 5));
        let slice = x.columns(4..6);
        let head2 = crate::attention::self_attention(&slice, &Options::default()).unwrap();
        assert_eq!(mh.heads[2].weights, head2.weights);
        // Each head scales by 1/√d_k = 1/√2.
        assert!((mh.heads[2].factor - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(&mh.context[4..6], &head2.context[0..2]);
    }

    #[test]
    fn projected_heads_are_reproducible_and_seed_dependent() {
        let x = sample(6, 10);
        let a = multi_head(&x, 2, HeadMode::Projected { seed: 42 }, &Options::default()).unwrap();
        let b = multi_head(&x, 2, HeadMode::Projected { seed: 42 }, &Options::default()).unwrap();
        let c = multi_head(&x, 2, HeadMode::Projected { seed: 43 }, &Options::default()).unwrap();
        assert_eq!(a, b);
        assert_ne!(a.heads[0].weights, c.heads[0].weights);
        // Head 1 recomputed by hand from its published projections.
        let [w_q, w_k, w_v] = projections(42, 10, 2, 1).unwrap();
        let by_hand = crate::attention::attend(
            &x.matmul(&w_q).unwrap(),
            &x.matmul(&w_k).unwrap(),
            &x.matmul(&w_v).unwrap(),
            &Options::default(),
        )
        .unwrap();
        assert_eq!(a.heads[1].weights, by_hand.weights);
        for row in a.average.chunks(6) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn head_inputs_are_what_each_head_attends_with() {
        let x = sample(5, 10);
        for mode in [HeadMode::Split, HeadMode::Projected { seed: 9 }] {
            let mh = multi_head(&x, 5, mode, &Options::default()).unwrap();
            for (h, head) in mh.heads.iter().enumerate() {
                let [q, k, v] = head_inputs(&x, 5, mode, h).unwrap();
                assert_eq!((q.rows(), q.cols(), v.cols()), (5, 2, 2));
                let again = crate::attention::attend(&q, &k, &v, &Options::default()).unwrap();
                assert_eq!(again.weights, head.weights, "{mode:?} head {h}");
            }
        }
        assert!(head_inputs(&x, 5, HeadMode::Split, 5).is_err());
        assert!(head_inputs(&x, 3, HeadMode::Split, 0).is_err());
    }

    #[test]
    fn projection_entries_have_variance_one_over_d_model() {
        let mut rng = SeededRng::new(3);
        let w = projection(&mut rng, 50, 200);
        let values = w.as_slice();
        let mean = values.iter().map(|v| f64::from(*v)).sum::<f64>() / values.len() as f64;
        let var = values.iter().map(|v| (f64::from(*v) - mean).powi(2)).sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var * 50.0 - 1.0).abs() < 0.05, "{var}");
    }

    #[test]
    fn head_counts_that_do_not_divide_are_refused() {
        let x = sample(3, 50);
        let err = multi_head(&x, 3, HeadMode::Split, &Options::default()).unwrap_err().to_string();
        assert!(err.contains("[1, 2, 5, 10, 25, 50]"), "{err}");
        assert!(multi_head(&x, 0, HeadMode::Split, &Options::default()).is_err());
    }
}
