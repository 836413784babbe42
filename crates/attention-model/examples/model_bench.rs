//! Measures a model folder: load time of the core and of its shards, time
//! per sentence of 12 and 128 pieces, and, given the f32 folder, the largest
//! attention-weight difference from it.
//!
//! ```text
//! scripts/build-model                                   # model/ (f16)
//! scripts/build-model /tmp/f32 --embeddings f32 --weights f32
//! cargo run --release -p attention-model --example model_bench -- model /tmp/f32
//! ```
//!
//! The differences are measured on the 36 sentences of testdata/wordpiece.json
//! plus a 128-piece paragraph, over every layer, head, query and key.

// A measuring tool run by hand on files it was told to read: stopping with a
// message is the right reaction to a bad file.
#![allow(clippy::expect_used)]

use std::time::{Duration, Instant};

use attention_model::{shard_file, Model, CORE_FILE};

const PARAGRAPH: &str = include_str!("../testdata/paragraph.txt");

fn read(path: &std::path::Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The core and every shard of a model folder, and the time to parse them
/// (files already read, so the figure is the library's, not the disk's).
fn load(dir: &str) -> (Model, Duration, Duration, usize) {
    let dir = std::path::Path::new(dir);
    let core = read(&dir.join(CORE_FILE));
    let start = Instant::now();
    let mut model = Model::from_core(&core).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let core_time = start.elapsed();
    let shards: Vec<Vec<u8>> =
        (0..model.embedding_shards()).map(|k| read(&dir.join(shard_file(k)))).collect();
    let start = Instant::now();
    for shard in &shards {
        model.add_shard(shard).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    let bytes = core.len() + shards.iter().map(Vec::len).sum::<usize>();
    (model, core_time, start.elapsed(), bytes)
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
        eprintln!("usage: bench MODEL_DIR [F32_REFERENCE_DIR]");
        std::process::exit(2);
    };
    let (model, core_time, shards_time, size) = load(path);
    println!(
        "{path}: {:.1} MB; core parsed in {:.0} ms, {} shards added in {:.0} ms",
        size as f64 / 1e6,
        core_time.as_secs_f64() * 1e3,
        model.embedding_shards(),
        shards_time.as_secs_f64() * 1e3
    );

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
        let (reference, ..) = load(reference);
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
