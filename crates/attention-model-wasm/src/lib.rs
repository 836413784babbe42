//! The WebAssembly boundary of the trained-model view. It is its own wasm
//! module, loaded by a Web Worker (`www/js/model-worker.js`) only when the
//! model view opens, so the page's first load does not pay for it and a
//! forward pass never blocks the main thread.
//!
//! - [`ModelSession::new`] reads the core file (`minilm-core.aebm`, 22 MB)
//!   once; it tokenizes but holds no word embeddings yet.
//! - [`ModelSession::missing_shards`] (`missingShards` in JavaScript) says which word-embedding shard files
//!   (`embeddings/NNNN.aeemb`, 24.6 KB each) a sentence needs and the session
//!   lacks; the worker fetches them and hands each to [`ModelSession::add_shard`]
//!   (`addShard`).
//! - [`ModelSession::run`] tokenizes a sentence and runs the encoder, giving
//!   a [`ModelRun`]: its tokens (pieces, or whole words), and the attention
//!   of every layer and head as one flat `Float32Array` *copy* of shape
//!   `(layers, heads, n, n)`: entry `(l, h, i, j)` is at `((l·heads + h)·n + i)·n + j`.
//! - Errors (a malformed core or shard, a shard of another model, a sentence
//!   over 512 pieces, a run before its shards were added) become JavaScript
//!   `Error`s with the model crate's message.
//! - Inside and across heads ([`inspect`]): on a [`ModelRun`], `searchHeads`,
//!   `rankHeads`, `headBehaviours` and `rollout`, in the run's own view (pieces
//!   or words); on the session, `headDetails` and `projectHead`, which rerun
//!   the sentence up to the layer and open one head; and `checkManifest`,
//!   `checkManifestListing` and `shardBytes` for the manifest's sizes.
//!
//! The worker's loop, per sentence:
//!
//! ```js
//! for (const k of session.missingShards(sentence)) {          // Uint32Array
//!   session.addShard(new Uint8Array(await fetchShard(k)));     // manifest.shards[k].file
//! }
//! const run = session.run(sentence, words, hideSpecial);
//! ```

pub mod inspect;

use attention_model::heads::ViewToken;
use attention_model::model::head_block;
use attention_model::{HeadsView, Model, ModelAttention};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Installs the panic hook, so that a bug shows its message in the console.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A loaded model: the core, and the embedding shards added so far.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ModelSession {
    model: Model,
    /// Length of the core file the model was read from (for `checkManifest`).
    core_bytes: usize,
}

/// One token of a run: a WordPiece piece, or a whole word in the word view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunToken {
    /// The piece (`"cat"`, `"##s"`, `"[CLS]"`) or the word as written.
    pub text: String,
    /// Byte range in the sentence, `[start, end)`; empty for `[CLS]`/`[SEP]`.
    pub span: [usize; 2],
    /// `[CLS]` or `[SEP]`.
    pub special: bool,
    /// The pieces it covers, `[start, end)`, as indices into the sentence's
    /// pieces with `[CLS]` at 0: what `headDetails` takes as `query`.
    pub pieces: [usize; 2],
}

/// The attention of every head for one sentence.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ModelRun {
    tokens: Vec<RunToken>,
    /// The tokens as head search and the measures read them.
    view: Vec<ViewToken>,
    layers: usize,
    heads: usize,
    weights: Vec<f32>,
}

#[wasm_bindgen]
impl ModelSession {
    /// Reads a core file (`model/minilm-core.aebm`).
    #[wasm_bindgen(constructor)]
    pub fn new(core: &[u8]) -> Result<ModelSession, JsError> {
        Ok(Self::from_core(core)?)
    }

    /// The word-embedding shards `sentence` needs that have not been added,
    /// in increasing order: fetch `manifest.shards[k].file` for each. Empty
    /// when the sentence can run.
    #[wasm_bindgen(js_name = missingShards)]
    pub fn missing_shards(&self, sentence: &str) -> Vec<u32> {
        let ids: Vec<u32> = self.model.tokenize(sentence).iter().map(|p| p.id).collect();
        // Shard indices are below the vocabulary size, itself a u32.
        self.model.missing_shards(&ids).into_iter().map(|k| k as u32).collect()
    }

    /// Adds one shard file and returns its index. Refuses (with the reason)
    /// a malformed shard or one of another model or build.
    #[wasm_bindgen(js_name = addShard)]
    pub fn add_shard(&mut self, bytes: &[u8]) -> Result<u32, JsError> {
        Ok(self.add_shard_native(bytes)? as u32)
    }

    /// How many shards the model has (954 for MiniLM).
    #[wasm_bindgen(js_name = embeddingShards)]
    pub fn embedding_shards(&self) -> usize {
        self.model.embedding_shards()
    }

    /// Number of layers (6 for MiniLM-L6).
    pub fn layers(&self) -> usize {
        self.model.config().layers
    }

    /// Heads per layer (12 for MiniLM).
    pub fn heads(&self) -> usize {
        self.model.config().heads
    }

    /// Runs the encoder on `sentence`. With `words`, attention between whole
    /// words (summed over a word's key pieces, averaged over its query
    /// pieces); with `hide_special`, without the `[CLS]`/`[SEP]` rows and
    /// columns (rows then sum to what the word did not send there). Fails,
    /// naming them, if shards the sentence needs have not been added.
    pub fn run(&self, sentence: &str, words: bool, hide_special: bool) -> Result<ModelRun, JsError> {
        Ok(self.run_native(sentence, words, hide_special)?)
    }
}

impl ModelSession {
    /// [`ModelSession::new`] with the model crate's error, for native callers.
    pub fn from_core(core: &[u8]) -> Result<ModelSession, attention_model::Error> {
        Ok(ModelSession { model: Model::from_core(core)?, core_bytes: core.len() })
    }

    /// [`ModelSession::add_shard`] with the model crate's error, for native callers.
    pub fn add_shard_native(&mut self, bytes: &[u8]) -> Result<usize, attention_model::Error> {
        self.model.add_shard(bytes)
    }

    /// [`ModelSession::run`] with the model crate's error, for native callers.
    pub fn run_native(
        &self,
        sentence: &str,
        words: bool,
        hide_special: bool,
    ) -> Result<ModelRun, attention_model::Error> {
        let attention = self.model.attention(sentence)?;
        let (layers, heads) = (attention.layers, attention.heads);
        if words {
            let view = attention.words(hide_special);
            let tokens = view
                .words
                .iter()
                .map(|w| RunToken {
                    text: w.text.clone(),
                    span: [w.span.start, w.span.end],
                    special: w.special,
                    pieces: [w.pieces.start, w.pieces.end],
                })
                .collect();
            let view_tokens = HeadsView::words(&view).tokens;
            return Ok(ModelRun { tokens, view: view_tokens, layers, heads, weights: view.weights });
        }
        // Piece indices in the whole sentence, before [CLS]/[SEP] may be dropped.
        let kept: Vec<usize> =
            (0..attention.n()).filter(|i| !hide_special || !attention.pieces[*i].is_special()).collect();
        let attention: ModelAttention = if hide_special { attention.without_special() } else { attention };
        let tokens = attention.pieces.iter().zip(&kept).map(|(p, i)| piece_token(p, *i)).collect();
        let view = HeadsView::pieces(&attention).tokens;
        Ok(ModelRun { tokens, view, layers, heads, weights: attention.weights })
    }
}

/// A piece as a run token; `index` is its place among all the sentence's pieces.
pub(crate) fn piece_token(piece: &attention_model::Piece, index: usize) -> RunToken {
    RunToken {
        text: piece.text.clone(),
        span: [piece.span.start, piece.span.end],
        special: piece.is_special(),
        pieces: [index, index + 1],
    }
}

#[wasm_bindgen]
impl ModelRun {
    /// Number of tokens `n`.
    pub fn size(&self) -> usize {
        self.tokens.len()
    }

    pub fn layers(&self) -> usize {
        self.layers
    }

    pub fn heads(&self) -> usize {
        self.heads
    }

    /// `[{ text, span: [start, end], special, pieces: [start, end] }]`.
    pub fn tokens(&self) -> Result<JsValue, JsError> {
        Ok(serde_wasm_bindgen::to_value(&self.tokens)?)
    }

    /// Every head, `(layers, heads, n, n)` row-major, as a new `Float32Array`.
    pub fn weights(&self) -> Vec<f32> {
        self.weights.clone()
    }
}

impl ModelRun {
    /// The tokens, for native callers.
    pub fn token_list(&self) -> &[RunToken] {
        &self.tokens
    }

    /// The `(n, n)` weights of one head, for native callers.
    pub fn head(&self, layer: usize, head: usize) -> Option<&[f32]> {
        head_block(&self.weights, self.layers, self.heads, self.size(), layer, head)
    }

    /// The run as head search and the measures read it.
    pub fn heads_view(&self) -> HeadsView<'_> {
        HeadsView {
            tokens: self.view.clone(),
            layers: self.layers,
            heads: self.heads,
            weights: &self.weights,
        }
    }
}
