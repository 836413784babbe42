//! The `attention` binary as a user runs it: its output, its exit codes and
//! its one-line messages for bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failure should stop the test

use std::path::PathBuf;
use std::process::{Command, Output};

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

    let glove = dir.join("tiny.txt");
    std::fs::write(&glove, "the 1 0\ncat 0 1\n").unwrap();
    let out = attention(&["--embeddings", glove.to_str().unwrap(), "--no-scale", "the cat"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Orthogonal unit vectors: e¹ / (e¹ + e⁰) = 0.7311.
    assert_eq!(block(&stdout(&out), "the", 0)[0], ("the".to_owned(), 0.7311));
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
    assert!(stderr(&out).contains("3 words (2 most frequent + 1 for 1 sentences)"), "{}", stderr(&out));
    let run = attention(&["--embeddings", out_path.to_str().unwrap(), "the cat mat"]);
    assert!(stderr(&run).contains("left out: 'cat'"), "{}", stderr(&run));
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
    assert_clean_failure(&out, "1025 known words; attention is computed over at most 1024");
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
}
