//! The GloVe tokenizer (`attention_core::tokenize`) on arbitrary text.
//!
//! Input: byte 0 holds flags, the rest is the text (invalid UTF-8 replaced).
//! The vocabulary is a fixed one of GloVe-like tokens; with flag 1 it also
//! holds every piece of the text after a `|` (normalized), with flag 2 the
//! empty word, and with flag 4 it calls every unknown word of odd length
//! pending (as a sharded store whose shard has not arrived does).
//!
//! Checked for every text: spans slice the text on character boundaries, in
//! order, without overlap; together they cover every character exactly
//! once but separators (white space, zero-width spaces) and the invisible
//! characters that begin a chunk; no token is empty; a token's
//! text is its span normalized; `known` is what the vocabulary says, and a
//! known token is never pending.
#![no_main]

use std::collections::HashSet;

use attention_core::tokenize::{is_invisible, is_separator, normalize, tokenize, Vocabulary};
use attention_fuzz::bounded;
use libfuzzer_sys::fuzz_target;

const WORDS: [&str; 40] = [
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    ".",
    ",",
    "it",
    "'s",
    "is",
    "n't",
    "ca",
    "wo",
    "do",
    "u.s.",
    "well-known",
    "1,000",
    "3.14",
    "...",
    "--",
    "\"",
    "(",
    ")",
    "'",
    "cats",
    "i",
    "'m",
    "ultra",
    "-",
    "cool",
    "!",
    "?",
    "!!!",
    "$",
    "100",
    "mr.",
    "café",
    "'ll",
    "a.m.",
    "e-mail",
];

struct Words {
    known: HashSet<String>,
    pending_odd: bool,
}

impl Vocabulary for Words {
    fn contains_word(&self, word: &str) -> bool {
        self.known.contains(word)
    }

    fn is_pending(&self, word: &str) -> bool {
        self.pending_odd && word.chars().count() % 2 == 1
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&flags, rest)) = bytes.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let mut known: HashSet<String> = WORDS.iter().map(|w| w.to_string()).collect();
    if flags & 1 != 0 {
        known.extend(text.split('|').skip(1).map(normalize));
    }
    if flags & 2 != 0 {
        known.insert(String::new());
    }
    let words = Words { known, pending_odd: flags & 4 != 0 };

    let tokens = bounded("tokenize", text.len(), 512, || tokenize(&text, &words));
    let mut end = 0;
    let mut covered = String::with_capacity(text.len());
    for token in &tokens {
        let span = token.span.clone();
        assert!(span.start >= end, "token {token:?} overlaps the one before");
        assert!(span.start < span.end, "token {token:?} is empty");
        let Some(piece) = text.get(span.clone()) else {
            panic!("span {span:?} does not slice the text on character boundaries");
        };
        assert!(!piece.chars().any(is_separator), "token {token:?} holds a separator");
        assert!(!token.text.is_empty(), "token {token:?} has no text");
        assert_eq!(token.text, normalize(piece));
        assert_eq!(token.known, words.contains_word(&token.text));
        assert!(!(token.known && token.pending), "{token:?} is known and pending");
        covered.push_str(piece);
        end = span.end;
    }
    let mut in_chunk = false;
    let words_only: String = text
        .chars()
        .filter(|&c| {
            in_chunk = !is_separator(c) && (in_chunk || !is_invisible(c));
            in_chunk
        })
        .collect();
    assert_eq!(covered, words_only, "the tokens cover every character of the chunks once");
});
