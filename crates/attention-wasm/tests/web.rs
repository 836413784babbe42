//! Tests of the JavaScript boundary, run in Node.js by wasm-bindgen-test
//! (`scripts/test-wasm`). They check what crosses it: the numbers of the
//! shipped word vectors, the shapes of the typed arrays, the token metadata
//! and the JavaScript errors carrying the core's messages.
#![cfg(target_arch = "wasm32")]
// A failed unwrap here is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attention_wasm::{
    ArrowGeometry, Explorer, ExplorerBuilder, HeatmapGeometry, SentenceAnalysis, Settings, TokenInfo,
    VectorFileReader,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// The default data file of the page.
const GLOVE: &[u8] = include_bytes!("../../../data/glove-6b-50d-fallback.aewv");
const KING: &str = "The king and queen ruled the kingdom";

fn explorer() -> Explorer {
    Explorer::new(GLOVE).unwrap_or_else(|_| panic!("the shipped subset must load"))
}

fn settings(value: Settings) -> JsValue {
    serde_wasm_bindgen::to_value(&value).unwrap()
}

fn analyze(sentence: &str, options: JsValue) -> SentenceAnalysis {
    explorer().analyze(sentence, options).unwrap_or_else(|_| panic!("{sentence} must analyze"))
}

/// The message of the JavaScript `Error` a call threw.
fn message(error: wasm_bindgen::JsError) -> String {
    let value: JsValue = error.into();
    let error: js_sys::Error = value.dyn_into().unwrap();
    String::from(error.message())
}

#[wasm_bindgen_test]
fn king_row_matches_the_tutorial() {
    let a = analyze(KING, JsValue::UNDEFINED);
    assert_eq!(a.size(), 7);
    let expected = [0.0647, 0.4431, 0.0489, 0.1645, 0.0629, 0.0647, 0.1512];
    let weights = a.weights();
    assert_eq!(weights.len(), 49);
    for (j, want) in expected.iter().enumerate() {
        let got = weights[7 + j];
        // Exact vectors: printed with 4 decimals, the tutorial's figures.
        assert_eq!(format!("{got:.4}"), format!("{want:.4}"), "king → key {j}");
    }
    assert_eq!(a.labels(), ["the", "king", "and", "queen", "ruled", "the", "kingdom"]);
    assert!((a.factor() - 1.0 / 50f64.sqrt()).abs() < 1e-12);
    // What the page reads (`weights` in JS): the same 49 numbers, bit for bit.
    assert_eq!(a.weights_array().to_vec(), weights);
}

#[wasm_bindgen_test]
fn every_row_is_a_distribution_and_arrays_have_their_shapes() {
    let a = analyze(KING, JsValue::UNDEFINED);
    let n = a.size();
    let weights = a.weights();
    for i in 0..n {
        let sum: f32 = weights[i * n..(i + 1) * n].iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "row {i} sums to {sum}");
    }
    assert_eq!(a.masked(), vec![0; n * n]);
    assert_eq!(a.fully_masked(), vec![0; n]);
    assert_eq!(a.scale_max(), weights.iter().copied().fold(0.0, f32::max));
}

#[wasm_bindgen_test]
fn options_cross_the_boundary_in_camel_case() {
    let no_self = settings(Settings { self_attention: false, ..Settings::default() });
    let a = analyze(KING, no_self);
    let n = a.size();
    for i in 0..n {
        assert_eq!(a.weights()[i * n + i], 0.0, "diagonal {i}");
    }
    let masked = a.masked();
    assert_eq!(masked.iter().map(|m| usize::from(*m)).sum::<usize>(), n);
    assert_eq!((masked[0], masked[1], masked[n + 1]), (1, 0, 1));

    // A plain JavaScript object, as the page sends it; missing keys are defaults.
    let object = js_sys::Object::new();
    js_sys::Reflect::set(&object, &"causal".into(), &JsValue::TRUE).unwrap();
    let causal = analyze(KING, object.into());
    assert_eq!(causal.weights()[0], 1.0, "the first token sees only itself");
    assert_eq!(causal.weights()[1], 0.0);

    let unscaled = analyze(KING, settings(Settings { scale: false, ..Settings::default() }));
    assert_eq!(unscaled.factor(), 1.0);
    assert!(unscaled.weights()[8] > 0.9, "unscaled, 'king' looks almost only at itself");
}

#[wasm_bindgen_test]
fn tokens_carry_utf16_spans_known_flags_and_rows() {
    let sentence = "Café 😀 king";
    let a = analyze(sentence, JsValue::UNDEFINED);
    let tokens: Vec<TokenInfo> = a.tokens().infos().to_vec();
    let js = js_sys::JsString::from(sentence);
    let shown: Vec<String> = tokens.iter().map(|t| String::from(js.slice(t.start, t.end))).collect();
    assert_eq!(shown, ["Café", "😀", "king"]);
    assert!(!tokens[1].known);
    assert_eq!(tokens.iter().map(|t| t.row).collect::<Vec<_>>(), [Some(0), None, Some(1)]);
    assert_eq!(a.size(), 2);

    let only: Vec<TokenInfo> = explorer().tokenize("xqzzy king").infos().to_vec();
    assert_eq!(only.iter().map(|t| t.known).collect::<Vec<_>>(), [false, true]);
}

#[wasm_bindgen_test]
fn core_errors_become_javascript_errors_with_the_core_message() {
    let e = explorer();
    let empty = e.analyze("   ", JsValue::UNDEFINED).map(|_| ()).unwrap_err();
    assert_eq!(message(empty), "the sentence is empty: type a few words");
    let unknown = e.analyze("xqzzy blorft", JsValue::UNDEFINED).map(|_| ()).unwrap_err();
    assert!(message(unknown).contains("'xqzzy'"));
    let hot = settings(Settings { temperature: 0.0, ..Settings::default() });
    let bad = e.analyze(KING, hot).map(|_| ()).unwrap_err();
    assert!(message(bad).starts_with("invalid option: temperature"));
    let wrong_type = e.analyze(KING, JsValue::from_str("fast")).map(|_| ()).unwrap_err();
    assert!(message(wrong_type).starts_with("invalid settings"));
    let file = Explorer::new(b"AEWV\x01\x00").map(|_| ()).unwrap_err();
    assert!(message(file).contains("invalid word-vector file"), "truncated header");
}

#[wasm_bindgen_test]
fn a_text_beyond_the_limit_is_refused_not_computed() {
    let long = "the ".repeat(1025);
    let error = explorer().analyze(&long, JsValue::UNDEFINED).map(|_| ()).unwrap_err();
    assert!(message(error).contains("at most 1,024"));
}

#[wasm_bindgen_test]
fn nearest_words_describe_an_output_vector() {
    let e = explorer();
    let a = e.analyze(KING, JsValue::UNDEFINED).unwrap();
    let steps: attention_core::explain::RowSteps =
        serde_wasm_bindgen::from_value(e.explain_row(&a, 1).unwrap()).unwrap();
    let context: Vec<f32> = steps.context.iter().map(|c| *c as f32).collect();
    let near: Vec<attention_wasm::Neighbour> =
        serde_wasm_bindgen::from_value(e.nearest(&context, 3).unwrap()).unwrap();
    assert_eq!(near.len(), 3);
    assert_eq!(near[0].word, "king", "the output of 'king' stays closest to 'king'");
    assert!(near[0].similarity >= near[1].similarity);
    // The index built a few rows a call finds the same words.
    let stepped = explorer();
    let calls =
        std::iter::repeat_with(|| stepped.prepare_neighbors_some(1_000)).take_while(|whole| !whole).count();
    assert!(calls >= 3, "{} words take several calls: {calls}", stepped.vocabulary_size());
    assert!(stepped.prepare_neighbors_some(1_000), "whole");
    let again: Vec<attention_wasm::Neighbour> =
        serde_wasm_bindgen::from_value(stepped.nearest(&context, 3).unwrap()).unwrap();
    assert_eq!(again, near);
}

#[wasm_bindgen_test]
fn geometry_hit_tests_cells_and_labels() {
    let g = HeatmapGeometry::new(7, 7, 600.0, 60.0, 12.0);
    let m = g.matrix();
    let cell = g.cell();
    let hit = g.hit(m[0] + 2.5 * cell, m[1] + 1.5 * cell);
    assert_eq!(hit, [1, 1, 2], "row 1, column 2");
    assert_eq!(g.hit(3.0, m[1] + 0.5 * cell), [2, 0, -1]);
    assert_eq!(g.hit(m[0] + 6.5 * cell, 3.0), [3, -1, 6]);
    assert_eq!(g.hit(-5.0, -5.0), [0, -1, -1]);

    let arrows = ArrowGeometry::new(3, 300.0, 40.0, 12.0, 500.0);
    let links = arrows.row_links(0, &[0.5, 0.3, 0.2], 0.25, 100);
    assert_eq!(links.len(), 2 * 9, "0.2 is below the threshold");
    assert_eq!((links[0], links[1], links[2]), (0.0, 1.0, 0.3), "weakest first");
    assert_eq!(arrows.hit(1.0, arrows.top() + 2.5 * arrows.row_height()), 2);

    // Every row's links from the analysis itself: those of its weights.
    let a = analyze(KING, JsValue::UNDEFINED);
    let arrows = ArrowGeometry::new(a.size(), 300.0, 40.0, 12.0, 500.0);
    let own = arrows.analysis_links(&a, 0.1, 20);
    assert_eq!(own.len(), 20 * 9, "the 20 strongest of the links above 0.1");
    assert_eq!(own, arrows.links(&a.weights(), 0.1, 20));
}

#[wasm_bindgen_test]
fn an_analysis_in_slices_gives_the_tokens_and_weights_of_one_call() {
    let text = "the king and queen ruled the kingdom while people of the city said that it was a good time "
        .repeat(4);
    let causal = settings(Settings { causal: true, ..Settings::default() });
    let whole = explorer().analyze(&text, causal.clone()).unwrap();
    let explorer = explorer();
    let mut job = explorer.start_analysis(&text, causal, None).unwrap();
    assert_eq!((job.size(), job.rows_done()), (whole.size(), 0));
    let tokens: Vec<TokenInfo> = job.tokens().infos().to_vec();
    let want: Vec<TokenInfo> = whole.tokens().infos().to_vec();
    assert_eq!(tokens, want, "the tokens are known before any row is computed");
    let mut slices = 1;
    while !job.advance(10) {
        slices += 1;
        assert!(job.rows_done() < job.size());
    }
    assert_eq!(slices, whole.size().div_ceil(32), "whole blocks of 32 rows");
    let done = job.finish();
    assert_eq!(
        (done.weights(), done.labels(), done.scale_max()),
        (whole.weights(), whole.labels(), whole.scale_max())
    );
    // The errors are the same as analyze's, at the start.
    assert!(
        message(explorer.start_analysis("zzqx qqxz", JsValue::UNDEFINED, None).unwrap_err()).contains("zzqx")
    );
}

#[wasm_bindgen_test]
fn an_analysis_with_its_twin_gives_the_flipped_weights_too() {
    let text = "the king and queen ruled the kingdom while people of the city said that it was a good time "
        .repeat(3);
    let explorer = explorer();
    for causal in [false, true] {
        let options = Settings { causal, temperature: 0.8, ..Settings::default() };
        let flipped = Settings { scale: false, ..options };
        let mut job = explorer.start_analysis(&text, settings(options), Some(true)).unwrap();
        while !job.advance(10) {}
        let mut done = job.finish();
        let plain = explorer.analyze(&text, settings(options)).unwrap();
        assert_eq!((done.weights(), done.factor()), (plain.weights(), plain.factor()));
        let twin = done.take_twin().expect("asked for");
        let other = explorer.analyze(&text, settings(flipped)).unwrap();
        assert_eq!(
            (twin.weights(), twin.fully_masked(), twin.factor(), twin.scale_max(), twin.labels()),
            (other.weights(), other.fully_masked(), other.factor(), other.scale_max(), other.labels())
        );
        // A row's steps, asked of the twin, are the flipped analysis's.
        let (a, b) = (explorer.explain_row(&twin, 5).unwrap(), explorer.explain_row(&other, 5).unwrap());
        let json = |v: &JsValue| String::from(js_sys::JSON::stringify(v).unwrap());
        assert_eq!(json(&a), json(&b));
        assert!(json(&a).len() > 100);
        assert!(done.take_twin().is_none(), "taken once");
    }
    assert!(explorer.start_analysis(KING, JsValue::UNDEFINED, None).unwrap().finish().take_twin().is_none());
}

#[wasm_bindgen_test]
fn tokens_cross_as_texts_and_four_numbers_each() {
    let list = explorer().tokenize("Xqzzy, king");
    assert_eq!(list.texts(), ["xqzzy", ",", "king"]);
    // start, end (UTF-16), flags (1 known, 2 pending), row + 1 (0: none); tokenize gives no rows.
    assert_eq!(list.numbers(), [0, 5, 0, 0, 5, 6, 1, 0, 7, 11, 1, 0]);
    let a = analyze("Xqzzy, king", JsValue::UNDEFINED);
    assert_eq!(a.tokens().numbers(), [0, 5, 0, 0, 5, 6, 1, 1, 7, 11, 1, 2]);
}

#[wasm_bindgen_test]
fn a_vector_file_reader_counts_a_last_line_without_newline() {
    // 'King' merges into 'king'; no newline ends 'queen', which finish reads.
    let mut reader = VectorFileReader::new(1_000);
    for chunk in [b"3 2\nking 1 0\nKi".as_slice(), b"ng 0 1\nqueen 1 1"] {
        reader.feed(chunk).unwrap();
    }
    assert_eq!((reader.words(), reader.merged()), (1, 1));
    reader.finish().unwrap();
    assert_eq!((reader.words(), reader.dim(), reader.merged()), (2, 2, 1));
    assert_eq!((reader.skipped(), reader.promised(), reader.held()), (0, 0, 0));
    // 'King' is merged into 'king', which keeps its own numbers.
    assert_eq!(reader.vocabulary(), "king\nqueen");
    assert_eq!(reader.take_values().unwrap(), [1.0, 0.0, 1.0, 1.0]);
    assert!(reader.take_values().is_err(), "handed over once");
    assert_eq!(reader.words(), 2, "the counts stay");
}

#[wasm_bindgen_test]
fn an_explorer_built_a_block_at_a_time_analyzes_as_one_read_whole() {
    let whole = explorer();
    let store = attention_core::Embeddings::from_bytes(GLOVE).unwrap();
    let mut builder = ExplorerBuilder::new(50, 3).unwrap();
    for words in ["the\nking", "and\nqueen\nruled", "kingdom"] {
        let values: Vec<f32> = words.split('\n').flat_map(|w| store.vector(w).unwrap().to_vec()).collect();
        builder.add(words, &values).unwrap();
    }
    assert_eq!(builder.words(), 6);
    let built = builder.finish().unwrap();
    assert_eq!(built.vocabulary_size(), 6);
    let weights = |e: &Explorer| e.analyze(KING, JsValue::UNDEFINED).unwrap().weights().to_vec();
    assert_eq!(weights(&built), weights(&whole));
    assert!(builder.finish().is_err(), "finished once");
    // A row the store refuses names its word; a block whose numbers do not match its words adds nothing.
    let mut builder = ExplorerBuilder::new(2, 2).unwrap();
    builder.add("cat", &[1.0, 0.0]).unwrap();
    assert_eq!(
        message(builder.add("cat", &[0.0, 1.0]).unwrap_err()),
        "invalid word-vector file: the word 'cat' appears twice"
    );
    assert_eq!(
        message(builder.add("a\nb", &[1.0, 2.0, 3.0]).unwrap_err()),
        "3 numbers for 2 words of dimension 2"
    );
    assert_eq!(builder.words(), 1);
    assert!(ExplorerBuilder::new(2, 0).unwrap().finish().is_err(), "no word");
}
