//! Bytes a sentence costs to download, for several shard sizes: the core
//! file plus the word-embedding shards its pieces touch. Needs only the
//! vocabulary, so it runs without the model:
//!
//! ```text
//! cargo run --release -p attention-model --example shard_bytes [CORE_BYTES]
//! ```
//!
//! CORE_BYTES defaults to the size of `model/minilm-core.aebm` if it exists.
//! Each cell: shards × MB per shard = MB in all (core included). The
//! figures chose 32 rows per shard (see the crate README).

#![allow(clippy::expect_used)]

use std::collections::BTreeSet;

use attention_model::format::SHARD_HEADER_BYTES;
use attention_model::WordPiece;

const HIDDEN: usize = 384;
const F16: usize = 2;

const PARAGRAPH: &str = include_str!("../testdata/paragraph.txt");
const SCIENCE: &str = include_str!("../testdata/paragraph-science.txt");

fn main() {
    let vocab: Vec<String> = include_str!("../testdata/vocab.txt").lines().map(str::to_owned).collect();
    let vocab_size = vocab.len();
    let tokenizer = WordPiece::new(vocab).expect("the committed vocabulary is valid");
    let core: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .or_else(|| {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../model/minilm-core.aebm");
            std::fs::metadata(path).ok().map(|m| m.len() as usize)
        })
        .unwrap_or(21_934_068);
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../testdata/wordpiece.json")).expect("fixture is JSON");
    let fixture_texts: Vec<String> = fixture["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["text"].as_str().map(str::to_owned))
        .collect();

    let ids = |text: &str| -> Vec<u32> { tokenizer.tokenize(text).iter().map(|p| p.id).collect() };
    // The first 126 pieces of a paragraph, between [CLS] and [SEP].
    let first_128 = |text: &str| -> Vec<u32> {
        let mut all = ids(text);
        let sep = all.pop().expect("[SEP]");
        all.truncate(127);
        all.push(sep);
        all
    };
    let samples: Vec<(String, Vec<u32>)> = vec![
        ("cat sentence".into(), ids("The cat sat on the mat because it was tired")),
        ("king sentence".into(), ids("The king and queen ruled the kingdom")),
        ("animal sentence".into(), ids("The animal didn't cross the street because it was too tired.")),
        (
            "attention sentence".into(),
            ids("Transformers use self-attention to weigh every token against every other token."),
        ),
        ("128-piece story paragraph".into(), first_128(PARAGRAPH)),
        ("128-piece science paragraph".into(), first_128(SCIENCE)),
        ("all 36 fixture sentences".into(), fixture_texts.iter().flat_map(|t| ids(t)).collect()),
    ];
    println!("core: {core} bytes; vocabulary {vocab_size}, hidden {HIDDEN}, f16");
    print!("{:<28} {:>6}", "sentence", "pieces");
    let sizes = [16usize, 32, 64, 128, 256, 512, 1024];
    for r in sizes {
        print!(" {:>16}", format!("R={r}"));
    }
    println!();
    for (name, ids) in &samples {
        print!("{name:<28} {:>6}", ids.len());
        for r in sizes {
            let shards: BTreeSet<usize> = ids.iter().map(|id| *id as usize / r).collect();
            let bytes: usize =
                shards.iter().map(|k| SHARD_HEADER_BYTES + (r.min(vocab_size - k * r)) * HIDDEN * F16).sum();
            print!(
                " {:>16}",
                format!(
                    "{}×{:.2}={:.2}MB",
                    shards.len(),
                    bytes as f64 / shards.len() as f64 / 1e6,
                    (core + bytes) as f64 / 1e6
                )
            );
        }
        println!();
    }
}
