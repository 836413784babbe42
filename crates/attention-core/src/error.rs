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
            Error::NoKnownWords { unknown } => {
                let shown: Vec<String> = unknown.iter().take(8).map(|w| quote(w)).collect();
                let more = if unknown.len() > 8 { ", …" } else { "" };
                write!(
                    f,
                    "none of the words is in the vocabulary ({}{more}): try common English words",
                    shown.join(", ")
                )
            }
            Error::NotLoaded { pending } => {
                let shown: Vec<String> = pending.iter().take(8).map(|w| quote(w)).collect();
                let more = if pending.len() > 8 { ", …" } else { "" };
                write!(f, "the vectors of {}{more} have not arrived", shown.join(", "))
            }
            Error::TooManyTokens { known } => write!(
                f,
                "the text has {known} known words; attention is computed over at most {}: shorten it",
                crate::MAX_TOKENS
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
/// 20,000-letter "word" is named, not printed whole.
pub fn quote(word: &str) -> String {
    format!("'{}'", crate::tokenize::shortened(word, 40))
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
}
