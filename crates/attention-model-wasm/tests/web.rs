//! The boundary as JavaScript sees it (run by scripts/test-wasm under Node).

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use attention_model_wasm::ModelSession;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn a_damaged_model_file_is_a_javascript_error_with_the_reason() {
    let err = ModelSession::new(b"GARBAGE!").map(|_| ()).unwrap_err();
    let value: JsValue = err.into();
    let message = js_sys::Reflect::get(&value, &"message".into()).unwrap().as_string().unwrap();
    assert!(message.contains("model"), "{message}");
}
