//! The `attention` binary as a user runs it: its output, its exit codes and
//! its one-line messages for bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use attention_model::testing::built_model_dir;

fn attention(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_attention")).args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The lines of the block `Attention weights for '<query>':` (the n-th such block).
fn block(text: &str, query: &str, nth: usize) -> Vec<(String, f32)> {
    let header = format!("Attention weights for '{query}':");
    let start = text.match_indices(&header).nth(nth).expect("block present").0;
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let mut fields = l.split_whitespace();
            let token = fields.next().unwrap().to_owned();
            let weight = fields.next().unwrap().parse().unwrap_or(f32::NAN);
            (token, weight)
        })
        .collect()
}

#[test]
fn prints_the_design_row_for_king() {
    let out = attention(&["The king and queen ruled the kingdom"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let row = block(&text, "king", 0);
    let expected = [
        ("the", 0.0647),
        ("king", 0.4431),
        ("and", 0.0489),
        ("queen", 0.1645),
        ("ruled", 0.0629),
        ("the", 0.0647),
        ("kingdom", 0.1512),
    ];
    assert_eq!(row.len(), expected.len());
    for ((token, weight), (want_token, want)) in row.iter().zip(expected) {
        assert_eq!(token, want_token);
        assert!((weight - want).abs() <= 0.0005, "{token}: {weight} vs {want}");
    }
    assert_eq!(text.matches("Attention weights for").count(), 7);
    // The bar is proportional to the weight: 0.4431 × 40 ≈ 18 blocks.
    let king_line = text.lines().find(|l| l.contains("king    0.4431")).unwrap();
    assert_eq!(king_line.matches('█').count(), 18);
}

#[test]
fn json_has_tokens_and_weight_rows() {
    let out = attention(&["--json", "The king and queen ruled the kingdom"]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let tokens: Vec<&str> = json["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tokens, ["the", "king", "and", "queen", "ruled", "the", "kingdom"]);
    let king = json["weights"][1].as_array().unwrap();
    assert!((king[1].as_f64().unwrap() - 0.4431).abs() < 0.0005);
    assert_eq!(json["spans"][1], serde_json::json!([4, 8]));
    assert_eq!(json["options"]["self"], true);
}

#[test]
fn options_change_the_numbers() {
    let sentence = "The cat sat on the mat";
    let causal = stdout(&attention(&["--causal", sentence]));
    // Under the causal mask the first token can only look at itself;
    // every later key is printed as masked (no number).
    let first = block(&causal, "the", 0);
    assert_eq!(first[0], ("the".to_owned(), 1.0));
    assert_eq!(first.len(), 6);
    assert!(first[1..].iter().all(|(_, w)| w.is_nan()), "{first:?}");
    assert!(causal.contains("cat      —  (masked)"));

    let no_self = stdout(&attention(&["--no-self", "--causal", sentence]));
    assert!(no_self.contains("(every key is masked for this token: it attends to nothing)"));

    let json = |args: &[&str]| -> serde_json::Value {
        serde_json::from_str(&stdout(&attention(&[args, &["--json", sentence]].concat()))).unwrap()
    };
    let default = json(&[]);
    let unscaled = json(&["--no-scale"]);
    let hot = json(&["--temperature", "10"]);
    let weight = |v: &serde_json::Value| v["weights"][1][1].as_f64().unwrap();
    // Without 1/√d the softmax saturates: "cat" looks at itself far more.
    assert!(weight(&unscaled) > weight(&default) + 0.2, "{} vs {}", weight(&unscaled), weight(&default));
    // A high temperature flattens the row towards 1/6.
    assert!((weight(&hot) - 1.0 / 6.0).abs() < (weight(&default) - 1.0 / 6.0).abs());
    assert_eq!(json(&["--no-self"])["weights"][1][1].as_f64().unwrap(), 0.0);
}

#[test]
fn unknown_words_are_listed_and_left_out() {
    let out = attention(&["the cat zzqxw sat"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("left out: 'zzqxw'"), "{}", stderr(&out));
    let row = block(&stdout(&out), "cat", 0);
    let tokens: Vec<&str> = row.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tokens, ["the", "cat", "sat"]);
    // A pasted run of letters is named, not printed whole.
    let out = attention(&[&format!("the cat {}", "q".repeat(5000))]);
    assert!(out.status.success());
    let said = stderr(&out);
    assert!(
        said.contains(&format!("left out: '{}…'", "q".repeat(40))) && said.len() < 400,
        "{}",
        &said[..200]
    );
}

fn assert_clean_failure(out: &Output, expected: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit code for {err:?}");
    assert!(err.contains(expected), "{err:?} should mention {expected:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    assert!(!err.contains("panicked") && !err.contains("backtrace"));
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    assert_clean_failure(&attention(&[""]), "the sentence is empty");
    assert_clean_failure(&attention(&["   "]), "the sentence is empty");
    assert_clean_failure(&attention(&["zzzqqq xxyyzz"]), "none of the words is in the vocabulary");
    assert_clean_failure(&attention(&["--temperature", "0", "the cat"]), "temperature must be between");
    assert_clean_failure(&attention(&["--temperature", "-inf", "the cat"]), "temperature must be between");
    assert_clean_failure(
        &attention(&["--embeddings", "/no/such/file", "the cat"]),
        "cannot read '/no/such/file'",
    );
}

#[test]
fn damaged_data_files_get_one_line_and_exit_2() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let shipped = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/glove-6b-50d-fallback.aewv"),
    )
    .unwrap();

    let truncated = dir.join("truncated.aewv");
    std::fs::write(&truncated, &shipped[..shipped.len() / 2]).unwrap();
    assert_clean_failure(&attention(&["--embeddings", truncated.to_str().unwrap(), "the cat"]), "truncated");

    let wrong_magic = dir.join("wrong-magic.aewv");
    std::fs::write(&wrong_magic, [b"GLOV".as_slice(), &shipped[4..]].concat()).unwrap();
    assert_clean_failure(
        &attention(&["--embeddings", wrong_magic.to_str().unwrap(), "the cat"]),
        "wrong magic",
    );

    // A GloVe text file: its weights, and what stderr says of it.
    let glove = dir.join("tiny.txt");
    let read = |text: &str| {
        std::fs::write(&glove, text).unwrap();
        let out = attention(&["--embeddings", glove.to_str().unwrap(), "--no-scale", "the cat"]);
        assert!(out.status.success(), "{}", stderr(&out));
        // Orthogonal unit vectors: e¹ / (e¹ + e⁰) = 0.7311.
        assert_eq!(block(&stdout(&out), "the", 0)[0], ("the".to_owned(), 0.7311));
        stderr(&out)
    };
    assert_eq!(read("the 1 0\ncat 0 1\n"), "");
    // A word with spaces (as GloVe 840B has '. . .') is left out, and said, not the file.
    let said = read("the 1 0\n. . . 1 1\ncat 0 1\n");
    assert!(said.contains("tiny.txt: 1 line left out (line 2 first): a word with spaces"), "{said}");
    // A word2vec file cut with head: its header promises more words than it holds.
    let said = read("1000 2\nthe 1 0\ncat 0 1\n");
    assert!(said.contains("tiny.txt: the header says 1000 words, the file holds 2: cut short"), "{said}");
}

#[test]
fn build_data_writes_a_subset_the_cli_reads() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let glove = dir.join("glove.txt");
    std::fs::write(&glove, "the 0.5 0.1\n, 0.2 0.2\ncat 0.9 -0.3\nsat -0.1 0.4\nmat 0.3 0.3\n").unwrap();
    let sentences = dir.join("sentences.txt");
    std::fs::write(&sentences, "# a comment\nThe mat\n").unwrap();
    let out_path = dir.join("subset.aewv");
    let out = attention(&[
        "build-data",
        "--glove",
        glove.to_str().unwrap(),
        "--top",
        "2",
        "--include",
        sentences.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("3 words (2 most frequent + 1 for 1 sentence)"), "{}", stderr(&out));
    let run = attention(&["--embeddings", out_path.to_str().unwrap(), "the cat mat"]);
    assert!(stderr(&run).contains("left out: 'cat'"), "{}", stderr(&run));
}

/// A 2-D little-endian float32 .npy file of `rows` × `cols` ones.
fn ones_npy(path: &Path, rows: usize, cols: usize) {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend(std::iter::repeat_n(1f32.to_le_bytes(), rows * cols).flatten());
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn build_data_from_npy_names_the_files_of_a_bad_word() {
    let temp = tempfile::tempdir().unwrap();
    let npy = temp.path().join("vectors.npy");
    ones_npy(&npy, 2, 3);
    let words = temp.path().join("words.txt");
    let out = temp.path().join("out.aewv");
    let build = |list: &str| {
        std::fs::write(&words, list).unwrap();
        attention(&[
            "build-data",
            "--npy",
            npy.to_str().unwrap(),
            "--words",
            words.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let built = build("the\ncat\n");
    assert!(built.status.success(), "{}", stderr(&built));
    let npy_name = npy.display().to_string();
    let words_name = words.display().to_string();
    assert_clean_failure(
        &build("the\nthe\n"),
        &format!("{npy_name} with {words_name}: invalid word-vector file: the word 'the' appears twice"),
    );
    assert_clean_failure(&build("the\n"), &format!("{words_name} lists 1 word but {npy_name} has 2 rows"));
}

#[test]
fn build_data_writes_shards_the_cli_reads_one_by_one() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let glove = dir.join("glove.txt");
    std::fs::write(
        &glove,
        "the 1 0
cat 0 1
sat 1 1
mat -1 0
. 0 -1
",
    )
    .unwrap();
    let set = dir.join("set");
    let out = attention(&[
        "build-data",
        "--glove",
        glove.to_str().unwrap(),
        "--shards",
        set.to_str().unwrap(),
        "--count",
        "4",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(set.join("manifest.json")).unwrap()).unwrap();
    assert_eq!((manifest["words"].as_u64(), manifest["shards"].as_u64()), (Some(5), Some(4)));
    assert_eq!(manifest["sha256"].as_str().unwrap().len(), 64);
    // The shards and the nearest-word index, in a folder named by the set id.
    let folder = set.join(manifest["set"].as_str().unwrap());
    assert_eq!(
        manifest["files"].as_str().unwrap(),
        format!("{}/{{k}}.aews", manifest["set"].as_str().unwrap())
    );
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 4 + 1);

    let run = attention(&["--embeddings", set.to_str().unwrap(), "--no-scale", "The cat zzz."]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stderr(&run).contains("not in the vocabulary of 5 words, left out: 'zzz'"), "{}", stderr(&run));
    // Orthogonal unit vectors: e¹ / (e¹ + e⁰ + e⁰) for 'the' → 'the'.
    assert_eq!(block(&stdout(&run), "the", 0)[0], ("the".to_owned(), 0.5761));

    // A damaged shard, then a missing one: one line each, exit code 2.
    let shard_of_cat = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "aews"))
        .find(|p| std::fs::read(p).unwrap().windows(4).any(|w| w == b"cat\n"))
        .unwrap();
    let mut bytes = std::fs::read(&shard_of_cat).unwrap();
    *bytes.last_mut().unwrap() ^= 0x40;
    std::fs::write(&shard_of_cat, &bytes).unwrap();
    assert_clean_failure(&attention(&["--embeddings", set.to_str().unwrap(), "cat"]), "checksum");
    std::fs::remove_file(&shard_of_cat).unwrap();
    assert_clean_failure(&attention(&["--embeddings", set.to_str().unwrap(), "cat"]), "incomplete");
}

#[test]
fn a_text_over_the_token_limit_is_refused_with_the_limit() {
    let long = "the ".repeat(1025);
    let out = attention(&[long.as_str()]);
    assert_clean_failure(&out, "1,025 known words; attention is computed over at most 1,024");
    assert!(attention(&["the ".repeat(1024).as_str(), "--json"]).status.success());
}

#[test]
fn help_explains_every_flag() {
    let help = stdout(&attention(&["--help"]));
    for flag in
        ["--no-self", "--causal", "--no-scale", "--temperature", "--json", "--embeddings", "build-data"]
    {
        assert!(help.contains(flag), "--help mentions {flag}");
    }
}

const CAT: &str = "The cat sat on the mat because it was tired";

#[test]
fn model_head_5_11_sends_it_to_cat() {
    let Some(dir) = built_model_dir() else { return };
    let out = attention(&["--model", dir.to_str().unwrap(), "--layer", "5", "--head", "11", CAT]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Layer 5, head 11"));
    let it = block(&text, "it", 0);
    let tokens: Vec<&str> = it.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        tokens,
        ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", "[SEP]"]
    );
    let cat = it[2].1;
    assert!(cat > 0.6, "'it' → 'cat' is {cat}");
    let sum: f32 = it.iter().map(|(_, w)| w).sum();
    assert!((sum - 1.0).abs() < 0.002, "printed weights sum to {sum}");
}

#[test]
fn layer_and_head_alone_show_the_checkouts_model() {
    // As `attention heads` does: --layer and --head without --model take the checkout's model/.
    let Some(dir) = built_model_dir() else { return };
    if std::env::var_os("AE_MODEL_DIR").is_some() {
        return; // another folder than the checkout's
    }
    let named = attention(&["--model", dir.to_str().unwrap(), "--layer", "5", "--head", "11", CAT]);
    let implied = attention(&["--layer", "5", "--head", "11", CAT]);
    assert!(implied.status.success(), "{}", stderr(&implied));
    assert_eq!(stdout(&implied), stdout(&named));
    // The GloVe options do not go with it, and --words alone does not make it.
    for args in [&["--layer", "5", "--head", "11", "--causal", CAT][..], &["--words", CAT][..]] {
        let out = attention(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn model_json_has_every_layer_and_head() {
    let Some(dir) = built_model_dir() else { return };
    let out = attention(&["--model", dir.to_str().unwrap(), "--json", CAT]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!((json["layers"].as_u64(), json["heads"].as_u64()), (Some(6), Some(12)));
    let attention = json["attention"].as_array().unwrap();
    assert_eq!(attention.len(), 6);
    assert_eq!(attention[5].as_array().unwrap().len(), 12);
    assert_eq!(json["tokens"][0], "[CLS]");
    let it_to_cat = attention[5][11][8][2].as_f64().unwrap();
    assert!(it_to_cat > 0.6, "{it_to_cat}");
    assert!(json.get("weights").is_none(), "weights only for a chosen head");
}

#[test]
fn model_words_and_no_special() {
    let Some(dir) = built_model_dir() else { return };
    let d = dir.to_str().unwrap();
    let out = attention(&[
        "--model",
        d,
        "--layer",
        "0",
        "--head",
        "0",
        "--words",
        "--no-special",
        "The unaffable cat",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let row = block(&text, "unaffable", 0);
    let tokens: Vec<&str> = row.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tokens, ["The", "unaffable", "cat"], "one word however many pieces, no [CLS]/[SEP]");
    let pieces = stdout(&attention(&["--model", d, "--layer", "0", "--head", "0", "The unaffable cat"]));
    assert!(pieces.matches("Attention weights for").count() > 5, "pieces view splits 'unaffable'");
}

#[test]
fn model_errors_get_one_line() {
    let missing = attention(&["--model", "/no/such/model", "--layer", "5", "--head", "11", CAT]);
    assert_clean_failure(&missing, "scripts/build-model");
    let conflict = attention(&["--model", "/no/such/model", "--causal", CAT]);
    assert_eq!(conflict.status.code(), Some(2));
    assert!(stderr(&conflict).contains("cannot be used with"), "{}", stderr(&conflict));
    let Some(dir) = built_model_dir() else { return };
    let d = dir.to_str().unwrap();
    assert_clean_failure(
        &attention(&["--model", d, "--layer", "6", "--head", "0", CAT]),
        "--layer 6 is out of range",
    );
    assert_clean_failure(&attention(&["--model", d, CAT]), "choose a head to print with --layer L --head H");
    // Invisible characters only: no word for the model, as for GloVe (it printed [CLS] and [SEP], or nothing).
    for flags in
        [&["--layer", "0", "--head", "0"][..], &["--layer", "0", "--head", "0", "--no-special"], &["--json"]]
    {
        let args = [&["--model", d][..], flags, &["--", "\u{200b}\u{ad}"]].concat();
        assert_clean_failure(&attention(&args), "the sentence is empty");
    }
    assert_clean_failure(&attention(&["\u{200b}\u{ad}"]), "the sentence is empty");
    assert_clean_failure(
        &attention(&["heads", "--model", d, "--from", "it", "--to", "cat", "\u{200b}"]),
        "the sentence is empty",
    );
}

/// A copy of the built model in a temporary folder, its files hard-linked
/// but for `changed`, copied so that the test may alter it.
fn model_copy(dir: &Path, changed: &[&str]) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for name in [attention_model::CORE_FILE, attention_model::MANIFEST_FILE] {
        fs::copy(dir.join(name), copy.path().join(name)).unwrap();
    }
    fs::create_dir(copy.path().join("embeddings")).unwrap();
    for entry in fs::read_dir(dir.join("embeddings")).unwrap() {
        let path = entry.unwrap().path();
        let to = copy.path().join("embeddings").join(path.file_name().unwrap());
        fs::hard_link(&path, &to).or_else(|_| fs::copy(&path, &to).map(drop)).unwrap();
    }
    for name in changed {
        let path = copy.path().join(name);
        let bytes = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();
        fs::write(&path, bytes).unwrap();
    }
    copy
}

/// Flips the low bit of byte `at` of `path`.
fn flip(path: &Path, at: usize) {
    let mut bytes = fs::read(path).unwrap();
    bytes[at] ^= 1;
    fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_model_file_is_refused_by_its_checksum() {
    let Some(dir) = built_model_dir() else { return };
    let args = |d: &Path| attention(&["--model", d.to_str().unwrap(), "--layer", "5", "--head", "11", CAT]);
    // One bit of a weight in the core: the file still reads as a model.
    let core = model_copy(&dir, &[attention_model::CORE_FILE]);
    let len = fs::metadata(core.path().join(attention_model::CORE_FILE)).unwrap().len() as usize;
    flip(&core.path().join(attention_model::CORE_FILE), len / 2);
    assert_clean_failure(&args(core.path()), "minilm-core.aebm: its SHA-256 is");
    // One bit of an embedding shard the sentence needs.
    let model =
        attention_model::Model::from_core(&fs::read(dir.join(attention_model::CORE_FILE)).unwrap()).unwrap();
    let ids: Vec<u32> = model.tokenize(CAT).iter().map(|p| p.id).collect();
    let shard = attention_model::shard_file(model.missing_shards(&ids)[0]);
    let embeddings = model_copy(&dir, &[&shard]);
    let len = fs::metadata(embeddings.path().join(&shard)).unwrap().len() as usize;
    flip(&embeddings.path().join(&shard), len - 1);
    assert_clean_failure(&args(embeddings.path()), &format!("{shard}: its SHA-256 is"));
    // No manifest, or not one.
    let manifest = model_copy(&dir, &[attention_model::MANIFEST_FILE]);
    fs::write(manifest.path().join(attention_model::MANIFEST_FILE), "{").unwrap();
    assert_clean_failure(&args(manifest.path()), "manifest.json: not a model manifest");
    fs::remove_file(manifest.path().join(attention_model::MANIFEST_FILE)).unwrap();
    assert_clean_failure(&args(manifest.path()), "build it with scripts/build-model");
    // The intact copy still gives the weights.
    let intact = model_copy(&dir, &[]);
    assert_eq!(stdout(&args(intact.path())), stdout(&args(&dir)));
}

/// Runs `attention args`, reads the first 10 bytes of its output and closes
/// the pipe, as `attention … | head -c 10` does.
fn attention_into_head(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut head = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn json_into_a_pipe_closed_early_ends_quietly() {
    // Megabytes of JSON: the pipe closes long before they are written.
    let kings = "king ".repeat(1024);
    let out = attention_into_head(&["--json", &kings]);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
    let Some(dir) = built_model_dir() else { return };
    let long = "the cat sat on the mat ".repeat(16);
    let out = attention_into_head(&["--model", dir.to_str().unwrap(), "--json", &long]);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
}

#[test]
fn a_closed_stderr_loses_the_note_not_the_weights() {
    // As in `attention "xqzz king" 2>&1 | true`, with stdout kept: the note on
    // the unknown word cannot be written (a panic, exit 101, no weights, before).
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention"))
        .arg("xqzz king")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("Attention weights for 'king':\n  king 1.0000"), "{}", stdout(&out));
}

#[test]
fn help_that_cannot_be_written_fails() {
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_attention")).arg("--help").stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("attention: cannot write the output"), "{}", stderr(&out));
}

#[test]
fn build_data_into_a_pipe_already_closed_ends_quietly() {
    let temp = tempfile::tempdir().unwrap();
    let glove = temp.path().join("glove.txt");
    fs::write(&glove, "the 1 0\ncat 0 1\nsat 1 1\nmat -1 0\n").unwrap();
    let set = temp.path().join("set");
    // As in `attention build-data … | true`: the reader is gone before the digest is printed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention"))
        .args([
            "build-data",
            "--glove",
            glove.to_str().unwrap(),
            "--shards",
            set.to_str().unwrap(),
            "--count",
            "4",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(set.join("manifest.json").is_file());
}

#[test]
fn a_line_with_no_bar_ends_with_its_weight() {
    let temp = tempfile::tempdir().unwrap();
    let glove = temp.path().join("far.txt");
    fs::write(&glove, "the 10 0\ncat 0 10\n").unwrap();
    let out = stdout(&attention(&["--embeddings", glove.to_str().unwrap(), "--no-scale", "the cat"]));
    assert!(out.contains("\n  cat 0.0000\n"), "{out:?}");
    assert!(out.lines().all(|line| !line.ends_with(' ')), "{out:?}");
}

/// Runs `attention args` with `input` on its standard input.
fn attention_reading(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Refused when the sentence is given as arguments: the binary may be gone before it reads.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn the_sentence_can_come_on_standard_input() {
    let argued = stdout(&attention(&["The king and queen"]));
    for args in [&[][..], &["-"]] {
        let out = attention_reading(args, b"The king\r\nand queen\n");
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), argued, "{args:?}");
    }
    // Arguments win over a pipe.
    assert_eq!(stdout(&attention_reading(&["The king and queen"], b"ignored")), argued);
    // An empty pipe is named as such: the sentence was given on standard input.
    for input in [&b""[..], b"  \n"] {
        let empty = attention_reading(&[], input);
        assert_clean_failure(
            &empty,
            "standard input holds no sentence: pipe one in, or give it as arguments",
        );
        assert!(!stderr(&empty).contains("or give it on standard input"), "{}", stderr(&empty));
    }
    assert_clean_failure(
        &attention_reading(&[], b"the \xff cat"),
        "standard input is not UTF-8 text (byte 4)",
    );
}

#[test]
fn vectors_named_by_the_environment_say_so_when_they_fail() {
    let out = Command::new(env!("CARGO_BIN_EXE_attention"))
        .arg("the cat")
        .env("ATTENTION_VECTORS", "/no/such/vectors")
        .output()
        .unwrap();
    assert_clean_failure(&out, "cannot read '/no/such/vectors'");
    assert!(stderr(&out).trim_end().ends_with("(named by $ATTENTION_VECTORS)"), "{}", stderr(&out));
}

#[test]
fn control_and_invisible_characters_are_named_as_escapes() {
    let out = attention(&["king\u{1b}]0;pwned\u{7} queen"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains(r"left out: '\u{1b}', 'pwned', '\u{7}'"), "{said:?}");
    assert!(!said.contains(['\u{1b}', '\u{7}']), "no raw escape reaches the terminal: {said:?}");
    let said = stderr(&attention(&["king\u{1} queen \u{200d}"]));
    assert!(said.contains(r"left out: '\u{1}', '\u{200d}'"), "{said:?}");
    let all_unknown = attention(&["\u{1b}[31m"]);
    assert!(!stderr(&all_unknown).contains('\u{1b}'), "{:?}", stderr(&all_unknown));
}

#[test]
fn a_negative_number_gets_the_range_message() {
    assert_clean_failure(
        &attention(&["--temperature", "-1", "king"]),
        "temperature must be between 0.001 and 1000, got -1",
    );
}

#[test]
fn a_hundred_thousand_unknown_words_make_one_short_line() {
    let words: Vec<String> = (0..100_000).map(|k| format!("zzqx{k}")).collect();
    let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
    args.push("king");
    let out = attention(&args);
    assert!(out.status.success(), "{}", &stderr(&out)[..200]);
    let said = stderr(&out);
    assert!(said.len() < 300, "{} bytes: {}", said.len(), &said[..300]);
    assert!(said.contains("'zzqx6', 'zzqx7', … (100,000 in all)"), "{said}");
    // One word 100,000 times is named once.
    let mut args = vec!["zzqx"; 100_000];
    args.push("king");
    let said = stderr(&attention(&args));
    assert!(said.contains("words, left out: 'zzqx'") && said.matches("zzqx").count() == 1, "{said}");
}

/// A shard set of five words in `dir/set`, built with `extra` flags.
fn tiny_set(dir: &Path, extra: &[&str]) -> (PathBuf, Output) {
    let glove = dir.join("glove.txt");
    std::fs::write(&glove, "the 1 0\ncat 0 1\nsat 1 1\nmat -1 0\n. 0 -1\n").unwrap();
    let set = dir.join("set");
    let args =
        [&["build-data", "--glove", glove.to_str().unwrap(), "--shards", set.to_str().unwrap()], extra];
    let out = attention(&args.concat());
    (set, out)
}

#[test]
fn on_a_fallback_every_unknown_message_says_how_to_get_the_whole_vocabulary() {
    let temp = tempfile::tempdir().unwrap();
    let (set, built) = tiny_set(temp.path(), &["--count", "4", "--fallback"]);
    assert!(built.status.success(), "{}", stderr(&built));
    let hint = "scripts/build-data builds all 400,000 GloVe words";
    let none = attention(&["--embeddings", set.to_str().unwrap(), "zzqx qqzx"]);
    assert_clean_failure(&none, "none of the words is in the vocabulary ('zzqx', 'qqzx')");
    assert!(stderr(&none).contains(hint), "{}", stderr(&none));
    let some = attention(&["--embeddings", set.to_str().unwrap(), "the zzqx"]);
    assert!(stderr(&some).contains("left out: 'zzqx' (this is the fallback"), "{}", stderr(&some));
    assert!(stderr(&some).contains(hint));
}

#[cfg(unix)]
#[test]
fn a_manifest_or_shard_that_is_a_device_or_a_pipe_is_refused_before_it_is_read() {
    let temp = tempfile::tempdir().unwrap();
    let (set, built) = tiny_set(temp.path(), &["--count", "4"]);
    assert!(built.status.success(), "{}", stderr(&built));
    // A shard linked to /dev/zero was read until memory ran out.
    let shard =
        fs::read_dir(&set).unwrap().flatten().find(|e| e.path().is_dir()).unwrap().path().join("0000.aews");
    fs::remove_file(&shard).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &shard).unwrap();
    let out = attention(&["--embeddings", set.to_str().unwrap(), "the cat sat mat ."]);
    assert_clean_failure(&out, &format!("cannot read '{}': not a regular file", shard.display()));
    // So was a manifest; one that is a pipe with no writer waited for ever.
    let manifest = set.join("manifest.json");
    fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    assert_clean_failure(
        &attention(&["--embeddings", set.to_str().unwrap(), "the"]),
        "manifest.json': not a regular file",
    );
    fs::remove_file(&manifest).unwrap();
    assert!(Command::new("mkfifo").arg(&manifest).status().unwrap().success());
    assert_clean_failure(
        &attention(&["--embeddings", set.to_str().unwrap(), "the"]),
        "manifest.json': not a regular file",
    );
}

#[test]
fn a_temperature_out_of_range_is_named_as_typed() {
    // Read as an f32, 1e-50 is 0 and 1e300 is inf: the message named numbers not given.
    assert_clean_failure(
        &attention(&["--temperature", "1e-50", "king"]),
        "between 0.001 and 1000, got 1e-50",
    );
    assert_clean_failure(
        &attention(&["--temperature", "1e300", "king"]),
        "between 0.001 and 1000, got 1e300",
    );
    assert_clean_failure(
        &attention(&["--temperature", "warm", "king"]),
        "--temperature takes a number, not 'warm'",
    );
}

#[test]
fn a_sentence_that_starts_with_a_command_name_goes_after_dashes() {
    assert!(stdout(&attention(&["--help"])).contains("attention -- help me"));
    let out = attention(&["help", "me"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("put -- before it: attention -- help"), "{}", stderr(&out));
    let out = attention(&["heads", "up", "king"]);
    assert!(stderr(&out).contains("put -- before it: attention -- heads"), "{}", stderr(&out));
    let out = attention(&["--", "help", "me"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(block(&stdout(&out), "help", 0).len(), 2);
}

#[test]
fn build_data_removes_old_sets_but_not_folders_it_did_not_write() {
    let temp = tempfile::tempdir().unwrap();
    let set = temp.path().join("set");
    let foreign = set.join("0123456789abcdef");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "hi").unwrap();
    let (_, first) = tiny_set(temp.path(), &["--count", "4"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("left '") && stderr(&first).contains("in place"), "{}", stderr(&first));
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "hi");
    let old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(set.join("manifest.json")).unwrap()).unwrap();
    let old_folder = set.join(old["set"].as_str().unwrap());
    // Another count, another set: the first set's folder goes, the notes stay.
    let (_, second) = tiny_set(temp.path(), &["--count", "8"]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(!old_folder.exists());
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "hi");
}

#[test]
fn build_data_and_vector_messages_name_the_flag_or_the_folder() {
    let temp = tempfile::tempdir().unwrap();
    let (set, out) = tiny_set(temp.path(), &["--count", "3"]);
    assert_clean_failure(&out, "--count 3 is not a power of two from 1 to 65536");
    assert!(!stderr(&out).contains("file"), "{}", stderr(&out));
    let (_, built) = tiny_set(temp.path(), &["--count", "4"]);
    assert!(built.status.success(), "{}", stderr(&built));
    // A shard of another build in the folder the manifest names.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("glove.txt"), "the 2 0\ncat 0 2\n").unwrap();
    let other_set = other.path().join("set");
    let glove = other.path().join("glove.txt");
    let rebuilt = attention(&[
        "build-data",
        "--glove",
        glove.to_str().unwrap(),
        "--shards",
        other_set.to_str().unwrap(),
        "--count",
        "4",
    ]);
    assert!(rebuilt.status.success(), "{}", stderr(&rebuilt));
    let folder = |dir: &Path| {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
        dir.join(json["set"].as_str().unwrap())
    };
    for k in 0..4 {
        let name = format!("{k:04x}.aews");
        std::fs::copy(folder(&other_set).join(&name), folder(&set).join(&name)).unwrap();
    }
    let mixed = attention(&["--embeddings", set.to_str().unwrap(), "the cat"]);
    assert_clean_failure(&mixed, "the shard belongs to another build of the vectors than their manifest");
    assert!(!stderr(&mixed).contains("page"), "{}", stderr(&mixed));

    // Every file a copy of shard 0 of the same build: refused, where it was read again forever.
    std::fs::create_dir(temp.path().join("same")).unwrap();
    let (same, built) = tiny_set(&temp.path().join("same"), &["--count", "4"]);
    assert!(built.status.success(), "{}", stderr(&built));
    for k in 1..4 {
        std::fs::copy(folder(&same).join("0000.aews"), folder(&same).join(format!("{k:04x}.aews"))).unwrap();
    }
    let copies = attention(&["--embeddings", same.to_str().unwrap(), "the cat sat mat"]);
    assert_clean_failure(&copies, "invalid word-vector file: it holds shard 0000, not 000");

    let manifest = set.join("manifest.json");
    assert_clean_failure(
        &attention(&["--embeddings", manifest.to_str().unwrap(), "the cat"]),
        &format!(
            "is the manifest of a shard set, not a file of vectors: name the folder that holds it, '{}'",
            set.display()
        ),
    );
}

#[test]
fn weights_line_up_under_wide_and_accented_words() {
    let temp = tempfile::tempdir().unwrap();
    let vectors = temp.path().join("wide.txt");
    // 一 takes two terminal columns, i̇ (i + U+0307, "İ" lowercased) one: the spaces after
    // each word make up the difference to "king", the widest.
    std::fs::write(&vectors, "一 1 0\nking 0 1\ni\u{307}s 1 1\n").unwrap();
    let out = attention(&["--embeddings", vectors.to_str().unwrap(), "一 king İs"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out);
    let rows: Vec<&str> = printed.lines().skip(1).take(3).collect();
    let at = |row: &str, word: &str| {
        row.strip_prefix("  ").and_then(|r| r.strip_prefix(word)).map(|r| r.len() - r.trim_start().len())
    };
    assert_eq!(
        [at(rows[0], "一"), at(rows[1], "king"), at(rows[2], "i\u{307}s")],
        [Some(3), Some(1), Some(3)],
        "{printed}"
    );
}
