//! The golden cases in `tests/golden/` (at the repository root; its README
//! says how they are made, independently of this code), run against the
//! vectors the page and the CLI read: the committed fallback always, and the
//! whole GloVe vocabulary as shards when `scripts/build-data` has built it
//! (`AE_REQUIRE_DATA=1` makes its absence a failure).
//! - `tokens.json`: every sentence's exact tokens and which of them GloVe lacks;
//! - `weights.json`: weights computed in float64 from the float32 vectors.
//!   Every weight printed with 4 decimals must equal the reference rounded to
//!   4 decimals (either neighbour within 1e-6 of a rounding midpoint).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::path::PathBuf;

use attention_core::shards::ShardSet;
use attention_core::{analyze, tokenize, Embeddings, Options};
use serde::Deserialize;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fallback() -> Embeddings {
    let bytes =
        std::fs::read(root().join("data/glove-6b-50d-fallback.aewv")).expect("the committed fallback");
    Embeddings::from_subset(&bytes).expect("the fallback is valid")
}

/// The whole vocabulary, with the shards of `texts` read (None when it is not built).
fn whole(texts: &[&str]) -> Option<Embeddings> {
    let dir = root().join("data/glove-6b-50d");
    let Ok(text) = std::fs::read_to_string(dir.join("manifest.json")) else {
        assert!(
            std::env::var_os("AE_REQUIRE_DATA").is_none(),
            "data/glove-6b-50d is not built (scripts/build-data)"
        );
        eprintln!("note: data/glove-6b-50d is not built: only the fallback is checked");
        return None;
    };
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let number = |key: &str| manifest[key].as_u64().unwrap();
    let id = u64::from_str_radix(manifest["set"].as_str().unwrap(), 16).unwrap();
    let set =
        ShardSet::new(number("shards") as u32, id, number("dim") as usize, number("words") as usize).unwrap();
    let files = manifest["files"].as_str().unwrap();
    let mut store = Embeddings::sharded(set);
    loop {
        let missing = store.missing_shards(texts.iter().copied());
        if missing.is_empty() {
            return Some(store);
        }
        for k in missing {
            let path = dir.join(files.replace("{k}", &format!("{k:04x}")));
            store.add_shard(&std::fs::read(&path).unwrap(), k).unwrap();
        }
    }
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
    #[serde(default)]
    unknown: Vec<String>,
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
    weights: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct GoldenOptions {
    scale: bool,
    temperature: f32,
    #[serde(rename = "self")]
    self_attention: bool,
    causal: bool,
}

/// Whether `printed` (4 decimals) is how `reference` rounds: exactly, or
/// either neighbour when the reference lies within 1e-6 of a midpoint.
pub fn prints_as(printed: &str, reference: f64) -> bool {
    let near_midpoint = ((reference * 1e4).fract().abs() - 0.5).abs() < 1e-2;
    printed == format!("{reference:.4}")
        || (near_midpoint && ((printed.parse::<f64>().unwrap() - reference).abs() <= 0.5e-4 + 1e-6))
}

/// Every store the cases run against: the fallback, and the whole vocabulary when built.
fn stores(texts: &[&str]) -> Vec<(&'static str, Embeddings)> {
    let mut stores = vec![("the fallback", fallback())];
    if let Some(store) = whole(texts) {
        stores.push(("the whole vocabulary", store));
    }
    stores
}

#[test]
fn tokens_match_the_golden_cases() {
    let cases: TokenCases = load("tokens.json");
    assert!(cases.cases.len() >= 200, "{} golden sentences", cases.cases.len());
    let texts: Vec<&str> = cases.cases.iter().map(|c| c.sentence.as_str()).collect();
    for (name, store) in stores(&texts) {
        for case in &cases.cases {
            let tokens = tokenize(&case.sentence, &store);
            let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
            assert_eq!(texts, case.tokens, "tokens of {:?} with {name}", case.sentence);
            let unknown: Vec<&str> = tokens.iter().filter(|t| !t.known).map(|t| t.text.as_str()).collect();
            assert_eq!(unknown, case.unknown, "unknown tokens of {:?} with {name}", case.sentence);
        }
    }
}

#[test]
fn printed_weights_equal_the_float32_reference_rounded() {
    let cases: WeightCases = load("weights.json");
    assert!(cases.cases.len() >= 400);
    let texts: Vec<&str> = cases.cases.iter().map(|c| c.sentence.as_str()).collect();
    for (name, store) in stores(&texts) {
        let mut worst = 0f64;
        for case in &cases.cases {
            let options = Options {
                scale: case.options.scale,
                temperature: case.options.temperature,
                self_attention: case.options.self_attention,
                causal: case.options.causal,
            };
            let analysis = analyze(&case.sentence, &store, &options).unwrap();
            let tokens: Vec<&str> = analysis.used_tokens().map(|t| t.text.as_str()).collect();
            assert_eq!(tokens, case.tokens, "{:?} with {name}", case.sentence);
            for (i, expected_row) in case.weights.iter().enumerate() {
                for (j, expected) in expected_row.iter().enumerate() {
                    let got = analysis.attention.weight(i, j);
                    worst = worst.max((f64::from(got) - expected).abs());
                    assert!(
                        prints_as(&format!("{got:.4}"), *expected),
                        "{:?} with {:?} and {name}: weight[{i}][{j}] ({} → {}) prints {got:.4}, the reference {expected} rounds to {expected:.4}",
                        case.sentence,
                        (options.scale, options.temperature, options.self_attention, options.causal),
                        tokens[i],
                        tokens[j]
                    );
                }
            }
        }
        assert!(worst < 1e-6, "largest difference from the reference with {name}: {worst:e}");
        println!(
            "{} cases with {name}: largest difference from the float64 reference {worst:.2e}",
            cases.cases.len()
        );
    }
}

#[test]
fn the_design_row_for_king_prints_as_the_tutorial() {
    let sentence = "The king and queen ruled the kingdom";
    for (name, store) in stores(&[sentence]) {
        let analysis = analyze(sentence, &store, &Options::default()).unwrap();
        let printed: Vec<String> =
            analysis.attention.weight_row(1).iter().map(|w| format!("{w:.4}")).collect();
        assert_eq!(
            printed,
            ["0.0647", "0.4431", "0.0489", "0.1645", "0.0629", "0.0647", "0.1512"],
            "with {name}"
        );
    }
}

#[test]
fn the_rounding_rule_accepts_only_the_correct_roundings() {
    assert!(prints_as("0.0489", 0.048_948_1));
    assert!(!prints_as("0.0490", 0.048_948_1));
    // Within 1e-6 of the midpoint 0.12345: either neighbour.
    assert!(prints_as("0.1234", 0.123_449_9) && prints_as("0.1235", 0.123_449_9));
    assert!(!prints_as("0.1236", 0.123_449_9));
}

#[test]
fn every_example_sentence_of_the_page_is_fully_known() {
    let text = std::fs::read_to_string(root().join("www/examples.txt")).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    for (name, store) in stores(&lines) {
        for line in &lines {
            let unknown: Vec<_> =
                tokenize(line, &store).into_iter().filter(|t| !t.known).map(|t| t.text).collect();
            assert!(
                unknown.is_empty(),
                "www/examples.txt: {line:?} has words missing from {name}: {unknown:?}"
            );
        }
    }
}
