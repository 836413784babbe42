//! A trained transformer beside the GloVe attention: a BERT-style encoder
//! (all-MiniLM-L6-v2: 6 layers × 12 heads, hidden 384) in plain Rust, with
//! - [`WordPiece`], the BERT-uncased tokenizer, giving exactly the ids of the
//!   reference `tokenizers` package and each piece's byte span in the text;
//! - [`format`], the project's model file (configuration, vocabulary and
//!   f32/f16/q8 weights in one file, written down byte by byte);
//! - [`Model`], whose forward pass returns the attention probabilities of
//!   every layer and head, shape (layers, heads, n, n);
//! - [`WordAttention`], the same attention between whole words.
//!
//! It has no web dependencies and reads bytes, not files, so the same code
//! runs natively and in WebAssembly. `scripts/build-model` writes the model
//! file (`model/all-minilm-l6-v2.aebm`) from the original weights.
//!
//! ```no_run
//! use attention_model::Model;
//!
//! let bytes = std::fs::read("model/all-minilm-l6-v2.aebm")?;
//! let model = Model::from_bytes(&bytes)?;
//! let text = "The cat sat on the mat because it was tired";
//! let attention = model.attention(text)?; // [CLS] the cat … tired [SEP]
//! let n = attention.n();
//! let head = attention.head(5, 11).expect("MiniLM has 6 layers of 12 heads"); // (n, n)
//! let (it, cat) = (8, 2);
//! assert_eq!(&text[attention.pieces[it].span.clone()], "it");
//! println!("'it' → 'cat': {:.4}", head[it * n + cat]); // ≈ 0.68
//!
//! let words = attention.words(true); // whole words, without [CLS] and [SEP]
//! assert_eq!(words.words[0].text, "The");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Untrusted input
//! Sentences and model files may come from anyone. Tokenizing never fails;
//! a malformed or truncated model file gets an [`Error`] that says what is
//! wrong, never a panic, and the reader allocates nothing the file's length
//! does not justify. A sentence longer than the model's 512 positions gets
//! [`Error::TooLong`].

#![forbid(unsafe_code)]

pub mod error;
pub mod format;
pub mod model;
pub mod wordpiece;
pub mod words;

pub use error::{Error, Result};
pub use format::{Config, DType, Tensor};
pub use model::{Encoding, Model, ModelAttention};
pub use wordpiece::{Piece, WordPiece};
pub use words::{Word, WordAttention};

/// The name of the model file inside the folder `scripts/build-model` writes
/// (`model/` by default): what the CLI's `--model DIR` and the page look for.
pub const MODEL_FILE: &str = "all-minilm-l6-v2.aebm";
