//! Properties that must hold for any input: softmax rows sum to 1, nothing is
//! NaN or infinite, the fast path agrees with a naive reference, spans slice
//! the original text, and no bytes make the readers or the tokenizer panic.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::collections::HashSet;

use attention_core::embeddings::Precision;
use attention_core::{attend, attend_with, self_attention, tokenize, Embeddings, Extras, Matrix, Options};
use proptest::prelude::*;

// The benches' seeded vectors; the tests use only `normal_matrix`.
#[allow(dead_code)]
#[path = "../benches/kernel-wasm/glove_like.rs"]
mod glove_like;

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

/// Softmax(s·QKᵀ)·V written as plainly as possible, in f64: every
/// intermediate, and for each context number the scale of its terms
/// (Σ_j |w_j · v_j|), against which its rounding errors are measured.
struct Reference {
    scores: Vec<f64>,
    /// `None` where masked.
    scaled: Vec<Option<f64>>,
    weights: Vec<f64>,
    context: Vec<f64>,
    context_scale: Vec<f64>,
}

fn naive(q: &Matrix, k: &Matrix, v: &Matrix, o: &Options) -> Reference {
    naive_with(q, k, v, o, &Extras::default())
}

fn naive_with(q: &Matrix, k: &Matrix, v: &Matrix, o: &Options, extras: &Extras<'_>) -> Reference {
    let d = extras.scale_dim.unwrap_or(q.cols()) as f64;
    // The temperature is the decimal it was typed as (0.05), not the f32 nearest it.
    let temperature: f64 = format!("{}", o.temperature).parse().unwrap();
    let factor = if o.scale { 1.0 / d.sqrt() } else { 1.0 } / temperature;
    let (n_q, n_k, d_v) = (q.rows(), k.rows(), v.cols());
    let masked = |i: usize, j: usize| o.is_masked(i, j) || extras.key_padding.is_some_and(|p| p[j]);
    let mut r = Reference {
        scores: vec![0.0; n_q * n_k],
        scaled: vec![None; n_q * n_k],
        weights: vec![0.0; n_q * n_k],
        context: vec![0.0; n_q * d_v],
        context_scale: vec![0.0; n_q * d_v],
    };
    for i in 0..n_q {
        for j in 0..n_k {
            let dot = q.row(i).iter().zip(k.row(j)).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum::<f64>();
            r.scores[i * n_k + j] = dot;
            r.scaled[i * n_k + j] = (!masked(i, j)).then_some(factor * dot);
        }
        let row = &r.scaled[i * n_k..(i + 1) * n_k];
        let max = row.iter().flatten().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = row.iter().map(|s| s.map_or(0.0, |s| (s - max).exp())).collect();
        let sum: f64 = e.iter().sum();
        for (j, e) in e.iter().enumerate() {
            if *e == 0.0 {
                continue;
            }
            let w = e / sum;
            r.weights[i * n_k + j] = w;
            for c in 0..d_v {
                r.context[i * d_v + c] += w * f64::from(v.row(j)[c]);
                r.context_scale[i * d_v + c] += (w * f64::from(v.row(j)[c])).abs();
            }
        }
    }
    r
}

/// `got` is the `f32` rounding of some number within `tolerance` of `want`
/// (rounding to f32 is monotone, so the two ends bound every such rounding).
fn rounds_near(got: f32, want: f64, tolerance: f64) -> bool {
    let (lo, hi) = ((want - tolerance) as f32, (want + tolerance) as f32);
    lo <= got && got <= hi
}

/// Checks an attention against the naive reference: scores and scaled scores
/// are the reference's own sums rounded (same order of summation), weights
/// within 1e-12 relative of it, context within 1e-12 of the scale of its terms.
fn check_against_reference(a: &attention_core::Attention, r: &Reference) -> std::result::Result<(), String> {
    let saturate = |x: f64| x.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32;
    for (cell, (got, want)) in a.scores.iter().zip(&r.scores).enumerate() {
        if *got != saturate(*want) {
            return Err(format!("score {cell}: {got} vs {want}"));
        }
    }
    for (cell, (got, want)) in a.scaled.iter().zip(&r.scaled).enumerate() {
        if *got != want.map_or(f32::NEG_INFINITY, saturate) {
            return Err(format!("scaled score {cell}: {got} vs {want:?}"));
        }
    }
    for (cell, (got, want)) in a.weights.iter().zip(&r.weights).enumerate() {
        if !rounds_near(*got, *want, want * 1e-12) {
            return Err(format!("weight {cell}: {got} vs {want}"));
        }
    }
    for (cell, ((got, want), scale)) in a.context.iter().zip(&r.context).zip(&r.context_scale).enumerate() {
        if !rounds_near(*got, *want, scale * 1e-12) {
            return Err(format!("context {cell}: {got} vs {want} (terms of size {scale})"));
        }
    }
    for i in 0..a.queries {
        let sum: f64 = a.weight_row(i).iter().map(|w| f64::from(*w)).sum();
        let expected = if a.fully_masked[i] { 0.0 } else { 1.0 };
        if (sum - expected).abs() > 1e-6 {
            return Err(format!("row {i} sums to {sum}"));
        }
    }
    Ok(())
}

/// Seeded normal numbers, `spread` their standard deviation: GloVe 6B 50d's
/// components are about N(0, 0.4). The benches' generator.
fn normal_matrix(rows: usize, cols: usize, spread: f64, seed: u64) -> Matrix {
    glove_like::normal_matrix(rows, cols, spread, seed).unwrap()
}

#[test]
fn the_kernel_agrees_with_the_naive_reference_at_every_size_mask_and_option() {
    // Sizes around the kernel's blocks (32 query rows), tiles (128 keys) and
    // lanes (4), dimensions from 1 to the page's 50, and cross-attention.
    let shapes = [
        (1, 1, 1, 1),
        (2, 3, 3, 2),
        (5, 5, 4, 5),
        (7, 9, 50, 50),
        (31, 33, 50, 50),
        (64, 64, 50, 50),
        (129, 129, 50, 50),
        (33, 260, 50, 7),
        (260, 45, 13, 50),
    ];
    let mut seed = 1;
    for (n_q, n_k, d, d_v) in shapes {
        for spread in [0.4, 3.0] {
            seed += 1;
            let q = normal_matrix(n_q, d, spread, seed);
            let k = normal_matrix(n_k, d, spread, seed + 1000);
            let v = normal_matrix(n_k, d_v, spread, seed + 2000);
            let padding: Vec<bool> = (0..n_k).map(|j| j % 7 == 3).collect();
            for (o, pad) in [
                (Options::default(), false),
                (Options { causal: true, ..Options::default() }, false),
                (Options { self_attention: false, causal: true, ..Options::default() }, true),
                (Options { self_attention: false, scale: false, ..Options::default() }, false),
                (Options { temperature: 0.05, ..Options::default() }, true),
                (Options { temperature: 20.0, causal: true, ..Options::default() }, false),
            ] {
                let extras = Extras { key_padding: pad.then_some(&padding[..]), ..Extras::default() };
                let context = format!("{n_q}×{n_k}, d {d}, d_v {d_v}, spread {spread}, {o:?}, padding {pad}");
                let a = attend_with(&q, &k, &v, &o, &extras).unwrap();
                check_against_reference(&a, &naive_with(&q, &k, &v, &o, &extras))
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                if n_q == n_k && d == d_v {
                    // Self-attention: one matrix as queries, keys and values.
                    let a = attend_with(&q, &q, &q, &o, &extras).unwrap();
                    check_against_reference(&a, &naive_with(&q, &q, &q, &o, &extras))
                        .unwrap_or_else(|e| panic!("self-attention {context}: {e}"));
                }
            }
        }
    }
}

#[test]
fn the_page_setting_at_1024_tokens_agrees_with_the_reference() {
    // The page's largest input: 1,024 GloVe-like vectors, Q = K = V, d = 50.
    let x = normal_matrix(1024, 50, 0.4, 42);
    let a = self_attention(&x, &Options::default()).unwrap();
    check_against_reference(&a, &naive(&x, &x, &x, &Options::default())).unwrap();
}

#[test]
fn empty_and_degenerate_shapes_are_fine() {
    let empty = Matrix::new(0, 3, vec![]).unwrap();
    let some = normal_matrix(4, 3, 1.0, 9);
    let no_keys = attend(&some, &empty, &Matrix::new(0, 2, vec![]).unwrap(), &Options::default()).unwrap();
    assert_eq!(no_keys.fully_masked, vec![true; 4], "no key to attend to");
    assert_eq!(no_keys.context, vec![0.0; 8]);
    let no_queries = attend(&empty, &some, &some, &Options::default()).unwrap();
    assert!(no_queries.weights.is_empty() && no_queries.context.is_empty());
    let zero_dim = Matrix::new(3, 0, vec![]).unwrap();
    assert!(attend(&zero_dim, &zero_dim, &some, &Options::default()).is_err(), "3 keys, 4 values");
    let values = normal_matrix(3, 2, 1.0, 10);
    let flat = attend(&zero_dim, &zero_dim, &values, &Options::default()).unwrap();
    assert_eq!(flat.scores, vec![0.0; 9]);
    assert!(flat.weights.iter().all(|w| (w - 1.0 / 3.0).abs() < 1e-7), "equal scores, equal weights");
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
        (q, k, v) in (1usize..8, 1usize..8, 1usize..8, 1usize..6).prop_flat_map(|(n_q, n_k, d, dv)| (matrix(n_q, d, 3.0), matrix(n_k, d, 3.0), matrix(n_k, dv, 3.0))),
        o in options(),
    ) {
        let a = attend(&q, &k, &v, &o).unwrap();
        let checked = check_against_reference(&a, &naive(&q, &k, &v, &o));
        prop_assert!(checked.is_ok(), "{:?}", checked);
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
