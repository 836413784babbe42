//! The BERT encoder forward pass, returning every attention head.
//!
//! Shapes and conventions (n = pieces, h = hidden, a = heads, d = h / a,
//! i = intermediate; every matrix row-major f32):
//!
//! ```text
//! x = LayerNorm(word[id] + position[t] + token_type[0])            x: (n, h)
//! per layer:
//!   q, k, v = x·Wqᵀ + bq, x·Wkᵀ + bk, x·Wvᵀ + bv                    (n, h); head j owns columns j·d .. (j+1)·d
//!   p_j = softmax(q_j·k_jᵀ / √d)                                    (n, n): row = query piece, column = key piece, rows sum to 1
//!   x = LayerNorm(x + concat_j(p_j·v_j)·Woᵀ + bo)
//!   x = LayerNorm(x + gelu(x·W1ᵀ + b1)·W2ᵀ + b2)                   W1: (i, h), W2: (h, i), gelu(t) = t/2·(1 + erf(t/√2))
//! ```
//!
//! No mask: a single sentence has no padding, every piece sees every piece.
//!
//! The word-embedding table arrives in shards (see [`crate::format`]): a
//! model made from the core file alone tokenizes and knows which shards a
//! sentence needs ([`Model::missing_shards`]); it runs once those are added
//! ([`Model::add_shard`]).

use crate::error::{invalid, Error, Result};
use crate::format::{self, Config, ShardLayout, Stored};
use crate::internals::Projections;
use crate::wordpiece::{Piece, WordPiece};

/// The most numbers (f32) one run may hold; see [`Model::max_pieces`]. 2²⁷
/// numbers are 512 MiB, an eighth of what a wasm32 module can address.
pub const MAX_RUN_VALUES: usize = 1 << 27;

/// A loaded model: configuration, tokenizer and weights, with the
/// word-embedding shards added so far.
#[derive(Debug, Clone)]
pub struct Model {
    config: Config,
    tokenizer: WordPiece,
    layout: ShardLayout,
    /// Shard `k`'s rows, once added.
    word_embeddings: Vec<Option<Stored>>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

#[derive(Debug, Clone)]
struct Linear {
    /// (out, in), like PyTorch's `Linear`.
    weight: Vec<f32>,
    bias: Vec<f32>,
}

#[derive(Debug, Clone)]
struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

#[derive(Debug, Clone)]
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    mlp_output: Linear,
    output_norm: Norm,
}

/// The output of [`Model::run`]: every head's attention and the last hidden states.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoding {
    /// Pieces in the sequence.
    pub n: usize,
    /// Shape (layers, heads, n, n), row-major: `attention[((l·heads + a)·n + i)·n + j]`
    /// is how much query piece `i` attends to key piece `j` in layer `l`, head `a`.
    pub attention: Vec<f32>,
    /// Shape (n, hidden): the output of the last layer.
    pub hidden: Vec<f32>,
}

/// The attention of every layer and head over a tokenized sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelAttention {
    /// The sentence as given.
    pub text: String,
    /// Its pieces, `[CLS]` first and `[SEP]` last; `n = pieces.len()`.
    pub pieces: Vec<Piece>,
    /// Layers of the model.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Shape (layers, heads, n, n), row-major; every row sums to 1. See [`Encoding::attention`].
    pub weights: Vec<f32>,
}

impl Model {
    /// Loads a core file (see [`crate::format`]): everything but the word
    /// embeddings, which come with [`Model::add_shard`]. Malformed or
    /// truncated files get [`Error::InvalidModel`], never a panic.
    pub fn from_core(core: &[u8]) -> Result<Self> {
        let decoded = format::decode(core)?;
        let tokenizer = WordPiece::new(decoded.vocab)?;
        let mut tensors = decoded.tensors;
        let mut take = |name: &str| {
            tensors.remove(name).ok_or_else(|| invalid(format!("the tensor '{name}' is missing")))
        };
        let mut linear = |name: &str| -> Result<Linear> {
            Ok(Linear { weight: take(&format!("{name}.weight"))?, bias: take(&format!("{name}.bias"))? })
        };
        let norm = |l: Linear| Norm { weight: l.weight, bias: l.bias };
        let embedding_norm = norm(linear("embeddings.LayerNorm")?);
        let mut layers = Vec::with_capacity(decoded.config.layers);
        for n in 0..decoded.config.layers {
            let p = format!("encoder.layer.{n}.");
            layers.push(Layer {
                query: linear(&format!("{p}attention.self.query"))?,
                key: linear(&format!("{p}attention.self.key"))?,
                value: linear(&format!("{p}attention.self.value"))?,
                output: linear(&format!("{p}attention.output.dense"))?,
                attention_norm: norm(linear(&format!("{p}attention.output.LayerNorm"))?),
                intermediate: linear(&format!("{p}intermediate.dense"))?,
                mlp_output: linear(&format!("{p}output.dense"))?,
                output_norm: norm(linear(&format!("{p}output.LayerNorm"))?),
            });
        }
        let position = take("embeddings.position_embeddings.weight")?;
        let token_type = take("embeddings.token_type_embeddings.weight")?;
        Ok(Model {
            config: decoded.config,
            tokenizer,
            word_embeddings: vec![None; decoded.shards.checksums.len()],
            layout: decoded.shards,
            position,
            token_type,
            embedding_norm,
            layers,
        })
    }

    /// Adds one word-embedding shard file, and returns its index. The shard
    /// must belong to this core: index, first row, row count, dimension and
    /// dtype as the core implies, and the checksum the core lists (so a shard
    /// from another model or another build is refused). Adding a shard twice
    /// is harmless. Malformed shards get [`Error::InvalidModel`], never a panic.
    pub fn add_shard(&mut self, bytes: &[u8]) -> Result<usize> {
        let shard = format::decode_shard(bytes)?;
        let (k, count, rows_per_shard) = (shard.index, self.embedding_shards(), self.layout.rows_per_shard);
        let refuse =
            |why: String| Err(invalid(format!("embedding shard {k} does not belong to this model: {why}")));
        if k >= count {
            return refuse(format!("the model has {count} shards"));
        }
        let first_row = k * rows_per_shard;
        let rows = rows_per_shard.min(self.config.vocab_size - first_row);
        if (shard.first_row, shard.rows) != (first_row, rows) {
            return refuse(format!(
                "it holds rows {}..{}, the model expects {first_row}..{}",
                shard.first_row,
                shard.first_row + shard.rows,
                first_row + rows
            ));
        }
        if shard.dim != self.config.hidden {
            return refuse(format!(
                "its vectors have {} dimensions, the model {}",
                shard.dim, self.config.hidden
            ));
        }
        if shard.dtype != self.layout.dtype {
            return refuse(format!(
                "it is stored as {:?}, the model's as {:?}",
                shard.dtype, self.layout.dtype
            ));
        }
        if format::checksum(bytes) != self.layout.checksums[k] {
            return refuse(
                "its checksum differs from the one the core lists (a file of another build?)".into(),
            );
        }
        self.word_embeddings[k] = Some(shard.data);
        Ok(k)
    }

    /// How the core says the word embeddings are sharded.
    pub(crate) fn shard_layout(&self) -> &ShardLayout {
        &self.layout
    }

    /// How many word-embedding shards the model has (954 for MiniLM).
    pub fn embedding_shards(&self) -> usize {
        self.word_embeddings.len()
    }

    /// Rows of the word-embedding table per shard (32 for MiniLM): piece id
    /// `i` is in shard `i / rows_per_shard`.
    pub fn rows_per_shard(&self) -> usize {
        self.layout.rows_per_shard
    }

    /// The shards that running these piece ids needs and that have not been
    /// added yet, in increasing order, without repeats. Ids outside the
    /// vocabulary are ignored (running them fails anyway).
    pub fn missing_shards(&self, ids: &[u32]) -> Vec<usize> {
        let mut missing: Vec<usize> = ids
            .iter()
            .map(|id| *id as usize / self.layout.rows_per_shard)
            .filter(|k| matches!(self.word_embeddings.get(*k), Some(None)))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// The model's shape.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The model's tokenizer.
    pub fn tokenizer(&self) -> &WordPiece {
        &self.tokenizer
    }

    /// Splits a sentence into pieces, `[CLS]` first and `[SEP]` last.
    pub fn tokenize(&self, text: &str) -> Vec<Piece> {
        self.tokenizer.tokenize(text)
    }

    /// Tokenizes `text` and runs the encoder: the attention of every layer and
    /// head. Fails only when the sentence has more pieces than the model
    /// runs ([`Model::max_pieces`], [`Error::TooLong`]), or when it needs
    /// word-embedding shards not added yet ([`Error::MissingShards`]).
    pub fn attention(&self, text: &str) -> Result<ModelAttention> {
        let pieces = self.tokenize(text);
        let ids: Vec<u32> = pieces.iter().map(|p| p.id).collect();
        let encoding = self.run(&ids)?;
        Ok(ModelAttention {
            text: text.to_owned(),
            pieces,
            layers: self.config.layers,
            heads: self.config.heads,
            weights: encoding.attention,
        })
    }

    /// The longest sequence, in pieces, this model runs: its `max_positions`
    /// (512 for MiniLM), or fewer if a run would hold more than
    /// [`MAX_RUN_VALUES`] numbers: half of them for the attention of every
    /// layer and head (layers·heads·n²), half for the per-piece buffers
    /// (n·(6·hidden + intermediate)). A model of many small heads or a wide
    /// MLP in a small file thus gets a clear [`Error::TooLong`], not an
    /// allocation failure. MiniLM at 512 pieces holds 18.9 million + 2 million.
    pub fn max_pieces(&self) -> usize {
        let Config { layers, heads, hidden, intermediate, max_positions, .. } = self.config;
        let half = MAX_RUN_VALUES / 2;
        // ⌊√(half / (layers·heads))⌋: exact in f64, the numbers are below 2⁵³.
        let by_attention = ((half / (layers * heads).max(1)) as f64).sqrt().floor() as usize;
        let by_buffers = half / (6 * hidden + intermediate).max(1);
        max_positions.min(by_attention).min(by_buffers)
    }

    /// Runs the encoder on piece ids (add `[CLS]` and `[SEP]` yourself).
    /// Ids must be below `vocab_size`, there must be 1 to [`Model::max_pieces`]
    /// of them, and their shards must have been added ([`Error::MissingShards`]).
    pub fn run(&self, ids: &[u32]) -> Result<Encoding> {
        // The plain pass keeps nothing: the hook is empty and compiles away.
        self.forward(ids, self.layers.len(), |_, _| {})
    }

    /// Runs the encoder on `ids` through layer `last` only (counted from 0),
    /// and keeps that layer's projected queries, keys and values: what
    /// [`Projections::head_details`] and [`Projections::project_head`] read.
    /// Costs at most one [`Model::run`]; the plain run keeps nothing.
    pub fn layer_projections(&self, ids: &[u32], last: usize) -> Result<Projections> {
        let layers = self.layers.len();
        if last >= layers {
            return Err(Error::OutOfRange(format!(
                "layer {last} does not exist: this model has layers 0 to {}",
                layers - 1
            )));
        }
        let mut kept = None;
        let encoding = self.forward(ids, last + 1, |layer, step| {
            if layer == last {
                kept = Some((step.q.to_vec(), step.k.to_vec(), step.v.to_vec()));
            }
        })?;
        let (q, k, v) = kept.ok_or_else(|| invalid("the layer was not reached"))?;
        let heads = self.config.heads;
        Ok(Projections { layer: last, n: encoding.n, heads, head_dim: self.config.hidden / heads, q, k, v })
    }

    /// The forward pass through the first `layers` layers. `keep(l, step)`
    /// sees layer `l`'s projections right after they are computed. The
    /// returned attention holds those layers only; `hidden` is the output of
    /// the last of them.
    fn forward(&self, ids: &[u32], layers: usize, mut keep: impl FnMut(usize, Step<'_>)) -> Result<Encoding> {
        let Config { hidden: h, heads, intermediate, vocab_size, layer_norm_eps: eps, .. } = self.config;
        let n = ids.len();
        let max = self.max_pieces();
        if n > max {
            return Err(Error::TooLong { pieces: n, max });
        }
        if n == 0 {
            return Err(invalid("an empty sequence has no attention"));
        }
        if let Some(id) = ids.iter().find(|id| **id as usize >= vocab_size) {
            return Err(invalid(format!("piece id {id} is outside the vocabulary of {vocab_size}")));
        }
        let missing = self.missing_shards(ids);
        if !missing.is_empty() {
            return Err(Error::MissingShards(missing));
        }
        let rows_per_shard = self.layout.rows_per_shard;
        let mut x = vec![0f32; n * h];
        for (t, (row, id)) in x.chunks_exact_mut(h).zip(ids).enumerate() {
            let (shard, offset) = (*id as usize / rows_per_shard, *id as usize % rows_per_shard);
            if let Some(Some(table)) = self.word_embeddings.get(shard) {
                table.add_row(offset, h, row);
            }
            row.iter_mut().zip(&self.position[t * h..(t + 1) * h]).for_each(|(o, p)| *o += p);
            row.iter_mut().zip(&self.token_type[..h]).for_each(|(o, p)| *o += p);
        }
        layer_norm(&mut x, &self.embedding_norm, eps);

        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        let layers = &self.layers[..layers.min(self.layers.len())];
        let mut attention = vec![0f32; layers.len() * heads * n * n];
        let (mut q, mut k, mut v) = (vec![0f32; n * h], vec![0f32; n * h], vec![0f32; n * h]);
        let mut context = vec![0f32; n * h];
        let mut projected = vec![0f32; n * h];
        let mut inner = vec![0f32; n * intermediate];
        for (l, (layer, weights)) in layers.iter().zip(attention.chunks_exact_mut(heads * n * n)).enumerate()
        {
            linear(&x, &layer.query, &mut q);
            linear(&x, &layer.key, &mut k);
            linear(&x, &layer.value, &mut v);
            keep(l, Step { q: &q, k: &k, v: &v });
            context.fill(0.0);
            for (a, probs) in weights.chunks_exact_mut(n * n).enumerate() {
                let cols = a * d..(a + 1) * d;
                for i in 0..n {
                    let row = &mut probs[i * n..(i + 1) * n];
                    let qi = &q[i * h..][cols.clone()];
                    for (j, p) in row.iter_mut().enumerate() {
                        *p = dot(qi, &k[j * h..][cols.clone()]) * scale;
                    }
                    softmax(row);
                    let ci = &mut context[i * h..][cols.clone()];
                    for (j, p) in row.iter().enumerate() {
                        ci.iter_mut().zip(&v[j * h..][cols.clone()]).for_each(|(c, vj)| *c += p * vj);
                    }
                }
            }
            linear(&context, &layer.output, &mut projected);
            x.iter_mut().zip(&projected).for_each(|(a, b)| *a += b);
            layer_norm(&mut x, &layer.attention_norm, eps);

            linear(&x, &layer.intermediate, &mut inner);
            inner.iter_mut().for_each(|t| *t = gelu(*t));
            linear(&inner, &layer.mlp_output, &mut projected);
            x.iter_mut().zip(&projected).for_each(|(a, b)| *a += b);
            layer_norm(&mut x, &layer.output_norm, eps);
        }
        Ok(Encoding { n, attention, hidden: x })
    }
}

/// One layer's projections as the forward pass computes them, each (n, hidden).
#[derive(Debug, Clone, Copy)]
struct Step<'a> {
    q: &'a [f32],
    k: &'a [f32],
    v: &'a [f32],
}

impl ModelAttention {
    /// Number of pieces.
    pub fn n(&self) -> usize {
        self.pieces.len()
    }

    /// The (n, n) weights of one head, row-major, or `None` if out of range.
    pub fn head(&self, layer: usize, head: usize) -> Option<&[f32]> {
        head_block(&self.weights, self.layers, self.heads, self.n(), layer, head)
    }
}

/// The `(n, n)` block of head `head` in layer `layer` of a row-major
/// `(layers, heads, n, n)` tensor, or `None` if either is out of range.
pub fn head_block(
    weights: &[f32],
    layers: usize,
    heads: usize,
    n: usize,
    layer: usize,
    head: usize,
) -> Option<&[f32]> {
    if layer >= layers || head >= heads {
        return None;
    }
    let nn = n * n;
    let at = (layer * heads + head) * nn;
    weights.get(at..at + nn)
}

/// `out = x·Wᵀ + b` for every row of `x`: x (n, in), W (out, in), out (n, out).
fn linear(x: &[f32], layer: &Linear, out: &mut [f32]) {
    let out_dim = layer.bias.len();
    let in_dim = layer.weight.len() / out_dim;
    // Weight rows outside, pieces inside: each weight row is read once and
    // the pieces (at most 512 × 4 KB) stay in cache.
    for (o, (w, b)) in layer.weight.chunks_exact(in_dim).zip(&layer.bias).enumerate() {
        for (t, xt) in x.chunks_exact(in_dim).enumerate() {
            out[t * out_dim + o] = b + dot(xt, w);
        }
    }
}

/// A dot product with eight independent sums, so the compiler can vectorize it.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a8.zip(b8) {
        for k in 0..8 {
            sums[k] += x[k] * y[k];
        }
    }
    sums.iter().sum::<f32>() + tail
}

pub(crate) fn softmax(row: &mut [f32]) {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
    let mut total = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        total += *v;
    }
    row.iter_mut().for_each(|v| *v /= total);
}

/// LayerNorm over each row of `x` (rows of `norm.weight.len()`).
fn layer_norm(x: &mut [f32], norm: &Norm, eps: f32) {
    let h = norm.weight.len();
    for row in x.chunks_exact_mut(h) {
        let mean = row.iter().sum::<f32>() / h as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *v = (*v - mean) * inv * w + b;
        }
    }
}

/// GELU with the exact erf form that BERT uses.
fn gelu(t: f32) -> f32 {
    0.5 * t * (1.0 + erf(t / std::f32::consts::SQRT_2))
}

/// erf to within 1.2e-7 (Numerical Recipes' `erfc` Chebyshev fit, in f64).
fn erf(x: f32) -> f32 {
    let x = f64::from(x);
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    (if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, expected) in
            [(0.0, 0.0), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (-2.0, -0.995_322_3), (4.0, 0.999_999_98)]
        {
            assert!((erf(x) - expected).abs() < 2e-7, "erf({x}) = {} vs {expected}", erf(x));
        }
    }

    #[test]
    fn dot_handles_tails() {
        let a: Vec<f32> = (0..13).map(|i| i as f32).collect();
        let b = vec![2f32; 13];
        assert_eq!(dot(&a, &b), 156.0);
    }

    #[test]
    fn softmax_rows_sum_to_one() {
        let mut row = [1000.0, 1001.0, -5.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[1] > row[0] && row[2] < 1e-6);
    }
}
