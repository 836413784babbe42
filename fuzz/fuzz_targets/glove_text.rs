//! `glove_text::TextReader` fed arbitrary bytes in chunks of arbitrary sizes,
//! then `finish`: never a panic, no allocation beyond what the bytes
//! justify, and the chunking never changes the result (the same vectors, or
//! the same error naming the same line). With a limit, the words kept are a
//! prefix of those read without one.
//!
//! Input: byte 0 seeds the chunk sizes (0 = one chunk), byte 1 the limit
//! (0 = none, else that many values × 4), the rest is the text.
#![no_main]

use attention_core::glove_text::TextReader;
use attention_core::multihead::SeededRng;
use attention_core::{Embeddings, Result};
use attention_fuzz::{bounded, same};
use libfuzzer_sys::fuzz_target;

fn read(text: &[u8], chunk_seed: u8, limit: Option<usize>) -> Result<Embeddings> {
    let mut reader = limit.map_or_else(TextReader::new, TextReader::with_limit);
    let mut sizes = SeededRng::new(u64::from(chunk_seed));
    let mut rest = text;
    while !rest.is_empty() {
        let size = if chunk_seed == 0 { rest.len() } else { 1 + (sizes.next_u64() % 64) as usize };
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        reader.feed(chunk)?;
        assert!(reader.bytes() <= text.len() as u64);
        rest = tail;
    }
    reader.finish()
}

fuzz_target!(|bytes: &[u8]| {
    let (chunk_seed, limit, text) = match bytes {
        [a, b, text @ ..] => (*a, (*b != 0).then_some(usize::from(*b) * 4), text),
        _ => (0, None, bytes),
    };
    let chunked = bounded("TextReader", text.len(), 64, || read(text, chunk_seed, None));
    let whole = read(text, 0, None);
    assert!(same(&chunked, &whole), "chunks of any size read the same: {chunked:?} vs {whole:?}");
    let streamed = Embeddings::from_glove_text(text);
    assert!(same(&streamed, &whole), "from_glove_text reads the same: {streamed:?} vs {whole:?}");
    if let Some(limit) = limit {
        let limited =
            bounded("TextReader::with_limit", text.len(), 64, || read(text, chunk_seed, Some(limit)));
        if let (Ok(limited), Ok(whole)) = (&limited, &whole) {
            assert!(limited.len() * limited.dim() <= limit);
            assert_eq!(limited.words(), &whole.words()[..limited.len()], "a limit keeps the first words");
        }
    }
});
