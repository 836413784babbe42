//! A streaming reader of word vectors as text: GloVe's format (`word 0.418
//! 0.24968 …`, one word a line, any dimension), and word2vec's and
//! fastText's `.vec` files, which start with a header line `<count> <dim>`.
//!
//! Bytes go in in chunks of any size ([`TextReader::feed`]), so a file of
//! gigabytes is read with one line in memory besides the vectors kept, and
//! the caller can report progress and stay responsive between chunks. Every
//! problem names its line: ragged rows, a header that the rows contradict,
//! something that is not a number, a word twice, text that is not UTF-8.
//! A reader can stop at a number of values ([`TextReader::with_limit`]):
//! GloVe and word2vec files list the most frequent words first, so the first
//! rows are the most useful ones.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use crate::embeddings::{Embeddings, MAX_DIM, MAX_LINE_BYTES, MAX_WORDS, MAX_WORD_BYTES};
use crate::error::{counted, quote, Error, Result};
use crate::tokenize::normalize;

/// What a reader left out, or found short, for its user to be told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadNotes {
    /// Lines left out whole, after the first vector: a word with spaces
    /// (GloVe 840B has a few, such as ". . ."), which no sentence's word can
    /// be, and a line not in UTF-8 (a Latin-1 "café" in a UTF-8 file), which
    /// would otherwise refuse the whole file for one word.
    pub skipped: usize,
    /// The number of the first of them.
    pub first_skipped: Option<usize>,
    /// A header that promises more words than the file holds, as a file cut
    /// with `head` does: (promised, held). Read as it is.
    pub cut_short: Option<(usize, usize)>,
    /// Words left out because an earlier word of the file is spelled the
    /// same once lowercased (see [`TextReader::merged`]).
    pub merged: usize,
}

/// Reads word vectors from text, a chunk at a time.
#[derive(Debug, Default)]
pub struct TextReader {
    partial: Vec<u8>,
    line_no: usize,
    bytes: u64,
    dim: usize,
    /// The header's promise: (words, dimension).
    header: Option<(usize, usize)>,
    /// Words as the tokenizer spells them (see [`TextReader::merged`]).
    words: Vec<String>,
    /// Each spelling read: the index of its word, and whether it was written so.
    seen: HashMap<String, (usize, bool)>,
    merged: usize,
    /// Lines left out whole (see [`ReadNotes::skipped`]), and the first one's number.
    skipped: usize,
    first_skipped: Option<usize>,
    vectors: Vec<f32>,
    limit: Option<usize>,
    full: bool,
}

impl TextReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// A reader that keeps at most `values` numbers (whole words only) and
    /// ignores the rest of the input.
    pub fn with_limit(values: usize) -> Self {
        TextReader { limit: Some(values), ..Self::default() }
    }

    /// Reads the next bytes. Errors name the line; after an error the reader
    /// should be dropped.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        self.bytes += chunk.len() as u64;
        let mut rest = chunk;
        while !self.full {
            let Some(end) = rest.iter().position(|b| *b == b'\n') else { break };
            if self.partial.is_empty() {
                self.line(&rest[..end])?;
            } else {
                self.partial.extend_from_slice(&rest[..end]);
                let line = std::mem::take(&mut self.partial);
                self.line(&line)?;
            }
            rest = &rest[end + 1..];
        }
        if !self.full {
            if self.partial.len() + rest.len() > MAX_LINE_BYTES {
                return Err(invalid(format!(
                    "line {} is longer than {MAX_LINE_BYTES} bytes",
                    self.line_no + 1
                )));
            }
            self.partial.extend_from_slice(rest);
        }
        Ok(())
    }

    /// The vectors read, once the input has ended.
    pub fn finish(self) -> Result<Embeddings> {
        self.finish_noted().map(|(embeddings, _)| embeddings)
    }

    /// [`TextReader::finish`], with what was left out or found short.
    pub fn finish_noted(mut self) -> Result<(Embeddings, ReadNotes)> {
        if !self.full && !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(&line)?;
        }
        if self.words.is_empty() {
            return Err(invalid("the file holds no word vectors".into()));
        }
        let mut notes = ReadNotes {
            skipped: self.skipped,
            first_skipped: self.first_skipped,
            cut_short: None,
            merged: self.merged,
        };
        if let Some((count, _)) = self.header {
            // The words merged into another spelling, and the lines left out, are lines of the file too.
            let lines = self.words.len() + self.merged + self.skipped;
            if !self.full && count < lines {
                return Err(invalid(format!(
                    "the header says {}, the file holds {lines}",
                    counted(count, "word")
                )));
            }
            if !self.full && count > lines {
                notes.cut_short = Some((count, lines));
            }
        }
        Ok((Embeddings::new(self.dim, self.words, self.vectors)?, notes))
    }

    /// Bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Words read so far.
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// The dimension, once the first vector has been read (else 0).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Words left out because another word of the file is spelled the same
    /// once lowercased ("King" after "king"), or spelled with invisible
    /// characters alone.
    pub fn merged(&self) -> usize {
        self.merged
    }

    fn skip(&mut self, n: usize) -> Result<()> {
        self.skipped += 1;
        self.first_skipped.get_or_insert(n);
        Ok(())
    }

    /// Whether the limit was reached: the rest of the input is ignored.
    pub fn is_full(&self) -> bool {
        self.full
    }

    fn line(&mut self, raw: &[u8]) -> Result<()> {
        self.line_no += 1;
        let n = self.line_no;
        if raw.len() > MAX_LINE_BYTES {
            return Err(invalid(format!("line {n} is longer than {MAX_LINE_BYTES} bytes")));
        }
        let Ok(text) = std::str::from_utf8(raw) else {
            // One word in another encoding, among vectors already read, is left out; a
            // file that is not text (compressed, word2vec's binary) is refused at its start.
            if self.words.is_empty() {
                return Err(not_text(n, raw, self.header.is_some()));
            }
            return self.skip(n);
        };
        // A byte-order mark (Windows editors start a UTF-8 file with one) is not
        // part of the first word.
        let text = if n == 1 { text.strip_prefix('\u{FEFF}').unwrap_or(text) } else { text };
        let mut fields = text.split_ascii_whitespace();
        let Some(word) = fields.next() else { return Ok(()) };
        let numbers: Vec<&str> = fields.collect();
        // More numbers than the dimension, whose first ones are not numbers: a word with spaces.
        let dim = if self.dim > 0 { self.dim } else { self.header.map_or(0, |(_, dim)| dim) };
        if dim > 0 && numbers.len() > dim && numbers[0].parse::<f32>().is_err() {
            return self.skip(n);
        }
        if n == 1 && numbers.len() == 1 {
            if let (Ok(count), Ok(dim)) = (word.parse::<usize>(), numbers[0].parse::<usize>()) {
                // word2vec / fastText: "<count> <dimension>".
                if dim == 0 || dim > MAX_DIM as usize {
                    return Err(invalid(format!(
                        "line 1: the header's dimension {dim} is outside 1..={MAX_DIM}"
                    )));
                }
                self.header = Some((count, dim));
                return Ok(());
            }
        }
        // Said at its line, not after reading the rest of the file (a file of
        // 1 MB words took 600 MB and 4 s to be refused at its end).
        if word.len() > MAX_WORD_BYTES {
            return Err(invalid(format!(
                "line {n}: the word {} is longer than {MAX_WORD_BYTES} bytes",
                quote(word)
            )));
        }
        self.check_width(n, word, numbers.len())?;
        if let Some(limit) = self.limit {
            if self.vectors.len() + self.dim > limit {
                self.full = true;
                return Ok(());
            }
        }
        // The tokenizer looks words up lowercased (and composed, without
        // invisible characters): "King" in a cased word2vec file is the
        // "king" of a sentence. Of "king" and "King", the word written as
        // the sentence's lookup spells it is kept, wherever it comes; of two
        // other spellings ("King", "KING"), the first. A "The" on line 1 gave
        // "the" its vector, though the file has "the" on line 2.
        let spelled = normalize(word);
        let exact = spelled == word;
        let at = match self.seen.entry(spelled.clone()) {
            Entry::Occupied(first) if first.get().1 && exact => {
                return Err(invalid(format!("line {n}: the word {} appears twice", quote(word))));
            }
            Entry::Occupied(mut first) if exact => {
                first.get_mut().1 = true;
                Some(first.get().0)
            }
            Entry::Occupied(_) => {
                self.merged += 1;
                return Ok(());
            }
            Entry::Vacant(slot) if !spelled.is_empty() => {
                slot.insert((self.words.len(), exact));
                None
            }
            Entry::Vacant(_) => {
                self.merged += 1;
                return Ok(());
            }
        };
        let mut values = Vec::with_capacity(numbers.len());
        for (i, number) in numbers.iter().enumerate() {
            let value: f32 = number.parse().map_err(|_| {
                if self.words.is_empty() {
                    // Not a vector file at all: its text is not repeated (the page shows this
                    // message, and a file picked by mistake, or by a link's instruction, may
                    // hold a password or a key).
                    return not_vectors(format!("line {n}: component {i} is not a number"));
                }
                invalid(format!(
                    "line {n}: component {i} of {} is not a number: {}",
                    quote(word),
                    quote(number)
                ))
            })?;
            if !value.is_finite() {
                return Err(invalid(format!(
                    "line {n}: component {i} of {} is not a finite number: {}",
                    quote(word),
                    quote(number)
                )));
            }
            values.push(value);
        }
        if let Some(index) = at {
            // The earlier spelling's row takes this word's numbers: the earlier one is the one merged.
            self.vectors[index * self.dim..(index + 1) * self.dim].copy_from_slice(&values);
            self.merged += 1;
            return Ok(());
        }
        self.vectors.extend_from_slice(&values);
        self.words.push(spelled);
        if self.words.len() > MAX_WORDS as usize {
            return Err(invalid(format!("more than {MAX_WORDS} words")));
        }
        Ok(())
    }

    /// Every row has the dimension of the first (and of the header, if any).
    fn check_width(&mut self, n: usize, word: &str, width: usize) -> Result<()> {
        if self.dim == 0 {
            if let Some((_, dim)) = self.header {
                if width != dim {
                    return Err(invalid(format!(
                        "line {n}: {} has {}, the header says {dim}",
                        quote(word),
                        counted(width, "number")
                    )));
                }
            }
            if width == 0 {
                return Err(not_vectors(format!("line {n} holds a word and no number")));
            }
            if width > MAX_DIM as usize {
                return Err(invalid(format!(
                    "line {n}: {} has {}; a dimension must be 1..={MAX_DIM}",
                    quote(word),
                    counted(width, "number")
                )));
            }
            self.dim = width;
        } else if width != self.dim {
            return Err(invalid(format!(
                "line {n}: {} has {}, earlier lines have {}",
                quote(word),
                counted(width, "number"),
                self.dim
            )));
        }
        Ok(())
    }
}

/// Why line `n` (`raw`, not UTF-8) is not text, with what to do when the
/// file is of a known other kind: compressed, or word2vec's binary format.
pub(crate) fn not_text(n: usize, raw: &[u8], header: bool) -> Error {
    if n == 1 && raw.starts_with(&[0x1f, 0x8b]) {
        return invalid(
            "this is a gzip-compressed file: decompress it first (gunzip), then use the text file".into(),
        );
    }
    if n == 2 && header {
        return invalid(
            "line 2 is not UTF-8 text: this looks like a word2vec binary file (a header line, then binary \
             vectors). Save it as text first (gensim: save_word2vec_format(path, binary=False))"
                .into(),
        );
    }
    invalid(format!("line {n} is not UTF-8 text, so this is not a word-vector text file"))
}

/// The first line of vectors is not one: `what` is wrong with it, without its text.
fn not_vectors(what: String) -> Error {
    invalid(format!("{what} (each line of a word-vector text file is a word, then its numbers)"))
}

fn invalid(reason: String) -> Error {
    Error::InvalidEmbeddings(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_in_chunks(text: &[u8], size: usize) -> Result<Embeddings> {
        let mut reader = TextReader::new();
        for chunk in text.chunks(size) {
            reader.feed(chunk)?;
        }
        reader.finish()
    }

    #[test]
    fn any_chunking_gives_the_same_vectors() {
        let text = "the 0.418 0.24968\ncafé -1 2.5e-3\n\nn't 3 4";
        let whole = read_in_chunks(text.as_bytes(), text.len()).unwrap();
        assert_eq!(whole.words(), ["the", "café", "n't"]);
        assert_eq!(whole.vector("café"), Some(&[-1.0, 0.0025][..]));
        for size in 1..8 {
            assert_eq!(read_in_chunks(text.as_bytes(), size).unwrap(), whole, "chunks of {size}");
        }
    }

    #[test]
    fn word2vec_headers_are_read_and_checked() {
        let ok = read_in_chunks(b"2 2\nthe 1 2\ncat 3 4\n", 5).unwrap();
        assert_eq!((ok.len(), ok.dim()), (2, 2));
        // A cased file (fastText, word2vec) counts "The" in its header, though it is read as "the".
        let cased = read_in_chunks(b"3 2\nthe 1 2\nThe 2 1\ncat 3 4\n", 5).unwrap();
        assert_eq!(cased.words(), ["the", "cat"]);
        // Cut short (by `head`, say): read as it is, and said.
        let mut reader = TextReader::new();
        reader.feed(b"3 2\nthe 1 2\ncat 3 4\n").unwrap();
        let (short, notes) = reader.finish_noted().unwrap();
        assert_eq!(
            (short.words(), notes.cut_short),
            (["the".to_owned(), "cat".to_owned()].as_slice(), Some((3, 2)))
        );
        for (text, expected) in [
            ("2 3\nthe 1 2\ncat 3 4\n", "line 2: 'the' has 2 numbers, the header says 3"),
            ("1 2\nthe 1 2\ncat 3 4\n", "the header says 1 word, the file holds 2"),
            ("2 0\nthe 1\n", "dimension 0"),
        ] {
            let err = read_in_chunks(text.as_bytes(), 4).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
    }

    /// Sentences are looked up lowercased: a cased file's "King" is "king".
    /// Of two words spelled the same lowercased, the one written so is kept
    /// wherever it comes, else the first.
    #[test]
    fn words_are_kept_as_the_tokenizer_spells_them() {
        let mut reader = TextReader::new();
        reader.feed("king 1 0\nThe 0 1\nKing 2 2\nCAFE\u{301} 3 3\n\u{AD} 4 4\n".as_bytes()).unwrap();
        assert_eq!(reader.merged(), 2);
        let read = reader.finish().unwrap();
        assert_eq!(read.words(), ["king", "the", "café"]);
        assert_eq!(read.vector("king"), Some(&[1.0, 0.0][..]));
        // "the" after "The": the lowercase line's numbers, in the first one's place.
        let mut reader = TextReader::new();
        reader.feed(b"The -1 0\nking 0 1\nthe 1 0\nTHE 5 5\nKing 3 3").unwrap();
        // The last line, which no newline ends, is read by finish: its merge is in the notes.
        assert_eq!(reader.merged(), 2);
        let (read, notes) = reader.finish_noted().unwrap();
        assert_eq!(notes.merged, 3);
        assert_eq!(read.words(), ["the", "king"]);
        assert_eq!(read.vector("the"), Some(&[1.0, 0.0][..]));
        assert_eq!(read.vector("king"), Some(&[0.0, 1.0][..]));
        // A word written twice the same way is still a mistake of the file.
        let err = read_in_chunks(b"the 1 0\nking 0 1\nthe 1 1\n", 64).unwrap_err().to_string();
        assert!(err.contains("line 3: the word 'the' appears twice"), "{err}");
    }

    #[test]
    fn a_word_too_long_for_the_formats_is_refused_at_its_line() {
        let text = format!("the 1\n{} 2\ncat 3\n", "w".repeat(MAX_WORD_BYTES + 1));
        let mut reader = TextReader::new();
        let err = reader.feed(text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("line 2: the word 'wwww"), "{err}");
        assert!(err.ends_with("is longer than 1024 bytes"), "{err}");
        assert_eq!(reader.words(), 1, "nothing read past it");
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_word() {
        let read = read_in_chunks("\u{FEFF}the 1 0\nking 0 1\n".as_bytes(), 2).unwrap();
        assert_eq!(read.vector("the"), Some(&[1.0, 0.0][..]));
        assert_eq!(read.len(), 2);
        // Elsewhere it is an invisible character of a word, left out of its spelling as sentences leave it out.
        let read = read_in_chunks("the 1 0\n\u{FEFF}king 0 1\n".as_bytes(), 64).unwrap();
        assert_eq!(read.vector("king"), Some(&[0.0, 1.0][..]));
    }

    #[test]
    fn a_message_quotes_a_huge_word_or_number_short() {
        let word = "w".repeat(5000);
        for (text, expected) in [
            (
                format!("the 1 2\n{word} 3\n"),
                format!("line 2: the word '{}…' is longer than 1024 bytes", "w".repeat(40)),
            ),
            (
                format!("the 1 2\ncat 1 {word}\n"),
                format!("line 2: component 1 of 'cat' is not a number: '{}…'", "w".repeat(40)),
            ),
        ] {
            let err = read_in_chunks(text.as_bytes(), 64).unwrap_err().to_string();
            assert!(err.contains(&expected), "{:?} should mention {expected:?}", &err[..err.len().min(200)]);
        }
    }

    #[test]
    fn a_word_with_spaces_or_in_another_encoding_is_left_out_not_the_file() {
        let text = b"the 1 2\n. . . 3 4\ncaf\xe9 5 6\ncat 7 8\n";
        let e = read_in_chunks(text, 5).unwrap();
        assert_eq!(e.words(), ["the", "cat"]);
        assert_eq!(e.vector("cat").unwrap(), [7.0, 8.0]);
        let mut reader = TextReader::new();
        reader.feed(text).unwrap();
        let (_, notes) = reader.finish_noted().unwrap();
        assert_eq!(notes, ReadNotes { skipped: 2, first_skipped: Some(2), cut_short: None, merged: 0 });
        // A header counts them among its lines.
        let headed = [b"4 2\n".as_slice(), text].concat();
        assert_eq!(read_in_chunks(&headed, 7).unwrap().words(), ["the", "cat"]);
    }

    #[test]
    fn a_file_that_holds_no_vectors_is_refused_without_repeating_its_text() {
        for text in
            ["-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk 1\n", "alice hunter2\n", "hunter2\n"]
        {
            let err = read_in_chunks(text.as_bytes(), 8).unwrap_err().to_string();
            assert!(
                err.contains("(each line of a word-vector text file is a word, then its numbers)"),
                "{err}"
            );
            for secret in ["BEGIN", "OPENSSH", "alice", "hunter2"] {
                assert!(!err.contains(secret), "{err:?} repeats {secret:?}");
            }
        }
    }

    #[test]
    fn bad_rows_name_their_line() {
        for (text, expected) in [
            ("the 1 2\ncat 1\n", "line 2: 'cat' has 1 number, earlier lines have 2"),
            ("the 1 2\ncat 1 x\n", "line 2: component 1 of 'cat' is not a number: 'x'"),
            ("the 1 2\ncat 1 inf\n", "line 2: component 1 of 'cat' is not a finite number"),
            ("the 1 2\nthe 3 4\n", "line 2: the word 'the' appears twice"),
            ("the 1 2\n\u{fffd}\u{0}\x01 \n", "has 0 numbers"),
            // The first line of a file that holds no vectors: what is wrong, not what it says.
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\n",
                "line 1: component 0 is not a number (each line of a word-vector text file is a word, then its numbers)",
            ),
            ("alice hunter2\n", "line 1: component 0 is not a number (each line of a word-vector"),
            ("hunter2\n", "line 1 holds a word and no number (each line of a word-vector text file"),
            ("", "no word vectors"),
        ] {
            let err = read_in_chunks(text.as_bytes(), 3).unwrap_err().to_string();
            assert!(err.contains(expected), "{err:?} should mention {expected:?}");
        }
        let binary = [0x93u8, b'N', b'U', b'M', 0xff, 0xfe, b'\n'];
        let err = read_in_chunks(&binary, 2).unwrap_err().to_string();
        assert!(err.contains("line 1 is not UTF-8 text"), "{err}");
        // A compressed file, and word2vec's binary format, say what to do.
        let gz = read_in_chunks(b"\x1f\x8b\x08\x00\x00\x00", 4).unwrap_err().to_string();
        assert!(gz.contains("gzip-compressed file: decompress it first"), "{gz}");
        let bin = read_in_chunks(b"2 3\nthe \x00\x00\x80\x3f\xff\xfe\n", 4).unwrap_err().to_string();
        assert!(bin.contains("line 2 is not UTF-8 text: this looks like a word2vec binary file"), "{bin}");
        let long = vec![b'a'; MAX_LINE_BYTES + 10];
        assert!(read_in_chunks(&long, 4096).unwrap_err().to_string().contains("longer than"));
    }

    #[test]
    fn a_limit_keeps_whole_words_from_the_top() {
        let mut reader = TextReader::with_limit(5);
        reader.feed(b"a 1 2\nb 3 4\nc 5 6\nd 7 8\n").unwrap();
        assert!(reader.is_full());
        assert_eq!(reader.words(), 2);
        let e = reader.finish().unwrap();
        assert_eq!(e.words(), ["a", "b"]);
    }
}
