//! Tests of the teaching boundary (`attention_wasm::teach`) in Node.js:
//! the playground's worked examples, the steps of a row and a cell against
//! the heatmap's numbers, cross-attention's shape, the padding demo,
//! multi-head heads and the errors that name what is wrong.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attention_core::explain::{CellSteps, RowSteps};
use attention_core::{self_attention, Matrix, Options};
use attention_wasm::teach::{head_counts, playground_of};
use attention_wasm::{Explorer, PlaygroundSpec, Settings};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const GLOVE: &[u8] = include_bytes!("../../../data/glove-6b-50d-fallback.aewv");
const KING: &str = "The king and queen ruled the kingdom";

fn explorer() -> Explorer {
    Explorer::new(GLOVE).unwrap_or_else(|_| panic!("the shipped subset must load"))
}

fn message(error: wasm_bindgen::JsError) -> String {
    let value: JsValue = error.into();
    String::from(value.dyn_into::<js_sys::Error>().unwrap().message())
}

fn steps(value: JsValue) -> RowSteps {
    serde_wasm_bindgen::from_value(value).unwrap()
}

fn unscaled() -> Settings {
    Settings { scale: false, ..Settings::default() }
}

#[wasm_bindgen_test]
fn playground_reproduces_the_tutorial_scores() {
    let spec = PlaygroundSpec {
        q: "2 3".into(),
        k: "11 13; 1 2; 4 6".into(),
        names: "C A B".into(),
        settings: unscaled(),
        ..PlaygroundSpec::default()
    };
    let view = playground_of(&spec).unwrap();
    assert_eq!((view.rows(), view.cols()), (1, 3));
    assert_eq!(view.scores(), [61.0, 8.0, 26.0]);
    assert_eq!(view.col_labels(), ["C", "A", "B"]);
    assert_eq!(view.row_labels(), ["q1"]);
    let cell: CellSteps = serde_wasm_bindgen::from_value(view.explain_cell(0, 0).unwrap()).unwrap();
    assert_eq!(cell.terms.iter().map(|t| t.product).collect::<Vec<_>>(), [39.0, 22.0]);
}

#[wasm_bindgen_test]
fn playground_shows_saturation_and_its_cure() {
    let spec =
        PlaygroundSpec { q: "1".into(), k: "100; 80".into(), settings: unscaled(), ..Default::default() };
    let off = steps(playground_of(&spec).unwrap().explain_row(0).unwrap());
    assert_eq!(format!("{:.4} {:.4}", off.weights[0], off.weights[1]), "1.0000 0.0000");
    let on = PlaygroundSpec { scale_dim: 100, settings: Settings::default(), ..spec };
    let view = playground_of(&on).unwrap();
    let on = steps(view.explain_row(0).unwrap());
    assert_eq!(on.scaled, [Some(10.0), Some(8.0)]);
    assert_eq!(format!("{:.2} {:.2}", on.weights[0], on.weights[1]), "0.88 0.12");
    assert_eq!(view.weights(), on.weights.iter().map(|w| *w as f32).collect::<Vec<_>>());
}

#[wasm_bindgen_test]
fn playground_projects_with_the_typed_weights_and_names_bad_input() {
    let spec = PlaygroundSpec {
        q: "1 0 1 0; 0 2 0 2; 1 1 1 1".into(),
        wq: "1 0; 0 1; 1 0; 0 1".into(),
        wk: "0 1; 1 0; 0 1; 1 0".into(),
        wv: "1; 1; 1; 1".into(),
        ..Default::default()
    };
    let view = playground_of(&spec).unwrap();
    assert_eq!(view.shape("q"), [3, 2]);
    assert_eq!(view.input("q"), [2.0, 0.0, 0.0, 4.0, 2.0, 2.0]);
    assert_eq!(view.input("k"), [0.0, 2.0, 4.0, 0.0, 2.0, 2.0]);
    assert_eq!(view.value_dim(), 1);
    assert_eq!(view.row_labels(), ["k1", "k2", "k3"]);
    let bad = PlaygroundSpec { k: "1 2; x 3".into(), ..spec.clone() };
    assert_eq!(message(playground_of(&bad).map(|_| ()).unwrap_err()), "K: row 2: 'x' is not a number");
    let misfit = PlaygroundSpec { wk: "1 0; 0 1".into(), ..spec };
    assert!(message(playground_of(&misfit).map(|_| ()).unwrap_err())
        .starts_with("K · W_k: matrix shapes do not fit"));
}

/// A link types the playground's matrices: 2,000 one-number rows and a
/// 1 × 2,000 W_q make a product of 4 million numbers, drawn cell by cell.
#[wasm_bindgen_test]
fn playground_refuses_more_tokens_or_a_larger_product_than_it_can_draw() {
    let column = vec!["1"; 2000].join(";");
    let row = vec!["1"; 2000].join(" ");
    let wide = PlaygroundSpec { q: "1; 2; 3".into(), wq: row, ..Default::default() };
    assert_eq!(
        message(playground_of(&wide).map(|_| ()).unwrap_err()),
        "Q · W_q would be 3 × 2000: the playground shows at most 4096 numbers a matrix"
    );
    let long = PlaygroundSpec { q: column.clone(), ..Default::default() };
    assert_eq!(
        message(playground_of(&long).map(|_| ()).unwrap_err()),
        "Q: 2000 rows; the playground takes at most 128, a row a token"
    );
    let keys = PlaygroundSpec { q: "1".into(), k: column, ..Default::default() };
    assert!(message(playground_of(&keys).map(|_| ()).unwrap_err()).starts_with("K: 2000 rows"));
    let wide_enough = vec!["1"; 32].join(" ");
    let most = PlaygroundSpec {
        q: vec!["1"; 128].join(";"),
        wq: wide_enough.clone(),
        wk: wide_enough,
        ..Default::default()
    };
    assert_eq!(playground_of(&most).unwrap().shape("q"), [128, 32]);
}

#[wasm_bindgen_test]
fn playground_refuses_a_product_beyond_f32_and_stays_finite_on_huge_numbers() {
    let huge =
        PlaygroundSpec { q: "1e38 1e38; 1 2".into(), wq: "1e38 0; 1e38 1".into(), ..Default::default() };
    assert_eq!(
        message(playground_of(&huge).map(|_| ()).unwrap_err()),
        "Q · W_q: row 1, column 1 of the product is 2.0e76, beyond the ±3.4e38 of a 32-bit float: use smaller numbers"
    );
    let typed = PlaygroundSpec { q: "1e38 1e38; 1 2".into(), ..Default::default() };
    let view = playground_of(&typed).unwrap();
    let weights = view.weights();
    assert!(weights.iter().all(|w| w.is_finite()), "{weights:?}");
    assert_eq!(weights[..2], [1.0, 0.0], "1e38 attends to itself only");
}

#[wasm_bindgen_test]
fn steps_of_a_sentence_row_are_the_heatmap_numbers() {
    let e = explorer();
    let a = e.analyze(KING, JsValue::UNDEFINED).unwrap();
    let s = steps(e.explain_row(&a, 1).unwrap());
    let n = a.size();
    let weights = a.weights();
    // The page's analysis keeps the weights alone: they are the full kernel's,
    // and a row's steps are the kernel's other numbers.
    let x = Matrix::new(n, a.dim(), e.input_vectors(&a).unwrap()).unwrap();
    let full = self_attention(&x, &Options::default()).unwrap();
    assert_eq!(weights, full.weights);
    for j in 0..n {
        assert_eq!(s.weights[j] as f32, weights[n + j]);
        assert_eq!(s.dots[j] as f32, full.scores[n + j]);
        assert_eq!(s.scaled[j].map(|s| s as f32), Some(full.scaled[n + j]));
    }
    assert_eq!(s.context.iter().map(|c| *c as f32).collect::<Vec<_>>(), full.context[50..100]);
    assert!((s.cosines[1] - 1.0).abs() < 1e-6, "a word is parallel to itself");
    let cell: CellSteps = serde_wasm_bindgen::from_value(e.explain_cell(&a, 1, 3).unwrap()).unwrap();
    assert_eq!(cell.terms.len(), 50);
    assert!(cell.terms.windows(2).all(|t| t[0].product.abs() >= t[1].product.abs()));
    let sum: f64 = cell.terms.iter().map(|t| t.product).sum();
    assert!((sum - cell.dot).abs() < 1e-9);
    assert_eq!(e.input_vectors(&a).unwrap().len(), n * 50);
}

#[wasm_bindgen_test]
fn masked_steps_cross_as_null_and_every_number_as_the_core_gives_it() {
    let e = explorer();
    let causal = serde_wasm_bindgen::to_value(&Settings { causal: true, ..Settings::default() }).unwrap();
    let a = e.analyze(KING, causal).unwrap();
    let value = e.explain_row(&a, 1).unwrap();
    // What the page reads: null (not undefined) for the later, masked keys.
    let field = |name: &str| js_sys::Array::from(&js_sys::Reflect::get(&value, &name.into()).unwrap());
    let (scaled, exps) = (field("scaled"), field("exps"));
    for j in 0..a.size() {
        assert_eq!(scaled.get(j as u32).is_null(), j > 1, "scaled {j}");
        assert_eq!(exps.get(j as u32).is_null(), j > 1, "exp {j}");
    }
    assert!(js_sys::Reflect::get(&value, &"sumOfExps".into()).unwrap().as_f64().is_some());
    let x = Matrix::new(a.size(), a.dim(), e.input_vectors(&a).unwrap()).unwrap();
    let options = Options { causal: true, ..Options::default() };
    let core = attention_core::explain::explain_row(&x, &x, &x, &options, &Default::default(), 1).unwrap();
    assert_eq!(steps(value), core);
    let cell = e.explain_cell(&a, 1, 3).unwrap();
    assert!(js_sys::Reflect::get(&cell, &"scaled".into()).unwrap().is_null(), "a masked cell's scaled score");
}

#[wasm_bindgen_test]
fn cross_attention_says_which_sentence_it_cannot_use() {
    let e = explorer();
    let cross =
        |a: &str, b: &str| message(e.analyze_cross(a, b, JsValue::UNDEFINED).map(|_| ()).unwrap_err());
    assert_eq!(cross("The cat sat", " "), "sentence B is empty: type a few words");
    assert_eq!(cross("", "The cat sat"), "sentence A is empty: type a few words");
    assert!(cross("The cat sat", "xqzzy blorf")
        .starts_with("sentence B: none of the words is in the vocabulary ('xqzzy', 'blorf')"));
    let long = "the cat ".repeat(65);
    assert_eq!(
        cross(&long, "The cat sat"),
        "sentence A has 130 known words; this view takes at most 128: shorten it"
    );
}

#[wasm_bindgen_test]
fn cross_attention_has_a_rows_and_b_columns() {
    let v = explorer()
        .analyze_cross(
            "Where is the Eiffel Tower?",
            "The Eiffel Tower is located in Paris, France.",
            JsValue::UNDEFINED,
        )
        .unwrap();
    assert_eq!(v.row_labels(), ["where", "is", "the", "eiffel", "tower", "?"]);
    assert_eq!(
        v.col_labels(),
        ["the", "eiffel", "tower", "is", "located", "in", "paris", ",", "france", "."]
    );
    assert_eq!((v.rows(), v.cols()), (6, 10));
    assert_eq!(v.weights().len(), 60);
    let row = steps(v.explain_row(4).unwrap());
    assert_eq!(row.weights.len(), 10);
    assert_eq!(row.weights[2] as f32, v.weights()[4 * 10 + 2]);
}

#[wasm_bindgen_test]
fn padding_keys_are_masked_and_labelled() {
    let v = explorer().analyze_padded("the king ruled", JsValue::UNDEFINED, 5).unwrap();
    assert_eq!(v.col_labels(), ["the", "king", "ruled", "<pad>", "<pad>"]);
    assert_eq!(v.padding(), [0, 0, 0, 1, 1]);
    let w = v.weights();
    assert_eq!(&w[3..5], &[0.0, 0.0]);
    assert_eq!(v.masked()[3], 1);
    assert!((w[0..3].iter().sum::<f32>() - 1.0).abs() < 1e-6);
    let error = explorer().analyze_padded("the king", JsValue::UNDEFINED, 500).map(|_| ()).unwrap_err();
    assert!(message(error).contains("at most 128"));
}

#[wasm_bindgen_test]
fn each_head_explains_its_own_weights() {
    assert_eq!(head_counts(50), [1, 2, 5, 10, 25, 50]);
    let e = explorer();
    let m = e.multi_head(KING, JsValue::UNDEFINED, 5, "projected", 42).unwrap();
    assert_eq!((m.heads(), m.head_dim(), m.size()), (5, 10, 7));
    for h in 0..5 {
        let head = m.head(h).unwrap();
        assert_eq!(head.weights(), m.weights(h));
        assert_eq!(head.dim(), 10);
        let s = steps(head.explain_row(2).unwrap());
        assert_eq!(s.weights[4] as f32, m.weights(h)[2 * 7 + 4]);
    }
    let average = m.head(-1).unwrap();
    assert!(!average.has_steps());
    assert!(message(average.explain_row(0).map(|_| ()).unwrap_err()).contains("choose one head"));
    let split = e.multi_head(KING, JsValue::UNDEFINED, 50, "split", 0).unwrap();
    assert_eq!(split.head_dim(), 1);
    assert!(message(e.multi_head(KING, JsValue::UNDEFINED, 3, "split", 0).map(|_| ()).unwrap_err())
        .contains("[1, 2, 5, 10, 25, 50]"));
    assert!(message(e.multi_head(KING, JsValue::UNDEFINED, 5, "random", 0).map(|_| ()).unwrap_err())
        .contains("split or projected"));
}

/// Each vector is multiplied by d × d projections: 4,096 dimensions held the page for 6 s.
#[wasm_bindgen_test]
fn multi_head_refuses_vectors_wider_than_it_projects_quickly() {
    let wide = |dim: usize| {
        let words = vec!["the".to_string(), "cat".to_string()];
        let vectors = (0..2 * dim).map(|k| (k % 7) as f32 / 7.0).collect();
        let store = attention_core::Embeddings::new(dim, words, vectors).unwrap();
        Explorer::new(&store.to_subset(attention_core::Precision::F32).unwrap()).unwrap()
    };
    assert_eq!(
        message(
            wide(1025).multi_head("the cat", JsValue::UNDEFINED, 1, "projected", 1).map(|_| ()).unwrap_err()
        ),
        "this view projects every vector: it takes at most 1024 dimensions, these vectors have 1025"
    );
    assert_eq!(
        wide(1024).multi_head("the cat", JsValue::UNDEFINED, 2, "projected", 1).unwrap().head_dim(),
        512
    );
}

#[wasm_bindgen_test]
fn the_nearest_words_of_king_are_royal() {
    let e = explorer();
    let king = e.vector_of("king").unwrap();
    let near: Vec<attention_wasm::Neighbour> =
        serde_wasm_bindgen::from_value(e.nearest(&king, 4).unwrap()).unwrap();
    let words: Vec<&str> = near.iter().map(|n| n.word.as_str()).collect();
    assert_eq!(words, ["king", "prince", "queen", "ii"]);
    assert!(e.vector_of("xqzzy").is_none());
}

/// The search's first pass (8-bit rows, SIMD in the page's build) leaves out
/// only rows that cannot be among the nearest: asking for every row scores
/// each one exactly, and its first `count` are what asking for `count` finds.
#[wasm_bindgen_test]
fn the_rounded_first_pass_finds_exactly_what_scoring_every_row_finds() {
    use attention_core::multihead::SeededRng;
    use attention_core::neighbors::NeighborIndex;
    use attention_core::Embeddings;
    let mut rng = SeededRng::new(11);
    let (rows, dim) = (2000, 50);
    let mut vectors: Vec<f32> = (0..rows * dim).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect();
    // Ties: two rows repeated.
    vectors.extend_from_within(7 * dim..8 * dim);
    vectors.extend_from_within(1500 * dim..1501 * dim);
    let words = (0..rows + 2).map(|i| format!("w{i}")).collect();
    let e = Embeddings::new(dim, words, vectors).unwrap();
    let index = NeighborIndex::new(&e);
    for q in 0..30 {
        let query: Vec<f32> = if q % 3 == 0 {
            e.row(7).to_vec()
        } else {
            (0..dim).map(|_| (rng.next_unit() * 2.0 - 1.0) as f32).collect()
        };
        let every = index.nearest(&e, &query, e.len(), &[]);
        assert_eq!(every.len(), e.len());
        for count in [1, 6, 14] {
            assert_eq!(index.nearest(&e, &query, count, &[]), every[..count], "query {q}, count {count}");
        }
    }
}

#[wasm_bindgen_test]
fn cross_arrows_link_queries_to_their_own_key_column() {
    let g = attention_wasm::ArrowGeometry::cross(2, 3, 300.0, 40.0, 12.0, 500.0);
    let links = g.row_links(1, &[0.6, 0.3, 0.1], 0.0, 100);
    assert_eq!(links.len(), 3 * 9);
    assert_eq!((links[18], links[19], links[20]), (1.0, 0.0, 0.6), "strongest last");
    let y = g.top() + 2.5 * g.row_height();
    assert_eq!(g.hit(g.key_x() + 2.0, y), 2, "the third key");
    assert_eq!(g.hit(g.query_x() - 2.0, y), -1, "there is no third query");
}
