//! The core of Attention Explorer: scaled dot-product self-attention over
//! word vectors, with every intermediate kept so it can be shown and explained.
//!
//! It has no web dependencies; the WebAssembly crate and the CLI are thin
//! layers over it.
//!
//! ```
//! use attention_core::{analyze, Embeddings, Options};
//!
//! let glove = "king 0.5 0.1\nqueen 0.4 0.2\nruled 0.1 0.9\n";
//! let embeddings = Embeddings::from_bytes(glove.as_bytes())?;
//! let analysis = analyze("The king ruled", &embeddings, &Options::default())?;
//! // "the" is not in this tiny vocabulary: it is reported, not used.
//! assert_eq!(analysis.unknown_tokens().next().unwrap().text, "the");
//! let row = analysis.attention.weight_row(0); // where "king" looks
//! assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
//! # Ok::<(), attention_core::Error>(())
//! ```
//!
//! # Untrusted input
//! Sentences and word-vector files may come from anyone. No input makes these
//! functions panic; malformed files get an [`Error`] that says what is wrong,
//! and no allocation is larger than the input justifies.

#![forbid(unsafe_code)]

pub mod analysis;
pub mod attention;
pub mod embeddings;
pub mod error;
pub mod explain;
pub mod glove_text;
pub mod layout;
pub mod multihead;
pub mod neighbors;
pub mod shards;
pub mod tokenize;

/// The most known tokens one analysis takes. Attention costs `n²`: beyond
/// this a text pasted by mistake (or sent in a link) would take seconds and
/// gigabytes, and a `(n, n)` picture could not be read anyway. The page and
/// the CLI share this limit.
pub const MAX_TOKENS: usize = 1024;

pub use analysis::{analyze, analyze_cross, analyze_padded, Analysis, AnalysisJob, CrossAnalysis};
pub use attention::{attend, attend_with, self_attention, Attention, AttentionJob, Extras, Matrix, Options};
pub use embeddings::{Embeddings, EmbeddingsBuilder, Lookup, Precision};
pub use error::{Error, Result};
pub use shards::{Shard, ShardSet};
pub use tokenize::{tokenize, Token, Vocabulary};
