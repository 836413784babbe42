//! The exports that look inside and across heads, natively: head search,
//! behaviours and rollout in every view of a run; a head opened for one
//! query and its 2-D picture; the manifest checks. On the tiny deterministic
//! model, and on all-MiniLM-L6-v2 when it is built (required with
//! `AE_REQUIRE_MODEL`).

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

mod common;

use attention_model::testing::built_model_dir;
use attention_model::{shard_file, DType, ModelFiles, CORE_FILE};
use attention_model_wasm::inspect::{ListedFile, ManifestListing};
use attention_model_wasm::ModelSession;
use serde_json::Value;

/// 12 vocabulary entries in shards of 4: [PAD] [UNK] [CLS] [SEP] | the cat sat ##s | it was tired .
fn tiny_files() -> ModelFiles {
    let vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "##s", "it", "was", "tired", "."];
    common::tiny_files(&vocab, DType::F32)
}

fn tiny_session() -> ModelSession {
    let files = tiny_files();
    let mut session = ModelSession::from_core(&files.core).unwrap();
    for shard in &files.shards {
        session.add_shard_native(shard).unwrap();
    }
    session
}

const TINY_TEXT: &str = "The cats sat. The cat was tired";

#[test]
fn run_tokens_say_which_pieces_they_cover() {
    let session = tiny_session();
    let pieces = session.run_native(TINY_TEXT, false, true).unwrap();
    let ranges: Vec<[usize; 2]> = pieces.token_list().iter().map(|t| t.pieces).collect();
    assert_eq!(ranges[0], [1, 2], "without [CLS], the first token is piece 1");
    let words = session.run_native(TINY_TEXT, true, false).unwrap();
    let cats = words.token_list().iter().find(|t| t.text == "cats").unwrap();
    assert_eq!(cats.pieces, [2, 4], "cat ##s");
}

#[test]
fn search_ranks_every_head_in_the_runs_own_view() {
    let session = tiny_session();
    for (words, hide) in [(false, false), (false, true), (true, false), (true, true)] {
        let run = session.run_native(TINY_TEXT, words, hide).unwrap();
        let n = run.size();
        let (query, key) = (n - 1, 1);
        let ranked = run.search_heads_native(query, key).unwrap();
        assert_eq!(ranked.len(), 4);
        for m in &ranked {
            assert_eq!(m.weight, run.head(m.layer, m.head).unwrap()[query * n + key]);
        }
        assert!(ranked.windows(2).all(|w| w[0].weight >= w[1].weight));
        let err = run.search_heads_native(n, 0).unwrap_err().to_string();
        assert!(err.contains(&format!("query token {n} does not exist")), "{err}");
    }
}

#[test]
fn behaviours_and_rollout_cover_every_head() {
    let session = tiny_session();
    let run = session.run_native(TINY_TEXT, true, false).unwrap();
    let behaviours = run.behaviours_native();
    assert!(behaviours.same_word_applies, "'The' occurs twice");
    assert_eq!(behaviours.heads.len(), 4);
    assert!(behaviours.heads.iter().all(|h| !h.description.is_empty() && h.same_word.is_some()));
    let once = session.run_native("the cat sat", false, false).unwrap().behaviours_native();
    assert!(!once.same_word_applies && once.heads.iter().all(|h| h.same_word.is_none()));
    let rollout = run.rollout();
    let n = run.size();
    assert_eq!((rollout.layers(), rollout.size()), (2, n));
    assert_eq!(rollout.rollout().len(), 2 * n * n);
    for row in rollout.rollout().chunks(n) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn a_head_opened_for_a_query_is_the_row_of_the_run() {
    let session = tiny_session();
    let run = session.run_native(TINY_TEXT, false, false).unwrap();
    let n = run.size();
    for (layer, head, query) in [(0, 0, 0), (1, 1, 3), (1, 0, n - 1)] {
        let inside = session.head_details_native(TINY_TEXT, layer, head, query).unwrap();
        let details = inside.details();
        assert_eq!(details.weights, run.head(layer, head).unwrap()[query * n..(query + 1) * n]);
        assert_eq!((inside.size(), inside.dim()), (n, 4));
        assert_eq!(inside.queries().len(), n * 4);
        assert_eq!(inside.scale(), 0.5);
    }
    let err = session.head_details_native(TINY_TEXT, 0, 0, 40).unwrap_err().to_string();
    assert!(err.starts_with("query 40 does not exist: the sentence has pieces 0 to"), "{err}");
    let err = session.head_details_native(TINY_TEXT, 7, 0, 0).unwrap_err().to_string();
    assert_eq!(err, "layer 7 does not exist: this model has layers 0 to 1");
    let picture = session.project_head_native(TINY_TEXT, 1, 0).unwrap();
    assert_eq!(picture.points().len(), 2 * n * 2);
    let shares = picture.explained();
    assert!(shares[0] >= shares[1] && shares[0] + shares[1] <= 1.0 + 1e-6);
}

fn listing(files: &ModelFiles) -> ManifestListing {
    ManifestListing {
        core: ListedFile { file: CORE_FILE.into(), bytes: files.core.len() as f64 },
        shards: files
            .shards
            .iter()
            .enumerate()
            .map(|(k, s)| ListedFile { file: shard_file(k), bytes: s.len() as f64 })
            .collect(),
    }
}

#[test]
fn the_manifest_is_checked_before_and_after_the_core() {
    let files = tiny_files();
    let session = ModelSession::from_core(&files.core).unwrap();
    for (k, shard) in files.shards.iter().enumerate() {
        assert_eq!(session.shard_bytes(k), Some(shard.len() as f64));
    }
    assert_eq!(session.shard_bytes(3), None);
    session.check_manifest_native(&listing(&files)).unwrap();
    // A manifest parsed from JSON, with the fields the page ignores.
    let json = format!(
        r#"{{"name": "x", "core": {{"file": "{CORE_FILE}", "bytes": 3e9, "sha256": "00"}}, "shards": []}}"#
    );
    let parsed: ManifestListing = serde_json::from_str(&json).unwrap();
    let err = parsed.to_manifest().unwrap().check_listing().unwrap_err().to_string();
    assert!(err.contains("as 3000000000 bytes; a core file is 1 to 536870912 bytes (512 MiB)"), "{err}");
    for bad in [1.5, -24.0, f64::INFINITY] {
        let mut lying = listing(&files);
        lying.shards[1].bytes = bad;
        let err = session.check_manifest_native(&lying).unwrap_err().to_string();
        assert!(err.contains("embedding shard 1") && err.contains("not a whole number of bytes"), "{err}");
    }
    let mut lying = listing(&files);
    lying.shards[2].bytes += 1.0;
    let err = session.check_manifest_native(&lying).unwrap_err().to_string();
    assert!(
        err.contains("embedding shard 2 (embeddings/0002.aeemb)") && err.contains("the core says"),
        "{err}"
    );
}

#[test]
fn minilm_head_panel_and_search_through_the_boundary() {
    let Some(dir) = built_model_dir() else { return };
    let text = "The cat sat on the mat because it was tired";
    let mut session = ModelSession::from_core(&std::fs::read(dir.join(CORE_FILE)).unwrap()).unwrap();
    for k in session.missing_shards(text) {
        session.add_shard_native(&std::fs::read(dir.join(shard_file(k as usize))).unwrap()).unwrap();
    }
    let fixture: Value =
        serde_json::from_str(include_str!("../../attention-model/testdata/minilm_forward.json")).unwrap();
    let inside = &fixture["cases"][0]["f16"]["inside"];
    let details = session.head_details_native(text, 5, 11, 8).unwrap();
    let numbers = |v: &Value| -> Vec<f32> {
        v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
    };
    for (name, ours) in [
        ("q", details.queries()),
        ("k", details.keys()),
        ("v", details.values()),
        ("scores", details.scores()),
        ("weights", details.weights()),
        ("context", details.context()),
    ] {
        let reference = numbers(&inside[name]);
        let error = ours.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert_eq!(ours.len(), reference.len(), "{name}");
        assert!(error < 1e-4, "{name} differs from the numpy reference by {error}");
    }
    // The page's ranking: 'it' → 'cat' in the word view without [CLS]/[SEP] too.
    let words = session.run_native(text, true, true).unwrap();
    let (it, cat) = (7, 1);
    assert_eq!((words.token_list()[it].text.as_str(), words.token_list()[cat].text.as_str()), ("it", "cat"));
    let ranked = words.search_heads_native(it, cat).unwrap();
    assert_eq!((ranked[0].layer, ranked[0].head), (5, 11));
    assert!((ranked[0].weight - 0.6826).abs() < 0.005);
}
