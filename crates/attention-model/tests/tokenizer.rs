//! The tokenizer against ids, pieces and spans exported once from the
//! reference `tokenizers` package (testdata/wordpiece.json, made by
//! scripts/reference/make_tokenizer_fixture.py) with MiniLM's vocabulary
//! (testdata/vocab.txt).

// Helpers outside #[test] functions unwrap fixture data too.
#![allow(clippy::unwrap_used)]

use attention_model::WordPiece;
use serde_json::Value;

fn tokenizer() -> WordPiece {
    let vocab = include_str!("../testdata/vocab.txt");
    WordPiece::new(vocab.lines().map(str::to_owned).collect()).unwrap()
}

#[test]
fn ids_pieces_and_spans_match_the_reference_tokenizer() {
    let fixture: Value = serde_json::from_str(include_str!("../testdata/wordpiece.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 30, "the fixture should hold at least 30 sentences");
    let tokenizer = tokenizer();
    let mut failures = Vec::new();
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let expected_ids: Vec<u32> =
            case["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        let expected_pieces: Vec<&str> =
            case["pieces"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let expected_spans: Vec<(usize, usize)> = case["spans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s[0].as_u64().unwrap() as usize, s[1].as_u64().unwrap() as usize))
            .collect();
        let pieces = tokenizer.tokenize(text);
        let ids: Vec<u32> = pieces.iter().map(|p| p.id).collect();
        let texts: Vec<&str> = pieces.iter().map(|p| p.text.as_str()).collect();
        if ids != expected_ids || texts != expected_pieces {
            failures.push(format!(
                "{text:?}\n  got      {texts:?} {ids:?}\n  expected {expected_pieces:?} {expected_ids:?}"
            ));
            continue;
        }
        // The reference gives [CLS] and [SEP] the span (0, 0); ours puts [SEP] at the end of the text.
        let last = pieces.len() - 1;
        assert_eq!(pieces[0].span, 0..0);
        assert_eq!(pieces[last].span, text.len()..text.len());
        let spans: Vec<(usize, usize)> = pieces[1..last].iter().map(|p| (p.span.start, p.span.end)).collect();
        if spans != expected_spans[1..last] {
            failures
                .push(format!("{text:?}\n  spans    {spans:?}\n  expected {:?}", &expected_spans[1..last]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} sentences differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_piece_span_is_a_valid_slice_of_the_text() {
    let tokenizer = tokenizer();
    for text in ["İstanbul ǅemal", "ﬁne ½", "a\u{0301}\u{0301}b", "日本語", "\u{0}x\u{FFFD}y"] {
        for piece in tokenizer.tokenize(text) {
            assert!(text.get(piece.span.clone()).is_some(), "{text:?}: {piece:?}");
        }
    }
}
