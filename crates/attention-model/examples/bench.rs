//! Measures a model file: load time, time per sentence of 12 and 128 pieces,
//! and, given the f32 file, the largest attention-weight difference from it.
//!
//! ```text
//! scripts/build-model                                   # model/all-minilm-l6-v2.aebm (f16)
//! scripts/build-model /tmp/f32 --embeddings f32 --weights f32
//! cargo run --release -p attention-model --example bench -- \
//!     model/all-minilm-l6-v2.aebm /tmp/f32/all-minilm-l6-v2.aebm
//! ```
//!
//! The differences are measured on the 36 sentences of testdata/wordpiece.json
//! plus a 128-piece paragraph, over every layer, head, query and key.

// A measuring tool run by hand on files it was told to read: stopping with a
// message is the right reaction to a bad file.
#![allow(clippy::expect_used)]

use std::time::{Duration, Instant};

use attention_model::Model;

const PARAGRAPH: &str = "The old lighthouse keeper climbed the narrow stairs every evening, \
    carrying a small lamp and a notebook in which he recorded the weather, the ships that passed, \
    and the birds that rested on the railing. One stormy night in November, a fishing boat lost \
    its way near the rocks, and the keeper, who had watched the sea for forty years, signalled \
    with his lamp until the crew found the harbour. The next morning the whole village came to \
    thank him, but he only smiled, said that the light had done the work, and went back up the \
    stairs to write down the wind, the waves and the names of the sailors who had come home safely.";

fn load(path: &str) -> Model {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time_run(model: &Model, ids: &[u32], runs: usize) -> Duration {
    let times = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(model.run(ids).expect("fits the model"));
            start.elapsed()
        })
        .collect();
    median(times)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: bench MODEL_FILE [F32_REFERENCE_FILE]");
        std::process::exit(2);
    };
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let start = Instant::now();
    let model = load(path);
    println!("{path}: {:.1} MB, loaded in {:.0} ms", size as f64 / 1e6, start.elapsed().as_secs_f64() * 1e3);

    let short: Vec<u32> =
        model.tokenize("The cat sat on the mat because it was tired").iter().map(|p| p.id).collect();
    let mut long: Vec<u32> = model.tokenize(PARAGRAPH).iter().map(|p| p.id).collect();
    assert!(long.len() >= 128, "the paragraph has {} pieces", long.len());
    let sep = long[long.len() - 1];
    long.truncate(127);
    long.push(sep);
    for (ids, runs) in [(&short, 50), (&long, 10)] {
        let t = time_run(&model, ids, runs);
        println!("{:>3} pieces: {:.1} ms per sentence (median of {runs})", ids.len(), t.as_secs_f64() * 1e3);
    }

    if let Some(reference) = args.get(1) {
        let reference = load(reference);
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../testdata/wordpiece.json")).expect("fixture is JSON");
        let mut texts: Vec<String> = fixture["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .filter_map(|c| c["text"].as_str().map(str::to_owned))
            .collect();
        texts.push(PARAGRAPH.to_owned());
        let (mut worst, mut worst_text, mut pieces) = (0f32, String::new(), 0);
        for text in &texts {
            let (Ok(a), Ok(b)) = (model.attention(text), reference.attention(text)) else { continue };
            pieces += a.n();
            let diff = a.weights.iter().zip(&b.weights).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
            if diff > worst {
                (worst, worst_text) = (diff, text.clone());
            }
        }
        println!(
            "largest attention-weight difference from the reference over {} sentences ({pieces} pieces): {worst:.5} (in {:?})",
            texts.len(),
            worst_text.chars().take(60).collect::<String>()
        );
    }
}
