//! Inside the heads, and across them: a head opened for one query (q, k, v,
//! scores, weights, context), head search, the measured behaviours, rollout
//! and the 2-D projection, on the tiny model of the numpy fixture (always)
//! and on all-MiniLM-L6-v2 (when built; required with `AE_REQUIRE_MODEL`).

#![allow(clippy::unwrap_used)]

mod common;

use attention_model::manifest::{ManifestFile, ModelManifest};
use attention_model::{rank_by, shard_file, DType, HeadsView, Model, Pattern};
use common::{floats, max_diff, real_model, tiny_files, tiny_fixture, tiny_model};
use serde_json::Value;

const CAT: &str = "The cat sat on the mat because it was tired";

fn ids(model: &Model, text: &str) -> Vec<u32> {
    model.tokenize(text).iter().map(|p| p.id).collect()
}

#[test]
fn head_weights_are_exactly_the_forward_pass_attention() {
    let model = tiny_model(DType::F32);
    let text = "the cat sat on the mat because it was tired";
    let attention = model.attention(text).unwrap();
    let n = attention.n();
    for layer in 0..2 {
        let projections = model.layer_projections(&ids(&model, text), layer).unwrap();
        assert_eq!((projections.n, projections.heads, projections.head_dim), (n, 4, 4));
        for head in 0..4 {
            let returned = attention.head(layer, head).unwrap();
            for query in 0..n {
                let details = projections.head_details(head, query).unwrap();
                assert_eq!(details.weights, returned[query * n..(query + 1) * n], "L{layer}H{head} q{query}");
                assert!((details.weights.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            }
        }
    }
}

#[test]
fn the_terms_sum_to_the_score_and_the_context_is_the_weighted_values() {
    let model = tiny_model(DType::F32);
    let text = "the cat sat on the mat because it was tired";
    let details = model.layer_projections(&ids(&model, text), 1).unwrap().head_details(2, 8).unwrap();
    let (n, d) = (details.n, details.dim);
    assert_eq!((details.queries.len(), details.keys.len(), details.values.len()), (n * d, n * d, n * d));
    assert_eq!(details.scale, 0.5, "1/√4");
    for key in 0..n {
        let terms = details.terms(key).unwrap();
        let sum: f32 = terms.iter().sum();
        assert!(
            (sum - details.scores[key]).abs() <= 1e-5 * (1.0 + sum.abs()),
            "key {key}: {sum} vs {}",
            details.scores[key]
        );
        assert_eq!(details.scaled[key], details.scores[key] * details.scale);
    }
    assert!(details.terms(n).is_none());
    for t in 0..d {
        let expected: f32 = (0..n).map(|j| details.weights[j] * details.values[j * d + t]).sum();
        assert!((details.context[t] - expected).abs() < 1e-6);
    }
}

#[test]
fn the_tiny_head_matches_the_numpy_reference() {
    let model = tiny_model(DType::F32);
    let fixture = tiny_fixture();
    let case = &fixture["cases"][0];
    check_inside(&model, case["text"].as_str().unwrap(), &case["inside"], 1e-5);
}

/// A head opened for one query against `inside` of a fixture (numpy, float64).
fn check_inside(model: &Model, text: &str, inside: &Value, tolerance: f32) {
    let get = |key: &str| inside[key].as_u64().unwrap() as usize;
    let (layer, head, query) = (get("layer"), get("head"), get("query"));
    let details =
        model.layer_projections(&ids(model, text), layer).unwrap().head_details(head, query).unwrap();
    assert_eq!(details.dim, get("dim"));
    assert!((f64::from(details.scale) - inside["scale"].as_f64().unwrap()).abs() < 1e-7);
    for (name, ours) in [
        ("q", &details.queries),
        ("k", &details.keys),
        ("v", &details.values),
        ("scores", &details.scores),
        ("weights", &details.weights),
        ("context", &details.context),
    ] {
        let error = max_diff(ours, &floats(&inside[name]));
        eprintln!("{text:?} L{layer}H{head} query {query}: {name} within {error:.1e} of the reference");
        assert!(error < tolerance, "{name} differs from the reference by {error}");
    }
}

#[test]
fn out_of_range_indices_get_clear_errors() {
    let model = tiny_model(DType::F32);
    let ids = ids(&model, "the cat sat");
    let err = model.layer_projections(&ids, 2).unwrap_err().to_string();
    assert_eq!(err, "layer 2 does not exist: this model has layers 0 to 1");
    let projections = model.layer_projections(&ids, 0).unwrap();
    assert_eq!(
        projections.head_details(4, 0).unwrap_err().to_string(),
        "head 4 does not exist: layer 0 has heads 0 to 3"
    );
    let err = projections.head_details(0, 5).unwrap_err().to_string();
    assert!(err.starts_with("query 5 does not exist: the sentence has pieces 0 to 4"), "{err}");
    assert!(projections.project_head(9).is_err());
}

#[test]
fn rollout_rows_sum_to_one_in_every_view() {
    let model = tiny_model(DType::F32);
    let attention = model.attention("the cat sat on the mat because it was tired").unwrap();
    let words = attention.words(true);
    for rollout in [attention.rollout(), attention.without_special().rollout(), words.rollout()] {
        assert_eq!(rollout.rollout.len(), 2 * rollout.n * rollout.n);
        for row in rollout.rollout.chunks(rollout.n) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{row:?}");
            assert!(row.iter().all(|w| *w >= 0.0));
        }
    }
    // The raw average of layer 0 is the mean of its four heads.
    let n = attention.n();
    let average = attention.rollout();
    let expected: f32 = (0..4).map(|h| attention.head(0, h).unwrap()[n + 2]).sum::<f32>() / 4.0;
    assert!((average.average_of(0).unwrap()[n + 2] - expected).abs() < 1e-6);
}

#[test]
fn a_projection_puts_queries_and_keys_in_one_plane() {
    let model = tiny_model(DType::F32);
    let ids = ids(&model, "the cat sat on the mat");
    let projections = model.layer_projections(&ids, 1).unwrap();
    let picture = projections.project_head(3).unwrap();
    assert_eq!(picture.points.len(), 2 * picture.n * 2);
    assert!(picture.explained[0] >= picture.explained[1] && picture.explained[1] >= 0.0);
    assert!(picture.explained[0] + picture.explained[1] <= 1.0 + 1e-6);
    // Centred: the points' mean is the origin.
    let mean_x: f32 = picture.points.chunks(2).map(|p| p[0]).sum::<f32>() / (2 * picture.n) as f32;
    assert!(mean_x.abs() < 1e-5);
    // Each axis's largest coordinate is positive, and running again changes nothing.
    for axis in picture.axes.chunks(4) {
        let largest = axis.iter().fold(0f32, |m, a| if a.abs() > m.abs() { *a } else { m });
        assert!(largest > 0.0, "{axis:?}");
    }
    assert_eq!(picture, model.layer_projections(&ids, 1).unwrap().project_head(3).unwrap());
}

#[test]
fn the_manifest_is_checked_against_the_core() {
    let files = tiny_files(DType::F16, 3, tiny_fixture()["seed"].as_u64().unwrap());
    let model = Model::from_core(&files.core).unwrap();
    for (k, shard) in files.shards.iter().enumerate() {
        assert_eq!(model.shard_bytes(k), Some(shard.len()), "shard {k}");
    }
    assert_eq!(model.shard_bytes(files.shards.len()), None);
    let listed = |core: usize, shards: Vec<usize>| ModelManifest {
        core: ManifestFile { file: "minilm-core.aebm".into(), bytes: core as u64 },
        shards: shards
            .into_iter()
            .enumerate()
            .map(|(k, bytes)| ManifestFile { file: shard_file(k), bytes: bytes as u64 })
            .collect(),
    };
    let real: Vec<usize> = files.shards.iter().map(Vec::len).collect();
    model.check_manifest(&listed(files.core.len(), real.clone()), files.core.len()).unwrap();
    let mut lying = real.clone();
    lying[1] = 1 << 20;
    let err =
        model.check_manifest(&listed(files.core.len(), lying), files.core.len()).unwrap_err().to_string();
    assert!(
        err.contains("embedding shard 1 (embeddings/0001.aeemb) as 1048576 bytes; the core says"),
        "{err}"
    );
    let err =
        model.check_manifest(&listed(files.core.len() + 1, real.clone()), files.core.len()).unwrap_err();
    assert!(err.to_string().contains("but the core read is"), "{err}");
    let err =
        model.check_manifest(&listed(files.core.len(), real[1..].to_vec()), files.core.len()).unwrap_err();
    assert!(err.to_string().contains(&format!("shards; the core has {}", real.len())), "{err}");
}

// --- all-MiniLM-L6-v2 -------------------------------------------------------

#[test]
fn minilm_layer_5_head_11_opened_for_it_matches_the_reference() {
    let Some(model) = real_model() else { return };
    let fixture: Value = serde_json::from_str(include_str!("../testdata/minilm_forward.json")).unwrap();
    let case = &fixture["cases"][0];
    assert_eq!(case["text"], CAT);
    check_inside(&model, CAT, &case["f16"]["inside"], 1e-4);
    // The same row the heatmap draws, exactly; 'it' (8) → 'cat' (2) ≈ 0.68.
    let details = model.layer_projections(&ids(&model, CAT), 5).unwrap().head_details(11, 8).unwrap();
    let attention = model.attention(CAT).unwrap();
    let n = attention.n();
    assert_eq!(details.weights, attention.head(5, 11).unwrap()[8 * n..9 * n]);
    assert!((details.weights[2] - 0.6826).abs() < 0.005, "{}", details.weights[2]);
    assert_eq!((details.dim, details.scale), (32, 1.0 / 32f32.sqrt()));
}

#[test]
fn minilm_head_search_and_behaviours_on_the_cat_sentence() {
    let Some(model) = real_model() else { return };
    let attention = model.attention(CAT).unwrap();
    let n = attention.n();
    let ranked = attention.search_heads(8, 2).unwrap();
    assert_eq!(ranked.len(), 72);
    // Best first, and the first is the largest 'it' → 'cat' weight of all heads.
    let best = (0..6)
        .flat_map(|l| (0..12).map(move |h| (l, h)))
        .map(|(l, h)| attention.head(l, h).unwrap()[8 * n + 2])
        .fold(0f32, f32::max);
    assert_eq!(ranked[0].weight, best);
    assert!(ranked.windows(2).all(|w| w[0].weight >= w[1].weight));
    let behaviours = attention.head_behaviours();
    let l5h11 = &behaviours[5 * 12 + 11];
    eprintln!("it → cat: {:?}", &ranked[..3]);
    for b in &behaviours {
        eprintln!("L{}H{}: {}", b.layer, b.head, b.description);
    }
    // What the issue measured: this head sends nearly every word to 'cat', it
    // does not resolve the pronoun. Its description says so, from the numbers.
    assert_eq!(l5h11.focus.map(|f| f.token), Some(2), "{l5h11:?}");
    assert!(l5h11.description.contains("'cat'"), "{}", l5h11.description);
    // "the" occurs twice, so the same-word measure applies; every head has a line.
    assert!(HeadsView::pieces(&attention).has_repeated_words());
    assert!(rank_by(&behaviours, Pattern::SameWord).is_some());
    assert!(behaviours.iter().all(|b| !b.description.is_empty()));
    // Some head of MiniLM is a previous-token head on this sentence.
    let previous = rank_by(&behaviours, Pattern::Previous).unwrap();
    assert!(previous[0].weight > 0.5, "{:?}", previous[0]);
    // The word view ranks the same way here: every word of this sentence is one piece.
    let words = attention.words(false);
    assert_eq!(words.search_heads(8, 2).unwrap(), ranked);
}

#[test]
fn minilm_rollout_rows_sum_to_one() {
    let Some(model) = real_model() else { return };
    let rollout = model.attention(CAT).unwrap().rollout();
    assert_eq!((rollout.layers, rollout.n), (6, 12));
    for row in rollout.rollout.chunks(12) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
