//! The plain-Rust side of the boundary: UTF-16 spans for JavaScript. No
//! JavaScript types here, so all of it is tested natively.

use attention_core::Token;

use crate::TokenInfo;

/// Describes `tokens` for the page. Byte spans become UTF-16 indices (what
/// `String.prototype.slice` takes); `used[r]` is the token of matrix row `r`.
/// One pass over the sentence and the tokens (a 1,024-token text asked each
/// token's offsets from the start: 12 million steps).
pub fn token_infos(sentence: &str, tokens: &[Token], used: &[usize]) -> Vec<TokenInfo> {
    let mut row_of = vec![None; tokens.len()];
    for (row, token) in used.iter().enumerate() {
        if let (Some(slot), Ok(row)) = (row_of.get_mut(*token), u32::try_from(row)) {
            *slot = Some(row);
        }
    }
    let mut utf16 = Utf16Cursor::new(sentence);
    tokens
        .iter()
        .zip(row_of)
        .map(|(t, row)| TokenInfo {
            text: t.text.clone(),
            start: utf16.index(t.span.start),
            end: utf16.index(t.span.end),
            known: t.known,
            pending: t.pending,
            row,
        })
        .collect()
}

/// UTF-16 indices of byte offsets asked in increasing order, in one pass
/// (an offset before the last one asked starts again from the beginning).
struct Utf16Cursor<'a> {
    text: &'a str,
    byte: usize,
    units: usize,
}

impl<'a> Utf16Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Utf16Cursor { text, byte: 0, units: 0 }
    }

    fn index(&mut self, byte: usize) -> u32 {
        if byte < self.byte {
            *self = Utf16Cursor::new(self.text);
        }
        for (at, c) in self.text[self.byte..].char_indices() {
            if self.byte + at >= byte {
                self.byte += at;
                return u32::try_from(self.units).unwrap_or(u32::MAX);
            }
            self.units += c.len_utf16();
        }
        self.byte = self.text.len();
        u32::try_from(self.units).unwrap_or(u32::MAX)
    }
}

/// The UTF-16 index of byte offset `byte` of `text` (clamped to the text,
/// and to the start of the character it falls in).
pub fn utf16_index(text: &str, byte: usize) -> u32 {
    Utf16Cursor::new(text).index(byte)
}

#[cfg(test)]
mod tests {
    use super::*;
    use attention_core::{analyze, Embeddings, Options};

    fn tiny() -> Embeddings {
        let glove = "king 1 0\nqueen 0.9 0.1\n= 0 1\ncafé 0.5 0.5\n";
        Embeddings::from_bytes(glove.as_bytes()).unwrap()
    }

    #[test]
    fn spans_are_utf16_indices_and_rows_skip_unknown_tokens() {
        let sentence = "😀 Café king xyz queen";
        let a = analyze(sentence, &tiny(), &Options::default()).unwrap();
        let infos = token_infos(sentence, &a.tokens, &a.used);
        let texts: Vec<&str> = infos.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["😀", "café", "king", "xyz", "queen"]);
        let utf16: Vec<u16> = sentence.encode_utf16().collect();
        let cafe = &infos[1];
        assert_eq!(String::from_utf16(&utf16[cafe.start as usize..cafe.end as usize]).unwrap(), "Café");
        assert_eq!((infos[0].start, infos[0].end), (0, 2), "an emoji is 2 units");
        let rows: Vec<Option<u32>> = infos.iter().map(|t| t.row).collect();
        assert_eq!(rows, [None, Some(0), Some(1), None, Some(2)]);
        assert!(!infos[3].known);
    }

    #[test]
    fn utf16_index_clamps_inside_characters_and_past_the_end() {
        assert_eq!(utf16_index("é!", 1), 1, "inside 'é' counts from its start");
        assert_eq!(utf16_index("é!", 2), 1);
        assert_eq!(utf16_index("é!", 99), 2);
    }
}
