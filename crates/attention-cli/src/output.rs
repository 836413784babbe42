//! The two output formats, the tutorial's text blocks and one JSON object,
//! and how printing to stdout ends.

use std::io::{self, Write};

use attention_core::Analysis;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::Failure;

/// Characters of █ for a weight of 1.
const BAR_WIDTH: f32 = 40.0;

/// A weight with 4 decimals and its bar, with no space after it when the bar is empty.
pub fn weight_and_bar(weight: f32) -> String {
    let bar = "█".repeat((weight * BAR_WIDTH).round() as usize);
    if bar.is_empty() {
        format!("{weight:.4}")
    } else {
        format!("{weight:.4} {bar}")
    }
}

/// For each query token, `Attention weights for '<token>':` and one line per
/// key token: the token, the weight with 4 decimals, and a bar ∝ the weight.
pub fn write_text(out: &mut impl Write, analysis: &Analysis) -> io::Result<()> {
    let tokens: Vec<&str> = analysis.used_tokens().map(|t| t.text.as_str()).collect();
    // Padded to the widest in terminal columns: 一 takes two, the accent of i̇ none.
    let width = tokens.iter().map(|t| t.width()).max().unwrap_or(0);
    let attention = &analysis.attention;
    for (i, query) in tokens.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "Attention weights for '{query}':")?;
        if attention.fully_masked[i] {
            writeln!(out, "  (every key is masked for this token: it attends to nothing)")?;
            continue;
        }
        for (j, key) in tokens.iter().enumerate() {
            let pad = " ".repeat(width - key.width());
            if attention.is_masked(i, j) {
                writeln!(out, "  {key}{pad}      —  (masked)")?;
                continue;
            }
            let weight = attention.weight(i, j);
            writeln!(out, "  {key}{pad} {}", crate::output::weight_and_bar(weight))?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonToken<'a> {
    text: &'a str,
    /// Byte range in the sentence, `[start, end)`.
    span: [usize; 2],
}

#[derive(Serialize)]
struct JsonOptions {
    scale: bool,
    temperature: f32,
    #[serde(rename = "self")]
    self_attention: bool,
    causal: bool,
}

#[derive(Serialize)]
struct JsonAnalysis<'a> {
    tokens: Vec<&'a str>,
    spans: Vec<[usize; 2]>,
    unknown: Vec<JsonToken<'a>>,
    options: JsonOptions,
    /// 1/√d (or 1) divided by the temperature.
    factor: f64,
    /// Row i is query token i; masked cells are 0.
    weights: Vec<&'a [f32]>,
    /// Raw dot products q·k.
    scores: Vec<&'a [f32]>,
    /// factor · scores; null where masked.
    scaled: Vec<Vec<Option<f32>>>,
    fully_masked: Vec<bool>,
}

/// One JSON object with at least `tokens` and `weights` (row i = query token i).
pub fn write_json(out: &mut impl Write, analysis: &Analysis) -> io::Result<()> {
    let a = &analysis.attention;
    let n = a.keys;
    let json = JsonAnalysis {
        tokens: analysis.used_tokens().map(|t| t.text.as_str()).collect(),
        spans: analysis.used_tokens().map(|t| [t.span.start, t.span.end]).collect(),
        unknown: analysis
            .unknown_tokens()
            .map(|t| JsonToken { text: &t.text, span: [t.span.start, t.span.end] })
            .collect(),
        options: JsonOptions {
            scale: a.options.scale,
            temperature: a.options.temperature,
            self_attention: a.options.self_attention,
            causal: a.options.causal,
        },
        factor: a.factor,
        weights: a.weights.chunks(n.max(1)).collect(),
        scores: a.scores.chunks(n.max(1)).collect(),
        scaled: (0..a.queries)
            .map(|i| (0..n).map(|j| (!a.is_masked(i, j)).then(|| a.scaled[i * n + j])).collect())
            .collect(),
        fully_masked: a.fully_masked.clone(),
    };
    write_json_line(out, &json)
}

/// `value` as one line of JSON. An error of the writer keeps its kind, so
/// that a closed pipe (`attention --json … | head -c 10`) is still seen as
/// one by [`finish`].
pub fn write_json_line(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(|e| match e.io_error_kind() {
        Some(kind) => io::Error::new(kind, e),
        None => io::Error::other(e),
    })?;
    writeln!(out)
}

/// Prints one line to stdout, as [`finish`] ends any output.
pub fn print_line(line: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    finish(writeln!(out, "{line}").and_then(|()| out.flush()))
}

/// The end of printing to stdout: a pipe closed early (`attention … | head`)
/// is not an error, any other write error is.
pub fn finish(written: io::Result<()>) -> Result<(), Failure> {
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(Failure { message: format!("cannot write the output: {e}"), code: 1 })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe whose reader has gone after `room` bytes.
    struct ClosedPipe {
        room: usize,
    }

    impl Write for ClosedPipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn json_into_a_closed_pipe_ends_quietly() {
        let rows = vec![vec![0.25f32; 64]; 64];
        let written = write_json_line(&mut ClosedPipe { room: 10 }, &rows);
        assert_eq!(written.as_ref().map_err(io::Error::kind), Err(io::ErrorKind::BrokenPipe));
        assert!(finish(written).is_ok());
        let full = finish(Err(io::ErrorKind::StorageFull.into())).unwrap_err();
        assert_eq!((full.code, full.message.starts_with("cannot write the output")), (1, true));
    }
}
