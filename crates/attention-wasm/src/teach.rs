//! The boundary of the teaching views: the step-by-step numbers, the
//! what-if variants (padding), cross-attention, multi-head attention and the
//! matrix playground. Every number comes from `attention-core`; this module
//! only moves it across.
//!
//! - [`AttentionView`] is one attention matrix with its row and column
//!   labels, shaped `(rows, cols)` (cross-attention has `rows ≠ cols`).
//!   Matrices cross as flat row-major `Float32Array` copies, like
//!   [`SentenceAnalysis`](crate::SentenceAnalysis)'s. When it knows the
//!   queries, keys and values it came from, it also explains a row or a cell
//!   ([`AttentionView::explain_row`], [`AttentionView::explain_cell`]).
//! - [`MultiHeadView`] holds every head of multi-head attention and their
//!   average; [`MultiHeadView::head`] gives one head as an [`AttentionView`].
//! - Steps and cells cross as small objects through serde-wasm-bindgen:
//!   attention-core's `explain::RowSteps` and `explain::CellSteps`, camelCase.

use attention_core::analysis::{analyze_multi_head, known_rows, MultiHeadAnalysis};
use attention_core::explain::{explain_cell, explain_row, CellSteps, RowSteps};
use attention_core::layout;
use attention_core::multihead::{head_counts as core_head_counts, head_inputs, HeadMode};
use attention_core::{analyze_cross, analyze_padded, attend_with, Attention, Error, Extras, Matrix, Options};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::{Explorer, SentenceAnalysis, Settings};

/// The most known tokens the teaching views take (per sentence): they keep
/// one matrix per head, and their tables list every cell.
pub const MAX_TEACH_TOKENS: usize = 128;

/// The widest vectors the Multi-head tab takes: it multiplies each by
/// d × d projections (at 1,024 dimensions and 128 words, 0.25 s in the
/// browser; at 4,096, 6 s).
pub const MAX_HEAD_DIM: usize = 1024;

/// The longest padded sequence of the padding demo.
pub const MAX_PADDED_LENGTH: usize = 128;
/// The label of a padding position.
pub const PAD_LABEL: &str = "<pad>";

/// The queries, keys and values an attention was computed from, kept to
/// explain it.
#[derive(Debug, Clone)]
struct Inputs {
    query: Matrix,
    key: Matrix,
    value: Matrix,
    options: Options,
    padding: Option<Vec<bool>>,
    scale_dim: Option<usize>,
}

impl Inputs {
    fn extras(&self) -> Extras<'_> {
        Extras { key_padding: self.padding.as_deref(), scale_dim: self.scale_dim, ..Extras::default() }
    }

    fn steps(&self, row: usize) -> Result<RowSteps, JsError> {
        Ok(explain_row(&self.query, &self.key, &self.value, &self.options, &self.extras(), row)?)
    }

    fn cell(&self, row: usize, col: usize) -> Result<CellSteps, JsError> {
        Ok(explain_cell(&self.query, &self.key, &self.options, &self.extras(), row, col)?)
    }
}

/// One attention matrix for the teaching views.
#[wasm_bindgen]
#[derive(Debug)]
pub struct AttentionView {
    row_labels: Vec<String>,
    col_labels: Vec<String>,
    attention: Attention,
    scale_max: f32,
    inputs: Option<Inputs>,
}

impl AttentionView {
    fn new(
        row_labels: Vec<String>,
        col_labels: Vec<String>,
        attention: Attention,
        inputs: Option<Inputs>,
    ) -> Self {
        let scale_max = layout::scale_max(&attention.weights);
        AttentionView { row_labels, col_labels, attention, scale_max, inputs }
    }

    /// Attends and keeps the inputs, so that every row can be explained.
    fn attend(row_labels: Vec<String>, col_labels: Vec<String>, inputs: Inputs) -> Result<Self, JsError> {
        let attention =
            attend_with(&inputs.query, &inputs.key, &inputs.value, &inputs.options, &inputs.extras())?;
        Ok(Self::new(row_labels, col_labels, attention, Some(inputs)))
    }

    /// The core's attention, for Rust callers.
    pub fn attention(&self) -> &Attention {
        &self.attention
    }

    /// The labels of the rows, for Rust callers.
    pub fn row_label_list(&self) -> &[String] {
        &self.row_labels
    }

    /// The labels of the columns, for Rust callers.
    pub fn col_label_list(&self) -> &[String] {
        &self.col_labels
    }

    /// Steps 1–4 of `row`, for Rust callers.
    pub fn steps(&self, row: usize) -> Result<RowSteps, JsError> {
        self.inputs().and_then(|i| i.steps(row))
    }

    fn inputs(&self) -> Result<&Inputs, JsError> {
        self.inputs.as_ref().ok_or_else(|| {
            JsError::new(
                "the average of the heads has no single query and key: choose one head to see its steps",
            )
        })
    }
}

#[wasm_bindgen]
impl AttentionView {
    /// Number of query rows.
    #[wasm_bindgen(getter)]
    pub fn rows(&self) -> usize {
        self.attention.queries
    }

    /// Number of key columns.
    #[wasm_bindgen(getter)]
    pub fn cols(&self) -> usize {
        self.attention.keys
    }

    /// Dimension `d_k` of queries and keys.
    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> usize {
        self.attention.dim
    }

    /// Dimension `d_v` of values and context vectors.
    #[wasm_bindgen(getter, js_name = valueDim)]
    pub fn value_dim(&self) -> usize {
        self.attention.value_dim
    }

    /// The factor applied to every score: `(1/√d_k or 1) / temperature`.
    #[wasm_bindgen(getter)]
    pub fn factor(&self) -> f64 {
        self.attention.factor
    }

    /// The top of the colour scale: the largest weight.
    #[wasm_bindgen(getter, js_name = scaleMax)]
    pub fn scale_max(&self) -> f32 {
        self.scale_max
    }

    /// Whether [`explainRow`](AttentionView::explain_row) works (false for
    /// the average of the heads).
    #[wasm_bindgen(getter, js_name = hasSteps)]
    pub fn has_steps(&self) -> bool {
        self.inputs.is_some()
    }

    /// Labels of the rows (queries).
    #[wasm_bindgen(js_name = rowLabels)]
    pub fn row_labels(&self) -> Vec<String> {
        self.row_labels.clone()
    }

    /// Labels of the columns (keys).
    #[wasm_bindgen(js_name = colLabels)]
    pub fn col_labels(&self) -> Vec<String> {
        self.col_labels.clone()
    }

    /// Softmax weights, `(rows, cols)` row-major; 0 where masked.
    pub fn weights(&self) -> Vec<f32> {
        self.attention.weights.clone()
    }

    /// Raw dot products, `(rows, cols)` (empty for the average of the heads).
    pub fn scores(&self) -> Vec<f32> {
        self.attention.scores.clone()
    }

    /// `factor · score`, `(rows, cols)`; `-Infinity` where masked.
    pub fn scaled(&self) -> Vec<f32> {
        self.attention.scaled.clone()
    }

    /// Context vectors, `(rows, valueDim)`.
    pub fn context(&self) -> Vec<f32> {
        self.attention.context.clone()
    }

    /// `1` for each masked pair, `(rows, cols)`.
    pub fn masked(&self) -> Vec<u8> {
        self.attention.masked_cells().into_iter().map(u8::from).collect()
    }

    /// `1` for each row whose every key is masked.
    #[wasm_bindgen(js_name = fullyMasked)]
    pub fn fully_masked(&self) -> Vec<u8> {
        self.attention.fully_masked.iter().map(|m| u8::from(*m)).collect()
    }

    /// `1` for each column that is padding (the padding-mask demo), else `0`.
    pub fn padding(&self) -> Vec<u8> {
        let padding = self.inputs.as_ref().and_then(|i| i.padding.as_deref());
        (0..self.attention.keys).map(|c| u8::from(padding.is_some_and(|p| p[c]))).collect()
    }

    /// The queries, keys or values (`which` = "q", "k", "v") the attention
    /// used, flat row-major; empty when unknown. `[rows, cols]` of the same
    /// matrix come from [`shape`](AttentionView::shape).
    pub fn input(&self, which: &str) -> Vec<f32> {
        self.input_matrix(which).map(|m| m.as_slice().to_vec()).unwrap_or_default()
    }

    /// `[rows, cols]` of [`input`](AttentionView::input) `which`.
    pub fn shape(&self, which: &str) -> Vec<u32> {
        self.input_matrix(which).map(|m| vec![m.rows() as u32, m.cols() as u32]).unwrap_or_else(|| vec![0, 0])
    }

    fn input_matrix(&self, which: &str) -> Option<&Matrix> {
        let inputs = self.inputs.as_ref()?;
        match which {
            "q" => Some(&inputs.query),
            "k" => Some(&inputs.key),
            "v" => Some(&inputs.value),
            _ => None,
        }
    }

    /// Steps 1–4 for query `row`, as a `RowSteps` object (attention-core's `explain`). Throws for the
    /// average of the heads and for a row out of range.
    #[wasm_bindgen(js_name = explainRow)]
    pub fn explain_row(&self, row: usize) -> Result<JsValue, JsError> {
        steps_value(&self.steps(row)?)
    }

    /// The dot product of cell `(row, col)` term by term, as a `CellSteps` object.
    #[wasm_bindgen(js_name = explainCell)]
    pub fn explain_cell(&self, row: usize, col: usize) -> Result<JsValue, JsError> {
        cell_value(&self.inputs()?.cell(row, col)?)
    }
}

/// Every head of multi-head attention over a sentence, and their average.
#[wasm_bindgen]
#[derive(Debug)]
pub struct MultiHeadView {
    analysis: MultiHeadAnalysis,
    mode: HeadMode,
    options: Options,
    labels: Vec<String>,
}

impl MultiHeadView {
    /// The core's result, for Rust callers.
    pub fn analysis(&self) -> &MultiHeadAnalysis {
        &self.analysis
    }
}

#[wasm_bindgen]
impl MultiHeadView {
    /// Number of heads `h`.
    #[wasm_bindgen(getter)]
    pub fn heads(&self) -> usize {
        self.analysis.result.heads.len()
    }

    /// `d_k = d_model / h`.
    #[wasm_bindgen(getter, js_name = headDim)]
    pub fn head_dim(&self) -> usize {
        self.analysis.result.head_dim
    }

    /// Number of known tokens: every matrix is `(size, size)`.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.analysis.used.len()
    }

    /// Labels of the known tokens.
    pub fn labels(&self) -> Vec<String> {
        self.labels.clone()
    }

    /// The weights of head `head`, `(size, size)`; `head` = -1 gives the average.
    pub fn weights(&self, head: i32) -> Vec<f32> {
        match usize::try_from(head).ok().and_then(|h| self.analysis.result.heads.get(h)) {
            Some(attention) => attention.weights.clone(),
            None => self.analysis.result.average.clone(),
        }
    }

    /// Head `head` (or the average for -1) as an [`AttentionView`]; a head
    /// keeps its own Q, K and V, so its rows can be explained.
    pub fn head(&self, head: i32) -> Result<AttentionView, JsError> {
        let labels = self.labels.clone();
        let Ok(h) = usize::try_from(head) else {
            return Ok(self.average());
        };
        let attention = self
            .analysis
            .result
            .heads
            .get(h)
            .ok_or_else(|| JsError::new(&format!("there is no head {h} (there are {})", self.heads())))?
            .clone();
        // The head's own Q, K, V, so that its rows can be explained.
        let [query, key, value] = head_inputs(&self.analysis.input, self.heads(), self.mode, h)?;
        let inputs = Inputs { query, key, value, options: self.options, padding: None, scale_dim: None };
        Ok(AttentionView::new(labels.clone(), labels, attention, Some(inputs)))
    }

    fn average(&self) -> AttentionView {
        let r = &self.analysis.result;
        let first = &r.heads[0];
        // The masks are the same for every head; the scores of the average are not defined.
        let scaled = first.scaled.iter().map(|s| if *s == f32::NEG_INFINITY { *s } else { 0.0 }).collect();
        let attention = Attention {
            scores: Vec::new(),
            scaled,
            weights: r.average.clone(),
            context: r.context.clone(),
            value_dim: self.analysis.input.cols(),
            ..first.clone()
        };
        AttentionView::new(self.labels.clone(), self.labels.clone(), attention, None)
    }
}

/// What the playground sends: small matrices typed by hand (see
/// `attention_core::Matrix::parse`), names for the tokens, the scaling `d_k`
/// and the usual settings. Empty `k` means "the same as `q`", empty `v` "the
/// same as `k`"; `wq`, `wk`, `wv` (optional) project them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlaygroundSpec {
    pub q: String,
    pub k: String,
    pub v: String,
    pub wq: String,
    pub wk: String,
    pub wv: String,
    /// Token names separated by spaces or commas (keys, and queries when Q has as many rows).
    pub names: String,
    /// Divide by `√scale_dim` instead of `√d_k`; 0 = `d_k`.
    pub scale_dim: usize,
    pub settings: Settings,
}

/// The matrix typed in `text`, or `None` when it is blank; errors name it.
fn typed(name: &str, text: &str) -> Result<Option<Matrix>, JsError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    Matrix::parse(text).map(Some).map_err(|e| JsError::new(&format!("{name}: {e}")))
}

/// `m · w` (or `m`), no larger than a typed matrix: a link can type a
/// 2,000 × 1 Q and a 1 × 2,000 W_q, whose product (4 million numbers, each
/// drawn in a table) would hold the page for minutes.
fn project(name: &str, m: Matrix, w: Option<Matrix>) -> Result<Matrix, JsError> {
    let Some(w) = w else { return Ok(m) };
    if m.rows() * w.cols() > Matrix::MAX_TYPED {
        return Err(JsError::new(&format!(
            "{name} would be {} × {}: the playground shows at most {} numbers a matrix",
            m.rows(),
            w.cols(),
            Matrix::MAX_TYPED
        )));
    }
    m.matmul(&w).map_err(|e| JsError::new(&format!("{name}: {e}")))
}

/// A typed Q, K or V holds at most [`MAX_TEACH_TOKENS`] rows: its attention,
/// a row and a column a token, is drawn cell by cell.
fn tokens_at_most(name: &str, m: Matrix) -> Result<Matrix, JsError> {
    if m.rows() > MAX_TEACH_TOKENS {
        return Err(JsError::new(&format!(
            "{name}: {} rows; the playground takes at most {MAX_TEACH_TOKENS}, a row a token",
            m.rows()
        )));
    }
    Ok(m)
}

/// Names for `count` tokens: the typed ones, then `prefix1`, `prefix2`, …
fn names(typed: &[&str], count: usize, prefix: &str) -> Vec<String> {
    (0..count)
        .map(|i| typed.get(i).map_or_else(|| format!("{prefix}{}", i + 1), |s| (*s).to_string()))
        .collect()
}

/// Runs the playground: `softmax(factor · (Q W_q)(K W_k)ᵀ) · (V W_v)`.
#[wasm_bindgen]
pub fn playground(spec: JsValue) -> Result<AttentionView, JsError> {
    let spec: PlaygroundSpec = serde_wasm_bindgen::from_value(spec)
        .map_err(|e| JsError::new(&format!("invalid playground: {e}")))?;
    playground_of(&spec)
}

/// [`playground`] for Rust callers.
pub fn playground_of(spec: &PlaygroundSpec) -> Result<AttentionView, JsError> {
    let q = typed("Q", &spec.q)?.ok_or_else(|| JsError::new("Q: type at least one row of numbers"))?;
    let q = tokens_at_most("Q", q)?;
    let k = tokens_at_most("K", typed("K", &spec.k)?.unwrap_or_else(|| q.clone()))?;
    let v = tokens_at_most("V", typed("V", &spec.v)?.unwrap_or_else(|| k.clone()))?;
    let query = project("Q · W_q", q, typed("W_q", &spec.wq)?)?;
    let key = project("K · W_k", k, typed("W_k", &spec.wk)?)?;
    let value = project("V · W_v", v, typed("W_v", &spec.wv)?)?;
    let typed_names: Vec<&str> = spec.names.split([' ', ',', ';']).filter(|s| !s.is_empty()).collect();
    let cols = names(&typed_names, key.rows(), "k");
    let rows = if query.rows() == key.rows() { cols.clone() } else { names(&[], query.rows(), "q") };
    let scale_dim = (spec.scale_dim > 0).then_some(spec.scale_dim);
    let inputs = Inputs { query, key, value, options: spec.settings.into(), padding: None, scale_dim };
    AttentionView::attend(rows, cols, inputs)
}

/// The head counts that divide `d_model` (for 50: 1, 2, 5, 10, 25, 50).
#[wasm_bindgen(js_name = headCounts)]
pub fn head_counts(d_model: usize) -> Vec<u32> {
    core_head_counts(d_model).into_iter().map(|h| h as u32).collect()
}

/// The options of an analysis from JS (`undefined`: the defaults).
pub(crate) fn settings_of(value: JsValue) -> Result<Settings, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Settings::default());
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| JsError::new(&format!("invalid settings: {e}")))
}

impl Explorer {
    /// Refuses a text of more than [`MAX_TEACH_TOKENS`] known words for
    /// `part` ("this view", or the part of a view that takes fewer words
    /// than the rest: "the padding example").
    fn check_teach_size(&self, sentence: &str, part: &str) -> Result<(), JsError> {
        self.check_size_of(sentence, "the text", part)
    }

    /// As [`check_teach_size`](Self::check_teach_size), the message naming
    /// the sentence `name` ("sentence B").
    fn check_size_of(&self, sentence: &str, name: &str, part: &str) -> Result<(), JsError> {
        let known = attention_core::tokenize(sentence, &self.embeddings).iter().filter(|t| t.known).count();
        if known > MAX_TEACH_TOKENS {
            return Err(JsError::new(&format!(
                "{name} has {known} known words; {part} takes at most {MAX_TEACH_TOKENS}: shorten it"
            )));
        }
        Ok(())
    }
}

#[wasm_bindgen]
impl Explorer {
    /// Steps 1–4 of row `row` of a sentence analysis, as a `RowSteps`
    /// object: the same numbers as its heatmap.
    #[wasm_bindgen(js_name = explainRow)]
    pub fn explain_row(&self, analysis: &SentenceAnalysis, row: usize) -> Result<JsValue, JsError> {
        let a = analysis.analysis();
        let steps = explain_row(&a.input, &a.input, &a.input, &a.attention.options, &Extras::default(), row)?;
        steps_value(&steps)
    }

    /// The dot product of cell `(row, col)` of a sentence analysis, term by
    /// term, as a `CellSteps` object.
    #[wasm_bindgen(js_name = explainCell)]
    pub fn explain_cell(
        &self,
        analysis: &SentenceAnalysis,
        row: usize,
        col: usize,
    ) -> Result<JsValue, JsError> {
        let a = analysis.analysis();
        let cell = explain_cell(&a.input, &a.input, &a.attention.options, &Extras::default(), row, col)?;
        cell_value(&cell)
    }

    /// The vectors of the known tokens of a sentence analysis, `(size, dim)`.
    #[wasm_bindgen(js_name = inputVectors)]
    pub fn input_vectors(&self, analysis: &SentenceAnalysis) -> Result<Vec<f32>, JsError> {
        Ok(analysis.analysis().input.as_slice().to_vec())
    }

    /// Cross-attention: the known tokens of `a` (rows, queries) over those
    /// of `b` (columns, keys and values). The self and causal masks do not
    /// apply across sentences and are switched off.
    #[wasm_bindgen(js_name = analyzeCross)]
    pub fn analyze_cross(&self, a: &str, b: &str, settings: JsValue) -> Result<AttentionView, JsError> {
        let options: Options = settings_of(settings)?.into();
        self.check_size_of(a, "sentence A", "this view")?;
        self.check_size_of(b, "sentence B", "this view")?;
        // A message that says which sentence has no word to use: the tab
        // shows both, and "the sentence is empty" read as A's.
        for (sentence, name) in [(a, "A"), (b, "B")] {
            match known_rows(sentence, &self.embeddings) {
                Err(Error::EmptySentence) => {
                    return Err(JsError::new(&format!("sentence {name} is empty: type a few words")))
                }
                Err(error) => return Err(JsError::new(&format!("sentence {name}: {error}"))),
                Ok(_) => {}
            }
        }
        let cross = analyze_cross(a, b, &self.embeddings, &options)?;
        let rows = cross.used.iter().map(|i| cross.tokens[*i].text.clone()).collect();
        let cols = cross.used_keys.iter().map(|i| cross.key_tokens[*i].text.clone()).collect();
        let inputs = Inputs {
            query: cross.query_input,
            key: cross.key_input.clone(),
            value: cross.key_input,
            options: cross.attention.options,
            padding: None,
            scale_dim: None,
        };
        Ok(AttentionView::new(rows, cols, cross.attention, Some(inputs)))
    }

    /// Self-attention over `sentence` padded with zero vectors to `length`
    /// positions, the padding keys masked. Labels of the padding: `<pad>`.
    #[wasm_bindgen(js_name = analyzePadded)]
    pub fn analyze_padded(
        &self,
        sentence: &str,
        settings: JsValue,
        length: usize,
    ) -> Result<AttentionView, JsError> {
        let options: Options = settings_of(settings)?.into();
        self.check_teach_size(sentence, "the padding example")?;
        if length > MAX_PADDED_LENGTH {
            return Err(JsError::new(&format!("pad to at most {MAX_PADDED_LENGTH} positions")));
        }
        let padded = analyze_padded(sentence, &self.embeddings, &options, length)?;
        let mut labels: Vec<String> = padded.used_tokens().map(|t| t.text.clone()).collect();
        labels.resize(padded.attention.keys, PAD_LABEL.to_string());
        let inputs = Inputs {
            query: padded.input.clone(),
            key: padded.input.clone(),
            value: padded.input.clone(),
            options,
            padding: Some(padded.padding()),
            scale_dim: None,
        };
        Ok(AttentionView::new(labels.clone(), labels, padded.attention, Some(inputs)))
    }

    /// Multi-head attention over `sentence`: `heads` heads of
    /// `d_k = dim / heads` dimensions; `mode` "split" (each head its slice of
    /// the dimensions) or "projected" (W_q, W_k, W_v drawn from `seed`).
    #[wasm_bindgen(js_name = multiHead)]
    pub fn multi_head(
        &self,
        sentence: &str,
        settings: JsValue,
        heads: usize,
        mode: &str,
        seed: u32,
    ) -> Result<MultiHeadView, JsError> {
        let options: Options = settings_of(settings)?.into();
        let mode = match mode {
            "split" => HeadMode::Split,
            "projected" => HeadMode::Projected { seed: u64::from(seed) },
            other => {
                return Err(JsError::new(&format!("unknown head mode '{other}': use split or projected")))
            }
        };
        self.check_teach_size(sentence, "this view")?;
        let dim = self.embeddings.dim();
        if dim > MAX_HEAD_DIM {
            return Err(JsError::new(&format!(
                "this view projects every vector: it takes at most {MAX_HEAD_DIM} dimensions, these vectors have {dim}"
            )));
        }
        let analysis = analyze_multi_head(sentence, &self.embeddings, &options, heads, mode)?;
        let labels = analysis.used.iter().map(|i| analysis.tokens[*i].text.clone()).collect();
        Ok(MultiHeadView { analysis, mode, options, labels })
    }

    /// The vector of `word`, or `undefined` when the vocabulary lacks it.
    #[wasm_bindgen(js_name = vectorOf)]
    pub fn vector_of(&self, word: &str) -> Option<Vec<f32>> {
        self.embeddings.vector(word).map(<[f32]>::to_vec)
    }
}

/// A `RowSteps` as the page reads it: camelCase fields, arrays of numbers,
/// `null` where a step has no value (a masked key, an overflowed `exp`).
/// Each array crosses as one typed array made a plain one (`Array.from`):
/// serde's element-by-element arrays took milliseconds for a row of 1,024 keys.
fn steps_value(steps: &RowSteps) -> Result<JsValue, JsError> {
    let numbers = |values: &[f64]| js_sys::Array::from(&js_sys::Float64Array::from(values));
    let optional = |values: &[Option<f64>]| {
        let array = numbers(&values.iter().map(|v| v.unwrap_or(0.0)).collect::<Vec<_>>());
        for (i, _) in values.iter().enumerate().filter(|(_, v)| v.is_none()) {
            array.set(i as u32, JsValue::NULL);
        }
        array
    };
    let scalar = |value: Option<f64>| value.map_or(JsValue::NULL, JsValue::from);
    let object = js_sys::Object::new();
    for (key, value) in [
        ("query", JsValue::from(steps.query)),
        ("factor", JsValue::from(steps.factor)),
        ("dots", numbers(&steps.dots).into()),
        ("scaled", optional(&steps.scaled).into()),
        ("max", scalar(steps.max)),
        ("exps", optional(&steps.exps).into()),
        ("sumOfExps", scalar(steps.sum_of_exps)),
        ("shiftedExps", numbers(&steps.shifted_exps).into()),
        ("shiftedSum", JsValue::from(steps.shifted_sum)),
        ("weights", numbers(&steps.weights).into()),
        ("context", numbers(&steps.context).into()),
        ("cosines", js_sys::Array::from(&js_sys::Float32Array::from(&steps.cosines[..])).into()),
    ] {
        js_sys::Reflect::set(&object, &key.into(), &value)
            .map_err(|_| JsError::new("cannot build the steps"))?;
    }
    Ok(object.into())
}

/// A `CellSteps` as the page reads it, `null` where masked.
fn cell_value(cell: &CellSteps) -> Result<JsValue, JsError> {
    Ok(cell.serialize(&serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fill_in_after_the_typed_ones() {
        assert_eq!(names(&["C", "A"], 3, "k"), ["C", "A", "k3"]);
        assert_eq!(names(&[], 2, "q"), ["q1", "q2"]);
    }
}
