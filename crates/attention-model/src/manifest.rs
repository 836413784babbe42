//! The checks on `manifest.json` (written by `scripts/build-model`, read by
//! the page before it downloads anything): the sizes and file names it lists
//! are what the page allocates and fetches, so they are checked first,
//! against fixed limits, and again against the core once it is loaded.
//!
//! The manifest is untrusted like any file: a damaged or hostile one must
//! get a clear message, not a 3 GB allocation or a fetch outside the model
//! folder. Two steps:
//!
//! 1. [`ModelManifest::check_listing`], before any download: the core is at
//!    most [`MAX_CORE_BYTES`], every shard at most [`MAX_SHARD_BYTES`] and
//!    longer than its header, at most [`MAX_SHARDS`] shards, and every file
//!    name a plain relative path inside the model folder.
//! 2. [`Model::check_manifest`], once the core is loaded: the core's real
//!    length, the shard count, and every shard's exact length as the core
//!    implies it ([`Model::shard_bytes`]), so that no shard download is
//!    sized by the manifest alone.
//!
//! Parsing the JSON is the caller's (serde in the wasm crate): this crate
//! has no JSON dependency.

use crate::error::{invalid, Result};
use crate::format::SHARD_HEADER_BYTES;
use crate::Model;

/// The largest core file a manifest may list: 512 MiB (MiniLM's is 21.9 MB;
/// BERT-base in f16 would be about 170 MB).
pub const MAX_CORE_BYTES: u64 = 512 << 20;
/// The largest shard a manifest may list: 64 MiB (MiniLM's are 24,600 bytes).
pub const MAX_SHARD_BYTES: u64 = 64 << 20;
/// The most shards a manifest may list: one per row of the largest
/// vocabulary the core format allows.
pub const MAX_SHARDS: usize = 1_000_000;
/// The longest file name a manifest may list, in bytes.
pub const MAX_FILE_NAME_BYTES: usize = 255;

/// One file the manifest lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    /// Path relative to the model folder, e.g. `embeddings/0007.aeemb`.
    pub file: String,
    /// Its length in bytes, as the manifest says.
    pub bytes: u64,
}

/// What loading needs of the manifest: the core and the shards, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelManifest {
    /// The core file (`minilm-core.aebm`).
    pub core: ManifestFile,
    /// Shard `k` of the word embeddings is `shards[k]`.
    pub shards: Vec<ManifestFile>,
}

impl ModelManifest {
    /// Step 1 of the module documentation: limits and file names, before
    /// anything is downloaded.
    pub fn check_listing(&self) -> Result<()> {
        check_name(&self.core.file)?;
        if self.core.bytes == 0 || self.core.bytes > MAX_CORE_BYTES {
            return Err(damaged(format!(
                "it lists the core {} as {} bytes; a core file is 1 to {MAX_CORE_BYTES} bytes (512 MiB)",
                self.core.file, self.core.bytes
            )));
        }
        if self.shards.len() > MAX_SHARDS {
            return Err(damaged(format!(
                "it lists {} embedding shards, more than the {MAX_SHARDS} a model can have",
                self.shards.len()
            )));
        }
        for (k, shard) in self.shards.iter().enumerate() {
            check_name(&shard.file)?;
            if shard.bytes <= SHARD_HEADER_BYTES as u64 || shard.bytes > MAX_SHARD_BYTES {
                return Err(damaged(format!(
                    "it lists embedding shard {k} ({}) as {} bytes; a shard is {} to {MAX_SHARD_BYTES} bytes (64 MiB)",
                    shard.file,
                    shard.bytes,
                    SHARD_HEADER_BYTES + 1
                )));
            }
        }
        Ok(())
    }
}

impl Model {
    /// The exact length of shard file `k` as this core implies it (header,
    /// then rows × hidden values of the shards' dtype), or `None` if the
    /// model has no shard `k`. MiniLM: 24,600 bytes, the last 19,992.
    pub fn shard_bytes(&self, k: usize) -> Option<usize> {
        let layout = self.shard_layout();
        let first_row = k.checked_mul(layout.rows_per_shard)?;
        if k >= self.embedding_shards() || first_row >= self.config().vocab_size {
            return None;
        }
        let rows = layout.rows_per_shard.min(self.config().vocab_size - first_row);
        let data = layout.dtype.data_bytes(rows, rows.checked_mul(self.config().hidden)?)?;
        data.checked_add(SHARD_HEADER_BYTES)
    }

    /// Step 2 of the module documentation: the manifest against this core,
    /// which was read from `core_bytes` bytes.
    pub fn check_manifest(&self, manifest: &ModelManifest, core_bytes: usize) -> Result<()> {
        manifest.check_listing()?;
        if manifest.core.bytes != core_bytes as u64 {
            return Err(damaged(format!(
                "it lists the core {} as {} bytes, but the core read is {core_bytes} bytes",
                manifest.core.file, manifest.core.bytes
            )));
        }
        if manifest.shards.len() != self.embedding_shards() {
            return Err(damaged(format!(
                "it lists {} embedding shards; the core has {}",
                manifest.shards.len(),
                self.embedding_shards()
            )));
        }
        for (k, shard) in manifest.shards.iter().enumerate() {
            let expected = self.shard_bytes(k).unwrap_or_default();
            if shard.bytes != expected as u64 {
                return Err(damaged(format!(
                    "it lists embedding shard {k} ({}) as {} bytes; the core says {expected}",
                    shard.file, shard.bytes
                )));
            }
        }
        Ok(())
    }
}

/// A file name must stay inside the model folder: relative, no `..`, no
/// empty or `.` segment, ASCII letters, digits, `-`, `_`, `.` and `/` only.
fn check_name(file: &str) -> Result<()> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    let segments_ok = file.split('/').all(|s| !s.is_empty() && s != "." && s != "..");
    if file.is_empty() || file.len() > MAX_FILE_NAME_BYTES || !file.chars().all(plain) || !segments_ok {
        let shown: String = file.chars().take(60).collect();
        return Err(damaged(format!("the file name {shown:?} is not a plain path inside the model folder")));
    }
    Ok(())
}

/// The error for a damaged manifest: the reason, and what to do about it.
pub fn damaged(reason: impl std::fmt::Display) -> crate::Error {
    invalid(format!(
        "the manifest (manifest.json) is damaged: {reason}; rebuild the model with scripts/build-model"
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn manifest(core: u64, shards: &[u64]) -> ModelManifest {
        ModelManifest {
            core: ManifestFile { file: "minilm-core.aebm".into(), bytes: core },
            shards: shards
                .iter()
                .enumerate()
                .map(|(k, b)| ManifestFile { file: crate::shard_file(k), bytes: *b })
                .collect(),
        }
    }

    #[test]
    fn sizes_beyond_the_limits_are_refused_before_any_download() {
        assert!(manifest(21_934_068, &[24_600, 19_992]).check_listing().is_ok());
        let err = manifest(3_000_000_000, &[24_600]).check_listing().unwrap_err().to_string();
        assert!(
            err.contains("core minilm-core.aebm as 3000000000 bytes") && err.contains("512 MiB"),
            "{err}"
        );
        assert!(err.starts_with("invalid model file: the manifest (manifest.json) is damaged"), "{err}");
        let err = manifest(100, &[24_600, 1 << 40]).check_listing().unwrap_err().to_string();
        assert!(err.contains("embedding shard 1 (embeddings/0001.aeemb) as 1099511627776 bytes"), "{err}");
        assert!(manifest(0, &[]).check_listing().is_err());
        assert!(manifest(100, &[24]).check_listing().is_err(), "a shard is longer than its header");
    }

    #[test]
    fn file_names_must_stay_inside_the_model_folder() {
        for bad in [
            "../secret",
            "/etc/passwd",
            "a//b",
            "https://x.test/a",
            "embeddings/./0000.aeemb",
            "",
            "a b",
            "ä",
        ] {
            let mut m = manifest(100, &[24_600]);
            m.shards[0].file = bad.into();
            let err = m.check_listing().unwrap_err().to_string();
            assert!(err.contains("not a plain path inside the model folder"), "{bad}: {err}");
        }
        let mut m = manifest(100, &[]);
        m.core.file = "x".repeat(256);
        assert!(m.check_listing().is_err());
    }
}
