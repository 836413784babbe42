//! Writes the seed corpus, `fuzz/corpus/<target>/`: a few valid and a few
//! broken inputs per target, in the layout each target documents. The same
//! files every run (no randomness but attention-core's seeded SplitMix64).
//!
//!     cd fuzz && cargo run --example seeds
//!
//! libFuzzer starts from these and mutates; scripts/fuzz keeps what it
//! finds out of this folder (in fuzz/target/), so only these seeds are
//! committed.

use std::fs;
use std::path::{Path, PathBuf};

use attention_core::embeddings::Precision;
use attention_core::multihead::SeededRng;
use attention_core::shards::Shard;
use attention_core::Embeddings;
use attention_fuzz::{shard_fixture, tiny_model};
use attention_model::DType;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut total = Vec::new();

    // subset: AEWV subsets of 3 words in each encoding, broken ones, GloVe text.
    let three = Embeddings::new(
        3,
        vec!["the".into(), "cat".into(), "ça".into()],
        vec![0.418, 0.24968, -0.41242, 1.0, 2.0, 3.0, -0.5, 0.25, 65504.0],
    )
    .map_err(std::io::Error::other)?;
    let subset = |p| three.to_subset(p).map_err(std::io::Error::other);
    let f32_subset = subset(Precision::F32)?;
    let mut wrong_count = f32_subset.clone();
    wrong_count[8..12].copy_from_slice(&1_000_000u32.to_le_bytes());
    let mut nan = f32_subset.clone();
    let last = nan.len() - 4;
    nan[last..].copy_from_slice(&f32::NAN.to_le_bytes());
    total.push(write(
        &root,
        "subset",
        &[
            ("three-f32.aewv", f32_subset.clone()),
            ("three-f16.aewv", subset(Precision::F16)?),
            ("three-q16.aewv", subset(Precision::Q16)?),
            ("truncated.aewv", f32_subset[..f32_subset.len() - 3].to_vec()),
            ("header-lies-about-count.aewv", wrong_count),
            ("nan.aewv", nan),
            ("glove.txt", b"the 0.418 0.24968 -0.41242\ncat 1 2 3\n".to_vec()),
            ("word2vec.txt", b"2 2\nthe 0.1 0.2\ncat 1e-3 -2.5\n".to_vec()),
            ("html.txt", b"<!doctype html><title>404</title>".to_vec()),
        ],
    )?);

    // glove_text: [chunk seed, limit / 4] then the text.
    let with = |seed: u8, limit: u8, text: &[u8]| [&[seed, limit][..], text].concat();
    total.push(write(
        &root,
        "glove_text",
        &[
            ("glove-whole", with(0, 0, b"the 0.418 0.24968\ncaf\xc3\xa9 -1 2.5e-3\n\nn't 3 4")),
            ("glove-chunks", with(7, 0, b"the 0.418 0.24968\ncat 1 2\n")),
            ("word2vec-header", with(3, 0, b"2 2\nthe 1 2\ncat 3 4\n")),
            ("header-lies", with(5, 0, b"3 2\nthe 1 2\ncat 3 4\n")),
            ("header-dim-0", with(1, 0, b"2 0\nthe 1\n")),
            ("ragged", with(2, 0, b"the 1 2\ncat 1\n")),
            ("twice", with(9, 0, b"the 1 2\nthe 3 4\n")),
            ("inf-and-crlf", with(4, 0, b"the 1 2\r\ncat 1 inf\r\n")),
            ("not-utf8", with(2, 0, b"\x93NUM\xff\xfe\n")),
            ("limit", with(6, 1, b"a 1 2\nb 3 4\nc 5 6\nd 7 8\n")),
        ],
    )?);

    // shard: [flags] query text, then shard files (each starts with AEWS).
    let fixture = shard_fixture();
    let real = &fixture.shards;
    let query = b"The U.S. isn't well-known... it's 1,000 cats --caf\xc3\xa9".to_vec();
    let mut flipped = real[1].clone();
    *flipped.last_mut().unwrap_or(&mut 0) ^= 1;
    let moved = Shard::parse(&real[2], &fixture.set)
        .map(|s| Shard { index: 3, ..s })
        .and_then(|s| s.to_bytes(&fixture.set))
        .map_err(std::io::Error::other)?;
    let mut lying = real[0].clone();
    lying[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    total.push(write(
        &root,
        "shard",
        &[
            ("all-shards", [&[0][..], &query, &real.concat()].concat()),
            ("two-shards", [&[0][..], b"can't stop", &real[0], &real[3]].concat()),
            ("own-set", [&[2][..], b"the cat", &real[1]].concat()),
            ("corrupt-checksum", [&[0][..], b"it", &flipped].concat()),
            ("fix-checksum-misplaced", [&[1][..], b"cat", &moved].concat()),
            ("header-lies-about-words", [&[1][..], b"", &lying].concat()),
            ("truncated", [&[0][..], b"x", &real[2][..30]].concat()),
            ("text-only", [&[0][..], &query[..]].concat()),
        ],
    )?);

    // tokenize: [flags] then the text.
    let text = |flags: u8, t: &str| [&[flags][..], t.as_bytes()].concat();
    total.push(write(
        &root,
        "tokenize",
        &[
            ("sentence", text(0, "The cat sat on the mat.")),
            ("contractions", text(0, "Isn't it? Can't, won't, it’s, I'm, cats'")),
            ("compounds", text(0, "The U.S. is well-known... $100!!! 1,000 3.14 12,345,678 a.m. e-mail")),
            ("punctuation", text(0, "(the cat sat...) \"cat,\" --ultra-cool-- ?!")),
            (
                "emoji",
                text(0, "I \u{2764}\u{fe0f} cats \u{1f469}\u{200d}\u{1f469}\u{200d}\u{1f467} caf\u{e9} 中文"),
            ),
            ("spaces", text(0, "\u{a0}the\u{2028}cat\u{3000}sat\t\r\n \u{85}mat")),
            ("own-words", text(1, "zz-top.. q.e.d.|zz-top|q.e.d.|..")),
            ("empty-word", text(2, "'' .. -- ' - ")),
            ("pending", text(4, "The cat sat on the mat because it was tired")),
        ],
    )?);

    // matrix_parse: the text.
    let m = |t: &str| t.as_bytes().to_vec();
    total.push(write(
        &root,
        "matrix_parse",
        &[
            ("rows", m("2 3; 1 2")),
            ("brackets", m("[[2, 3], [1, 2]]")),
            ("vector", m("[2, 3]")),
            ("lines", m("1,2\n3,4\n")),
            ("exponents", m("1e-3 -2.5E2; 0.5 7")),
            ("huge", m("1e38 1e38; 1e38 1e38")),
            ("ragged", m("1 2; 3")),
            ("nan", m("NaN 1")),
            ("empty", m(" ; ")),
            ("words", m("two three")),
        ],
    )?);

    // attention: bytes for `Unstructured` (any bytes are an input).
    let mut rng = SeededRng::new(13);
    let random =
        |rng: &mut SeededRng, len: usize| (0..len).map(|_| rng.next_u64() as u8).collect::<Vec<u8>>();
    let attention_seeds: Vec<(String, Vec<u8>)> =
        [32, 64, 128, 256, 512].iter().map(|len| (format!("random-{len}"), random(&mut rng, *len))).collect();
    let attention_seeds: Vec<(&str, Vec<u8>)> =
        attention_seeds.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    total.push(write(&root, "attention", &attention_seeds)?);

    // model_core: [mode, dtype] then the mode's data.
    let f16 = tiny_model(DType::F16);
    let q8 = tiny_model(DType::Q8);
    let mode = |mode: u8, dtype: u8, data: &[u8]| [&[mode, dtype][..], data].concat();
    let mut edits = SeededRng::new(7);
    total.push(write(
        &root,
        "model_core",
        &[
            ("core-f16", mode(0, 1, &f16.core)),
            ("core-truncated", mode(0, 1, &f16.core[..200])),
            ("shard-q8", mode(1, 2, &q8.shards[0])),
            ("shard-last-f16", mode(1, 1, &f16.shards[f16.shards.len() - 1])),
            ("shard-truncated", mode(1, 1, &f16.shards[1][..30])),
            ("edit-core", mode(2, 0, &random(&mut edits, 48))),
            ("edit-shard", mode(3, 2, &random(&mut edits, 48))),
            ("manifest", mode(4, 1, &random(&mut edits, 64))),
            ("run", mode(5, 0, b"the cat sat on the mat because it was tired")),
            ("run-unknown", mode(5, 2, "Don't! unable... 中 é".as_bytes())),
        ],
    )?);

    // wordpiece: [flags] then the text.
    let long_word = "a".repeat(101);
    total.push(write(
        &root,
        "wordpiece",
        &[
            ("sentence", text(0, "The cat sat on the mat because it was tired.")),
            ("subwords", text(0, "Cats unable sating DON'T don't")),
            ("accents-cjk", text(0, "Éé İstanbul 中文 ﬁ ß Ǆ")),
            ("controls", text(0, "a\u{0}b\u{fffd}c\u{200b}d\u{7}e\u{e000}f")),
            ("long-word", text(0, &format!("the {long_word} cat"))),
            ("own-vocab", text(1, "zebra|zeb|##ra|##")),
            ("empty", text(0, "")),
        ],
    )?);

    for (target, files, bytes) in total {
        println!("{target:<14} {files:>3} files {bytes:>7} bytes");
    }
    Ok(())
}

/// Replaces the seeds of `target` with `files`; returns (target, count, bytes).
fn write(
    root: &Path,
    target: &'static str,
    files: &[(&str, Vec<u8>)],
) -> std::io::Result<(&'static str, usize, usize)> {
    let dir = root.join(target);
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(&dir)?;
    for (name, bytes) in files {
        fs::write(dir.join(name), bytes)?;
    }
    Ok((target, files.len(), files.iter().map(|(_, b)| b.len()).sum()))
}
