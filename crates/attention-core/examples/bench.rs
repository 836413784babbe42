//! Times the attention kernel (`self_attention` with the page's settings:
//! Q = K = V, d = 50, scaled) on 32, 256 and 1,024 tokens of seeded random
//! vectors of GloVe-like scale (a measurement, not a test; no data file):
//!
//!     cargo run --release -p attention-core --example bench
//!     cargo run --release -p attention-core --example bench -- 1024 --runs 1
//!     cargo run --release -p attention-core --example bench -- --dump 256 FILE
//!     cargo run --release -p attention-core --example bench -- 1024 --weights-only
//!
//! It prints the median wall-clock time of a run and the mean time on CPU.
//! Token counts and `--runs N` are optional; one run per size suits
//! `valgrind --tool=callgrind`. `--weights-only` times the page's kernel,
//! which keeps the weights alone (`Extras::weights_only`). `--dump` writes scores, scaled, weights and
//! context (f32, little-endian) for both masks settings, for comparing with
//! the wasm build bit for bit. `scripts/bench-kernel` times the same kernel on
//! the same vectors in WebAssembly.

use std::time::Instant;

use attention_core::{attend_with, Extras, Options};

#[path = "../benches/kernel-wasm/glove_like.rs"]
mod glove_like;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sizes = Vec::new();
    let mut runs = None;
    let mut extras = Extras::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--weights-only" => extras.weights_only = true,
            "--runs" => runs = Some(args.next().ok_or("--runs needs a number")?.parse::<usize>()?),
            "--dump" => {
                let n = args.next().ok_or("--dump needs a token count")?.parse::<usize>()?;
                let path = args.next().ok_or("--dump needs a file")?;
                return dump(n, &path);
            }
            _ => sizes.push(arg.parse::<usize>()?),
        }
    }
    if sizes.is_empty() {
        sizes = vec![32, 256, 1024];
    }
    for n in sizes {
        let x = glove_like::glove_like(n, 42)?;
        let runs = runs
            .unwrap_or(if n >= 1024 {
                31
            } else if n >= 256 {
                101
            } else {
                5001
            })
            .max(1);
        let mut times = Vec::with_capacity(runs);
        let mut checksum = 0f64;
        let cpu = cpu_ms();
        for _ in 0..runs {
            let start = Instant::now();
            let attention = attend_with(&x, &x, &x, &Options::default(), &extras)?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
            checksum = attention.weights.iter().map(|w| f64::from(*w)).sum();
        }
        let on_cpu = (cpu_ms() - cpu) / runs as f64;
        times.sort_by(f64::total_cmp);
        println!(
            "{n:>5} tokens: median {:.3} ms, on CPU {on_cpu:.3} ms, min {:.3} ms over {runs} runs (weights sum {checksum:.3})",
            times[runs / 2],
            times[0]
        );
    }
    Ok(())
}

/// Time this thread has spent on a CPU, in ms (Linux's schedstat, updated at
/// each scheduler tick: read it around many runs; 0 elsewhere). On a machine
/// shared with other work it moves less than the wall clock.
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e6)
}

/// What `Kernel::outputs` returns in the wasm bench, for (self on, causal
/// off) then (self off, causal on).
fn dump(n: usize, path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let x = glove_like::glove_like(n, 42)?;
    let mut bytes = Vec::new();
    for (self_attention_on, causal) in [(true, false), (false, true)] {
        let options = Options { self_attention: self_attention_on, causal, ..Options::default() };
        let a = attend_with(&x, &x, &x, &options, &Extras::default())?;
        for v in [a.scores, a.scaled, a.weights, a.context].concat() {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    std::fs::write(path, bytes)?;
    Ok(())
}
