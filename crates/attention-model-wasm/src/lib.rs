//! The WebAssembly boundary of the trained-model view. It is its own wasm
//! module, loaded by a Web Worker (`www/js/model-worker.js`) only when the
//! model view opens, so the page's first load does not pay for it and a
//! forward pass never blocks the main thread.
//!
//! - [`ModelSession`] reads the model file once.
//! - [`ModelSession::run`] tokenizes a sentence and runs the encoder, giving
//!   a [`ModelRun`]: its tokens (pieces, or whole words), and the attention
//!   of every layer and head as one flat `Float32Array` *copy* of shape
//!   `(layers, heads, n, n)`: entry `(l, h, i, j)` is at `((l·heads + h)·n + i)·n + j`.
//! - Errors (a malformed model file, a sentence over 512 pieces) become
//!   JavaScript `Error`s with the model crate's message.

use attention_model::Model;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Installs the panic hook, so that a bug shows its message in the console.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A loaded model.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ModelSession {
    model: Model,
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
}

/// The attention of every head for one sentence.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ModelRun {
    tokens: Vec<RunToken>,
    layers: usize,
    heads: usize,
    weights: Vec<f32>,
}

#[wasm_bindgen]
impl ModelSession {
    /// Reads a model file (`model/all-minilm-l6-v2.aebm`).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<ModelSession, JsError> {
        Ok(Self::from_bytes(bytes)?)
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
    /// columns (rows then sum to what the word did not send there).
    pub fn run(&self, sentence: &str, words: bool, hide_special: bool) -> Result<ModelRun, JsError> {
        Ok(self.run_native(sentence, words, hide_special)?)
    }
}

impl ModelSession {
    /// [`ModelSession::new`] with the model crate's error, for native callers.
    pub fn from_bytes(bytes: &[u8]) -> Result<ModelSession, attention_model::Error> {
        Ok(ModelSession { model: Model::from_bytes(bytes)? })
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
        if words || hide_special {
            let view = attention.words(hide_special);
            if words {
                let tokens = view
                    .words
                    .iter()
                    .map(|w| RunToken {
                        text: w.text.clone(),
                        span: [w.span.start, w.span.end],
                        special: w.special,
                    })
                    .collect();
                return Ok(ModelRun { tokens, layers, heads, weights: view.weights });
            }
            // Pieces without [CLS]/[SEP]: keep the rows and columns of real pieces.
            let n = attention.n();
            let keep: Vec<usize> = (0..n).filter(|i| !attention.pieces[*i].is_special()).collect();
            let m = keep.len();
            let mut weights = Vec::with_capacity(layers * heads * m * m);
            for block in attention.weights.chunks(n * n) {
                for i in &keep {
                    weights.extend(keep.iter().map(|j| block[i * n + j]));
                }
            }
            let tokens = keep.iter().map(|i| piece_token(&attention.pieces[*i])).collect();
            return Ok(ModelRun { tokens, layers, heads, weights });
        }
        let tokens = attention.pieces.iter().map(piece_token).collect();
        Ok(ModelRun { tokens, layers, heads, weights: attention.weights })
    }
}

fn piece_token(piece: &attention_model::Piece) -> RunToken {
    RunToken {
        text: piece.text.clone(),
        span: [piece.span.start, piece.span.end],
        special: piece.is_special(),
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

    /// `[{ text, span: [start, end], special }]`.
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
        let nn = self.size() * self.size();
        if layer >= self.layers || head >= self.heads {
            return None;
        }
        let at = (layer * self.heads + head) * nn;
        self.weights.get(at..at + nn)
    }
}
