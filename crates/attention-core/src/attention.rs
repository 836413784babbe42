//! Scaled dot-product attention, `softmax(s · Q Kᵀ) · V`, keeping every
//! intermediate a learner wants to see.
//!
//! Shapes and conventions:
//! - `query: (n_q, d)`, `key: (n_k, d)`, `value: (n_k, d_v)`, all row-major `f32`.
//! - `scores[i][j] = query_i · key_j` (accumulated in `f64`).
//! - `factor = (1/√d if scaling is on, else 1) / temperature`.
//! - `scaled[i][j] = factor · scores[i][j]`, and `−∞` where the pair is masked.
//! - `weights[i]` is the softmax of `scaled[i]` (masked cells get exactly 0).
//! - `context[i] = Σ_j weights[i][j] · value_j`, shape `(n_q, d_v)`.
//!
//! Masks: with `self_attention` off, token `i` may not attend to key `i`; with
//! `causal` on, token `i` may not attend to any key `j > i`; a key-padding mask
//! ([`Extras::key_padding`]) hides padding keys from every query. A row whose every
//! key is masked (the first token under causal + no-self) is flagged in
//! [`Attention::fully_masked`]; its weights and context are all 0, never NaN.
//!
//! The softmax subtracts the row maximum before `exp`, in `f64`, so scores of
//! any size give finite weights.

use crate::error::{Error, Result};

/// Temperatures outside this range are refused; they only produce rows that
/// are one-hot or uniform to the last printed digit.
pub const TEMPERATURE_RANGE: std::ops::RangeInclusive<f32> = 0.001..=1000.0;

/// How attention is computed. `Default` is the tutorial's setting: scaled by
/// 1/√d, temperature 1, a token may attend to itself, no causal mask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Divide scores by √d_k.
    pub scale: bool,
    /// Divide scores by this before the softmax (1 = no change).
    pub temperature: f32,
    /// A token may attend to itself.
    pub self_attention: bool,
    /// A token may only attend to itself and earlier tokens.
    pub causal: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { scale: true, temperature: 1.0, self_attention: true, causal: false }
    }
}

impl Options {
    /// Checks the ranges; every entry point calls this before computing.
    pub fn validate(&self) -> Result<()> {
        if !self.temperature.is_finite() || !TEMPERATURE_RANGE.contains(&self.temperature) {
            return Err(Error::InvalidOption(format!(
                "temperature must be between {} and {}, got {}",
                TEMPERATURE_RANGE.start(),
                TEMPERATURE_RANGE.end(),
                self.temperature
            )));
        }
        Ok(())
    }

    /// True when query `i` may not look at key `j`.
    pub fn is_masked(&self, i: usize, j: usize) -> bool {
        (!self.self_attention && i == j) || (self.causal && j > i)
    }
}

/// A dense row-major `f32` matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f32>,
}

impl Matrix {
    /// Wraps `data` as a `(rows, cols)` matrix; the length must be `rows · cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<f32>) -> Result<Self> {
        if rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::Shape(format!("{} numbers cannot fill a {rows} × {cols} matrix", data.len())));
        }
        Ok(Matrix { rows, cols, data })
    }

    /// Stacks equal-length rows.
    pub fn from_rows<R: AsRef<[f32]>>(rows: &[R]) -> Result<Self> {
        let cols = rows.first().map_or(0, |r| r.as_ref().len());
        let mut data = Vec::with_capacity(rows.len() * cols);
        for (i, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            if row.len() != cols {
                return Err(Error::Shape(format!(
                    "row {} has {} numbers but row 1 has {cols}",
                    i + 1,
                    row.len()
                )));
            }
            data.extend_from_slice(row);
        }
        Ok(Matrix { rows: rows.len(), cols, data })
    }

    /// Wraps data whose length the caller has already made `rows · cols`.
    pub(crate) fn from_vec(rows: usize, cols: usize, data: Vec<f32>) -> Self {
        debug_assert_eq!(data.len(), rows * cols);
        Matrix { rows, cols, data }
    }

    /// Reads a small matrix typed by hand: rows separated by `;` or new lines,
    /// numbers by spaces or commas, optional brackets: `2 3; 1 2`,
    /// `[[2, 3], [1, 2]]` and `[2, 3]` all work.
    pub fn parse(text: &str) -> Result<Self> {
        const MAX_CELLS: usize = 4096;
        let cleaned: String = text
            .chars()
            .map(|c| if c == '[' || c == ']' || c == '(' || c == ')' { ' ' } else { c })
            .collect();
        // "[[2, 3], [1, 2]]" separates rows by "]," which became " ,": treat a comma
        // after a closed bracket as a row break.
        let text_rows = if text.contains("],") { cleaned.replace(" ,", ";") } else { cleaned };
        let mut rows: Vec<Vec<f32>> = Vec::new();
        for (r, line) in text_rows.split([';', '\n']).enumerate() {
            let numbers: Vec<&str> =
                line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()).collect();
            if numbers.is_empty() {
                continue;
            }
            let mut row = Vec::with_capacity(numbers.len());
            for number in numbers {
                let value: f32 = number.parse().ok().filter(|v: &f32| v.is_finite()).ok_or_else(|| {
                    Error::InvalidOption(format!("row {}: '{number}' is not a number", r + 1))
                })?;
                row.push(value);
            }
            rows.push(row);
            if rows.len() * rows[0].len() > MAX_CELLS {
                return Err(Error::InvalidOption(format!(
                    "a typed matrix holds at most {MAX_CELLS} numbers"
                )));
            }
        }
        if rows.is_empty() {
            return Err(Error::InvalidOption("the matrix is empty: type numbers such as 2 3; 1 2".into()));
        }
        Self::from_rows(&rows)
    }

    /// The product `self · other`, `(rows, other.cols)`.
    pub fn matmul(&self, other: &Matrix) -> Result<Matrix> {
        if self.cols != other.rows {
            return Err(Error::Shape(format!(
                "cannot multiply {} × {} by {} × {}",
                self.rows, self.cols, other.rows, other.cols
            )));
        }
        let mut data = vec![0f32; self.rows * other.cols];
        for i in 0..self.rows {
            for c in 0..other.cols {
                let sum: f64 =
                    (0..self.cols).map(|k| f64::from(self.row(i)[k]) * f64::from(other.row(k)[c])).sum();
                data[i * other.cols + c] = sum as f32;
            }
        }
        Ok(Matrix::from_vec(self.rows, other.cols, data))
    }

    /// The columns in `range`, as a new `(rows, range.len())` matrix.
    pub fn columns(&self, range: std::ops::Range<usize>) -> Matrix {
        let range = range.start.min(self.cols)..range.end.min(self.cols);
        let data = (0..self.rows).flat_map(|i| self.row(i)[range.clone()].iter().copied()).collect();
        Matrix::from_vec(self.rows, range.len(), data)
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`. Panics if `i >= rows` (an internal indexing error, never user input).
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All numbers, row after row.
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }
}

/// The result of attention, with every step kept. All `(n_q, n_k)` matrices
/// are row-major: entry `(i, j)` is at `i * keys + j`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attention {
    /// Number of query rows, `n_q`.
    pub queries: usize,
    /// Number of key columns, `n_k`.
    pub keys: usize,
    /// Dimension `d` of queries and keys.
    pub dim: usize,
    /// Dimension `d_v` of values and context vectors.
    pub value_dim: usize,
    /// The factor applied to every score: `(1/√d or 1) / temperature`.
    pub factor: f64,
    /// Raw dot products `q_i · k_j`, `(n_q, n_k)`, saturated to the `f32` range.
    pub scores: Vec<f32>,
    /// `factor · scores`, `(n_q, n_k)`; `−∞` where masked.
    pub scaled: Vec<f32>,
    /// Softmax of each row of `scaled`, `(n_q, n_k)`; 0 where masked.
    pub weights: Vec<f32>,
    /// Weighted sums of value rows, `(n_q, d_v)`.
    pub context: Vec<f32>,
    /// `fully_masked[i]`: every key of row `i` is masked; its weights are all 0.
    pub fully_masked: Vec<bool>,
    /// The options the result was computed with.
    pub options: Options,
}

impl Attention {
    /// Weight of query `i` on key `j`.
    pub fn weight(&self, i: usize, j: usize) -> f32 {
        self.weights[i * self.keys + j]
    }

    /// Row `i` of the weights.
    pub fn weight_row(&self, i: usize) -> &[f32] {
        &self.weights[i * self.keys..(i + 1) * self.keys]
    }

    /// Whether the pair `(i, j)` was masked out.
    pub fn is_masked(&self, i: usize, j: usize) -> bool {
        self.scaled[i * self.keys + j] == f32::NEG_INFINITY
    }

    /// Every cell's [`is_masked`](Attention::is_masked), `(n_q, n_k)` row-major.
    pub fn masked_cells(&self) -> Vec<bool> {
        self.scaled.iter().map(|s| *s == f32::NEG_INFINITY).collect()
    }
}

/// Self-attention with the same matrix as queries, keys and values (the
/// tutorial's setting for raw embeddings).
pub fn self_attention(x: &Matrix, options: &Options) -> Result<Attention> {
    attend(x, x, x, options)
}

/// What [`attend_with`] takes beyond the options: settings the sentence views
/// do not need but the playground and the padding demo do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extras<'a> {
    /// `key_padding[j]`: key `j` is padding and no query may attend to it.
    pub key_padding: Option<&'a [bool]>,
    /// Scale by `1/√scale_dim` instead of `1/√d` (the tutorials' "d_k = 100"
    /// on two-number examples). Ignored when scaling is off.
    pub scale_dim: Option<usize>,
}

/// `softmax(factor · Q Kᵀ) · V` with the masks of `options`.
pub fn attend(query: &Matrix, key: &Matrix, value: &Matrix, options: &Options) -> Result<Attention> {
    attend_with(query, key, value, options, &Extras::default())
}

/// [`attend`] with a key-padding mask and/or an explicit `d_k` for the scaling.
pub fn attend_with(
    query: &Matrix,
    key: &Matrix,
    value: &Matrix,
    options: &Options,
    extras: &Extras<'_>,
) -> Result<Attention> {
    options.validate()?;
    if let Some(padding) = extras.key_padding {
        if padding.len() != key.rows {
            return Err(Error::Shape(format!("{} padding flags for {} keys", padding.len(), key.rows)));
        }
    }
    if extras.scale_dim == Some(0) {
        return Err(Error::InvalidOption("d_k for the scaling must be at least 1".into()));
    }
    if query.cols != key.cols {
        return Err(Error::Shape(format!("queries have {} dimensions, keys have {}", query.cols, key.cols)));
    }
    if key.rows != value.rows {
        return Err(Error::Shape(format!("{} keys but {} values", key.rows, value.rows)));
    }
    let (n_q, n_k, d, d_v) = (query.rows, key.rows, query.cols, value.cols);
    let factor = scale_factor(extras.scale_dim.unwrap_or(d), options);
    let is_masked = |i: usize, j: usize| options.is_masked(i, j) || extras.key_padding.is_some_and(|p| p[j]);

    // Every dot product once, in f64. Self-attention passes the same matrix as
    // queries and keys, whose score matrix is symmetric: half the work.
    let key64 = to_f64(key);
    let query64 = if std::ptr::eq(query, key) { None } else { Some(to_f64(query)) };
    let query_rows = query64.as_deref().unwrap_or(&key64);
    let mut dots = vec![0f64; n_q * n_k];
    for i in 0..n_q {
        let q = &query_rows[i * d..(i + 1) * d];
        let first = if query64.is_none() { i } else { 0 };
        for j in first..n_k {
            let value = dot64(q, &key64[j * d..(j + 1) * d]);
            dots[i * n_k + j] = value;
            if query64.is_none() && j < n_q {
                dots[j * n_k + i] = value;
            }
        }
    }

    let value64 = to_f64(value);
    let mut scores = vec![0f32; n_q * n_k];
    let mut scaled = vec![0f32; n_q * n_k];
    let mut weights = vec![0f32; n_q * n_k];
    let mut context = vec![0f32; n_q * d_v];
    let mut fully_masked = vec![false; n_q];
    let mut row_scaled = vec![0f64; n_k];
    let mut acc = vec![0f64; d_v];

    for i in 0..n_q {
        let mut max = f64::NEG_INFINITY;
        for j in 0..n_k {
            let dot = dots[i * n_k + j];
            scores[i * n_k + j] = saturate(dot);
            if is_masked(i, j) {
                row_scaled[j] = f64::NEG_INFINITY;
                scaled[i * n_k + j] = f32::NEG_INFINITY;
            } else {
                let s = dot * factor;
                row_scaled[j] = s;
                scaled[i * n_k + j] = saturate(s);
                max = max.max(s);
            }
        }
        if max == f64::NEG_INFINITY {
            // Every key is masked (or there are none): no distribution exists.
            fully_masked[i] = true;
            continue;
        }
        let mut sum = 0f64;
        for s in row_scaled.iter_mut() {
            *s = if *s == f64::NEG_INFINITY { 0.0 } else { (*s - max).exp() };
            sum += *s;
        }
        // sum >= 1 because the maximum contributes exp(0) = 1.
        acc.fill(0.0);
        for (j, e) in row_scaled.iter().enumerate() {
            let w = e / sum;
            weights[i * n_k + j] = w as f32;
            if w != 0.0 {
                // Independent lanes: this loop vectorizes.
                for (a, v) in acc.iter_mut().zip(&value64[j * d_v..(j + 1) * d_v]) {
                    *a += w * v;
                }
            }
        }
        for (o, a) in context[i * d_v..(i + 1) * d_v].iter_mut().zip(&acc) {
            *o = saturate(*a);
        }
    }

    Ok(Attention {
        queries: n_q,
        keys: n_k,
        dim: d,
        value_dim: d_v,
        factor,
        scores,
        scaled,
        weights,
        context,
        fully_masked,
        options: *options,
    })
}

/// `(1/√d or 1) / temperature`.
pub fn scale_factor(dim: usize, options: &Options) -> f64 {
    let base = if options.scale && dim > 0 { 1.0 / (dim as f64).sqrt() } else { 1.0 };
    base / f64::from(options.temperature)
}

/// `a · b` of `f32` vectors, accumulated in `f64` (the step-by-step panel uses
/// this too, so its numbers equal the attention's exactly).
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f64 {
    let mut lanes = [0f64; 4];
    let (a4, a_rest) = a.split_at(a.len() - a.len() % 4);
    let (b4, b_rest) = b.split_at(a4.len().min(b.len()));
    for (x, y) in a4.chunks_exact(4).zip(b4.chunks_exact(4)) {
        for k in 0..4 {
            lanes[k] += f64::from(x[k]) * f64::from(y[k]);
        }
    }
    let tail: f64 = a_rest.iter().zip(b_rest).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// [`dot`] on `f64` slices: four independent sums, so the loop vectorizes.
fn dot64(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0f64; 4];
    let (a4, a_rest) = a.split_at(a.len() - a.len() % 4);
    let (b4, b_rest) = b.split_at(a4.len().min(b.len()));
    for (x, y) in a4.chunks_exact(4).zip(b4.chunks_exact(4)) {
        for k in 0..4 {
            lanes[k] += x[k] * y[k];
        }
    }
    let tail: f64 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

fn to_f64(m: &Matrix) -> Vec<f64> {
    m.data.iter().map(|v| f64::from(*v)).collect()
}

/// Converts to `f32`, clamping values beyond its range instead of producing ±∞.
fn saturate(x: f64) -> f32 {
    x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: &[&[f32]]) -> Matrix {
        Matrix::from_rows(rows).unwrap()
    }

    #[test]
    fn tutorial_scores_of_one_query_against_three_keys() {
        // Q = [2, 3]; keys C = [11, 13], A = [1, 2], B = [4, 6].
        let q = m(&[&[2.0, 3.0]]);
        let k = m(&[&[11.0, 13.0], &[1.0, 2.0], &[4.0, 6.0]]);
        let a = attend(&q, &k, &k, &Options { scale: false, ..Options::default() }).unwrap();
        assert_eq!(a.scores, vec![61.0, 8.0, 26.0]);
    }

    #[test]
    fn scaling_softens_a_saturated_softmax() {
        // The tutorial: scores [100, 80] give ≈ [1.0, 0.0] unscaled and
        // ≈ [0.88, 0.12] divided by √100 (d_k = 100).
        let q = m(&[&[1.0]]);
        let k = m(&[&[100.0], &[80.0]]);
        let unscaled = attend(&q, &k, &k, &Options { scale: false, ..Options::default() }).unwrap();
        assert_eq!(unscaled.scores, [100.0, 80.0]);
        assert!((unscaled.weight(0, 0) - 1.0).abs() < 1e-8);
        assert!(unscaled.weight(0, 1) < 3e-9);
        let extras = Extras { scale_dim: Some(100), ..Extras::default() };
        let scaled = attend_with(&q, &k, &k, &Options::default(), &extras).unwrap();
        assert!((scaled.factor - 0.1).abs() < 1e-12);
        assert!((scaled.weight(0, 0) - 0.8808).abs() < 1e-4);
        assert!((scaled.weight(0, 1) - 0.1192).abs() < 1e-4);
    }

    #[test]
    fn padding_keys_get_no_weight() {
        let x = m(&[&[1.0, 0.0], &[0.0, 1.0], &[0.0, 0.0], &[0.0, 0.0]]);
        let padding = [false, false, true, true];
        let extras = Extras { key_padding: Some(&padding), ..Extras::default() };
        let a = attend_with(&x, &x, &x, &Options::default(), &extras).unwrap();
        for i in 0..4 {
            assert_eq!(&a.weight_row(i)[2..], &[0.0, 0.0]);
            assert!((a.weight_row(i).iter().sum::<f32>() - 1.0).abs() < 1e-6);
            assert!(a.is_masked(i, 3));
        }
        let short = [false];
        let extras = Extras { key_padding: Some(&short), ..Extras::default() };
        assert!(attend_with(&x, &x, &x, &Options::default(), &extras).is_err());
    }

    #[test]
    fn first_token_under_causal_and_no_self_is_flagged_not_nan() {
        let x = m(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 6.0]]);
        let opts = Options { causal: true, self_attention: false, ..Options::default() };
        let a = self_attention(&x, &opts).unwrap();
        assert_eq!(a.fully_masked, vec![true, false, false]);
        assert_eq!(a.weight_row(0), &[0.0, 0.0, 0.0]);
        assert_eq!(&a.context[0..2], &[0.0, 0.0]);
        // Row 1 may only look at key 0.
        assert_eq!(a.weight_row(1), &[1.0, 0.0, 0.0]);
        assert_eq!(&a.context[2..4], &[1.0, 2.0]);
        assert!(a.is_masked(1, 1) && a.is_masked(1, 2) && !a.is_masked(2, 0));
    }

    #[test]
    fn huge_scores_stay_finite() {
        let x = m(&[&[1e30, -1e30], &[-1e30, 1e30]]);
        let a = self_attention(&x, &Options::default()).unwrap();
        assert!(a.weights.iter().all(|w| w.is_finite()));
        assert!(a.context.iter().all(|c| c.is_finite()));
        assert_eq!(a.weight_row(0), &[1.0, 0.0]);
    }

    #[test]
    fn temperature_out_of_range_is_refused() {
        let x = m(&[&[1.0]]);
        for t in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e6] {
            let err = self_attention(&x, &Options { temperature: t, ..Options::default() });
            assert!(matches!(err, Err(Error::InvalidOption(_))), "temperature {t}");
        }
    }

    #[test]
    fn typed_matrices_parse_in_every_usual_notation() {
        let expected = m(&[&[2.0, 3.0], &[1.0, 2.0]]);
        for text in ["2 3; 1 2", "[[2, 3], [1, 2]]", "2,3\n1,2", " [2 3]\n[1 2] "] {
            assert_eq!(Matrix::parse(text).unwrap(), expected, "{text:?}");
        }
        assert_eq!(Matrix::parse("[2, 3]").unwrap(), m(&[&[2.0, 3.0]]));
        assert!(Matrix::parse("2 x").unwrap_err().to_string().contains("'x' is not a number"));
        assert!(Matrix::parse("1 2; 3")
            .unwrap_err()
            .to_string()
            .contains("row 2 has 1 numbers but row 1 has 2"));
        assert!(Matrix::parse(" ; ").is_err());
        assert!(Matrix::parse("1e39").is_err());
    }

    #[test]
    fn matmul_and_columns() {
        let a = m(&[&[1.0, 2.0], &[3.0, 4.0]]);
        let b = m(&[&[5.0], &[6.0]]);
        assert_eq!(a.matmul(&b).unwrap(), m(&[&[17.0], &[39.0]]));
        assert!(b.matmul(&b).is_err());
        assert_eq!(a.columns(1..2), m(&[&[2.0], &[4.0]]));
    }

    #[test]
    fn shapes_must_fit() {
        let q = m(&[&[1.0, 2.0]]);
        let k = m(&[&[1.0, 2.0, 3.0]]);
        assert!(matches!(attend(&q, &k, &k, &Options::default()), Err(Error::Shape(_))));
        assert!(Matrix::new(2, 2, vec![1.0; 3]).is_err());
        assert!(Matrix::from_rows(&[vec![1.0], vec![1.0, 2.0]]).is_err());
    }

    #[test]
    fn cross_attention_has_query_rows_and_key_columns() {
        let q = m(&[&[1.0, 0.0], &[0.0, 1.0]]);
        let k = m(&[&[1.0, 0.0], &[0.0, 1.0], &[1.0, 1.0]]);
        let v = m(&[&[1.0], &[2.0], &[3.0]]);
        let a = attend(&q, &k, &v, &Options::default()).unwrap();
        assert_eq!((a.queries, a.keys, a.value_dim), (2, 3, 1));
        assert_eq!(a.context.len(), 2);
    }
}
