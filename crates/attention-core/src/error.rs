//! The one error type of the core. Its messages are written for the person
//! who typed the sentence or chose the file, not for the programmer.

use std::fmt;

/// Everything that can go wrong in the core.
///
/// `Display` gives a one-line message meant to be shown to a user as it is.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The sentence is empty or only whitespace.
    EmptySentence,
    /// Every token of the sentence is missing from the vocabulary.
    NoKnownWords {
        /// The tokens that were looked up and not found, in sentence order.
        unknown: Vec<String>,
    },
    /// No token is known yet, and some could not be looked up: their shards
    /// have not arrived (a sharded vocabulary still loading, or failing).
    NotLoaded {
        /// The tokens whose vectors are missing, in sentence order.
        pending: Vec<String>,
    },
    /// More known tokens than one analysis takes ([`crate::MAX_TOKENS`]).
    TooManyTokens {
        /// The known tokens of the text.
        known: usize,
    },
    /// A word-vector file (subset or GloVe text) is malformed or truncated.
    InvalidEmbeddings(String),
    /// An option is out of its range (for example a temperature of 0).
    InvalidOption(String),
    /// A matrix typed by hand that cannot be read: a cell that is not a
    /// number, too many cells, or none.
    InvalidMatrix(String),
    /// Matrices whose shapes do not fit together.
    Shape(String),
    /// A product of typed matrices beyond the range of a 32-bit float.
    Overflow {
        /// Row and column of the first such entry, from 0.
        at: (usize, usize),
        /// Its value, computed in 64 bits.
        value: f64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EmptySentence => f.write_str("the sentence is empty: type a few words"),
            Error::NoKnownWords { unknown } => write!(
                f,
                "none of the words is in the vocabulary ({}): try common English words",
                quote_list(unknown)
            ),
            Error::NotLoaded { pending } => {
                write!(f, "the vectors of {} have not arrived", quote_list(pending))
            }
            Error::TooManyTokens { known } => write!(
                f,
                "the text has {} known words; attention is computed over at most {}: shorten it",
                grouped(*known),
                grouped(crate::MAX_TOKENS)
            ),
            Error::InvalidEmbeddings(reason) => write!(f, "invalid word-vector file: {reason}"),
            Error::InvalidOption(reason) => write!(f, "invalid option: {reason}"),
            Error::InvalidMatrix(reason) => f.write_str(reason),
            Error::Shape(reason) => write!(f, "matrix shapes do not fit: {reason}"),
            Error::Overflow { at: (row, col), value } => write!(
                f,
                "row {}, column {} of the product is {value:.1e}, beyond the ±3.4e38 of a 32-bit float: use smaller numbers",
                row + 1,
                col + 1
            ),
        }
    }
}

/// Text from outside (a word, a typed number) as the messages quote it: in
/// quotes, and at most 40 clusters long (then "…"), so that a pasted
/// 20,000-letter "word" is named, not printed whole. Control and invisible
/// characters are written as escapes (`\u{1b}`, `\u{200b}`): printed raw,
/// an escape sequence would drive the terminal, and a zero-width space would
/// be quoted as `''`, naming nothing the user can see. A joiner between two
/// non-ASCII characters stays: it is part of an emoji (👩‍💻) or of a word of
/// a script that uses it, and shows as such; so do the tags of a flag's tag
/// sequence (🏴 + "gbeng" in tags + cancel tag: England's flag), and only there.
pub fn quote(word: &str) -> String {
    let shortened = crate::tokenize::shortened(word, 40);
    let chars: Vec<char> = shortened.chars().collect();
    let shown = |c: Option<&char>| c.is_some_and(|&c| !c.is_ascii() && !hidden(c));
    let mut quoted = String::from("'");
    let mut in_flag = false; // after 🏴 and the tags kept after it
    for (i, &c) in chars.iter().enumerate() {
        let joins = matches!(c, '\u{200c}' | '\u{200d}')
            && shown(i.checked_sub(1).and_then(|p| chars.get(p)))
            && shown(chars.get(i + 1));
        let flag_tag = in_flag && is_tag(c);
        if hidden(c) && !joins && !flag_tag {
            quoted.extend(c.escape_unicode());
        } else {
            quoted.push(c);
        }
        in_flag = (c == BLACK_FLAG || flag_tag) && c != CANCEL_TAG;
    }
    quoted.push('\'');
    quoted
}

/// The flag that a tag sequence names a region of (🏴 + tags + U+E007F).
const BLACK_FLAG: char = '\u{1f3f4}';
const CANCEL_TAG: char = '\u{e007f}';

/// The tag characters (U+E0020–U+E007F): invisible ASCII look-alikes,
/// drawn only as part of a flag's tag sequence.
fn is_tag(c: char) -> bool {
    matches!(c, '\u{e0020}'..='\u{e007f}')
}

/// Control characters, line and paragraph separators, and format
/// characters that take no space: soft hyphen, zero-width spaces and
/// joiners, direction marks, embeddings, overrides and isolates, invisible
/// operators, the deprecated format characters, the byte-order mark,
/// interlinear annotation marks, musical format controls and tags
/// (www/js/text.js `HIDDEN` is the same set).
fn hidden(c: char) -> bool {
    c.is_control()
        || is_tag(c)
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0001}'
        )
}

/// A count as the page and the README write it, with commas between
/// thousands: "400,000".
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The words a message names, each quoted: the first 8, then how many there
/// are in all, so that 100,000 unknown words make one short line.
pub fn quote_list<S: AsRef<str>>(words: &[S]) -> String {
    const SHOWN: usize = 8;
    let shown: Vec<String> = words.iter().take(SHOWN).map(|w| quote(w.as_ref())).collect();
    if words.len() > SHOWN {
        format!("{}, … ({} in all)", shown.join(", "), grouped(words.len()))
    } else {
        shown.join(", ")
    }
}

/// A count and its noun, singular for one: "1 dimension", "3 dimensions".
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

impl std::error::Error for Error {}

/// Shorthand used throughout the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_a_huge_unknown_word_without_printing_it_whole() {
        let unknown = vec!["z".repeat(20_000), "xqzzy".into()];
        let message = Error::NoKnownWords { unknown }.to_string();
        assert_eq!(
            message,
            format!(
                "none of the words is in the vocabulary ('{}…', 'xqzzy'): try common English words",
                "z".repeat(40)
            )
        );
        let message = Error::NotLoaded { pending: vec!["q".repeat(41)] }.to_string();
        assert_eq!(message, format!("the vectors of '{}…' have not arrived", "q".repeat(40)));
    }

    #[test]
    fn a_message_lists_at_most_8_words_and_says_how_many() {
        let unknown: Vec<String> = (0..100_000).map(|i| format!("w{i}")).collect();
        let message = Error::NoKnownWords { unknown }.to_string();
        assert_eq!(
            message,
            "none of the words is in the vocabulary ('w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7', \
             … (100,000 in all)): try common English words"
        );
        assert_eq!(quote_list(&["a", "b"]), "'a', 'b'");
    }

    #[test]
    fn control_and_invisible_characters_are_quoted_as_escapes() {
        assert_eq!(quote("king\u{1b}]0;pwned\u{7}"), "'king\\u{1b}]0;pwned\\u{7}'");
        assert_eq!(quote("\u{1}"), "'\\u{1}'");
        assert_eq!(quote("\u{200b}"), "'\\u{200b}'");
        assert_eq!(quote("a\u{202e}b\u{feff}\u{2066}"), "'a\\u{202e}b\\u{feff}\\u{2066}'");
        // Letters, accents and emoji stay as they are, and shortening still counts clusters.
        assert_eq!(quote("naïve 👩\u{200d}💻"), "'naïve 👩\u{200d}💻'");
        assert_eq!(quote("king\u{200d}queen\u{200d}"), "'king\\u{200d}queen\\u{200d}'");
        assert_eq!(quote(&"\u{7}".repeat(50)), format!("'{}…'", "\\u{7}".repeat(40)));
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1024), "1,024");
        assert_eq!(grouped(400_000), "400,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn separators_and_tags_are_escaped_but_a_flags_tags_stay() {
        // Tag letters alone read as nothing: "AB" in tags.
        assert_eq!(quote("\u{e0041}\u{e0042}"), "'\\u{e0041}\\u{e0042}'");
        assert_eq!(quote("a\u{2028}b\u{2029}"), "'a\\u{2028}b\\u{2029}'");
        assert_eq!(quote("x\u{e0001}\u{fff9}\u{206a}"), "'x\\u{e0001}\\u{fff9}\\u{206a}'");
        // England's flag: 🏴 + "gbeng" in tags + the cancel tag, as it is; a tag after it is escaped.
        let england = "\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}";
        assert_eq!(quote(england), format!("'{england}'"));
        assert_eq!(quote(&format!("{england}\u{e0041}")), format!("'{england}\\u{{e0041}}'"));
    }
}
