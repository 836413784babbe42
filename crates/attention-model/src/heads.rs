//! Finding heads among all of them: rank every layer × head by the weight
//! from one token to another ("which heads send 'it' to 'cat'?"), measure
//! what each head does over the sentence (previous token, next token,
//! itself, [CLS]/[SEP], other occurrences of the same word, one token that
//! every token looks at), and say it in one line. Every sentence it writes
//! comes from these measurements on the sentence at hand, with the
//! thresholds below; nothing is written by hand about a head.
//!
//! It reads a [`HeadsView`]: the pieces of a [`ModelAttention`] (with or
//! without [CLS]/[SEP]) or the words of a [`WordAttention`], with every
//! head's weights `(layers, heads, n, n)` row-major, row = query token.
//!
//! # The measures (each a share of attention in `[0, 1]`)
//! Averaged over the query rows of the sentence's own tokens (not [CLS] or
//! [SEP]; all rows if the sentence has no other token):
//! - `previous`: the weight on the nearest earlier non-special token (rows
//!   without one are left out; `None` if no row has one);
//! - `next`: the same, on the nearest later one;
//! - `itself`: the weight on the query token itself;
//! - `special`: the weight on [CLS] and [SEP], plus what a row misses of 1
//!   (a view without them: what the row sent there);
//! - `same_word`: the weight on the other occurrences of the query's word
//!   (compared lowercased; rows whose word occurs once are left out; `None`
//!   when no word of the sentence repeats: the measure does not apply);
//! - `focus`: the one non-special token that the *other* tokens attend to
//!   most, and their mean weight on it (`None` with fewer than 2 tokens);
//! - `peak`: the largest weight of a row, averaged over the rows.
//!
//! # The sentence
//! The largest of the six pattern measures names the head when it reaches,
//! rounded to the whole percent the sentence prints,
//! [`STRONG_SHARE`] ("62% of attention on the previous token", "mostly
//! [CLS]/[SEP] (81%)") or [`LEANING_SHARE`] ("leans to the next token
//! (34%)"); ties go to the first of previous, next, itself, special, same
//! word, focus. Otherwise the head has no common pattern: it is "sharp" when
//! `peak` reaches [`SHARP_PEAK`] (each token looks at one token, not the same
//! one), else "broad: no position pattern (max 18%)", the 18% being `peak`.

use crate::error::{Error, Result};
use crate::model::ModelAttention;
use crate::rollout::{rollout, Rollout};
use crate::words::WordAttention;

/// A pattern holding at least this share of the attention (on average over
/// the sentence) is what the head does: "62% of attention on …".
pub const STRONG_SHARE: f32 = 0.5;
/// A pattern holding at least this share, but less than [`STRONG_SHARE`], is
/// a leaning: "leans to … (34%)".
pub const LEANING_SHARE: f32 = 0.3;
/// Without a pattern, rows whose largest weight is at least this on average
/// are "sharp" (each token picks one token), below it "broad".
pub const SHARP_PEAK: f32 = 0.5;

/// One token of a [`HeadsView`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewToken {
    /// As shown: the piece (`"cat"`, `"##s"`, `"[CLS]"`) or the word as written.
    pub label: String,
    /// The word it belongs to, lowercased: what "the same word" compares.
    pub word: String,
    /// Which word of the sentence it belongs to: two tokens with the same
    /// `word` and different `occurrence` are two occurrences of one word.
    pub occurrence: usize,
    /// `[CLS]` or `[SEP]`.
    pub special: bool,
}

/// Tokens and every head's weights: what head search and the measures read.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadsView<'a> {
    /// The tokens, `n = tokens.len()`.
    pub tokens: Vec<ViewToken>,
    /// Layers of the model.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// `(layers, heads, n, n)` row-major: row = query token, column = key token.
    pub weights: &'a [f32],
}

/// A head and a number: its weight from the query to the key in a search,
/// or its measure in a ranking by behaviour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadMatch {
    /// The layer, counted from 0.
    pub layer: usize,
    /// The head, counted from 0.
    pub head: usize,
    /// The weight (search) or the measure (ranking by behaviour).
    pub weight: f32,
}

/// What a head can be ranked by; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Attention to the previous token.
    Previous,
    /// Attention to the next token.
    Next,
    /// Attention to the token itself.
    Itself,
    /// Attention to [CLS] and [SEP].
    Special,
    /// Attention to other occurrences of the same word.
    SameWord,
    /// Attention of the other tokens to one token.
    Focus,
}

impl Pattern {
    /// Every pattern, in the order that breaks ties.
    pub const ALL: [Pattern; 6] = [
        Pattern::Previous,
        Pattern::Next,
        Pattern::Itself,
        Pattern::Special,
        Pattern::SameWord,
        Pattern::Focus,
    ];

    /// The name used by the CLI and the page: `previous`, `next`, `self`,
    /// `special`, `same-word`, `focus`.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Previous => "previous",
            Pattern::Next => "next",
            Pattern::Itself => "self",
            Pattern::Special => "special",
            Pattern::SameWord => "same-word",
            Pattern::Focus => "focus",
        }
    }

    /// The pattern of a [`Pattern::name`].
    pub fn from_name(name: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The token that the other tokens attend to most, in one head.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Focus {
    /// Its index in the view.
    pub token: usize,
    /// The other tokens' mean weight on it.
    pub share: f32,
}

/// What one head does on the sentence, measured; see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadBehaviour {
    /// The layer, counted from 0.
    pub layer: usize,
    /// The head, counted from 0.
    pub head: usize,
    /// Mean weight on the previous token; `None` if no token has one.
    pub previous: Option<f32>,
    /// Mean weight on the next token; `None` if no token has one.
    pub next: Option<f32>,
    /// Mean weight on the token itself.
    pub itself: f32,
    /// Mean weight on [CLS] and [SEP].
    pub special: f32,
    /// Mean weight on other occurrences of the same word; `None` when no
    /// word of the sentence repeats.
    pub same_word: Option<f32>,
    /// The token the others attend to most; `None` with fewer than 2 tokens.
    pub focus: Option<Focus>,
    /// The largest weight of a row, on average.
    pub peak: f32,
    /// The pattern the description names, if one reaches [`LEANING_SHARE`].
    pub pattern: Option<Pattern>,
    /// One line, measured on this sentence: "62% of attention on the previous token".
    pub description: String,
}

impl HeadBehaviour {
    /// The measure of `pattern`, `None` where it does not apply.
    pub fn measure(&self, pattern: Pattern) -> Option<f32> {
        match pattern {
            Pattern::Previous => self.previous,
            Pattern::Next => self.next,
            Pattern::Itself => Some(self.itself),
            Pattern::Special => Some(self.special),
            Pattern::SameWord => self.same_word,
            Pattern::Focus => self.focus.map(|f| f.share),
        }
    }
}

impl<'a> HeadsView<'a> {
    /// The pieces of `attention`, [CLS] and [SEP] included if it has them.
    pub fn pieces(attention: &'a ModelAttention) -> Self {
        // A piece's word: the pieces with its `word` index are contiguous.
        let pieces = &attention.pieces;
        let tokens = pieces
            .iter()
            .map(|piece| {
                let same = |p: &&crate::Piece| p.word == piece.word;
                let start = pieces.iter().find(same).map_or(piece.span.start, |p| p.span.start);
                let end = pieces.iter().rev().find(same).map_or(piece.span.end, |p| p.span.end);
                let special = piece.is_special();
                let word = if special {
                    piece.text.clone()
                } else {
                    attention.text.get(start..end).unwrap_or_default().to_lowercase()
                };
                ViewToken { label: piece.text.clone(), word, occurrence: piece.word, special }
            })
            .collect();
        HeadsView { tokens, layers: attention.layers, heads: attention.heads, weights: &attention.weights }
    }

    /// The words of `words`, [CLS] and [SEP] included if it has them.
    pub fn words(words: &'a WordAttention) -> Self {
        let tokens = words
            .words
            .iter()
            .enumerate()
            .map(|(index, w)| ViewToken {
                label: w.text.clone(),
                word: w.text.to_lowercase(),
                occurrence: index,
                special: w.special,
            })
            .collect();
        HeadsView { tokens, layers: words.layers, heads: words.heads, weights: &words.weights }
    }

    /// Number of tokens.
    pub fn n(&self) -> usize {
        self.tokens.len()
    }

    /// The `(n, n)` block of one head (empty if the weights are short).
    fn head(&self, layer: usize, head: usize) -> &[f32] {
        crate::model::head_block(self.weights, self.layers, self.heads, self.n(), layer, head)
            .unwrap_or_default()
    }

    fn check_token(&self, index: usize, role: &str) -> Result<()> {
        if index >= self.n() {
            return Err(Error::OutOfRange(format!(
                "the {role} token {index} does not exist: the sentence has tokens 0 to {}",
                self.n().saturating_sub(1)
            )));
        }
        Ok(())
    }

    /// Every layer × head ranked by the weight from token `query` to token
    /// `key`, best first; equal weights by layer, then head.
    pub fn search(&self, query: usize, key: usize) -> Result<Vec<HeadMatch>> {
        self.check_token(query, "query")?;
        self.check_token(key, "key")?;
        let n = self.n();
        let mut matches: Vec<HeadMatch> = (0..self.layers)
            .flat_map(|layer| (0..self.heads).map(move |head| (layer, head)))
            .map(|(layer, head)| HeadMatch {
                layer,
                head,
                weight: self.head(layer, head).get(query * n + key).copied().unwrap_or(0.0),
            })
            .collect();
        sort_best_first(&mut matches);
        Ok(matches)
    }

    /// The measures and the one-line description of every head, in layer
    /// then head order.
    pub fn behaviours(&self) -> Vec<HeadBehaviour> {
        // Which tokens are other occurrences of each token's word: the same for every head.
        let others: Vec<Vec<usize>> = (0..self.n()).map(|i| self.other_occurrences(i)).collect();
        (0..self.layers)
            .flat_map(|layer| (0..self.heads).map(move |head| (layer, head)))
            .map(|(layer, head)| self.behaviour(layer, head, &others))
            .collect()
    }

    /// True when a word of the sentence occurs more than once, so that
    /// [`Pattern::SameWord`] applies.
    pub fn has_repeated_words(&self) -> bool {
        (0..self.n()).any(|i| !self.other_occurrences(i).is_empty())
    }

    /// Attention rollout and head average of every layer (see [`crate::rollout`]).
    pub fn rollout(&self) -> Rollout {
        rollout(self.weights, self.layers, self.heads, self.n())
    }

    /// The query rows the measures average over.
    fn query_rows(&self) -> Vec<usize> {
        let plain: Vec<usize> = (0..self.n()).filter(|i| !self.tokens[*i].special).collect();
        if plain.is_empty() {
            (0..self.n()).collect()
        } else {
            plain
        }
    }

    fn other_occurrences(&self, i: usize) -> Vec<usize> {
        let t = &self.tokens[i];
        (0..self.n())
            .filter(|j| {
                let u = &self.tokens[*j];
                !u.special && !t.special && u.word == t.word && u.occurrence != t.occurrence
            })
            .collect()
    }

    /// The measures of one head; `others[i]`: the other occurrences of token i's word.
    fn behaviour(&self, layer: usize, head: usize, others: &[Vec<usize>]) -> HeadBehaviour {
        let (n, weights) = (self.n(), self.head(layer, head));
        let at = |i: usize, j: usize| weights.get(i * n + j).copied().unwrap_or(0.0);
        let rows = self.query_rows();
        let plain = |j: &usize| !self.tokens[*j].special;
        let previous = mean(rows.iter().filter_map(|&i| (0..i).rev().find(plain).map(|p| at(i, p))));
        let next = mean(rows.iter().filter_map(|&i| (i + 1..n).find(plain).map(|p| at(i, p))));
        let itself = mean(rows.iter().map(|&i| at(i, i))).unwrap_or(0.0);
        let special = mean(rows.iter().map(|&i| {
            let row = weights.get(i * n..(i + 1) * n).unwrap_or_default();
            let to_special: f32 = (0..n).filter(|j| self.tokens[*j].special).map(|j| row[j]).sum();
            to_special + (1.0 - row.iter().sum::<f32>()).max(0.0)
        }))
        .unwrap_or(0.0);
        let same_word = mean(rows.iter().filter_map(|&i| {
            let others = others.get(i).map_or(&[][..], Vec::as_slice);
            (!others.is_empty()).then(|| others.iter().map(|&j| at(i, j)).sum())
        }));
        let focus = (0..n)
            .filter(plain)
            .filter_map(|j| {
                mean(rows.iter().filter(|&&i| i != j).map(|&i| at(i, j)))
                    .map(|share| Focus { token: j, share })
            })
            .fold(None, |best: Option<Focus>, f| match best {
                Some(b) if b.share >= f.share => Some(b),
                _ => Some(f),
            });
        let peak = mean(rows.iter().map(|&i| {
            weights.get(i * n..(i + 1) * n).unwrap_or_default().iter().fold(0f32, |m, w| m.max(*w))
        }))
        .unwrap_or(0.0);
        let mut behaviour = HeadBehaviour {
            layer,
            head,
            previous,
            next,
            itself,
            special,
            same_word,
            focus,
            peak,
            pattern: None,
            description: String::new(),
        };
        let strongest = Pattern::ALL.into_iter().filter_map(|p| behaviour.measure(p).map(|m| (p, m))).fold(
            None,
            |best: Option<(Pattern, f32)>, (p, m)| match best {
                Some((_, b)) if b >= m => best,
                _ => Some((p, m)),
            },
        );
        let (pattern, description) = match strongest {
            Some((p, share)) if whole_percent(share) >= LEANING_SHARE => {
                (Some(p), self.describe(p, share, focus))
            }
            _ if whole_percent(peak) >= SHARP_PEAK => (
                None,
                format!("sharp, no common pattern: each token's top key gets {} on average", percent(peak)),
            ),
            _ => (None, format!("broad: no position pattern (max {})", percent(peak))),
        };
        behaviour.pattern = pattern;
        behaviour.description = description;
        behaviour
    }

    fn describe(&self, pattern: Pattern, share: f32, focus: Option<Focus>) -> String {
        let p = percent(share);
        let target = match pattern {
            Pattern::Previous => "the previous token".to_owned(),
            Pattern::Next => "the next token".to_owned(),
            Pattern::Itself => "itself".to_owned(),
            Pattern::Special => "[CLS]/[SEP]".to_owned(),
            Pattern::SameWord => "other occurrences of the same word".to_owned(),
            Pattern::Focus => {
                let label = focus.and_then(|f| self.tokens.get(f.token)).map_or("", |t| t.label.as_str());
                format!("'{label}'")
            }
        };
        match (pattern, whole_percent(share) >= STRONG_SHARE) {
            (Pattern::Special, true) => format!("mostly [CLS]/[SEP] ({p})"),
            (Pattern::Focus, true) => format!("{p} of the other tokens' attention on {target}"),
            (Pattern::Focus, false) => format!("leans to {target} ({p} of the other tokens' attention)"),
            (_, true) => format!("{p} of attention on {target}"),
            (_, false) => format!("leans to {target} ({p})"),
        }
    }
}

/// The heads ranked by one measure, best first, equal measures by layer
/// then head; `None` when the measure applies to no head on this sentence
/// (same word without a repeated word).
pub fn rank_by(behaviours: &[HeadBehaviour], pattern: Pattern) -> Option<Vec<HeadMatch>> {
    let mut ranked: Vec<HeadMatch> = behaviours
        .iter()
        .filter_map(|b| b.measure(pattern).map(|weight| HeadMatch { layer: b.layer, head: b.head, weight }))
        .collect();
    if ranked.is_empty() {
        return None;
    }
    sort_best_first(&mut ranked);
    Some(ranked)
}

fn sort_best_first(matches: &mut [HeadMatch]) {
    matches
        .sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.layer.cmp(&b.layer)).then(a.head.cmp(&b.head)));
}

fn mean(values: impl Iterator<Item = f32>) -> Option<f32> {
    let (sum, count) = values.fold((0f64, 0usize), |(s, c), v| (s + f64::from(v), c + 1));
    (count > 0).then(|| (sum / count as f64) as f32)
}

/// The share as the sentence prints it, rounded to a whole percent: the
/// thresholds are compared with this, so that "leans to … (50%)" never
/// appears beside a 50% threshold.
fn whole_percent(share: f32) -> f32 {
    (share * 100.0).round() / 100.0
}

fn percent(share: f32) -> String {
    format!("{:.0}%", share * 100.0)
}

impl ModelAttention {
    /// [`HeadsView::search`] over the pieces.
    pub fn search_heads(&self, query: usize, key: usize) -> Result<Vec<HeadMatch>> {
        HeadsView::pieces(self).search(query, key)
    }

    /// [`HeadsView::behaviours`] over the pieces.
    pub fn head_behaviours(&self) -> Vec<HeadBehaviour> {
        HeadsView::pieces(self).behaviours()
    }

    /// [`HeadsView::rollout`] over the pieces.
    pub fn rollout(&self) -> Rollout {
        HeadsView::pieces(self).rollout()
    }
}

impl WordAttention {
    /// [`HeadsView::search`] over the words.
    pub fn search_heads(&self, query: usize, key: usize) -> Result<Vec<HeadMatch>> {
        HeadsView::words(self).search(query, key)
    }

    /// [`HeadsView::behaviours`] over the words.
    pub fn head_behaviours(&self) -> Vec<HeadBehaviour> {
        HeadsView::words(self).behaviours()
    }

    /// [`HeadsView::rollout`] over the words.
    pub fn rollout(&self) -> Rollout {
        HeadsView::words(self).rollout()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::Piece;

    /// "[CLS] the cat saw the dog [SEP]" with one layer of hand-made heads,
    /// each built from a rule over (query, key).
    fn sentence(heads: &[&dyn Fn(usize, usize) -> f32]) -> ModelAttention {
        sentence_of("the cat saw the dog", heads)
    }

    fn sentence_of(text: &str, heads: &[&dyn Fn(usize, usize) -> f32]) -> ModelAttention {
        let mut pieces = vec![Piece { id: 1, text: "[CLS]".into(), span: 0..0, word: 0 }];
        let mut at = 0;
        for (w, word) in text.split(' ').enumerate() {
            pieces.push(Piece {
                id: 10 + w as u32,
                text: word.into(),
                span: at..at + word.len(),
                word: w + 1,
            });
            at += word.len() + 1;
        }
        pieces.push(Piece { id: 2, text: "[SEP]".into(), span: text.len()..text.len(), word: 6 });
        let n = pieces.len();
        let mut weights = Vec::new();
        for rule in heads {
            for i in 0..n {
                let row: Vec<f32> = (0..n).map(|j| rule(i, j)).collect();
                let sum: f32 = row.iter().sum();
                weights.extend(row.iter().map(|w| w / sum));
            }
        }
        ModelAttention { text: text.into(), pieces, layers: 1, heads: heads.len(), weights }
    }

    fn previous(i: usize, j: usize) -> f32 {
        if j + 1 == i {
            7.0
        } else {
            0.5
        }
    }

    fn to_cls(_: usize, j: usize) -> f32 {
        if j == 0 {
            9.0
        } else {
            0.2
        }
    }

    fn flat(_: usize, _: usize) -> f32 {
        1.0
    }

    fn to_cat(_: usize, j: usize) -> f32 {
        if j == 2 {
            8.0
        } else {
            0.3
        }
    }

    #[test]
    fn search_ranks_every_head_by_the_weight_best_first() {
        let attention = sentence(&[&flat, &to_cat, &previous, &flat]);
        // "dog" (5) → "cat" (2).
        let ranked = attention.search_heads(5, 2).unwrap();
        let order: Vec<usize> = ranked.iter().map(|m| m.head).collect();
        assert_eq!(order, [1, 0, 3, 2], "equal weights (heads 0 and 3) by head: {ranked:?}");
        let n = attention.n();
        assert_eq!(ranked[0].weight, attention.head(0, 1).unwrap()[5 * n + 2]);
        let err = attention.search_heads(7, 2).unwrap_err().to_string();
        assert!(err.contains("query token 7") && err.contains("tokens 0 to 6"), "{err}");
    }

    #[test]
    fn descriptions_come_from_the_measures() {
        let attention = sentence(&[&previous, &to_cls, &flat, &to_cat]);
        let b = attention.head_behaviours();
        // "the cat saw the dog": every word but the first has a previous word.
        // previous: 7 / (7 + 6·0.5) = 0.7 per row.
        assert!((b[0].previous.unwrap() - 0.7).abs() < 1e-6, "{:?}", b[0]);
        assert_eq!(b[0].pattern, Some(Pattern::Previous));
        assert_eq!(b[0].description, "70% of attention on the previous token");
        // [CLS]: 9 / (9 + 6·0.2) = 0.882.
        assert_eq!(b[1].pattern, Some(Pattern::Special));
        assert_eq!(b[1].description, "mostly [CLS]/[SEP] (90%)");
        // Flat: 1/7 everywhere; "the" occurs twice, so the same word applies.
        assert_eq!(b[2].pattern, None);
        assert_eq!(b[2].description, "broad: no position pattern (max 14%)");
        assert!((b[2].same_word.unwrap() - 1.0 / 7.0).abs() < 1e-6);
        // Every token sends 8 / (8 + 6·0.3) = 0.816 to "cat".
        assert_eq!(b[3].focus.map(|f| f.token), Some(2));
        assert_eq!(b[3].description, "82% of the other tokens' attention on 'cat'");
    }

    #[test]
    fn views_without_special_tokens_count_what_their_rows_miss_as_special() {
        let attention = sentence(&[&to_cls, &previous]);
        let full = attention.head_behaviours();
        for view in [attention.without_special().head_behaviours(), attention.words(true).head_behaviours()] {
            assert!((view[0].special - full[0].special).abs() < 1e-6, "{:?} vs {:?}", view[0], full[0]);
            assert_eq!(view[0].description, full[0].description);
            // The previous-token head loses the first word's [CLS] but stays what it is.
            assert_eq!(view[1].pattern, Some(Pattern::Previous));
        }
        // Whole words with [CLS]/[SEP]: one piece per word, the same numbers as the pieces.
        assert_eq!(attention.words(false).head_behaviours(), full);
    }

    #[test]
    fn same_word_applies_only_when_a_word_repeats() {
        let repeated = sentence(&[&flat]);
        assert!(HeadsView::pieces(&repeated).has_repeated_words());
        let once = sentence_of("The cat saw a dog", &[&flat, &to_cat]);
        assert!(!HeadsView::pieces(&once).has_repeated_words());
        let b = once.head_behaviours();
        assert!(b.iter().all(|h| h.same_word.is_none()));
        assert_eq!(rank_by(&b, Pattern::SameWord), None);
        // "The" and "the" are one word: case does not count.
        let cased = sentence_of("The cat saw the dog", &[&flat]);
        assert!(HeadsView::pieces(&cased).has_repeated_words());
    }

    #[test]
    fn ranking_by_a_measure_is_best_first_then_layer_then_head() {
        let attention = sentence(&[&flat, &previous, &to_cls, &previous]);
        let ranked = rank_by(&attention.head_behaviours(), Pattern::Previous).unwrap();
        let order: Vec<usize> = ranked.iter().map(|m| m.head).collect();
        assert_eq!(order, [1, 3, 0, 2]);
        assert!((ranked[0].weight - 0.7).abs() < 1e-6);
        assert_eq!(Pattern::from_name("same-word"), Some(Pattern::SameWord));
        assert!(Pattern::ALL.iter().all(|p| Pattern::from_name(p.name()) == Some(*p)));
    }

    #[test]
    fn leaning_and_sharp_heads_say_so() {
        // 3 on the next token against 6 × 1: 3/9 = 33%.
        let next = |i: usize, j: usize| if j == i + 1 { 3.0 } else { 1.0 };
        // Each word on a different word, two on (wrapping among the 5 words): sharp, no pattern.
        let scattered =
            |i: usize, j: usize| if (1..=5).contains(&i) && j == 1 + (i + 1) % 5 { 30.0 } else { 1.0 };
        // (No repeated word here: "the" → "the" would be a same-word pattern.)
        let b = sentence_of("the cat saw a dog", &[&next, &scattered]).head_behaviours();
        assert_eq!(b[0].description, "leans to the next token (33%)");
        assert_eq!(b[1].pattern, None);
        assert_eq!(b[1].description, "sharp, no common pattern: each token's top key gets 83% on average");
    }
}
