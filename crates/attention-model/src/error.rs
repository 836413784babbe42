//! The one error type of the crate. Its messages are written for the person
//! who chose the file or typed the sentence, not for the programmer.

use std::fmt;

/// Everything that can go wrong while loading or running a model.
///
/// `Display` gives a one-line message meant to be shown to a user as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A model file is malformed, truncated, or describes an impossible model.
    InvalidModel(String),
    /// The sentence has more pieces than the model has positions.
    TooLong {
        /// Pieces of the sentence, [CLS] and [SEP] included.
        pieces: usize,
        /// Positions the model has (512 for MiniLM).
        max: usize,
    },
    /// The sentence needs word-embedding shards that have not been added
    /// yet: their indices, in increasing order (see `Model::missing_shards`).
    MissingShards(Vec<usize>),
    /// A layer, head or token index outside the model or the sentence; the
    /// message names the index and the valid range.
    OutOfRange(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidModel(reason) => write!(f, "invalid model file: {reason}"),
            Error::TooLong { pieces, max } => write!(
                f,
                "the sentence has {pieces} pieces with [CLS] and [SEP]; the model reads at most {max}: shorten it"
            ),
            Error::OutOfRange(message) => f.write_str(message),
            Error::MissingShards(shards) => {
                let list: Vec<String> = shards.iter().map(usize::to_string).collect();
                write!(
                    f,
                    "the word vectors of this sentence are not loaded yet: embedding shard{} {} {} missing",
                    if shards.len() == 1 { "" } else { "s" },
                    list.join(", "),
                    if shards.len() == 1 { "is" } else { "are" }
                )
            }
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidModel(reason.into())
}
