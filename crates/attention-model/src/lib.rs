//! A trained transformer for Attention Explorer (work in progress).
#![forbid(unsafe_code)]
