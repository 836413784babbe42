//! The golden cases in `tests/golden/` (at the repository root), run against
//! the shipped subset `data/glove-6b-50d-fallback.aewv`:
//! - `tokens.json`: sentences and the exact tokens the tokenizer must give;
//! - `weights.json`: weights computed in float64 over the full-precision
//!   GloVe vectors (scripts/build-golden); the f16 subset must agree within 0.0005.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::path::PathBuf;

use attention_core::{analyze, tokenize, Embeddings, Options};
use serde::Deserialize;

const TOLERANCE: f32 = 0.0005;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shipped() -> Embeddings {
    let bytes = std::fs::read(root().join("data/glove-6b-50d-fallback.aewv"))
        .expect("data/glove-6b-50d-fallback.aewv");
    Embeddings::from_subset(&bytes).expect("the shipped subset is valid")
}

fn load<T: for<'de> Deserialize<'de>>(name: &str) -> T {
    let text = std::fs::read_to_string(root().join("tests/golden").join(name)).expect(name);
    serde_json::from_str(&text).expect(name)
}

#[derive(Deserialize)]
struct TokenCases {
    cases: Vec<TokenCase>,
}

#[derive(Deserialize)]
struct TokenCase {
    sentence: String,
    tokens: Vec<String>,
}

#[derive(Deserialize)]
struct WeightCases {
    cases: Vec<WeightCase>,
}

#[derive(Deserialize)]
struct WeightCase {
    sentence: String,
    tokens: Vec<String>,
    options: GoldenOptions,
    weights: Vec<Vec<f32>>,
}

#[derive(Deserialize)]
struct GoldenOptions {
    scale: bool,
    temperature: f32,
    #[serde(rename = "self")]
    self_attention: bool,
    causal: bool,
}

#[test]
fn tokens_match_the_golden_cases() {
    let embeddings = shipped();
    let cases: TokenCases = load("tokens.json");
    assert!(cases.cases.len() >= 10);
    for case in cases.cases {
        let tokens = tokenize(&case.sentence, &embeddings);
        let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, case.tokens, "tokens of {:?}", case.sentence);
        assert!(tokens.iter().all(|t| t.known), "every golden token is in the subset: {:?}", case.sentence);
    }
}

#[test]
fn weights_match_the_float64_reference() {
    let embeddings = shipped();
    let cases: WeightCases = load("weights.json");
    assert!(cases.cases.len() >= 80);
    let mut worst = 0f32;
    for case in &cases.cases {
        let options = Options {
            scale: case.options.scale,
            temperature: case.options.temperature,
            self_attention: case.options.self_attention,
            causal: case.options.causal,
        };
        let analysis = analyze(&case.sentence, &embeddings, &options).unwrap();
        let tokens: Vec<&str> = analysis.used_tokens().map(|t| t.text.as_str()).collect();
        assert_eq!(tokens, case.tokens);
        for (i, expected_row) in case.weights.iter().enumerate() {
            for (j, expected) in expected_row.iter().enumerate() {
                let got = analysis.attention.weight(i, j);
                let error = (got - expected).abs();
                worst = worst.max(error);
                assert!(
                    error <= TOLERANCE,
                    "{:?} with {:?}: weight[{i}][{j}] ({} → {}) is {got}, reference {expected}",
                    case.sentence,
                    (options.scale, options.temperature, options.self_attention, options.causal),
                    tokens[i],
                    tokens[j]
                );
            }
        }
    }
    println!("largest difference from the float64 reference: {worst:.6}");
}

#[test]
fn the_design_row_for_king() {
    let analysis = analyze("The king and queen ruled the kingdom", &shipped(), &Options::default()).unwrap();
    let expected = [0.0647, 0.4431, 0.0489, 0.1645, 0.0629, 0.0647, 0.1512];
    for (got, want) in analysis.attention.weight_row(1).iter().zip(expected) {
        assert!((got - want).abs() <= TOLERANCE, "{:?}", analysis.attention.weight_row(1));
    }
}

#[test]
fn every_project_sentence_is_fully_known() {
    let embeddings = shipped();
    for file in ["data/sentences.txt", "www/examples.txt"] {
        let Ok(text) = std::fs::read_to_string(root().join(file)) else {
            continue;
        };
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let unknown: Vec<_> =
                tokenize(line, &embeddings).into_iter().filter(|t| !t.known).map(|t| t.text).collect();
            assert!(unknown.is_empty(), "{file}: {line:?} has words missing from the subset: {unknown:?}");
        }
    }
}
