//! Converts a Hugging Face BERT model folder (`config.json`, `vocab.txt`,
//! `model.safetensors` in F32) into the project's model file, and checks that
//! the file loads.
//!
//! ```text
//! build-model SOURCE_DIR OUT_FILE [--embeddings f16|q8|f32] [--weights f16|f32]
//! ```
//!
//! `--embeddings` stores the word-embedding table (about half the weights),
//! `--weights` every other matrix; vectors (biases, LayerNorm) are always f16
//! unless `--weights f32`. Defaults: f16 and f16.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use attention_model::format::{encode, required_tensors};
use attention_model::{Config, DType, Model, Tensor};
use safetensors::{Dtype, SafeTensors};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("build-model: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse_dtype(value: Option<String>) -> Result<DType, String> {
    match value.as_deref() {
        Some("f32") => Ok(DType::F32),
        Some("f16") => Ok(DType::F16),
        Some("q8") => Ok(DType::Q8),
        other => Err(format!("expected f32, f16 or q8, got {other:?}")),
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let (mut embeddings, mut weights) = (DType::F16, DType::F16);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--embeddings" => embeddings = parse_dtype(args.next())?,
            "--weights" => weights = parse_dtype(args.next())?,
            "-h" | "--help" => {
                println!(
                    "usage: build-model SOURCE_DIR OUT_FILE [--embeddings f16|q8|f32] [--weights f16|q8|f32]"
                );
                return Ok(());
            }
            _ => positional.push(PathBuf::from(arg)),
        }
    }
    let [source, out] = positional.as_slice() else {
        return Err(
            "usage: build-model SOURCE_DIR OUT_FILE [--embeddings f16|q8|f32] [--weights f16|q8|f32]".into(),
        );
    };
    let config = read_config(&source.join("config.json"))?;
    let vocab_text = read(&source.join("vocab.txt"))?;
    let vocab: Vec<String> = String::from_utf8(vocab_text)
        .map_err(|_| "vocab.txt is not UTF-8".to_owned())?
        .lines()
        .map(str::to_owned)
        .collect();
    let raw = read(&source.join("model.safetensors"))?;
    let st = SafeTensors::deserialize(&raw).map_err(|e| format!("model.safetensors: {e}"))?;
    let mut tensors = Vec::new();
    for (name, _) in required_tensors(&config) {
        // Some exports prefix every name with "bert.".
        let view = st
            .tensor(&name)
            .or_else(|_| st.tensor(&format!("bert.{name}")))
            .map_err(|_| format!("model.safetensors has no tensor '{name}'"))?;
        if view.dtype() != Dtype::F32 {
            return Err(format!("tensor '{name}' is {:?}; this tool reads F32", view.dtype()));
        }
        let values =
            view.data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        tensors.push(Tensor { name, shape: view.shape().to_vec(), values });
    }
    let bytes = encode(&config, &vocab, &tensors, |name| {
        if name == "embeddings.word_embeddings.weight" {
            embeddings
        } else if weights == DType::F32 || name.ends_with(".weight") && !name.contains("LayerNorm") {
            weights
        } else {
            DType::F16
        }
    })
    .map_err(|e| e.to_string())?;
    let model = Model::from_bytes(&bytes).map_err(|e| format!("the written file does not load: {e}"))?;
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let c = model.config();
    println!(
        "wrote {} ({:.1} MB): {} layers × {} heads, hidden {}, vocabulary {}",
        out.display(),
        bytes.len() as f64 / 1e6,
        c.layers,
        c.heads,
        c.hidden,
        c.vocab_size
    );
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn read_config(path: &Path) -> Result<Config, String> {
    let json: serde_json::Value =
        serde_json::from_slice(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))?;
    let int = |key: &str| {
        json[key]
            .as_u64()
            .map(|v| v as usize)
            .ok_or_else(|| format!("{}: no integer '{key}'", path.display()))
    };
    if json["model_type"].as_str() != Some("bert") || json["hidden_act"].as_str() != Some("gelu") {
        return Err(format!("{}: expected a BERT model with GELU", path.display()));
    }
    Ok(Config {
        vocab_size: int("vocab_size")?,
        hidden: int("hidden_size")?,
        layers: int("num_hidden_layers")?,
        heads: int("num_attention_heads")?,
        intermediate: int("intermediate_size")?,
        max_positions: int("max_position_embeddings")?,
        type_vocab: int("type_vocab_size")?,
        layer_norm_eps: json["layer_norm_eps"].as_f64().unwrap_or(1e-12) as f32,
    })
}
