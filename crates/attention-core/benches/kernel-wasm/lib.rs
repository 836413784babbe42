//! The attention kernel behind a minimal wasm-bindgen boundary, for
//! `scripts/bench-kernel` (which builds this file as a cdylib outside the
//! workspace) and `tests/e2e/bench-kernel.mjs` (which times it in Node).
//! The vectors are made inside wasm, as the page keeps them there.

use attention_core::{self_attention, Attention, Matrix, Options};
use wasm_bindgen::prelude::*;

#[path = "glove_like.rs"]
mod glove_like;

/// Grows the wasm memory by `megabytes` and touches it, then frees it: what a
/// page could do at start-up so that the first long input does not pay for
/// growing the memory. Returns the bytes touched.
#[wasm_bindgen]
pub fn reserve(megabytes: usize) -> usize {
    let block = vec![1u8; megabytes << 20];
    std::hint::black_box(&block).len()
}

/// `n` seeded GloVe-like vectors, ready to attend over.
#[wasm_bindgen]
pub struct Kernel {
    x: Matrix,
}

#[wasm_bindgen]
impl Kernel {
    #[wasm_bindgen(constructor)]
    pub fn new(n: usize, seed: u64) -> Result<Kernel, JsError> {
        Ok(Kernel { x: glove_like::glove_like(n, seed)? })
    }

    /// One `self_attention` (the page's settings); returns the sum of the
    /// weights so that the work cannot be skipped.
    pub fn run(&self) -> Result<f64, JsError> {
        Ok(weight_sum(&self_attention(&self.x, &Options::default())?))
    }

    /// Every output of one `self_attention` with the given masks, concatenated:
    /// scores, scaled, weights, context (to compare with native bit for bit).
    pub fn outputs(&self, self_attention_on: bool, causal: bool) -> Result<Vec<f32>, JsError> {
        let options = Options { self_attention: self_attention_on, causal, ..Options::default() };
        let a = attention_core::self_attention(&self.x, &options)?;
        Ok([a.scores, a.scaled, a.weights, a.context].concat())
    }
}

/// The page's way with a long text (`www/js/analysis.js`): the weights only,
/// a block of query rows per call from JS, 25 ms of calls per task. A call
/// from JS runs the engine's newest code for the kernel, so a cold first
/// job runs optimized once the engine has compiled it, where one long call
/// ([`Kernel::run`]) runs to its end on the baseline tier. Only for a core
/// that has jobs (`scripts/bench-kernel` sets the feature).
#[cfg(feature = "job")]
#[wasm_bindgen]
pub struct Job {
    job: attention_core::AttentionJob,
}

#[cfg(feature = "job")]
#[wasm_bindgen]
impl Kernel {
    /// A job over these vectors with the page's settings, nothing computed yet.
    pub fn job(&self) -> Result<Job, JsError> {
        let extras = attention_core::Extras { weights_only: true, ..Default::default() };
        let job = attention_core::AttentionJob::new(&self.x, &self.x, &self.x, &Options::default(), &extras)?;
        Ok(Job { job })
    }
}

#[cfg(feature = "job")]
#[wasm_bindgen]
impl Job {
    /// Computes at least `rows` more query rows; returns whether all are done.
    pub fn advance(&mut self, rows: usize) -> bool {
        self.job.advance(rows)
    }

    /// The sum of the weights, once every row is computed (so that no work can be skipped).
    pub fn sum(self) -> f64 {
        weight_sum(&self.job.finish())
    }
}

/// The sum of an attention's weights: a result that needs every one of them.
fn weight_sum(attention: &Attention) -> f64 {
    attention.weights.iter().map(|w| f64::from(*w)).sum()
}
