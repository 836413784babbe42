//! The four steps of attention for one query, with every number, so a
//! learner can follow a row of the heatmap by hand:
//!
//! 1. dot products `q · k_j` (and, for one cell, the per-dimension terms);
//! 2. scaling: `s_j = factor · (q · k_j)`, with `factor = (1/√d_k or 1) / T`;
//! 3. softmax: `exp(s_j)`, their sum, and `w_j = exp(s_j) / Σ exp(s)`;
//! 4. the weighted sum of values: `context = Σ_j w_j · v_j`.
//!
//! The softmax is computed as the attention does, shifted by the row maximum
//! (`exp(s_j − max)`, which cannot overflow); the unshifted `exp(s_j)` the
//! tutorials print is given too, and is `None` where it overflows `f64`.
//! Everything is `f64`; the weights equal [`Attention`](crate::Attention)'s to
//! `f32` precision.

use crate::attention::{dot, scale_factor, Extras, Matrix, Options};
use crate::error::{Error, Result};
use crate::neighbors::cosine_similarity;

/// The steps for query row `query`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
pub struct RowSteps {
    pub query: usize,
    /// The factor of step 2.
    pub factor: f64,
    /// Step 1: `q · k_j` for every key.
    pub dots: Vec<f64>,
    /// Step 2: `factor · dots[j]`, or `None` where the key is masked.
    pub scaled: Vec<Option<f64>>,
    /// The largest scaled score (the softmax's shift); `None` if every key is masked.
    pub max: Option<f64>,
    /// Step 3: `exp(s_j)` as the tutorials print it; `None` where masked or beyond `f64`.
    pub exps: Vec<Option<f64>>,
    /// Step 3: `Σ exp(s_j)`, the tutorials' denominator; `None` when a term overflows.
    pub sum_of_exps: Option<f64>,
    /// Step 3, as computed: `exp(s_j − max)`; 0 where masked.
    pub shifted_exps: Vec<f64>,
    /// Step 3: the sum of `shifted_exps`.
    pub shifted_sum: f64,
    /// Step 3: the weights; all 0 when every key is masked.
    pub weights: Vec<f64>,
    /// Step 4: `Σ_j w_j · v_j`, length `d_v`.
    pub context: Vec<f64>,
    /// Beside the weights: the raw cosine similarity of the query with each
    /// key; NaN where either vector is all zeros (a pad's), which has no angle.
    pub cosines: Vec<f32>,
}

/// One term `q_t · k_t` of a dot product.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Term {
    pub dimension: usize,
    pub query: f64,
    pub key: f64,
    pub product: f64,
}

/// The steps for one cell `(query, key)`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CellSteps {
    pub query: usize,
    pub key: usize,
    /// Every term of the dot product, largest `|product|` first.
    pub terms: Vec<Term>,
    pub dot: f64,
    pub factor: f64,
    /// `None` where masked.
    pub scaled: Option<f64>,
    /// The cell's weight (from the whole row's softmax).
    pub weight: f64,
    /// The raw cosine similarity of the query and the key; NaN where either is all zeros.
    pub cosine: f32,
}

fn check(query: &Matrix, key: &Matrix, value: &Matrix, row: usize) -> Result<()> {
    if query.cols() != key.cols() || key.rows() != value.rows() {
        return Err(Error::Shape("queries, keys and values do not fit together".into()));
    }
    if row >= query.rows() {
        return Err(Error::InvalidOption(format!("there is no query {row} (there are {})", query.rows())));
    }
    Ok(())
}

/// Steps 1–4 for query `row`, with the same options and extras as the attention.
pub fn explain_row(
    query: &Matrix,
    key: &Matrix,
    value: &Matrix,
    options: &Options,
    extras: &Extras<'_>,
    row: usize,
) -> Result<RowSteps> {
    options.validate()?;
    check(query, key, value, row)?;
    let factor = scale_factor(extras.scale_dim.unwrap_or(query.cols()), options);
    let q = query.row(row);
    let masked =
        |j: usize| options.is_masked(row, j) || extras.key_padding.is_some_and(|p| p.get(j) == Some(&true));
    let dots: Vec<f64> = (0..key.rows()).map(|j| dot(q, key.row(j))).collect();
    let scaled: Vec<Option<f64>> =
        dots.iter().enumerate().map(|(j, d)| (!masked(j)).then_some(d * factor)).collect();
    let max = scaled.iter().flatten().copied().reduce(f64::max);
    let exps: Vec<Option<f64>> = scaled.iter().map(|s| s.map(f64::exp).filter(|e| e.is_finite())).collect();
    // Masked keys add nothing; an overflowed term leaves the tutorials' sum undefined.
    let sum_of_exps = exps
        .iter()
        .zip(&scaled)
        .try_fold(0.0, |sum, (e, s)| match (e, s) {
            (Some(e), _) => Some(sum + e),
            (None, Some(_)) => None,
            (None, None) => Some(sum),
        })
        .filter(|sum: &f64| sum.is_finite());
    let shifted_exps: Vec<f64> = scaled
        .iter()
        .map(|s| match (s, max) {
            (Some(s), Some(m)) => crate::attention::exp(s - m),
            _ => 0.0,
        })
        .collect();
    let shifted_sum: f64 = shifted_exps.iter().sum();
    let weights: Vec<f64> =
        shifted_exps.iter().map(|e| if shifted_sum > 0.0 { e / shifted_sum } else { 0.0 }).collect();
    let mut context = vec![0.0; value.cols()];
    for (j, w) in weights.iter().enumerate() {
        for (c, v) in context.iter_mut().zip(value.row(j)) {
            *c += w * f64::from(*v);
        }
    }
    let cosines = (0..key.rows()).map(|j| cosine_similarity(q, key.row(j)).unwrap_or(f32::NAN)).collect();
    Ok(RowSteps {
        query: row,
        factor,
        dots,
        scaled,
        max,
        exps,
        sum_of_exps,
        shifted_exps,
        shifted_sum,
        weights,
        context,
        cosines,
    })
}

/// The dot product of one cell term by term, and where it ends up.
pub fn explain_cell(
    query: &Matrix,
    key: &Matrix,
    options: &Options,
    extras: &Extras<'_>,
    row: usize,
    column: usize,
) -> Result<CellSteps> {
    let steps = explain_row(query, key, key, options, extras, row)?;
    if column >= key.rows() {
        return Err(Error::InvalidOption(format!("there is no key {column} (there are {})", key.rows())));
    }
    let mut terms: Vec<Term> = query
        .row(row)
        .iter()
        .zip(key.row(column))
        .enumerate()
        .map(|(dimension, (q, k))| {
            let (q, k) = (f64::from(*q), f64::from(*k));
            Term { dimension, query: q, key: k, product: q * k }
        })
        .collect();
    terms.sort_by(|a, b| b.product.abs().total_cmp(&a.product.abs()).then(a.dimension.cmp(&b.dimension)));
    Ok(CellSteps {
        query: row,
        key: column,
        terms,
        dot: steps.dots[column],
        factor: steps.factor,
        scaled: steps.scaled[column],
        weight: steps.weights[column],
        cosine: steps.cosines[column],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::{attend_with, Matrix};
    use crate::multihead::SeededRng;

    fn m(text: &str) -> Matrix {
        Matrix::parse(text).unwrap()
    }

    #[test]
    fn the_tutorial_dot_products() {
        // Q = [2, 3]; keys C = [11, 13], A = [1, 2], B = [4, 6] → 61, 8, 26.
        let (q, k) = (m("2 3"), m("11 13; 1 2; 4 6"));
        let o = Options { scale: false, ..Options::default() };
        let steps = explain_row(&q, &k, &k, &o, &Extras::default(), 0).unwrap();
        assert_eq!(steps.dots, [61.0, 8.0, 26.0]);
        let cell = explain_cell(&q, &k, &o, &Extras::default(), 0, 0).unwrap();
        // 2·11 + 3·13: the larger term first.
        let products: Vec<f64> = cell.terms.iter().map(|t| t.product).collect();
        assert_eq!(products, [39.0, 22.0]);
        assert_eq!(cell.dot, 61.0);
    }

    #[test]
    fn a_zero_vector_has_no_cosine() {
        // A pad's vector is all zeros: no angle to the query, where 0 would read as a right angle.
        let (q, k) = (m("3 4"), m("3 4; 0 0; -4 3"));
        let steps = explain_row(&q, &k, &k, &Options::default(), &Extras::default(), 0).unwrap();
        assert_eq!(steps.cosines[0], 1.0);
        assert!(steps.cosines[1].is_nan());
        assert_eq!(steps.cosines[2], 0.0);
        assert!(explain_cell(&q, &k, &Options::default(), &Extras::default(), 0, 1).unwrap().cosine.is_nan());
        let zero = explain_row(&m("0 0"), &k, &k, &Options::default(), &Extras::default(), 0).unwrap();
        assert!(zero.cosines.iter().all(|c| c.is_nan()));
    }

    #[test]
    fn saturation_and_its_cure() {
        let (q, k) = (m("1"), m("100; 80"));
        let unscaled = Options { scale: false, ..Options::default() };
        let steps = explain_row(&q, &k, &k, &unscaled, &Extras::default(), 0).unwrap();
        assert!((steps.weights[0] - 1.0).abs() < 1e-8 && steps.weights[1] < 3e-9);
        assert_eq!(steps.exps[0], Some(100f64.exp()));
        let extras = Extras { scale_dim: Some(100), ..Extras::default() };
        let steps = explain_row(&q, &k, &k, &Options::default(), &extras, 0).unwrap();
        assert_eq!(steps.scaled, [Some(10.0), Some(8.0)]);
        assert_eq!(format!("{:.2} {:.2}", steps.weights[0], steps.weights[1]), "0.88 0.12");
        let sum = steps.sum_of_exps.unwrap();
        assert!((sum - (10f64.exp() + 8f64.exp())).abs() < 1e-6);
    }

    #[test]
    fn overflowing_exps_are_none_but_weights_are_fine() {
        let (q, k) = (m("1"), m("1000; 999"));
        let o = Options { scale: false, ..Options::default() };
        let steps = explain_row(&q, &k, &k, &o, &Extras::default(), 0).unwrap();
        assert_eq!(steps.exps, [None, None]);
        assert_eq!(steps.sum_of_exps, None);
        assert!((steps.weights[0] - 1.0 / (1.0 + (-1f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn steps_match_the_attention_the_heatmap_draws() {
        let mut rng = SeededRng::new(11);
        let mut random = |r: usize, c: usize| {
            let data: Vec<f32> = (0..r * c).map(|_| (rng.next_unit() * 4.0 - 2.0) as f32).collect();
            Matrix::new(r, c, data).unwrap()
        };
        let (x, v) = (random(6, 5), random(6, 3));
        let padding = [false, false, false, false, true, true];
        for options in [
            Options::default(),
            Options { causal: true, self_attention: false, ..Options::default() },
            Options { scale: false, temperature: 0.5, ..Options::default() },
        ] {
            let extras = Extras { key_padding: Some(&padding), ..Extras::default() };
            let a = attend_with(&x, &x, &v, &options, &extras).unwrap();
            for i in 0..6 {
                let steps = explain_row(&x, &x, &v, &options, &extras, i).unwrap();
                for j in 0..6 {
                    assert_eq!(steps.weights[j] as f32, a.weight(i, j));
                    assert_eq!(steps.scaled[j].is_none(), a.is_masked(i, j));
                    assert_eq!(steps.dots[j] as f32, a.scores[i * 6 + j]);
                }
                for (c, got) in steps.context.iter().enumerate() {
                    assert_eq!(*got as f32, a.context[i * 3 + c]);
                }
                assert_eq!(steps.max.is_none(), a.fully_masked[i]);
            }
        }
    }

    #[test]
    fn rows_and_columns_out_of_range_are_errors() {
        let x = m("1 2; 3 4");
        assert!(explain_row(&x, &x, &x, &Options::default(), &Extras::default(), 2).is_err());
        assert!(explain_cell(&x, &x, &Options::default(), &Extras::default(), 0, 5).is_err());
    }
}
