//! The trained model's readers: `Model::from_core`, `add_shard`, the
//! manifest checks, and a run of what they accepted.
//!
//! Input: byte 0 picks the mode, byte 1 the tiny model's embedding dtype
//! (f32, f16, q8), the rest is the mode's data.
//! 0. arbitrary bytes as a core file;
//! 1. arbitrary bytes as a shard of the tiny model;
//! 2. the tiny model's core with arbitrary edits (flipped bytes, size fields
//!    set to edge values, cuts, insertions), then its shards and a sentence;
//! 3. one of its shards with edits, the core's checksum of that shard set
//!    right (so the reader gets past it), then a sentence;
//! 4. an arbitrary manifest, checked alone and against the tiny core;
//! 5. the whole tiny model on an arbitrary sentence, then the views the
//!    page opens on it at arbitrary layer, head and token indices.
//!
//! Never a panic; no allocation beyond what the bytes justify while a file
//! is read; a refused shard leaves the model as it was; what a run returns
//! has the documented shape, and for the unedited model every row of
//! attention is finite and sums to 1.
#![no_main]

use arbitrary::{Result, Unstructured};
use attention_fuzz::{apply, bounded, dtype_of, tiny_model, Edit};
use attention_model::format::checksum;
use attention_model::manifest::{ManifestFile, ModelManifest};
use attention_model::{shard_file, Error, Model, ModelFiles};
use libfuzzer_sys::fuzz_target;

const CHECKSUMS_AT: usize = 56;

fn load(core: &[u8]) -> Option<Model> {
    let model = bounded("Model::from_core", core.len(), 16, || Model::from_core(core)).ok()?;
    let config = model.config();
    assert!(config.hidden >= 1 && config.heads >= 1 && config.hidden % config.heads == 0);
    assert!(model.embedding_shards() >= 1 && model.rows_per_shard() >= 1);
    assert_eq!(model.tokenizer().vocab().len(), config.vocab_size);
    for k in 0..model.embedding_shards() {
        assert!(model.shard_bytes(k).is_some(), "shard {k} has no length");
    }
    assert_eq!(model.shard_bytes(model.embedding_shards()), None);
    Some(model)
}

fn add(model: &mut Model, shard: &[u8]) {
    let before = model.missing_shards(&all_ids(model));
    match bounded("Model::add_shard", shard.len(), 16, || model.add_shard(shard)) {
        Ok(k) => {
            assert!(k < model.embedding_shards());
            assert_eq!(
                model.shard_bytes(k),
                Some(shard.len()),
                "an accepted shard has the length the core says"
            );
        }
        Err(_) => {
            assert_eq!(model.missing_shards(&all_ids(model)), before, "a refused shard changes nothing")
        }
    }
}

fn all_ids(model: &Model) -> Vec<u32> {
    (0..model.config().vocab_size as u32).collect()
}

/// Runs `text` and checks the shape of what comes back; `exact`: the model
/// is the unedited tiny one, whose rows must be finite and sum to 1.
fn run(model: &Model, text: &str, u: &mut Unstructured, exact: bool) -> Result<()> {
    let attention = match model.attention(text) {
        Ok(attention) => attention,
        Err(Error::TooLong { pieces, max }) => {
            assert!(pieces > max && max <= model.config().max_positions);
            return Ok(());
        }
        Err(Error::MissingShards(missing)) => {
            assert!(!missing.is_empty() && missing.iter().all(|k| *k < model.embedding_shards()));
            return Ok(());
        }
        Err(e) => panic!("a run failed: {e}"),
    };
    let (layers, heads, n) = (model.config().layers, model.config().heads, attention.n());
    assert_eq!(attention.weights.len(), layers * heads * n * n);
    if exact {
        for row in attention.weights.chunks_exact(n) {
            let sum: f32 = row.iter().sum();
            assert!(row.iter().all(|w| w.is_finite()) && (sum - 1.0).abs() < 1e-4, "a row sums to {sum}");
        }
    }
    let (layer, head) = (u.int_in_range(0..=layers + 1)?, u.int_in_range(0..=heads + 1)?);
    assert_eq!(attention.head(layer, head).is_some(), layer < layers && head < heads);
    let (query, key) = (u.int_in_range(0..=n + 1)?, u.int_in_range(0..=n + 1)?);
    let _ = attention.search_heads(query, key);
    let _ = attention.head_behaviours();
    let _ = attention.rollout();
    let words = attention.words(u.arbitrary()?);
    let _ = words.head(layer, head);
    let _ = words.search_heads(query.min(words.n()), key);
    let ids: Vec<u32> = attention.pieces.iter().map(|p| p.id).collect();
    if let Ok(projections) = model.layer_projections(&ids, layer) {
        if let Ok(details) = projections.head_details(head, query) {
            assert_eq!(details.weights.len(), n);
            let _ = details.terms(key);
        }
        let _ = projections.project_head(head);
    }
    Ok(())
}

fn tiny_loaded(files: &ModelFiles) -> Model {
    let mut model = Model::from_core(&files.core).unwrap_or_else(|e| panic!("the tiny core: {e}"));
    for shard in &files.shards {
        model.add_shard(shard).unwrap_or_else(|e| panic!("a tiny shard: {e}"));
    }
    model
}

fn manifest(u: &mut Unstructured, files: &ModelFiles) -> Result<ModelManifest> {
    let size = |u: &mut Unstructured, real: usize| -> Result<u64> {
        Ok(match u.int_in_range(0..=3u8)? {
            0 => real as u64,
            1 => (real as u64).wrapping_add(u.int_in_range(0..=2u64)?).wrapping_sub(1),
            _ => u.arbitrary()?,
        })
    };
    let name = |u: &mut Unstructured, real: String| -> Result<String> {
        Ok(if u.ratio(3u8, 4)? { real } else { u.arbitrary()? })
    };
    let core = ManifestFile { file: name(u, "minilm-core.aebm".into())?, bytes: size(u, files.core.len())? };
    let count = match u.int_in_range(0..=3u8)? {
        0 => u.int_in_range(0..=files.shards.len() + 2)?,
        _ => files.shards.len(),
    };
    let mut shards = Vec::with_capacity(count);
    for k in 0..count {
        let real = files.shards.get(k).map_or(24, Vec::len);
        shards.push(ManifestFile { file: name(u, shard_file(k))?, bytes: size(u, real)? });
    }
    Ok(ModelManifest { core, shards })
}

fn fuzz(bytes: &[u8]) -> Result<()> {
    let [mode, dtype, data @ ..] = bytes else { return Ok(()) };
    let files = tiny_model(dtype_of(*dtype));
    let mut u = Unstructured::new(data);
    match mode % 6 {
        0 => {
            if let Some(mut model) = load(data) {
                let _ = run(&model, "the cat sat", &mut u, false);
                for shard in &files.shards {
                    add(&mut model, shard);
                }
            }
        }
        1 => {
            let mut model = Model::from_core(&files.core).unwrap_or_else(|e| panic!("the tiny core: {e}"));
            add(&mut model, data);
        }
        2 => {
            let edits: Vec<Edit> = u.arbitrary()?;
            let mut core = files.core.clone();
            apply(&mut core, &edits);
            if let Some(mut model) = load(&core) {
                for shard in &files.shards {
                    add(&mut model, shard);
                }
                let text = String::from_utf8_lossy(u.peek_bytes(u.len()).unwrap_or_default()).into_owned();
                run(&model, &text, &mut u, false)?;
            }
        }
        3 => {
            let k = u.choose_index(files.shards.len())?;
            let edits: Vec<Edit> = u.arbitrary()?;
            let mut shard = files.shards[k].clone();
            apply(&mut shard, &edits);
            let mut core = files.core.clone();
            let at = CHECKSUMS_AT + 8 * k;
            core[at..at + 8].copy_from_slice(&checksum(&shard).to_le_bytes());
            let mut model =
                Model::from_core(&core).unwrap_or_else(|e| panic!("a checksum edit broke the core: {e}"));
            add(&mut model, &shard);
            for (j, other) in files.shards.iter().enumerate() {
                if j != k {
                    add(&mut model, other);
                }
            }
            let text = String::from_utf8_lossy(u.peek_bytes(u.len()).unwrap_or_default()).into_owned();
            run(&model, &text, &mut u, false)?;
        }
        4 => {
            let model = Model::from_core(&files.core).unwrap_or_else(|e| panic!("the tiny core: {e}"));
            let listed = manifest(&mut u, files)?;
            let alone = listed.check_listing();
            if model.check_manifest(&listed, files.core.len()).is_ok() {
                assert!(alone.is_ok());
                assert_eq!(listed.core.bytes, files.core.len() as u64);
                assert_eq!(listed.shards.len(), files.shards.len());
                for (file, real) in listed.shards.iter().zip(&files.shards) {
                    assert_eq!(file.bytes, real.len() as u64, "{}", file.file);
                }
            }
        }
        _ => {
            let model = tiny_loaded(files);
            let text =
                String::from_utf8_lossy(u.peek_bytes(u.len().min(64)).unwrap_or_default()).into_owned();
            run(&model, &text, &mut u, true)?;
        }
    }
    Ok(())
}

fuzz_target!(|bytes: &[u8]| {
    let _ = fuzz(bytes);
});
