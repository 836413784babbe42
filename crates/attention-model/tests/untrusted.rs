//! Lying sizes get a clear error before any large allocation. A counting
//! global allocator records the largest single request while a hostile core,
//! shard or run is handled; it must stay within what the bytes at hand
//! justify (here: a few times the file's length, or 1 MiB for a refused run).
//!
//! One test function, so that no other test allocates meanwhile.

#![allow(unsafe_code)] // the counting allocator: GlobalAlloc is an unsafe trait
#![allow(clippy::unwrap_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use attention_model::format::{encode, required_tensors};
use attention_model::{Config, DType, Error, Model, Tensor};

struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the
// only addition is an atomic maximum of the requested sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: as for `dealloc`, and `new_size` is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The largest single allocation `f` makes, and its result.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (usize, T) {
    LARGEST.store(0, Ordering::Relaxed);
    let value = f();
    (LARGEST.load(Ordering::Relaxed), value)
}

/// A model of many one-dimensional heads: a small file (hidden 64, 64
/// heads, 4 layers, 8,192 positions) whose full-length run would need
/// 4 · 64 · 8192² attention weights, 69 GB.
fn many_small_heads() -> Vec<u8> {
    let vocab: Vec<String> =
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "cat"].iter().map(|s| s.to_string()).collect();
    let config = Config {
        vocab_size: vocab.len(),
        hidden: 64,
        layers: 4,
        heads: 64,
        intermediate: 8,
        max_positions: 8192,
        type_vocab: 1,
        layer_norm_eps: 1e-12,
    };
    let tensors: Vec<Tensor> = required_tensors(&config)
        .into_iter()
        .map(|(name, shape)| {
            let fill = if name.ends_with("LayerNorm.weight") { 1.0 } else { 0.01 };
            Tensor { values: vec![fill; shape.iter().product()], name, shape }
        })
        .collect();
    encode(&config, &vocab, &tensors, |_| DType::F16, 5).unwrap().core
}

fn with_u32(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

#[test]
fn lying_sizes_are_refused_before_any_large_allocation() {
    let core = many_small_heads();
    let budget = 4 * core.len();

    // The core: each size field of the header set to its largest value.
    for (at, field) in
        [(8, "vocab_size"), (28, "max_positions"), (40, "vocabulary block"), (48, "rows per shard")]
    {
        for value in [u32::MAX, 1_000_000, 16 << 20] {
            let (largest, result) =
                largest_allocation(|| Model::from_core(&with_u32(&core, at, value)).map(|_| ()));
            assert!(result.is_err(), "{field} = {value} was accepted");
            assert!(
                largest <= budget,
                "{field} = {value}: an allocation of {largest} bytes for a {} byte file",
                core.len()
            );
        }
    }

    // A shard whose header claims a million rows of 4,096 f32 values (16 GB).
    let mut shard = Vec::from(*b"AEWE");
    shard.extend_from_slice(&1u16.to_le_bytes());
    shard.extend_from_slice(&[1, 0]);
    for value in [0u32, 0, 999_999, 4096] {
        shard.extend_from_slice(&value.to_le_bytes());
    }
    shard.extend_from_slice(&[0; 64]);
    let mut model = Model::from_core(&core).unwrap();
    let (largest, result) = largest_allocation(|| model.add_shard(&shard));
    let err = result.unwrap_err().to_string();
    assert!(err.contains("truncated"), "{err}");
    assert!(largest < 1 << 20, "an allocation of {largest} bytes for a {} byte shard", shard.len());

    // A run as long as the header allows: refused with the length this model
    // can run (⌊√(2²⁶ / (4 · 64))⌋ = 512), before allocating the attention.
    let model = Model::from_core(&core).unwrap();
    assert_eq!(model.max_pieces(), 512);
    let ids = vec![4u32; 8192];
    let (largest, result) = largest_allocation(|| model.run(&ids).map(|_| ()));
    assert!(matches!(result, Err(Error::TooLong { pieces: 8192, max: 512 })), "{result:?}");
    assert!(largest < 1 << 20, "a refused run allocated {largest} bytes");
    let message = result.unwrap_err().to_string();
    assert_eq!(
        message,
        "the sentence has 8192 pieces with [CLS] and [SEP]; the model reads at most 512: shorten it"
    );
}
