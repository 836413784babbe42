//! The exports that look inside and across heads, for the page's head search,
//! head panel, rollout and query/key picture, and the manifest checks.
//!
//! On a [`ModelRun`], in the run's own view (pieces or words, with or without
//! `[CLS]`/`[SEP]`; token indices are the run's):
//! - `searchHeads(query, key)` → [`HeadRanking`]: every layer × head by the
//!   weight from token `query` to token `key`, best first (ties by layer, then head);
//! - `rankHeads(pattern)` → [`HeadRanking`] by one measured behaviour
//!   (`previous`, `next`, `self`, `special`, `same-word`, `focus`), or
//!   `undefined` when it does not apply to the sentence (same word without a
//!   repeated word);
//! - `headBehaviours()` → `{ sameWordApplies, heads: [{ layer, head, previous,
//!   next, itself, special, sameWord, focus: { token, share }, peak, pattern,
//!   description }] }` (measures in `[0, 1]`, `null` where they do not apply);
//! - `rollout()` → [`RolloutView`] (`Rollout` in JavaScript): `(layers, n, n)` rollout and head average.
//!
//! On the [`ModelSession`], for a sentence, in pieces (`query` is a piece
//! index, `[CLS]` = 0; a run token's `pieces` gives it):
//! - `headDetails(sentence, layer, head, query)` → [`HeadInside`]
//!   (`HeadDetails`): q, k, v `(n, d)`, scores, scaled, weights `(n)`, context `(d)`;
//! - `projectHead(sentence, layer, head)` → [`HeadPicture`]
//!   (`HeadProjection`): `(2n, 2)` points, queries then keys, and the two
//!   axes' shares of the variance.
//!
//! Both rerun the encoder up to the layer (at most one forward pass); the
//! plain `run` keeps nothing extra. Every matrix is a new flat
//! `Float32Array` (a copy, safe to keep), with its shape from `size()` and `dim()`.

use attention_model::heads::{rank_by, HeadBehaviour, HeadMatch, Pattern};
use attention_model::manifest::{ManifestFile, ModelManifest};
use attention_model::{Error, HeadDetails, HeadProjection, Rollout};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::{piece_token, ModelRun, ModelSession, RunToken};

/// Heads in order with one number each: flat, one entry per head.
#[wasm_bindgen]
#[derive(Debug, Clone, PartialEq)]
pub struct HeadRanking {
    layers: Vec<u32>,
    heads: Vec<u32>,
    values: Vec<f32>,
}

impl From<Vec<HeadMatch>> for HeadRanking {
    fn from(matches: Vec<HeadMatch>) -> Self {
        HeadRanking {
            layers: matches.iter().map(|m| m.layer as u32).collect(),
            heads: matches.iter().map(|m| m.head as u32).collect(),
            values: matches.iter().map(|m| m.weight).collect(),
        }
    }
}

#[wasm_bindgen]
impl HeadRanking {
    /// Number of heads ranked (72 for MiniLM).
    pub fn size(&self) -> usize {
        self.values.len()
    }

    /// `Uint32Array`: the layer of each ranked head, best first.
    pub fn layers(&self) -> Vec<u32> {
        self.layers.clone()
    }

    /// `Uint32Array`: the head of each ranked head, best first.
    pub fn heads(&self) -> Vec<u32> {
        self.heads.clone()
    }

    /// `Float32Array`: the weight (search) or the measure (behaviour) of each.
    pub fn values(&self) -> Vec<f32> {
        self.values.clone()
    }
}

/// One head opened for one query piece (`HeadDetails` in JavaScript).
#[wasm_bindgen(js_name = HeadDetails)]
#[derive(Debug, Clone)]
pub struct HeadInside {
    details: HeadDetails,
    tokens: Vec<RunToken>,
}

#[wasm_bindgen(js_class = HeadDetails)]
impl HeadInside {
    pub fn layer(&self) -> usize {
        self.details.layer
    }

    pub fn head(&self) -> usize {
        self.details.head
    }

    /// The query piece.
    pub fn query(&self) -> usize {
        self.details.query
    }

    /// Pieces `n`.
    pub fn size(&self) -> usize {
        self.details.n
    }

    /// Dimensions of the head `d` (32 for MiniLM).
    pub fn dim(&self) -> usize {
        self.details.dim
    }

    /// `(n, d)`: every piece's query vector.
    pub fn queries(&self) -> Vec<f32> {
        self.details.queries.clone()
    }

    /// `(n, d)`: every piece's key vector.
    pub fn keys(&self) -> Vec<f32> {
        self.details.keys.clone()
    }

    /// `(n, d)`: every piece's value vector.
    pub fn values(&self) -> Vec<f32> {
        self.details.values.clone()
    }

    /// `(n)`: `q[query] · k[t]`.
    pub fn scores(&self) -> Vec<f32> {
        self.details.scores.clone()
    }

    /// `1/√d`.
    pub fn scale(&self) -> f32 {
        self.details.scale
    }

    /// `(n)`: `scores · scale`.
    pub fn scaled(&self) -> Vec<f32> {
        self.details.scaled.clone()
    }

    /// `(n)`: the softmax of `scaled`, the row the heatmap draws.
    pub fn weights(&self) -> Vec<f32> {
        self.details.weights.clone()
    }

    /// `(d)`: `Σ_t weights[t] · v[t]`.
    pub fn context(&self) -> Vec<f32> {
        self.details.context.clone()
    }

    /// The pieces, `[{ text, span, special, pieces }]`.
    pub fn tokens(&self) -> Result<JsValue, JsError> {
        Ok(serde_wasm_bindgen::to_value(&self.tokens)?)
    }
}

impl HeadInside {
    /// The details, for native callers.
    pub fn details(&self) -> &HeadDetails {
        &self.details
    }
}

/// One head's queries and keys in one 2-D picture (`HeadProjection` in JavaScript).
#[wasm_bindgen(js_name = HeadProjection)]
#[derive(Debug, Clone)]
pub struct HeadPicture {
    projection: HeadProjection,
    tokens: Vec<RunToken>,
}

#[wasm_bindgen(js_class = HeadProjection)]
impl HeadPicture {
    /// Pieces `n`.
    pub fn size(&self) -> usize {
        self.projection.n
    }

    /// `(2n, 2)`: rows `0..n` the pieces' queries, rows `n..2n` their keys.
    pub fn points(&self) -> Vec<f32> {
        self.projection.points.clone()
    }

    /// `(2, d)`: the two axes in the head's space.
    pub fn axes(&self) -> Vec<f32> {
        self.projection.axes.clone()
    }

    /// `[share of axis 1, share of axis 2]` of the total variance.
    pub fn explained(&self) -> Vec<f32> {
        self.projection.explained.to_vec()
    }

    /// The pieces, `[{ text, span, special, pieces }]`.
    pub fn tokens(&self) -> Result<JsValue, JsError> {
        Ok(serde_wasm_bindgen::to_value(&self.tokens)?)
    }
}

impl HeadPicture {
    /// The projection, for native callers.
    pub fn projection(&self) -> &HeadProjection {
        &self.projection
    }
}

/// Attention rollout and head average of every layer (`Rollout` in JavaScript).
#[wasm_bindgen(js_name = Rollout)]
#[derive(Debug, Clone)]
pub struct RolloutView {
    rollout: Rollout,
}

#[wasm_bindgen(js_class = Rollout)]
impl RolloutView {
    pub fn layers(&self) -> usize {
        self.rollout.layers
    }

    /// Tokens `n`.
    pub fn size(&self) -> usize {
        self.rollout.n
    }

    /// `(layers, n, n)`: the rollout after each layer; rows sum to 1.
    pub fn rollout(&self) -> Vec<f32> {
        self.rollout.rollout.clone()
    }

    /// `(layers, n, n)`: each layer's attention averaged over its heads.
    pub fn average(&self) -> Vec<f32> {
        self.rollout.average.clone()
    }
}

impl RolloutView {
    /// The rollout, for native callers.
    pub fn inner(&self) -> &Rollout {
        &self.rollout
    }
}

/// What `headBehaviours()` returns (camelCase in JavaScript).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Behaviours {
    /// A word of the sentence repeats, so `sameWord` is measured.
    pub same_word_applies: bool,
    /// Every head, layer then head order.
    pub heads: Vec<BehaviourEntry>,
}

/// One head of [`Behaviours`]; see `attention_model::heads` for the measures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BehaviourEntry {
    pub layer: usize,
    pub head: usize,
    pub previous: Option<f32>,
    pub next: Option<f32>,
    pub itself: f32,
    pub special: f32,
    pub same_word: Option<f32>,
    pub focus: Option<FocusEntry>,
    pub peak: f32,
    /// The pattern the description names: `previous`, `next`, `self`, `special`, `same-word`, `focus`.
    pub pattern: Option<&'static str>,
    pub description: String,
}

/// The token the other tokens attend to most, and their mean weight on it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FocusEntry {
    pub token: usize,
    pub share: f32,
}

impl From<HeadBehaviour> for BehaviourEntry {
    fn from(b: HeadBehaviour) -> Self {
        BehaviourEntry {
            layer: b.layer,
            head: b.head,
            previous: b.previous,
            next: b.next,
            itself: b.itself,
            special: b.special,
            same_word: b.same_word,
            focus: b.focus.map(|f| FocusEntry { token: f.token, share: f.share }),
            peak: b.peak,
            pattern: b.pattern.map(Pattern::name),
            description: b.description,
        }
    }
}

#[wasm_bindgen]
impl ModelRun {
    /// Every head ranked by the weight from token `query` to token `key`
    /// (indices into this run's tokens), best first; ties by layer, then head.
    #[wasm_bindgen(js_name = searchHeads)]
    pub fn search_heads(&self, query: usize, key: usize) -> Result<HeadRanking, JsError> {
        Ok(self.search_heads_native(query, key)?.into())
    }

    /// Every head ranked by one measured behaviour, best first: `previous`,
    /// `next`, `self`, `special`, `same-word` or `focus`. `undefined` when it
    /// does not apply to this sentence.
    #[wasm_bindgen(js_name = rankHeads)]
    pub fn rank_heads(&self, pattern: &str) -> Result<Option<HeadRanking>, JsError> {
        let pattern = Pattern::from_name(pattern).ok_or_else(|| {
            let names: Vec<&str> = Pattern::ALL.iter().map(|p| p.name()).collect();
            JsError::new(&format!("unknown behaviour '{pattern}': choose one of {}", names.join(", ")))
        })?;
        Ok(rank_by(&self.heads_view().behaviours(), pattern).map(HeadRanking::from))
    }

    /// Every head's measures and one-line description, measured on this sentence.
    #[wasm_bindgen(js_name = headBehaviours)]
    pub fn head_behaviours(&self) -> Result<JsValue, JsError> {
        let serializer = serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true);
        Ok(self.behaviours_native().serialize(&serializer)?)
    }

    /// Attention rollout and the head average, for every layer.
    pub fn rollout(&self) -> RolloutView {
        RolloutView { rollout: self.heads_view().rollout() }
    }
}

impl ModelRun {
    /// [`ModelRun::search_heads`] with the model crate's types, for native callers.
    pub fn search_heads_native(&self, query: usize, key: usize) -> Result<Vec<HeadMatch>, Error> {
        self.heads_view().search(query, key)
    }

    /// What [`ModelRun::head_behaviours`] returns, for native callers.
    pub fn behaviours_native(&self) -> Behaviours {
        let view = self.heads_view();
        Behaviours {
            same_word_applies: view.has_repeated_words(),
            heads: view.behaviours().into_iter().map(BehaviourEntry::from).collect(),
        }
    }
}

#[wasm_bindgen]
impl ModelSession {
    /// Opens head `head` of layer `layer` for the piece `query` of
    /// `sentence` ([CLS] = 0): q, k, v, scores, weights, context. Reruns the
    /// sentence up to that layer; its shards must have been added.
    #[wasm_bindgen(js_name = headDetails)]
    pub fn head_details(
        &self,
        sentence: &str,
        layer: usize,
        head: usize,
        query: usize,
    ) -> Result<HeadInside, JsError> {
        Ok(self.head_details_native(sentence, layer, head, query)?)
    }

    /// The queries and keys of head `head` of layer `layer`, for every piece
    /// of `sentence`, in one 2-D picture (PCA).
    #[wasm_bindgen(js_name = projectHead)]
    pub fn project_head(&self, sentence: &str, layer: usize, head: usize) -> Result<HeadPicture, JsError> {
        Ok(self.project_head_native(sentence, layer, head)?)
    }

    /// The exact length shard file `k` must have, from the core; `undefined`
    /// if the model has no shard `k`. Compare with the manifest before
    /// allocating a download.
    #[wasm_bindgen(js_name = shardBytes)]
    pub fn shard_bytes(&self, k: usize) -> Option<f64> {
        self.model.shard_bytes(k).map(|b| b as f64)
    }

    /// Checks the parsed `manifest.json` against this core: the core's
    /// length, the shard count and every shard's exact length (and the
    /// limits of `checkManifestListing`). Throws with what is wrong.
    #[wasm_bindgen(js_name = checkManifest)]
    pub fn check_manifest(&self, manifest: JsValue) -> Result<(), JsError> {
        let listing: ManifestListing = serde_wasm_bindgen::from_value(manifest).map_err(malformed)?;
        Ok(self.check_manifest_native(&listing)?)
    }
}

impl ModelSession {
    /// [`ModelSession::head_details`] with the model crate's error, for native callers.
    pub fn head_details_native(
        &self,
        sentence: &str,
        layer: usize,
        head: usize,
        query: usize,
    ) -> Result<HeadInside, Error> {
        let (projections, tokens) = self.projections(sentence, layer)?;
        Ok(HeadInside { details: projections.head_details(head, query)?, tokens })
    }

    /// [`ModelSession::project_head`] with the model crate's error, for native callers.
    pub fn project_head_native(
        &self,
        sentence: &str,
        layer: usize,
        head: usize,
    ) -> Result<HeadPicture, Error> {
        let (projections, tokens) = self.projections(sentence, layer)?;
        Ok(HeadPicture { projection: projections.project_head(head)?, tokens })
    }

    /// [`ModelSession::check_manifest`] for native callers.
    pub fn check_manifest_native(&self, listing: &ManifestListing) -> Result<(), Error> {
        self.model.check_manifest(&listing.to_manifest()?, self.core_bytes)
    }

    fn projections(
        &self,
        sentence: &str,
        layer: usize,
    ) -> Result<(attention_model::Projections, Vec<RunToken>), Error> {
        let pieces = self.model.tokenize(sentence);
        let ids: Vec<u32> = pieces.iter().map(|p| p.id).collect();
        let projections = self.model.layer_projections(&ids, layer)?;
        Ok((projections, pieces.iter().enumerate().map(|(i, p)| piece_token(p, i)).collect()))
    }
}

/// Checks the parsed `manifest.json` before anything is downloaded: the
/// core at most 512 MiB, every shard at most 64 MiB, whole numbers of
/// bytes, file names inside the model folder. Throws with what is wrong.
#[wasm_bindgen(js_name = checkManifestListing)]
pub fn check_manifest_listing(manifest: JsValue) -> Result<(), JsError> {
    let listing: ManifestListing = serde_wasm_bindgen::from_value(manifest).map_err(malformed)?;
    Ok(listing.to_manifest()?.check_listing()?)
}

fn malformed(e: serde_wasm_bindgen::Error) -> JsError {
    JsError::new(&format!(
        "the manifest (manifest.json) is damaged: it does not list the core and the shards as {{file, bytes}} ({e}); rebuild the model with scripts/build-model"
    ))
}

/// The part of `manifest.json` loading needs, as parsed JSON gives it
/// (sizes as JavaScript numbers); other fields are ignored.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ManifestListing {
    pub core: ListedFile,
    pub shards: Vec<ListedFile>,
}

/// One `{ file, bytes }` entry of [`ManifestListing`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ListedFile {
    pub file: String,
    pub bytes: f64,
}

impl ManifestListing {
    /// The listing with whole-number sizes, or the entry whose size is not one.
    pub fn to_manifest(&self) -> Result<ModelManifest, Error> {
        let file = |entry: &ListedFile, what: &str| {
            // 2⁵³: every whole number below it is exact in a JavaScript number.
            let whole = entry.bytes.is_finite() && entry.bytes >= 0.0 && entry.bytes.fract() == 0.0;
            if !whole || entry.bytes > 9_007_199_254_740_992.0 {
                return Err(attention_model::manifest::damaged(format!(
                    "it lists {what} ({}) as {} bytes, not a whole number of bytes",
                    entry.file, entry.bytes
                )));
            }
            Ok(ManifestFile { file: entry.file.clone(), bytes: entry.bytes as u64 })
        };
        Ok(ModelManifest {
            core: file(&self.core, "the core")?,
            shards: self
                .shards
                .iter()
                .enumerate()
                .map(|(k, s)| file(s, &format!("embedding shard {k}")))
                .collect::<Result<_, _>>()?,
        })
    }
}
