//! The plain-Rust side of the boundary: UTF-16 spans for JavaScript and the
//! CSV export. No JavaScript types here, so all of it is
//! tested natively.

use attention_core::{Attention, Token};

use crate::TokenInfo;

/// Describes `tokens` for the page. Byte spans become UTF-16 indices (what
/// `String.prototype.slice` takes); `used[r]` is the token of matrix row `r`.
pub fn token_infos(sentence: &str, tokens: &[Token], used: &[usize]) -> Vec<TokenInfo> {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| TokenInfo {
            text: t.text.clone(),
            start: utf16_index(sentence, t.span.start),
            end: utf16_index(sentence, t.span.end),
            known: t.known,
            pending: t.pending,
            row: used.iter().position(|u| *u == i).and_then(|r| u32::try_from(r).ok()),
        })
        .collect()
}

/// The UTF-16 index of byte offset `byte` of `text` (clamped to the text,
/// and to the start of the character it falls in).
pub fn utf16_index(text: &str, byte: usize) -> u32 {
    let mut units = 0usize;
    for (at, c) in text.char_indices() {
        if at >= byte {
            break;
        }
        units += c.len_utf16();
    }
    u32::try_from(units).unwrap_or(u32::MAX)
}

/// The weights as CSV (RFC 4180): a header `query \ key` and the key
/// tokens, then one line per query token with its weights to 6 decimals;
/// masked cells are left empty.
///
/// Tokens are always quoted, and a token that a spreadsheet would read as
/// a formula (starting with `=`, `+`, `-`, `@`) gets a leading `'`, so that
/// opening the file never runs anything.
pub fn weights_csv(labels: &[String], attention: &Attention) -> String {
    weights_csv_labelled(labels, labels, attention)
}

/// [`weights_csv`] with rows and columns labelled apart (cross-attention:
/// the queries of one sentence, the keys of another).
pub fn weights_csv_labelled(rows: &[String], cols: &[String], attention: &Attention) -> String {
    let n = attention.keys;
    let mut out = String::from("\"query \\ key\"");
    for label in cols.iter().take(n) {
        out.push(',');
        out.push_str(&csv_field(label));
    }
    out.push_str("\r\n");
    for (i, label) in rows.iter().enumerate().take(attention.queries) {
        out.push_str(&csv_field(label));
        for j in 0..n {
            out.push(',');
            if !attention.is_masked(i, j) {
                out.push_str(&format!("{:.6}", attention.weight(i, j)));
            }
        }
        out.push_str("\r\n");
    }
    out
}

fn csv_field(text: &str) -> String {
    let guard = if text.starts_with(['=', '+', '-', '@']) { "'" } else { "" };
    format!("\"{guard}{}\"", text.replace('"', "\"\""))
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

    #[test]
    fn csv_has_a_header_quoted_tokens_and_empty_masked_cells() {
        let opts = Options { self_attention: false, ..Options::default() };
        let a = analyze("king = queen", &tiny(), &opts).unwrap();
        let labels: Vec<String> = a.used_tokens().map(|t| t.text.clone()).collect();
        let csv = weights_csv(&labels, &a.attention);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], "\"query \\ key\",\"king\",\"'=\",\"queen\"");
        assert!(lines[1].starts_with("\"king\",,0."), "{}", lines[1]);
        let cells: Vec<&str> = lines[2].split(',').collect();
        assert_eq!(cells[0], "\"'=\"");
        assert_eq!(cells[2], "", "self is masked");
        let sum: f64 = cells[1..].iter().filter(|c| !c.is_empty()).map(|c| c.parse::<f64>().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-5);
        assert_eq!(lines.len(), 5, "3 rows, a header and the final empty piece");
    }

    #[test]
    fn quotes_in_tokens_are_doubled() {
        assert_eq!(csv_field("a\"b"), "\"a\"\"b\"");
        assert_eq!(csv_field("-"), "\"'-\"");
    }
}
