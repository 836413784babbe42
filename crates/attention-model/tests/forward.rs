//! The forward pass against values exported once by the numpy reference
//! (scripts/reference/make_forward_fixture.py):
//!
//! - always: a tiny random model whose weights both sides generate with the
//!   same splitmix64 sequence (testdata/tiny_forward.json);
//! - when the real model has been built (`scripts/build-model` writes
//!   `model/`; `AE_MODEL_DIR` points elsewhere): all-MiniLM-L6-v2
//!   (testdata/minilm_forward.json). Without it those tests print a notice and pass,
//!   unless `AE_REQUIRE_MODEL` is set (scripts/test sets it), when they fail.
//!
//! Models are always assembled the way the page does it: the core file, then
//! embedding shards.

// Helpers outside #[test] functions unwrap fixture data too.
#![allow(clippy::unwrap_used)]

mod common;

use attention_model::testing::built_model_dir;
use attention_model::{shard_file, DType, Error, Model, CORE_FILE};
use serde_json::Value;

use common::{assemble, floats, ids, max_diff, real_model, tiny_files, tiny_fixture, tiny_model};

#[test]
fn tiny_model_matches_the_numpy_reference() {
    let model = tiny_model(DType::F32);
    for case in tiny_fixture()["cases"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let expected_ids = ids(&case["ids"]);
        let tokenized: Vec<u32> = model.tokenize(text).iter().map(|p| p.id).collect();
        assert_eq!(tokenized, expected_ids, "{text}");
        let encoding = model.run(&expected_ids).unwrap();
        let attention_error = max_diff(&encoding.attention, &floats(&case["attention"]));
        let hidden_error = max_diff(&encoding.hidden, &floats(&case["hidden"]));
        assert!(attention_error < 1e-5, "{text}: attention differs by {attention_error}");
        assert!(hidden_error < 1e-4, "{text}: hidden states differ by {hidden_error}");
    }
}

#[test]
fn every_attention_row_sums_to_one() {
    let model = tiny_model(DType::F32);
    let attention = model.attention("the cat sat on the mat").unwrap();
    let n = attention.n();
    assert_eq!(attention.weights.len(), 2 * 4 * n * n);
    for row in attention.weights.chunks_exact(n) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(row.iter().all(|w| (0.0..=1.0).contains(w)));
    }
}

#[test]
fn f16_and_q8_files_stay_close_to_f32() {
    let exact = tiny_model(DType::F32).attention("the cat sat on the mat because it was tired").unwrap();
    for (dtype, tolerance) in [(DType::F16, 2e-3), (DType::Q8, 5e-2)] {
        let model = tiny_model(dtype);
        let approx = model.attention("the cat sat on the mat because it was tired").unwrap();
        let error = max_diff(&exact.weights, &approx.weights);
        assert!(error > 0.0 && error < tolerance, "{dtype:?}: {error}");
    }
}

#[test]
fn too_long_sentences_are_refused() {
    let model = tiny_model(DType::F32);
    let err = model.attention(&"cat ".repeat(15)).unwrap_err().to_string();
    assert!(err.contains("17 pieces") && err.contains("at most 16"), "{err}");
}

#[test]
fn any_shard_size_gives_exactly_the_same_attention() {
    let seed = tiny_fixture()["seed"].as_u64().unwrap();
    let text = "the cat sat on the mat because it was tired";
    let whole = assemble(&tiny_files(DType::F16, 1, seed)).attention(text).unwrap();
    let vocab_size = tiny_fixture()["vocab"].as_array().unwrap().len();
    for rows in [2, 3, 7, vocab_size - 1, vocab_size] {
        let files = tiny_files(DType::F16, rows, seed);
        assert_eq!(files.shards.len(), vocab_size.div_ceil(rows));
        let attention = assemble(&files).attention(text).unwrap();
        assert_eq!(attention.weights, whole.weights, "{rows} rows per shard");
    }
}

#[test]
fn a_sentence_needs_only_its_shards_and_names_the_missing_ones() {
    let files = tiny_files(DType::F32, 3, tiny_fixture()["seed"].as_u64().unwrap());
    let mut model = Model::from_core(&files.core).unwrap();
    assert_eq!((model.embedding_shards(), model.rows_per_shard()), (files.shards.len(), 3));
    let text = "the cat sat on the mat";
    let ids: Vec<u32> = model.tokenize(text).iter().map(|p| p.id).collect();
    let mut expected: Vec<usize> = ids.iter().map(|id| *id as usize / 3).collect();
    expected.sort_unstable();
    expected.dedup();
    assert!(expected.len() > 1 && expected.len() < files.shards.len(), "{expected:?}");
    assert_eq!(model.missing_shards(&ids), expected);
    assert_eq!(model.attention(text).unwrap_err(), Error::MissingShards(expected.clone()));

    // Add all but the last needed shard, in reverse order, one of them twice.
    let (last, rest) = expected.split_last().unwrap();
    for k in rest.iter().rev().chain(rest.first()) {
        assert_eq!(model.add_shard(&files.shards[*k]).unwrap(), *k);
    }
    assert_eq!(model.missing_shards(&ids), [*last]);
    let err = model.attention(text).unwrap_err();
    assert_eq!(err, Error::MissingShards(vec![*last]));
    assert!(err.to_string().contains(&format!("embedding shard {last} is missing")), "{err}");
    model.add_shard(&files.shards[*last]).unwrap();
    assert!(model.missing_shards(&ids).is_empty());
    // Only the sentence's shards are loaded, and the numbers are the full model's.
    let full = tiny_model(DType::F32).attention(text).unwrap();
    assert_eq!(model.attention(text).unwrap().weights, full.weights);
    // Ids outside the vocabulary need no shard (running them is refused anyway).
    assert!(model.missing_shards(&[u32::MAX, 1_000_000]).is_empty());
    assert!(model.run(&[u32::MAX]).unwrap_err().to_string().contains("outside the vocabulary"));
}

#[test]
fn shards_of_another_model_or_layout_are_refused() {
    let seed = tiny_fixture()["seed"].as_u64().unwrap();
    let files = tiny_files(DType::F16, 3, seed);
    let mut model = Model::from_core(&files.core).unwrap();
    let refused = |model: &mut Model, shard: &[u8]| model.add_shard(shard).unwrap_err().to_string();
    // Same shape, other weights: only the checksum tells.
    let other = tiny_files(DType::F16, 3, seed + 1);
    assert!(refused(&mut model, &other.shards[1]).contains("checksum differs"));
    // Other shard size: shard 1 holds rows 2..4 instead of 3..6.
    let other = tiny_files(DType::F16, 2, seed);
    assert!(refused(&mut model, &other.shards[1]).contains("rows 2..4, the model expects 3..6"));
    // Index beyond the model's shards.
    let last = other.shards.len() - 1;
    assert!(refused(&mut model, &other.shards[last]).contains(&format!("shard {last} does not belong")));
    // Other dtype.
    let other = tiny_files(DType::F32, 3, seed);
    assert!(refused(&mut model, &other.shards[0]).contains("stored as F32"));
    // Other dimension: the shard header says 8 instead of 16 (and the data
    // is cut to match, so that the shard itself is well formed).
    let mut shard = files.shards[0].clone();
    shard[20..24].copy_from_slice(&8u32.to_le_bytes());
    shard.truncate(24 + 3 * 8 * 2);
    assert!(refused(&mut model, &shard).contains("8 dimensions, the model 16"));
    // Malformed bytes, and a core given as a shard.
    assert!(refused(&mut model, b"AEWE").contains("too short"));
    assert!(refused(&mut model, &files.core).contains("not an Attention Explorer embedding shard"));
    assert!(model.missing_shards(&[0, 3, 6]) == [0, 1, 2], "nothing was added");
    // And a shard is not a core.
    assert!(Model::from_core(&files.shards[0]).unwrap_err().to_string().contains("wrong magic"));
}

#[test]
fn minilm_matches_the_numpy_reference() {
    let Some(model) = real_model() else { return };
    let fixture: Value = serde_json::from_str(include_str!("../testdata/minilm_forward.json")).unwrap();
    let dims = fixture["hidden_dims"].as_u64().unwrap() as usize;
    for case in fixture["cases"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let attention = model.attention(text).unwrap();
        let got_ids: Vec<u32> = attention.pieces.iter().map(|p| p.id).collect();
        assert_eq!(got_ids, ids(&case["ids"]), "{text}");
        let encoding = model.run(&got_ids).unwrap();
        let n = got_ids.len();
        let q = case["query"].as_u64().unwrap() as usize;
        let query_rows: Vec<f32> =
            (0..6 * 12).flat_map(|lh| encoding.attention[(lh * n + q) * n..][..n].to_vec()).collect();
        let hidden: Vec<f32> =
            encoding.hidden.chunks_exact(384).flat_map(|row| row[..dims].to_vec()).collect();
        // "f16": the reference run on exactly the weights the default file holds,
        // so the difference is the arithmetic alone. "f32": the original model,
        // so the difference includes storing the weights as f16.
        for (reference, attention_tolerance, hidden_tolerance) in [("f16", 1e-4, 1e-3), ("f32", 1e-2, 5e-2)] {
            let r = &case[reference];
            let mut error = max_diff(&query_rows, &floats(&r["query_rows"]));
            for head in r["heads"].as_array().unwrap() {
                let (l, h) =
                    (head["layer"].as_u64().unwrap() as usize, head["head"].as_u64().unwrap() as usize);
                error = error.max(max_diff(attention.head(l, h).unwrap(), &floats(&head["weights"])));
            }
            let hidden_error = max_diff(&hidden, &floats(&r["hidden"]));
            eprintln!("{text:?} vs {reference} reference: attention {error:.2e}, hidden {hidden_error:.2e}");
            assert!(
                error < attention_tolerance,
                "{text}: attention differs from the {reference} reference by {error}"
            );
            assert!(
                hidden_error < hidden_tolerance,
                "{text}: hidden differs from the {reference} reference by {hidden_error}"
            );
        }
    }
}

#[test]
fn minilm_layer_5_head_11_sends_it_to_cat() {
    let Some(model) = real_model() else { return };
    let attention = model.attention("The cat sat on the mat because it was tired").unwrap();
    let texts: Vec<&str> = attention.pieces.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(
        texts,
        ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", "[SEP]"]
    );
    let head = attention.head(5, 11).unwrap();
    let n = attention.n();
    let weight = head[8 * n + 2];
    assert!(weight > 0.6, "'it' → 'cat' is {weight}");
    assert!((weight - 0.6826).abs() < 0.01, "'it' → 'cat' is {weight}, the reference says 0.6826");
}

#[test]
fn minilm_it_to_cat_with_only_the_sentences_shards() {
    let Some(dir) = built_model_dir() else { return };
    let mut model = Model::from_core(&std::fs::read(dir.join(CORE_FILE)).unwrap()).unwrap();
    assert_eq!((model.embedding_shards(), model.rows_per_shard()), (954, 32));
    let text = "The cat sat on the mat because it was tired";
    let ids: Vec<u32> = model.tokenize(text).iter().map(|p| p.id).collect();
    assert_eq!(ids, [101, 1996, 4937, 2938, 2006, 1996, 13523, 2138, 2009, 2001, 5458, 102]);
    // id / 32: [CLS] 3, the 62, cat 154, sat 91, on 62, mat 422, because 66, it 62, was 62, tired 170.
    let missing = model.missing_shards(&ids);
    assert_eq!(missing, [3, 62, 66, 91, 154, 170, 422]);
    assert_eq!(model.attention(text).unwrap_err(), Error::MissingShards(missing.clone()));
    for k in &missing {
        model.add_shard(&std::fs::read(dir.join(shard_file(*k))).unwrap()).unwrap();
    }
    let attention = model.attention(text).unwrap();
    let n = attention.n();
    let weight = attention.head(5, 11).unwrap()[8 * n + 2];
    assert!(weight > 0.6, "'it' → 'cat' is {weight}");
    assert!((weight - 0.6826).abs() < 0.01, "'it' → 'cat' is {weight}, the reference says 0.6826");
    // The same numbers as with the whole table loaded.
    assert_eq!(attention.weights, real_model().unwrap().attention(text).unwrap().weights);
}

#[test]
fn minilm_word_view_of_it() {
    let Some(model) = real_model() else { return };
    let attention = model.attention("The animal didn't cross the street because it was too tired.").unwrap();
    let pieces = attention.head(5, 11).unwrap().to_vec();
    let words = attention.words(true);
    let texts: Vec<&str> = words.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(texts[..5], ["The", "animal", "didn", "'", "t"]);
    let (it, animal) = (texts.iter().position(|t| *t == "it").unwrap(), 1);
    let head = words.head(5, 11).unwrap();
    let w = words.n();
    // Single-piece words: the word view keeps the piece weight as it is.
    let n = attention.n();
    assert_eq!(head[it * w + animal], pieces[(it + 1) * n + animal + 1]);
    let strongest = (0..w).max_by(|a, b| head[it * w + a].total_cmp(&head[it * w + b])).unwrap();
    assert_eq!(texts[strongest], "animal", "row of 'it': {:?}", &head[it * w..(it + 1) * w]);
}
