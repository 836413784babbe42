//! The WebAssembly boundary of Attention Explorer: a thin adapter over
//! `attention-core` for the page.
//!
//! - [`Explorer`] holds the word vectors: a sharded store that grows one
//!   shard at a time as sentences need words ([`Explorer::sharded`],
//!   [`Explorer::add_shard`], [`Explorer::missing_shards`]), or a complete
//!   store read from one file (the user's own GloVe or word2vec text); it
//!   analyzes sentences with [`Settings`].
//! - [`SentenceAnalysis`] hands the numbers out. Matrices cross as flat
//!   `Float32Array` *copies* in row-major order, `(size, size)`: entry
//!   `(i, j)` (query `i`, key `j`) is at `i * size + j`. Copies, not views
//!   into wasm memory, so they stay valid whatever the next call allocates.
//!   Small metadata (tokens, flags) goes through serde-wasm-bindgen.
//! - [`HeatmapGeometry`] and [`ArrowGeometry`] expose the pure layout and
//!   hit-testing of `attention_core::layout`; the page's painter draws with
//!   them.
//! - Core errors become JavaScript `Error`s carrying the core's message,
//!   which is written for the person who typed the sentence.
//!
//! - [`teach`] holds the teaching views: the steps of a row or a cell,
//!   cross-attention, the padding demo, multi-head attention and the matrix
//!   playground.
//!
//! Rows and columns of the matrices are the *known* tokens only; unknown
//! tokens are listed by [`SentenceAnalysis::tokens`] with `row: null`.

use attention_core::glove_text::{ReadNotes, TextReader};
use attention_core::layout::{
    self, ArrowLayout, ArrowSpec, Colormap, Gradient, HeatmapLayout, HeatmapSpec, Hit,
};
use attention_core::neighbors::{rerank, NeighborIndex};
use attention_core::shards::ShardSet;
use attention_core::{Analysis, Embeddings, EmbeddingsBuilder, Extras, Options};
use serde::{Deserialize, Serialize};
use std::cell::{OnceCell, RefCell};
use std::collections::HashSet;
use wasm_bindgen::prelude::*;
use wasm_bindgen::Clamped;
use web_sys::{CanvasRenderingContext2d, ImageData};

pub mod teach;
pub mod text;

pub use teach::{AttentionView, MultiHeadView, PlaygroundSpec};

/// Installs the panic hook, so that a bug shows its message in the console
/// instead of "unreachable executed".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// How attention is computed, as the page sends it:
/// `{ scale, selfAttention, causal, temperature }`. Missing fields take the
/// tutorial's defaults (scaled, self allowed, not causal, temperature 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub scale: bool,
    pub self_attention: bool,
    pub causal: bool,
    pub temperature: f32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::from(Options::default())
    }
}

impl From<Options> for Settings {
    fn from(o: Options) -> Self {
        Settings {
            scale: o.scale,
            self_attention: o.self_attention,
            causal: o.causal,
            temperature: o.temperature,
        }
    }
}

impl From<Settings> for Options {
    fn from(s: Settings) -> Self {
        Options {
            scale: s.scale,
            self_attention: s.self_attention,
            causal: s.causal,
            temperature: s.temperature,
        }
    }
}

/// One token as the page shows it. `start..end` indexes the sentence in
/// UTF-16 code units (JavaScript string indices); `row` is its row and
/// column in the matrices, `null` for a token left out. `pending`: not known
/// *yet*, its shard has not arrived (see [`Explorer::missing_shards`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenInfo {
    pub text: String,
    pub start: u32,
    pub end: u32,
    pub known: bool,
    pub pending: bool,
    pub row: Option<u32>,
}

/// Tokens as they cross into JavaScript: a list of texts and four numbers a
/// token (`js/analysis.js` `tokensOf` makes the objects). serde's objects
/// cost one call into JavaScript per field: 30 ms for a pasted page of
/// 1,024 words on a slow machine, against about 1 ms for the columns.
#[wasm_bindgen]
#[derive(Debug, Clone, PartialEq)]
pub struct TokenList {
    infos: Vec<TokenInfo>,
}

impl TokenList {
    /// The tokens, for Rust callers.
    pub fn infos(&self) -> &[TokenInfo] {
        &self.infos
    }
}

#[wasm_bindgen]
impl TokenList {
    /// The tokens' texts (vocabulary spelling).
    pub fn texts(&self) -> Vec<String> {
        self.infos.iter().map(|t| t.text.clone()).collect()
    }

    /// Four numbers a token: UTF-16 start, end, flags (1: known, 2: pending)
    /// and matrix row + 1 (0: not in the matrix).
    pub fn numbers(&self) -> Vec<u32> {
        self.infos
            .iter()
            .flat_map(|t| {
                let flags = u32::from(t.known) | u32::from(t.pending) << 1;
                [t.start, t.end, flags, t.row.map_or(0, |r| r.saturating_add(1))]
            })
            .collect()
    }
}

/// A vocabulary word and its cosine similarity to a vector. `exact`: from
/// the word's exact vector; false while only the nearest-word index's
/// rounded copy is at hand (its shard has not arrived).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    pub word: String,
    pub similarity: f32,
    pub exact: bool,
}

/// Candidates searched in the nearest-word index beyond those asked for,
/// so that re-ranking them with exact vectors finds the exact nearest.
const RERANK_EXTRA: usize = 8;

/// The word vectors.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Explorer {
    embeddings: Embeddings,
    /// The nearest-word index: a separate (rounded) store for a sharded
    /// vocabulary ([`Explorer::load_neighbors`]), or the store itself.
    neighbor_store: Option<Embeddings>,
    /// Built on the first `nearest` call: the first heatmap does not need it.
    neighbors: OnceCell<NeighborIndex>,
    /// The index while [`prepare_neighbors_some`](Explorer::prepare_neighbors_some) builds it.
    building: RefCell<Option<NeighborIndex>>,
    /// The chunks of text that need no shard of this store, as
    /// [`Embeddings::missing_shards_settled`] keeps them: a key typed into a
    /// long text probes its own chunk, not every chunk again.
    settled: RefCell<HashSet<(String, bool)>>,
}

/// Chunks [`Explorer::missing_shards`] remembers at most (of at most 64 bytes
/// each: a few MB): past that it starts again.
const SETTLED_MAX: usize = 65_536;

impl Explorer {
    /// An explorer of `embeddings`, its nearest-word index not built.
    fn of(embeddings: Embeddings) -> Explorer {
        Explorer {
            embeddings,
            neighbor_store: None,
            neighbors: OnceCell::new(),
            building: RefCell::new(None),
            settled: RefCell::default(),
        }
    }

    /// The store the nearest-word index searches: a sharded store's index
    /// (None until it is loaded), or the store itself.
    fn neighbor_source(&self) -> Option<&Embeddings> {
        match &self.neighbor_store {
            Some(store) => Some(store),
            None if self.is_sharded() => None,
            None => Some(&self.embeddings),
        }
    }
}

#[wasm_bindgen]
impl Explorer {
    /// Reads a whole word-vector file: the project's `AEWV` subset, or GloVe
    /// or word2vec text of any dimension. Throws an `Error` saying what is
    /// wrong with a malformed file.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<Explorer, JsError> {
        Ok(Explorer::of(Embeddings::from_bytes(bytes)?))
    }

    /// An empty store for a shard set, from its `manifest.json`: the
    /// dimension, the number of shards, the set id (16 hex digits) and the
    /// number of words of the whole set.
    pub fn sharded(dim: usize, shards: u32, set: &str, words: usize) -> Result<Explorer, JsError> {
        let id = u64::from_str_radix(set, 16)
            .ok()
            .filter(|_| set.len() == 16)
            .ok_or_else(|| JsError::new(&format!("the shard set id '{set}' is not 16 hex digits")))?;
        let set = ShardSet::new(shards, id, dim, words)?;
        Ok(Explorer::of(Embeddings::sharded(set)))
    }

    /// Adds the words of shard `expected` (the bytes of its `xxxx.aews`
    /// file). Throws, leaving the store as it was, for a truncated, corrupt
    /// or foreign shard, or another shard of the set served under its name.
    #[wasm_bindgen(js_name = addShard)]
    pub fn add_shard(&mut self, bytes: &[u8], expected: u32) -> Result<(), JsError> {
        Ok(self.embeddings.add_shard(bytes, expected)?)
    }

    /// The shards to add before `text` can be tokenized and analyzed as with
    /// the whole vocabulary in memory (several texts: join them with a new
    /// line). Adding them may reveal a few more: call again until empty.
    #[wasm_bindgen(js_name = missingShards)]
    pub fn missing_shards(&self, text: &str) -> Vec<u32> {
        let mut settled = self.settled.borrow_mut();
        if settled.len() > SETTLED_MAX {
            settled.clear();
        }
        self.embeddings.missing_shards_settled([text], &mut settled)
    }

    /// Where to cut `sentence` to keep its first `max` known tokens: the
    /// UTF-16 index just after the `max`-th, or -1 when it has no more than
    /// `max`. The page keeps at most [`max_tokens`] words this way.
    #[wasm_bindgen(js_name = knownCut)]
    pub fn known_cut(&self, sentence: &str, max: usize) -> i32 {
        let tokens = attention_core::tokenize(sentence, &self.embeddings);
        let mut known = tokens.iter().filter(|t| t.known);
        let last = if max == 0 { None } else { known.nth(max - 1) };
        if known.next().is_none() {
            return -1;
        }
        last.map_or(0, |t| i32::try_from(text::utf16_index(sentence, t.span.end)).unwrap_or(i32::MAX))
    }

    /// Whether shard `index` has been added (always true for a store read from one file).
    #[wasm_bindgen(js_name = hasShard)]
    pub fn has_shard(&self, index: u32) -> bool {
        self.embeddings.has_shard(index)
    }

    /// The shard that holds `word` (lowercased) in a sharded store.
    #[wasm_bindgen(js_name = shardOf)]
    pub fn shard_of(&self, word: &str) -> u32 {
        self.embeddings.shard_of(word)
    }

    /// Whether this store grows by shards (else it was read from one file).
    #[wasm_bindgen(getter, js_name = isSharded)]
    pub fn is_sharded(&self) -> bool {
        self.embeddings.shard_set().is_some()
    }

    /// Dimension `d` of the vectors.
    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> usize {
        self.embeddings.dim()
    }

    /// Number of words in the whole vocabulary (of the shard set, however
    /// few of its shards have arrived).
    #[wasm_bindgen(getter, js_name = vocabularySize)]
    pub fn vocabulary_size(&self) -> usize {
        self.embeddings.vocabulary_size()
    }

    /// Number of words whose vectors are in memory.
    #[wasm_bindgen(getter, js_name = loadedWords)]
    pub fn loaded_words(&self) -> usize {
        self.embeddings.len()
    }

    /// Reads the nearest-word index of a sharded store (`neighbors.aewv`:
    /// the most frequent words, rounded); [`nearest`](Explorer::nearest)
    /// searches it and re-ranks with exact vectors.
    #[wasm_bindgen(js_name = loadNeighbors)]
    pub fn load_neighbors(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        let store = Embeddings::from_bytes(bytes)?;
        if store.dim() != self.embeddings.dim() {
            return Err(JsError::new(&format!(
                "the nearest-word index has dimension {}, the vectors {}",
                store.dim(),
                self.embeddings.dim()
            )));
        }
        self.neighbor_store = Some(store);
        self.neighbors = OnceCell::new();
        self.building = RefCell::new(None);
        Ok(())
    }

    /// Builds the nearest-word index now (a pass over its rows: about 20 ms
    /// for 30,000 words in the page), so that the page can give it a task of
    /// its own; [`nearest`](Explorer::nearest) builds it otherwise.
    #[wasm_bindgen(js_name = prepareNeighbors)]
    pub fn prepare_neighbors(&self) {
        self.neighbor_index();
    }

    /// The store that [`nearest`](Explorer::nearest) searches and its index,
    /// built on first use: the nearest-word index of a sharded store (None
    /// until it is loaded), or the store itself.
    fn neighbor_index(&self) -> Option<(&Embeddings, &NeighborIndex)> {
        // Whole at once, or the rest of what prepareNeighborsSome began.
        self.prepare_neighbors_some(usize::MAX);
        Some((self.neighbor_source()?, self.neighbors.get()?))
    }

    /// Builds the nearest-word index `rows` rows further; true once it is
    /// built, so that [`nearest`](Explorer::nearest) searches at once. The
    /// page gives it tasks of its own: the whole index of a user's file of
    /// 100,000 words of 300 dimensions took one task of about 0.4 s. False
    /// for a sharded store whose index is not loaded.
    #[wasm_bindgen(js_name = prepareNeighborsSome)]
    pub fn prepare_neighbors_some(&self, rows: usize) -> bool {
        let Some(store) = self.neighbor_source() else { return false };
        if self.neighbors.get().is_some() {
            return true;
        }
        let mut building = self.building.borrow_mut();
        if !building.get_or_insert_with(|| NeighborIndex::start(store)).extend(store, rows) {
            return false;
        }
        if let Some(index) = building.take() {
            // Whole: the index `nearest` searches.
            let _ = self.neighbors.set(index);
        }
        true
    }

    /// Whether [`nearest`](Explorer::nearest) can search: always for a
    /// store read from one file, after [`load_neighbors`](Explorer::load_neighbors) for a sharded one.
    #[wasm_bindgen(getter, js_name = hasNeighbors)]
    pub fn has_neighbors(&self) -> bool {
        self.neighbor_store.is_some() || !self.is_sharded()
    }

    /// Self-attention over the known tokens of `sentence`. `settings` is a
    /// [`Settings`] object (or `undefined` for the defaults). Throws for an
    /// empty sentence, a sentence without a known word, more than
    /// [`attention_core::MAX_TOKENS`] known words, or a temperature out of range.
    pub fn analyze(&self, sentence: &str, settings: JsValue) -> Result<SentenceAnalysis, JsError> {
        Ok(self.start_analysis(sentence, settings, None)?.finish())
    }

    /// [`analyze`](Explorer::analyze) in slices: the sentence is tokenized
    /// and its vectors looked up now (with the same errors), and
    /// `advance(rows)` computes the attention a few rows at a time, so that
    /// a long text never blocks the page for long. Same numbers as `analyze`.
    ///
    /// With `twin`, the job also computes the weights with scaling switched
    /// the other way, from the same dot products (the what-if view's other
    /// side, for a fraction of a second analysis): the finished analysis's
    /// [`takeTwin`](SentenceAnalysis::take_twin).
    #[wasm_bindgen(js_name = startAnalysis)]
    pub fn start_analysis(
        &self,
        sentence: &str,
        settings: JsValue,
        twin: Option<bool>,
    ) -> Result<AnalysisJob, JsError> {
        let extras = Extras { weights_only: true, flipped_twin: twin.unwrap_or(false), ..Extras::default() };
        let job = attention_core::AnalysisJob::start_with(
            sentence,
            &self.embeddings,
            &teach::settings_of(settings)?.into(),
            &extras,
        )?;
        // The tokens are described once: for the page while it computes, then for the analysis.
        let tokens = text::token_infos(sentence, job.tokens(), job.used());
        Ok(AnalysisJob { tokens, job })
    }

    /// The tokens of `sentence` with their `known` flags, without computing
    /// attention: the page marks unknown words even when no word is known.
    pub fn tokenize(&self, sentence: &str) -> TokenList {
        let tokens = attention_core::tokenize(sentence, &self.embeddings);
        TokenList { infos: text::token_infos(sentence, &tokens, &[]) }
    }

    /// The words whose vectors are closest (by cosine) to `vector`, most
    /// similar first, as `[{ word, similarity, exact }]`: what a context
    /// vector "means" in word terms. A sharded store searches its
    /// nearest-word index for `count` + 8 candidates and re-ranks them with
    /// the exact vectors it holds; candidates whose shards have not arrived
    /// come back with `exact: false`: add their shards and ask again, then
    /// keep the first `count`.
    pub fn nearest(&self, vector: &[f32], count: usize) -> Result<JsValue, JsError> {
        let (store, index) =
            self.neighbor_index().ok_or_else(|| JsError::new("the nearest-word index is not loaded yet"))?;
        let found: Vec<Neighbour> = if self.neighbor_store.is_some() {
            let candidates = index.nearest(store, vector, count + RERANK_EXTRA, &[]);
            rerank(candidates, &self.embeddings, vector)
                .into_iter()
                .map(|c| Neighbour { word: c.word, similarity: c.similarity, exact: c.exact })
                .collect()
        } else {
            index
                .nearest(store, vector, count, &[])
                .into_iter()
                .map(|n| Neighbour { word: n.word, similarity: n.similarity, exact: true })
                .collect()
        };
        Ok(serde_wasm_bindgen::to_value(&found)?)
    }
}

/// An analysis being computed ([`Explorer::start_analysis`]).
#[wasm_bindgen]
#[derive(Debug)]
pub struct AnalysisJob {
    tokens: Vec<TokenInfo>,
    job: attention_core::AnalysisJob,
}

#[wasm_bindgen]
impl AnalysisJob {
    /// Computes at least `rows` more query rows; returns whether all are done.
    pub fn advance(&mut self, rows: usize) -> bool {
        self.job.advance(rows)
    }

    /// Query rows computed so far.
    #[wasm_bindgen(getter, js_name = rowsDone)]
    pub fn rows_done(&self) -> usize {
        self.job.progress().0
    }

    /// Query rows in all (the known tokens).
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.job.progress().1
    }

    /// Every token, known or not, as [`SentenceAnalysis::tokens`] gives them.
    pub fn tokens(&self) -> TokenList {
        TokenList { infos: self.tokens.clone() }
    }

    /// Computes what is left; the job is used up.
    pub fn finish(self) -> SentenceAnalysis {
        let (analysis, twin) = self.job.finish_with_twin();
        let twin = twin.map(|twin| Box::new(SentenceAnalysis::with_tokens(twin, self.tokens.clone())));
        SentenceAnalysis { twin, ..SentenceAnalysis::with_tokens(analysis, self.tokens) }
    }
}

/// The result of one analysis: the weights of every row. A row's other
/// numbers (dot products, scaled scores, context vector) are computed when
/// it is shown ([`Explorer::explain_row`]), the same numbers the kernel takes.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SentenceAnalysis {
    analysis: Analysis,
    tokens: Vec<TokenInfo>,
    scale_max: f32,
    /// The same sentence with scaling switched the other way, when asked for.
    twin: Option<Box<SentenceAnalysis>>,
}

impl SentenceAnalysis {
    /// `tokens`: the analysis's own, already described for the page.
    fn with_tokens(analysis: Analysis, tokens: Vec<TokenInfo>) -> Self {
        let scale_max = layout::scale_max(&analysis.attention.weights);
        SentenceAnalysis { analysis, tokens, scale_max, twin: None }
    }

    /// The core's analysis, for Rust callers.
    pub fn analysis(&self) -> &Analysis {
        &self.analysis
    }

    /// The tokens, for Rust callers.
    pub fn token_infos(&self) -> &[TokenInfo] {
        &self.tokens
    }
}

#[wasm_bindgen]
impl SentenceAnalysis {
    /// Number of known tokens: the matrices are `(size, size)`.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.analysis.attention.queries
    }

    /// Dimension of the vectors (and of each context vector).
    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> usize {
        self.analysis.attention.dim
    }

    /// The factor applied to every score: `(1/√d or 1) / temperature`.
    #[wasm_bindgen(getter)]
    pub fn factor(&self) -> f64 {
        self.analysis.attention.factor
    }

    /// The analysis with scaling switched the other way, computed with this
    /// one ([`Explorer::start_analysis`]'s `twin`), once: after that, and
    /// without a twin, `undefined`. Its weights only; its rows' other steps
    /// come from `explainRow`, as for any analysis.
    #[wasm_bindgen(js_name = takeTwin)]
    pub fn take_twin(&mut self) -> Option<SentenceAnalysis> {
        self.twin.take().map(|twin| *twin)
    }

    /// The top of the colour scale: the largest weight.
    #[wasm_bindgen(getter, js_name = scaleMax)]
    pub fn scale_max(&self) -> f32 {
        self.scale_max
    }

    /// Every token, known or not, with its matrix row ([`TokenList`]).
    pub fn tokens(&self) -> TokenList {
        TokenList { infos: self.tokens.clone() }
    }

    /// The labels of the matrix rows (known tokens, vocabulary spelling).
    pub fn labels(&self) -> Vec<String> {
        self.analysis.used_tokens().map(|t| t.text.clone()).collect()
    }

    /// Softmax weights, `(size, size)` row-major; 0 where masked. One copy
    /// out of wasm memory (a `Vec` return would clone the matrix in wasm
    /// first: 4 MB twice at 1,024 tokens).
    #[wasm_bindgen(js_name = weights)]
    pub fn weights_array(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(&self.analysis.attention.weights[..])
    }

    /// `1` for each masked pair (weight 0 by the mask, not by the numbers),
    /// `(size, size)` row-major, else `0`.
    pub fn masked(&self) -> Vec<u8> {
        self.analysis.attention.masked_cells().into_iter().map(u8::from).collect()
    }

    /// `1` for each row whose every key is masked (weights all 0), else `0`.
    #[wasm_bindgen(js_name = fullyMasked)]
    pub fn fully_masked(&self) -> Vec<u8> {
        self.analysis.attention.fully_masked.iter().map(|m| u8::from(*m)).collect()
    }

    /// The weights painted as [`paint_matrix`] paints them, from the
    /// analysis itself: neither the weights nor the mask are copied in
    /// (5 MB at 1,024 tokens).
    pub fn paint(&self, context: &CanvasRenderingContext2d, gradient: &str, max: f32) -> Result<(), JsValue> {
        let attention = &self.analysis.attention;
        let masked = if attention.has_mask() { attention.masked_cells() } else { Vec::new() };
        paint_cells(context, &attention.weights, &masked, attention.queries, attention.keys, gradient, max)
    }
}

impl SentenceAnalysis {
    /// The weights of [`weights_array`](SentenceAnalysis::weights_array), for Rust callers.
    pub fn weights(&self) -> Vec<f32> {
        self.analysis.attention.weights.clone()
    }
}

/// Paints a `(rows, cols)` matrix one pixel a cell at the top left of
/// `context`: the colour of `weight / max` through `gradient` (a name of
/// [`Gradient::from_name`]: viridis, cividis or greys; anything else means
/// viridis), cells whose `masked` byte is set transparent (the page's
/// hatching shows through). The page scales that canvas up without
/// smoothing; views compared side by side pass one `max`.
#[wasm_bindgen(js_name = paintMatrix)]
pub fn paint_matrix(
    context: &CanvasRenderingContext2d,
    weights: &[f32],
    masked: &[u8],
    rows: usize,
    cols: usize,
    gradient: &str,
    max: f32,
) -> Result<(), JsValue> {
    if rows.checked_mul(cols) != Some(weights.len()) {
        return Err(
            JsError::new(&format!("{} weights cannot fill a {rows} × {cols} matrix", weights.len())).into()
        );
    }
    let masked: Vec<bool> = masked.iter().map(|m| *m != 0).collect();
    paint_cells(context, weights, &masked, rows, cols, gradient, max)
}

/// [`paint_matrix`] once `weights` is known to hold `rows` × `cols` cells.
fn paint_cells(
    context: &CanvasRenderingContext2d,
    weights: &[f32],
    masked: &[bool],
    rows: usize,
    cols: usize,
    gradient: &str,
    max: f32,
) -> Result<(), JsValue> {
    let (Ok(width), Ok(height)) = (u32::try_from(cols), u32::try_from(rows)) else {
        return Err(JsError::new("the matrix is too large to paint").into());
    };
    if width == 0 || height == 0 {
        return Ok(());
    }
    let rgba =
        Colormap::new(Gradient::from_name(gradient).unwrap_or_default()).cells_rgba(weights, masked, max);
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&rgba), width, height)?;
    context.put_image_data(&image, 0.0, 0.0)
}

/// Reads a word-vector text file (GloVe, or word2vec/fastText `.vec` with
/// its header line) of any dimension, a chunk at a time: the page's worker
/// feeds it the user's file as it streams from disk.
#[wasm_bindgen]
#[derive(Debug)]
pub struct VectorFileReader {
    reader: Option<TextReader>,
    /// What the finished reader left out or found short.
    notes: ReadNotes,
    /// The words and dimension of the finished file: its last line, when
    /// no newline ends it, is read by `finish`.
    shape: (usize, usize),
    /// The finished file's store, until its vectors are taken.
    read: Option<Embeddings>,
}

#[wasm_bindgen]
impl VectorFileReader {
    /// A reader that keeps at most `max_values` numbers (the first words of
    /// the file, which GloVe and word2vec list most frequent first).
    #[wasm_bindgen(constructor)]
    pub fn new(max_values: usize) -> VectorFileReader {
        VectorFileReader {
            reader: Some(TextReader::with_limit(max_values)),
            notes: ReadNotes::default(),
            shape: (0, 0),
            read: None,
        }
    }

    /// Reads the next bytes; throws an `Error` naming the line of a problem.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        match &mut self.reader {
            Some(reader) => Ok(reader.feed(chunk)?),
            None => Err(JsError::new("this reader has finished")),
        }
    }

    /// Words read so far; after `finish`, the file's.
    #[wasm_bindgen(getter)]
    pub fn words(&self) -> usize {
        self.reader.as_ref().map_or(self.shape.0, TextReader::words)
    }

    /// The dimension (0 before the first vector).
    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> usize {
        self.reader.as_ref().map_or(self.shape.1, TextReader::dim)
    }

    /// Words left out because an earlier one is spelled the same lowercased
    /// ("King" after "king"): sentences are looked up lowercased.
    #[wasm_bindgen(getter)]
    pub fn merged(&self) -> usize {
        self.reader.as_ref().map_or(self.notes.merged, TextReader::merged)
    }

    /// After `finish`: the lines left out whole, a word with spaces or a
    /// line not in UTF-8 (`ReadNotes::skipped`).
    #[wasm_bindgen(getter)]
    pub fn skipped(&self) -> usize {
        self.notes.skipped
    }

    /// After `finish`: the number of the first line left out, or 0.
    #[wasm_bindgen(getter, js_name = firstSkipped)]
    pub fn first_skipped(&self) -> usize {
        self.notes.first_skipped.unwrap_or(0)
    }

    /// After `finish`: the words a header promised, when the file holds
    /// fewer (cut with `head`, say), or 0.
    #[wasm_bindgen(getter)]
    pub fn promised(&self) -> usize {
        self.notes.cut_short.map_or(0, |(promised, _)| promised)
    }

    /// After `finish`: the lines the file held, when its header promised more, or 0.
    #[wasm_bindgen(getter)]
    pub fn held(&self) -> usize {
        self.notes.cut_short.map_or(0, |(_, held)| held)
    }

    /// Whether the limit was reached: the rest of the file can be skipped.
    #[wasm_bindgen(getter)]
    pub fn full(&self) -> bool {
        self.reader.as_ref().is_some_and(TextReader::is_full)
    }

    /// Reads the end of the file (a last line that no newline ends) and
    /// keeps what was read, for [`vocabulary`](VectorFileReader::vocabulary)
    /// and [`take_values`](VectorFileReader::take_values). Throws for a
    /// file that ended badly.
    pub fn finish(&mut self) -> Result<(), JsError> {
        let reader = self.reader.take().ok_or_else(|| JsError::new("this reader has finished"))?;
        let (embeddings, notes) = reader.finish_noted()?;
        self.notes = notes;
        self.shape = (embeddings.len(), embeddings.dim());
        self.read = Some(embeddings);
        Ok(())
    }

    /// After `finish`: the words read, a line each, in the file's order.
    #[wasm_bindgen(getter)]
    pub fn vocabulary(&self) -> String {
        self.read.as_ref().map_or_else(String::new, |read| read.words().join("\n"))
    }

    /// After `finish`: the vectors read, row after row (`dim` numbers a
    /// word), handed over: the reader keeps its counts, not its vectors.
    #[wasm_bindgen(js_name = takeValues)]
    pub fn take_values(&mut self) -> Result<Vec<f32>, JsError> {
        let read = self.read.take().ok_or_else(|| JsError::new("no vectors to take: finish first, once"))?;
        Ok(read.into_values())
    }
}

/// Builds an [`Explorer`] over a whole vocabulary a block of rows at a
/// time, each row checked as [`Explorer::new`] checks a file: the page takes
/// in a user's file of hundreds of megabytes a block per task, where one
/// call took it in a task of a quarter of a second per 100,000 words of 300
/// dimensions.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ExplorerBuilder(Option<EmbeddingsBuilder>);

#[wasm_bindgen]
impl ExplorerBuilder {
    /// A builder of vectors of dimension `dim`, with room for `words` words.
    #[wasm_bindgen(constructor)]
    pub fn new(dim: usize, words: usize) -> Result<ExplorerBuilder, JsError> {
        Ok(ExplorerBuilder(Some(EmbeddingsBuilder::new(dim, words)?)))
    }

    /// Adds rows: `words`, a line each, and their vectors one after another
    /// in `values`. Throws, naming the word, for a row the store refuses.
    pub fn add(&mut self, words: &str, values: &[f32]) -> Result<(), JsError> {
        let builder = self.0.as_mut().ok_or_else(|| JsError::new("this builder has finished"))?;
        let dim = builder.store().dim();
        let words: Vec<&str> = words.split('\n').collect();
        if words.len().checked_mul(dim) != Some(values.len()) {
            return Err(JsError::new(&format!(
                "{} numbers for {} words of dimension {dim}",
                values.len(),
                words.len()
            )));
        }
        for (word, vector) in words.into_iter().zip(values.chunks_exact(dim)) {
            builder.push(word, vector)?;
        }
        Ok(())
    }

    /// Words added so far.
    #[wasm_bindgen(getter)]
    pub fn words(&self) -> usize {
        self.0.as_ref().map_or(0, |builder| builder.store().len())
    }

    /// The explorer of the rows added; throws when none was.
    pub fn finish(&mut self) -> Result<Explorer, JsError> {
        let builder = self.0.take().ok_or_else(|| JsError::new("this builder has finished"))?;
        Ok(Explorer::of(builder.finish()?))
    }
}

/// The most known tokens one analysis takes ([`attention_core::MAX_TOKENS`]).
#[wasm_bindgen(js_name = maxTokens)]
pub fn max_tokens() -> usize {
    attention_core::MAX_TOKENS
}

/// Runs the attention kernel once on an `(n, 50)` made-up matrix and returns
/// the sum of its weights (`n`, when every row sums to 1). The page calls it
/// once after the first heatmap, so that the engine's optimizing compiler
/// has the kernel ready before the first long sentence.
#[wasm_bindgen(js_name = warmUp)]
pub fn warm_up(n: usize) -> f64 {
    let n = n.clamp(1, 256);
    let values: Vec<f32> = (0..n * 50).map(|k| ((k * 7919 % 1000) as f32 / 500.0) - 1.0).collect();
    attention_core::Matrix::new(n, 50, values)
        .and_then(|x| attention_core::self_attention(&x, &Options::default()))
        .map(|a| a.weights.iter().map(|w| f64::from(*w)).sum())
        .unwrap_or(0.0)
}

/// The colormap as 256 `r, g, b` triples, darkest first (for the colorbar).
#[wasm_bindgen(js_name = colormapTable)]
pub fn colormap_table(gradient: &str) -> Vec<u8> {
    Colormap::new(Gradient::from_name(gradient).unwrap_or_default()).table()
}

/// Round tick values from 0 to at most `max`, about `count` of them.
#[wasm_bindgen]
pub fn ticks(max: f64, count: usize) -> Vec<f64> {
    layout::ticks(max, count)
}

/// What a point of the heatmap is over, as `[kind, row, col]`.
pub const HIT_NOTHING: i32 = 0;
/// `[HIT_CELL, row, col]`.
pub const HIT_CELL: i32 = 1;
/// `[HIT_ROW_LABEL, row, -1]`.
pub const HIT_ROW_LABEL: i32 = 2;
/// `[HIT_COLUMN_LABEL, -1, col]`.
pub const HIT_COLUMN_LABEL: i32 = 3;

/// The heatmap's geometry for a given size (see `attention_core::layout`).
#[wasm_bindgen]
#[derive(Debug)]
pub struct HeatmapGeometry(HeatmapLayout);

#[wasm_bindgen]
impl HeatmapGeometry {
    /// Fits a `(rows, cols)` matrix, labels `labelWidth` px wide in a
    /// `fontSize` px font, and a colorbar into `width` CSS pixels.
    #[wasm_bindgen(constructor)]
    pub fn new(rows: usize, cols: usize, width: f64, label_width: f64, font_size: f64) -> Self {
        HeatmapGeometry(HeatmapLayout::new(&HeatmapSpec { rows, cols, width, label_width, font_size }))
    }

    #[wasm_bindgen(getter)]
    pub fn cell(&self) -> f64 {
        self.0.cell
    }
    /// `[x, y, width, height]` of the cells.
    #[wasm_bindgen(getter)]
    pub fn matrix(&self) -> Vec<f64> {
        rect(&self.0.matrix)
    }
    /// `[x, y, width, height]` of the colour strip.
    #[wasm_bindgen(getter)]
    pub fn colorbar(&self) -> Vec<f64> {
        rect(&self.0.colorbar)
    }
    #[wasm_bindgen(getter, js_name = labelsShown)]
    pub fn labels_shown(&self) -> bool {
        self.0.labels_shown
    }
    #[wasm_bindgen(getter, js_name = valuesShown)]
    pub fn values_shown(&self) -> bool {
        self.0.values_shown
    }
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> f64 {
        self.0.width
    }
    #[wasm_bindgen(getter)]
    pub fn height(&self) -> f64 {
        self.0.height
    }

    /// `[kind, row, col]` for the point `(x, y)`: kind is 0 (nothing),
    /// 1 (cell), 2 (row label) or 3 (column label); unused indices are -1.
    pub fn hit(&self, x: f64, y: f64) -> Vec<i32> {
        let i = |k: usize| i32::try_from(k).unwrap_or(-1);
        match self.0.hit(x, y) {
            Hit::Cell { row, col } => vec![HIT_CELL, i(row), i(col)],
            Hit::RowLabel(row) => vec![HIT_ROW_LABEL, i(row), -1],
            Hit::ColumnLabel(col) => vec![HIT_COLUMN_LABEL, -1, i(col)],
            Hit::Nothing => vec![HIT_NOTHING, -1, -1],
        }
    }

    /// Vertical position of `value` on the colorbar whose top is `max`.
    #[wasm_bindgen(js_name = colorbarY)]
    pub fn colorbar_y(&self, value: f64, max: f64) -> f64 {
        self.0.colorbar_y(value, max)
    }
}

/// Numbers per link in [`ArrowGeometry::links`].
pub const LINK_STRIDE: usize = 9;

/// The arrows view's geometry: query tokens on the left, keys on the right.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ArrowGeometry(ArrowLayout);

#[wasm_bindgen]
impl ArrowGeometry {
    #[wasm_bindgen(constructor)]
    pub fn new(tokens: usize, width: f64, label_width: f64, font_size: f64, max_height: f64) -> Self {
        ArrowGeometry(ArrowLayout::new(&ArrowSpec { tokens, width, label_width, font_size, max_height }))
    }

    /// The arrows of cross-attention: `queries` tokens on the left, `keys`
    /// on the right. [`hit`](ArrowGeometry::hit) counts keys in the right half.
    pub fn cross(
        queries: usize,
        keys: usize,
        width: f64,
        label_width: f64,
        font_size: f64,
        max_height: f64,
    ) -> Self {
        let spec = ArrowSpec { tokens: queries, width, label_width, font_size, max_height };
        ArrowGeometry(ArrowLayout::cross(&spec, keys))
    }

    /// Whether `x` is in the key (right) half.
    #[wasm_bindgen(js_name = isKeySide)]
    pub fn is_key_side(&self, x: f64) -> bool {
        self.0.is_key_side(x)
    }

    #[wasm_bindgen(getter, js_name = rowHeight)]
    pub fn row_height(&self) -> f64 {
        self.0.row_height
    }
    #[wasm_bindgen(getter)]
    pub fn top(&self) -> f64 {
        self.0.top
    }
    #[wasm_bindgen(getter, js_name = queryX)]
    pub fn query_x(&self) -> f64 {
        self.0.query_x
    }
    #[wasm_bindgen(getter, js_name = keyX)]
    pub fn key_x(&self) -> f64 {
        self.0.key_x
    }
    #[wasm_bindgen(getter, js_name = keyLabelX)]
    pub fn key_label_x(&self) -> f64 {
        self.0.key_label_x
    }
    #[wasm_bindgen(getter, js_name = labelsShown)]
    pub fn labels_shown(&self) -> bool {
        self.0.labels_shown
    }
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> f64 {
        self.0.width
    }
    #[wasm_bindgen(getter)]
    pub fn height(&self) -> f64 {
        self.0.height
    }

    /// The token row under `(x, y)`, or -1.
    pub fn hit(&self, x: f64, y: f64) -> i32 {
        self.0.hit(x, y).and_then(|i| i32::try_from(i).ok()).unwrap_or(-1)
    }

    /// The curves of every query of `weights` (`(tokens, keys)` row-major),
    /// flat, 9 numbers each: `query, key, weight, x0, y0, x1, y1, lineWidth,
    /// opacity`, weakest first.
    pub fn links(&self, weights: &[f32], threshold: f32, max_links: usize) -> Vec<f32> {
        flat_links(self.0.links(weights, threshold, max_links))
    }

    /// [`links`](ArrowGeometry::links) of `analysis`'s own weights: the
    /// matrix (4 MB at 1,024 tokens) is not copied in.
    #[wasm_bindgen(js_name = analysisLinks)]
    pub fn analysis_links(&self, analysis: &SentenceAnalysis, threshold: f32, max_links: usize) -> Vec<f32> {
        flat_links(self.0.links(&analysis.analysis.attention.weights, threshold, max_links))
    }

    /// The curves of the focused query `query`, from its row of weights
    /// alone (at 1,024 tokens, 4 KB cross into wasm, not the 4 MB matrix).
    #[wasm_bindgen(js_name = rowLinks)]
    pub fn row_links(&self, query: usize, row: &[f32], threshold: f32, max_links: usize) -> Vec<f32> {
        flat_links(self.0.row_links(query, row, threshold, max_links))
    }
}

/// Links as 9 numbers each ([`ArrowGeometry::links`]).
fn flat_links(links: Vec<layout::Link>) -> Vec<f32> {
    let mut flat = Vec::with_capacity(links.len() * LINK_STRIDE);
    for l in links {
        flat.extend_from_slice(&[
            l.query as f32,
            l.key as f32,
            l.weight,
            l.from.0 as f32,
            l.from.1 as f32,
            l.to.0 as f32,
            l.to.1 as f32,
            l.line_width as f32,
            l.opacity as f32,
        ]);
    }
    flat
}

fn rect(r: &layout::Rect) -> Vec<f64> {
    vec![r.x, r.y, r.width, r.height]
}
