//! `attention heads "<sentence>" --from it --to cat`: every head of the
//! trained model (all-MiniLM-L6-v2) ranked by the weight from one token to
//! another, best first, each with the one-line description of what it does
//! on this sentence (measured by `attention_model::heads`). The ranking is
//! the page's: the same function orders both.
//!
//! `--from` and `--to` take a word (case-insensitive, its first occurrence;
//! `it#2` for the second), a piece as the tokenizer writes it (`##s`,
//! `[CLS]`), or a 0-based index into the tokens `attention --model DIR
//! --json` prints. In the piece view a word of several pieces stands for its
//! first piece (said on stderr); `--words` ranks whole words.

use std::io::{self, Write};
use std::path::PathBuf;

use attention_core::error::quote;
use attention_model::heads::{HeadBehaviour, HeadMatch};
use attention_model::{HeadsView, ModelAttention, WordAttention};
use clap::Args;
use serde::Serialize;

use crate::Failure;

/// `attention heads` arguments.
#[derive(Debug, Args)]
pub struct HeadsArgs {
    /// The sentence (several arguments are joined with spaces).
    #[arg(required = true)]
    sentence: Vec<String>,
    /// The query token: a word (case-insensitive, first occurrence; `it#2` for the second),
    /// a piece such as `##s` or `[CLS]`, or a 0-based token index.
    #[arg(long, value_name = "TOKEN")]
    from: String,
    /// The key token, written like --from.
    #[arg(long, value_name = "TOKEN")]
    to: String,
    /// The model folder that scripts/build-model writes. Default: the one it wrote into the
    /// checkout this binary was built from (model/).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Whole words instead of WordPiece pieces (attention summed over a word's key pieces and
    /// averaged over its query pieces; [CLS] and [SEP] stay).
    #[arg(long)]
    words: bool,
    /// Print one JSON object: tokens, from, to, and the ranked heads.
    #[arg(long)]
    json: bool,
    /// How many heads to print, best first (--top 72 prints every head of MiniLM).
    #[arg(long, value_name = "N", default_value_t = 10, allow_negative_numbers = true)]
    top: usize,
}

/// The tokens of the chosen view, and what the ranking reads.
struct View {
    labels: Vec<String>,
    attention: ModelAttention,
    /// The sentence's words (with [CLS]/[SEP]): `--from`/`--to` name them,
    /// and with `--words` the heads are ranked over them.
    sentence_words: WordAttention,
    words: bool,
}

/// What the message for an empty sentence suggests.
const EMPTY_TIP: &str =
    "try attention heads \"The cat sat on the mat because it was tired\" --from it --to cat";

pub fn run(args: &HeadsArgs) -> Result<(), Failure> {
    let sentence = args.sentence.join(" ");
    if sentence.trim().is_empty() {
        return Err(Failure::usage(format!("the sentence is empty: {EMPTY_TIP}")));
    }
    if args.top == 0 {
        return Err(Failure::usage("--top 0 prints nothing: give 1 or more"));
    }
    let dir = crate::model::dir_of(args.model.as_deref())?;
    let model = crate::model::load(dir, &sentence)?;
    let attention = crate::model::attention_of(&model, &sentence, EMPTY_TIP)?;
    let sentence_words = attention.words(false);
    let labels = if args.words {
        sentence_words.words.iter().map(|w| w.text.clone()).collect()
    } else {
        attention.pieces.iter().map(|p| p.text.clone()).collect()
    };
    let view = View { labels, attention, sentence_words, words: args.words };
    let from = resolve(&view, &args.from, "--from")?;
    let to = resolve(&view, &args.to, "--to")?;

    let heads =
        if view.words { HeadsView::words(&view.sentence_words) } else { HeadsView::pieces(&view.attention) };
    let ranked = heads.search(from, to).map_err(|e| Failure::usage(e.to_string()))?;
    let behaviours = heads.behaviours();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = if args.json {
        write_json(&mut out, &view, from, to, &ranked, &behaviours, args.top)
    } else {
        write_text(&mut out, &view, from, to, &ranked, &behaviours, args.top)
    };
    crate::output::finish(written.and_then(|()| out.flush()))
}

/// The token index `spec` names in the view: see the module documentation.
fn resolve(view: &View, spec: &str, flag: &str) -> Result<usize, Failure> {
    let n = view.labels.len();
    if !spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()) {
        return match spec.parse::<usize>() {
            Ok(index) if index < n => Ok(index),
            _ => Err(Failure::usage(format!(
                "{flag} {spec} is out of range: the sentence has tokens 0 to {} ({})",
                n - 1,
                view.labels.join(" ")
            ))),
        };
    }
    let from_one = |word: &str| {
        Failure::usage(format!(
            "{flag} {}: occurrences count from 1 ({} is the first)",
            quote(spec),
            quote(&format!("{word}#1"))
        ))
    };
    let digits = |k: &str| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit());
    let (word, nth) = match spec.rsplit_once('#') {
        Some((word, k)) if !word.is_empty() && digits(k) => match k.parse::<usize>() {
            Ok(k) if k >= 1 => (word, k),
            // More digits than a count holds: more occurrences than any sentence has, said below.
            Err(_) => (word, usize::MAX),
            _ => return Err(from_one(word)),
        },
        // `it#-1`, as a Python reader might write the last one: not a word of the sentence.
        Some((word, k)) if !word.is_empty() && k.strip_prefix('-').is_some_and(digits) => {
            return Err(from_one(word))
        }
        _ => (spec, 1),
    };
    let wanted = word.to_lowercase();
    // Words first (what a reader types), then pieces as the tokenizer writes them.
    let sentence_words = &view.sentence_words;
    let by_word: Vec<(usize, &attention_model::Word)> = sentence_words
        .words
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.special && w.text.to_lowercase() == wanted)
        .collect();
    let by_piece: Vec<usize> =
        (0..view.attention.n()).filter(|i| view.attention.pieces[*i].text.to_lowercase() == wanted).collect();
    let found = if !by_word.is_empty() { by_word.len() } else { by_piece.len() };
    if found == 0 {
        let list: Vec<&str> =
            sentence_words.words.iter().filter(|w| !w.special).map(|w| w.text.as_str()).collect();
        return Err(Failure::usage(format!(
            "{flag} {} is not in the sentence; its words are: {}",
            quote(word),
            list.join(", ")
        )));
    }
    if nth > found {
        return Err(Failure::usage(format!(
            "{flag} {}: {} occurs {} in the sentence",
            quote(spec),
            quote(word),
            attention_core::error::counted(found, "time")
        )));
    }
    if by_word.is_empty() {
        // A piece: in the word view, the word that holds it.
        let piece = by_piece[nth - 1];
        return Ok(if view.words {
            sentence_words.words.iter().position(|w| w.pieces.contains(&piece)).unwrap_or(piece)
        } else {
            piece
        });
    }
    let (index, word) = by_word[nth - 1];
    if view.words {
        return Ok(index);
    }
    if word.pieces.len() > 1 {
        let pieces: Vec<&str> =
            view.attention.pieces[word.pieces.clone()].iter().map(|p| p.text.as_str()).collect();
        note!(
            "attention: '{}' is {} pieces ({}); {flag} uses the first, '{}' (--words ranks whole words)",
            word.text,
            pieces.len(),
            pieces.join(" "),
            pieces[0]
        );
    }
    Ok(word.pieces.start)
}

fn description<'a>(behaviours: &'a [HeadBehaviour], m: &HeadMatch) -> &'a str {
    behaviours.iter().find(|b| (b.layer, b.head) == (m.layer, m.head)).map_or("", |b| b.description.as_str())
}

fn write_text(
    out: &mut impl Write,
    view: &View,
    from: usize,
    to: usize,
    ranked: &[HeadMatch],
    behaviours: &[HeadBehaviour],
    top: usize,
) -> io::Result<()> {
    let shown = top.min(ranked.len());
    let unit = if view.words { "word" } else { "token" };
    writeln!(
        out,
        "Heads of all-MiniLM-L6-v2 ranked by the weight from '{}' ({unit} {from}) to '{}' ({unit} {to}), best first ({shown} of {}):",
        view.labels[from],
        view.labels[to],
        ranked.len()
    )?;
    writeln!(out, "layer  head  weight  what the head does on this sentence")?;
    for m in &ranked[..shown] {
        writeln!(out, "{:>5} {:>5}  {:.4}  {}", m.layer, m.head, m.weight, description(behaviours, m))?;
    }
    if shown < ranked.len() {
        writeln!(out, "(--top {} prints every head)", ranked.len())?;
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonEnd<'a> {
    index: usize,
    token: &'a str,
}

#[derive(Serialize)]
struct JsonHead<'a> {
    layer: usize,
    head: usize,
    weight: f32,
    description: &'a str,
}

#[derive(Serialize)]
struct JsonHeads<'a> {
    model: &'static str,
    tokens: &'a [String],
    from: JsonEnd<'a>,
    to: JsonEnd<'a>,
    /// Best first; at most --top of them.
    heads: Vec<JsonHead<'a>>,
}

fn write_json(
    out: &mut impl Write,
    view: &View,
    from: usize,
    to: usize,
    ranked: &[HeadMatch],
    behaviours: &[HeadBehaviour],
    top: usize,
) -> io::Result<()> {
    let json = JsonHeads {
        model: "all-MiniLM-L6-v2",
        tokens: &view.labels,
        from: JsonEnd { index: from, token: &view.labels[from] },
        to: JsonEnd { index: to, token: &view.labels[to] },
        heads: ranked
            .iter()
            .take(top)
            .map(|m| JsonHead {
                layer: m.layer,
                head: m.head,
                weight: m.weight,
                description: description(behaviours, m),
            })
            .collect(),
    };
    crate::output::write_json_line(out, &json)
}
