//! Converts a Hugging Face BERT model folder (`config.json`, `vocab.txt`,
//! `model.safetensors` in F32) into the project's model files, checks that
//! they load, and writes the manifest the page reads.
//!
//! ```text
//! build-model SOURCE_DIR OUT_DIR [--rows-per-shard 32] [--embeddings f16|q8|f32]
//!     [--weights f16|q8|f32] [--name NAME] [--license SPDX] [--package NAME==VERSION]
//!     [--notice FILE=NAME]...
//! ```
//!
//! OUT_DIR receives `minilm-core.aebm`, `embeddings/NNNN.aeemb` (stale
//! shards there are removed first), each `--notice` file under its new name,
//! and last `manifest.json`: name, license, source package, the shape, and
//! for the core and every shard its file name, size and SHA-256.
//!
//! `--embeddings` stores the word-embedding table (about half the weights),
//! `--weights` every other matrix; vectors (biases, LayerNorm) are always f16
//! unless `--weights f32`. Defaults: f16 and f16, 32 rows per shard.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use attention_model::format::{encode, required_tensors, WORD_EMBEDDINGS};
use attention_model::{shard_file, Config, DType, Model, Tensor, CORE_FILE, MANIFEST_FILE};
use safetensors::{Dtype, SafeTensors};

const USAGE: &str = "usage: build-model SOURCE_DIR OUT_DIR [--rows-per-shard N] [--embeddings f16|q8|f32] \
    [--weights f16|q8|f32] [--name NAME] [--license SPDX] [--package NAME==VERSION] [--notice FILE=NAME]...";

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

struct Options {
    source: PathBuf,
    out: PathBuf,
    rows_per_shard: usize,
    embeddings: DType,
    weights: DType,
    name: String,
    license: String,
    package: Option<(String, String)>,
    notices: Vec<(PathBuf, String)>,
}

fn parse_args() -> Result<Option<Options>, String> {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let (mut embeddings, mut weights, mut rows_per_shard) = (DType::F16, DType::F16, 32);
    let (mut name, mut license, mut package, mut notices) = (None, None, None, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--embeddings" => embeddings = parse_dtype(args.next())?,
            "--weights" => weights = parse_dtype(args.next())?,
            "--rows-per-shard" => {
                rows_per_shard = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--rows-per-shard needs a positive number")?
            }
            "--name" => name = args.next(),
            "--license" => license = args.next(),
            "--package" => {
                let value = args.next().unwrap_or_default();
                let (n, v) = value.split_once("==").ok_or("--package expects NAME==VERSION")?;
                package = Some((n.to_owned(), v.to_owned()));
            }
            "--notice" => {
                let value = args.next().unwrap_or_default();
                let (file, as_name) = value.split_once('=').ok_or("--notice expects FILE=NAME")?;
                if as_name.is_empty() || as_name.contains(['/', '\\']) || as_name.starts_with('.') {
                    return Err(format!("--notice: '{as_name}' is not a plain file name"));
                }
                notices.push((PathBuf::from(file), as_name.to_owned()));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            _ => positional.push(PathBuf::from(arg)),
        }
    }
    let [source, out] = <[PathBuf; 2]>::try_from(positional).map_err(|_| USAGE.to_owned())?;
    let name = name.unwrap_or_else(|| source.display().to_string());
    let license = license.unwrap_or_else(|| "unknown".into());
    Ok(Some(Options { source, out, rows_per_shard, embeddings, weights, name, license, package, notices }))
}

fn run() -> Result<(), String> {
    let Some(o) = parse_args()? else { return Ok(()) };
    let config = read_config(&o.source.join("config.json"))?;
    let vocab_text = read(&o.source.join("vocab.txt"))?;
    let vocab: Vec<String> = String::from_utf8(vocab_text)
        .map_err(|_| "vocab.txt is not UTF-8".to_owned())?
        .lines()
        .map(str::to_owned)
        .collect();
    let raw = read(&o.source.join("model.safetensors"))?;
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
    let (embeddings, weights) = (o.embeddings, o.weights);
    let files = encode(
        &config,
        &vocab,
        &tensors,
        |name| {
            if name == WORD_EMBEDDINGS {
                embeddings
            } else if weights == DType::F32 || name.ends_with(".weight") && !name.contains("LayerNorm") {
                weights
            } else {
                DType::F16
            }
        },
        o.rows_per_shard,
    )
    .map_err(|e| e.to_string())?;

    // Check that the files load and that every shard belongs to the core.
    let mut model = Model::from_core(&files.core).map_err(|e| format!("the core does not load: {e}"))?;
    for shard in &files.shards {
        model.add_shard(shard).map_err(|e| format!("a shard does not load: {e}"))?;
    }
    let all_ids: Vec<u32> = (0..config.vocab_size as u32).collect();
    if !model.missing_shards(&all_ids).is_empty() {
        return Err("the shards do not cover the vocabulary".into());
    }

    let shard_dir = o.out.join("embeddings");
    std::fs::create_dir_all(&shard_dir).map_err(|e| format!("cannot create {}: {e}", shard_dir.display()))?;
    // Shards of an earlier build (another shard size) must not linger.
    let listing =
        std::fs::read_dir(&shard_dir).map_err(|e| format!("cannot list {}: {e}", shard_dir.display()))?;
    for entry in listing.flatten() {
        if entry.path().extension().is_some_and(|x| x == "aeemb") {
            std::fs::remove_file(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
        }
    }
    let mut shard_entries = Vec::with_capacity(files.shards.len());
    for (k, shard) in files.shards.iter().enumerate() {
        shard_entries.push(write(&o.out, &shard_file(k), shard)?);
    }
    let core_entry = write(&o.out, CORE_FILE, &files.core)?;
    let mut notice_names = Vec::new();
    for (from, as_name) in &o.notices {
        write(&o.out, as_name, &read(from)?)?;
        notice_names.push(as_name.clone());
    }

    let total: usize = files.core.len() + files.shards.iter().map(Vec::len).sum::<usize>();
    let c = model.config();
    let mut json = String::from("{\n");
    let s = |v: &str| serde_json::to_string(v).unwrap_or_default();
    let _ = writeln!(json, "  \"name\": {},", s(&o.name));
    let _ = writeln!(json, "  \"license\": {},", s(&o.license));
    if let Some((package, version)) = &o.package {
        let _ = writeln!(json, "  \"source\": {{\"package\": {}, \"version\": {}}},", s(package), s(version));
    }
    let notices: Vec<String> = notice_names.iter().map(|n| s(n)).collect();
    let _ = writeln!(json, "  \"notices\": [{}],", notices.join(", "));
    let _ = writeln!(json, "  \"formats\": {{\"core\": \"AEBM 2\", \"shard\": \"AEWE 1\"}},");
    let _ = writeln!(
        json,
        "  \"config\": {{\"layers\": {}, \"heads\": {}, \"hidden\": {}, \"vocab_size\": {}, \"max_positions\": {}}},",
        c.layers, c.heads, c.hidden, c.vocab_size, c.max_positions
    );
    let _ = writeln!(json, "  \"total_bytes\": {total},");
    let _ = writeln!(json, "  \"core\": {core_entry},");
    let _ = writeln!(json, "  \"rows_per_shard\": {},", model.rows_per_shard());
    let _ = writeln!(json, "  \"shard_count\": {},", model.embedding_shards());
    let _ = writeln!(json, "  \"shards\": [\n    {}\n  ]", shard_entries.join(",\n    "));
    json.push_str("}\n");
    // Written last, through a rename: a manifest never names files not yet written.
    let partial = o.out.join(format!("{MANIFEST_FILE}.partial"));
    std::fs::write(&partial, json).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, o.out.join(MANIFEST_FILE))
        .map_err(|e| format!("cannot write the manifest: {e}"))?;

    let shard_bytes: usize = files.shards.iter().map(Vec::len).sum();
    println!(
        "wrote {}: core {} ({:.1} MB) + {} shards of {} rows in embeddings/ ({:.1} MB) + {MANIFEST_FILE}; \
         {} layers × {} heads, hidden {}, vocabulary {}",
        o.out.display(),
        CORE_FILE,
        files.core.len() as f64 / 1e6,
        files.shards.len(),
        model.rows_per_shard(),
        shard_bytes as f64 / 1e6,
        c.layers,
        c.heads,
        c.hidden,
        c.vocab_size
    );
    Ok(())
}

/// Writes `bytes` to `dir/name` and returns its manifest entry.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<String, String> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!(
        "{{\"file\": {}, \"bytes\": {}, \"sha256\": \"{}\"}}",
        serde_json::to_string(name).unwrap_or_default(),
        bytes.len(),
        sha256::hex(bytes)
    ))
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

/// SHA-256 (FIPS 180-4) for the manifest, so the build tool needs no further
/// dependency. scripts/build-model checks the core's digest with `sha256sum`.
mod sha256 {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];

    pub fn digest(bytes: &[u8]) -> [u8; 32] {
        let mut h: [u32; 8] =
            [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
        let mut message = bytes.to_vec();
        message.push(0x80);
        while message.len() % 64 != 56 {
            message.push(0);
        }
        message.extend_from_slice(&((bytes.len() as u64) * 8).to_be_bytes());
        for block in message.chunks_exact(64) {
            let mut w = [0u32; 64];
            for (i, word) in block.chunks_exact(4).enumerate() {
                w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
            }
            for i in 16..64 {
                let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
                let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
            }
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
            for i in 0..64 {
                let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
                let ch = (e & f) ^ (!e & g);
                let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
                let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
                let maj = (a & b) ^ (a & c) ^ (b & c);
                let t2 = s0.wrapping_add(maj);
                (hh, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
            }
            for (state, add) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
                *state = state.wrapping_add(add);
            }
        }
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    pub fn hex(bytes: &[u8]) -> String {
        digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn known_digests() {
            // FIPS 180-4 examples, and a message that needs a second padding block.
            assert_eq!(super::hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
            assert_eq!(
                super::hex(b"abc"),
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            );
            assert_eq!(
                super::hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            );
            assert_eq!(
                super::hex(&[b'a'; 1000]),
                "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
            );
        }
    }
}
