//! The BERT-uncased WordPiece tokenizer on arbitrary text.
//!
//! Input: byte 0 holds flags, the rest is the text (invalid UTF-8 replaced).
//! The vocabulary is the tiny model's; with flag 1 it also holds every
//! piece of the text after a `|`, as written (a vocabulary `WordPiece::new`
//! refuses, say with an entry twice, falls back to the tiny one).
//!
//! Checked: `[CLS]` first with the span 0..0 and `[SEP]` last with the span
//! at the text's end; every other piece has a non-empty span that slices the
//! text on character boundaries, spans and word numbers never go back, and
//! every id is in the vocabulary and names the piece's text.
#![no_main]

use attention_fuzz::{bounded, TINY_VOCAB};
use attention_model::WordPiece;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Some((&flags, rest)) = bytes.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let tiny = || WordPiece::new(TINY_VOCAB.iter().map(|s| s.to_string()).collect());
    let tokenizer = if flags & 1 != 0 {
        let mut vocab: Vec<String> = TINY_VOCAB.iter().map(|s| s.to_string()).collect();
        vocab.extend(text.split('|').skip(1).map(str::to_owned));
        WordPiece::new(vocab).or_else(|_| tiny())
    } else {
        tiny()
    };
    let tokenizer = tokenizer.unwrap_or_else(|e| panic!("the tiny vocabulary: {e}"));

    let pieces = bounded("WordPiece::tokenize", text.len(), 1024, || tokenizer.tokenize(&text));
    let vocab = tokenizer.vocab();
    assert!(pieces.len() >= 2);
    let (first, last) = (&pieces[0], &pieces[pieces.len() - 1]);
    assert_eq!((first.text.as_str(), first.span.clone(), first.word), ("[CLS]", 0..0, 0));
    assert_eq!((last.text.as_str(), last.span.clone()), ("[SEP]", text.len()..text.len()));
    assert!(first.is_special() && last.is_special());
    let (mut start, mut word) = (0, 0);
    for piece in &pieces {
        let id = piece.id as usize;
        assert!(id < vocab.len(), "id {id} of {piece:?} is outside the vocabulary");
        assert_eq!(vocab[id], piece.text);
        assert!(text.get(piece.span.clone()).is_some(), "{piece:?} does not slice the text");
        assert!(piece.span.start >= start && piece.word >= word, "{piece:?} goes back");
        (start, word) = (piece.span.start, piece.word);
    }
    for piece in &pieces[1..pieces.len() - 1] {
        assert!(!piece.span.is_empty(), "{piece:?} has an empty span");
        assert!(piece.word >= 1 && piece.word < last.word, "{piece:?}");
    }
});
