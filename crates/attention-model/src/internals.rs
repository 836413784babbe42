//! Inside one head: the queries, keys and values a layer projected, and what
//! one head computes from them for one query piece — the step panels of the
//! GloVe view, for a trained head.
//!
//! Shapes and conventions (n = pieces, h = hidden, a = heads, d = h / a; every
//! matrix row-major f32; head `j` owns columns `j·d .. (j+1)·d` of q, k, v):
//!
//! ```text
//! q, k, v                       (n, h)   the layer's projections, after the bias
//! q_j, k_j, v_j                 (n, d)   head j's slices
//! scores[t]  = q_j[i] · k_j[t]  (n)      for the query piece i
//! scaled[t]  = scores[t] · 1/√d (n)
//! weights    = softmax(scaled)  (n)      equal, bit for bit, to the attention the forward pass returns
//! context    = Σ_t weights[t]·v_j[t]  (d)
//! ```
//!
//! [`crate::Model::layer_projections`] runs the encoder up to the layer and
//! keeps these; the plain forward pass keeps nothing. The numbers are
//! computed with the forward pass's own `dot` and `softmax`, in the same
//! order, so they are the same numbers, not a re-derivation.

use crate::error::{Error, Result};
use crate::model::{dot, softmax};
use crate::pca::{pca_2d, Pca};

/// One layer's queries, keys and values for a sentence, from
/// [`crate::Model::layer_projections`].
#[derive(Debug, Clone, PartialEq)]
pub struct Projections {
    /// The layer, counted from 0.
    pub layer: usize,
    /// Pieces in the sequence.
    pub n: usize,
    /// Heads of the layer.
    pub heads: usize,
    /// Dimensions per head, `d = hidden / heads` (384 / 12 = 32 for MiniLM).
    pub head_dim: usize,
    /// Queries `(n, hidden)`: `x·Wqᵀ + bq`.
    pub q: Vec<f32>,
    /// Keys `(n, hidden)`.
    pub k: Vec<f32>,
    /// Values `(n, hidden)`.
    pub v: Vec<f32>,
}

/// What one head computes for one query piece: the panels of a GloVe row,
/// for a trained head. See the module documentation for the formulas.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadDetails {
    /// The layer, counted from 0.
    pub layer: usize,
    /// The head, counted from 0.
    pub head: usize,
    /// The query piece (an index into the pieces, `[CLS]` = 0).
    pub query: usize,
    /// Pieces in the sequence.
    pub n: usize,
    /// Dimensions of the head (32 for MiniLM).
    pub dim: usize,
    /// `(n, d)`: the head's query vector of every piece.
    pub queries: Vec<f32>,
    /// `(n, d)`: the head's key vector of every piece.
    pub keys: Vec<f32>,
    /// `(n, d)`: the head's value vector of every piece.
    pub values: Vec<f32>,
    /// `(n)`: `q[query] · k[t]`, the raw scores.
    pub scores: Vec<f32>,
    /// `1/√d` (1/√32 ≈ 0.1768 for MiniLM).
    pub scale: f32,
    /// `(n)`: `scores · scale`.
    pub scaled: Vec<f32>,
    /// `(n)`: `softmax(scaled)`, the attention of the query piece; sums to 1.
    pub weights: Vec<f32>,
    /// `(d)`: `Σ_t weights[t] · v[t]`, what the head passes on for the query.
    pub context: Vec<f32>,
}

/// One head's queries and keys in one common 2-D space (PCA over both, see
/// [`crate::pca`]), for a picture of which queries meet which keys.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadProjection {
    /// The layer, counted from 0.
    pub layer: usize,
    /// The head, counted from 0.
    pub head: usize,
    /// Pieces in the sequence.
    pub n: usize,
    /// `(2n, 2)`: rows `0..n` are the pieces' queries, rows `n..2n` their keys.
    pub points: Vec<f32>,
    /// The two axes in the head's space, `(2, d)`, unit length (or zero when
    /// the points span fewer dimensions).
    pub axes: Vec<f32>,
    /// The share of the total variance each axis explains, in `[0, 1]`.
    pub explained: [f32; 2],
}

impl Projections {
    /// The `(n, d)` slice of head `head` of a `(n, hidden)` matrix.
    fn head_slice(&self, matrix: &[f32], head: usize) -> Vec<f32> {
        let (h, d) = (self.heads * self.head_dim, self.head_dim);
        matrix.chunks_exact(h).flat_map(|row| &row[head * d..(head + 1) * d]).copied().collect()
    }

    fn check_head(&self, head: usize) -> Result<()> {
        if head >= self.heads {
            return Err(Error::OutOfRange(format!(
                "head {head} does not exist: layer {} has heads 0 to {}",
                self.layer,
                self.heads - 1
            )));
        }
        Ok(())
    }

    /// Head `head`'s query, key and value vectors, each `(n, d)`.
    pub fn head_vectors(&self, head: usize) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
        self.check_head(head)?;
        Ok((self.head_slice(&self.q, head), self.head_slice(&self.k, head), self.head_slice(&self.v, head)))
    }

    /// What head `head` computes for the query piece `query` (see the
    /// module documentation). Its `weights` are the row the forward pass
    /// returns for this layer, head and query, exactly.
    pub fn head_details(&self, head: usize, query: usize) -> Result<HeadDetails> {
        let (queries, keys, values) = self.head_vectors(head)?;
        let (n, d) = (self.n, self.head_dim);
        if query >= n {
            return Err(Error::OutOfRange(format!(
                "query {query} does not exist: the sentence has pieces 0 to {} ([CLS] and [SEP] included)",
                n - 1
            )));
        }
        // As the forward pass does it: the same `dot`, scale and `softmax`.
        let scale = 1.0 / (d as f32).sqrt();
        let q = &queries[query * d..(query + 1) * d];
        let scores: Vec<f32> = keys.chunks_exact(d).map(|k| dot(q, k)).collect();
        let scaled: Vec<f32> = scores.iter().map(|s| s * scale).collect();
        let mut weights = scaled.clone();
        softmax(&mut weights);
        let mut context = vec![0f32; d];
        for (w, v) in weights.iter().zip(values.chunks_exact(d)) {
            context.iter_mut().zip(v).for_each(|(c, vj)| *c += w * vj);
        }
        Ok(HeadDetails {
            layer: self.layer,
            head,
            query,
            n,
            dim: d,
            queries,
            keys,
            values,
            scores,
            scale,
            scaled,
            weights,
            context,
        })
    }

    /// Head `head`'s queries and keys of every piece projected in one 2-D
    /// space: PCA over the union of the 2n vectors, centred (see [`crate::pca`]).
    pub fn project_head(&self, head: usize) -> Result<HeadProjection> {
        let (mut rows, keys, _) = self.head_vectors(head)?;
        rows.extend_from_slice(&keys);
        let Pca { axes, points, explained } = pca_2d(&rows, self.head_dim)?;
        Ok(HeadProjection { layer: self.layer, head, n: self.n, points, axes, explained })
    }
}

impl HeadDetails {
    /// `(d)`: the query piece's query vector.
    pub fn query_vector(&self) -> &[f32] {
        &self.queries[self.query * self.dim..(self.query + 1) * self.dim]
    }

    /// `(d)`: key piece `key`'s key vector, or `None` if out of range.
    pub fn key_vector(&self, key: usize) -> Option<&[f32]> {
        self.keys.get(key * self.dim..(key + 1) * self.dim)
    }

    /// `(d)`: the terms `q[t]·k[t]` of the score of key piece `key`; they
    /// sum to `scores[key]` (up to the order of the float additions).
    pub fn terms(&self, key: usize) -> Option<Vec<f32>> {
        let k = self.key_vector(key)?;
        Some(self.query_vector().iter().zip(k).map(|(q, k)| q * k).collect())
    }
}
