//! What the fuzz targets share: an allocator that records the largest
//! single request (so a target can check that a parser allocated no more
//! than its input justifies), byte-level edits for mutating valid files, and
//! the tiny model the model target starts from.
//!
//! The crates' promise under test ("Untrusted input" in attention-core's and
//! attention-model's docs): no input makes a parser panic, and no allocation
//! is larger than the input justifies.

#![allow(unsafe_code)] // the counting allocator: GlobalAlloc is an unsafe trait

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use attention_core::multihead::SeededRng;
use attention_core::shards::split;
use attention_core::{Embeddings, ShardSet};
use attention_model::format::{encode, required_tensors};
use attention_model::{Config, DType, ModelFiles, Tensor};

/// The system allocator, plus a running maximum of the sizes requested.
pub struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the
// only addition is an atomic maximum of the requested sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
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

/// Runs `f` and checks that no single allocation it made exceeded
/// `per_byte · input_len + 1 MiB`. A header that lies about a size makes a
/// reader ask for megabytes to gigabytes; a parser that sizes its buffers by
/// the bytes it holds stays far below this.
pub fn bounded<T>(what: &str, input_len: usize, per_byte: usize, f: impl FnOnce() -> T) -> T {
    LARGEST.store(0, Ordering::Relaxed);
    let value = f();
    let largest = LARGEST.load(Ordering::Relaxed);
    let budget = per_byte.saturating_mul(input_len).saturating_add(1 << 20);
    assert!(
        largest <= budget,
        "{what}: one allocation of {largest} bytes for {input_len} bytes of input (budget {budget})"
    );
    value
}

/// Whether two results are the same: equal values, or errors with the same message.
pub fn same<T: PartialEq, E: std::fmt::Display>(a: &Result<T, E>, b: &Result<T, E>) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// One change to a valid file, at an offset taken modulo its length.
#[derive(Debug, Clone, Arbitrary)]
pub enum Edit {
    /// Flip bits of one byte.
    Xor { at: u32, mask: u8 },
    /// Overwrite a little-endian `u32` (a size field, most often).
    SetU32 { at: u32, value: u32 },
    /// Overwrite a `u32` with a value near a limit the formats use.
    SetEdge { at: u32, which: u8 },
    /// Cut the file here.
    Truncate { at: u32 },
    /// Insert bytes here.
    Insert { at: u32, bytes: Vec<u8> },
    /// Remove up to `len` bytes from here.
    Remove { at: u32, len: u8 },
}

/// Values that sit on the edges of the formats' checks.
const EDGES: [u32; 12] = [0, 1, 2, 3, 4, 0x7f, 0xff, 0xffff, 1 << 16, 1 << 24, 0x7fff_ffff, u32::MAX];

/// Applies `edits` to `bytes`, in order. Offsets are aligned to 4 for the
/// `u32` edits, since every size field of these formats is.
pub fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for edit in edits {
        let len = bytes.len();
        let at = |at: u32| if len == 0 { 0 } else { at as usize % len };
        let at4 = |at: u32| if len < 4 { None } else { Some((at as usize % (len - 3)) & !3) };
        match edit {
            Edit::Xor { at: a, mask } if len > 0 => bytes[at(*a)] ^= mask,
            Edit::SetU32 { at: a, value } => {
                if let Some(i) = at4(*a) {
                    bytes[i..i + 4].copy_from_slice(&value.to_le_bytes());
                }
            }
            Edit::SetEdge { at: a, which } => {
                if let Some(i) = at4(*a) {
                    let value = EDGES[usize::from(*which) % EDGES.len()];
                    bytes[i..i + 4].copy_from_slice(&value.to_le_bytes());
                }
            }
            Edit::Truncate { at: a } => bytes.truncate(at(*a)),
            Edit::Insert { at: a, bytes: new } => {
                let i = at(*a);
                bytes.splice(i..i, new.iter().copied());
            }
            Edit::Remove { at: a, len: n } if len > 0 => {
                let i = at(*a);
                let end = (i + usize::from(*n)).min(len);
                bytes.drain(i..end);
            }
            _ => {}
        }
    }
}

/// The WordPiece vocabulary of the tiny model (that of
/// crates/attention-model/testdata/tiny_forward.json, plus a few pieces).
pub const TINY_VOCAB: [&str; 24] = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "because", "it", "was", "tired",
    "##s", ".", "a", "un", "##able", "##ing", "'", "t", "don", "é", "中",
];

/// In [-1, 1), 24 bits (exact in f32), from attention-core's seeded SplitMix64.
pub fn uniform(rng: &mut SeededRng) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u32 << 23) as f32 - 1.0
}

/// The tiny model's shape: 24 words, hidden 8, 2 layers of 2 heads.
pub fn tiny_config() -> Config {
    Config {
        vocab_size: TINY_VOCAB.len(),
        hidden: 8,
        layers: 2,
        heads: 2,
        intermediate: 12,
        max_positions: 16,
        type_vocab: 2,
        layer_norm_eps: 1e-12,
    }
}

/// The tiny model's files with word embeddings of `dtype` (other tensors in
/// f16), in shards of 5 rows (the last one of 4). Built once per dtype.
pub fn tiny_model(dtype: DType) -> &'static ModelFiles {
    static FILES: OnceLock<[ModelFiles; 3]> = OnceLock::new();
    let all = FILES.get_or_init(|| [DType::F32, DType::F16, DType::Q8].map(build_tiny));
    match dtype {
        DType::F32 => &all[0],
        DType::F16 => &all[1],
        DType::Q8 => &all[2],
    }
}

fn build_tiny(dtype: DType) -> ModelFiles {
    let config = tiny_config();
    let vocab: Vec<String> = TINY_VOCAB.iter().map(|s| s.to_string()).collect();
    let mut rng = SeededRng::new(20240521);
    let tensors: Vec<Tensor> = required_tensors(&config)
        .into_iter()
        .map(|(name, shape)| {
            let offset = if name.ends_with("LayerNorm.weight") { 1.0 } else { 0.0 };
            let values =
                (0..shape.iter().product::<usize>()).map(|_| uniform(&mut rng) * 0.5 + offset).collect();
            Tensor { name, shape, values }
        })
        .collect();
    let word_dtype = move |name: &str| {
        if name == attention_model::format::WORD_EMBEDDINGS {
            dtype
        } else if name.ends_with(".weight") && name.contains("dense") {
            DType::Q8
        } else {
            DType::F16
        }
    };
    match encode(&config, &vocab, &tensors, word_dtype, 5) {
        Ok(files) => files,
        Err(e) => panic!("the tiny model does not encode: {e}"),
    }
}

/// Picks one of the three dtypes from a byte.
pub fn dtype_of(byte: u8) -> DType {
    [DType::F32, DType::F16, DType::Q8][usize::from(byte) % 3]
}

/// The shard target's fixed vocabulary: 14 GloVe-like words (the
/// tokenizer's hard cases) of dimension 3, split in 4 shards.
pub struct ShardFixture {
    /// The whole vocabulary.
    pub full: Embeddings,
    /// Its set of 4 shards.
    pub set: ShardSet,
    /// The shard files, in index order.
    pub shards: Vec<Vec<u8>>,
}

/// The fixture, built once.
pub fn shard_fixture() -> &'static ShardFixture {
    static FIXTURE: OnceLock<ShardFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let words = [
            "the",
            "u.s.",
            "is",
            "n't",
            "ca",
            "well-known",
            "...",
            "1,000",
            ".",
            "it",
            "'s",
            "cat",
            "--",
            "café",
        ];
        let vectors = (0..words.len() * 3).map(|k| (k as f32 * 0.37).sin()).collect();
        let full = Embeddings::new(3, words.iter().map(|w| w.to_string()).collect(), vectors)
            .unwrap_or_else(|e| panic!("the fixed vocabulary: {e}"));
        let (set, shards) = split(&full, 4).unwrap_or_else(|e| panic!("the fixed split: {e}"));
        let shards = shards
            .iter()
            .map(|s| s.to_bytes(&set).unwrap_or_else(|e| panic!("the fixed shards: {e}")))
            .collect();
        ShardFixture { full, set, shards }
    })
}
