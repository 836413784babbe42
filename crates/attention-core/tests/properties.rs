//! Properties that must hold for any input: softmax rows sum to 1, nothing is
//! NaN or infinite, the fast path agrees with a naive reference, spans slice
//! the original text, and no bytes make the readers or the tokenizer panic.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::collections::HashSet;

use attention_core::embeddings::Precision;
use attention_core::{attend, tokenize, Embeddings, Matrix, Options};
use proptest::prelude::*;

fn options() -> impl Strategy<Value = Options> {
    (any::<bool>(), any::<bool>(), any::<bool>(), prop_oneof![Just(1.0f32), 0.001f32..1000.0]).prop_map(
        |(scale, self_attention, causal, temperature)| Options { scale, temperature, self_attention, causal },
    )
}

fn matrix(rows: usize, cols: usize, magnitude: f32) -> impl Strategy<Value = Matrix> {
    prop::collection::vec(-magnitude..magnitude, rows * cols)
        .prop_map(move |data| Matrix::new(rows, cols, data).unwrap())
}

fn qkv() -> impl Strategy<Value = (Matrix, Matrix, Matrix)> {
    (0usize..10, 1usize..10, 1usize..8, 1usize..6, prop_oneof![Just(3.0f32), Just(1e18f32)]).prop_flat_map(
        |(n_q, n_k, d, d_v, magnitude)| {
            (matrix(n_q, d, magnitude), matrix(n_k, d, magnitude), matrix(n_k, d_v, magnitude))
        },
    )
}

/// Softmax(s·QKᵀ)·V written as plainly as possible, in f64.
fn naive(q: &Matrix, k: &Matrix, v: &Matrix, o: &Options) -> (Vec<f64>, Vec<f64>) {
    let d = q.cols() as f64;
    let factor = if o.scale { 1.0 / d.sqrt() } else { 1.0 } / f64::from(o.temperature);
    let mut weights = vec![0.0; q.rows() * k.rows()];
    let mut context = vec![0.0; q.rows() * v.cols()];
    for i in 0..q.rows() {
        let allowed: Vec<usize> = (0..k.rows()).filter(|&j| !o.is_masked(i, j)).collect();
        let s: Vec<f64> = allowed
            .iter()
            .map(|&j| {
                factor
                    * q.row(i).iter().zip(k.row(j)).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum::<f64>()
            })
            .collect();
        let max = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
        let sum: f64 = e.iter().sum();
        for (&j, e) in allowed.iter().zip(&e) {
            weights[i * k.rows() + j] = e / sum;
            for c in 0..v.cols() {
                context[i * v.cols() + c] += e / sum * f64::from(v.row(j)[c]);
            }
        }
    }
    (weights, context)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn rows_sum_to_one_and_nothing_is_nan((q, k, v) in qkv(), o in options()) {
        let a = attend(&q, &k, &v, &o).unwrap();
        prop_assert!(a.weights.iter().all(|w| w.is_finite() && *w >= 0.0));
        prop_assert!(a.context.iter().all(|c| c.is_finite()));
        prop_assert!(a.scores.iter().all(|s| s.is_finite()));
        for i in 0..a.queries {
            let sum: f32 = a.weight_row(i).iter().sum();
            if a.fully_masked[i] {
                prop_assert_eq!(sum, 0.0);
            } else {
                prop_assert!((sum - 1.0).abs() <= 1e-5, "row {} sums to {}", i, sum);
            }
            for j in 0..a.keys {
                prop_assert_eq!(a.is_masked(i, j), o.is_masked(i, j));
                if o.is_masked(i, j) {
                    prop_assert_eq!(a.weight(i, j), 0.0);
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_naive_reference(
        (q, k, v) in (1usize..8, 1usize..8, 1usize..6).prop_flat_map(|(n, d, dv)| (matrix(n, d, 3.0), matrix(n, d, 3.0), matrix(n, dv, 3.0))),
        o in options(),
    ) {
        let a = attend(&q, &k, &v, &o).unwrap();
        let (weights, context) = naive(&q, &k, &v, &o);
        for (got, want) in a.weights.iter().zip(&weights) {
            prop_assert!((f64::from(*got) - want).abs() <= 1e-6, "{} vs {}", got, want);
        }
        for (got, want) in a.context.iter().zip(&context) {
            prop_assert!((f64::from(*got) - want).abs() <= 1e-5 * (1.0 + want.abs()), "{} vs {}", got, want);
        }
    }

    #[test]
    fn spans_slice_the_original_text(text in "\\PC{0,40}|[a-zA-Z'’.,!?()\" -]{0,40}") {
        let vocab: HashSet<String> = ["the", "n't", "'s", "...", "u.s.", "well-known", "--", "ca"]
            .iter().map(|s| s.to_string()).collect();
        let tokens = tokenize(&text, &vocab);
        let mut covered = String::new();
        let mut end = 0;
        for t in &tokens {
            prop_assert!(t.span.start >= end && t.span.start < t.span.end);
            let piece = text.get(t.span.clone());
            prop_assert!(piece.is_some(), "span {:?} is not on char boundaries", t.span);
            let piece = piece.unwrap();
            prop_assert!(!piece.chars().any(char::is_whitespace));
            covered.push_str(piece);
            end = t.span.end;
        }
        let non_space: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        prop_assert_eq!(covered, non_space, "tokens cover every non-space character once");
    }

    #[test]
    fn tokenizer_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let text = String::from_utf8_lossy(&bytes);
        let vocab: &[&str] = &["n't", "...", "a"];
        for token in tokenize(&text, vocab) {
            prop_assert!(text.get(token.span.clone()).is_some());
        }
    }

    #[test]
    fn readers_never_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Embeddings::from_bytes(&bytes);
        let _ = Embeddings::from_subset(&bytes);
        let _ = Embeddings::from_glove_text(&bytes[..]);
        let mut subset = b"AEWV".to_vec();
        subset.extend_from_slice(&bytes);
        let _ = Embeddings::from_subset(&subset);
    }

    #[test]
    fn damaged_subsets_are_errors_not_panics(cut in 0usize..200, flip in 0usize..200, bit in 0u8..8) {
        let good = Embeddings::new(4, vec!["a".into(), "bb".into(), "ccc".into()], (0..12).map(|x| x as f32).collect())
            .unwrap()
            .to_subset(Precision::F16)
            .unwrap();
        let cut = cut.min(good.len() - 1);
        prop_assert!(Embeddings::from_subset(&good[..cut]).is_err());
        let mut flipped = good.clone();
        let at = flip % good.len();
        flipped[at] ^= 1 << bit;
        let _ = Embeddings::from_subset(&flipped);
    }
}
