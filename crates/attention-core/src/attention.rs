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
//! Precision: the products of two `f32` are exact in `f64`; every dot product
//! is summed in `f64` in order of the dimension, the softmax runs in `f64`
//! (the row maximum subtracted before `exp`, so scores of any size give finite
//! weights; `exp` within 0.51 ulp), and every context vector is summed in `f64`
//! in order of the key. Only the stored results are rounded to `f32`.
//!
//! Speed (the page runs this in WebAssembly on up to 1,024 tokens): the inner
//! loops run across independent lanes (keys, value dimensions) so that they
//! vectorize (`f64x2` with `simd128`) without changing any order of summation,
//! and work on blocks of query rows and tiles of keys that stay in cache.

use crate::error::{counted, Error, Result};

/// Temperatures outside this range are refused; they only produce rows that
/// are one-hot or uniform to the last printed digit.
pub const TEMPERATURE_RANGE: std::ops::RangeInclusive<f32> = 0.001..=1000.0;

/// Refuses temperature `t` outside [`TEMPERATURE_RANGE`], naming it as
/// `shown` (the CLI names it as typed: "1e-50" is 0 as an f32).
pub fn check_temperature(t: f32, shown: &dyn std::fmt::Display) -> Result<()> {
    if t.is_finite() && TEMPERATURE_RANGE.contains(&t) {
        return Ok(());
    }
    Err(Error::InvalidOption(format!(
        "temperature must be between {} and {}, got {shown}",
        TEMPERATURE_RANGE.start(),
        TEMPERATURE_RANGE.end()
    )))
}

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
        check_temperature(self.temperature, &self.temperature)
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
    /// The most numbers a matrix typed by hand ([`Matrix::parse`]) holds.
    pub const MAX_TYPED: usize = 4096;

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
                    "row {} has {} but row 1 has {cols}",
                    i + 1,
                    counted(row.len(), "number")
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
    /// `[[2, 3], [1, 2]]` and `[2, 3]` all work. A minus sign as typeset
    /// (U+2212, as a tutorial pasted from a PDF or a web page has it) is a minus.
    pub fn parse(text: &str) -> Result<Self> {
        const MAX_CELLS: usize = Matrix::MAX_TYPED;
        let cleaned: String = text
            .chars()
            .map(|c| match c {
                '[' | ']' | '(' | ')' => ' ',
                '\u{2212}' => '-',
                c => c,
            })
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
                let parsed = number.parse::<f32>();
                let value: f32 = parsed.clone().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                    // A number all the same, beyond what 32-bit floats hold ('1e39' reads as
                    // infinity): said as such; 'inf' and 'NaN' are no numbers here.
                    let too_large =
                        parsed.is_ok_and(f32::is_infinite) && !number.to_ascii_lowercase().contains("inf");
                    Error::InvalidMatrix(format!(
                        "row {}: {} {}",
                        r + 1,
                        crate::error::quote(number),
                        if too_large {
                            "is beyond ±3.4e38, the range of 32-bit numbers"
                        } else {
                            "is not a number"
                        }
                    ))
                })?;
                row.push(value);
            }
            rows.push(row);
            if rows.len() * rows[0].len() > MAX_CELLS {
                return Err(Error::InvalidMatrix(format!(
                    "a typed matrix holds at most {MAX_CELLS} numbers"
                )));
            }
        }
        if rows.is_empty() {
            return Err(Error::InvalidMatrix("the matrix is empty: type numbers such as 2 3; 1 2".into()));
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
        // A row of sums at a time, each summed over k in order (as a dot
        // product would), reading `other` row by row: column by column, a
        // 128 × 4,096 by 4,096 × 4,096 product took 90 s in the browser.
        let mut sums = vec![0f64; other.cols];
        for i in 0..self.rows {
            sums.fill(-0.0); // the identity of +, as Iterator::sum starts
            for (k, &a) in self.row(i).iter().enumerate() {
                for (sum, &b) in sums.iter_mut().zip(other.row(k)) {
                    *sum += f64::from(a) * f64::from(b);
                }
            }
            for (c, &sum) in sums.iter().enumerate() {
                // An f64 beyond f32's range would become ±inf here, and NaN
                // once a softmax subtracts one infinity from another.
                if !sum.is_finite() || sum.abs() > f64::from(f32::MAX) {
                    return Err(Error::Overflow { at: (i, c), value: sum });
                }
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
    /// Raw dot products `q_i · k_j`, `(n_q, n_k)`, saturated to the `f32` range
    /// (empty when computed with [`Extras::weights_only`], as are `scaled`
    /// and `context`).
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
    /// The keys masked as padding ([`Extras::key_padding`]), if any.
    pub key_padding: Option<Vec<bool>>,
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

    /// Whether the pair `(i, j)` was masked out (by the options or as padding).
    pub fn is_masked(&self, i: usize, j: usize) -> bool {
        self.options.is_masked(i, j) || self.key_padding.as_ref().is_some_and(|p| p[j])
    }

    /// Whether any pair may be masked: causal, no self-attention, or padding.
    pub fn has_mask(&self) -> bool {
        self.options.causal || !self.options.self_attention || self.key_padding.is_some()
    }

    /// Every cell's [`is_masked`](Attention::is_masked), `(n_q, n_k)` row-major.
    pub fn masked_cells(&self) -> Vec<bool> {
        // Row by row, a fill per mask: a million cells at 1,024 tokens.
        let (n_k, options) = (self.keys, self.options);
        let mut cells = vec![false; self.queries * n_k];
        for (i, row) in cells.chunks_exact_mut(n_k.max(1)).enumerate() {
            if let Some(padding) = &self.key_padding {
                row.copy_from_slice(padding);
            }
            if options.causal && i + 1 < n_k {
                row[i + 1..].fill(true);
            }
            if !options.self_attention && i < n_k {
                row[i] = true;
            }
        }
        cells
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
    /// Keep only the weights (and `fully_masked`): the result's `scores`,
    /// `scaled` and `context` are left empty, and the weighted sums of the
    /// values are never computed, about half the work. For a caller that
    /// shows a row's other numbers only when asked, and takes them from
    /// [`explain_row`](crate::explain::explain_row), which gives the same numbers.
    pub weights_only: bool,
    /// Also compute the weights with scaling switched the other way (the
    /// what-if view's twin), from the same dot products: the second softmax
    /// of each row costs a fraction of its dot products.
    /// [`AttentionJob::finish_with_twin`] gives them, weights only.
    pub flipped_twin: bool,
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
    Ok(AttentionJob::new(query, key, value, options, extras)?.finish())
}

/// An attention computed a block of query rows at a time: the page computes
/// a long text in slices of a few milliseconds, so that no task is long.
/// [`attend_with`] is a job run to its end; the numbers are the same either
/// way, since each query row depends only on its own scores.
#[derive(Debug, Clone)]
pub struct AttentionJob {
    queries: Vec<f32>,
    n_q: usize,
    n_k: usize,
    d: usize,
    d_v: usize,
    factor: f64,
    options: Options,
    key_padding: Option<Vec<bool>>,
    key_tiles: Vec<f64>,
    weights: Vec<f32>,
    fully_masked: Vec<bool>,
    grid: Vec<f64>,
    /// Everything beyond the weights; `None` with [`Extras::weights_only`].
    steps: Option<Steps>,
    /// The weights with scaling switched the other way ([`Extras::flipped_twin`]).
    twin: Option<Twin>,
    /// The first query row not computed yet.
    next: usize,
}

/// What an [`AttentionJob`] keeps beyond the weights, and what it needs for it.
#[derive(Debug, Clone)]
struct Steps {
    value64: Vec<f64>,
    sums: Vec<f64>,
    scores: Vec<f32>,
    scaled: Vec<f32>,
    context: Vec<f32>,
}

/// The second set of weights of an [`AttentionJob`]: the same dot products
/// with another factor.
#[derive(Debug, Clone)]
struct Twin {
    /// The job's options with `scale` switched.
    options: Options,
    factor: f64,
    /// A row of dot products, scaled and turned into weights here.
    row: Vec<f64>,
    weights: Vec<f32>,
}

impl AttentionJob {
    /// Checks the shapes and options and prepares the keys and values; computes nothing yet.
    pub fn new(
        query: &Matrix,
        key: &Matrix,
        value: &Matrix,
        options: &Options,
        extras: &Extras<'_>,
    ) -> Result<Self> {
        options.validate()?;
        if let Some(padding) = extras.key_padding {
            if padding.len() != key.rows {
                return Err(Error::Shape(format!(
                    "{} for {}",
                    counted(padding.len(), "padding flag"),
                    counted(key.rows, "key")
                )));
            }
        }
        if extras.scale_dim == Some(0) {
            return Err(Error::InvalidOption("d_k for the scaling must be at least 1".into()));
        }
        if query.cols != key.cols {
            return Err(Error::Shape(format!(
                "queries have {}, keys have {}",
                counted(query.cols, "dimension"),
                key.cols
            )));
        }
        if key.rows != value.rows {
            return Err(Error::Shape(format!(
                "{} but {}",
                counted(key.rows, "key"),
                counted(value.rows, "value")
            )));
        }
        let (n_q, n_k, d, d_v) = (query.rows, key.rows, query.cols, value.cols);
        let scale_dim = extras.scale_dim.unwrap_or(d);
        Ok(AttentionJob {
            queries: query.data.clone(),
            n_q,
            n_k,
            d,
            d_v,
            factor: scale_factor(scale_dim, options),
            options: *options,
            key_padding: extras.key_padding.map(<[bool]>::to_vec),
            // The keys (transposed, in tiles) and the values in f64, made once:
            // products of two f32 are exact in f64, and the inner loops run on one type.
            key_tiles: key_tiles(key),
            weights: Vec::with_capacity(n_q * n_k),
            fully_masked: vec![false; n_q],
            grid: vec![0f64; n_q.min(ROWS) * n_k],
            steps: (!extras.weights_only).then(|| Steps {
                value64: to_f64(value),
                sums: vec![0f64; n_q.min(ROWS) * d_v],
                scores: Vec::with_capacity(n_q * n_k),
                scaled: Vec::with_capacity(n_q * n_k),
                context: Vec::with_capacity(n_q * d_v),
            }),
            twin: extras.flipped_twin.then(|| {
                let flipped = Options { scale: !options.scale, ..*options };
                Twin {
                    options: flipped,
                    factor: scale_factor(scale_dim, &flipped),
                    row: vec![0f64; n_k],
                    weights: Vec::with_capacity(n_q * n_k),
                }
            }),
            next: 0,
        })
    }

    /// Query rows in all.
    pub fn rows(&self) -> usize {
        self.n_q
    }

    /// Query rows computed so far.
    pub fn rows_done(&self) -> usize {
        self.next
    }

    /// Computes at least `rows` more query rows (whole blocks of 32), or the
    /// rest; returns whether every row is computed.
    ///
    /// Never inlined: every caller (sentence, teaching views, heads) shares one
    /// copy of the kernel, so the wasm stays small and a warm-up call through any
    /// of them gets the engine to optimize the code all of them run.
    #[inline(never)]
    pub fn advance(&mut self, rows: usize) -> bool {
        let stop = self.next.saturating_add(rows.max(1)).min(self.n_q);
        // Called through a function pointer, which wasm makes an indirect call
        // through the function table (block's doc comment says why).
        let block = std::hint::black_box(Self::block as fn(&mut Self));
        while self.next < stop {
            block(self);
        }
        self.next == self.n_q
    }

    /// Computes the next block of query rows ([`ROWS`], or the rest), every
    /// cell in f64: the dot products, then the scaled scores, then the
    /// weights; the f32 outputs are appended row by row while the row is in
    /// cache. Blocks keep the working set small (cache, and wasm memory, which
    /// never shrinks).
    ///
    /// A function of its own, never inlined, called indirectly: V8 runs new
    /// code on its baseline tier (Liftoff, 2.6 times slower here) until its
    /// optimizing compiler has compiled it in the background, and a call
    /// already running, or a direct call from code compiled before, keeps to
    /// the code it started with; an indirect call goes through the function
    /// table, which points to the optimized code as soon as it is ready. So
    /// the first 1,024-token attention runs optimized after its first dozen
    /// blocks: 41 ms against 64 when made in one call, 23 ms warm
    /// (`scripts/bench-kernel`, Node 20).
    #[inline(never)]
    fn block(&mut self) {
        let (first, n_k, d, d_v) = (self.next, self.n_k, self.d, self.d_v);
        let rows = ROWS.min(self.n_q - first);
        let grid = &mut self.grid[..rows * n_k];
        dot_products(&self.queries[first * d..(first + rows) * d], d, &self.key_tiles, n_k, grid);
        for r in 0..rows {
            let (i, row) = (first + r, &mut grid[r * n_k..(r + 1) * n_k]);
            if let Some(twin) = &mut self.twin {
                // Masked as the row is: the masks do not depend on the factor.
                twin.row.copy_from_slice(row);
                match scale_and_mask(
                    &mut twin.row,
                    twin.factor,
                    i,
                    &self.options,
                    self.key_padding.as_deref(),
                ) {
                    Some(max) => softmax_in_place(&mut twin.row, max),
                    None => twin.row.fill(0.0),
                }
                twin.weights.extend(twin.row.iter().map(|w| *w as f32));
            }
            if let Some(steps) = &mut self.steps {
                steps.scores.extend(row.iter().map(|dot| saturate(*dot)));
            }
            let max = scale_and_mask(row, self.factor, i, &self.options, self.key_padding.as_deref());
            if let Some(steps) = &mut self.steps {
                steps.scaled.extend(row.iter().map(|s| saturate_or_masked(*s)));
            }
            match max {
                Some(max) => softmax_in_place(row, max),
                None => {
                    // Every key is masked (or there are none): no distribution exists.
                    self.fully_masked[i] = true;
                    row.fill(0.0);
                }
            }
            self.weights.extend(row.iter().map(|w| *w as f32));
        }
        if let Some(steps) = &mut self.steps {
            let sums = &mut steps.sums[..rows * d_v];
            weighted_sums(grid, &steps.value64, n_k, d_v, sums);
            steps.context.extend(sums.iter().map(|c| saturate(*c)));
        }
        self.next += rows;
    }

    /// Computes what is left and returns the attention.
    pub fn finish(self) -> Attention {
        self.finish_with_twin().0
    }

    /// Computes what is left and returns the attention and, with
    /// [`Extras::flipped_twin`], the attention with scaling switched the
    /// other way: its weights (and `fully_masked`), the same numbers as a job
    /// of those options gives, and no other steps.
    pub fn finish_with_twin(mut self) -> (Attention, Option<Attention>) {
        self.advance(usize::MAX);
        let twin = self.twin.take().map(|twin| Attention {
            queries: self.n_q,
            keys: self.n_k,
            dim: self.d,
            value_dim: self.d_v,
            factor: twin.factor,
            scores: Vec::new(),
            scaled: Vec::new(),
            weights: twin.weights,
            context: Vec::new(),
            fully_masked: self.fully_masked.clone(),
            options: twin.options,
            key_padding: self.key_padding.clone(),
        });
        let (scores, scaled, context) =
            self.steps.map(|s| (s.scores, s.scaled, s.context)).unwrap_or_default();
        let attention = Attention {
            queries: self.n_q,
            keys: self.n_k,
            dim: self.d,
            value_dim: self.d_v,
            factor: self.factor,
            scores,
            scaled,
            weights: self.weights,
            context,
            fully_masked: self.fully_masked,
            options: self.options,
            key_padding: self.key_padding,
        };
        (attention, twin)
    }
}

/// Query rows per block of [`attend_with`]: `32 × 1,024` f64 cells at most.
const ROWS: usize = 32;

/// Keys per tile: a tile of keys (or of values), `128 × 50` f64 at the page's
/// `d = 50`, stays in cache while every query row of a block uses it.
const TILE: usize = 128;

/// The keys in `f64`, tile by tile ([`TILE`] keys), each tile transposed:
/// tile `t` starts at `t · TILE · d` and holds `(d, keys in the tile)`, row-major,
/// so that a tile is one contiguous block.
fn key_tiles(key: &Matrix) -> Vec<f64> {
    let (n_k, d) = (key.rows, key.cols);
    let mut tiles = Vec::with_capacity(n_k * d);
    for start in (0..n_k).step_by(TILE) {
        let keys = &key.data[start * d..(start + TILE).min(n_k) * d];
        for k in 0..d {
            tiles.extend(keys.chunks_exact(d).map(|key| f64::from(key[k])));
        }
    }
    tiles
}

/// `grid[i][j] = query_i · key_j` in `f64`, `(rows, n_k)`, for the `(rows, d)`
/// `queries`, tile of keys by tile of keys (`tiles` from [`key_tiles`]).
fn dot_products(queries: &[f32], d: usize, tiles: &[f64], n_k: usize, grid: &mut [f64]) {
    if d == 0 || n_k == 0 {
        grid.fill(0.0); // every dot product is the empty sum
        return;
    }
    for start in (0..n_k).step_by(TILE) {
        let end = (start + TILE).min(n_k);
        let tile = &tiles[start * d..end * d];
        for (row, query) in grid.chunks_exact_mut(n_k).zip(queries.chunks_exact(d)) {
            dot_tile(query, tile, &mut row[start..end]);
        }
    }
}

/// `out[j] = query · key_j` for the keys of one transposed tile (`(d, out.len())`):
/// for each dimension `k`, one pass over the tile adds `query[k] · tile[k][j]`,
/// so each dot product is summed in order of `k` (as [`dot`]) while the loop
/// runs across keys, in independent lanes that vectorize. Four dimensions per
/// pass keep the partial sums in registers.
fn dot_tile(query: &[f32], tile: &[f64], out: &mut [f64]) {
    let n = out.len();
    out.fill(0.0);
    let mut rows = tile.chunks_exact(n);
    let mut dims = query.chunks_exact(4);
    for q in &mut dims {
        let (q0, q1, q2, q3) = (f64::from(q[0]), f64::from(q[1]), f64::from(q[2]), f64::from(q[3]));
        let (Some(k0), Some(k1), Some(k2), Some(k3)) = (rows.next(), rows.next(), rows.next(), rows.next())
        else {
            return;
        };
        for j in 0..n {
            out[j] = out[j] + q0 * k0[j] + q1 * k1[j] + q2 * k2[j] + q3 * k3[j];
        }
    }
    for (q, keys) in dims.remainder().iter().zip(rows) {
        let q = f64::from(*q);
        for (o, key) in out.iter_mut().zip(keys) {
            *o += q * key;
        }
    }
}

/// Turns row `i`'s dot products into scaled scores in place, `−∞` where
/// masked, and returns the largest (`None` when every key is masked).
fn scale_and_mask(
    row: &mut [f64],
    factor: f64,
    i: usize,
    options: &Options,
    padding: Option<&[bool]>,
) -> Option<f64> {
    for s in row.iter_mut() {
        *s *= factor;
    }
    if options.causal && i + 1 < row.len() {
        row[i + 1..].fill(f64::NEG_INFINITY);
    }
    if !options.self_attention && i < row.len() {
        row[i] = f64::NEG_INFINITY;
    }
    if let Some(padding) = padding {
        for (s, pad) in row.iter_mut().zip(padding) {
            if *pad {
                *s = f64::NEG_INFINITY;
            }
        }
    }
    // Four running maxima: independent lanes vectorize.
    let mut max = [f64::NEG_INFINITY; 4];
    let chunks = row.chunks_exact(4);
    for s in chunks.remainder() {
        max[0] = if *s > max[0] { *s } else { max[0] };
    }
    for c in chunks {
        for k in 0..4 {
            max[k] = if c[k] > max[k] { c[k] } else { max[k] };
        }
    }
    let max = max[0].max(max[1]).max(max[2].max(max[3]));
    (max > f64::NEG_INFINITY).then_some(max)
}

/// Softmax of a row of scaled scores in place (`max` is the largest, not
/// `−∞`): each becomes its weight, `exp(s − max) / Σ exp(s − max)`.
fn softmax_in_place(row: &mut [f64], max: f64) {
    let mut sum = 0f64;
    for s in row.iter_mut() {
        *s = if *s == f64::NEG_INFINITY { 0.0 } else { exp(*s - max) };
        sum += *s;
    }
    // sum >= 1 because the maximum contributes exp(0) = 1.
    for s in row.iter_mut() {
        *s /= sum;
    }
}

/// `sums[i] = Σ_j weights[i][j] · value_j` in `f64`, `(rows, d_v)`, for the
/// `(rows, n_k)` weights, summed in order of `j`, tile of keys by tile of keys
/// (the tile of values stays in cache while every row uses it).
fn weighted_sums(weights: &[f64], values: &[f64], n_k: usize, d_v: usize, sums: &mut [f64]) {
    sums.fill(0.0);
    if n_k == 0 || d_v == 0 {
        return;
    }
    for start in (0..n_k).step_by(TILE) {
        let end = (start + TILE).min(n_k);
        let tile = &values[start * d_v..end * d_v];
        for (row, acc) in weights.chunks_exact(n_k).zip(sums.chunks_exact_mut(d_v)) {
            accumulate(&row[start..end], tile, acc);
        }
    }
}

/// `acc += Σ_j weights[j] · value_j`, in order of `j`. Four keys per pass over
/// `acc` keep it in registers; a pass whose four weights are all 0 (masked
/// keys, underflowed weights) is skipped, as adding 0 changes nothing.
fn accumulate(weights: &[f64], values: &[f64], acc: &mut [f64]) {
    let d_v = acc.len();
    let mut w4 = weights.chunks_exact(4);
    let mut v4 = values.chunks_exact(4 * d_v);
    for (w, v) in (&mut w4).zip(&mut v4) {
        if w[0] == 0.0 && w[1] == 0.0 && w[2] == 0.0 && w[3] == 0.0 {
            continue;
        }
        let (v0, rest) = v.split_at(d_v);
        let (v1, rest) = rest.split_at(d_v);
        let (v2, v3) = rest.split_at(d_v);
        for c in 0..d_v {
            acc[c] = acc[c] + w[0] * v0[c] + w[1] * v1[c] + w[2] * v2[c] + w[3] * v3[c];
        }
    }
    for (w, v) in w4.remainder().iter().zip(v4.remainder().chunks_exact(d_v)) {
        if *w != 0.0 {
            for (a, v) in acc.iter_mut().zip(v) {
                *a += w * v;
            }
        }
    }
}

/// `(1/√d or 1) / temperature`, the temperature as the decimal it was
/// written as: the `f32` nearest 0.001 is 0.00100000005, whose 1/T made a
/// score of 900 scale to 899999.96 beside "q·k × 1000". The shortest decimal
/// that reads back as the `f32` is the one typed (0.001, 0.3, 1000).
pub fn scale_factor(dim: usize, options: &Options) -> f64 {
    let base = if options.scale && dim > 0 { 1.0 / (dim as f64).sqrt() } else { 1.0 };
    let temperature = options.temperature.to_string().parse().unwrap_or(f64::from(options.temperature));
    base / temperature
}

/// `a · b` of `f32` vectors, accumulated in `f64` in order (the products are
/// exact; the step-by-step panel uses this, and the kernel sums in the same
/// order, so the two print the same numbers).
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).fold(0.0, |sum, (x, y)| sum + f64::from(*x) * f64::from(*y))
}

/// `eˣ` for `x` in `[-700, 700]`, within 0.51 ulp of the true value (as
/// glibc's and musl's `exp`; measured against mpmath on 300,000 inputs), with
/// no call into a math library: inlined in the softmax loop, it makes that loop
/// cheap in WebAssembly, whose `f64::exp` is a slower software routine.
///
/// The method of Arm's optimized routines (glibc's and musl's `exp`), with
/// no fused multiply-add (wasm has none): `x = k·ln2/128 + r` with
/// `|r| ≤ ln2/256`, `eˣ = 2^(k/128) · eʳ`, where `2^(k/128)` is a power of two
/// times a table entry `H·(1 + T)` (the tail `T` carries the bits `H` loses),
/// and `eʳ − 1` a Taylor polynomial of degree 5 (truncation error below 2⁻⁶⁰
/// relative, negligible against 2⁻⁵³). The reduction is exact: `ln2/128` is
/// split in a 36-bit high part (times `k`, `|k| < 2¹⁷`, exactly representable)
/// and a low part.
fn exp_reduced(x: f64) -> f64 {
    // 128/ln2 (0x1.71547652b82fep7); −ln2/128 to 36 bits (-0x1.62e42fefap-8)
    // and the rest (-0x1.cf79abc9e3b3ap-47).
    const INV_LN2_N: f64 = f64::from_bits(0x4067_1547_652b_82fe);
    const NEG_LN2_HI_N: f64 = f64::from_bits(0xbf76_2e42_fefa_0000);
    const NEG_LN2_LO_N: f64 = f64::from_bits(0xbd0c_f79a_bc9e_3b3a);
    // Adding 1.5·2⁵² rounds to an integer, which lands in the low bits.
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let kd = x * INV_LN2_N + SHIFT;
    let ki = kd.to_bits();
    let kd = kd - SHIFT;
    let r = x + kd * NEG_LN2_HI_N + kd * NEG_LN2_LO_N;
    let [tail, bits] = EXP_TABLE[(ki % 128) as usize];
    // 2^(k/128) = 2^(k div 128) · H: the power of two goes into the exponent bits.
    let scale = f64::from_bits(bits.wrapping_add(ki << 45));
    let r2 = r * r;
    let poly =
        f64::from_bits(tail) + r + r2 * (0.5 + r * (1.0 / 6.0)) + r2 * r2 * (1.0 / 24.0 + r * (1.0 / 120.0));
    scale + scale * poly
}

/// `eˣ` for every `x`: [`exp_reduced`] where it holds, `f64::exp` beyond (results
/// below 10⁻³⁰⁴, whose weights print as 0, overflows and NaN: off the hot path).
pub(crate) fn exp(x: f64) -> f64 {
    if (-700.0..=700.0).contains(&x) {
        exp_reduced(x)
    } else {
        x.exp()
    }
}

/// For `i` in `0..128`: the bits of `T` and of `H − i·2⁴⁵` where `H` is
/// `2^(i/128)` rounded to `f64` and `T = (2^(i/128) − H)/H`, rounded. Made
/// with mpmath at 300 bits:
/// `H = float(2**(mpf(i)/128)); T = float((2**(mpf(i)/128) - H) / H)`.
#[rustfmt::skip]
static EXP_TABLE: [[u64; 2]; 128] = [
    [0x0000000000000000, 0x3ff0000000000000],
    [0x3c9b3b4f1a88bf6e, 0x3feff63da9fb3335],
    [0xbc7160139cd8dc5d, 0x3fefec9a3e778061],
    [0xbc905e7a108766d1, 0x3fefe315e86e7f85],
    [0x3c8cd2523567f613, 0x3fefd9b0d3158574],
    [0xbc8bce8023f98efa, 0x3fefd06b29ddf6de],
    [0x3c60f74e61e6c861, 0x3fefc74518759bc8],
    [0x3c90a3e45b33d399, 0x3fefbe3ecac6f383],
    [0x3c979aa65d837b6d, 0x3fefb5586cf9890f],
    [0x3c8eb51a92fdeffc, 0x3fefac922b7247f7],
    [0x3c3ebe3d702f9cd1, 0x3fefa3ec32d3d1a2],
    [0xbc6a033489906e0b, 0x3fef9b66affed31b],
    [0xbc9556522a2fbd0e, 0x3fef9301d0125b51],
    [0xbc5080ef8c4eea55, 0x3fef8abdc06c31cc],
    [0xbc91c923b9d5f416, 0x3fef829aaea92de0],
    [0x3c80d3e3e95c55af, 0x3fef7a98c8a58e51],
    [0xbc801b15eaa59348, 0x3fef72b83c7d517b],
    [0xbc8f1ff055de323d, 0x3fef6af9388c8dea],
    [0x3c8b898c3f1353bf, 0x3fef635beb6fcb75],
    [0xbc96d99c7611eb26, 0x3fef5be084045cd4],
    [0x3c9aecf73e3a2f60, 0x3fef54873168b9aa],
    [0xbc8fe782cb86389d, 0x3fef4d5022fcd91d],
    [0x3c8a6f4144a6c38d, 0x3fef463b88628cd6],
    [0x3c807a05b0e4047d, 0x3fef3f49917ddc96],
    [0x3c968efde3a8a894, 0x3fef387a6e756238],
    [0x3c875e18f274487d, 0x3fef31ce4fb2a63f],
    [0x3c80472b981fe7f2, 0x3fef2b4565e27cdd],
    [0xbc96b87b3f71085e, 0x3fef24dfe1f56381],
    [0x3c82f7e16d09ab31, 0x3fef1e9df51fdee1],
    [0xbc3d219b1a6fbffa, 0x3fef187fd0dad990],
    [0x3c8b3782720c0ab4, 0x3fef1285a6e4030b],
    [0x3c6e149289cecb8f, 0x3fef0cafa93e2f56],
    [0x3c834d754db0abb6, 0x3fef06fe0a31b715],
    [0x3c864201e2ac744c, 0x3fef0170fc4cd831],
    [0x3c8fdd395dd3f84a, 0x3feefc08b26416ff],
    [0xbc86a3803b8e5b04, 0x3feef6c55f929ff1],
    [0xbc924aedcc4b5068, 0x3feef1a7373aa9cb],
    [0xbc9907f81b512d8e, 0x3feeecae6d05d866],
    [0xbc71d1e83e9436d2, 0x3feee7db34e59ff7],
    [0xbc991919b3ce1b15, 0x3feee32dc313a8e5],
    [0x3c859f48a72a4c6d, 0x3feedea64c123422],
    [0xbc9312607a28698a, 0x3feeda4504ac801c],
    [0xbc58a78f4817895b, 0x3feed60a21f72e2a],
    [0xbc7c2c9b67499a1b, 0x3feed1f5d950a897],
    [0x3c4363ed60c2ac11, 0x3feece086061892d],
    [0x3c9666093b0664ef, 0x3feeca41ed1d0057],
    [0x3c6ecce1daa10379, 0x3feec6a2b5c13cd0],
    [0x3c93ff8e3f0f1230, 0x3feec32af0d7d3de],
    [0x3c7690cebb7aafb0, 0x3feebfdad5362a27],
    [0x3c931dbdeb54e077, 0x3feebcb299fddd0d],
    [0xbc8f94340071a38e, 0x3feeb9b2769d2ca7],
    [0xbc87deccdc93a349, 0x3feeb6daa2cf6642],
    [0xbc78dec6bd0f385f, 0x3feeb42b569d4f82],
    [0xbc861246ec7b5cf6, 0x3feeb1a4ca5d920f],
    [0x3c93350518fdd78e, 0x3feeaf4736b527da],
    [0x3c7b98b72f8a9b05, 0x3feead12d497c7fd],
    [0x3c9063e1e21c5409, 0x3feeab07dd485429],
    [0x3c34c7855019c6ea, 0x3feea9268a5946b7],
    [0x3c9432e62b64c035, 0x3feea76f15ad2148],
    [0xbc8ce44a6199769f, 0x3feea5e1b976dc09],
    [0xbc8c33c53bef4da8, 0x3feea47eb03a5585],
    [0xbc845378892be9ae, 0x3feea34634ccc320],
    [0xbc93cedd78565858, 0x3feea23882552225],
    [0x3c5710aa807e1964, 0x3feea155d44ca973],
    [0xbc93b3efbf5e2228, 0x3feea09e667f3bcd],
    [0xbc6a12ad8734b982, 0x3feea012750bdabf],
    [0xbc6367efb86da9ee, 0x3fee9fb23c651a2f],
    [0xbc80dc3d54e08851, 0x3fee9f7df9519484],
    [0xbc781f647e5a3ecf, 0x3fee9f75e8ec5f74],
    [0xbc86ee4ac08b7db0, 0x3fee9f9a48a58174],
    [0xbc8619321e55e68a, 0x3fee9feb564267c9],
    [0x3c909ccb5e09d4d3, 0x3feea0694fde5d3f],
    [0xbc7b32dcb94da51d, 0x3feea11473eb0187],
    [0x3c94ecfd5467c06b, 0x3feea1ed0130c132],
    [0x3c65ebe1abd66c55, 0x3feea2f336cf4e62],
    [0xbc88a1c52fb3cf42, 0x3feea427543e1a12],
    [0xbc9369b6f13b3734, 0x3feea589994cce13],
    [0xbc805e843a19ff1e, 0x3feea71a4623c7ad],
    [0xbc94d450d872576e, 0x3feea8d99b4492ed],
    [0x3c90ad675b0e8a00, 0x3feeaac7d98a6699],
    [0x3c8db72fc1f0eab4, 0x3feeace5422aa0db],
    [0xbc65b6609cc5e7ff, 0x3feeaf3216b5448c],
    [0x3c7bf68359f35f44, 0x3feeb1ae99157736],
    [0xbc93091fa71e3d83, 0x3feeb45b0b91ffc6],
    [0xbc5da9b88b6c1e29, 0x3feeb737b0cdc5e5],
    [0xbc6c23f97c90b959, 0x3feeba44cbc8520f],
    [0xbc92434322f4f9aa, 0x3feebd829fde4e50],
    [0xbc85ca6cd7668e4b, 0x3feec0f170ca07ba],
    [0x3c71affc2b91ce27, 0x3feec49182a3f090],
    [0x3c6dd235e10a73bb, 0x3feec86319e32323],
    [0xbc87c50422622263, 0x3feecc667b5de565],
    [0x3c8b1c86e3e231d5, 0x3feed09bec4a2d33],
    [0xbc91bbd1d3bcbb15, 0x3feed503b23e255d],
    [0x3c90cc319cee31d2, 0x3feed99e1330b358],
    [0x3c8469846e735ab3, 0x3feede6b5579fdbf],
    [0xbc82dfcd978e9db4, 0x3feee36bbfd3f37a],
    [0x3c8c1a7792cb3387, 0x3feee89f995ad3ad],
    [0xbc907b8f4ad1d9fa, 0x3feeee07298db666],
    [0xbc55c3d956dcaeba, 0x3feef3a2b84f15fb],
    [0xbc90a40e3da6f640, 0x3feef9728de5593a],
    [0xbc68d6f438ad9334, 0x3feeff76f2fb5e47],
    [0xbc91eee26b588a35, 0x3fef05b030a1064a],
    [0x3c74ffd70a5fddcd, 0x3fef0c1e904bc1d2],
    [0xbc91bdfbfa9298ac, 0x3fef12c25bd71e09],
    [0x3c736eae30af0cb3, 0x3fef199bdd85529c],
    [0x3c8ee3325c9ffd94, 0x3fef20ab5fffd07a],
    [0x3c84e08fd10959ac, 0x3fef27f12e57d14b],
    [0x3c63cdaf384e1a67, 0x3fef2f6d9406e7b5],
    [0x3c676b2c6c921968, 0x3fef3720dcef9069],
    [0xbc808a1883ccb5d2, 0x3fef3f0b555dc3fa],
    [0xbc8fad5d3ffffa6f, 0x3fef472d4a07897c],
    [0xbc900dae3875a949, 0x3fef4f87080d89f2],
    [0x3c74a385a63d07a7, 0x3fef5818dcfba487],
    [0xbc82919e2040220f, 0x3fef60e316c98398],
    [0x3c8e5a50d5c192ac, 0x3fef69e603db3285],
    [0x3c843a59ac016b4b, 0x3fef7321f301b460],
    [0xbc82d52107b43e1f, 0x3fef7c97337b9b5f],
    [0xbc892ab93b470dc9, 0x3fef864614f5a129],
    [0x3c74b604603a88d3, 0x3fef902ee78b3ff6],
    [0x3c83c5ec519d7271, 0x3fef9a51fbc74c83],
    [0xbc8ff7128fd391f0, 0x3fefa4afa2a490da],
    [0xbc8dae98e223747d, 0x3fefaf482d8e67f1],
    [0x3c8ec3bc41aa2008, 0x3fefba1bee615a27],
    [0x3c842b94c3a9eb32, 0x3fefc52b376bba97],
    [0x3c8a64a931d185ee, 0x3fefd0765b6e4540],
    [0xbc8e37bae43be3ed, 0x3fefdbfdad9cbe14],
    [0x3c77893b4d91cd9d, 0x3fefe7c1819e90d8],
    [0x3c5305c14160cc89, 0x3feff3c22b8f71f1],
];

fn to_f64(m: &Matrix) -> Vec<f64> {
    m.data.iter().map(|v| f64::from(*v)).collect()
}

/// Converts to `f32`, clamping values beyond its range instead of producing ±∞.
fn saturate(x: f64) -> f32 {
    x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32
}

/// A scaled score as `f32`: [`saturate`]d, or `−∞` where masked.
fn saturate_or_masked(x: f64) -> f32 {
    if x == f64::NEG_INFINITY {
        f32::NEG_INFINITY
    } else {
        saturate(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: &[&[f32]]) -> Matrix {
        Matrix::from_rows(rows).unwrap()
    }

    /// A seeded xorshift64*: numbers in [0, 1).
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed;
        move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn ulps(a: f64, b: f64) -> u64 {
        a.to_bits().abs_diff(b.to_bits())
    }

    #[test]
    fn a_job_advanced_in_slices_gives_what_one_call_gives() {
        let mut next = uniform(11);
        let mut matrix = |rows: usize, cols: usize| {
            let data = (0..rows * cols).map(|_| (next() * 4.0 - 2.0) as f32).collect();
            Matrix::new(rows, cols, data).unwrap()
        };
        let (q, kv) = (matrix(77, 9), matrix(70, 9));
        let padding: Vec<bool> = (0..70).map(|j| j % 9 == 4).collect();
        let causal = Options { causal: true, self_attention: false, ..Options::default() };
        for (options, extras) in [
            (Options::default(), Extras::default()),
            (causal, Extras { key_padding: Some(&padding), scale_dim: Some(3), ..Extras::default() }),
        ] {
            let whole = attend_with(&q, &kv, &kv, &options, &extras).unwrap();
            for slice in [1, 5, 32, 33, 76, 500] {
                let mut job = AttentionJob::new(&q, &kv, &kv, &options, &extras).unwrap();
                let mut calls = 0;
                while !job.advance(slice) {
                    calls += 1;
                    assert!(
                        job.rows_done() < job.rows() && job.rows_done() % ROWS == 0,
                        "whole blocks, {slice} at a time"
                    );
                }
                assert_eq!(
                    calls,
                    77usize.div_ceil(slice.div_ceil(ROWS) * ROWS) - 1,
                    "slices of {slice} rows"
                );
                assert_eq!(job.finish(), whole, "slices of {slice} rows");
            }
        }
        // Weights only: the same weights and masks, in one call or in slices, and nothing else.
        for (options, extras) in [
            (Options::default(), Extras::default()),
            (causal, Extras { key_padding: Some(&padding), scale_dim: Some(3), ..Extras::default() }),
        ] {
            let whole = attend_with(&q, &kv, &kv, &options, &extras).unwrap();
            let lean = Extras { weights_only: true, ..extras };
            for slice in [5, 500] {
                let mut job = AttentionJob::new(&q, &kv, &kv, &options, &lean).unwrap();
                while !job.advance(slice) {}
                let only = job.finish();
                assert_eq!(only.weights, whole.weights, "slices of {slice} rows");
                assert_eq!(only.fully_masked, whole.fully_masked);
                assert_eq!(only.masked_cells(), whole.masked_cells());
                assert!(only.scores.is_empty() && only.scaled.is_empty() && only.context.is_empty());
            }
        }
        // The flipped twin: the weights a job with scaling switched the other way gives.
        let hot = Options { temperature: 0.4, ..causal };
        for (options, extras) in [
            (Options::default(), Extras::default()),
            (
                Options { scale: false, ..Options::default() },
                Extras { weights_only: true, ..Extras::default() },
            ),
            (hot, Extras { key_padding: Some(&padding), scale_dim: Some(3), ..Extras::default() }),
        ] {
            let flipped = Options { scale: !options.scale, ..options };
            let other = attend_with(&q, &kv, &kv, &flipped, &extras).unwrap();
            let mut job =
                AttentionJob::new(&q, &kv, &kv, &options, &Extras { flipped_twin: true, ..extras }).unwrap();
            while !job.advance(33) {}
            let (attention, twin) = job.finish_with_twin();
            assert_eq!(
                attention,
                attend_with(&q, &kv, &kv, &options, &extras).unwrap(),
                "the attention itself is as without a twin"
            );
            let twin = twin.unwrap();
            assert_eq!((&twin.weights, twin.factor, twin.options), (&other.weights, other.factor, flipped));
            assert_eq!(twin.fully_masked, other.fully_masked);
            assert_eq!(twin.masked_cells(), other.masked_cells());
            assert!(twin.scores.is_empty() && twin.scaled.is_empty() && twin.context.is_empty());
        }
        let plain = AttentionJob::new(&q, &kv, &kv, &Options::default(), &Extras::default()).unwrap();
        assert!(plain.finish_with_twin().1.is_none(), "no twin unless asked for");
        // A job of no queries is done before it starts.
        let none = Matrix::new(0, 9, Vec::new()).unwrap();
        assert!(AttentionJob::new(&none, &kv, &kv, &Options::default(), &Extras::default())
            .unwrap()
            .advance(1));
    }

    #[test]
    fn exp_table_holds_the_powers_of_two() {
        for (i, [tail, bits]) in EXP_TABLE.iter().enumerate() {
            let high = f64::from_bits(bits + ((i as u64) << 45));
            assert_eq!(high, (i as f64 / 128.0).exp2(), "entry {i}");
            assert!(f64::from_bits(*tail).abs() <= f64::EPSILON / 2.0, "entry {i}");
        }
    }

    #[test]
    fn exp_agrees_with_the_math_library() {
        // Within 1 ulp everywhere (both are within 0.51 ulp of eˣ), and equal on
        // nearly every input (glibc's fused multiply-adds round differently),
        // in the softmax's range (x <= 0) and beyond.
        let mut next = uniform(7);
        let (mut equal, mut total) = (0, 0);
        let mut samples: Vec<f64> = (0..220_000)
            .map(|n| if n % 11 == 0 { 710.0 * next() } else { -745.0 * next().powi(3) })
            .collect();
        samples.extend([
            0.0,
            -0.0,
            -1e-300,
            1e-300,
            -700.0,
            700.0,
            -700.1,
            -708.0,
            709.0,
            -745.2,
            709.8,
            f64::NEG_INFINITY,
        ]);
        for x in samples {
            let (got, want) = (exp(x), x.exp());
            assert!(ulps(got, want) <= 1, "exp({x:e}) = {got:e}, the library says {want:e}");
            equal += usize::from(got == want);
            total += 1;
        }
        assert!(equal * 1000 >= total * 995, "{equal} of {total} equal");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(f64::NAN).is_nan() && exp(f64::INFINITY) == f64::INFINITY);
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
    fn the_scale_factor_divides_by_the_temperature_as_typed() {
        let at = |temperature| scale_factor(4, &Options { temperature, ..Options::default() });
        assert_eq!(at(0.001), 0.5 / 0.001);
        assert_eq!(at(0.3), 0.5 / 0.3);
        assert_eq!(at(2.0), 0.25);
        assert_eq!(
            scale_factor(4, &Options { scale: false, temperature: 0.001, ..Options::default() }),
            1000.0
        );
    }

    #[test]
    fn typed_matrices_parse_in_every_usual_notation() {
        let expected = m(&[&[2.0, 3.0], &[1.0, 2.0]]);
        for text in ["2 3; 1 2", "[[2, 3], [1, 2]]", "2,3\n1,2", " [2 3]\n[1 2] "] {
            assert_eq!(Matrix::parse(text).unwrap(), expected, "{text:?}");
        }
        assert_eq!(Matrix::parse("[2, 3]").unwrap(), m(&[&[2.0, 3.0]]));
        // The typeset minus sign (U+2212) of a pasted tutorial.
        assert_eq!(Matrix::parse("\u{2212}3 2; 1 \u{2212}0.5").unwrap(), m(&[&[-3.0, 2.0], &[1.0, -0.5]]));
        assert_eq!(Matrix::parse("2 x").unwrap_err().to_string(), "row 1: 'x' is not a number");
        // A pasted run of junk is quoted short.
        let junk = format!("1 {}", "x".repeat(4000));
        assert_eq!(
            Matrix::parse(&junk).unwrap_err().to_string(),
            format!("row 1: '{}…' is not a number", "x".repeat(40))
        );
        assert!(Matrix::parse("1 2; 3")
            .unwrap_err()
            .to_string()
            .contains("row 2 has 1 number but row 1 has 2"));
        assert!(Matrix::parse(" ; ").is_err());
        // A number past what 32-bit floats hold is named as too large, not as no number.
        assert_eq!(
            Matrix::parse("1 1e39").unwrap_err().to_string(),
            "row 1: '1e39' is beyond ±3.4e38, the range of 32-bit numbers"
        );
        assert_eq!(
            Matrix::parse("1 -1e999").unwrap_err().to_string(),
            "row 1: '-1e999' is beyond ±3.4e38, the range of 32-bit numbers"
        );
        for word in ["inf", "-Infinity", "NaN"] {
            assert_eq!(
                Matrix::parse(word).unwrap_err().to_string(),
                format!("row 1: '{word}' is not a number")
            );
        }
    }

    #[test]
    fn matmul_and_columns() {
        let a = m(&[&[1.0, 2.0], &[3.0, 4.0]]);
        let b = m(&[&[5.0], &[6.0]]);
        assert_eq!(a.matmul(&b).unwrap(), m(&[&[17.0], &[39.0]]));
        assert!(b.matmul(&b).is_err());
        assert_eq!(a.columns(1..2), m(&[&[2.0], &[4.0]]));
    }

    /// 1e38 is a valid f32, but 1e38 · 1e38 is not: the product is refused
    /// (it once became ∞, then NaN in the softmax), and attention over such
    /// numbers typed directly stays finite.
    #[test]
    fn a_product_beyond_f32_is_refused_and_huge_inputs_give_finite_weights() {
        let huge = Matrix::parse("1e38 1e38; 1 1").unwrap();
        let err = huge.matmul(&Matrix::parse("1e38; 1").unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "row 1, column 1 of the product is 1.0e76, beyond the ±3.4e38 of a 32-bit float: use smaller numbers"
        );
        let near = Matrix::parse("3e38 3e38; 3e38 -3e38").unwrap();
        assert!(near.matmul(&Matrix::parse("1 1; 1 1").unwrap()).is_err(), "3e38 + 3e38 overflows too");
        let a = attend(&huge, &huge, &huge, &Options::default()).unwrap();
        assert!(a.weights.iter().all(|w| w.is_finite()), "{:?}", a.weights);
        assert!(a.context.iter().all(|c| c.is_finite()), "{:?}", a.context);
        for row in a.weights.chunks(2) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn shapes_must_fit() {
        let q = m(&[&[1.0, 2.0]]);
        let k = m(&[&[1.0, 2.0, 3.0]]);
        assert!(matches!(attend(&q, &k, &k, &Options::default()), Err(Error::Shape(_))));
        // Counts are said in words that agree with them.
        let one = m(&[&[1.0]]);
        let said = |q: &Matrix, k: &Matrix, v: &Matrix| {
            attend(q, k, v, &Options::default()).unwrap_err().to_string()
        };
        assert_eq!(said(&one, &k, &k), "matrix shapes do not fit: queries have 1 dimension, keys have 3");
        assert_eq!(said(&q, &k, &k), "matrix shapes do not fit: queries have 2 dimensions, keys have 3");
        assert_eq!(said(&one, &one, &m(&[&[1.0], &[2.0]])), "matrix shapes do not fit: 1 key but 2 values");
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
