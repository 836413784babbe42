//! The whole vocabulary as static shard files: a sentence needs only the
//! few shards that hold its words.
//!
//! A *shard set* splits a vocabulary of `N` words into `K` shard files (`K` a
//! power of two). Word `w` lives in shard [`shard_of`]`(w, K)`: the FNV-1a
//! 64-bit hash of its UTF-8 bytes, mixed by MurmurHash3's 64-bit finalizer,
//! modulo `K`. The page and
//! the CLI compute the same function, so they know which file to read
//! without any index. The set is described by a [`ShardSet`] (the
//! `manifest.json` beside the shards holds the same numbers), and every shard
//! carries the set's id, so a shard of another build is refused.
//!
//! # The shard format, version 1
//!
//! All integers are little-endian.
//!
//! | offset    | size  | field                                                             |
//! |-----------|-------|-------------------------------------------------------------------|
//! | 0         | 4     | magic: the ASCII bytes `AEWS`                                     |
//! | 4         | 2     | version: `u16`, 1                                                 |
//! | 6         | 2     | encoding: `u16`, 1 = f32 (the only one: shards are exact)         |
//! | 8         | 8     | set id: `u64`, the same in every shard of a set ([`set_id`])      |
//! | 16        | 4     | `k`: `u32`, this shard's index, `k < K`                           |
//! | 20        | 4     | `K`: `u32`, shards in the set, a power of two, 1 ≤ K ≤ 65,536     |
//! | 24        | 4     | `n`: `u32`, words in this shard, 0 ≤ n ≤ 65,536                   |
//! | 28        | 4     | `d`: `u32`, dimension, 1 ≤ d ≤ 4,096                              |
//! | 32        | 4     | `V`: `u32`, byte length of the vocabulary block, ≤ 16 MiB          |
//! | 36        | 4     | reserved, zero                                                    |
//! | 40        | 8     | checksum: `u64`, FNV-1a 64 of every byte from offset 48 to the end |
//! | 48        | `V`   | the `n` words, in the source's row order, each UTF-8 then `\n`    |
//! | 48 + V    | 0–3   | zero bytes, so that the vectors start at a multiple of 4          |
//! | …         | 4·n·d | the vectors, `n × d` IEEE 754 binary32, row-major                 |
//!
//! Nothing follows the vectors. Every word hashes to `k`, appears once, is 1
//! to 1,024 bytes and holds no whitespace; every value is finite.
//!
//! A reader checks the header's sizes against the real length of the bytes
//! before it allocates anything, then the checksum, then every word: a
//! truncated, corrupt, misplaced or foreign shard gets an
//! [`Error::InvalidEmbeddings`] naming the problem, never a panic.

use std::hash::Hasher;

use fnv::FnvHasher;

use crate::embeddings::{check_word, Embeddings, MAX_DIM};
use crate::error::{grouped, Error, Result};

/// The four bytes every shard starts with.
pub const SHARD_MAGIC: [u8; 4] = *b"AEWS";
/// The shard format version this code writes and reads.
pub const SHARD_VERSION: u16 = 1;
/// The largest number of shards in a set.
pub const MAX_SHARDS: u32 = 1 << 16;
/// The largest number of words in one shard.
pub const MAX_SHARD_WORDS: u32 = 1 << 16;
/// The largest vocabulary block of one shard, in bytes.
pub const MAX_SHARD_VOCAB_BYTES: u32 = 16 << 20;
/// Bytes before the vocabulary block.
pub const SHARD_HEADER_BYTES: usize = 48;
const ENCODING_F32: u16 = 1;

/// FNV-1a 64 of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hasher = FnvHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// The shard of `word` in a set of `count` shards (`count` a power of two).
///
/// FNV-1a alone mixes short words poorly (GloVe's 3-letter words crowd into
/// a few of 16,384 shards, 213 words in one); MurmurHash3's `fmix64` after
/// it spreads them as evenly as chance does (at most 45 a shard).
pub fn shard_of(word: &str, count: u32) -> u32 {
    let mut h = fnv1a(word.as_bytes());
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    (h as u32) & count.wrapping_sub(1)
}

/// What every shard of a set shares, and what a reader must know before the
/// first shard arrives (the page reads it from `manifest.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSet {
    /// `K`, the number of shard files, a power of two.
    pub count: u32,
    /// The id written in every shard of this set ([`set_id`]).
    pub id: u64,
    /// The dimension of every vector.
    pub dim: usize,
    /// How many words the whole set holds.
    pub words: usize,
}

impl ShardSet {
    /// Checks the numbers a manifest gave.
    pub fn new(count: u32, id: u64, dim: usize, words: usize) -> Result<Self> {
        if count == 0 || count > MAX_SHARDS || !count.is_power_of_two() {
            return Err(invalid(format!(
                "a set of {count} shards: the count must be a power of two up to {MAX_SHARDS}"
            )));
        }
        if dim == 0 || dim > MAX_DIM as usize {
            return Err(invalid(format!("dimension {dim} is outside 1..={MAX_DIM}")));
        }
        // The set's id hashes N as a u32: a manifest of 99,999,999,999 words was taken at its word.
        if u32::try_from(words).is_err() {
            return Err(invalid(format!(
                "a set of {} words: more than {} words",
                grouped(words),
                grouped(u32::MAX as usize)
            )));
        }
        Ok(ShardSet { count, id, dim, words })
    }
}

/// The id of a set: FNV-1a 64 over `K`, `d`, `N` (as `u32` little-endian),
/// every word followed by `\n` in row order, then every vector component's
/// four little-endian bytes in row order. Equal inputs, equal id.
pub fn set_id(embeddings: &Embeddings, count: u32) -> u64 {
    let mut hasher = FnvHasher::default();
    hasher.write(&count.to_le_bytes());
    hasher.write(&(embeddings.dim() as u32).to_le_bytes());
    hasher.write(&(embeddings.len() as u32).to_le_bytes());
    for word in embeddings.words() {
        hasher.write(word.as_bytes());
        hasher.write(b"\n");
    }
    for row in 0..embeddings.len() {
        for value in embeddings.row(row) {
            hasher.write(&value.to_le_bytes());
        }
    }
    hasher.finish()
}

/// One shard's words and their vectors, `(words.len(), d)` row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Shard {
    /// The shard's index `k` in its set.
    pub index: u32,
    pub words: Vec<String>,
    pub vectors: Vec<f32>,
}

impl Shard {
    /// Reads and checks a shard of `set` (see the module documentation).
    pub fn parse(bytes: &[u8], set: &ShardSet) -> Result<Shard> {
        if bytes.len() < SHARD_HEADER_BYTES {
            return Err(invalid(format!(
                "the shard is {} bytes, too short for its {SHARD_HEADER_BYTES}-byte header (truncated?)",
                bytes.len()
            )));
        }
        if bytes[0..4] != SHARD_MAGIC {
            return Err(invalid("wrong magic bytes: this is not a word-vector shard".into()));
        }
        let version = u16_at(bytes, 4);
        if version != SHARD_VERSION {
            return Err(invalid(format!(
                "shard format version {version} is not supported (this build reads version {SHARD_VERSION})"
            )));
        }
        let encoding = u16_at(bytes, 6);
        if encoding != ENCODING_F32 {
            return Err(invalid(format!("unknown shard encoding {encoding} (expected 1 = f32)")));
        }
        let id = u64_at(bytes, 8);
        let (index, count, n, dim, vocab_len) =
            (u32_at(bytes, 16), u32_at(bytes, 20), u32_at(bytes, 24), u32_at(bytes, 28), u32_at(bytes, 32));
        if id != set.id || count != set.count {
            return Err(invalid(format!(
                "the shard belongs to another build of the vectors than their manifest (set {id:016x} of \
                 {count} shards, the manifest names {:016x} of {}): the vectors were rebuilt after the \
                 manifest was read",
                set.id, set.count
            )));
        }
        if index >= count {
            return Err(invalid(format!("shard index {index} is outside a set of {count}")));
        }
        if n > MAX_SHARD_WORDS {
            return Err(invalid(format!("a shard of {n} words exceeds {MAX_SHARD_WORDS}")));
        }
        if dim as usize != set.dim {
            return Err(invalid(format!("the shard has dimension {dim}, the set {}", set.dim)));
        }
        if vocab_len > MAX_SHARD_VOCAB_BYTES {
            return Err(invalid(format!(
                "vocabulary block of {vocab_len} bytes exceeds {MAX_SHARD_VOCAB_BYTES}"
            )));
        }
        if u32_at(bytes, 36) != 0 {
            return Err(invalid("the reserved header field is not zero".into()));
        }
        let (n, dim, vocab_len) = (n as usize, dim as usize, vocab_len as usize);
        let vectors_at = (SHARD_HEADER_BYTES + vocab_len).next_multiple_of(4);
        // n ≤ 65,536 and d ≤ 4,096: at most 2^30 bytes of vectors, no overflow even in 32 bits.
        let expected = vectors_at + n * dim * 4;
        if bytes.len() != expected {
            let what = if bytes.len() < expected { "is truncated" } else { "has trailing bytes" };
            return Err(invalid(format!(
                "shard {index} {what}: {} bytes, its header describes {expected}",
                bytes.len()
            )));
        }
        if fnv1a(&bytes[SHARD_HEADER_BYTES..]) != u64_at(bytes, 40) {
            return Err(invalid(format!("shard {index} is corrupt: its checksum does not match")));
        }
        if bytes[SHARD_HEADER_BYTES + vocab_len..vectors_at].iter().any(|b| *b != 0) {
            return Err(invalid("padding after the vocabulary is not zero".into()));
        }
        let vocab = std::str::from_utf8(&bytes[SHARD_HEADER_BYTES..SHARD_HEADER_BYTES + vocab_len])
            .map_err(|e| invalid(format!("the vocabulary is not UTF-8 (byte {})", e.valid_up_to())))?;
        let words: Vec<String> = match vocab.strip_suffix('\n') {
            None if n == 0 && vocab.is_empty() => Vec::new(),
            None => return Err(invalid("the vocabulary block does not end with a newline".into())),
            Some(v) => v.split('\n').map(str::to_owned).collect(),
        };
        if words.len() != n {
            return Err(invalid(format!("the header says {n} words, the vocabulary holds {}", words.len())));
        }
        for (row, word) in words.iter().enumerate() {
            check_word(word, row)?;
            if shard_of(word, count) != index {
                return Err(invalid(format!("'{word}' does not belong in shard {index}")));
            }
        }
        let vectors: Vec<f32> = bytes[vectors_at..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if let Some(k) = vectors.iter().position(|v| !v.is_finite()) {
            return Err(invalid(format!(
                "component {} of '{}' is not a finite number",
                k % dim,
                words[k / dim]
            )));
        }
        Ok(Shard { index, words, vectors })
    }

    /// The bytes of this shard in `set` (see the module documentation).
    pub fn to_bytes(&self, set: &ShardSet) -> Result<Vec<u8>> {
        let vocab_len: usize = self.words.iter().map(|w| w.len() + 1).sum();
        let n = u32::try_from(self.words.len()).ok().filter(|n| *n <= MAX_SHARD_WORDS);
        let vocab_u32 = u32::try_from(vocab_len).ok().filter(|v| *v <= MAX_SHARD_VOCAB_BYTES);
        let (Some(n), Some(vocab_u32)) = (n, vocab_u32) else {
            return Err(invalid(format!(
                "shard {} would hold {} words in {vocab_len} bytes: use more shards",
                self.index,
                self.words.len()
            )));
        };
        if self.vectors.len() != self.words.len() * set.dim {
            return Err(invalid(format!("shard {}: vectors do not match its words", self.index)));
        }
        let vectors_at = (SHARD_HEADER_BYTES + vocab_len).next_multiple_of(4);
        let mut out = Vec::with_capacity(vectors_at + self.vectors.len() * 4);
        out.extend_from_slice(&SHARD_MAGIC);
        out.extend_from_slice(&SHARD_VERSION.to_le_bytes());
        out.extend_from_slice(&ENCODING_F32.to_le_bytes());
        out.extend_from_slice(&set.id.to_le_bytes());
        for field in [self.index, set.count, n, set.dim as u32, vocab_u32, 0] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&[0; 8]); // the checksum, written last
        for word in &self.words {
            out.extend_from_slice(word.as_bytes());
            out.push(b'\n');
        }
        out.resize(vectors_at, 0);
        for value in &self.vectors {
            out.extend_from_slice(&value.to_le_bytes());
        }
        let checksum = fnv1a(&out[SHARD_HEADER_BYTES..]);
        out[40..48].copy_from_slice(&checksum.to_le_bytes());
        Ok(out)
    }
}

/// Splits `embeddings` into `count` shards (a power of two). Each shard keeps
/// its words in the store's row order. Returns the set and the shards in
/// index order; the same store always gives the same bytes.
pub fn split(embeddings: &Embeddings, count: u32) -> Result<(ShardSet, Vec<Shard>)> {
    // The count is the caller's choice, not something read from a file.
    if count == 0 || count > MAX_SHARDS || !count.is_power_of_two() {
        return Err(Error::InvalidOption(format!(
            "a set of {count} shards: the count must be a power of two from 1 to {MAX_SHARDS}"
        )));
    }
    let set = ShardSet::new(count, set_id(embeddings, count), embeddings.dim(), embeddings.len())?;
    let mut shards: Vec<Shard> =
        (0..count).map(|index| Shard { index, words: Vec::new(), vectors: Vec::new() }).collect();
    for (row, word) in embeddings.words().iter().enumerate() {
        let shard = &mut shards[shard_of(word, count) as usize];
        shard.words.push(word.clone());
        shard.vectors.extend_from_slice(embeddings.row(row));
    }
    Ok((set, shards))
}

fn invalid(reason: String) -> Error {
    Error::InvalidEmbeddings(reason)
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Embeddings {
        let words = ["the", "cat", "sat", "café", "n't", "1,000", "u.s.", "."];
        let vectors = (0..words.len() * 3).map(|k| k as f32 * 0.25 - 1.0).collect();
        Embeddings::new(3, words.iter().map(|w| w.to_string()).collect(), vectors).unwrap()
    }

    /// Computed independently (Python) from the published definitions.
    const SHARD_OF_A: u32 = 0xce5b;

    #[test]
    fn the_hash_is_fnv1a_64() {
        // Published test vectors of FNV-1a 64.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        // fmix64(0xaf63dc4c8601ec8c), low bits.
        assert_eq!(shard_of("a", 1 << 16), SHARD_OF_A);
        assert_eq!(shard_of("a", 16), SHARD_OF_A & 15);
        assert_eq!(shard_of("anything", 1), 0);
    }

    #[test]
    fn shards_round_trip_exactly() {
        let e = sample();
        let (set, shards) = split(&e, 4).unwrap();
        assert_eq!((set.count, set.dim, set.words), (4, 3, 8));
        let mut seen = 0;
        for shard in &shards {
            let bytes = shard.to_bytes(&set).unwrap();
            assert_eq!(&bytes[..4], b"AEWS");
            let back = Shard::parse(&bytes, &set).unwrap();
            assert_eq!(&back, shard);
            for (r, word) in back.words.iter().enumerate() {
                assert_eq!(shard_of(word, 4), shard.index);
                assert_eq!(&back.vectors[r * 3..r * 3 + 3], e.vector(word).unwrap());
                seen += 1;
            }
        }
        assert_eq!(seen, 8);
    }

    #[test]
    fn the_set_id_follows_the_contents() {
        let e = sample();
        assert_eq!(set_id(&e, 4), set_id(&e.clone(), 4));
        assert_ne!(set_id(&e, 4), set_id(&e, 8));
        let mut vectors: Vec<f32> = (0..e.len()).flat_map(|r| e.row(r).to_vec()).collect();
        vectors[5] += 1e-6;
        let changed = Embeddings::new(3, e.words().to_vec(), vectors).unwrap();
        assert_ne!(set_id(&e, 4), set_id(&changed, 4));
    }

    #[test]
    fn bad_shards_get_clear_errors() {
        let e = sample();
        let (set, shards) = split(&e, 2).unwrap();
        let shard = shards.iter().find(|s| s.words.len() >= 2).unwrap();
        let good = shard.to_bytes(&set).unwrap();
        let with = |at: usize, patch: &[u8]| {
            let mut b = good.clone();
            b[at..at + patch.len()].copy_from_slice(patch);
            b
        };
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let other_set = ShardSet { id: set.id ^ 1, ..set };
        let cases: Vec<(Vec<u8>, ShardSet, &str)> = vec![
            (good[..good.len() - 4].to_vec(), set, "truncated"),
            (good[..20].to_vec(), set, "too short"),
            ([good.clone(), vec![0; 4]].concat(), set, "has trailing bytes: "),
            (with(0, b"AEWV"), set, "wrong magic"),
            (with(4, &2u16.to_le_bytes()), set, "version 2"),
            (with(6, &2u16.to_le_bytes()), set, "encoding 2"),
            (good.clone(), other_set, "another build"),
            (with(16, &7u32.to_le_bytes()), set, "outside a set"),
            (with(24, &u32::MAX.to_le_bytes()), set, "exceeds"),
            (with(24, &1000u32.to_le_bytes()), set, "truncated"),
            (with(28, &4u32.to_le_bytes()), set, "dimension 4"),
            (flipped, set, "checksum"),
        ];
        for (bytes, set, expected) in cases {
            let err = Shard::parse(&bytes, &set).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
        // A valid shard saved under the wrong index: its words do not hash there.
        let moved = Shard { index: 1 - shard.index, ..shard.clone() };
        let err = Shard::parse(&moved.to_bytes(&set).unwrap(), &set).unwrap_err().to_string();
        assert!(err.contains("does not belong"), "{err}");
    }

    #[test]
    fn empty_shards_are_valid() {
        let set = ShardSet::new(8, 42, 3, 0).unwrap();
        let empty = Shard { index: 5, words: Vec::new(), vectors: Vec::new() };
        let bytes = empty.to_bytes(&set).unwrap();
        assert_eq!(bytes.len(), SHARD_HEADER_BYTES);
        assert_eq!(Shard::parse(&bytes, &set).unwrap(), empty);
    }

    #[test]
    fn set_numbers_are_checked() {
        assert!(ShardSet::new(0, 1, 50, 1).is_err());
        assert!(ShardSet::new(3, 1, 50, 1).is_err());
        assert!(ShardSet::new(1 << 17, 1, 50, 1).is_err());
        assert!(ShardSet::new(16, 1, 0, 1).is_err());
        assert!(ShardSet::new(16384, 1, 50, 400_000).is_ok());
        #[cfg(target_pointer_width = "64")]
        assert_eq!(
            ShardSet::new(16, 1, 50, 99_999_999_999).unwrap_err().to_string(),
            "invalid word-vector file: a set of 99,999,999,999 words: more than 4,294,967,295 words"
        );
        // A count to split by is an option, not a malformed file.
        let err = split(&sample(), 3).unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid option: a set of 3 shards: the count must be a power of two from 1 to 65536"
        );
    }
}
