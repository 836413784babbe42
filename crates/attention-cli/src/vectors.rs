//! Which word vectors the CLI uses, and loading just what a sentence needs.
//!
//! In order: `--embeddings PATH` (a shard folder, a subset file or any
//! GloVe/word2vec text file), the `ATTENTION_VECTORS` environment variable
//! (the same), the whole GloVe vocabulary that `scripts/build-data` writes
//! into the checkout this binary was built from (`data/glove-6b-50d/`), and
//! last the small fallback built into the binary. From a shard folder only
//! the shards of the sentence's candidate tokens are read: a few files of
//! 5 KB, so a call takes milliseconds whatever the vocabulary's size.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use attention_core::Embeddings;

use crate::build_data::{read_manifest, shard_path};
use crate::files::{read_bounded, ANY_SIZE};
use crate::{load_embeddings, Failure};

/// The committed fallback (data/README.md): the most frequent words and
/// every word of the project's sentences, exact f32.
static FALLBACK: &[u8] = include_bytes!("../../../data/glove-6b-50d-fallback.aewv");

/// Where `scripts/build-data` puts the whole vocabulary in this checkout.
const BUILT_SET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/glove-6b-50d");

/// The environment variable that names the vectors when `--embeddings` does not.
pub const ENV_VAR: &str = "ATTENTION_VECTORS";

/// Word vectors with what the user should know about them.
#[derive(Debug)]
pub struct Vectors {
    pub embeddings: Embeddings,
    /// Set for the built-in fallback, and for a shard set marked as the
    /// fallback (as `scripts/build` makes when the data is not built):
    /// unknown words may be known to the whole vocabulary.
    pub fallback: bool,
}

/// The vectors to use, holding at least every word `texts` need.
pub fn load(explicit: Option<&Path>, texts: &[&str]) -> Result<Vectors, Failure> {
    if let Some(path) = explicit {
        return open(path, texts);
    }
    if let Some(path) = std::env::var_os(ENV_VAR).filter(|v| !v.is_empty()).map(PathBuf::from) {
        // A variable set long ago in a shell profile is easily forgotten: the message names it.
        return open(&path, texts).map_err(|failure| Failure {
            message: format!("{} (named by ${ENV_VAR})", failure.message),
            ..failure
        });
    }
    let built = Path::new(BUILT_SET);
    if built.join("manifest.json").is_file() {
        return sharded(built, texts);
    }
    Ok(Vectors { embeddings: Embeddings::from_subset(FALLBACK)?, fallback: true })
}

/// A shard folder, or one file of vectors.
fn open(path: &Path, texts: &[&str]) -> Result<Vectors, Failure> {
    if path.is_dir() {
        sharded(path, texts)
    } else {
        Ok(Vectors { embeddings: load_embeddings(path)?, fallback: false })
    }
}

/// Reads the shards of `dir` that `texts` need, round after round until the
/// tokenizer can decide every text as with the whole vocabulary.
pub fn sharded(dir: &Path, texts: &[&str]) -> Result<Vectors, Failure> {
    let manifest = read_manifest(dir)?;
    let set = manifest.set;
    let mut store = Embeddings::sharded(set);
    // Each round probes only the chunks of text that still wait for a shard.
    let mut settled = HashSet::new();
    loop {
        let missing = store.missing_shards_settled(texts.iter().copied(), &mut settled);
        if missing.is_empty() {
            return Ok(Vectors { embeddings: store, fallback: manifest.fallback });
        }
        for k in missing {
            let path = shard_path(dir, &set, k);
            let bytes = read_bounded(&path, ANY_SIZE).map_err(|e| {
                Failure::usage(format!(
                    "cannot read '{}': {e} (the shard set is incomplete: run scripts/build-data again)",
                    path.display()
                ))
            })?;
            store.add_shard(&bytes, k).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        }
    }
}
