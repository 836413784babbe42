//! The multi-head fixture `tests/golden/multihead.json` (at the repository
//! root), shared with the browser test `tests/e2e/teach-heads.test.mjs`:
//! this native test recomputes every case with `attention-core` over the
//! shipped word vectors and compares; the browser test compares what the
//! page shows with the same file. Both therefore check the page against a
//! native computation with the same seed.
//!
//! To rewrite the fixture after a deliberate change of the maths:
//! `UPDATE_GOLDEN=1 cargo test -p attention-wasm --test multihead_golden`.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::path::PathBuf;

use attention_core::analysis::analyze_multi_head;
use attention_core::multihead::HeadMode;
use attention_core::{Embeddings, Options};
use serde::{Deserialize, Serialize};

/// Weights are stored to 6 decimals; the page prints 4.
const TOLERANCE: f32 = 1e-6;

#[derive(Debug, Serialize, Deserialize)]
struct Fixture {
    about: String,
    cases: Vec<Case>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Case {
    sentence: String,
    heads: usize,
    /// "split" or "projected".
    mode: String,
    seed: u32,
    tokens: Vec<String>,
    /// `weights[h][i][j]`: head `h`, query `i`, key `j`.
    weights: Vec<Vec<Vec<f32>>>,
    /// The mean over the heads, `[i][j]`.
    average: Vec<Vec<f32>>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mode_of(name: &str, seed: u32) -> HeadMode {
    match name {
        "split" => HeadMode::Split,
        "projected" => HeadMode::Projected { seed: u64::from(seed) },
        other => panic!("unknown mode {other}"),
    }
}

fn rows(flat: &[f32], n: usize) -> Vec<Vec<f32>> {
    flat.chunks(n).map(|row| row.iter().map(|w| (w * 1e6).round() / 1e6).collect()).collect()
}

fn compute(embeddings: &Embeddings, sentence: &str, heads: usize, mode: &str, seed: u32) -> Case {
    let a =
        analyze_multi_head(sentence, embeddings, &Options::default(), heads, mode_of(mode, seed)).unwrap();
    let n = a.used.len();
    Case {
        sentence: sentence.into(),
        heads,
        mode: mode.into(),
        seed,
        tokens: a.used.iter().map(|i| a.tokens[*i].text.clone()).collect(),
        weights: a.result.heads.iter().map(|h| rows(&h.weights, n)).collect(),
        average: rows(&a.result.average, n),
    }
}

fn assert_close(got: &[Vec<f32>], want: &[Vec<f32>], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: rows");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.len(), w.len(), "{what}: row {i}");
        for (j, (g, w)) in g.iter().zip(w).enumerate() {
            assert!((g - w).abs() <= TOLERANCE, "{what} [{i}][{j}]: computed {g}, fixture {w}");
        }
    }
}

#[test]
fn multi_head_weights_match_the_shared_fixture() {
    let bytes = std::fs::read(root().join("data/glove-6b-50d-fallback.aewv")).unwrap();
    let embeddings = Embeddings::from_subset(&bytes).unwrap();
    let path = root().join("tests/golden/multihead.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let sentence = "The cat sat on the mat because it was tired";
        let fixture = Fixture {
            about: "Multi-head attention over data/glove-6b-50d-fallback.aewv with the default options (scaled, self \
                    allowed, not causal, temperature 1). Written by UPDATE_GOLDEN=1 cargo test -p \
                    attention-wasm --test multihead_golden; read by that test and by \
                    tests/e2e/teach-heads.test.mjs."
                .into(),
            cases: vec![
                compute(&embeddings, sentence, 5, "projected", 42),
                compute(&embeddings, sentence, 10, "split", 0),
                compute(&embeddings, "The king and queen ruled the kingdom", 2, "projected", 7),
            ],
        };
        std::fs::write(&path, serde_json::to_string_pretty(&fixture).unwrap() + "\n").unwrap();
    }
    let fixture: Fixture = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        fixture.cases.iter().any(|c| c.mode == "projected")
            && fixture.cases.iter().any(|c| c.mode == "split")
    );
    for case in &fixture.cases {
        let again = compute(&embeddings, &case.sentence, case.heads, &case.mode, case.seed);
        assert_eq!(again.tokens, case.tokens);
        assert_eq!(again.weights.len(), case.heads);
        for (h, (got, want)) in again.weights.iter().zip(&case.weights).enumerate() {
            assert_close(got, want, &format!("{} head {h}", case.mode));
        }
        assert_close(&again.average, &case.average, &format!("{} average", case.mode));
        // A different seed gives different heads: the fixture pins the seed.
        if case.mode == "projected" {
            let other = compute(&embeddings, &case.sentence, case.heads, "projected", case.seed + 1);
            assert_ne!(other.weights, case.weights);
        }
    }
}
