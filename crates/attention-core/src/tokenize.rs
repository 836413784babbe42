//! A tokenizer that produces the tokens GloVe 6B was trained on.
//!
//! GloVe 6B's corpus was tokenized Stanford/Penn-Treebank style and
//! lowercased, so its vocabulary holds `n't`, `'s`, `ca` (from "can't"),
//! punctuation as separate tokens, and whole hyphenated words, abbreviations
//! and numbers ("well-known", "u.s.", "1,000", "3.14"). This tokenizer asks the
//! vocabulary before it splits:
//!
//! 1. The text is cut at white space (and zero-width spaces) into chunks.
//! 2. A chunk the vocabulary holds (lowercased, with ’ read as ' and accents
//!    composed, see [`normalize`]) is one token, unless it ends a sentence
//!    with a period (see [`has_final_period`]): "sat." is a GloVe word
//!    (Saturday), but the last word of "The cat sat." is "sat", then ".".
//!    A chunk ends a sentence when it is the text's last, or when the next
//!    starts with a capital letter and this one is no title ("Mr. Smith").
//!    (A chunk longer than any vocabulary word, 1,024 bytes lowercased, is not
//!    looked up whole.)
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
//! "Character" above means a character with whatever belongs to it: the
//! combining marks, variation selectors, skin tones, joined characters and
//! invisible characters after it (see `joins`). No cut separates ❤ from the
//! U+FE0F that makes it the emoji ❤️, a family emoji into people, a flag into
//! its two letters, or "king" + soft hyphen + "dom" into two words.
//!
//! Every token keeps the byte span of the original text it came from, so
//! `&text[token.span.clone()]` is always valid and shows what the user typed.

use std::collections::{BTreeSet, HashSet};
use std::ops::Range;

use unicode_normalization::char::compose;

use crate::embeddings::MAX_WORD_BYTES;

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
    for (chunk, ends) in chunks(text) {
        split_chunk(text, chunk, vocabulary, ends, &mut tokens);
    }
    tokens
}

/// The chunks of `text` (step 1 above), each with whether it ends a
/// sentence: each is split into tokens on its own (`split_chunk`).
pub(crate) fn chunks(text: &str) -> Vec<(Range<usize>, bool)> {
    let mut chunks = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        // An invisible character with nothing before it in its chunk (a byte
        // order mark, a direction mark after a space) separates like a space.
        if is_separator(c) || (start.is_none() && is_invisible(c)) {
            if let Some(s) = start.take() {
                chunks.push(s..i);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        chunks.push(s..text.len());
    }
    (0..chunks.len())
        .map(|k| {
            let ends =
                ends_sentence(&text[chunks[k].clone()], chunks.get(k + 1).map(|next| &text[next.clone()]));
            (chunks[k].clone(), ends)
        })
        .collect()
}

/// Abbreviations that a capitalised name follows ("Mr. Smith", "St. Louis"):
/// their period does not end a sentence.
const TITLES: [&str; 21] = [
    "mr", "mrs", "ms", "dr", "prof", "st", "mt", "ft", "jr", "sr", "gen", "gov", "sen", "rep", "rev", "lt",
    "col", "capt", "sgt", "hon", "vs",
];

/// Whether `chunk` ends a sentence: it is the text's last, or the next
/// chunk starts (after any opening punctuation) with a capital (a letter
/// that lowercases to another: the lowercase tables are in the wasm
/// already, an uppercase table would add one) and `chunk` is not a title
/// such as "Mr.".
fn ends_sentence(chunk: &str, next: Option<&str>) -> bool {
    let Some(next) = next else { return true };
    let capital = next.chars().find(|c| is_word_char(*c)).is_some_and(|c| c.to_lowercase().next() != Some(c));
    let stem = chunk.trim_start_matches(|c| !is_word_char(c)).trim_end_matches('.');
    capital && !TITLES.iter().any(|title| stem.eq_ignore_ascii_case(title))
}

/// Whether `piece` ends in one period after a word character, with no other
/// period in it ("sat.", "1.", not "u.s." nor "etc..."): at the end of a
/// sentence that period is a token of its own, as GloVe's corpus was
/// tokenized, even where the vocabulary holds the word with it ("sat.",
/// Saturday, in "The cat sat.").
fn has_final_period(piece: &str) -> bool {
    let Some(stem) = piece.strip_suffix('.') else { return false };
    !stem.contains('.') && clusters_rev(stem).next().is_some_and(|(_, base)| is_word_char(base))
}

/// The vocabulary spelling of a piece of text: lowercase, curly apostrophe as ',
/// without invisible characters (see [`is_invisible`]) nor a zero-width
/// joiner between two characters of which one is ASCII ("king" + U+200D +
/// "dom" is "kingdom"; the joiner of an emoji stays), the Latin ligatures and full-width forms as
/// the letters they stand for ("ﬁnal" from a PDF, "ｃａｔ" from a CJK keyboard;
/// see [`folded`]), accents composed with their letters as every word of GloVe 6B is (NFC):
/// "cafe" + U+0301, as macOS and many PDFs write "café", is the vocabulary's
/// "café". Only neighbours are composed, which is NFC for decomposed (NFD)
/// text; this needs Unicode's composition table alone (12 KB of wasm, where a
/// full NFC would be 125 KB).
pub fn normalize(piece: &str) -> String {
    if piece.is_ascii() {
        return piece.chars().map(|c| c.to_ascii_lowercase()).collect();
    }
    // The whole piece at once: a word-final Σ is ς ("ΛΌΓΟΣ" is "λόγος").
    let lower: Vec<char> = piece.to_lowercase().chars().collect();
    // Between two characters, one of them ASCII: a joiner that joins nothing (one at an end stays, so that a lone one is named).
    let beside_ascii = |i: usize| match (i.checked_sub(1).map(|p| lower[p]), lower.get(i + 1)) {
        (Some(before), Some(after)) => before.is_ascii() || after.is_ascii(),
        _ => false,
    };
    let lower = lower
        .iter()
        .enumerate()
        .filter(|&(i, &c)| !(is_invisible(c) || (c == ZWJ && beside_ascii(i))))
        .flat_map(|(_, &c)| folded(c))
        .map(|c| if c == '’' { '\'' } else { c });
    let mut out = String::with_capacity(piece.len());
    let mut last: Option<char> = None;
    for c in lower {
        match last.and_then(|l| compose(l, c)) {
            Some(both) => last = Some(both),
            None => {
                out.extend(last);
                last = Some(c);
            }
        }
    }
    out.extend(last);
    out
}

/// `c` as the letters it stands for, where Unicode's compatibility mapping
/// (NFKC) says so for Latin text: the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ, and the
/// full-width forms of ASCII (U+FF01–U+FF5E). Anything else is itself.
fn folded(c: char) -> impl Iterator<Item = char> {
    let letters: &'static str = match c {
        '\u{fb00}' => "ff",
        '\u{fb01}' => "fi",
        '\u{fb02}' => "fl",
        '\u{fb03}' => "ffi",
        '\u{fb04}' => "ffl",
        '\u{fb05}' | '\u{fb06}' => "st",
        _ => "",
    };
    let wide = ('\u{ff01}'..='\u{ff5e}').contains(&c).then(|| char::from_u32(c as u32 - 0xfee0)).flatten();
    let single = (letters.is_empty()).then_some(wide.unwrap_or(c));
    letters.chars().chain(single)
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

const ZWJ: char = '\u{200D}';

/// Characters that belong to the one before them, so that no cut separates
/// them from it: marks of every script (é typed as e + U+0301, a Thai tone
/// mark, a Devanagari virama, the keycap ⃣), variation selectors (❤ +
/// U+FE0F is the emoji ❤️), skin tones, emoji tag sequences and the
/// zero-width joiner (👩‍👧, which also takes the character after it).
fn is_extender(c: char) -> bool {
    matches!(c,
        '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' // variation selectors
        | '\u{1F3FB}'..='\u{1F3FF}' // skin tones
        | '\u{E0020}'..='\u{E007F}' // tags
        | ZWJ)
        || (!c.is_ascii() && unicode_normalization::char::is_combining_mark(c))
        || is_invisible(c)
}

/// Invisible characters that say how to show or break a text, not what it
/// says: the soft hyphen, the zero-width non-joiner, the word joiner and
/// invisible operators, direction marks, embeddings, overrides and
/// isolates, the byte order mark. No GloVe word holds one: they belong to
/// the character before them (so "king" + U+00AD + "dom" is not cut), and
/// are left out of a token's spelling ("kingdom").
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{AD}' | '\u{61C}' | '\u{200C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// What cuts a text into chunks: white space, and the zero-width space
/// (an invisible word break).
pub fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == '\u{200B}'
}

/// A regional indicator: two make a flag (🇫 + 🇷 is 🇫🇷).
fn is_regional_indicator(c: char) -> bool {
    matches!(c, '\u{1F1E6}'..='\u{1F1FF}')
}

/// Whether no cut may fall between `prev` and `c`: `c` is an extender,
/// follows a joiner, or is a regional indicator after another (a run of
/// flags stays one cluster, which reads the same from either end).
fn joins(prev: char, c: char) -> bool {
    prev == ZWJ || is_extender(c) || (is_regional_indicator(prev) && is_regional_indicator(c))
}

/// Byte length of the first cluster of `s`: its first character and every
/// extender after it (and any character after a zero-width joiner). A
/// cluster ends before a character exactly when that character is not an
/// extender and does not follow a joiner, so clusters read the same from
/// either end.
fn first_cluster(s: &str) -> usize {
    let mut chars = s.char_indices();
    let Some((_, mut prev)) = chars.next() else { return 0 };
    let mut end = prev.len_utf8();
    for (i, c) in chars {
        if !joins(prev, c) {
            break;
        }
        prev = c;
        end = i + c.len_utf8();
    }
    end
}

/// Byte length of the last cluster of `s` (see [`first_cluster`]).
fn last_cluster(s: &str) -> usize {
    let mut chars = s.char_indices().rev().peekable();
    while let Some((i, c)) = chars.next() {
        match chars.peek() {
            Some((_, prev)) if joins(*prev, c) => {}
            _ => return s.len() - i,
        }
    }
    0
}

/// `word` as a message quotes it: its first `max` clusters (a letter with
/// its accents, an emoji with its joiners: never half of one), and "…" when
/// it had more. A pasted 20,000-letter "word" is named, not printed whole;
/// so is a "cluster" of more than [`CLUSTER_CHARS`] characters (a run of
/// 500,000 flags, a letter with two million accents: 4 MB of message), cut
/// inside.
pub(crate) fn shortened(word: &str, max: usize) -> std::borrow::Cow<'_, str> {
    for (k, (range, _)) in clusters(word).enumerate() {
        if k == max {
            return format!("{}…", &word[..range.start]).into();
        }
        if let Some((cut, _)) = word[range.clone()].char_indices().nth(CLUSTER_CHARS) {
            return format!("{}…", &word[..range.start + cut]).into();
        }
    }
    word.into()
}

/// The most characters of one cluster a message quotes: more than any
/// written one holds (Unicode's stream-safe text has at most 30 marks in a
/// row), and an even number, so that a run of flags is cut between two.
const CLUSTER_CHARS: usize = 32;

/// The clusters of `s`, front to back: the byte range and first character of each.
fn clusters(s: &str) -> impl Iterator<Item = (Range<usize>, char)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let base = s[at..].chars().next()?;
        let start = at;
        at += first_cluster(&s[at..]);
        Some((start..at, base))
    })
}

/// The clusters of `s`, back to front.
fn clusters_rev(s: &str) -> impl Iterator<Item = (Range<usize>, char)> + '_ {
    let mut end = s.len();
    std::iter::from_fn(move || {
        let range = end - last_cluster(&s[..end])..end;
        let base = s[range.clone()].chars().next()?;
        end = range.start;
        Some((range, base))
    })
}

/// Appends the tokens of chunk `span` of `text` to `out`.
pub(crate) fn split_chunk<V: Vocabulary + ?Sized>(
    text: &str,
    span: Range<usize>,
    vocabulary: &V,
    ends_sentence: bool,
    out: &mut Vec<Token>,
) {
    // A loop, not recursion: a chunk of 20,000 brackets or "'d"s (a link can
    // hold one) would otherwise nest 20,000 calls deep, past a 1 MiB wasm
    // stack. Each step cuts a piece off the front (pushed now) or off the end
    // (pushed once the rest is done, last cut last), and costs what the piece
    // costs, not what the chunk does.
    let mut span = span;
    let mut cut_off: Vec<Range<usize>> = Vec::new();
    // From the first word character to the end of the last one; None: all punctuation.
    let mut words = word_range(&text[span.clone()]).map(|r| span.start + r.start..span.start + r.end);
    while !span.is_empty() {
        let piece = &text[span.clone()];
        let final_period = ends_sentence && has_final_period(piece);
        if may_be_word(piece) && !final_period && vocabulary.contains_word(&normalize(piece)) {
            push(text, span.clone(), vocabulary, out);
            break;
        }
        let Some(word) = words.clone() else {
            // All punctuation: pieces the vocabulary holds, else one character each.
            let mut at = span.start;
            while at < span.end {
                let cut = at + longest_known_prefix(&text[at..span.end], vocabulary);
                push(text, at..cut, vocabulary, out);
                at = cut;
            }
            break;
        };

        // Leading punctuation: the longest vocabulary run, else one character.
        if word.start > span.start {
            let cut = span.start + longest_known_prefix(&text[span.start..word.start], vocabulary);
            push(text, span.start..cut, vocabulary, out);
            span.start = cut;
            continue;
        }

        // Trailing punctuation, likewise (so "cats'" splits, as in the treebank).
        if word.end < span.end {
            let cut = span.end - longest_known_suffix(&text[word.end..span.end], vocabulary);
            cut_off.push(cut..span.end);
            span.end = cut;
            continue;
        }

        // Contractions: "isn't" → is n't, "it's" → it 's.
        if let Some(cut) = contraction_cut(piece).map(|len| span.end - len).filter(|cut| *cut > span.start) {
            cut_off.push(cut..span.end);
            span.end = cut;
            words = word_range(&text[span.clone()]).map(|r| span.start + r.start..span.start + r.end);
            continue;
        }

        // Inner punctuation: split unless the chunk is a number. The parts
        // hold no inner punctuation, so this nests one call deep at most.
        let cuts_inside =
            |(_, base): &(Range<usize>, char)| !is_word_char(*base) && *base != '\'' && *base != '’';
        if !looks_numeric(piece) && clusters(piece).any(|c| cuts_inside(&c)) {
            let mut part_start = span.start;
            for (cluster, _) in clusters(piece).filter(cuts_inside) {
                let at = span.start + cluster.start..span.start + cluster.end;
                split_chunk(text, part_start..at.start, vocabulary, false, out);
                part_start = at.end;
                push(text, at, vocabulary, out);
            }
            split_chunk(text, part_start..span.end, vocabulary, false, out);
            break;
        }

        push(text, span.clone(), vocabulary, out);
        break;
    }
    for range in cut_off.into_iter().rev() {
        push(text, range, vocabulary, out);
    }
}

/// The byte range of `piece` from its first word character to the end of
/// its last one, or `None` if it has none.
fn word_range(piece: &str) -> Option<Range<usize>> {
    let start = clusters(piece).find(|(_, base)| is_word_char(*base))?.0.start;
    let end = clusters_rev(piece).find(|(_, base)| is_word_char(*base))?.0.end;
    Some(start..end)
}

/// Whether `piece` may be a vocabulary word: none is longer than
/// [`MAX_WORD_BYTES`] once lowercased (the subset and shard formats' limit),
/// and each character lowercases to at least one byte. Longer pieces are not
/// looked up whole, so that cutting a huge chunk a piece at a time does not
/// lowercase all of it at every cut.
fn may_be_word(piece: &str) -> bool {
    piece.len() <= MAX_WORD_BYTES
        || (piece.len() <= 4 * MAX_WORD_BYTES && piece.chars().count() <= MAX_WORD_BYTES)
}

/// The byte length of the contraction suffix that ends `piece` (which
/// starts and ends with a word character), if any, taking the first of
/// [`CONTRACTIONS`] that matches.
fn contraction_cut(piece: &str) -> Option<usize> {
    // Only the last four characters decide: each lowercases to one or more,
    // and a suffix has at most three.
    let tail_start = piece.char_indices().rev().nth(3).map_or(0, |(i, _)| i);
    let lower = normalize(&piece[tail_start..]);
    CONTRACTIONS
        .iter()
        .filter(|suffix| (tail_start > 0 || lower.len() > suffix.len()) && lower.ends_with(*suffix))
        // The suffix is ASCII except for a curly apostrophe (3 bytes in UTF-8).
        .map(|suffix| suffix_len_in_original(piece, suffix.chars().count()))
        .find(|len| *len < piece.len())
}

/// Byte length of the last `chars` characters of `piece`.
fn suffix_len_in_original(piece: &str, chars: usize) -> usize {
    piece.chars().rev().take(chars).map(char::len_utf8).sum()
}

/// Byte length of the longest prefix of `run` (at least one cluster, at
/// most eight) that the vocabulary holds.
fn longest_known_prefix<V: Vocabulary + ?Sized>(run: &str, vocabulary: &V) -> usize {
    let first = first_cluster(run);
    clusters(run)
        .take(8)
        .map(|(cluster, _)| cluster.end)
        .filter(|end| *end > first && vocabulary.contains_word(&normalize(&run[..*end])))
        .last()
        .unwrap_or(first)
}

/// Byte length of the longest suffix of `run` (at least one cluster, at
/// most eight) that the vocabulary holds.
fn longest_known_suffix<V: Vocabulary + ?Sized>(run: &str, vocabulary: &V) -> usize {
    let last = last_cluster(run);
    clusters_rev(run)
        .take(8)
        .map(|(cluster, _)| run.len() - cluster.start)
        .filter(|len| *len > last && vocabulary.contains_word(&normalize(&run[run.len() - *len..])))
        .last()
        .unwrap_or(last)
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
        "sat.",
        "so.",
        "1.",
        "1",
        "so",
        "no",
        "no.",
        "maybe",
        "yes",
        "he",
        "said",
        "kingdom",
        "final",
        "flight",
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
    fn a_sentences_final_period_is_a_token_even_after_a_word_known_with_it() {
        // "sat." (Saturday), "so." and "1." are vocabulary words; at the end of a sentence the period is not theirs.
        assert_eq!(toks("The cat sat."), ["the", "cat", "sat", "."]);
        assert_eq!(
            toks("It is so. He said \"so.\""),
            ["it", "is", "so", ".", "he", "said", "\"", "so", ".", "\""]
        );
        assert_eq!(toks("Yes. No. Maybe."), ["yes", ".", "no", ".", "maybe", "."]);
        assert_eq!(toks("1. The cat"), ["1", ".", "the", "cat"]);
        // Inside a sentence (the next word is not capitalised), a title, or a word with periods of its own: whole.
        assert_eq!(toks("The cat sat. on"), ["the", "cat", "sat.", "on"]);
        assert_eq!(toks("Mr. Smith sat"), ["mr.", "smith", "sat"]);
        assert_eq!(toks("The U.S."), ["the", "u.s."]);
        assert_eq!(toks("The cat sat..."), ["the", "cat", "sat", "..."]);
    }

    #[test]
    fn joiners_between_letters_ligatures_and_full_width_letters_read_as_plain_letters() {
        assert_eq!(toks("the king\u{200d}dom"), ["the", "kingdom"]);
        assert_eq!(toks("the ﬁnal ﬂight"), ["the", "final", "flight"]);
        assert_eq!(toks("ＴＨＥ ｃａｔ ｓａｔ！"), ["the", "cat", "sat", "!"]);
        // An emoji's joiner stays (👩‍💻 is one token, its spelling whole).
        assert_eq!(toks("👩\u{200d}💻"), ["👩\u{200d}💻"]);
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
    fn a_long_word_is_shortened_between_clusters() {
        assert_eq!(shortened("kingdom", 7), "kingdom");
        assert_eq!(shortened("kingdoms", 7), "kingdom…");
        assert_eq!(shortened(&"a".repeat(20_000), 40), format!("{}…", "a".repeat(40)));
        // e + U+0301 is one cluster, and so is a family joined by U+200D.
        assert_eq!(shortened("cafe\u{301}s", 4), "cafe\u{301}…");
        assert_eq!(shortened("ab\u{1F469}\u{200D}\u{1F467}cd", 3), "ab\u{1F469}\u{200D}\u{1F467}…");
        assert_eq!(shortened("", 3), "");
        let accents = format!("e{}", "\u{301}".repeat(2_000_000));
        assert_eq!(shortened(&accents, 40), format!("e{}…", "\u{301}".repeat(31)));
        let flags = "\u{1F1FA}\u{1F1F8}".repeat(500_000);
        assert_eq!(shortened(&flags, 40), format!("{}…", "\u{1F1FA}\u{1F1F8}".repeat(16)));
    }

    #[test]
    fn marks_of_every_script_stay_with_their_word() {
        // A Devanagari virama, Thai tone marks, a Tamil virama, Sinhala's
        // al-lakuna + joiner: words of their own, never a chip per mark.
        for word in ["नमस्ते", "ที่", "ก็", "தமிழ்", "ខ្មែរ", "ශ්\u{200D}රී"]
        {
            assert_eq!(toks(&format!("the {word}.")), ["the", word, "."], "{word}");
        }
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
    fn decomposed_text_reads_as_the_composed_word() {
        // "CAFE" + U+0301 (as macOS and PDFs write it): the vocabulary's "café",
        // with the span of what was typed.
        let text = "the CAFE\u{301}, cafe\u{301}s";
        let t = tokenize(text, VOCAB);
        let words: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.known, &text[t.span.clone()])).collect();
        assert_eq!(
            words,
            [
                ("the", true, "the"),
                ("café", true, "CAFE\u{301}"),
                (",", true, ","),
                ("cafés", false, "cafe\u{301}s")
            ]
        );
        assert_eq!(normalize("İ"), "i\u{307}");
    }

    #[test]
    fn a_final_capital_sigma_is_lowercased_as_a_final_sigma() {
        let vocab: &[&str] = &["λόγος", "της", "σας"];
        let t = tokenize("ΛΌΓΟΣ ΤΗΣ Σας, λόγος.", vocab);
        let words: Vec<_> = t.iter().map(|t| (t.text.as_str(), t.known)).collect();
        assert_eq!(
            words,
            [("λόγος", true), ("της", true), ("σας", true), (",", false), ("λόγος", true), (".", false)]
        );
    }

    /// Invisible characters (soft hyphen, direction marks, byte order mark)
    /// neither cut a word nor make a token: copied text is full of them.
    #[test]
    fn invisible_characters_neither_cut_words_nor_make_tokens() {
        let text = "\u{FEFF}The king\u{AD}dom \u{200E} of\u{200F} the\u{200B}cat\u{2066}s\u{2069}";
        let t = tokenize(text, &["the", "kingdom", "of", "cat"][..]);
        let words: Vec<_> = t.iter().map(|t| (t.text.as_str(), &text[t.span.clone()])).collect();
        assert_eq!(
            words,
            [
                ("the", "The"),
                ("kingdom", "king\u{AD}dom"),
                ("of", "of\u{200F}"),
                ("the", "the"),
                ("cats", "cat\u{2066}s\u{2069}")
            ]
        );
        assert!(t[1].known);
    }

    #[test]
    fn a_flag_is_one_token() {
        assert_eq!(toks("I love 🇫🇷!"), ["i", "love", "🇫🇷", "!"]);
        // A run of flags stays together, read from either end.
        assert_eq!(toks("(🇫🇷🇬🇧)"), ["(", "🇫🇷🇬🇧", ")"]);
    }

    /// A link may hold 20,000 characters (the page's limit) without a space:
    /// cutting them a piece at a time must neither nest a call per piece (a
    /// 1 MiB wasm stack overflowed at about 8,000) nor lowercase the whole
    /// rest at every cut (seconds natively).
    #[test]
    fn a_chunk_of_thousands_of_brackets_or_contractions_needs_no_deep_stack() {
        let cases = [
            (format!("{}cat{}", "(".repeat(10_000), ")".repeat(10_000)), 20_001),
            (format!("it{}", "'s".repeat(10_000)), 10_001),
            (format!("{}cat{}", "'".repeat(10_000), "'".repeat(10_000)), 20_001),
            (format!("{}the", "\"(".repeat(10_000)), 20_001),
        ];
        for (text, count) in cases {
            let tokens = std::thread::Builder::new()
                .stack_size(128 << 10)
                .spawn(move || (tokenize(&text, VOCAB), text))
                .unwrap()
                .join();
            let (tokens, text) = tokens.expect("tokenizing overflowed a 128 KiB stack");
            assert_eq!(tokens.len(), count, "{}…", &text[..20]);
            let covered: usize = tokens.iter().map(|t| t.span.len()).sum();
            assert_eq!(covered, text.len());
            assert!(tokens.iter().any(|t| t.known && (t.text == "cat" || t.text == "the" || t.text == "it")));
        }
    }

    /// Emoji with a variation selector, a skin tone or joiners, keycaps and
    /// combining accents stay whole: no token is a lone U+FE0F (an empty chip).
    #[test]
    fn emoji_and_accents_are_never_cut_from_what_belongs_to_them() {
        let texts = |text: &str| tokenize(text, VOCAB).iter().map(|t| t.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts("the cat❤\u{FE0F}."), ["the", "cat", "❤\u{FE0F}", "."]);
        assert_eq!(texts("(❤\u{FE0F}cat)"), ["(", "❤\u{FE0F}", "cat", ")"]);
        assert_eq!(texts("👋\u{1F3FD}the"), ["👋\u{1F3FD}", "the"]);
        assert_eq!(texts("the👩\u{200D}👩\u{200D}👧!"), ["the", "👩\u{200D}👩\u{200D}👧", "!"]);
        assert_eq!(texts("1\u{FE0F}\u{20E3}"), ["1\u{FE0F}\u{20E3}"]);
        assert_eq!(texts("cafe\u{301}-cat"), ["café", "-", "cat"]);
        assert_eq!(texts("cat-\u{301}mat"), ["cat", "-\u{301}", "mat"]);
        assert_eq!(texts("\u{FE0F}"), ["\u{FE0F}"]);
        assert_eq!(texts("\u{FE0F}cat"), ["\u{FE0F}", "cat"]);
        assert_eq!(texts("cat\u{200D}"), ["cat\u{200D}"]);
        for text in [
            "the cat❤\u{FE0F}.",
            "(❤\u{FE0F}\u{FE0F}\u{FE0F}))",
            "\u{200D}\u{200D}!",
            "!!\u{301}?\u{FE0F}",
            "(🇫🇷🇺🇸🇫)",
            "!\u{AD}?\u{200E}.",
        ] {
            for token in tokenize(text, VOCAB) {
                let shown = &text[token.span.clone()];
                let before = text[..token.span.start].chars().next_back();
                let starts_a_cluster = before.is_none_or(|b| !joins(b, shown.chars().next().unwrap()));
                assert!(starts_a_cluster, "{text:?}: {shown:?} was cut from the character before it");
            }
        }
    }

    #[test]
    fn empty_and_blank_text_give_no_tokens() {
        assert!(tokenize("", VOCAB).is_empty());
        assert!(tokenize(" \t\n ", VOCAB).is_empty());
    }
}
