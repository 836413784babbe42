//! The word-level view: attention between whole words instead of pieces.
//!
//! A word is what the tokenizer cut out before WordPiece (see
//! [`Piece::word`](crate::Piece::word)): "tired" is one piece, "unaffable"
//! may be three. Between words A and B, the weight is the attention summed
//! over B's key pieces and averaged over A's query pieces, so every row still
//! sums to 1 (when nothing is dropped).

use std::ops::Range;

use crate::model::{head_block, ModelAttention};

/// One word of the sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word as written in the sentence, or `[CLS]` / `[SEP]`.
    pub text: String,
    /// Byte range in the sentence (empty for `[CLS]` and `[SEP]`).
    pub span: Range<usize>,
    /// The word's pieces, as indices into [`ModelAttention::pieces`].
    pub pieces: Range<usize>,
    /// True for `[CLS]` and `[SEP]`.
    pub special: bool,
}

/// Attention between words, for every layer and head.
#[derive(Debug, Clone, PartialEq)]
pub struct WordAttention {
    /// The words, in sentence order; `w = words.len()`.
    pub words: Vec<Word>,
    /// Layers of the model.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Shape (layers, heads, w, w), row-major: row = query word, column = key word.
    /// Rows sum to 1, except with `drop_special`, where they sum to 1 minus what
    /// the word sent to `[CLS]` and `[SEP]` (often most of it: many heads park
    /// their attention there). No renormalization, so the numbers stay the model's.
    pub weights: Vec<f32>,
}

impl WordAttention {
    /// Number of words.
    pub fn n(&self) -> usize {
        self.words.len()
    }

    /// The (w, w) weights of one head, row-major, or `None` if out of range.
    pub fn head(&self, layer: usize, head: usize) -> Option<&[f32]> {
        head_block(&self.weights, self.layers, self.heads, self.n(), layer, head)
    }
}

impl ModelAttention {
    /// Attention between whole words: summed over each key word's pieces,
    /// averaged over each query word's pieces. With `drop_special`, the
    /// `[CLS]` and `[SEP]` rows and columns are left out (see [`WordAttention::weights`]).
    pub fn words(&self, drop_special: bool) -> WordAttention {
        let mut words: Vec<Word> = Vec::new();
        for (index, piece) in self.pieces.iter().enumerate() {
            match words.last_mut() {
                Some(last) if self.pieces[last.pieces.start].word == piece.word => {
                    last.pieces.end = index + 1;
                    last.span.end = piece.span.end;
                }
                _ => words.push(Word {
                    text: String::new(),
                    span: piece.span.clone(),
                    pieces: index..index + 1,
                    special: piece.is_special(),
                }),
            }
        }
        for word in &mut words {
            word.text = if word.special {
                self.pieces[word.pieces.start].text.clone()
            } else {
                self.text.get(word.span.clone()).unwrap_or_default().to_owned()
            };
        }
        if drop_special {
            words.retain(|w| !w.special);
        }

        let (n, w) = (self.n(), words.len());
        let mut weights = vec![0f32; self.layers * self.heads * w * w];
        let heads = weights.chunks_exact_mut((w * w).max(1)).zip(self.weights.chunks_exact(n * n));
        for (out, probs) in heads.filter(|_| w > 0) {
            for (a, query) in words.iter().enumerate() {
                let share = 1.0 / query.pieces.len() as f32;
                for i in query.pieces.clone() {
                    let row = &probs[i * n..(i + 1) * n];
                    for (b, key) in words.iter().enumerate() {
                        out[a * w + b] += row[key.pieces.clone()].iter().sum::<f32>() * share;
                    }
                }
            }
        }
        WordAttention { words, layers: self.layers, heads: self.heads, weights }
    }

    /// The same pieces and heads without the `[CLS]` and `[SEP]` rows and
    /// columns. Rows are not renormalized (see [`WordAttention::weights`]).
    pub fn without_special(&self) -> ModelAttention {
        let n = self.n();
        let keep: Vec<usize> = (0..n).filter(|i| !self.pieces[*i].is_special()).collect();
        let mut weights = Vec::with_capacity(self.layers * self.heads * keep.len() * keep.len());
        for head in self.weights.chunks_exact(n * n) {
            for i in &keep {
                weights.extend(keep.iter().map(|j| head[i * n + j]));
            }
        }
        ModelAttention {
            text: self.text.clone(),
            pieces: keep.iter().map(|i| self.pieces[*i].clone()).collect(),
            weights,
            ..*self
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{ModelAttention, Piece};

    fn piece(id: u32, text: &str, span: std::ops::Range<usize>, word: usize) -> Piece {
        Piece { id, text: text.into(), span, word }
    }

    /// "cats run": [CLS] cat ##s run [SEP], one layer, one head.
    fn sample() -> ModelAttention {
        #[rustfmt::skip]
        let weights = vec![
            0.2, 0.2, 0.2, 0.2, 0.2,
            0.1, 0.3, 0.2, 0.3, 0.1,
            0.5, 0.1, 0.1, 0.2, 0.1,
            0.0, 0.6, 0.2, 0.1, 0.1,
            0.4, 0.1, 0.1, 0.1, 0.3,
        ];
        ModelAttention {
            text: "Cats run".into(),
            pieces: vec![
                piece(2, "[CLS]", 0..0, 0),
                piece(5, "cat", 0..3, 1),
                piece(9, "##s", 3..4, 1),
                piece(7, "run", 5..8, 2),
                piece(3, "[SEP]", 8..8, 3),
            ],
            layers: 1,
            heads: 1,
            weights,
        }
    }

    #[test]
    fn keys_are_summed_and_queries_averaged() {
        let words = sample().words(false);
        let texts: Vec<&str> = words.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["[CLS]", "Cats", "run", "[SEP]"]);
        assert_eq!(words.words[1].pieces, 1..3);
        let head = words.head(0, 0).unwrap();
        // "Cats" → "Cats": ((0.3 + 0.2) + (0.1 + 0.1)) / 2; "run" → "Cats": 0.6 + 0.2.
        assert!((head[4 + 1] - 0.35).abs() < 1e-6, "{head:?}");
        assert!((head[2 * 4 + 1] - 0.8).abs() < 1e-6, "{head:?}");
        for row in head.chunks_exact(4) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn dropping_special_words_keeps_the_model_numbers() {
        let words = sample().words(true);
        let texts: Vec<&str> = words.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Cats", "run"]);
        let head = words.head(0, 0).unwrap();
        assert!((head[0] - 0.35).abs() < 1e-6 && (head[1] - 0.25).abs() < 1e-6, "{head:?}");
        assert!((head[2] - 0.8).abs() < 1e-6 && (head[3] - 0.1).abs() < 1e-6, "{head:?}");
        assert_eq!(words.head(1, 0), None);
    }

    #[test]
    fn without_special_keeps_the_pieces_rows_and_columns() {
        let pieces = sample().without_special();
        let texts: Vec<&str> = pieces.pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["cat", "##s", "run"]);
        assert_eq!(pieces.n(), 3);
        #[rustfmt::skip]
        assert_eq!(pieces.head(0, 0).unwrap(), [
            0.3, 0.2, 0.3,
            0.1, 0.1, 0.2,
            0.6, 0.2, 0.1,
        ]);
    }

    #[test]
    fn a_sentence_of_only_special_pieces_has_no_words_left() {
        let mut attention = sample();
        attention.pieces = vec![attention.pieces[0].clone(), attention.pieces[4].clone()];
        attention.pieces[1].word = 1;
        attention.weights = vec![0.5; 4];
        let words = attention.words(true);
        assert!(words.words.is_empty() && words.weights.is_empty());
        assert_eq!(attention.words(false).n(), 2);
    }
}
