//! The page's acceptance numbers, natively: layer 5, head 11 of the real
//! all-MiniLM-L6-v2 on the cat sentence (`tests/golden/minilm-l5h11.json`,
//! the numpy reference on the f16 weights), through this boundary exactly as
//! the worker drives it: core, the shards `missing_shards` names, then `run`
//! in the views the page offers (pieces; words without [CLS]/[SEP]).
//!
//! Needs the built model (`scripts/build-model` writes `model/`; `AE_MODEL_DIR`
//! points elsewhere). Without it the test prints `SKIPPED` and passes, unless
//! `AE_REQUIRE_MODEL` is set (scripts/test sets it), when it fails.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::path::{Path, PathBuf};

use attention_model::testing::built_model_dir;
use attention_model::{shard_file, CORE_FILE};
use attention_model_wasm::{ModelRun, ModelSession};
use serde_json::Value;

const TOLERANCE: f32 = 1e-4;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A session holding the core and only the shards `sentence` needs.
fn session_for(dir: &Path, sentence: &str) -> ModelSession {
    let mut session = ModelSession::from_core(&std::fs::read(dir.join(CORE_FILE)).unwrap()).unwrap();
    for k in session.missing_shards(sentence) {
        let k = usize::try_from(k).unwrap();
        assert_eq!(session.add_shard_native(&std::fs::read(dir.join(shard_file(k))).unwrap()).unwrap(), k);
    }
    assert!(session.missing_shards(sentence).is_empty());
    session
}

fn numbers(value: &Value) -> Vec<f32> {
    value.as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect()
}

/// Compares the golden rows (`{"i": [...]}`) with query rows of head (layer, head).
fn assert_rows(run: &ModelRun, layer: usize, head: usize, rows: &Value, what: &str) {
    let n = run.size();
    let weights = run.head(layer, head).unwrap();
    for (query, expected) in rows.as_object().unwrap() {
        let i: usize = query.parse().unwrap();
        let expected = numbers(expected);
        let actual = &weights[i * n..(i + 1) * n];
        assert_eq!(actual.len(), expected.len(), "{what}: row {i}");
        for (j, (a, e)) in actual.iter().zip(&expected).enumerate() {
            assert!((a - e).abs() <= TOLERANCE, "{what}: row {i}, key {j}: {a} vs {e} (row {actual:?})");
        }
    }
}

fn token_texts_and_spans(run: &ModelRun) -> Vec<(String, Option<[usize; 2]>)> {
    run.token_list().iter().map(|t| (t.text.clone(), (!t.special).then_some(t.span))).collect()
}

fn golden_tokens(list: &Value) -> Vec<(String, Option<[usize; 2]>)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let span = t["span"]
                .as_array()
                .map(|s| [s[0].as_u64().unwrap() as usize, s[1].as_u64().unwrap() as usize]);
            (t["text"].as_str().unwrap().to_string(), span)
        })
        .collect()
}

#[test]
fn layer_5_head_11_matches_the_reference_in_the_views_the_page_offers() {
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/golden/minilm-l5h11.json")).unwrap(),
    )
    .unwrap();
    let Some(dir) = built_model_dir() else { return };
    let sentence = golden["sentence"].as_str().unwrap();
    let layer = golden["layer"].as_u64().unwrap() as usize;
    let head = golden["head"].as_u64().unwrap() as usize;
    let session = session_for(&dir, sentence);

    let pieces = session.run_native(sentence, false, false).unwrap();
    assert_eq!(token_texts_and_spans(&pieces), golden_tokens(&golden["pieces"]));
    assert_rows(&pieces, layer, head, &golden["rows"], "pieces");
    // The acceptance figure: 'it' (piece 8) sends most of its attention to 'cat' (piece 2).
    let it = &pieces.head(layer, head).unwrap()[8 * 12..9 * 12];
    assert!(it[2] > 0.6, "'it' → 'cat' is {}", it[2]);

    let words = session.run_native(sentence, true, true).unwrap();
    let view = &golden["words_without_special"];
    assert_eq!(token_texts_and_spans(&words), golden_tokens(&view["words"]));
    assert_rows(&words, layer, head, &view["rows"], "words without [CLS]/[SEP]");
}
