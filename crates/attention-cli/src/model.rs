//! `attention --model DIR`: the attention of a trained transformer
//! (all-MiniLM-L6-v2, built into DIR by `scripts/build-model`), one head in
//! the same text format as the GloVe output, or every head as JSON.

use std::io::{self, Write};
use std::path::Path;

use attention_model::manifest::{ManifestFile, ModelManifest};
use attention_model::model::head_block;
use attention_model::{Model, ModelAttention, Piece, CORE_FILE, MANIFEST_FILE};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use unicode_width::UnicodeWidthStr;

use crate::build_data::hex;
use crate::files::read_bounded;
use crate::Failure;

/// The model's manifest lists about a thousand files: 127 KB.
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// What `--model` mode prints.
#[derive(Debug)]
pub struct ModelRequest<'a> {
    pub dir: &'a Path,
    pub sentence: &'a str,
    /// As typed: a negative one gets the range message.
    pub layer: Option<i64>,
    pub head: Option<i64>,
    pub words: bool,
    pub no_special: bool,
    pub json: bool,
}

/// One file of the model folder's `manifest.json`, as scripts/build-model writes it.
#[derive(Deserialize)]
struct ManifestEntry {
    file: String,
    bytes: u64,
    sha256: String,
}

/// `manifest.json`: the core and the embedding shards, in order, with their
/// sizes and SHA-256. The page checks every file against it; so does the CLI.
#[derive(Deserialize)]
struct Manifest {
    core: ManifestEntry,
    shards: Vec<ManifestEntry>,
}

impl Manifest {
    fn listing(&self) -> ModelManifest {
        let file = |e: &ManifestEntry| ManifestFile { file: e.file.clone(), bytes: e.bytes };
        ModelManifest { core: file(&self.core), shards: self.shards.iter().map(file).collect() }
    }
}

/// Loads the model's core and the embedding shards the sentence needs, each
/// checked against the SHA-256 that `manifest.json` lists: a flipped bit in
/// the weights would otherwise print other weights without a word.
pub(crate) fn load(dir: &Path, sentence: &str) -> Result<Model, Failure> {
    // Each file is read up to the size the manifest lists (a device or a grown file is refused).
    let read = |name: &str, limit: u64| {
        let path = dir.join(name);
        read_bounded(&path, limit).map_err(|e| {
            let hint = match e.kind() {
                io::ErrorKind::NotFound => " (build it with scripts/build-model)",
                io::ErrorKind::InvalidData => {
                    " (the size manifest.json lists: build the model again with scripts/build-model)"
                }
                _ => "",
            };
            Failure::usage(format!("cannot read '{}': {e}{hint}", path.display()))
        })
    };
    let invalid = |name: &str, e: &dyn std::fmt::Display| {
        Failure::usage(format!(
            "{}: {e} (build the model again with scripts/build-model)",
            dir.join(name).display()
        ))
    };
    let manifest: Manifest = serde_json::from_slice(&read(MANIFEST_FILE, MAX_MANIFEST_BYTES)?)
        .map_err(|e| invalid(MANIFEST_FILE, &format!("not a model manifest ({e})")))?;
    let listing = manifest.listing();
    listing.check_listing().map_err(|e| invalid(MANIFEST_FILE, &e))?;
    let checked = |entry: &ManifestEntry| {
        let bytes = read(&entry.file, entry.bytes)?;
        let sum = hex(&Sha256::digest(&bytes));
        if sum != entry.sha256.to_ascii_lowercase() {
            let said = format!("its SHA-256 is {sum}, but {MANIFEST_FILE} lists {}", entry.sha256);
            return Err(invalid(&entry.file, &said));
        }
        Ok(bytes)
    };
    let core = checked(&manifest.core)?;
    let mut model = Model::from_core(&core).map_err(|e| invalid(&manifest.core.file, &e))?;
    model.check_manifest(&listing, core.len()).map_err(|e| invalid(MANIFEST_FILE, &e))?;
    let ids: Vec<u32> = model.tokenize(sentence).iter().map(|p| p.id).collect();
    for k in model.missing_shards(&ids) {
        let Some(entry) = manifest.shards.get(k) else {
            return Err(invalid(MANIFEST_FILE, &format!("it lists no embedding shard {k}")));
        };
        model.add_shard(&checked(entry)?).map_err(|e| invalid(&entry.file, &e))?;
    }
    Ok(model)
}

/// The model's attention over `sentence`. A sentence of no word the model
/// reads (invisible characters only: a zero-width space, a soft hyphen) is
/// empty, as the GloVe attention says of it; `tip` follows that message.
pub(crate) fn attention_of(model: &Model, sentence: &str, tip: &str) -> Result<ModelAttention, Failure> {
    let attention = model.attention(sentence).map_err(|e| Failure::usage(e.to_string()))?;
    if attention.pieces.iter().all(Piece::is_special) {
        return Err(Failure::usage(format!("the sentence is empty: {tip}")));
    }
    Ok(attention)
}

/// Where `scripts/build-model` puts the model in this checkout.
const BUILT_MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../model");

/// The model folder: `given`, else the one `scripts/build-model` wrote into the checkout this
/// binary was built from; an error that says how to get one when it holds no model.
pub fn dir_of(given: Option<&Path>) -> Result<&Path, Failure> {
    let dir = given.unwrap_or(Path::new(BUILT_MODEL));
    let core = dir.join(CORE_FILE);
    if !core.is_file() {
        let (place, missing) = match given {
            None => ("this checkout".to_owned(), format!("model/{CORE_FILE}")),
            Some(_) => (format!("'{}'", dir.display()), core.display().to_string()),
        };
        return Err(Failure::usage(format!(
            "no trained model in {place} ({missing} is missing): build it with scripts/build-model, \
             or name its folder with --model DIR"
        )));
    }
    Ok(dir)
}

pub fn run(request: &ModelRequest<'_>, out: &mut impl Write) -> Result<(), Failure> {
    let model = load(request.dir, request.sentence)?;
    let (layers, heads) = (model.config().layers, model.config().heads);
    let in_range = |value: Option<i64>, count: usize, flag: &str| match value {
        None => Ok(None),
        Some(v) => usize::try_from(v).ok().filter(|&v| v < count).map(Some).ok_or_else(|| {
            Failure::usage(format!("{flag} {v} is out of range: this model has 0 to {}", count - 1))
        }),
    };
    let layer = in_range(request.layer, layers, "--layer")?;
    let head = in_range(request.head, heads, "--head")?;
    // One head is two numbers: a layer alone (or a head alone) names none.
    let chosen = match (layer, head) {
        (Some(layer), Some(head)) => Some((layer, head)),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => {
            let (given, missing) =
                if layer.is_some() { ("--layer", "--head") } else { ("--head", "--layer") };
            let every = if request.json { ", or leave both out for every head" } else { "" };
            return Err(Failure::usage(format!(
                "{given} needs {missing}: a head is chosen with --layer L --head H (layers 0 to {}, \
                 heads 0 to {}){every}",
                layers - 1,
                heads - 1
            )));
        }
    };
    let attention = attention_of(&model, request.sentence, crate::EMPTY_TIP)?;
    let view = View::new(attention, request.words, request.no_special);

    let written = if request.json {
        write_json(out, &view, chosen)
    } else {
        let Some((layer, head)) = chosen else {
            return Err(Failure::usage(format!(
                "choose a head to print with --layer L --head H (layers 0 to {}, heads 0 to {}), \
                 or print every head with --json",
                layers - 1,
                heads - 1
            )));
        };
        write_text(out, &view, layer, head)
    };
    crate::output::finish(written.and_then(|()| out.flush()))
}

/// The tokens and weights to print: pieces or words, with or without [CLS]/[SEP].
struct View {
    tokens: Vec<String>,
    layers: usize,
    heads: usize,
    /// (layers, heads, n, n)
    weights: Vec<f32>,
}

impl View {
    fn new(attention: ModelAttention, words: bool, no_special: bool) -> View {
        let (layers, heads) = (attention.layers, attention.heads);
        if words {
            let w = attention.words(no_special);
            let tokens = w.words.iter().map(|w| w.text.clone()).collect();
            return View { tokens, layers, heads, weights: w.weights };
        }
        let pieces = if no_special { attention.without_special() } else { attention };
        let tokens = pieces.pieces.iter().map(|p| p.text.clone()).collect();
        View { tokens, layers, heads, weights: pieces.weights }
    }

    fn n(&self) -> usize {
        self.tokens.len()
    }

    /// Head `(layer, head)`; both were checked against the model's shape in [`run`].
    fn head(&self, layer: usize, head: usize) -> &[f32] {
        head_block(&self.weights, self.layers, self.heads, self.n(), layer, head).unwrap_or_default()
    }
}

fn write_text(out: &mut impl Write, view: &View, layer: usize, head: usize) -> io::Result<()> {
    let width = view.tokens.iter().map(|t| t.width()).max().unwrap_or(0);
    let weights = view.head(layer, head);
    let n = view.n();
    writeln!(out, "Layer {layer}, head {head} (counted from 0) of all-MiniLM-L6-v2")?;
    for (i, query) in view.tokens.iter().enumerate() {
        writeln!(out)?;
        writeln!(out, "Attention weights for '{query}':")?;
        for (j, key) in view.tokens.iter().enumerate() {
            let weight = weights[i * n + j];
            // Padded by terminal columns, as the GloVe output is: a CJK piece takes two.
            let pad = " ".repeat(width - key.width());
            writeln!(out, "  {key}{pad} {}", crate::output::weight_and_bar(weight))?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonModel<'a> {
    model: &'static str,
    tokens: &'a [String],
    layers: usize,
    heads: usize,
    /// attention[layer][head][query][key]
    attention: Vec<Vec<Vec<&'a [f32]>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    layer: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<usize>,
    /// The chosen head's rows, when --layer and --head are given.
    #[serde(skip_serializing_if = "Option::is_none")]
    weights: Option<Vec<&'a [f32]>>,
}

fn write_json(out: &mut impl Write, view: &View, chosen: Option<(usize, usize)>) -> io::Result<()> {
    let n = view.n().max(1);
    let attention = (0..view.layers)
        .map(|l| (0..view.heads).map(|h| view.head(l, h).chunks(n).collect()).collect())
        .collect();
    let weights = chosen.map(|(l, h)| view.head(l, h).chunks(n).collect());
    let json = JsonModel {
        model: "all-MiniLM-L6-v2",
        tokens: &view.tokens,
        layers: view.layers,
        heads: view.heads,
        attention,
        layer: chosen.map(|(l, _)| l),
        head: chosen.map(|(_, h)| h),
        weights,
    };
    crate::output::write_json_line(out, &json)
}
