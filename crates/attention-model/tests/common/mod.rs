//! What the integration tests share: the tiny random model of the numpy
//! fixture (weights from splitmix64, as make_forward_fixture.py makes them),
//! the real model when it is built, and small comparisons.

#![allow(clippy::unwrap_used, dead_code)] // each test binary uses part of it

use attention_model::format::{encode, required_tensors};
use attention_model::testing::built_model_dir;
use attention_model::{shard_file, Config, DType, Model, ModelFiles, Tensor, CORE_FILE};
use serde_json::Value;

pub fn floats(value: &Value) -> Vec<f32> {
    value.as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect()
}

pub fn ids(value: &Value) -> Vec<u32> {
    value.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect()
}

pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// The same generator as SplitMix64 in make_forward_fixture.py.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// In [-1, 1) with 24 bits, exact in f32.
    pub fn uniform(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

pub fn tiny_fixture() -> Value {
    serde_json::from_str(include_str!("../../testdata/tiny_forward.json")).unwrap()
}

/// The tiny model's files, its word embeddings in shards of `rows_per_shard` rows.
pub fn tiny_files(dtype: DType, rows_per_shard: usize, seed: u64) -> ModelFiles {
    let fixture = tiny_fixture();
    let c = &fixture["config"];
    let get = |key: &str| c[key].as_u64().unwrap() as usize;
    let config = Config {
        vocab_size: get("vocab_size"),
        hidden: get("hidden"),
        layers: get("layers"),
        heads: get("heads"),
        intermediate: get("intermediate"),
        max_positions: get("max_positions"),
        type_vocab: get("type_vocab"),
        layer_norm_eps: 1e-12,
    };
    let vocab: Vec<String> =
        fixture["vocab"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    let mut rng = SplitMix64(seed);
    let tensors: Vec<Tensor> = required_tensors(&config)
        .into_iter()
        .map(|(name, shape)| {
            let offset = if name.ends_with("LayerNorm.weight") { 1.0 } else { 0.0 };
            let values = (0..shape.iter().product::<usize>()).map(|_| rng.uniform() * 0.5 + offset).collect();
            Tensor { name, shape, values }
        })
        .collect();
    encode(&config, &vocab, &tensors, |_| dtype, rows_per_shard).unwrap()
}

/// A core with every shard added.
pub fn assemble(files: &ModelFiles) -> Model {
    let mut model = Model::from_core(&files.core).unwrap();
    for (k, shard) in files.shards.iter().enumerate() {
        assert_eq!(model.add_shard(shard).unwrap(), k);
    }
    model
}

/// The tiny model of the fixture, in shards of 3 rows.
pub fn tiny_model(dtype: DType) -> Model {
    assemble(&tiny_files(dtype, 3, tiny_fixture()["seed"].as_u64().unwrap()))
}

/// The real model's core with every shard added.
pub fn real_model() -> Option<Model> {
    let dir = built_model_dir()?;
    let mut model = Model::from_core(&std::fs::read(dir.join(CORE_FILE)).unwrap()).unwrap();
    for k in 0..model.embedding_shards() {
        model.add_shard(&std::fs::read(dir.join(shard_file(k))).unwrap()).unwrap();
    }
    Some(model)
}
