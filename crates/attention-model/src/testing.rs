//! Support for tests and benchmarks that need the real model, in one place
//! for every crate of the workspace.

use std::path::PathBuf;

use crate::CORE_FILE;

/// The folder of the built model: `$AE_MODEL_DIR`, else the repository's
/// `model/` (where `scripts/build-model` writes it), if its core file exists.
///
/// When it does not, this prints a `SKIPPED` notice and returns `None`, so
/// the caller can skip; but with `AE_REQUIRE_MODEL` set (`scripts/test` sets
/// it after building the model) it panics, so that a broken model build
/// fails the run instead of silently skipping the tests that need it.
pub fn built_model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("AE_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../model"));
    let core = dir.join(CORE_FILE);
    if core.is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("AE_REQUIRE_MODEL").is_none(),
        "AE_REQUIRE_MODEL is set but {} is missing",
        core.display()
    );
    eprintln!("SKIPPED: {} is missing; run scripts/build-model (or set AE_MODEL_DIR)", core.display());
    None
}
