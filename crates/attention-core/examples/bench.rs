//! Times `analyze` on sentences of 32, 256 and 1,024 words drawn from the
//! shipped vocabulary (a measurement, not a test):
//!
//!     cargo run --release -p attention-core --example bench

use std::time::Instant;

use attention_core::{analyze, Embeddings, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/glove-6b-50d.aewv"))?;
    let embeddings = Embeddings::from_subset(&bytes)?;
    for n in [32, 256, 1024] {
        // Every 7th word of the vocabulary: a fixed, varied sentence.
        let sentence: Vec<&str> = embeddings
            .words()
            .iter()
            .skip(100)
            .step_by(7)
            .filter(|w| w.chars().all(char::is_alphabetic))
            .take(n)
            .map(String::as_str)
            .collect();
        let sentence = sentence.join(" ");
        let runs = if n >= 1024 { 10 } else { 50 };
        let mut times = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            let analysis = analyze(&sentence, &embeddings, &Options::default())?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(analysis.attention.queries, n);
        }
        times.sort_by(f64::total_cmp);
        println!("{n:>5} tokens: median {:.2} ms", times[times.len() / 2]);
    }
    Ok(())
}
