//! A trained transformer beside the GloVe attention: a BERT-style encoder
//! (all-MiniLM-L6-v2: 6 layers × 12 heads, hidden 384) in plain Rust, with
//! - [`WordPiece`], the BERT-uncased tokenizer, giving exactly the ids of the
//!   reference `tokenizers` package and each piece's byte span in the text;
//! - [`format`], the project's model files, written down byte by byte: a
//!   core (configuration, vocabulary, every weight but the word embeddings)
//!   and word-embedding shards of 32 rows, so the page downloads 22 MB plus
//!   the few shards a sentence needs instead of 45 MB;
//! - [`Model`], whose forward pass returns the attention probabilities of
//!   every layer and head, shape (layers, heads, n, n);
//! - [`WordAttention`], the same attention between whole words;
//! - inside and across heads: [`Model::layer_projections`] keeps one layer's
//!   queries, keys and values (the plain run keeps nothing) for
//!   [`internals`] (one head opened for one query: q·k, ÷√d, softmax, Σ w·v)
//!   and [`pca`] (its queries and keys in one 2-D picture); [`heads`] ranks
//!   every head by a query → key weight and describes what each does on the
//!   sentence, measured; [`rollout`] follows attention across layers.
//!
//! It has no web dependencies and reads bytes, not files, so the same code
//! runs natively and in WebAssembly. `scripts/build-model` writes the model
//! files (`model/`: [`CORE_FILE`], [`shard_file`]s and [`MANIFEST_FILE`])
//! from the original weights.
//!
//! ```no_run
//! use attention_model::{shard_file, Model, CORE_FILE};
//!
//! let dir = std::path::Path::new("model");
//! let mut model = Model::from_core(&std::fs::read(dir.join(CORE_FILE))?)?;
//! let text = "The cat sat on the mat because it was tired";
//! let ids: Vec<u32> = model.tokenize(text).iter().map(|p| p.id).collect();
//! for k in model.missing_shards(&ids) {
//!     // 7 shards of 24.6 KB here; the page fetches them.
//!     model.add_shard(&std::fs::read(dir.join(shard_file(k)))?)?;
//! }
//! let attention = model.attention(text)?; // [CLS] the cat … tired [SEP]
//! let n = attention.n();
//! let head = attention.head(5, 11).expect("MiniLM has 6 layers of 12 heads"); // (n, n)
//! let (it, cat) = (8, 2);
//! assert_eq!(&text[attention.pieces[it].span.clone()], "it");
//! println!("'it' → 'cat': {:.4}", head[it * n + cat]); // ≈ 0.68
//!
//! let words = attention.words(true); // whole words, without [CLS] and [SEP]
//! assert_eq!(words.words[0].text, "The");
//!
//! let ranked = attention.search_heads(it, cat)?; // all 72 heads, best first
//! assert_eq!((ranked[0].layer, ranked[0].head), (5, 11));
//! let behaviours = attention.head_behaviours(); // what each head does, measured
//! println!("{}", behaviours[5 * 12 + 11].description); // "61% of the other tokens' attention on 'cat'"
//! let details = model.layer_projections(&ids, 5)?.head_details(11, it)?;
//! assert_eq!(details.weights[cat], head[it * n + cat]); // q·k/√32, softmax: the same row
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Untrusted input
//! Sentences and model files may come from anyone. Tokenizing never fails;
//! a malformed or truncated core or shard file, or a shard of another model,
//! gets an [`Error`] that says what is wrong, never a panic, and the readers
//! allocate nothing a file's length does not justify. A sentence longer than
//! the model runs ([`Model::max_pieces`]: its 512 positions for MiniLM, fewer
//! for a model whose run would exceed [`model::MAX_RUN_VALUES`] numbers) gets
//! [`Error::TooLong`]; one whose shards have not been added,
//! [`Error::MissingShards`] with their indices. The sizes a `manifest.json`
//! lists are checked by [`manifest`] before the page allocates for them.

#![forbid(unsafe_code)]

pub mod error;
pub mod format;
pub mod heads;
pub mod internals;
pub mod manifest;
pub mod model;
pub mod pca;
pub mod rollout;
pub mod testing;
pub mod wordpiece;
pub mod words;

pub use error::{Error, Result};
pub use format::{Config, DType, ModelFiles, Tensor};
pub use heads::{rank_by, HeadBehaviour, HeadMatch, HeadsView, Pattern};
pub use internals::{HeadDetails, HeadProjection, Projections};
pub use model::{Encoding, Model, ModelAttention};
pub use rollout::Rollout;
pub use wordpiece::{Piece, WordPiece};
pub use words::{Word, WordAttention};

/// The core file inside the folder `scripts/build-model` writes (`model/` by
/// default): what the CLI's `--model DIR` and the page load first.
pub const CORE_FILE: &str = "minilm-core.aebm";

/// The manifest inside that folder: file names, sizes and SHA-256 of the
/// core and of every shard, for the page (see `scripts/build-model`).
pub const MANIFEST_FILE: &str = "manifest.json";

/// The path of word-embedding shard `k` inside that folder,
/// `embeddings/0007.aeemb` (four digits at least).
pub fn shard_file(k: usize) -> String {
    format!("embeddings/{k:04}.aeemb")
}
