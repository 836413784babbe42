//! A trained transformer for Attention Explorer (work in progress).
#![forbid(unsafe_code)]

pub mod error;
pub mod wordpiece;

pub use error::{Error, Result};
pub use wordpiece::{Piece, WordPiece};
