//! The WordPiece tokenizer of BERT uncased models, with every piece's byte
//! span in the original text.
//!
//! It reproduces the reference `tokenizers` pipeline that all-MiniLM-L6-v2's
//! `tokenizer.json` describes, step by step:
//!
//! 1. clean: drop U+0000, U+FFFD and control/format/private-use characters
//!    (except tab, newline, carriage return); every whitespace becomes a space;
//! 2. CJK ideographs get a space on each side, so each is a word of its own;
//! 3. strip accents: canonical decomposition (NFD), then drop nonspacing marks (Mn);
//! 4. lowercase (Unicode full lowercase, so 'İ' becomes "i̇");
//! 5. split on whitespace, and isolate every punctuation character (ASCII
//!    punctuation, and the Unicode P* categories);
//! 6. each word: more than 100 characters gives one `[UNK]`; otherwise greedy
//!    longest-match-first pieces from the vocabulary, continuation pieces with
//!    the `##` prefix; a word with any unmatched rest is one `[UNK]`;
//! 7. `[CLS]` first and `[SEP]` last.
//!
//! Every normalized character remembers the byte range of the original
//! character it came from, so a piece's span is the range from its first
//! character's origin to its last one's, exactly as `tokenizers` reports
//! offsets. `[CLS]` and `[SEP]` have empty spans (at 0 and at the text's end).

use std::collections::HashMap;
use std::ops::Range;

use unicode_categories::UnicodeCategories;
use unicode_normalization::char::decompose_canonical;

use crate::error::{invalid, Result};

/// Words longer than this many characters (after normalization) become `[UNK]`.
pub const MAX_WORD_CHARS: usize = 100;
/// The prefix of a piece that continues a word.
pub const CONTINUATION: &str = "##";

/// One piece of a tokenized sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Row of the piece in the vocabulary (and the embedding table).
    pub id: u32,
    /// The vocabulary entry: `"cat"`, `"##s"`, `"[UNK]"`, `"[CLS]"`.
    pub text: String,
    /// Byte range in the original text; empty for `[CLS]` and `[SEP]`.
    pub span: Range<usize>,
    /// Index of the word the piece belongs to (0 = `[CLS]`). A word is what
    /// step 5 above cuts out: "don't" is the three words `don`, `'`, `t`.
    pub word: usize,
}

impl Piece {
    /// True for `[CLS]` and `[SEP]`, the pieces the tokenizer adds.
    pub fn is_special(&self) -> bool {
        self.span.is_empty() && self.text.starts_with('[') && self.text.ends_with(']')
    }
}

/// A WordPiece vocabulary and the BERT-uncased rules around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordPiece {
    vocab: Vec<String>,
    index: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
}

/// A normalized character and the byte range of the original character it comes from.
#[derive(Debug, Clone, Copy)]
struct Aligned {
    ch: char,
    start: usize,
    end: usize,
}

impl WordPiece {
    /// Builds a tokenizer from the vocabulary in id order (the lines of
    /// `vocab.txt`). It must hold `[UNK]`, `[CLS]` and `[SEP]`, and no entry twice.
    pub fn new(vocab: Vec<String>) -> Result<Self> {
        if vocab.len() > u32::MAX as usize {
            return Err(invalid("the vocabulary has too many entries"));
        }
        let mut index = HashMap::with_capacity(vocab.len());
        for (id, entry) in vocab.iter().enumerate() {
            if entry.is_empty() {
                return Err(invalid(format!("vocabulary entry {id} is empty")));
            }
            if index.insert(entry.clone(), id as u32).is_some() {
                return Err(invalid(format!("the vocabulary holds '{entry}' twice")));
            }
        }
        let special = |name: &str| {
            index.get(name).copied().ok_or_else(|| invalid(format!("the vocabulary has no {name} entry")))
        };
        let (unk, cls, sep) = (special("[UNK]")?, special("[CLS]")?, special("[SEP]")?);
        Ok(WordPiece { vocab, index, unk, cls, sep })
    }

    /// The vocabulary in id order.
    pub fn vocab(&self) -> &[String] {
        &self.vocab
    }

    /// The id of a vocabulary entry, if present.
    pub fn id(&self, entry: &str) -> Option<u32> {
        self.index.get(entry).copied()
    }

    /// Splits `text` into pieces, `[CLS]` first and `[SEP]` last. Never fails:
    /// what the vocabulary lacks becomes `[UNK]`, and an empty text gives
    /// just `[CLS] [SEP]`.
    pub fn tokenize(&self, text: &str) -> Vec<Piece> {
        let mut pieces = vec![self.special(self.cls, 0, 0)];
        let normalized = normalize(text);
        let mut word = 1;
        for chars in split_words(&normalized) {
            self.push_word(chars, word, &mut pieces);
            word += 1;
        }
        pieces.push(self.special(self.sep, text.len(), word));
        pieces
    }

    fn special(&self, id: u32, at: usize, word: usize) -> Piece {
        Piece { id, text: self.vocab[id as usize].clone(), span: at..at, word }
    }

    fn push_word(&self, chars: &[Aligned], word: usize, pieces: &mut Vec<Piece>) {
        let span_of = |from: usize, to: usize| chars[from].start..chars[to - 1].end;
        let whole_unknown = Piece {
            id: self.unk,
            text: self.vocab[self.unk as usize].clone(),
            span: span_of(0, chars.len()),
            word,
        };
        if chars.len() > MAX_WORD_CHARS {
            pieces.push(whole_unknown);
            return;
        }
        let before = pieces.len();
        let mut candidate = String::new();
        let mut start = 0;
        while start < chars.len() {
            let mut found = None;
            for end in (start + 1..=chars.len()).rev() {
                candidate.clear();
                if start > 0 {
                    candidate.push_str(CONTINUATION);
                }
                candidate.extend(chars[start..end].iter().map(|a| a.ch));
                if let Some(id) = self.id(&candidate) {
                    found = Some((id, end));
                    break;
                }
            }
            let Some((id, end)) = found else {
                pieces.truncate(before);
                pieces.push(whole_unknown);
                return;
            };
            pieces.push(Piece { id, text: self.vocab[id as usize].clone(), span: span_of(start, end), word });
            start = end;
        }
    }
}

/// Steps 1–4: the normalized characters, each with its origin.
fn normalize(text: &str) -> Vec<Aligned> {
    let mut out = Vec::with_capacity(text.len());
    for (start, original) in text.char_indices() {
        let end = start + original.len_utf8();
        if original == '\0' || original == '\u{FFFD}' || is_control(original) {
            continue;
        }
        let cleaned = if is_whitespace(original) { ' ' } else { original };
        let chinese = is_chinese(cleaned);
        if chinese {
            out.push(Aligned { ch: ' ', start, end });
        }
        decompose_canonical(cleaned, |decomposed| {
            if !decomposed.is_mark_nonspacing() {
                for ch in decomposed.to_lowercase() {
                    out.push(Aligned { ch, start, end });
                }
            }
        });
        if chinese {
            out.push(Aligned { ch: ' ', start, end });
        }
    }
    out
}

/// Step 5: words, without the whitespace, with each punctuation character alone.
fn split_words(chars: &[Aligned]) -> impl Iterator<Item = &[Aligned]> {
    let mut rest = chars;
    std::iter::from_fn(move || {
        while let Some(first) = rest.first() {
            if first.ch.is_whitespace() {
                rest = &rest[1..];
                continue;
            }
            let len = if is_punctuation(first.ch) {
                1
            } else {
                rest.iter().position(|a| a.ch.is_whitespace() || is_punctuation(a.ch)).unwrap_or(rest.len())
            };
            let (word, after) = rest.split_at(len);
            rest = after;
            return Some(word);
        }
        None
    })
}

fn is_whitespace(c: char) -> bool {
    c == '\t' || c == '\n' || c == '\r' || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    // Tab, newline and carriage return are control characters kept as whitespace.
    !(c == '\t' || c == '\n' || c == '\r') && c.is_other()
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// The CJK Unified Ideographs blocks (and compatibility ideographs) that
/// BERT puts spaces around. Hangul, hiragana and katakana are not among them.
fn is_chinese(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPiece {
        let vocab = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "un", "##aff", "##able", "'", "s", "cafe", "!",
            "猫",
        ];
        WordPiece::new(vocab.iter().map(|s| s.to_string()).collect()).unwrap()
    }

    fn texts(pieces: &[Piece]) -> Vec<&str> {
        pieces.iter().map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn greedy_longest_match_with_continuations() {
        let pieces = tiny().tokenize("The unaffable cat!");
        assert_eq!(texts(&pieces), ["[CLS]", "the", "un", "##aff", "##able", "cat", "!", "[SEP]"]);
        let words: Vec<usize> = pieces.iter().map(|p| p.word).collect();
        assert_eq!(words, [0, 1, 2, 2, 2, 3, 4, 5]);
        assert_eq!(pieces[3].span, 6..9);
        assert_eq!(pieces[7].span, 18..18);
    }

    #[test]
    fn spans_point_into_the_original_text() {
        let text = "  CAFÉ\tcat's 猫";
        let pieces = tiny().tokenize(text);
        assert_eq!(texts(&pieces), ["[CLS]", "cafe", "cat", "'", "s", "猫", "[SEP]"]);
        let spans: Vec<&str> = pieces.iter().map(|p| &text[p.span.clone()]).collect();
        assert_eq!(spans, ["", "CAFÉ", "cat", "'", "s", "猫", ""]);
    }

    #[test]
    fn unmatched_rest_makes_the_whole_word_unknown() {
        let pieces = tiny().tokenize("unaffablex cats");
        assert_eq!(texts(&pieces), ["[CLS]", "[UNK]", "[UNK]", "[SEP]"]);
        assert_eq!(pieces[1].span, 0..10);
    }

    #[test]
    fn over_long_words_are_unknown() {
        let word = "the".repeat(40);
        let pieces = tiny().tokenize(&word);
        assert_eq!(texts(&pieces), ["[CLS]", "[UNK]", "[SEP]"]);
        assert_eq!(pieces[1].span, 0..120);
    }

    #[test]
    fn empty_and_control_only_text_gives_the_special_pieces() {
        for text in ["", "   ", "\u{200B}\u{0}\u{FFFD}"] {
            let pieces = tiny().tokenize(text);
            assert_eq!(texts(&pieces), ["[CLS]", "[SEP]"], "{text:?}");
            assert!(pieces.iter().all(Piece::is_special));
        }
    }

    #[test]
    fn vocabulary_needs_the_special_entries() {
        let err = WordPiece::new(vec!["[CLS]".into(), "[SEP]".into()]).unwrap_err();
        assert!(err.to_string().contains("[UNK]"), "{err}");
        let err = WordPiece::new(vec!["a".into(), "a".into()]).unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
    }
}
