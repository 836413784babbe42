//! Word vectors: the store, the project's subset file format, and the plain
//! GloVe text format.
//!
//! # The subset format, version 1
//!
//! A subset file holds `n` words and their `d`-dimensional vectors. All
//! integers are little-endian.
//!
//! | offset      | size        | field                                                        |
//! |-------------|-------------|--------------------------------------------------------------|
//! | 0           | 4           | magic: the ASCII bytes `AEWV`                                |
//! | 4           | 2           | version: `u16`, 1                                            |
//! | 6           | 2           | encoding of the vectors: `u16`, 1 = f32, 2 = f16, 3 = q16 (below) |
//! | 8           | 4           | `n`: `u32`, number of words, 1 ≤ n ≤ 4,000,000               |
//! | 12          | 4           | `d`: `u32`, dimension, 1 ≤ d ≤ 4,096                         |
//! | 16          | 4           | `V`: `u32`, byte length of the vocabulary block, ≤ 64 MiB    |
//! | 20          | `V`         | vocabulary: `n` words in row order, each UTF-8 followed by one `\n` (0x0A) |
//! | 20 + V      | 0–3         | zero bytes, so that the vectors start at a multiple of 4     |
//! | …           | see below   | vectors, row `i` for word `i`                                |
//!
//! The vector block, by encoding:
//! - **f32** (1): `n·d` IEEE 754 binary32 values, row-major. Exact.
//! - **f16** (2): `n·d` IEEE 754 binary16 values, row-major. Relative error ≤ 2⁻¹¹.
//! - **q16** (3): `n` binary32 row scales `s_i`, then `n·d` `i16` values `q_ij`,
//!   row-major; component `x_ij = q_ij · s_i`, where the writer chose
//!   `s_i = max_j |x_ij| / 32767` and `q_ij = round(x_ij / s_i)`. Absolute error
//!   ≤ `max_j |x_ij| / 65534`. Same size as f16 (plus 4 bytes a word) and, for
//!   word vectors, 8–16× more precise: the shipped subset uses it because f16
//!   moves unscaled attention weights by up to 0.0014 (see data/README.md).
//!
//! Nothing may follow the vectors. A word is 1 to 1,024 bytes, holds no
//! whitespace, and appears once. Every float is finite. Rows are in the order
//! of the source (GloVe: most frequent word first), so a prefix of the file
//! holds the most useful words.
//!
//! Malformed input gets an [`Error::InvalidEmbeddings`] that says what is
//! wrong; the reader checks that the file is exactly as long as its header
//! says before it allocates anything, so no allocation exceeds what the file
//! justifies.
//!
//! # The GloVe text format
//!
//! One word a line: the word, then `d` decimal numbers, separated by spaces
//! (`glove.6B.50d.txt`, and any other dimension). A first line of exactly two
//! integers (the word2vec header, "400000 50") is skipped.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io::Read;

use half::f16;

use crate::error::{Error, Result};
use crate::glove_text::{ReadNotes, TextReader};
use crate::shards::{shard_of, Shard, ShardSet};
use crate::tokenize::Vocabulary;

/// The four bytes every subset file starts with.
pub const MAGIC: [u8; 4] = *b"AEWV";
/// The format version this code writes and reads.
pub const VERSION: u16 = 1;
/// The largest number of words a subset may hold.
pub const MAX_WORDS: u32 = 4_000_000;
/// The largest dimension a subset may hold.
pub const MAX_DIM: u32 = 4096;
/// The largest vocabulary block, in bytes.
pub const MAX_VOCAB_BYTES: u32 = 64 << 20;
/// The longest word, in bytes.
pub const MAX_WORD_BYTES: usize = 1024;
/// The longest line of a GloVe text file, in bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;
const HEADER_BYTES: usize = 20;

/// How vector components are stored in a subset file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// IEEE 754 binary32: 4 bytes a component, exact for GloVe's published values.
    F32,
    /// IEEE 754 binary16: 2 bytes a component, relative error ≤ 2⁻¹¹.
    F16,
    /// `i16` times a per-row `f32` scale: 2 bytes a component plus 4 a row,
    /// absolute error ≤ (largest |component| of the row) / 65534.
    Q16,
}

impl Precision {
    fn code(self) -> u16 {
        match self {
            Precision::F32 => 1,
            Precision::F16 => 2,
            Precision::Q16 => 3,
        }
    }

    fn from_code(code: u16) -> Option<Self> {
        [Precision::F32, Precision::F16, Precision::Q16].into_iter().find(|p| p.code() == code)
    }

    /// Bytes of the vector block for `n` rows of `d` components, if it fits a `usize`.
    fn block_len(self, n: usize, d: usize) -> Option<usize> {
        let components = n.checked_mul(d)?;
        match self {
            Precision::F32 => components.checked_mul(4),
            Precision::F16 => components.checked_mul(2),
            Precision::Q16 => components.checked_mul(2)?.checked_add(n.checked_mul(4)?),
        }
    }
}

/// A vocabulary of words with one vector each, in a fixed row order.
///
/// A store is either *complete* (read from one file: it knows every word it
/// will ever know) or *sharded*: it starts empty, grows one shard at a time
/// ([`add_shard`](Embeddings::add_shard)), and a word whose shard has not
/// been added yet is [`Lookup::Pending`], neither known nor unknown.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    dim: usize,
    words: Vec<String>,
    index: HashMap<String, u32>,
    vectors: Vec<f32>,
    /// For a sharded store: its set and which shards are in.
    shards: Option<Coverage>,
}

#[derive(Debug, Clone, PartialEq)]
struct Coverage {
    set: ShardSet,
    loaded: Vec<bool>,
}

/// What a store can say about a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The word is in row `.0`.
    Known(usize),
    /// The vocabulary does not have the word.
    Unknown,
    /// The word's shard has not been added yet: it may or may not be known.
    Pending,
}

impl Vocabulary for Embeddings {
    fn contains_word(&self, word: &str) -> bool {
        self.index.contains_key(word)
    }

    fn is_pending(&self, word: &str) -> bool {
        self.lookup(word) == Lookup::Pending
    }
}

impl Embeddings {
    /// Builds a store from words and their vectors, checking what the subset
    /// format requires (unique non-empty words without whitespace, finite numbers).
    pub fn new(dim: usize, words: Vec<String>, vectors: Vec<f32>) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM as usize {
            return Err(invalid(format!("dimension {dim} is outside 1..={MAX_DIM}")));
        }
        if words.len().checked_mul(dim) != Some(vectors.len()) {
            return Err(invalid(format!(
                "{} numbers for {} words of dimension {dim}",
                vectors.len(),
                words.len()
            )));
        }
        let mut index = HashMap::with_capacity(words.len());
        for (row, word) in words.iter().enumerate() {
            admit(&mut index, word, row, &vectors[row * dim..(row + 1) * dim])?;
        }
        Ok(Embeddings { dim, words, index, vectors, shards: None })
    }

    /// An empty sharded store for the shards of `set` (see [`crate::shards`]).
    pub fn sharded(set: ShardSet) -> Self {
        let loaded = vec![false; set.count as usize];
        Embeddings {
            dim: set.dim,
            words: Vec::new(),
            index: HashMap::new(),
            vectors: Vec::new(),
            shards: Some(Coverage { set, loaded }),
        }
    }

    /// Reads shard `expected` of this sharded store's set and adds its words.
    /// Adding a shard twice changes nothing. Errors (the store is then
    /// unchanged): the store is not sharded; the shard is malformed or of
    /// another set; or it is another shard of the set, as a mirror serving
    /// one file under another's name would send it (taken, it would leave
    /// `expected` missing, and a caller asking for it again would ask forever).
    pub fn add_shard(&mut self, bytes: &[u8], expected: u32) -> Result<()> {
        let Some(coverage) = &self.shards else {
            return Err(invalid("this store was read from one file; it takes no shards".into()));
        };
        let shard = Shard::parse(bytes, &coverage.set)?;
        let index = shard.index;
        if index != expected {
            return Err(invalid(format!("it holds shard {index:04x}, not {expected:04x}")));
        }
        if coverage.loaded[index as usize] {
            return Ok(());
        }
        if let Some(word) = shard.words.iter().find(|w| self.index.contains_key(w.as_str())) {
            return Err(invalid(format!("the word '{word}' appears twice")));
        }
        let first = self.words.len();
        if first + shard.words.len() > MAX_WORDS as usize {
            return Err(invalid("too many words".into()));
        }
        for (k, word) in shard.words.iter().enumerate() {
            self.index.insert(word.clone(), (first + k) as u32);
        }
        self.words.extend(shard.words);
        self.vectors.extend_from_slice(&shard.vectors);
        if let Some(coverage) = &mut self.shards {
            coverage.loaded[index as usize] = true;
        }
        Ok(())
    }

    /// The shard set of a sharded store, `None` for a complete one.
    pub fn shard_set(&self) -> Option<&ShardSet> {
        self.shards.as_ref().map(|c| &c.set)
    }

    /// Whether shard `index` has been added (always true for a complete store).
    pub fn has_shard(&self, index: u32) -> bool {
        self.shards.as_ref().is_none_or(|c| c.loaded.get(index as usize).copied().unwrap_or(false))
    }

    /// The shard that holds (or would hold) `word`; 0 for a complete store.
    pub fn shard_of(&self, word: &str) -> u32 {
        self.shards.as_ref().map_or(0, |c| shard_of(word, c.set.count))
    }

    /// What the store can say about `word` (already lowercased).
    pub fn lookup(&self, word: &str) -> Lookup {
        if let Some(row) = self.index.get(word) {
            return Lookup::Known(*row as usize);
        }
        match &self.shards {
            Some(c) if !c.loaded[shard_of(word, c.set.count) as usize] => Lookup::Pending,
            _ => Lookup::Unknown,
        }
    }

    /// The shards that must be added before [`crate::tokenize`] can decide
    /// `texts` as it would with the whole vocabulary in memory, sorted. Empty
    /// for a complete store. Adding them may reveal more (a known word can
    /// change how the rest of its chunk splits): call again until empty.
    pub fn missing_shards<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        self.missing_shards_settled(texts, &mut HashSet::new())
    }

    /// [`missing_shards`](Embeddings::missing_shards), skipping the chunks
    /// (with whether each ends a sentence) that `settled` holds, and adding
    /// those that need no shard: their tokens are final, for shards are only
    /// ever added. Kept from one call to the next for this store, it makes a
    /// text typed a word at a time cost one chunk a key, not the whole text.
    /// Chunks longer than [`SETTLED_CHUNK_BYTES`] are probed every time, so
    /// that each entry stays small.
    pub fn missing_shards_settled<'a>(
        &self,
        texts: impl IntoIterator<Item = &'a str>,
        settled: &mut HashSet<(String, bool)>,
    ) -> Vec<u32> {
        let Some(coverage) = &self.shards else { return Vec::new() };
        let probe = Probe {
            store: self,
            count: coverage.set.count,
            missing: Default::default(),
            pending: Default::default(),
        };
        let mut tokens = Vec::new();
        for text in texts {
            for (chunk, ends) in crate::tokenize::chunks(text) {
                let key = (text[chunk.clone()].to_owned(), ends);
                if settled.contains(&key) {
                    continue;
                }
                let before = probe.pending.get();
                crate::tokenize::split_chunk(text, chunk, &probe, ends, &mut tokens);
                tokens.clear();
                if probe.pending.get() == before && key.0.len() <= SETTLED_CHUNK_BYTES {
                    settled.insert(key);
                }
            }
        }
        probe.missing.into_inner().into_iter().collect()
    }

    /// Words in the whole vocabulary: the set's size for a sharded store
    /// (however few shards are in), else [`len`](Embeddings::len).
    pub fn vocabulary_size(&self) -> usize {
        self.shards.as_ref().map_or(self.words.len(), |c| c.set.words)
    }

    /// Reads a subset file or, if it does not start with the subset magic, a
    /// GloVe text file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match sniff(bytes) {
            Format::Subset => Self::from_subset(bytes),
            Format::GloveText => Self::from_glove_text(bytes),
            Format::Unknown => Err(unknown_format(bytes)),
        }
    }

    /// Reads the subset format (see the module documentation).
    pub fn from_subset(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < HEADER_BYTES {
            return Err(invalid(format!(
                "the file is {} bytes, too short for the {HEADER_BYTES}-byte header (truncated?)",
                bytes.len()
            )));
        }
        if bytes[0..4] != MAGIC {
            return Err(invalid(
                "wrong magic bytes: this is not an Attention Explorer word-vector subset".into(),
            ));
        }
        let version = u16_at(bytes, 4);
        if version != VERSION {
            return Err(invalid(format!(
                "format version {version} is not supported (this build reads version {VERSION})"
            )));
        }
        let code = u16_at(bytes, 6);
        let precision = Precision::from_code(code).ok_or_else(|| {
            invalid(format!("unknown encoding code {code} (expected 1 = f32, 2 = f16 or 3 = q16)"))
        })?;
        let n = u32_at(bytes, 8);
        let dim = u32_at(bytes, 12);
        let vocab_len = u32_at(bytes, 16);
        if n == 0 || n > MAX_WORDS {
            return Err(invalid(format!("word count {n} is outside 1..={MAX_WORDS}")));
        }
        if dim == 0 || dim > MAX_DIM {
            return Err(invalid(format!("dimension {dim} is outside 1..={MAX_DIM}")));
        }
        if vocab_len > MAX_VOCAB_BYTES {
            return Err(invalid(format!("vocabulary block of {vocab_len} bytes exceeds {MAX_VOCAB_BYTES}")));
        }
        let (n, dim, vocab_len) = (n as usize, dim as usize, vocab_len as usize);
        let vectors_at = (HEADER_BYTES + vocab_len).next_multiple_of(4);
        // n ≤ 4e6, dim ≤ 4096, 4 bytes: at most 6.6e10, which fits in u64; checked for 32-bit targets.
        let expected = precision
            .block_len(n, dim)
            .and_then(|b| b.checked_add(vectors_at))
            .ok_or_else(|| invalid("the header describes a file too large for this machine".into()))?;
        if bytes.len() != expected {
            let what = if bytes.len() < expected { "is truncated" } else { "has trailing bytes" };
            return Err(invalid(format!(
                "the file {what}: {} bytes, the header describes {expected}",
                bytes.len()
            )));
        }
        if bytes[HEADER_BYTES + vocab_len..vectors_at].iter().any(|b| *b != 0) {
            return Err(invalid("padding after the vocabulary is not zero".into()));
        }

        let vocab = std::str::from_utf8(&bytes[HEADER_BYTES..HEADER_BYTES + vocab_len])
            .map_err(|e| invalid(format!("the vocabulary is not UTF-8 (byte {})", e.valid_up_to())))?;
        let Some(vocab) = vocab.strip_suffix('\n') else {
            return Err(invalid("the vocabulary block does not end with a newline".into()));
        };
        let words: Vec<String> = vocab.split('\n').map(str::to_owned).collect();
        if words.len() != n {
            return Err(invalid(format!("the header says {n} words, the vocabulary holds {}", words.len())));
        }

        let raw = &bytes[vectors_at..];
        let vectors: Vec<f32> = match precision {
            Precision::F16 => {
                raw.chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32()).collect()
            }
            Precision::F32 => {
                raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
            }
            Precision::Q16 => {
                let (scales, values) = raw.split_at(n * 4);
                let scales: Vec<f32> =
                    scales.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
                if let Some(row) = scales.iter().position(|s| !s.is_finite() || *s < 0.0) {
                    return Err(invalid(format!("the scale of row {row} is not a finite positive number")));
                }
                values
                    .chunks_exact(2)
                    .enumerate()
                    .map(|(k, c)| f32::from(i16::from_le_bytes([c[0], c[1]])) * scales[k / dim])
                    .collect()
            }
        };
        Self::new(dim, words, vectors)
    }

    /// Reads GloVe's text format (or word2vec's, with its header line) from
    /// any reader, streaming (see [`crate::glove_text`]).
    pub fn from_glove_text<R: Read>(reader: R) -> Result<Self> {
        Self::read_glove_text(reader).map(|(embeddings, _)| embeddings)
    }

    /// [`Embeddings::from_glove_text`], with what it left out or found short.
    pub fn read_glove_text<R: Read>(mut reader: R) -> Result<(Self, ReadNotes)> {
        let mut text = TextReader::new();
        let mut buffer = vec![0u8; 1 << 16];
        loop {
            let read = reader
                .read(&mut buffer)
                .map_err(|e| invalid(format!("read error after {} bytes: {e}", text.bytes())))?;
            if read == 0 {
                return text.finish_noted();
            }
            text.feed(&buffer[..read])?;
        }
    }

    /// Writes the subset format. With [`Precision::F16`] every component must
    /// fit binary16 (|x| ≤ 65504); GloVe's do, by far.
    pub fn to_subset(&self, precision: Precision) -> Result<Vec<u8>> {
        let n = u32::try_from(self.words.len()).map_err(|_| invalid("too many words".into()))?;
        let vocab_len: usize = self.words.iter().map(|w| w.len() + 1).sum();
        let vocab_len_u32 = u32::try_from(vocab_len)
            .ok()
            .filter(|v| *v <= MAX_VOCAB_BYTES)
            .ok_or_else(|| invalid(format!("vocabulary block of {vocab_len} bytes is too large")))?;
        let vectors_at = (HEADER_BYTES + vocab_len).next_multiple_of(4);
        let block = precision
            .block_len(self.words.len(), self.dim)
            .ok_or_else(|| invalid("too many vectors".into()))?;
        let mut out = Vec::with_capacity(vectors_at + block);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&precision.code().to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        out.extend_from_slice(&vocab_len_u32.to_le_bytes());
        for word in &self.words {
            out.extend_from_slice(word.as_bytes());
            out.push(b'\n');
        }
        out.resize(vectors_at, 0);
        if precision == Precision::Q16 {
            let scales: Vec<f32> = self.vectors.chunks(self.dim).map(q16_scale).collect();
            for scale in &scales {
                out.extend_from_slice(&scale.to_le_bytes());
            }
            for (k, v) in self.vectors.iter().enumerate() {
                let scale = scales[k / self.dim];
                let q = if scale > 0.0 {
                    (f64::from(*v) / f64::from(scale)).round().clamp(-32767.0, 32767.0)
                } else {
                    0.0
                };
                out.extend_from_slice(&(q as i16).to_le_bytes());
            }
            return Ok(out);
        }
        for (i, v) in self.vectors.iter().enumerate() {
            match precision {
                Precision::F16 => {
                    let h = f16::from_f32(*v);
                    if !h.is_finite() {
                        let word = &self.words[i / self.dim];
                        return Err(invalid(format!("'{word}' has the value {v}, beyond the f16 range")));
                    }
                    out.extend_from_slice(&h.to_le_bytes());
                }
                Precision::F32 | Precision::Q16 => out.extend_from_slice(&v.to_le_bytes()),
            }
        }
        Ok(out)
    }

    /// A new store with the first `top` words (most frequent first, for GloVe)
    /// followed by those of `extra` not already among them, in the order given.
    /// Extra words the store lacks are returned as the second value.
    pub fn subset<'a>(&self, top: usize, extra: impl IntoIterator<Item = &'a str>) -> (Self, Vec<String>) {
        let top = top.min(self.words.len());
        let mut words: Vec<String> = self.words[..top].to_vec();
        let mut vectors = self.vectors[..top * self.dim].to_vec();
        let mut index: HashMap<String, u32> =
            self.index.iter().filter(|(_, r)| (**r as usize) < top).map(|(w, r)| (w.clone(), *r)).collect();
        let mut missing = Vec::new();
        for word in extra {
            if index.contains_key(word) {
                continue;
            }
            match self.vector(word) {
                Some(v) => {
                    index.insert(word.to_owned(), words.len() as u32);
                    words.push(word.to_owned());
                    vectors.extend_from_slice(v);
                }
                None => {
                    if !missing.iter().any(|m| m == word) {
                        missing.push(word.to_owned());
                    }
                }
            }
        }
        (Embeddings { dim: self.dim, words, index, vectors, shards: None }, missing)
    }

    /// The dimension `d` of every vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True for a sharded store before its first word arrives.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The words in row order.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Row of `word` (0 = most frequent for GloVe), if present.
    pub fn rank(&self, word: &str) -> Option<usize> {
        self.index.get(word).map(|r| *r as usize)
    }

    /// The vector of `word`, if present.
    pub fn vector(&self, word: &str) -> Option<&[f32]> {
        self.rank(word).map(|r| self.row(r))
    }

    /// The vector in row `row`. Panics if `row >= len()` (an internal error).
    pub fn row(&self, row: usize) -> &[f32] {
        &self.vectors[row * self.dim..(row + 1) * self.dim]
    }

    /// Every vector, row after row, handed over (not copied).
    pub fn into_values(self) -> Vec<f32> {
        self.vectors
    }
}

/// Most numbers an [`EmbeddingsBuilder`] reserves room for at its start
/// (256 MB of `f32`); a larger store grows as its rows come.
const MAX_RESERVED_VALUES: usize = 1 << 26;

/// Builds a store a few rows at a time, checking each row as
/// [`Embeddings::new`] does: the page takes in a user's file of hundreds of
/// megabytes a block of rows per task, where reading it whole was one long task.
#[derive(Debug)]
pub struct EmbeddingsBuilder(Embeddings);

impl EmbeddingsBuilder {
    /// A builder of vectors of dimension `dim`, with room for about `words` words.
    pub fn new(dim: usize, words: usize) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM as usize {
            return Err(invalid(format!("dimension {dim} is outside 1..={MAX_DIM}")));
        }
        let words = words.min(MAX_WORDS as usize);
        Ok(EmbeddingsBuilder(Embeddings {
            dim,
            words: Vec::with_capacity(words),
            index: HashMap::with_capacity(words),
            vectors: Vec::with_capacity(words.saturating_mul(dim).min(MAX_RESERVED_VALUES)),
            shards: None,
        }))
    }

    /// The store so far.
    pub fn store(&self) -> &Embeddings {
        &self.0
    }

    /// Adds `word` and its `vector`; refuses, adding nothing, a vector of
    /// another dimension, a word [`Embeddings::new`] would refuse, or a
    /// word already added.
    pub fn push(&mut self, word: &str, vector: &[f32]) -> Result<()> {
        let store = &mut self.0;
        if vector.len() != store.dim {
            return Err(invalid(format!("'{word}' has {} numbers, not {}", vector.len(), store.dim)));
        }
        admit(&mut store.index, word, store.words.len(), vector)?;
        store.words.push(word.to_owned());
        store.vectors.extend_from_slice(vector);
        Ok(())
    }

    /// The store of the words added; refuses a store without a word.
    pub fn finish(self) -> Result<Embeddings> {
        if self.0.is_empty() {
            return Err(invalid("the store holds no word vectors".into()));
        }
        Ok(self.0)
    }
}

/// Checks row `row` (`word` and its `vector`) as a store requires (see
/// [`Embeddings::new`]) and adds the word to `index`.
fn admit(index: &mut HashMap<String, u32>, word: &str, row: usize, vector: &[f32]) -> Result<()> {
    check_word(word, row)?;
    if let Some(i) = vector.iter().position(|v| !v.is_finite()) {
        return Err(invalid(format!("component {i} of '{word}' is not a finite number")));
    }
    let row_u32 = u32::try_from(row).map_err(|_| invalid("too many words".into()))?;
    match index.entry(word.to_owned()) {
        Entry::Occupied(_) => Err(invalid(format!("the word '{word}' appears twice"))),
        Entry::Vacant(entry) => {
            entry.insert(row_u32);
            Ok(())
        }
    }
}

/// The longest chunk of text [`Embeddings::missing_shards_settled`] keeps,
/// in bytes: a word with its punctuation is far shorter.
pub const SETTLED_CHUNK_BYTES: usize = 64;

/// Answers the tokenizer from a sharded store and records the shards of
/// every word it could not answer.
struct Probe<'a> {
    store: &'a Embeddings,
    count: u32,
    missing: std::cell::RefCell<std::collections::BTreeSet<u32>>,
    /// Words asked for whose shard is missing (a shard already named counts again).
    pending: std::cell::Cell<usize>,
}

impl Vocabulary for Probe<'_> {
    fn contains_word(&self, word: &str) -> bool {
        match self.store.lookup(word) {
            Lookup::Known(_) => true,
            Lookup::Unknown => false,
            Lookup::Pending => {
                self.missing.borrow_mut().insert(shard_of(word, self.count));
                self.pending.set(self.pending.get() + 1);
                false
            }
        }
    }
}

/// The q16 scale of a row: its largest magnitude over 32767, so that the
/// largest component maps to ±32767 exactly.
fn q16_scale(row: &[f32]) -> f32 {
    let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
    (f64::from(max) / 32767.0) as f32
}

/// What a file looks like from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Starts with the subset magic `AEWV`.
    Subset,
    /// A first line of a word and at least one number (or a word2vec header).
    GloveText,
    /// Neither.
    Unknown,
}

/// Tells the format from the first bytes of a file (4 KiB are enough).
pub fn sniff(head: &[u8]) -> Format {
    if head.starts_with(&MAGIC) {
        return Format::Subset;
    }
    let line = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let Ok(line) = std::str::from_utf8(line) else {
        // The 4 KiB window may cut a character; a text file's first line is shorter.
        return Format::Unknown;
    };
    let mut fields = line.split_ascii_whitespace();
    match (fields.next(), fields.next()) {
        (Some(_), Some(number)) if number.parse::<f32>().is_ok() => Format::GloveText,
        _ => Format::Unknown,
    }
}

/// The error for a file that is neither format.
pub fn unknown_format(head: &[u8]) -> Error {
    if head.is_empty() {
        return invalid("the file is empty".into());
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        return crate::glove_text::not_text(1, head, false);
    }
    // A line of text (a word, then numbers) whose word has bytes that are not UTF-8.
    let line = String::from_utf8_lossy(head.split(|b| *b == b'\n').next().unwrap_or_default()).into_owned();
    let mut fields = line.split_ascii_whitespace();
    if let (Some(_), Some(number)) = (fields.next(), fields.next()) {
        if number.parse::<f32>().is_ok() {
            return invalid("line 1 is not UTF-8 text, so this is not a word-vector text file".into());
        }
    }
    let magic: String = head
        .iter()
        .take(4)
        .map(|b| char::from(*b))
        .map(|c| if c.is_ascii_graphic() { c } else { '.' })
        .collect();
    invalid(format!(
        "wrong magic bytes '{magic}': expected an Attention Explorer subset (starting with 'AEWV') \
         or GloVe text ('word 0.418 0.24968 …' on each line)"
    ))
}

fn invalid(reason: String) -> Error {
    Error::InvalidEmbeddings(reason)
}

pub(crate) fn check_word(word: &str, row: usize) -> Result<()> {
    if word.is_empty() {
        return Err(invalid(format!("word {row} is empty")));
    }
    if word.len() > MAX_WORD_BYTES {
        return Err(invalid(format!("word {row} is longer than {MAX_WORD_BYTES} bytes")));
    }
    if word.chars().any(char::is_whitespace) {
        return Err(invalid(format!("word {row} ('{}') holds whitespace", word.escape_debug())));
    }
    Ok(())
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Embeddings {
        Embeddings::new(
            3,
            vec!["the".into(), "cat".into(), "ça".into()],
            vec![0.418, 0.24968, -0.41242, 1.0, 2.0, 3.0, -0.5, 0.25, 65504.0],
        )
        .unwrap()
    }

    #[test]
    fn a_store_built_a_row_at_a_time_is_the_store_of_its_rows() {
        let whole = sample();
        let mut builder = EmbeddingsBuilder::new(3, 2).unwrap();
        for (row, word) in whole.words().iter().enumerate() {
            builder.push(word, whole.row(row)).unwrap();
        }
        assert_eq!(builder.store().len(), 3);
        assert_eq!(builder.finish().unwrap(), whole);
    }

    #[test]
    fn a_builder_refuses_a_bad_row_and_keeps_the_good_ones() {
        let mut builder = EmbeddingsBuilder::new(2, 4).unwrap();
        builder.push("the", &[1.0, 2.0]).unwrap();
        for (word, vector, expected) in [
            ("the", [3.0, 4.0].as_slice(), "the word 'the' appears twice"),
            ("cat", &[f32::NAN, 0.0], "component 0 of 'cat' is not a finite number"),
            ("cat", &[1.0], "'cat' has 1 numbers, not 2"),
            ("a b", &[1.0, 2.0], "holds whitespace"),
            ("", &[1.0, 2.0], "word 1 is empty"),
        ] {
            let err = builder.push(word, vector).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
        // Nothing of the refused rows stayed: 'cat' comes in row 1, and 'the' keeps its row.
        builder.push("cat", &[5.0, 6.0]).unwrap();
        let store = builder.finish().unwrap();
        assert_eq!(store.words(), ["the", "cat"]);
        assert_eq!((store.rank("the"), store.vector("cat")), (Some(0), Some(&[5.0, 6.0][..])));
        assert!(EmbeddingsBuilder::new(2, 0).unwrap().finish().is_err(), "no word");
        assert!(EmbeddingsBuilder::new(0, 1).is_err() && EmbeddingsBuilder::new(5000, 1).is_err());
        assert_eq!(store.into_values(), [1.0, 2.0, 5.0, 6.0]);
    }

    #[test]
    fn subset_round_trip_f32_is_exact() {
        let e = sample();
        let bytes = e.to_subset(Precision::F32).unwrap();
        assert_eq!(&bytes[0..4], b"AEWV");
        assert_eq!(Embeddings::from_subset(&bytes).unwrap(), e);
    }

    #[test]
    fn subset_layout_is_as_documented() {
        let bytes = sample().to_subset(Precision::F16).unwrap();
        assert_eq!(u16_at(&bytes, 4), 1);
        assert_eq!(u16_at(&bytes, 6), 2);
        assert_eq!(u32_at(&bytes, 8), 3);
        assert_eq!(u32_at(&bytes, 12), 3);
        let vocab = "the\ncat\nça\n";
        assert_eq!(u32_at(&bytes, 16) as usize, vocab.len());
        assert_eq!(&bytes[20..20 + vocab.len()], vocab.as_bytes());
        let at = (20 + vocab.len()).next_multiple_of(4);
        assert_eq!(bytes.len(), at + 9 * 2);
        assert_eq!(f16::from_le_bytes([bytes[at], bytes[at + 1]]).to_f32(), 0.418f32.to_f32_f16());
    }

    trait ToF16 {
        fn to_f32_f16(self) -> f32;
    }
    impl ToF16 for f32 {
        fn to_f32_f16(self) -> f32 {
            f16::from_f32(self).to_f32()
        }
    }

    #[test]
    fn f16_moves_values_by_at_most_half_an_ulp() {
        let e = sample();
        let back = Embeddings::from_subset(&e.to_subset(Precision::F16).unwrap()).unwrap();
        for (a, b) in e.vectors.iter().zip(&back.vectors) {
            assert!((a - b).abs() <= a.abs() * 2f32.powi(-11), "{a} vs {b}");
        }
    }

    #[test]
    fn q16_error_is_within_its_bound_and_the_row_maximum_is_exact() {
        let e = sample();
        let bytes = e.to_subset(Precision::Q16).unwrap();
        assert_eq!(u16_at(&bytes, 6), 3);
        let back = Embeddings::from_subset(&bytes).unwrap();
        for (row, back_row) in e.vectors.chunks(3).zip(back.vectors.chunks(3)) {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            for (a, b) in row.iter().zip(back_row) {
                assert!((a - b).abs() <= max / 65534.0 * 1.001, "{a} vs {b}");
            }
        }
        assert_eq!(back.vector("ça").unwrap()[2], 65504.0);
        let zero = Embeddings::new(2, vec!["z".into()], vec![0.0, 0.0]).unwrap();
        let back = Embeddings::from_subset(&zero.to_subset(Precision::Q16).unwrap()).unwrap();
        assert_eq!(back.vector("z"), Some(&[0.0, 0.0][..]));
    }

    #[test]
    fn malformed_subsets_get_clear_errors() {
        let good = sample().to_subset(Precision::F16).unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 1].to_vec(), "truncated"),
            (good[..10].to_vec(), "too short"),
            ([good.clone(), vec![0]].concat(), "the file has trailing bytes: "),
            ([b"GLOV".to_vec(), good[4..].to_vec()].concat(), "wrong magic"),
            ([good[..4].to_vec(), 2u16.to_le_bytes().to_vec(), good[6..].to_vec()].concat(), "version 2"),
            (
                [good[..6].to_vec(), 8u16.to_le_bytes().to_vec(), good[8..].to_vec()].concat(),
                "encoding code 8",
            ),
            (
                [good[..8].to_vec(), u32::MAX.to_le_bytes().to_vec(), good[12..].to_vec()].concat(),
                "word count",
            ),
            ([good[..12].to_vec(), 0u32.to_le_bytes().to_vec(), good[16..].to_vec()].concat(), "dimension 0"),
        ];
        for (bytes, expected) in cases {
            let err = Embeddings::from_subset(&bytes).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
    }

    #[test]
    fn duplicate_words_are_refused() {
        let mut bytes = sample().to_subset(Precision::F32).unwrap();
        let at = bytes.windows(3).position(|w| w == b"cat").unwrap();
        bytes[at..at + 3].copy_from_slice(b"the");
        let err = Embeddings::from_subset(&bytes).unwrap_err().to_string();
        assert!(err.contains("appears twice"), "{err}");
    }

    #[test]
    fn binary_files_with_another_magic_are_named_as_such() {
        let err = Embeddings::from_bytes(b"GLOV\x00\x01\x02\x03binary").unwrap_err().to_string();
        assert!(err.contains("wrong magic bytes 'GLOV'"), "{err}");
        let said = |bytes: &[u8]| Embeddings::from_bytes(bytes).unwrap_err().to_string();
        assert!(said(b"").ends_with("the file is empty"), "{}", said(b""));
        let gz = said(b"\x1f\x8b\x08\x00\x00\x00\x00\x00");
        assert!(gz.contains("gzip-compressed file: decompress it first"), "{gz}");
        assert!(
            said(b"\xff\xfe 1 2 3\n").contains("line 1 is not UTF-8 text"),
            "{}",
            said(b"\xff\xfe 1 2 3\n")
        );
        assert_eq!(sniff(b"the 0.1 0.2\n"), Format::GloveText);
        assert_eq!(sniff(b"400000 50\nthe 0.1\n"), Format::GloveText);
        assert_eq!(sniff(b"AEWV\x01"), Format::Subset);
        assert_eq!(sniff(b"<html>"), Format::Unknown);
    }

    #[test]
    fn glove_text_of_any_dimension() {
        let text = "the 0.418 0.24968\ncat 1 2\n\n";
        let e = Embeddings::from_glove_text(text.as_bytes()).unwrap();
        assert_eq!((e.len(), e.dim()), (2, 2));
        assert_eq!(e.vector("cat"), Some(&[1.0, 2.0][..]));
        let with_header = "2 2\nthe 0.418 0.24968\ncat 1 2\n";
        assert_eq!(Embeddings::from_bytes(with_header.as_bytes()).unwrap(), e);
    }

    #[test]
    fn bad_glove_text_names_the_line() {
        for (text, expected) in [
            ("the 1 2\ncat 1\n", "line 2"),
            ("the 1 x\n", "not a number"),
            ("the 1 inf\n", "not a finite number"),
            ("the 1\ncat\n", "has 0 numbers"),
            ("the 1\nthe 2\n", "appears twice"),
        ] {
            let err = Embeddings::from_bytes(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
    }

    /// A sharded store of `full`, fed shard by shard until `text` needs no more.
    fn sharded_for(full: &Embeddings, count: u32, text: &str) -> (Embeddings, usize) {
        let (set, shards) = crate::shards::split(full, count).unwrap();
        let mut store = Embeddings::sharded(set);
        let mut rounds = 0;
        loop {
            let missing = store.missing_shards([text]);
            if missing.is_empty() {
                return (store, rounds);
            }
            rounds += 1;
            for k in missing {
                store.add_shard(&shards[k as usize].to_bytes(&set).unwrap(), k).unwrap();
            }
        }
    }

    #[test]
    fn a_sharded_store_tokenizes_as_the_whole_vocabulary_does() {
        let words = ["the", "u.s.", "is", "n't", "ca", "well-known", "...", "1,000", ".", "it", "'s", "cat"];
        let vectors = (0..words.len() * 2).map(|k| k as f32).collect();
        let full = Embeddings::new(2, words.iter().map(|w| w.to_string()).collect(), vectors).unwrap();
        for text in ["The U.S. isn't well-known...", "It's 1,000 cats.", "can't", "zzz", "the the"] {
            for count in [1, 2, 8, 64] {
                let (store, rounds) = sharded_for(&full, count, text);
                assert!(rounds <= 3, "{text:?}: {rounds} rounds");
                assert_eq!(
                    crate::tokenize(text, &store),
                    crate::tokenize(text, &full),
                    "{text:?} with {count} shards"
                );
                assert!(store.len() <= full.len());
                assert_eq!(store.vocabulary_size(), full.len());
            }
        }
    }

    #[test]
    fn settled_chunks_are_probed_once_and_a_chunk_still_waiting_is_never_settled() {
        let words = ["the", "u.s.", "is", "n't", "ca", "well-known", "...", "1,000", ".", "it", "'s", "cat"];
        let vectors = (0..words.len() * 2).map(|k| k as f32).collect();
        let full = Embeddings::new(2, words.iter().map(|w| w.to_string()).collect(), vectors).unwrap();
        // One shard: "the" and "cat" both wait for it, and "cat" must not pass for settled
        // because its shard was named already.
        let (set, shards) = crate::shards::split(&full, 1).unwrap();
        let mut store = Embeddings::sharded(set);
        let mut settled = HashSet::new();
        assert_eq!(store.missing_shards_settled(["the cat"], &mut settled), [0]);
        assert!(settled.is_empty(), "{settled:?}");
        store.add_shard(&shards[0].to_bytes(&set).unwrap(), 0).unwrap();
        assert!(store.missing_shards_settled(["the cat"], &mut settled).is_empty());
        let key = |chunk: &str, ends| (chunk.to_owned(), ends);
        assert_eq!(settled, HashSet::from([key("the", false), key("cat", true)]));
        // Typed on: "cat" no longer ends the text (another chunk), "the" is not probed again.
        assert!(store.missing_shards_settled(["the cat zzz"], &mut settled).is_empty());
        assert_eq!(settled.len(), 4);
        // A chunk longer than the limit is probed each time, never kept.
        let long = "z".repeat(SETTLED_CHUNK_BYTES + 1);
        assert!(store.missing_shards_settled([long.as_str()], &mut settled).is_empty());
        assert_eq!(settled.len(), 4);
        // Over several shards, word by word, the answers are those of a store probed whole each time.
        for count in [2, 8, 64] {
            let (set, shards) = crate::shards::split(&full, count).unwrap();
            let mut store = Embeddings::sharded(set);
            let mut settled = HashSet::new();
            let mut text = String::new();
            for word in "The U.S. isn't well-known... It's 1,000 cats. can't".split(' ') {
                text = if text.is_empty() { word.to_owned() } else { format!("{text} {word}") };
                loop {
                    let missing = store.missing_shards_settled([text.as_str()], &mut settled);
                    assert_eq!(
                        missing,
                        store.missing_shards([text.as_str()]),
                        "{text:?} with {count} shards"
                    );
                    if missing.is_empty() {
                        break;
                    }
                    for k in missing {
                        store.add_shard(&shards[k as usize].to_bytes(&set).unwrap(), k).unwrap();
                    }
                }
                assert_eq!(
                    crate::tokenize(&text, &store),
                    crate::tokenize(&text, &full),
                    "{text:?} with {count} shards"
                );
            }
        }
    }

    #[test]
    fn words_of_missing_shards_are_pending_not_unknown() {
        let full = sample();
        let (set, shards) = crate::shards::split(&full, 4).unwrap();
        let mut store = Embeddings::sharded(set);
        assert!(store.is_empty());
        assert_eq!(store.lookup("cat"), Lookup::Pending);
        let tokens = crate::tokenize("cat", &store);
        assert!(tokens[0].pending && !tokens[0].known);
        // An analysis says what is missing, not that the word is unknown.
        let err = crate::analyze("cat", &store, &crate::Options::default()).unwrap_err();
        assert_eq!(err.to_string(), "the vectors of 'cat' have not arrived");
        let k = store.shard_of("cat");
        assert_eq!(store.missing_shards(["cat"]), [k]);
        store.add_shard(&shards[k as usize].to_bytes(&set).unwrap(), k).unwrap();
        assert!(store.has_shard(k));
        assert_eq!(store.vector("cat"), full.vector("cat"));
        // Adding the same shard again changes nothing.
        store.add_shard(&shards[k as usize].to_bytes(&set).unwrap(), k).unwrap();
        assert_eq!(store.len(), shards[k as usize].words.len());
        // A word of a loaded shard that the set lacks is unknown.
        let absent = (0..).map(|i| format!("zz{i}")).find(|w| store.shard_of(w) == k).unwrap();
        assert_eq!(store.lookup(&absent), Lookup::Unknown);
        // A complete store takes no shards and is never pending.
        assert!(full.clone().add_shard(&shards[0].to_bytes(&set).unwrap(), 0).is_err());
        assert!(full.missing_shards(["zzz"]).is_empty());
        assert_eq!(full.lookup("zzz"), Lookup::Unknown);
    }

    #[test]
    fn a_bad_shard_leaves_the_store_unchanged() {
        let full = sample();
        let (set, shards) = crate::shards::split(&full, 2).unwrap();
        let mut store = Embeddings::sharded(set);
        let mut bytes = shards[0].to_bytes(&set).unwrap();
        bytes.truncate(bytes.len() - 1);
        assert!(store.add_shard(&bytes, 0).is_err());
        assert!(store.is_empty() && !store.has_shard(0));
        // Shard 1 served as shard 0 (a mirror's wrong name) is refused too.
        let error = store.add_shard(&shards[1].to_bytes(&set).unwrap(), 0).unwrap_err();
        assert_eq!(error.to_string(), "invalid word-vector file: it holds shard 0001, not 0000");
        assert!(store.is_empty() && !store.has_shard(0) && !store.has_shard(1));
    }

    #[test]
    fn subset_keeps_top_words_then_extras() {
        let (s, missing) = sample().subset(1, ["ça", "the", "zzz"]);
        assert_eq!(s.words(), ["the", "ça"]);
        assert_eq!(s.vector("ça"), Some(&[-0.5, 0.25, 65504.0][..]));
        assert_eq!(missing, ["zzz"]);
    }
}
