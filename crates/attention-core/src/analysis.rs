//! From a sentence to attention: tokenize, look up vectors, attend.
//!
//! Unknown words are kept in [`Analysis::tokens`] (flagged, with their spans)
//! and left out of the attention, so the matrices are `(k, k)` for the `k`
//! known tokens; [`Analysis::used`] maps matrix rows back to tokens.

use crate::attention::{attend, attend_with, Attention, AttentionJob, Extras, Matrix, Options};
use crate::embeddings::Embeddings;
use crate::error::{Error, Result};
use crate::multihead::{multi_head, HeadMode, MultiHead};
use crate::tokenize::{tokenize, Token};

/// Everything the CLI and the page show for one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Every token of the sentence, known or not, in order.
    pub tokens: Vec<Token>,
    /// `used[r]` is the index in `tokens` of attention row/column `r`.
    pub used: Vec<usize>,
    /// The matrix attended over, `(n, d)`: the known tokens' vectors (Q = K = V),
    /// then, for [`analyze_padded`], zero rows of padding.
    pub input: Matrix,
    /// Self-attention over `input`.
    pub attention: Attention,
}

impl Analysis {
    /// `padding[c]`: column `c` is padding ([`analyze_padded`]), not a token.
    pub fn padding(&self) -> Vec<bool> {
        padding_flags(self.used.len(), self.input.rows())
    }

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
/// when no token is in the vocabulary ([`Error::NotLoaded`] when some could
/// not be looked up yet, in a sharded store), [`Error::InvalidOption`] for a
/// temperature out of range.
pub fn analyze(sentence: &str, embeddings: &Embeddings, options: &Options) -> Result<Analysis> {
    Ok(AnalysisJob::start(sentence, embeddings, options)?.finish())
}

/// [`analyze`] a few query rows at a time ([`AttentionJob`]): the sentence
/// is tokenized and its vectors looked up at the start, with the same
/// errors; the attention is computed by [`AnalysisJob::advance`].
#[derive(Debug, Clone)]
pub struct AnalysisJob {
    tokens: Vec<Token>,
    used: Vec<usize>,
    input: Matrix,
    attention: AttentionJob,
}

impl AnalysisJob {
    pub fn start(sentence: &str, embeddings: &Embeddings, options: &Options) -> Result<Self> {
        Self::start_with(sentence, embeddings, options, &Extras::default())
    }

    /// [`start`](AnalysisJob::start) for the weights alone
    /// ([`Extras::weights_only`]): the attention's `scores`, `scaled` and
    /// `context` stay empty, and a row's come from
    /// [`explain_row`](crate::explain::explain_row) when it is shown. The page's way.
    pub fn start_weights_only(sentence: &str, embeddings: &Embeddings, options: &Options) -> Result<Self> {
        Self::start_with(sentence, embeddings, options, &Extras { weights_only: true, ..Extras::default() })
    }

    /// [`start`](AnalysisJob::start) with [`Extras`] (weights only, the
    /// flipped twin; the others are for matrices, not sentences).
    pub fn start_with(
        sentence: &str,
        embeddings: &Embeddings,
        options: &Options,
        extras: &Extras<'_>,
    ) -> Result<Self> {
        options.validate()?;
        let (tokens, used, input) = known_rows(sentence, embeddings)?;
        let attention = AttentionJob::new(&input, &input, &input, options, extras)?;
        Ok(AnalysisJob { tokens, used, input, attention })
    }

    /// Every token of the sentence, known or not.
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// `used[r]`: the index in [`tokens`](AnalysisJob::tokens) of attention row `r`.
    pub fn used(&self) -> &[usize] {
        &self.used
    }

    /// Query rows in all, and computed so far.
    pub fn progress(&self) -> (usize, usize) {
        (self.attention.rows_done(), self.attention.rows())
    }

    /// Computes at least `rows` more query rows; returns whether all are done.
    pub fn advance(&mut self, rows: usize) -> bool {
        self.attention.advance(rows)
    }

    /// Computes what is left and returns the analysis.
    pub fn finish(self) -> Analysis {
        self.finish_with_twin().0
    }

    /// Computes what is left and returns the analysis and, for a job started
    /// with [`Extras::flipped_twin`], the same sentence's with scaling
    /// switched the other way (weights only; see [`AttentionJob::finish_with_twin`]).
    pub fn finish_with_twin(self) -> (Analysis, Option<Analysis>) {
        let (attention, twin) = self.attention.finish_with_twin();
        let twin = twin.map(|attention| Analysis {
            tokens: self.tokens.clone(),
            used: self.used.clone(),
            input: self.input.clone(),
            attention,
        });
        (Analysis { tokens: self.tokens, used: self.used, input: self.input, attention }, twin)
    }
}

/// Cross-attention between two sentences: the queries come from `tokens` of
/// sentence A, the keys and values from `key_tokens` of sentence B.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossAnalysis {
    /// Every token of sentence A (the queries).
    pub tokens: Vec<Token>,
    /// `used[r]`: the index in `tokens` of attention row `r`.
    pub used: Vec<usize>,
    /// Every token of sentence B (the keys and values).
    pub key_tokens: Vec<Token>,
    /// `used_keys[c]`: the index in `key_tokens` of attention column `c`.
    pub used_keys: Vec<usize>,
    /// A's known vectors, `(n_A, d)`: the queries.
    pub query_input: Matrix,
    /// B's known vectors, `(n_B, d)`: the keys and the values.
    pub key_input: Matrix,
    /// `(n_A, n_B)` attention of A's known tokens over B's.
    pub attention: Attention,
}

/// Attention of sentence `a`'s tokens over sentence `b`'s (cross-attention).
///
/// The self and causal masks relate a token to its own position in the same
/// sequence, so they do not apply here and are switched off; scaling and
/// temperature apply as usual.
pub fn analyze_cross(a: &str, b: &str, embeddings: &Embeddings, options: &Options) -> Result<CrossAnalysis> {
    let options = Options { self_attention: true, causal: false, ..*options };
    options.validate()?;
    let (tokens, used, query_input) = known_rows(a, embeddings)?;
    let (key_tokens, used_keys, key_input) = known_rows(b, embeddings)?;
    let attention = attend(&query_input, &key_input, &key_input, &options)?;
    Ok(CrossAnalysis { tokens, used, key_tokens, used_keys, query_input, key_input, attention })
}

/// Self-attention over the sentence padded with zero vectors to `length`
/// positions, the padding keys masked (the padding-mask demo). The result's
/// rows and columns past the known tokens are the padding.
pub fn analyze_padded(
    sentence: &str,
    embeddings: &Embeddings,
    options: &Options,
    length: usize,
) -> Result<Analysis> {
    options.validate()?;
    let (tokens, used, x) = known_rows(sentence, embeddings)?;
    let n = used.len().max(length);
    let mut data = x.as_slice().to_vec();
    data.resize(n * x.cols(), 0.0);
    let input = Matrix::new(n, x.cols(), data)?;
    let padding = padding_flags(used.len(), n);
    let extras = Extras { key_padding: Some(&padding), ..Extras::default() };
    let attention = attend_with(&input, &input, &input, options, &extras)?;
    Ok(Analysis { tokens, used, input, attention })
}

/// Multi-head attention over a sentence's known tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHeadAnalysis {
    /// Every token of the sentence, known or not.
    pub tokens: Vec<Token>,
    /// `used[r]`: the index in `tokens` of row/column `r`.
    pub used: Vec<usize>,
    /// The known tokens' vectors, `(n, d_model)`: the input of every head.
    pub input: Matrix,
    pub result: MultiHead,
}

/// Tokenizes `sentence` and runs `heads` heads of attention over its known
/// tokens (see [`multi_head`]).
pub fn analyze_multi_head(
    sentence: &str,
    embeddings: &Embeddings,
    options: &Options,
    heads: usize,
    mode: HeadMode,
) -> Result<MultiHeadAnalysis> {
    options.validate()?;
    let (tokens, used, input) = known_rows(sentence, embeddings)?;
    let result = multi_head(&input, heads, mode, options)?;
    Ok(MultiHeadAnalysis { tokens, used, input, result })
}

/// Positions `tokens..length` are padding.
fn padding_flags(tokens: usize, length: usize) -> Vec<bool> {
    (0..length).map(|c| c >= tokens).collect()
}

/// The tokens of `sentence`, which of them are known (`used`), and the known
/// tokens' vectors stacked as a `(used.len(), d)` matrix. Errors as [`analyze`].
pub fn known_rows(sentence: &str, embeddings: &Embeddings) -> Result<(Vec<Token>, Vec<usize>, Matrix)> {
    let tokens = tokenize(sentence, embeddings);
    if tokens.is_empty() {
        return Err(Error::EmptySentence);
    }
    let used: Vec<usize> = tokens.iter().enumerate().filter(|(_, t)| t.known).map(|(i, _)| i).collect();
    if used.is_empty() {
        if tokens.iter().any(|t| t.pending) {
            return Err(Error::NotLoaded {
                pending: tokens.into_iter().filter(|t| t.pending).map(|t| t.text).collect(),
            });
        }
        return Err(Error::NoKnownWords { unknown: tokens.into_iter().map(|t| t.text).collect() });
    }
    if used.len() > crate::MAX_TOKENS {
        return Err(Error::TooManyTokens { known: used.len() });
    }
    let rows: Vec<&[f32]> = used.iter().filter_map(|i| embeddings.vector(&tokens[*i].text)).collect();
    let x = Matrix::from_rows(&rows)?;
    Ok((tokens, used, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Embeddings {
        let text = "where 0.1 0.9 0.0\nis 0.5 0.5 0.1\nthe 0.3 0.3 0.3\ntower 0.9 0.1 0.2\nparis 0.8 0.2 0.6\n. 0.1 0.1 0.1\n";
        Embeddings::from_bytes(text.as_bytes()).unwrap()
    }

    #[test]
    fn cross_attention_has_a_rows_and_b_columns() {
        let c = analyze_cross("Where is the tower", "The tower is in Paris.", &tiny(), &Options::default())
            .unwrap();
        assert_eq!((c.attention.queries, c.attention.keys), (4, 5));
        let keys: Vec<&str> = c.used_keys.iter().map(|i| c.key_tokens[*i].text.as_str()).collect();
        assert_eq!(keys, ["the", "tower", "is", "paris", "."]);
        assert_eq!(c.key_tokens[3].text, "in");
        assert_eq!((c.query_input.rows(), c.key_input.rows()), (4, 5));
        assert_eq!(c.key_input.row(3), tiny().vector("paris").unwrap());
        assert!(!c.key_tokens[3].known);
        // No self or causal mask across sentences, even if asked for.
        let masked = Options { causal: true, self_attention: false, ..Options::default() };
        let c2 = analyze_cross("Where is the tower", "The tower is in Paris.", &tiny(), &masked).unwrap();
        assert_eq!(c.attention.weights, c2.attention.weights);
        assert!(c2.attention.fully_masked.iter().all(|f| !f));
    }

    #[test]
    fn padding_is_masked_as_a_key() {
        let a = analyze_padded("the tower", &tiny(), &Options::default(), 5).unwrap();
        assert_eq!((a.attention.queries, a.attention.keys), (5, 5));
        let plain = analyze("the tower", &tiny(), &Options::default()).unwrap();
        for i in 0..2 {
            assert_eq!(&a.attention.weight_row(i)[..2], plain.attention.weight_row(i));
            assert_eq!(&a.attention.weight_row(i)[2..], &[0.0, 0.0, 0.0]);
        }
        assert!(a.attention.is_masked(4, 3));
        assert_eq!(a.padding(), [false, false, true, true, true]);
        assert_eq!(a.input.row(1), tiny().vector("tower").unwrap());
        assert_eq!(a.input.row(4), [0.0; 3]);
        // A length shorter than the sentence pads nothing.
        assert_eq!(analyze_padded("the tower", &tiny(), &Options::default(), 1).unwrap().attention.keys, 2);
    }

    #[test]
    fn multi_head_over_a_sentence_keeps_its_tokens_and_vectors() {
        let e = tiny();
        let m =
            analyze_multi_head("the tower is in paris", &e, &Options::default(), 3, HeadMode::Split).unwrap();
        assert_eq!(m.used, [0, 1, 2, 4]);
        assert_eq!((m.input.rows(), m.input.cols()), (4, 3));
        assert_eq!(m.input.row(3), e.vector("paris").unwrap());
        assert_eq!(m.result.heads.len(), 3);
        assert_eq!(m.result.heads[0].queries, 4);
        let plain = analyze("the tower is in paris", &e, &Options::default()).unwrap();
        assert_eq!((plain.used, plain.input), (m.used.clone(), m.input.clone()));
        assert!(analyze_multi_head("the tower", &e, &Options::default(), 2, HeadMode::Split).is_err());
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(analyze(" ", &tiny(), &Options::default()).unwrap_err(), Error::EmptySentence);
        let err = analyze("zzz qqq", &tiny(), &Options::default()).unwrap_err();
        assert_eq!(err, Error::NoKnownWords { unknown: vec!["zzz".into(), "qqq".into()] });
        assert!(analyze_cross("the", "", &tiny(), &Options::default()).is_err());
        let long = "the ".repeat(crate::MAX_TOKENS + 1);
        let err = analyze(&long, &tiny(), &Options::default()).unwrap_err();
        assert_eq!(err, Error::TooManyTokens { known: crate::MAX_TOKENS + 1 });
        assert!(err.to_string().contains("1,025 known words") && err.to_string().contains("at most 1,024"));
        assert!(analyze(&"the ".repeat(crate::MAX_TOKENS), &tiny(), &Options::default()).is_ok());
    }
}
