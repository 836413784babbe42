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
