//! From a sentence to attention: tokenize, look up vectors, attend.
//!
//! Unknown words are kept in [`Analysis::tokens`] (flagged, with their spans)
//! and left out of the attention, so the matrices are `(k, k)` for the `k`
//! known tokens; [`Analysis::used`] maps matrix rows back to tokens.

use crate::attention::{self_attention, Attention, Matrix, Options};
use crate::embeddings::Embeddings;
use crate::error::{Error, Result};
use crate::tokenize::{tokenize, Token};

/// Everything the CLI and the page show for one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Every token of the sentence, known or not, in order.
    pub tokens: Vec<Token>,
    /// `used[r]` is the index in `tokens` of attention row/column `r`.
    pub used: Vec<usize>,
    /// Self-attention over the known tokens, with their raw vectors as Q = K = V.
    pub attention: Attention,
}

impl Analysis {
    /// The tokens that take part in the attention, in matrix order.
    pub fn used_tokens(&self) -> impl Iterator<Item = &Token> {
        self.used.iter().map(|i| &self.tokens[*i])
    }

    /// The tokens left out because the vocabulary lacks them.
    pub fn unknown_tokens(&self) -> impl Iterator<Item = &Token> {
        self.tokens.iter().filter(|t| !t.known)
    }
}

/// Tokenizes `sentence`, looks up every known token and computes
/// self-attention with `options`.
///
/// Errors: [`Error::EmptySentence`] for blank input, [`Error::NoKnownWords`]
/// when no token is in the vocabulary, [`Error::InvalidOption`] for a
/// temperature out of range.
pub fn analyze(sentence: &str, embeddings: &Embeddings, options: &Options) -> Result<Analysis> {
    options.validate()?;
    let tokens = tokenize(sentence, embeddings);
    if tokens.is_empty() {
        return Err(Error::EmptySentence);
    }
    let used: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.known)
        .map(|(i, _)| i)
        .collect();
    if used.is_empty() {
        return Err(Error::NoKnownWords {
            unknown: tokens.into_iter().map(|t| t.text).collect(),
        });
    }
    let rows: Vec<&[f32]> = used
        .iter()
        .filter_map(|i| embeddings.vector(&tokens[*i].text))
        .collect();
    let x = Matrix::from_rows(&rows)?;
    let attention = self_attention(&x, options)?;
    Ok(Analysis {
        tokens,
        used,
        attention,
    })
}
