//! `Embeddings::from_bytes` and `from_subset` on arbitrary bytes: an error or
//! a store, never a panic, and no allocation beyond what the bytes justify.
//! A store that is read is usable: every word finds its own row, it writes
//! back as a subset that reads back equal, and a sentence of its words runs.
#![no_main]

use attention_core::embeddings::Precision;
use attention_core::{analyze, Embeddings, Options};
use attention_fuzz::{bounded, same};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let read = bounded("from_bytes", bytes.len(), 64, || Embeddings::from_bytes(bytes));
    let subset = bounded("from_subset", bytes.len(), 64, || Embeddings::from_subset(bytes));
    if bytes.starts_with(b"AEWV") {
        assert!(
            same(&read, &subset),
            "from_bytes reads a subset as from_subset does: {read:?} vs {subset:?}"
        );
    }
    let Ok(store) = read else { return };
    assert!(!store.is_empty() && store.dim() >= 1);
    for (row, word) in store.words().iter().enumerate() {
        assert_eq!(store.rank(word), Some(row), "'{word}' finds its own row");
        assert!(store.row(row).iter().all(|v| v.is_finite()));
    }
    let written = match store.to_subset(Precision::F32) {
        Ok(written) => written,
        Err(e) => panic!("a store that was read does not write back: {e}"),
    };
    match Embeddings::from_subset(&written) {
        Ok(again) => assert_eq!(again, store, "an f32 subset reads back exactly"),
        Err(e) => panic!("a written subset does not read back: {e}"),
    }
    let sentence = store.words().iter().take(6).map(String::as_str).collect::<Vec<_>>().join(" ");
    let _ = analyze(&sentence, &store, &Options::default());
});
