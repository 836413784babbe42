//! The tiny deterministic model the boundary's tests run on.

use attention_model::format::{encode, required_tensors};
use attention_model::{Config, DType, ModelFiles, Tensor};

/// A 2-layer, 2-head, 8-wide model over `vocab`, in word-embedding shards of
/// 4 rows, with weights from a fixed linear congruential sequence.
pub fn tiny_files(vocab: &[&str], dtype: DType) -> ModelFiles {
    let vocab: Vec<String> = vocab.iter().map(|s| s.to_string()).collect();
    let config = Config {
        vocab_size: vocab.len(),
        hidden: 8,
        layers: 2,
        heads: 2,
        intermediate: 16,
        max_positions: 32,
        type_vocab: 2,
        layer_norm_eps: 1e-12,
    };
    let mut k = 0u32;
    let tensors: Vec<Tensor> = required_tensors(&config)
        .into_iter()
        .map(|(name, shape)| {
            let offset = if name.ends_with("LayerNorm.weight") { 1.0 } else { 0.0 };
            let values = (0..shape.iter().product::<usize>())
                .map(|_| {
                    k = k.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((k >> 8) % 1000) as f32 / 1000.0 - 0.5 + offset
                })
                .collect();
            Tensor { name, shape, values }
        })
        .collect();
    encode(&config, &vocab, &tensors, |_| dtype, 4).unwrap()
}
