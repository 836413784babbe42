//! The boundary as JavaScript sees it (run by scripts/test-wasm under Node):
//! the names and shapes the worker (www/js/model-worker.js) relies on.

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

mod common;

use attention_model::{DType, ModelFiles};
use attention_model_wasm::ModelSession;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

/// A tiny deterministic model: 8 vocabulary entries in shards of 4.
fn tiny_files() -> ModelFiles {
    common::tiny_files(&["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "it", "##s"], DType::F16)
}

fn message(err: JsValue) -> String {
    js_sys::Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap()
}

#[wasm_bindgen_test]
fn a_damaged_model_file_is_a_javascript_error_with_the_reason() {
    let err = ModelSession::new(b"GARBAGE!").map(|_| ()).unwrap_err();
    assert!(message(err.into()).contains("model"));
}

#[wasm_bindgen_test]
fn the_worker_flow_gives_tokens_with_byte_spans_and_every_head() {
    let files = tiny_files();
    let mut session = ModelSession::new(&files.core).unwrap();
    assert_eq!((session.layers(), session.heads(), session.embedding_shards()), (2, 2, 2));
    // "Café cats" is not in this vocabulary except "cat" + "##s": [CLS] [UNK] cat ##s [SEP].
    assert_eq!(session.missing_shards("Café cats"), [0, 1]);
    let err = session.run("Café cats", false, false).map(|_| ()).unwrap_err();
    assert!(message(err.into()).contains("missing"));
    for shard in &files.shards {
        session.add_shard(shard).unwrap();
    }
    let run = session.run("Café cats", false, false).unwrap();
    assert_eq!(run.size(), 5);
    assert_eq!(run.weights().len(), 2 * 2 * 5 * 5);
    let tokens: js_sys::Array = run.tokens().unwrap().into();
    let token = |i: u32, key: &str| js_sys::Reflect::get(&tokens.get(i), &key.into()).unwrap();
    assert_eq!(token(2, "text").as_string().unwrap(), "cat");
    // UTF-8 byte offsets: "Café " is 6 bytes.
    let span: js_sys::Array = token(2, "span").into();
    assert_eq!((span.get(0).as_f64().unwrap(), span.get(1).as_f64().unwrap()), (6.0, 9.0));
    assert_eq!(token(0, "special").as_bool(), Some(true));
    // Whole words without [CLS]/[SEP]: "Café" and "cats".
    let words = session.run("Café cats", true, true).unwrap();
    assert_eq!(words.size(), 2);
    let texts: Vec<String> = js_sys::Array::from(&words.tokens().unwrap())
        .iter()
        .map(|t| js_sys::Reflect::get(&t, &"text".into()).unwrap().as_string().unwrap())
        .collect();
    assert_eq!(texts, ["Café", "cats"]);
}

fn session_with_shards() -> ModelSession {
    let files = tiny_files();
    let mut session = ModelSession::new(&files.core).unwrap();
    for shard in &files.shards {
        session.add_shard(shard).unwrap();
    }
    session
}

fn get(value: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(value, &key.into()).unwrap()
}

#[wasm_bindgen_test]
fn head_search_behaviours_and_rollout_cross_as_flat_arrays_and_plain_objects() {
    let session = session_with_shards();
    // [CLS] the cat it cat [SEP]: 'it' (3) → 'cat' (2).
    let run = session.run("the cat it cat", false, false).unwrap();
    let ranked = run.search_heads(3, 2).unwrap();
    assert_eq!(ranked.size(), 4);
    assert_eq!((ranked.layers().len(), ranked.heads().len(), ranked.values().len()), (4, 4, 4));
    let values = ranked.values();
    assert!(values.windows(2).all(|w| w[0] >= w[1]));
    assert!(message(run.search_heads(3, 7).map(|_| ()).unwrap_err().into())
        .contains("key token 7 does not exist"));

    let behaviours = run.head_behaviours().unwrap();
    assert_eq!(get(&behaviours, "sameWordApplies").as_bool(), Some(true), "'cat' occurs twice");
    let heads: js_sys::Array = get(&behaviours, "heads").into();
    assert_eq!(heads.length(), 4);
    let first = heads.get(0);
    assert!(get(&first, "description").as_string().is_some_and(|d| !d.is_empty()));
    assert!(get(&first, "sameWord").as_f64().is_some());
    // Measures that do not apply are null, not missing.
    let once = session.run("the cat", false, false).unwrap().head_behaviours().unwrap();
    let head: js_sys::Array = get(&once, "heads").into();
    assert!(get(&head.get(0), "sameWord").is_null());
    assert!(run.rank_heads("previous").unwrap().is_some());
    assert!(message(run.rank_heads("sideways").map(|_| ()).unwrap_err().into())
        .contains("unknown behaviour 'sideways'"));

    let rollout = run.rollout();
    let n = run.size();
    assert_eq!(rollout.rollout().len(), 2 * n * n);
    assert_eq!(rollout.average().len(), 2 * n * n);
}

#[wasm_bindgen_test]
fn a_head_opens_for_a_query_and_bad_indices_are_errors_with_the_range() {
    let session = session_with_shards();
    let details = session.head_details("the cats", 1, 0, 2).unwrap();
    let n = details.size();
    assert_eq!((n, details.dim()), (5, 4));
    assert_eq!(details.queries().len(), n * 4);
    assert!((details.weights().iter().sum::<f32>() - 1.0).abs() < 1e-5);
    let run = session.run("the cats", false, false).unwrap();
    assert_eq!(details.weights(), run.weights()[(2 * 5 + 2) * 5..(2 * 5 + 3) * 5].to_vec());
    let err = message(session.head_details("the cats", 0, 0, 9).map(|_| ()).unwrap_err().into());
    assert!(err.starts_with("query 9 does not exist: the sentence has pieces 0 to 4"), "{err}");
    let err = message(session.project_head("the cats", 0, 5).map(|_| ()).unwrap_err().into());
    assert!(err.contains("head 5 does not exist"), "{err}");
    let picture = session.project_head("the cats", 0, 1).unwrap();
    assert_eq!((picture.points().len(), picture.explained().len()), (2 * n * 2, 2));
}

#[wasm_bindgen_test]
fn a_manifest_with_a_huge_size_is_refused_before_any_download() {
    let manifest = js_sys::JSON::parse(
        r#"{"core": {"file": "minilm-core.aebm", "bytes": 3000000000, "sha256": "00"}, "shards": []}"#,
    )
    .unwrap();
    let err = message(attention_model_wasm::inspect::check_manifest_listing(manifest).unwrap_err().into());
    assert!(err.contains("3000000000 bytes") && err.contains("512 MiB"), "{err}");
    let garbage = js_sys::JSON::parse(r#"{"core": "x"}"#).unwrap();
    let err = message(attention_model_wasm::inspect::check_manifest_listing(garbage).unwrap_err().into());
    assert!(err.contains("does not list the core and the shards"), "{err}");
    let session = session_with_shards();
    assert_eq!(session.shard_bytes(0), Some((24 + 4 * 8 * 2) as f64));
}
