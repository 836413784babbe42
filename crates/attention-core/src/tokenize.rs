//! A tokenizer that produces the tokens GloVe 6B was trained on.
//!
//! GloVe 6B's corpus was tokenized Stanford/Penn-Treebank style and
//! lowercased, so its vocabulary holds `n't`, `'s`, `ca` (from "can't"),
//! punctuation as separate tokens, and whole hyphenated words, abbreviations
//! and numbers ("well-known", "u.s.", "1,000", "3.14"). This tokenizer asks the
//! vocabulary before it splits:
//!
//! 1. The text is cut at whitespace into chunks.
//! 2. A chunk the vocabulary holds (lowercased, with ’ read as ') is one token.
//! 3. Otherwise leading and trailing punctuation comes off, a piece at a time
//!    (the longest run the vocabulary holds, such as "..." or "--", else one
//!    character), and the rest is tried again from step 2.
//! 4. A contraction suffix comes off next: "n't", "'s", "'re", "'ve", "'ll",
//!    "'d", "'m" ("isn't" → is n't, "can't" → ca n't, "it's" → it 's).
//! 5. A word with inner punctuation that the vocabulary lacks is split there
//!    ("ultra-cool" → ultra - cool), except a number such as "12,345,678",
//!    which stays whole.
//! 6. What is left is one token, known or not. Unknown tokens are reported,
//!    never dropped or replaced.
//!
//! Every token keeps the byte span of the original text it came from, so
//! `&text[token.span.clone()]` is always valid and shows what the user typed.

use std::collections::{BTreeSet, HashSet};
use std::ops::Range;

/// Anything that can say whether it holds a word (already lowercased).
pub trait Vocabulary {
    fn contains_word(&self, word: &str) -> bool;

    /// True when the vocabulary cannot say yet (a sharded store whose shard
    /// for `word` has not arrived). The tokenizer then treats the word as
    /// unknown and marks the token [`Token::pending`].
    fn is_pending(&self, _word: &str) -> bool {
        false
    }
}

impl Vocabulary for HashSet<String> {
    fn contains_word(&self, word: &str) -> bool {
        self.contains(word)
    }
}

impl Vocabulary for BTreeSet<String> {
    fn contains_word(&self, word: &str) -> bool {
        self.contains(word)
    }
}

impl Vocabulary for [&str] {
    fn contains_word(&self, word: &str) -> bool {
        self.contains(&word)
    }
}

/// One token of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token as the vocabulary spells it: lowercased, ’ written as '.
    pub text: String,
    /// Byte range of the original text this token came from.
    pub span: Range<usize>,
    /// Whether the vocabulary holds `text`.
    pub known: bool,
    /// Not known *yet*: the vocabulary is still loading the part that would
    /// say (see [`Vocabulary::is_pending`]). Always false when `known`.
    pub pending: bool,
}

/// Contraction suffixes the GloVe 6B vocabulary holds as tokens, longest first.
const CONTRACTIONS: [&str; 7] = ["n't", "'re", "'ve", "'ll", "'s", "'d", "'m"];

/// Splits `text` into GloVe-compatible tokens. Never panics, for any input.
pub fn tokenize<V: Vocabulary + ?Sized>(text: &str, vocabulary: &V) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                split_chunk(text, s..i, vocabulary, &mut tokens);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        split_chunk(text, s..text.len(), vocabulary, &mut tokens);
    }
    tokens
}

/// The vocabulary spelling of a piece of text: lowercase, curly apostrophe as '.
pub fn normalize(piece: &str) -> String {
    piece.chars().flat_map(char::to_lowercase).map(|c| if c == '’' { '\'' } else { c }).collect()
}

fn push(text: &str, span: Range<usize>, vocabulary: &(impl Vocabulary + ?Sized), out: &mut Vec<Token>) {
    let word = normalize(&text[span.clone()]);
    let known = vocabulary.contains_word(&word);
    let pending = !known && vocabulary.is_pending(&word);
    out.push(Token { text: word, span, known, pending });
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn split_chunk<V: Vocabulary + ?Sized>(text: &str, span: Range<usize>, vocabulary: &V, out: &mut Vec<Token>) {
    if span.is_empty() {
        return;
    }
    let piece = &text[span.clone()];
    if vocabulary.contains_word(&normalize(piece)) {
        push(text, span, vocabulary, out);
        return;
    }

    // Leading punctuation: the longest vocabulary run, else one character.
    let lead: usize = piece.chars().take_while(|c| !is_word_char(*c)).map(char::len_utf8).sum();
    if lead > 0 && lead < piece.len() {
        let cut = span.start + longest_known_prefix(&piece[..lead], vocabulary);
        push(text, span.start..cut, vocabulary, out);
        split_chunk(text, cut..span.end, vocabulary, out);
        return;
    }

    // Trailing punctuation, except an apostrophe that ends a contraction-free
    // word ("cats'" still splits, as in the treebank).
    let trail: usize = piece.chars().rev().take_while(|c| !is_word_char(*c)).map(char::len_utf8).sum();
    if trail > 0 && trail < piece.len() {
        let run = &piece[piece.len() - trail..];
        let cut = span.end - longest_known_suffix(run, vocabulary);
        split_chunk(text, span.start..cut, vocabulary, out);
        push(text, cut..span.end, vocabulary, out);
        return;
    }

    if lead == piece.len() {
        // All punctuation: pieces the vocabulary holds, else one character each.
        let mut at = span.start;
        while at < span.end {
            let cut = at + longest_known_prefix(&text[at..span.end], vocabulary);
            push(text, at..cut, vocabulary, out);
            at = cut;
        }
        return;
    }

    // Contractions: "isn't" → is n't, "it's" → it 's.
    let lower = normalize(piece);
    for suffix in CONTRACTIONS {
        if lower.len() > suffix.len() && lower.ends_with(suffix) {
            // The suffix is ASCII except for a curly apostrophe (3 bytes in UTF-8).
            let suffix_bytes = suffix_len_in_original(piece, suffix.chars().count());
            let cut = span.end - suffix_bytes;
            if cut > span.start {
                split_chunk(text, span.start..cut, vocabulary, out);
                push(text, cut..span.end, vocabulary, out);
                return;
            }
        }
    }

    // Inner punctuation: split unless the chunk is a number.
    if !looks_numeric(piece) && piece.chars().any(|c| !is_word_char(c) && c != '\'' && c != '’') {
        let mut part_start = span.start;
        for (i, c) in piece.char_indices() {
            if !is_word_char(c) && c != '\'' && c != '’' {
                let at = span.start + i;
                split_chunk(text, part_start..at, vocabulary, out);
                push(text, at..at + c.len_utf8(), vocabulary, out);
                part_start = at + c.len_utf8();
            }
        }
        split_chunk(text, part_start..span.end, vocabulary, out);
        return;
    }

    push(text, span, vocabulary, out);
}

/// Byte length of the last `chars` characters of `piece`.
fn suffix_len_in_original(piece: &str, chars: usize) -> usize {
    piece.chars().rev().take(chars).map(char::len_utf8).sum()
}

/// Byte length of the longest prefix of `run` (at least one character) that the vocabulary holds.
fn longest_known_prefix<V: Vocabulary + ?Sized>(run: &str, vocabulary: &V) -> usize {
    let first = run.chars().next().map_or(0, char::len_utf8);
    let mut best = first;
    let mut end = 0;
    for c in run.chars().take(8) {
        end += c.len_utf8();
        if end > first && vocabulary.contains_word(&normalize(&run[..end])) {
            best = end;
        }
    }
    best
}

/// Byte length of the longest suffix of `run` (at least one character) that the vocabulary holds.
fn longest_known_suffix<V: Vocabulary + ?Sized>(run: &str, vocabulary: &V) -> usize {
    let last = run.chars().next_back().map_or(0, char::len_utf8);
    let mut best = last;
    let mut len = 0;
    for c in run.chars().rev().take(8) {
        len += c.len_utf8();
        if len > last && vocabulary.contains_word(&normalize(&run[run.len() - len..])) {
            best = len;
        }
    }
    best
}

/// Digits with `,` or `.` between them, such as "12,345,678" or "3.14159".
fn looks_numeric(piece: &str) -> bool {
    let mut prev_digit = false;
    let mut any_digit = false;
    for c in piece.chars() {
        match c {
            '0'..='9' => {
                prev_digit = true;
                any_digit = true;
            }
            ',' | '.' if prev_digit => prev_digit = false,
            _ => return false,
        }
    }
    any_digit && prev_digit
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOCAB: &[&str] = &[
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
        "smith",
        "café",
    ];

    fn toks(text: &str) -> Vec<String> {
        tokenize(text, VOCAB).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn contractions_split_as_the_vocabulary_has_them() {
        assert_eq!(toks("isn't"), ["is", "n't"]);
        assert_eq!(toks("can't"), ["ca", "n't"]);
        assert_eq!(toks("won't"), ["wo", "n't"]);
        assert_eq!(toks("It's"), ["it", "'s"]);
        assert_eq!(toks("It’s"), ["it", "'s"]);
        assert_eq!(toks("I'm"), ["i", "'m"]);
        assert_eq!(toks("cats'"), ["cats", "'"]);
    }

    #[test]
    fn known_compounds_stay_whole() {
        assert_eq!(toks("The U.S. is well-known"), ["the", "u.s.", "is", "well-known"]);
        assert_eq!(toks("1,000 3.14"), ["1,000", "3.14"]);
        assert_eq!(toks("Mr. Smith"), ["mr.", "smith"]);
    }

    #[test]
    fn punctuation_comes_off() {
        assert_eq!(toks("(the cat sat...)"), ["(", "the", "cat", "sat", "...", ")"]);
        assert_eq!(toks("\"cat,\" mat."), ["\"", "cat", ",", "\"", "mat", "."]);
        assert_eq!(toks("$100!!!"), ["$", "100", "!!!"]);
        assert_eq!(toks("ultra-cool"), ["ultra", "-", "cool"]);
        assert_eq!(toks("the U.S.)"), ["the", "u.s.", ")"]);
        assert_eq!(toks("?!"), ["?", "!"]);
    }

    #[test]
    fn unknown_words_are_kept_and_flagged() {
        let t = tokenize("zzqx cat 12,345,678", VOCAB);
        let words: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.known)).collect();
        assert_eq!(words, [("zzqx", false), ("cat", true), ("12,345,678", false)]);
    }

    #[test]
    fn spans_point_into_the_original_text() {
        let text = "  The CAFÉ isn’t (open)!  ";
        let t = tokenize(text, VOCAB);
        let pieces: Vec<_> = t.iter().map(|t| &text[t.span.clone()]).collect();
        assert_eq!(pieces, ["The", "CAFÉ", "is", "n’t", "(", "open", ")", "!"]);
        assert_eq!(t[1].text, "café");
        assert!(t[1].known);
    }

    #[test]
    fn empty_and_blank_text_give_no_tokens() {
        assert!(tokenize("", VOCAB).is_empty());
        assert!(tokenize(" \t\n ", VOCAB).is_empty());
    }
}
