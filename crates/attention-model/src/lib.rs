//! A trained transformer for Attention Explorer (work in progress).
#![forbid(unsafe_code)]

pub mod error;
pub mod format;
pub mod model;
pub mod wordpiece;

pub use error::{Error, Result};
pub use format::{Config, DType, Tensor};
pub use model::{Encoding, Model, ModelAttention};
pub use wordpiece::{Piece, WordPiece};
