//! The model boundary on a tiny deterministic model: the shard flow (core,
//! missing shards, add, run), shapes, the three views (pieces, pieces
//! without [CLS]/[SEP], whole words) and their row sums.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

mod common;

use attention_model::{DType, Error, ModelFiles};
use attention_model_wasm::ModelSession;

/// 12 vocabulary entries in shards of 4: [PAD] [UNK] [CLS] [SEP] | the cat sat ##s | it was tired .
fn tiny_files() -> ModelFiles {
    let vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "##s", "it", "was", "tired", "."];
    common::tiny_files(&vocab, DType::F32)
}

/// The core with every shard added.
fn tiny_session() -> ModelSession {
    let files = tiny_files();
    let mut session = ModelSession::from_core(&files.core).unwrap();
    for shard in &files.shards {
        session.add_shard_native(shard).unwrap();
    }
    session
}

#[test]
fn the_worker_fetches_what_missing_shards_names_then_runs() {
    let files = tiny_files();
    let mut session = ModelSession::from_core(&files.core).unwrap();
    assert_eq!(session.embedding_shards(), 3);
    // [CLS] the cat ##s sat [SEP]: ids 2, 4, 5, 7, 6, 3 → shards 0 and 1.
    assert_eq!(session.missing_shards("The cats sat"), [0, 1]);
    let err = session.run_native("The cats sat", false, false).unwrap_err();
    assert_eq!(err, Error::MissingShards(vec![0, 1]));
    assert!(err.to_string().contains("embedding shards 0, 1 are missing"), "{err}");
    assert_eq!(session.add_shard_native(&files.shards[1]).unwrap(), 1);
    assert_eq!(session.missing_shards("The cats sat"), [0]);
    assert_eq!(session.add_shard_native(&files.shards[0]).unwrap(), 0);
    assert!(session.missing_shards("The cats sat").is_empty());
    let run = session.run_native("The cats sat", false, false).unwrap();
    // The same numbers as a session holding every shard.
    assert_eq!(run.weights(), tiny_session().run_native("The cats sat", false, false).unwrap().weights());
    // "it was tired." lives in shard 2, not added yet.
    assert_eq!(session.missing_shards("it was tired."), [2]);
    let err = session.add_shard_native(&files.core).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("not an Attention Explorer embedding shard"), "{err}");
}

fn row_sums(weights: &[f32], n: usize) -> Vec<f32> {
    weights.chunks(n).map(|row| row.iter().sum()).collect()
}

#[test]
fn pieces_view_has_every_head_and_special_tokens() {
    let session = tiny_session();
    assert_eq!((session.layers(), session.heads()), (2, 2));
    let run = session.run_native("The cats sat", false, false).unwrap();
    let texts: Vec<&str> = run.token_list().iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["[CLS]", "the", "cat", "##s", "sat", "[SEP]"]);
    assert_eq!(run.token_list()[2].span, [4, 7]);
    assert!(run.token_list()[0].special && !run.token_list()[1].special);
    let n = run.size();
    assert_eq!(run.weights().len(), 2 * 2 * n * n);
    for sum in row_sums(&run.weights(), n) {
        assert!((sum - 1.0).abs() < 1e-5, "{sum}");
    }
    // head(l, h) is the (l·heads + h)-th n×n block.
    assert_eq!(run.head(1, 0).unwrap(), &run.weights()[2 * n * n..3 * n * n]);
    assert!(run.head(2, 0).is_none());
}

#[test]
fn words_view_merges_pieces() {
    let session = tiny_session();
    let pieces = session.run_native("The cats sat", false, false).unwrap();
    let words = session.run_native("The cats sat", true, false).unwrap();
    let texts: Vec<&str> = words.token_list().iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["[CLS]", "The", "cats", "sat", "[SEP]"]);
    assert_eq!(words.token_list()[2].span, [4, 8]);
    // Query "the" (piece 1 = word 1) → key "cats": the sum over pieces "cat" + "##s".
    let (p, w) = (pieces.head(0, 1).unwrap(), words.head(0, 1).unwrap());
    assert!((w[5 + 2] - (p[6 + 2] + p[6 + 3])).abs() < 1e-6);
    // Query "cats": the mean of its two pieces' rows.
    assert!((w[2 * 5 + 3] - (p[2 * 6 + 4] + p[3 * 6 + 4]) / 2.0).abs() < 1e-6);
    for sum in row_sums(&words.weights(), 5) {
        assert!((sum - 1.0).abs() < 1e-5);
    }
}

#[test]
fn hiding_special_tokens_keeps_the_models_numbers() {
    let session = tiny_session();
    let all = session.run_native("the cat sat", false, false).unwrap();
    let hidden = session.run_native("the cat sat", false, true).unwrap();
    let texts: Vec<&str> = hidden.token_list().iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["the", "cat", "sat"]);
    let (a, h) = (all.head(1, 1).unwrap(), hidden.head(1, 1).unwrap());
    assert_eq!(h[0], a[5 + 1]); // "the" → "the" is (1, 1) in the full view
    assert_eq!(h[3 + 2], a[2 * 5 + 3]);
    // Rows now sum to less than 1: what went to [CLS]/[SEP] is not redistributed.
    assert!(row_sums(h, 3).iter().all(|s| *s < 1.0 + 1e-6));
}

#[test]
fn damaged_model_files_are_errors() {
    let err = ModelSession::from_core(b"not a model").map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("magic") || err.contains("model"), "{err}");
}
