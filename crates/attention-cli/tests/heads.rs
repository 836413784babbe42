//! `attention heads`: the heads ranked by the weight from one token to
//! another, as a user runs it. The ranking must be the argmax order of the
//! weights `attention --model DIR --json` prints for every head (both
//! binaries, both views). On a tiny model written to a temporary folder
//! (always) and on all-MiniLM-L6-v2 when it is built (required with
//! `AE_REQUIRE_MODEL`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::process::{Command, Output};

use attention_model::format::{encode, required_tensors};
use attention_model::testing::built_model_dir;
use attention_model::{shard_file, Config, DType, Tensor, CORE_FILE, MANIFEST_FILE};
use serde_json::Value;
use sha2::{Digest, Sha256};

const CAT: &str = "The cat sat on the mat because it was tired";

fn attention(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_attention")).args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A 2-layer, 3-head model over the words of `CAT` (and "##s"), in shards
/// of 4 rows, written to a fresh folder as `scripts/build-model` lays it out
/// (removed with the model, even when a test fails).
struct TinyModel(tempfile::TempDir);

impl TinyModel {
    fn new(name: &str) -> TinyModel {
        let vocab: Vec<String> = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "because", "it", "was",
            "tired", "##s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let config = Config {
            vocab_size: vocab.len(),
            hidden: 12,
            layers: 2,
            heads: 3,
            intermediate: 16,
            max_positions: 32,
            type_vocab: 2,
            layer_norm_eps: 1e-12,
        };
        let mut k = 7u32;
        let tensors: Vec<Tensor> = required_tensors(&config)
            .into_iter()
            .map(|(name, shape)| {
                let offset = if name.ends_with("LayerNorm.weight") { 1.0 } else { 0.0 };
                let values = (0..shape.iter().product::<usize>())
                    .map(|_| {
                        k = k.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        ((k >> 8) % 1000) as f32 / 500.0 - 1.0 + offset
                    })
                    .collect();
                Tensor { name, shape, values }
            })
            .collect();
        let files = encode(&config, &vocab, &tensors, |_| DType::F32, 4).unwrap();
        let temp = tempfile::Builder::new().prefix(&format!("attention-heads-{name}-")).tempdir().unwrap();
        let dir = temp.path();
        std::fs::create_dir_all(dir.join("embeddings")).unwrap();
        std::fs::write(dir.join(CORE_FILE), &files.core).unwrap();
        for (k, shard) in files.shards.iter().enumerate() {
            std::fs::write(dir.join(shard_file(k)), shard).unwrap();
        }
        // The manifest the CLI checks every file against, as scripts/build-model writes it.
        let entry = |file: String, bytes: &[u8]| {
            let sha256: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
            serde_json::json!({ "file": file, "bytes": bytes.len(), "sha256": sha256 })
        };
        let shards: Vec<Value> =
            files.shards.iter().enumerate().map(|(k, s)| entry(shard_file(k), s)).collect();
        let manifest =
            serde_json::json!({ "core": entry(CORE_FILE.to_owned(), &files.core), "shards": shards });
        std::fs::write(dir.join(MANIFEST_FILE), manifest.to_string()).unwrap();
        TinyModel(temp)
    }

    fn dir(&self) -> &str {
        self.0.path().to_str().unwrap()
    }
}

/// Every head's weight from `from` to `to`, by `attention --model DIR --json`,
/// in argmax order: best first, equal weights by layer, then head.
fn argmax_order(dir: &str, sentence: &str, words: bool, from: usize, to: usize) -> Vec<(usize, usize, f64)> {
    let mut args = vec!["--model", dir, "--json"];
    if words {
        args.push("--words");
    }
    args.push(sentence);
    let out = attention(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut heads = Vec::new();
    for (l, layer) in json["attention"].as_array().unwrap().iter().enumerate() {
        for (h, head) in layer.as_array().unwrap().iter().enumerate() {
            heads.push((l, h, head[from][to].as_f64().unwrap()));
        }
    }
    heads.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    heads
}

/// The (layer, head, weight) lines of the text output, in order.
fn printed(text: &str) -> Vec<(usize, usize, f64)> {
    text.lines()
        .skip(2)
        .take_while(|l| !l.starts_with('('))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

/// `attention heads` and the argmax of the JSON agree, in text and JSON, on
/// `(from, to)` given as words and as the indices they stand for.
fn check_against_json(dir: &str, sentence: &str, words: bool, from: (&str, usize), to: (&str, usize)) {
    let expected = argmax_order(dir, sentence, words, from.1, to.1);
    let total = expected.len().to_string();
    let mut args = vec!["heads", sentence, "--model", dir, "--from", from.0, "--to", to.0, "--top", &total];
    if words {
        args.push("--words");
    }
    let out = attention(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = printed(&stdout(&out));
    assert_eq!(lines.len(), expected.len());
    for (got, want) in lines.iter().zip(&expected) {
        assert_eq!((got.0, got.1), (want.0, want.1), "ranking differs: {lines:?}");
        assert!((got.2 - want.2).abs() <= 0.00005 + 1e-9, "{got:?} vs {want:?}");
    }
    args.push("--json");
    let json: Value = serde_json::from_str(&stdout(&attention(&args))).unwrap();
    assert_eq!(json["from"]["index"], from.1);
    assert_eq!(json["to"]["index"], to.1);
    let order: Vec<(usize, usize)> = json["heads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["layer"].as_u64().unwrap() as usize, h["head"].as_u64().unwrap() as usize))
        .collect();
    let want: Vec<(usize, usize)> = expected.iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(order, want);
    // Indices name the same tokens.
    let (f, t) = (from.1.to_string(), to.1.to_string());
    let mut by_index = vec!["heads", sentence, "--model", dir, "--from", &f, "--to", &t, "--top", &total];
    if words {
        by_index.push("--words");
    }
    assert_eq!(printed(&stdout(&attention(&by_index))), lines);
}

#[test]
fn the_ranking_is_the_argmax_order_of_the_json_on_the_tiny_model() {
    let model = TinyModel::new("rank");
    // [CLS] the cat sat on the mat because it was tired [SEP]: 'it' is 8, 'cat' 2.
    check_against_json(model.dir(), CAT, false, ("it", 8), ("cat", 2));
    // The second 'the' (5) to the first (1), in both views.
    check_against_json(model.dir(), CAT, false, ("the#2", 5), ("THE", 1));
    check_against_json(model.dir(), CAT, true, ("The#2", 5), ("the#1", 1));
    // "cats" is two pieces, one word: --words ranks the word, pieces the first piece.
    let sentence = "The cats sat because it was tired";
    check_against_json(model.dir(), sentence, true, ("it", 5), ("cats", 2));
    check_against_json(model.dir(), sentence, false, ("it", 6), ("##s", 3));
}

#[test]
fn a_word_of_several_pieces_says_which_piece_it_uses() {
    let model = TinyModel::new("pieces");
    let out = attention(&["heads", "The cats sat", "--model", model.dir(), "--from", "cats", "--to", "sat"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("'cats' is 2 pieces (cat ##s); --from uses the first, 'cat'"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).starts_with(
        "Heads of all-MiniLM-L6-v2 ranked by the weight from 'cat' (token 2) to 'sat' (token 4)"
    ));
    assert!(stdout(&out).contains("(6 of 6)"), "two layers of three heads: {}", stdout(&out));
    let one = attention(&[
        "heads",
        "The cats sat",
        "--model",
        model.dir(),
        "--from",
        "sat",
        "--to",
        "0",
        "--top",
        "1",
    ]);
    assert_eq!(printed(&stdout(&one)).len(), 1);
    assert!(stdout(&one).contains("(1 of 6)") && stdout(&one).contains("(--top 6 prints every head)"));
}

fn assert_clean_failure(out: &Output, expected: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit code for {err:?}");
    assert!(err.contains(expected), "{err:?} should mention {expected:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    assert!(!err.contains("panicked"));
    assert!(out.stdout.is_empty());
}

#[test]
fn words_not_in_the_sentence_get_one_line_with_its_words_and_exit_2() {
    let model = TinyModel::new("errors");
    let d = model.dir();
    let run = |from: &str, to: &str| attention(&["heads", CAT, "--model", d, "--from", from, "--to", to]);
    assert_clean_failure(
        &run("dog", "cat"),
        "--from 'dog' is not in the sentence; its words are: The, cat, sat, on, the, mat, because, it, was, tired",
    );
    assert_clean_failure(&run("it", "mouse"), "--to 'mouse' is not in the sentence");
    assert_clean_failure(&run("it#2", "cat"), "--from 'it#2': 'it' occurs 1 time in the sentence");
    // What the user typed is quoted with its control characters as escapes.
    let typed = run("d\u{1b}[2Jog", "cat");
    assert_clean_failure(&typed, r"--from 'd\u{1b}[2Jog' is not in the sentence");
    assert!(!stderr(&typed).contains('\u{1b}'));
    assert_clean_failure(&run("it#0", "cat"), "occurrences count from 1");
    assert_clean_failure(
        &run("it#-1", "cat"),
        "--from 'it#-1': occurrences count from 1 ('it#1' is the first)",
    );
    // More digits than a count holds: too many occurrences, not a zeroth.
    assert_clean_failure(&run("it#99999999999999999999", "cat"), "'it' occurs 1 time in the sentence");
    assert_clean_failure(&run("12", "cat"), "--from 12 is out of range: the sentence has tokens 0 to 11");
    let missing = attention(&["heads", CAT, "--model", "/no/such/model", "--from", "it", "--to", "cat"]);
    assert_clean_failure(&missing, "no trained model in '/no/such/model'");
    assert!(stderr(&missing).contains("scripts/build-model"));
    // Without --model, from any folder: the model scripts/build-model wrote into this checkout.
    let here = Command::new(env!("CARGO_BIN_EXE_attention"))
        .args(["heads", CAT, "--from", "it", "--to", "cat", "--top", "1"])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model").join(CORE_FILE);
    if built.is_file() {
        assert!(here.status.success(), "{}", stderr(&here));
        let ranked = String::from_utf8_lossy(&here.stdout).into_owned();
        assert!(ranked.contains("layer  head  weight"), "{ranked}");
    } else {
        assert_clean_failure(&here, "no trained model in this checkout (model/minilm-core.aebm is missing)");
    }
}

/// The flags of `attention --model DIR` that choose a head, on the tiny model.
#[test]
fn model_mode_says_what_a_layer_or_head_needs() {
    let model = TinyModel::new("flags");
    let d = model.dir();
    assert_clean_failure(
        &attention(&["--model", d, "--layer", "-1", "--head", "0", CAT]),
        "--layer -1 is out of range: this model has 0 to 1",
    );
    assert_clean_failure(
        &attention(&["--model", d, "--layer", "0", "--head", "-3", CAT]),
        "--head -3 is out of range: this model has 0 to 2",
    );
    assert_clean_failure(
        &attention(&["--model", d, "--json", "--layer", "1", CAT]),
        "--layer needs --head: a head is chosen with --layer L --head H (layers 0 to 1, heads 0 to 2), \
         or leave both out for every head",
    );
    assert_clean_failure(&attention(&["--model", d, "--head", "1", CAT]), "--head needs --layer");
    let chosen = attention(&["--model", d, "--json", "--layer", "1", "--head", "2", CAT]);
    let json: Value = serde_json::from_str(&stdout(&chosen)).unwrap();
    assert_eq!((json["layer"].as_u64(), json["head"].as_u64()), (Some(1), Some(2)));
    assert_eq!(json["weights"], json["attention"][1][2]);
}

fn real_dir() -> Option<String> {
    built_model_dir().map(|d| d.to_str().unwrap().to_owned())
}

#[test]
fn minilm_it_to_cat_ranks_as_the_json_and_layer_5_head_11_comes_first() {
    let Some(dir) = real_dir() else { return };
    check_against_json(&dir, CAT, false, ("it", 8), ("cat", 2));
    check_against_json(&dir, CAT, true, ("it", 8), ("cat", 2));
    let out = attention(&["heads", CAT, "--model", &dir, "--from", "it", "--to", "cat"]);
    let text = stdout(&out);
    let lines = printed(&text);
    assert_eq!(lines.len(), 10, "--top 10 by default");
    let largest = argmax_order(&dir, CAT, false, 8, 2)[0];
    assert_eq!((lines[0].0, lines[0].1), (largest.0, largest.1));
    assert_eq!((lines[0].0, lines[0].1), (5, 11));
    // Its line says what it does on this sentence, measured: most tokens look at 'cat'.
    let first = text.lines().nth(2).unwrap();
    assert!(first.contains("of the other tokens' attention on 'cat'"), "{first}");
    assert!(text.contains("(--top 72 prints every head)"));
}

#[test]
fn help_explains_every_flag() {
    let help = stdout(&attention(&["heads", "--help"]));
    for flag in ["--from", "--to", "--model", "--words", "--json", "--top", "it#2"] {
        assert!(help.contains(flag), "help lacks {flag}: {help}");
    }
}
