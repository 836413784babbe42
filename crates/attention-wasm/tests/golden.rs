//! The golden sentences (tests/golden/, made independently of this code)
//! through the WebAssembly build, as the page calls it: a sharded Explorer fed
//! shard by shard until each sentence needs no more, then the tokens and the
//! weights as 4-decimal strings, against the float64 reference rounded.
//! Run in Node.js by `scripts/test-wasm`.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attention_core::shards::split;
use attention_core::Embeddings;
use attention_wasm::{Explorer, Settings, TokenInfo};
use serde::Deserialize;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

const FALLBACK: &[u8] = include_bytes!("../../../data/glove-6b-50d-fallback.aewv");
const TOKENS: &str = include_str!("../../../tests/golden/tokens.json");
const WEIGHTS: &str = include_str!("../../../tests/golden/weights.json");

#[derive(Deserialize)]
struct Cases<T> {
    cases: Vec<T>,
}

#[derive(Deserialize)]
struct TokenCase {
    sentence: String,
    tokens: Vec<String>,
    #[serde(default)]
    unknown: Vec<String>,
}

#[derive(Deserialize)]
struct WeightCase {
    sentence: String,
    tokens: Vec<String>,
    options: Options,
    weights: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct Options {
    scale: bool,
    temperature: f32,
    #[serde(rename = "self")]
    self_attention: bool,
    causal: bool,
}

/// The fallback split into 256 shards, and a sharded Explorer fed as the page feeds it.
struct Shards {
    explorer: Explorer,
    shards: Vec<Vec<u8>>,
}

impl Shards {
    fn new() -> Self {
        let store = Embeddings::from_subset(FALLBACK).unwrap();
        let (set, shards) = split(&store, 256).unwrap();
        let explorer = Explorer::sharded(set.dim, set.count, &format!("{:016x}", set.id), set.words).unwrap();
        Shards { explorer, shards: shards.iter().map(|s| s.to_bytes(&set).unwrap()).collect() }
    }

    /// Adds shards round after round until `text` needs no more.
    fn ensure(&mut self, text: &str) {
        loop {
            let missing = self.explorer.missing_shards(text);
            if missing.is_empty() {
                return;
            }
            for k in missing {
                self.explorer.add_shard(&self.shards[k as usize], k).unwrap();
            }
        }
    }
}

/// Whether `printed` is how `reference` rounds to 4 decimals (either neighbour within 1e-6 of a midpoint).
fn prints_as(printed: &str, reference: f64) -> bool {
    let near_midpoint = ((reference * 1e4).fract().abs() - 0.5).abs() < 1e-2;
    printed == format!("{reference:.4}")
        || (near_midpoint && (printed.parse::<f64>().unwrap() - reference).abs() <= 0.5e-4 + 1e-6)
}

#[wasm_bindgen_test]
fn golden_tokens_through_a_sharded_explorer() {
    let cases: Cases<TokenCase> = serde_json::from_str(TOKENS).unwrap();
    let mut shards = Shards::new();
    for case in &cases.cases {
        shards.ensure(&case.sentence);
        let tokens: Vec<TokenInfo> = shards.explorer.tokenize(&case.sentence).infos().to_vec();
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, case.tokens, "{:?}", case.sentence);
        let unknown: Vec<&str> = tokens.iter().filter(|t| !t.known).map(|t| t.text.as_str()).collect();
        assert_eq!(unknown, case.unknown, "{:?}", case.sentence);
        assert!(tokens.iter().all(|t| !t.pending), "every shard is in");
    }
}

#[wasm_bindgen_test]
fn golden_weights_print_as_the_reference_rounds() {
    let cases: Cases<WeightCase> = serde_json::from_str(WEIGHTS).unwrap();
    let mut shards = Shards::new();
    for case in &cases.cases {
        shards.ensure(&case.sentence);
        let settings = Settings {
            scale: case.options.scale,
            self_attention: case.options.self_attention,
            causal: case.options.causal,
            temperature: case.options.temperature,
        };
        let settings: JsValue = serde_wasm_bindgen::to_value(&settings).unwrap();
        let analysis = shards
            .explorer
            .analyze(&case.sentence, settings)
            .unwrap_or_else(|_| panic!("{:?}", case.sentence));
        assert_eq!(analysis.labels(), case.tokens);
        let n = analysis.size();
        let weights = analysis.weights();
        for (i, row) in case.weights.iter().enumerate() {
            for (j, reference) in row.iter().enumerate() {
                let printed = format!("{:.4}", weights[i * n + j]);
                assert!(
                    prints_as(&printed, *reference),
                    "{:?}: [{i}][{j}] prints {printed}, reference {reference}",
                    case.sentence
                );
            }
        }
    }
}
