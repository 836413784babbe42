//! Shards (`Shard::parse`) and the sharded store (`Embeddings::sharded`,
//! `add_shard`, `missing_shards`) on arbitrary bytes.
//!
//! Input: byte 0 holds flags, the rest is a query text (its first 32
//! characters are used) followed by shard files, each starting at an
//! occurrence of the shard magic `AEWS`.
//! - Every shard is parsed against a fixed set of 14 words in 4 shards, and
//!   against a set made of its own header's id, count and dimension (so the
//!   fuzzer gets past the set check); with flag 1 its checksum is first set
//!   right (so it gets past that too). Never a panic, no allocation beyond
//!   what the bytes justify.
//! - A sharded store of the fixed set (flag 2: of the first shard's own set)
//!   takes every shard: an accepted one is in, its words find their rows; a
//!   refused one leaves the store as it was. `missing_shards(text)` names
//!   only shards not in, sorted, once each.
//! - Fed the fixed set's real shards until `missing_shards(text)` is empty,
//!   a store tokenizes `text` exactly as the whole vocabulary does.
#![no_main]

use attention_core::shards::{fnv1a, SHARD_HEADER_BYTES};
use attention_core::{analyze, tokenize, Embeddings, Lookup, Options, Shard, ShardSet};
use attention_fuzz::{bounded, shard_fixture};
use libfuzzer_sys::fuzz_target;

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The set a shard's own header describes, if the numbers are a valid set.
fn own_set(bytes: &[u8]) -> Option<ShardSet> {
    if bytes.len() < SHARD_HEADER_BYTES {
        return None;
    }
    let id = u64::from(u32_at(bytes, 8)) | (u64::from(u32_at(bytes, 12)) << 32);
    ShardSet::new(u32_at(bytes, 20), id, u32_at(bytes, 28) as usize, 1000).ok()
}

fn check_parsed(shard: &Shard, set: &ShardSet) {
    assert!(shard.index < set.count);
    assert_eq!(shard.vectors.len(), shard.words.len() * set.dim);
    assert!(shard.vectors.iter().all(|v| v.is_finite()));
    // What was read writes back to the same shard.
    let bytes = shard.to_bytes(set).unwrap_or_else(|e| panic!("a parsed shard does not write back: {e}"));
    assert_eq!(Shard::parse(&bytes, set).ok().as_ref(), Some(shard));
}

fn check_store(store: &Embeddings, text: &str) {
    let set = store.shard_set().unwrap_or_else(|| panic!("a sharded store lost its set"));
    for (row, word) in store.words().iter().enumerate() {
        assert_eq!(store.lookup(word), Lookup::Known(row));
        assert!(store.has_shard(store.shard_of(word)));
        assert_eq!(store.row(row).len(), set.dim);
    }
    let missing = store.missing_shards([text]);
    assert!(missing.windows(2).all(|w| w[0] < w[1]), "sorted, once each: {missing:?}");
    assert!(missing.iter().all(|k| *k < set.count && !store.has_shard(*k)), "{missing:?}");
    for token in tokenize(text, store) {
        assert!(text.get(token.span.clone()).is_some());
        assert!(!(token.known && token.pending));
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&flags, rest)) = bytes.split_first() else { return };
    let fixed = shard_fixture();
    let mut parts = Vec::new();
    let mut start = rest.windows(4).position(|w| w == b"AEWS").unwrap_or(rest.len());
    // The tokenizer has a target of its own: a short text is enough here.
    let text: String = String::from_utf8_lossy(&rest[..start]).chars().take(32).collect();
    while start < rest.len() {
        let next =
            rest[start + 1..].windows(4).position(|w| w == b"AEWS").map_or(rest.len(), |p| start + 1 + p);
        let mut shard = rest[start..next].to_vec();
        if flags & 1 != 0 && shard.len() >= SHARD_HEADER_BYTES {
            let sum = fnv1a(&shard[SHARD_HEADER_BYTES..]);
            shard[40..48].copy_from_slice(&sum.to_le_bytes());
        }
        parts.push(shard);
        start = next;
    }

    for shard in &parts {
        if let Ok(parsed) = bounded("Shard::parse", shard.len(), 16, || Shard::parse(shard, &fixed.set)) {
            check_parsed(&parsed, &fixed.set);
        }
        if let Some(set) = own_set(shard) {
            if let Ok(parsed) =
                bounded("Shard::parse (own set)", shard.len(), 16, || Shard::parse(shard, &set))
            {
                check_parsed(&parsed, &set);
            }
        }
    }

    let set = match parts.first().and_then(|s| own_set(s)) {
        Some(set) if flags & 2 != 0 => set,
        _ => fixed.set,
    };
    let mut store = Embeddings::sharded(set);
    for shard in &parts {
        let before = store.clone();
        // The shard the caller asked for: its first byte (a refused index leaves the store as it was).
        let expected = u32::from(shard.first().copied().unwrap_or(0)) % set.count.max(1);
        match bounded("add_shard", bytes.len(), 16, || store.add_shard(shard, expected)) {
            Ok(()) => assert!(store.has_shard(expected) && store.len() >= before.len()),
            Err(_) => assert_eq!(store, before, "a refused shard leaves the store as it was"),
        }
    }
    check_store(&store, &text);
    let _ = analyze(&text, &store, &Options::default());

    // The real shards, as many rounds as missing_shards asks for.
    let mut store = Embeddings::sharded(fixed.set);
    for _round in 0..=fixed.set.count {
        let missing = store.missing_shards([&*text]);
        if missing.is_empty() {
            break;
        }
        for k in missing {
            if let Err(e) = store.add_shard(&fixed.shards[k as usize], k) {
                panic!("a real shard was refused: {e}");
            }
        }
    }
    assert!(store.missing_shards([&*text]).is_empty(), "the rounds end");
    assert_eq!(
        tokenize(&text, &store),
        tokenize(&text, &fixed.full),
        "a sharded store tokenizes as the whole"
    );
    check_store(&store, &text);
});
