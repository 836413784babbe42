//! The project's model files: a BERT-style encoder split in two kinds of
//! file, so that the page downloads only what a sentence needs.
//!
//! - The **core** file (`AEBM`, version 2): configuration, WordPiece
//!   vocabulary, every tensor except the word-embedding table, and a
//!   checksum of every embedding shard. MiniLM: 22.0 MB in f16.
//! - The **embedding shards** (`AEWE`, version 1): shard `k` holds rows
//!   `k·R .. (k+1)·R` of the word-embedding table (vocab_size, hidden); the
//!   last shard may hold fewer. MiniLM: R = 32, 954 shards of 24,600 bytes.
//!   BERT's vocabulary gives frequent words low ids, so a sentence touches
//!   few shards: "The cat sat on the mat because it was tired" needs 7.
//!
//! Version 1 of `AEBM` (one file with the whole table) is no longer read:
//! `scripts/build-model` writes version 2.
//!
//! # The core file, `AEBM` version 2
//!
//! All integers and floats are little-endian. Offsets are from the start of the file.
//!
//! | offset | size | field |
//! |--------|------|-------|
//! | 0      | 4    | magic: the ASCII bytes `AEBM` (Attention Explorer BERT model) |
//! | 4      | 2    | version: `u16`, 2 |
//! | 6      | 2    | reserved: `u16`, 0 |
//! | 8      | 4    | `vocab_size`: `u32`, 3 ≤ v ≤ 1,000,000 |
//! | 12     | 4    | `hidden`: `u32`, 1 ≤ h ≤ 4,096 |
//! | 16     | 4    | `layers`: `u32`, 1 ≤ l ≤ 64 |
//! | 20     | 4    | `heads`: `u32`, 1 ≤ a ≤ h, and a divides h |
//! | 24     | 4    | `intermediate`: `u32`, 1 ≤ i ≤ 16,384 (the MLP width) |
//! | 28     | 4    | `max_positions`: `u32`, 2 ≤ p ≤ 8,192 |
//! | 32     | 4    | `type_vocab`: `u32`, 1 ≤ t ≤ 16 (segment embeddings; only row 0 is used) |
//! | 36     | 4    | `layer_norm_eps`: `f32`, finite, > 0 |
//! | 40     | 4    | `V`: `u32`, byte length of the vocabulary block, ≤ 16 MiB |
//! | 44     | 4    | `T`: `u32`, number of tensors in the table, exactly 4 + 16·l |
//! | 48     | 4    | `R`: `u32`, rows per embedding shard, 1 ≤ R ≤ v; there are `S = ⌈v / R⌉` shards |
//! | 52     | 1    | dtype of the word embeddings in the shards: `u8`, 1 = f32, 2 = f16, 3 = q8 |
//! | 53     | 3    | reserved: 0 |
//! | 56     | 8·S  | shard checksums: `S` × `u64`, the FNV-1a 64 hash of each whole shard file, in shard order |
//! | 56+8·S | `V`  | vocabulary: `vocab_size` entries in id order, each UTF-8 followed by one `\n` |
//! | …      | 0–3  | zero bytes up to a multiple of 4 |
//! | …      | …    | tensor table: `T` entries, described below, one after the other |
//! | …      | 0–3  | zero bytes up to a multiple of 4 |
//! | …      | …    | tensor data, in table order, each starting at a multiple of 4 (zero padding between) |
//!
//! A tensor table entry:
//!
//! | size    | field |
//! |---------|-------|
//! | 2       | `L`: `u16`, length of the name, 1 ≤ L ≤ 128 |
//! | 1       | dtype: `u8`, 1 = f32, 2 = f16 (IEEE 754 binary16), 3 = q8 (see below) |
//! | 1       | rank: `u8`, 1 or 2 |
//! | 4·rank  | dimensions: `u32` each, 1 ≤ d ≤ 16,777,216, row-major (last dimension varies fastest) |
//! | `L`     | name: UTF-8, the Hugging Face `BertModel` name, e.g. `encoder.layer.0.attention.self.query.weight` |
//!
//! Tensor data by dtype, for `c` elements in `r` rows (a rank-2 tensor (r, k) has r rows):
//! - f32: `4·c` bytes;
//! - f16: `2·c` bytes;
//! - q8 (rank 2 only): `r` `f32` scales, then `c` `i8` values; element `(i, j)`
//!   is `value[i][j] · scale[i]`, values in −127..=127.
//!
//! Nothing may follow the last tensor. Every float is finite.
//!
//! The tensors are exactly these, in any order (h = hidden, i = intermediate,
//! `{n}` = 0 … l−1), linear weights stored as (out, in) like PyTorch's `Linear`:
//! - `embeddings.position_embeddings.weight` (max_positions, h),
//!   `embeddings.token_type_embeddings.weight` (type_vocab, h),
//!   `embeddings.LayerNorm.weight` and `.bias` (h);
//! - per layer, `encoder.layer.{n}.` followed by `attention.self.query`, `attention.self.key`,
//!   `attention.self.value`, `attention.output.dense` (`.weight` (h, h), `.bias` (h));
//!   `attention.output.LayerNorm` (`.weight`, `.bias` (h)); `intermediate.dense`
//!   (`.weight` (i, h), `.bias` (i)); `output.dense` (`.weight` (h, i), `.bias` (h));
//!   `output.LayerNorm` (`.weight`, `.bias` (h)).
//!
//! `embeddings.word_embeddings.weight` (vocab_size, h) is not in the core: it
//! lives in the shards.
//!
//! Version 2 always means the BERT-uncased WordPiece tokenizer (see
//! [`crate::wordpiece`]) and GELU with erf; the vocabulary must hold `[UNK]`,
//! `[CLS]` and `[SEP]`.
//!
//! # An embedding shard, `AEWE` version 1
//!
//! | offset | size | field |
//! |--------|------|-------|
//! | 0      | 4    | magic: the ASCII bytes `AEWE` (Attention Explorer word embeddings) |
//! | 4      | 2    | version: `u16`, 1 |
//! | 6      | 1    | dtype: `u8`, 1 = f32, 2 = f16, 3 = q8 |
//! | 7      | 1    | reserved: 0 |
//! | 8      | 4    | shard index `k`: `u32` |
//! | 12     | 4    | first row: `u32`, `k·R` |
//! | 16     | 4    | row count `r`: `u32`, 1 ≤ r, `R` except in the last shard; first row + r ≤ 1,000,000 |
//! | 20     | 4    | dimension: `u32`, 1 ≤ h ≤ 4,096, the model's hidden size |
//! | 24     | …    | data: `r` rows of `h` values, stored as tensor data of that dtype (above) |
//!
//! The file is exactly 24 + data bytes long; every float is finite. A shard
//! belongs to a core when its index is below `S`, its first row, row count,
//! dimension and dtype are the ones the core implies, and the FNV-1a 64 hash
//! of the whole shard file equals the core's checksum `k`: a shard of another
//! model or another build (say, a stale browser cache) is refused.
//!
//! # Untrusted input
//! The readers check the header's limits, walk the tensor table with bounds
//! checks, and check that a file is exactly as long as its header says
//! before they allocate any tensor, so no allocation exceeds what the file
//! justifies. Malformed input gets [`Error::InvalidModel`](crate::Error::InvalidModel),
//! never a panic.

use std::collections::HashMap;

use half::f16;

use crate::error::{invalid, Result};

/// The four bytes every core file starts with.
pub const MAGIC: [u8; 4] = *b"AEBM";
/// The core format version this code writes and reads.
pub const VERSION: u16 = 2;
/// The four bytes every embedding shard starts with.
pub const SHARD_MAGIC: [u8; 4] = *b"AEWE";
/// The shard format version this code writes and reads.
pub const SHARD_VERSION: u16 = 1;
/// Bytes before a shard's data.
pub const SHARD_HEADER_BYTES: usize = 24;
/// The name of the word-embedding table, the tensor the shards hold.
pub const WORD_EMBEDDINGS: &str = "embeddings.word_embeddings.weight";
const HEADER_BYTES: usize = 56;
const MAX_VOCAB_SIZE: u32 = 1_000_000;
const MAX_HIDDEN: u32 = 4096;
const MAX_LAYERS: u32 = 64;
const MAX_INTERMEDIATE: u32 = 16_384;
const MAX_POSITIONS: u32 = 8192;
const MAX_TYPE_VOCAB: u32 = 16;
const MAX_VOCAB_BYTES: u32 = 16 << 20;
const MAX_NAME_BYTES: usize = 128;
const MAX_DIM: u32 = 1 << 24;
/// The shape of a BERT encoder, as in Hugging Face's `config.json`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Rows of the word-embedding table (30,522 for MiniLM).
    pub vocab_size: usize,
    /// Width of every hidden state (384).
    pub hidden: usize,
    /// Encoder layers (6).
    pub layers: usize,
    /// Attention heads per layer (12); each has `hidden / heads` dimensions.
    pub heads: usize,
    /// Width of the MLP inside each layer (1,536).
    pub intermediate: usize,
    /// Longest input, in pieces, [CLS] and [SEP] included (512).
    pub max_positions: usize,
    /// Rows of the segment-embedding table (2); only row 0 is used.
    pub type_vocab: usize,
    /// The ε of every LayerNorm (1e-12).
    pub layer_norm_eps: f32,
}

/// How a tensor's numbers are stored in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    /// IEEE 754 binary32, exact.
    F32,
    /// IEEE 754 binary16: relative error ≤ 2⁻¹¹.
    F16,
    /// 8-bit integers with one f32 scale per row: error ≤ max|row| / 254.
    Q8,
}

impl DType {
    fn code(self) -> u8 {
        match self {
            DType::F32 => 1,
            DType::F16 => 2,
            DType::Q8 => 3,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(DType::F32),
            2 => Some(DType::F16),
            3 => Some(DType::Q8),
            _ => None,
        }
    }

    /// Bytes of data for a tensor of `rows` rows and `count` elements.
    pub(crate) fn data_bytes(self, rows: usize, count: usize) -> Option<usize> {
        match self {
            DType::F32 => count.checked_mul(4),
            DType::F16 => count.checked_mul(2),
            DType::Q8 => rows.checked_mul(4)?.checked_add(count),
        }
    }
}

/// A named tensor of f32 values, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// The Hugging Face name, e.g. `embeddings.LayerNorm.weight`.
    pub name: String,
    /// One or two dimensions.
    pub shape: Vec<usize>,
    /// `shape.iter().product()` values.
    pub values: Vec<f32>,
}

/// The tensors a model of this configuration needs, with their shapes: the
/// word embeddings first, then what the core file holds.
pub fn required_tensors(config: &Config) -> Vec<(String, Vec<usize>)> {
    let (h, i) = (config.hidden, config.intermediate);
    let mut out = vec![
        (WORD_EMBEDDINGS.to_owned(), vec![config.vocab_size, h]),
        ("embeddings.position_embeddings.weight".to_owned(), vec![config.max_positions, h]),
        ("embeddings.token_type_embeddings.weight".to_owned(), vec![config.type_vocab, h]),
        ("embeddings.LayerNorm.weight".to_owned(), vec![h]),
        ("embeddings.LayerNorm.bias".to_owned(), vec![h]),
    ];
    for n in 0..config.layers {
        let p = format!("encoder.layer.{n}.");
        for (name, out_dim, in_dim) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            out.push((format!("{p}{name}.weight"), vec![out_dim, in_dim]));
            out.push((format!("{p}{name}.bias"), vec![out_dim]));
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            out.push((format!("{p}{name}.weight"), vec![h]));
            out.push((format!("{p}{name}.bias"), vec![h]));
        }
    }
    out
}

/// A model as files: the core and the embedding shards, in shard order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    /// The `AEBM` core file.
    pub core: Vec<u8>,
    /// The `AEWE` shard files; shard `k` holds rows `k·R .. (k+1)·R`.
    pub shards: Vec<Vec<u8>>,
}

/// Writes a model as a core file and its embedding shards of
/// `rows_per_shard` rows. `dtype_of` chooses each tensor's storage from its
/// name ([`WORD_EMBEDDINGS`] for the shards; q8 is only possible for rank-2
/// tensors, rank-1 ones fall back to f16). The tensors are written in the
/// order given; the writer checks that they are exactly those
/// [`required_tensors`] lists, with those shapes.
pub fn encode(
    config: &Config,
    vocab: &[String],
    tensors: &[Tensor],
    dtype_of: impl Fn(&str) -> DType,
    rows_per_shard: usize,
) -> Result<ModelFiles> {
    check_config(config)?;
    if vocab.len() != config.vocab_size {
        return Err(invalid(format!(
            "{} vocabulary entries for vocab_size {}",
            vocab.len(),
            config.vocab_size
        )));
    }
    if !(1..=config.vocab_size).contains(&rows_per_shard) {
        return Err(invalid(format!(
            "{rows_per_shard} rows per shard: expected 1 to the vocabulary size {}",
            config.vocab_size
        )));
    }
    let required: HashMap<String, Vec<usize>> = required_tensors(config).into_iter().collect();
    if tensors.len() != required.len() {
        return Err(invalid(format!("{} tensors given, the model needs {}", tensors.len(), required.len())));
    }
    for t in tensors {
        match required.get(&t.name) {
            None => return Err(invalid(format!("unexpected tensor '{}'", t.name))),
            Some(shape) if *shape != t.shape => {
                return Err(invalid(format!(
                    "tensor '{}' has shape {:?}, expected {shape:?}",
                    t.name, t.shape
                )))
            }
            Some(_) if t.values.len() != t.shape.iter().product::<usize>() => {
                return Err(invalid(format!("tensor '{}' has the wrong number of values", t.name)))
            }
            Some(_) => {}
        }
        if t.values.iter().any(|v| !v.is_finite()) {
            return Err(invalid(format!("tensor '{}' holds a value that is not finite", t.name)));
        }
    }
    let dtype_of = |t: &Tensor| match dtype_of(&t.name) {
        DType::Q8 if t.shape.len() != 2 => DType::F16,
        other => other,
    };
    let (words, tensors): (Vec<&Tensor>, Vec<&Tensor>) =
        tensors.iter().partition(|t| t.name == WORD_EMBEDDINGS);
    let words = words.first().ok_or_else(|| invalid(format!("the tensor '{WORD_EMBEDDINGS}' is missing")))?;
    let word_dtype = dtype_of(words);

    // The shards first: the core holds their checksums.
    let h = config.hidden;
    let mut shards = Vec::new();
    for (k, rows) in words.values.chunks(rows_per_shard * h).enumerate() {
        let mut out = Vec::with_capacity(SHARD_HEADER_BYTES + rows.len() * 4);
        out.extend_from_slice(&SHARD_MAGIC);
        out.extend_from_slice(&SHARD_VERSION.to_le_bytes());
        out.push(word_dtype.code());
        out.push(0);
        for value in [k, k * rows_per_shard, rows.len() / h, h] {
            out.extend_from_slice(&(value as u32).to_le_bytes());
        }
        write_data(&mut out, word_dtype, rows, h, WORD_EMBEDDINGS)?;
        shards.push(out);
    }

    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    let vocab_bytes: usize = vocab.iter().map(|w| w.len() + 1).sum();
    for value in [
        config.vocab_size,
        config.hidden,
        config.layers,
        config.heads,
        config.intermediate,
        config.max_positions,
        config.type_vocab,
    ] {
        out.extend_from_slice(&(value as u32).to_le_bytes());
    }
    out.extend_from_slice(&config.layer_norm_eps.to_le_bytes());
    let vocab_bytes = u32::try_from(vocab_bytes).ok().filter(|v| *v <= MAX_VOCAB_BYTES).ok_or_else(|| {
        invalid(format!("the vocabulary takes {vocab_bytes} bytes, more than {MAX_VOCAB_BYTES}"))
    })?;
    out.extend_from_slice(&vocab_bytes.to_le_bytes());
    out.extend_from_slice(&(tensors.len() as u32).to_le_bytes());
    out.extend_from_slice(&(rows_per_shard as u32).to_le_bytes());
    out.extend_from_slice(&[word_dtype.code(), 0, 0, 0]);
    for shard in &shards {
        out.extend_from_slice(&checksum(shard).to_le_bytes());
    }
    for entry in vocab {
        if entry.is_empty() || entry.contains('\n') {
            return Err(invalid(format!("vocabulary entry {entry:?} is empty or holds a newline")));
        }
        out.extend_from_slice(entry.as_bytes());
        out.push(b'\n');
    }
    pad4(&mut out);
    for t in &tensors {
        out.extend_from_slice(&(t.name.len() as u16).to_le_bytes());
        out.push(dtype_of(t).code());
        out.push(t.shape.len() as u8);
        for d in &t.shape {
            out.extend_from_slice(&(*d as u32).to_le_bytes());
        }
        out.extend_from_slice(t.name.as_bytes());
    }
    for t in &tensors {
        pad4(&mut out);
        write_data(&mut out, dtype_of(t), &t.values, *t.shape.last().unwrap_or(&1), &t.name)?;
    }
    Ok(ModelFiles { core: out, shards })
}

/// Appends `values` (rows of `cols`) as tensor data of `dtype`.
fn write_data(out: &mut Vec<u8>, dtype: DType, values: &[f32], cols: usize, name: &str) -> Result<()> {
    match dtype {
        DType::F32 => values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        DType::F16 => {
            for v in values {
                let h = f16::from_f32(*v);
                if !h.is_finite() {
                    return Err(invalid(format!("tensor '{name}' holds {v}, beyond the f16 range")));
                }
                out.extend_from_slice(&h.to_le_bytes());
            }
        }
        DType::Q8 => {
            let scales: Vec<f32> = values
                .chunks_exact(cols)
                .map(|row| {
                    let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
                    if max > 0.0 {
                        max / 127.0
                    } else {
                        1.0
                    }
                })
                .collect();
            scales.iter().for_each(|s| out.extend_from_slice(&s.to_le_bytes()));
            for (row, scale) in values.chunks_exact(cols).zip(&scales) {
                out.extend(row.iter().map(|v| ((v / scale).round().clamp(-127.0, 127.0) as i8) as u8));
            }
        }
    }
    Ok(())
}

/// FNV-1a, 64 bits: the checksum the core keeps of each shard file. It
/// catches a shard of another model or build, not a forger (the page
/// trusts the files it serves; the manifest's SHA-256 is there for that).
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

fn pad4(out: &mut Vec<u8>) {
    out.resize(out.len().next_multiple_of(4), 0);
}

/// A tensor as stored: f32 values, except that a large table may stay in its
/// stored form to save memory (the word embeddings: 47 MB as f32).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stored {
    F32(Vec<f32>),
    F16(Vec<u16>),
    Q8 { scales: Vec<f32>, values: Vec<i8> },
}

impl Stored {
    /// Reads tensor data of `dtype` (lengths already checked by the caller).
    fn read(dtype: DType, rows: usize, data: &[u8]) -> Self {
        match dtype {
            DType::F32 => Stored::F32(
                data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
            ),
            DType::F16 => {
                Stored::F16(data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
            }
            DType::Q8 => {
                let (scales, values) = data.split_at(4 * rows);
                Stored::Q8 {
                    scales: scales
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                    values: values.iter().map(|b| *b as i8).collect(),
                }
            }
        }
    }

    /// Row `row` of a table with `cols` columns, added into `out`.
    pub(crate) fn add_row(&self, row: usize, cols: usize, out: &mut [f32]) {
        let range = row * cols..(row + 1) * cols;
        match self {
            Stored::F32(v) => out.iter_mut().zip(&v[range]).for_each(|(o, x)| *o += x),
            Stored::F16(v) => {
                out.iter_mut().zip(&v[range]).for_each(|(o, x)| *o += f16::from_bits(*x).to_f32())
            }
            Stored::Q8 { scales, values } => {
                let s = scales[row];
                out.iter_mut().zip(&values[range]).for_each(|(o, x)| *o += f32::from(*x) * s);
            }
        }
    }

    fn into_f32(self, cols: usize) -> Vec<f32> {
        match self {
            Stored::F32(v) => v,
            Stored::F16(v) => v.into_iter().map(|x| f16::from_bits(x).to_f32()).collect(),
            Stored::Q8 { scales, values } => values
                .chunks_exact(cols.max(1))
                .zip(&scales)
                .flat_map(|(row, s)| row.iter().map(move |x| f32::from(*x) * s))
                .collect(),
        }
    }
}

/// How the core says the word embeddings are sharded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShardLayout {
    pub rows_per_shard: usize,
    pub dtype: DType,
    /// One [`checksum`] per shard; `checksums.len()` is the shard count.
    pub checksums: Vec<u64>,
}

/// What the core reader returns: the configuration, the vocabulary, the
/// tensors by name and the shard layout, all checked.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub config: Config,
    pub vocab: Vec<String>,
    pub tensors: HashMap<String, Vec<f32>>,
    pub shards: ShardLayout,
}

/// A decoded shard, checked on its own (not yet against a core).
#[derive(Debug)]
pub(crate) struct Shard {
    pub index: usize,
    pub first_row: usize,
    pub rows: usize,
    pub dim: usize,
    pub dtype: DType,
    pub data: Stored,
}

struct Entry {
    name: String,
    dtype: DType,
    shape: Vec<usize>,
    rows: usize,
    count: usize,
}

/// Reads an embedding shard (see the module documentation).
pub(crate) fn decode_shard(bytes: &[u8]) -> Result<Shard> {
    if bytes.len() < SHARD_HEADER_BYTES {
        return Err(invalid(format!(
            "the embedding shard is {} bytes, too short for the {SHARD_HEADER_BYTES}-byte header (truncated?)",
            bytes.len()
        )));
    }
    if bytes[0..4] != SHARD_MAGIC {
        return Err(invalid("wrong magic bytes: this is not an Attention Explorer embedding shard"));
    }
    let version = u16_at(bytes, 4);
    if version != SHARD_VERSION {
        return Err(invalid(format!(
            "embedding shard version {version} is not supported (this build reads version {SHARD_VERSION})"
        )));
    }
    let dtype = DType::from_code(bytes[6])
        .ok_or_else(|| invalid(format!("the embedding shard has the unknown dtype code {}", bytes[6])))?;
    if bytes[7] != 0 {
        return Err(invalid("the embedding shard's reserved byte is not zero"));
    }
    let (index, first_row, rows, dim) =
        (u32_at(bytes, 8), u32_at(bytes, 12), u32_at(bytes, 16), u32_at(bytes, 20));
    if rows == 0 || u64::from(first_row) + u64::from(rows) > u64::from(MAX_VOCAB_SIZE) {
        return Err(invalid(format!(
            "the embedding shard's rows {first_row}..{} are outside 0..{MAX_VOCAB_SIZE} or empty",
            u64::from(first_row) + u64::from(rows)
        )));
    }
    if !(1..=MAX_HIDDEN).contains(&dim) {
        return Err(invalid(format!("the embedding shard's dimension {dim} is outside 1..={MAX_HIDDEN}")));
    }
    let (rows, dim) = (rows as usize, dim as usize);
    // At most 10⁶ × 4,096 × 4 bytes: no overflow on 64 bits; checked for 32.
    let expected = rows
        .checked_mul(dim)
        .and_then(|count| dtype.data_bytes(rows, count))
        .and_then(|data| data.checked_add(SHARD_HEADER_BYTES))
        .ok_or_else(|| invalid("the embedding shard describes a file too large for this machine"))?;
    if bytes.len() != expected {
        let what = if bytes.len() < expected { "truncated" } else { "has trailing bytes" };
        return Err(invalid(format!(
            "embedding shard {index} is {what}: {} bytes, its header describes {expected}",
            bytes.len()
        )));
    }
    let data = Stored::read(dtype, rows, &bytes[SHARD_HEADER_BYTES..]);
    check_finite(&data, &format!("embedding shard {index}"))?;
    Ok(Shard { index: index as usize, first_row: first_row as usize, rows, dim, dtype, data })
}

/// Reads a core file (see the module documentation).
pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded> {
    if bytes.len() < HEADER_BYTES {
        return Err(invalid(format!(
            "the file is {} bytes, too short for the {HEADER_BYTES}-byte header (truncated?)",
            bytes.len()
        )));
    }
    if bytes[0..4] != MAGIC {
        return Err(invalid("wrong magic bytes: this is not an Attention Explorer model file"));
    }
    let version = u16_at(bytes, 4);
    if version != VERSION {
        return Err(invalid(format!(
            "format version {version} is not supported (this build reads version {VERSION}): rebuild the model with scripts/build-model"
        )));
    }
    if u16_at(bytes, 6) != 0 || bytes[53..56] != [0, 0, 0] {
        return Err(invalid("the header's reserved bytes are not zero"));
    }
    let field = |at: usize, name: &str, min: u32, max: u32| -> Result<usize> {
        let v = u32_at(bytes, at);
        if v < min || v > max {
            Err(invalid(format!("{name} {v} is outside {min}..={max}")))
        } else {
            Ok(v as usize)
        }
    };
    let config = Config {
        vocab_size: field(8, "vocab_size", 3, MAX_VOCAB_SIZE)?,
        hidden: field(12, "hidden size", 1, MAX_HIDDEN)?,
        layers: field(16, "layer count", 1, MAX_LAYERS)?,
        heads: field(20, "head count", 1, MAX_HIDDEN)?,
        intermediate: field(24, "intermediate size", 1, MAX_INTERMEDIATE)?,
        max_positions: field(28, "max_positions", 2, MAX_POSITIONS)?,
        type_vocab: field(32, "type_vocab", 1, MAX_TYPE_VOCAB)?,
        layer_norm_eps: f32::from_le_bytes([bytes[36], bytes[37], bytes[38], bytes[39]]),
    };
    check_config(&config)?;
    let vocab_bytes = field(40, "vocabulary block length", 0, MAX_VOCAB_BYTES)?;
    let tensor_count = u32_at(bytes, 44) as usize;
    let mut required = required_tensors(&config);
    required.retain(|(name, _)| name != WORD_EMBEDDINGS);
    if tensor_count != required.len() {
        return Err(invalid(format!(
            "the header lists {tensor_count} tensors; the core of a model of {} layers has {}",
            config.layers,
            required.len()
        )));
    }
    let rows_per_shard = field(48, "rows per shard", 1, config.vocab_size as u32)?;
    let shard_dtype = DType::from_code(bytes[52])
        .ok_or_else(|| invalid(format!("the word embeddings have the unknown dtype code {}", bytes[52])))?;
    let shard_count = config.vocab_size.div_ceil(rows_per_shard);
    let checksums_end = HEADER_BYTES + 8 * shard_count;
    let checksums: Vec<u64> = bytes
        .get(HEADER_BYTES..checksums_end)
        .ok_or_else(|| truncated("the shard checksums"))?
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();

    let vocab_end = checksums_end + vocab_bytes;
    let block = bytes.get(checksums_end..vocab_end).ok_or_else(|| truncated("the vocabulary"))?;
    let text = std::str::from_utf8(block)
        .map_err(|e| invalid(format!("the vocabulary is not UTF-8 (byte {})", e.valid_up_to())))?;
    let text =
        text.strip_suffix('\n').ok_or_else(|| invalid("the vocabulary block does not end with a newline"))?;
    let vocab: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if vocab.len() != config.vocab_size {
        return Err(invalid(format!(
            "the header says {} vocabulary entries, the block holds {}",
            config.vocab_size,
            vocab.len()
        )));
    }

    let mut at = vocab_end.next_multiple_of(4);
    check_padding(bytes, vocab_end, at)?;
    let shapes: HashMap<String, Vec<usize>> = required.into_iter().collect();
    let mut entries: Vec<Entry> = Vec::with_capacity(tensor_count);
    for k in 0..tensor_count {
        let head = bytes.get(at..at + 4).ok_or_else(|| truncated("the tensor table"))?;
        let name_len = usize::from(u16::from_le_bytes([head[0], head[1]]));
        let dtype = DType::from_code(head[2])
            .ok_or_else(|| invalid(format!("tensor {k} has the unknown dtype code {}", head[2])))?;
        let rank = usize::from(head[3]);
        if name_len == 0 || name_len > MAX_NAME_BYTES || !(1..=2).contains(&rank) {
            return Err(invalid(format!("tensor {k} has a name of {name_len} bytes and rank {rank}")));
        }
        at += 4;
        let dims = bytes.get(at..at + 4 * rank).ok_or_else(|| truncated("the tensor table"))?;
        let shape: Vec<usize> = dims.chunks_exact(4).map(|d| u32_at(d, 0) as usize).collect();
        at += 4 * rank;
        let name = bytes.get(at..at + name_len).ok_or_else(|| truncated("the tensor table"))?;
        let name =
            std::str::from_utf8(name).map_err(|_| invalid(format!("the name of tensor {k} is not UTF-8")))?;
        at += name_len;
        match shapes.get(name) {
            None => return Err(invalid(format!("unexpected tensor '{name}'"))),
            Some(expected) if *expected != shape => {
                return Err(invalid(format!(
                    "tensor '{name}' has shape {shape:?}, the header implies {expected:?}"
                )))
            }
            Some(_) => {}
        }
        if shape.iter().any(|d| *d == 0 || *d > MAX_DIM as usize) {
            return Err(invalid(format!("tensor '{name}' has a dimension outside 1..={MAX_DIM}")));
        }
        if dtype == DType::Q8 && rank != 2 {
            return Err(invalid(format!("tensor '{name}' is q8 but not a matrix")));
        }
        if entries.iter().any(|e| e.name == name) {
            return Err(invalid(format!("tensor '{name}' appears twice")));
        }
        let count = shape
            .iter()
            .try_fold(1usize, |c, d| c.checked_mul(*d))
            .ok_or_else(|| invalid(format!("tensor '{name}' is too large for this machine")))?;
        entries.push(Entry {
            name: name.to_owned(),
            dtype,
            rows: if rank == 2 { shape[0] } else { 1 },
            shape,
            count,
        });
    }

    // Where each tensor's data lies; the file must end exactly after the last one.
    let mut offsets = Vec::with_capacity(entries.len());
    for e in &entries {
        let start = at.next_multiple_of(4);
        let end = e
            .dtype
            .data_bytes(e.rows, e.count)
            .and_then(|b| start.checked_add(b))
            .ok_or_else(|| invalid("the tensor table describes a file too large for this machine"))?;
        offsets.push((at, start, end));
        at = end;
    }
    if bytes.len() != at {
        let what = if bytes.len() < at { "truncated" } else { "has trailing bytes" };
        return Err(invalid(format!(
            "the file is {what}: {} bytes, the tensor table describes {at}",
            bytes.len()
        )));
    }

    let mut tensors = HashMap::with_capacity(entries.len());
    for (e, (pad_from, start, end)) in entries.into_iter().zip(offsets) {
        check_padding(bytes, pad_from, start)?;
        let stored = Stored::read(e.dtype, e.rows, &bytes[start..end]);
        check_finite(&stored, &format!("tensor '{}'", e.name))?;
        let cols = *e.shape.last().unwrap_or(&1);
        tensors.insert(e.name, stored.into_f32(cols));
    }
    let shards = ShardLayout { rows_per_shard, dtype: shard_dtype, checksums };
    Ok(Decoded { config, vocab, tensors, shards })
}

fn check_config(config: &Config) -> Result<()> {
    if config.heads == 0 || config.hidden % config.heads != 0 {
        return Err(invalid(format!(
            "{} heads do not divide the hidden size {}",
            config.heads, config.hidden
        )));
    }
    if !(config.layer_norm_eps.is_finite() && config.layer_norm_eps > 0.0) {
        return Err(invalid(format!("layer_norm_eps {} is not a positive number", config.layer_norm_eps)));
    }
    Ok(())
}

fn check_finite(stored: &Stored, what: &str) -> Result<()> {
    let finite = match stored {
        Stored::F32(v) => v.iter().all(|x| x.is_finite()),
        Stored::F16(v) => v.iter().all(|x| f16::from_bits(*x).is_finite()),
        Stored::Q8 { scales, values } => {
            scales.iter().all(|s| s.is_finite()) && values.iter().all(|v| *v != i8::MIN)
        }
    };
    if finite {
        Ok(())
    } else {
        Err(invalid(format!("{what} holds a value that is not a finite number (or q8 −128)")))
    }
}

fn check_padding(bytes: &[u8], from: usize, to: usize) -> Result<()> {
    match bytes.get(from..to) {
        None => Err(truncated("the padding")),
        Some(pad) if pad.iter().any(|b| *b != 0) => {
            Err(invalid(format!("the padding at byte {from} is not zero")))
        }
        Some(_) => Ok(()),
    }
}

fn truncated(what: &str) -> crate::Error {
    invalid(format!("the file is truncated inside {what}"))
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

    fn config() -> Config {
        Config {
            vocab_size: 5,
            hidden: 4,
            layers: 1,
            heads: 2,
            intermediate: 8,
            max_positions: 6,
            type_vocab: 2,
            layer_norm_eps: 1e-12,
        }
    }

    fn vocab() -> Vec<String> {
        ["[UNK]", "[CLS]", "[SEP]", "cat", "##s"].iter().map(|s| s.to_string()).collect()
    }

    fn tensors() -> Vec<Tensor> {
        let mut seed = 7u32;
        required_tensors(&config())
            .into_iter()
            .map(|(name, shape)| {
                let values = (0..shape.iter().product::<usize>())
                    .map(|_| {
                        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        (seed >> 8) as f32 / (1 << 23) as f32 - 1.0
                    })
                    .collect();
                Tensor { name, shape, values }
            })
            .collect()
    }

    /// Five rows in shards of two: rows 0–1, 2–3 and 4.
    fn files(dtype: DType) -> ModelFiles {
        encode(&config(), &vocab(), &tensors(), |_| dtype, 2).unwrap()
    }

    fn error(bytes: &[u8]) -> String {
        decode(bytes).unwrap_err().to_string()
    }

    fn shard_error(bytes: &[u8]) -> String {
        decode_shard(bytes).unwrap_err().to_string()
    }

    #[test]
    fn round_trip_f32_is_exact_and_the_headers_are_as_documented() {
        let files = files(DType::F32);
        let core = &files.core;
        assert_eq!(&core[0..4], b"AEBM");
        assert_eq!(u16_at(core, 4), 2);
        let fields: Vec<u32> = (8..36).step_by(4).map(|at| u32_at(core, at)).collect();
        assert_eq!(fields, [5, 4, 1, 2, 8, 6, 2]);
        assert_eq!(u32_at(core, 40) as usize, "[UNK]\n[CLS]\n[SEP]\ncat\n##s\n".len());
        assert_eq!(u32_at(core, 44), 20, "4 + 16 tensors: the word embeddings are not in the core");
        assert_eq!((u32_at(core, 48), core[52]), (2, 1));
        assert_eq!(files.shards.len(), 3);
        for (k, shard) in files.shards.iter().enumerate() {
            let at = 56 + 8 * k;
            assert_eq!(core[at..at + 8], checksum(shard).to_le_bytes(), "checksum of shard {k}");
        }
        assert_eq!(&core[80..85], b"[UNK]", "the vocabulary follows the 3 checksums");

        let last = &files.shards[2];
        assert_eq!(&last[0..4], b"AEWE");
        assert_eq!((u16_at(last, 4), last[6], last[7]), (1, 1, 0));
        let fields: Vec<u32> = (8..24).step_by(4).map(|at| u32_at(last, at)).collect();
        assert_eq!(fields, [2, 4, 1, 4], "index 2, first row 4, 1 row of 4");
        assert_eq!(last.len(), 24 + 4 * 4);
        assert_eq!(files.shards[0].len(), 24 + 2 * 4 * 4);

        let decoded = decode(core).unwrap();
        assert_eq!(decoded.vocab, vocab());
        assert_eq!(decoded.shards.rows_per_shard, 2);
        assert_eq!(decoded.shards.dtype, DType::F32);
        let mut table = Vec::new();
        for (k, bytes) in files.shards.iter().enumerate() {
            let shard = decode_shard(bytes).unwrap();
            assert_eq!((shard.index, shard.first_row, shard.dim), (k, 2 * k, 4));
            table.extend(shard.data.into_f32(4));
        }
        for t in tensors() {
            let got = match t.name.as_str() {
                WORD_EMBEDDINGS => table.clone(),
                name => decoded.tensors[name].clone(),
            };
            assert_eq!(got, t.values, "{}", t.name);
        }
    }

    #[test]
    fn one_shard_can_hold_the_whole_table() {
        let files = encode(&config(), &vocab(), &tensors(), |_| DType::F16, 5).unwrap();
        assert_eq!(files.shards.len(), 1);
        assert_eq!(decode(&files.core).unwrap().shards.checksums.len(), 1);
        assert_eq!(decode_shard(&files.shards[0]).unwrap().rows, 5);
    }

    #[test]
    fn f16_and_q8_stay_within_their_documented_error() {
        for (dtype, bound) in [(DType::F16, 2f32.powi(-11)), (DType::Q8, 1.0 / 254.0)] {
            let files = files(dtype);
            let back: Vec<f32> =
                files.shards.iter().flat_map(|s| decode_shard(s).unwrap().data.into_f32(4)).collect();
            let original = &tensors()[0];
            assert_eq!(original.name, WORD_EMBEDDINGS);
            for (row, back_row) in original.values.chunks(4).zip(back.chunks(4)) {
                let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
                for (a, b) in row.iter().zip(back_row) {
                    assert!((a - b).abs() <= max * bound * 1.0001, "{dtype:?}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn every_truncation_is_an_error() {
        let files = files(DType::Q8);
        for len in 0..files.core.len() {
            let err = error(&files.core[..len]);
            assert!(err.contains("truncated") || err.contains("too short"), "at {len}: {err}");
        }
        assert!(error(&[files.core.clone(), vec![0]].concat()).contains("trailing bytes"));
        for shard in &files.shards {
            for len in 0..shard.len() {
                let err = shard_error(&shard[..len]);
                assert!(err.contains("truncated"), "at {len}: {err}");
            }
            assert!(shard_error(&[shard.clone(), vec![0]].concat()).contains("trailing bytes"));
        }
    }

    #[test]
    fn corrupt_headers_and_tables_get_clear_errors() {
        let good = files(DType::F16).core;
        let with = |at: usize, patch: &[u8]| {
            let mut b = good.clone();
            b[at..at + patch.len()].copy_from_slice(patch);
            b
        };
        let vocab_at = 56 + 3 * 8;
        let table = (vocab_at + u32_at(&good, 40) as usize).next_multiple_of(4);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (with(0, b"GLOV"), "wrong magic"),
            (with(4, &1u16.to_le_bytes()), "version 1 is not supported"),
            (with(6, &[1]), "reserved bytes"),
            (with(8, &u32::MAX.to_le_bytes()), "vocab_size"),
            (with(12, &0u32.to_le_bytes()), "hidden size 0"),
            (with(20, &3u32.to_le_bytes()), "do not divide"),
            (with(36, &f32::NAN.to_le_bytes()), "layer_norm_eps"),
            (with(40, &u32::MAX.to_le_bytes()), "vocabulary block length"),
            (with(44, &21u32.to_le_bytes()), "lists 21 tensors"),
            (with(48, &0u32.to_le_bytes()), "rows per shard 0"),
            (with(48, &6u32.to_le_bytes()), "rows per shard 6 is outside 1..=5"),
            // One row per shard: 5 checksums, so the vocabulary moves and no longer parses.
            (with(48, &1u32.to_le_bytes()), "vocabulary"),
            (with(52, &[9]), "unknown dtype code 9"),
            (with(55, &[1]), "reserved bytes"),
            (with(vocab_at + 5, b"X"), "the block holds 4"),
            (with(vocab_at, &[0xFF]), "not UTF-8"),
            (with(table + 2, &[9]), "unknown dtype code 9"),
            (with(table, &0u16.to_le_bytes()), "name of 0 bytes"),
            (with(table + 4, &7u32.to_le_bytes()), "has shape [7, 4]"),
            (with(table + 12, b"x"), "unexpected tensor"),
            (with(good.len() - 2, &f16::NAN.to_le_bytes()), "not a finite number"),
        ];
        for (bytes, expected) in cases {
            let err = error(&bytes);
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
    }

    #[test]
    fn corrupt_shards_get_clear_errors() {
        let good = files(DType::F16).shards[1].clone();
        assert!(decode_shard(&good).is_ok());
        let with = |at: usize, patch: &[u8]| {
            let mut b = good.clone();
            b[at..at + patch.len()].copy_from_slice(patch);
            b
        };
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (with(0, b"AEBM"), "not an Attention Explorer embedding shard"),
            (with(4, &2u16.to_le_bytes()), "version 2 is not supported"),
            (with(6, &[0]), "unknown dtype code 0"),
            (with(6, &[1]), "truncated"), // f32 needs twice the bytes
            // (q8 here would be 2·4 + 8 = 16 bytes, like f16: a well-formed shard;
            // `Model::add_shard` refuses it, the core says f16.)
            (with(7, &[1]), "reserved byte"),
            (with(16, &0u32.to_le_bytes()), "or empty"),
            (with(16, &3u32.to_le_bytes()), "truncated"),
            (with(12, &(MAX_VOCAB_SIZE - 1).to_le_bytes()), "outside 0..1000000"),
            (with(16, &u32::MAX.to_le_bytes()), "outside 0..1000000"),
            (with(20, &0u32.to_le_bytes()), "dimension 0"),
            (with(20, &5000u32.to_le_bytes()), "dimension 5000"),
            (with(20, &2u32.to_le_bytes()), "trailing bytes"),
            (with(24, &f16::INFINITY.to_le_bytes()), "not a finite number"),
        ];
        for (bytes, expected) in cases {
            let err = shard_error(&bytes);
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
        let mut q8 = files(DType::Q8).shards[0].clone();
        let last = q8.len() - 1;
        q8[last] = 0x80;
        assert!(shard_error(&q8).contains("q8 −128"));
    }

    #[test]
    fn q8_on_a_vector_and_huge_shapes_are_refused() {
        let good = files(DType::F32).core;
        let table = (56 + 3 * 8 + u32_at(&good, 40) as usize).next_multiple_of(4);
        // Walk to the third entry, a rank-1 LayerNorm weight, and mark it q8.
        let mut at = table;
        for _ in 0..2 {
            at += 4 + 4 * usize::from(good[at + 3]) + usize::from(u16_at(&good, at));
        }
        let mut bytes = good.clone();
        assert_eq!(bytes[at + 3], 1, "a vector");
        bytes[at + 2] = 3;
        assert!(error(&bytes).contains("q8 but not a matrix"));
        let mut bytes = good;
        bytes[table + 4..table + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(error(&bytes).contains("has shape"));
    }

    #[test]
    fn random_corruption_never_panics() {
        let files = files(DType::Q8);
        let mut seed = 1u64;
        for good in [&files.core, &files.shards[0], &files.shards[2]] {
            for _ in 0..2000 {
                let mut bytes = good.clone();
                for _ in 0..3 {
                    seed =
                        seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    let at = (seed >> 33) as usize % bytes.len();
                    bytes[at] ^= (seed >> 25) as u8 | 1;
                }
                let _ = decode(&bytes);
                let _ = decode_shard(&bytes);
            }
        }
    }

    #[test]
    fn the_writer_checks_what_it_is_given() {
        let encode_with = |t: &[Tensor], v: &[String], dtype, rows| {
            encode(&config(), v, t, |_| dtype, rows).unwrap_err().to_string()
        };
        let mut t = tensors();
        t.pop();
        assert!(encode_with(&t, &vocab(), DType::F16, 2).contains("20 tensors given"));
        let mut t = tensors();
        t[3].values[0] = f32::INFINITY;
        assert!(encode_with(&t, &vocab(), DType::F32, 2).contains("not finite"));
        let mut t = tensors();
        t[3].values[0] = 1e6;
        assert!(encode_with(&t, &vocab(), DType::F16, 2).contains("beyond the f16 range"));
        let mut t = tensors();
        t[0].values[0] = 1e6;
        assert!(encode_with(&t, &vocab(), DType::F16, 2).contains("beyond the f16 range"));
        assert!(encode_with(&tensors(), &vocab()[..4], DType::F16, 2).contains("4 vocabulary entries"));
        assert!(encode_with(&tensors(), &vocab(), DType::F16, 0).contains("0 rows per shard"));
        assert!(encode_with(&tensors(), &vocab(), DType::F16, 6).contains("6 rows per shard"));
    }

    #[test]
    fn checksum_is_fnv1a_64() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(checksum(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(checksum(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(checksum(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
