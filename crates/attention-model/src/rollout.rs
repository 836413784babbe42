//! Attention rollout across layers (Abnar & Zuidema 2020, "Quantifying
//! Attention Flow in Transformers"): how much of each token's representation
//! after layer l comes from each input token, if attention were all that
//! mixes tokens.
//!
//! For every layer l, with `A_l` the attention averaged over the heads (n, n):
//!
//! ```text
//! Â_l       = rownorm(A_l + I)          the identity stands for the residual connection
//! rollout_0 = Â_0
//! rollout_l = Â_l · rollout_{l−1}       (n, n): row i = query token after layer l, column j = input token
//! ```
//!
//! `rownorm` divides each row by its sum. Rows of an attention view that
//! leaves out [CLS]/[SEP] sum to less than 1; the renormalisation makes every
//! rollout row sum to 1 all the same (within rounding, computed in f64).

/// The rollout and the raw head average of every layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Rollout {
    /// Layers of the model.
    pub layers: usize,
    /// Tokens.
    pub n: usize,
    /// `(layers, n, n)`: the attention of each layer averaged over its heads
    /// (not renormalised: the model's numbers).
    pub average: Vec<f32>,
    /// `(layers, n, n)`: `rollout_l` as above; every row sums to 1.
    pub rollout: Vec<f32>,
}

impl Rollout {
    /// The `(n, n)` rollout after layer `layer`, or `None` if out of range.
    pub fn layer(&self, layer: usize) -> Option<&[f32]> {
        let nn = self.n * self.n;
        (layer < self.layers).then(|| &self.rollout[layer * nn..(layer + 1) * nn])
    }

    /// The `(n, n)` head average of layer `layer`, or `None` if out of range.
    pub fn average_of(&self, layer: usize) -> Option<&[f32]> {
        let nn = self.n * self.n;
        (layer < self.layers).then(|| &self.average[layer * nn..(layer + 1) * nn])
    }
}

/// The rollout of `weights`, `(layers, heads, n, n)` row-major.
pub fn rollout(weights: &[f32], layers: usize, heads: usize, n: usize) -> Rollout {
    let nn = n * n;
    let mut average = vec![0f32; layers * nn];
    let mut rollout = vec![0f32; layers * nn];
    if nn == 0 || heads == 0 {
        return Rollout { layers, n, average, rollout };
    }
    let mut flow: Vec<f64> = Vec::new();
    for (l, layer) in weights.chunks_exact(heads * nn).take(layers).enumerate() {
        let mut mixed = vec![0f64; nn];
        for head in layer.chunks_exact(nn) {
            mixed.iter_mut().zip(head).for_each(|(m, w)| *m += f64::from(*w));
        }
        mixed.iter_mut().for_each(|m| *m /= heads as f64);
        average[l * nn..(l + 1) * nn].iter_mut().zip(&mixed).for_each(|(a, m)| *a = *m as f32);
        for (i, row) in mixed.chunks_exact_mut(n).enumerate() {
            row[i] += 1.0;
            let sum: f64 = row.iter().sum();
            row.iter_mut().for_each(|v| *v /= sum);
        }
        flow = if l == 0 { mixed } else { matmul(&mixed, &flow, n) };
        rollout[l * nn..(l + 1) * nn].iter_mut().zip(&flow).for_each(|(r, f)| *r = *f as f32);
    }
    Rollout { layers, n, average, rollout }
}

/// `a · b` for two `(n, n)` row-major matrices.
fn matmul(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0f64; n * n];
    for (out_row, a_row) in out.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
        for (a_ik, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            out_row.iter_mut().zip(b_row).for_each(|(o, b)| *o += a_ik * b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn one_layer_is_half_attention_half_residual() {
        // One layer, two heads over two tokens; their average is [[0.5, 0.5], [1, 0]].
        let weights = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0];
        let r = rollout(&weights, 1, 2, 2);
        assert_eq!(r.average_of(0).unwrap(), [0.5, 0.5, 1.0, 0.0]);
        // (A + I) / 2 = [[0.75, 0.25], [0.5, 0.5]].
        assert_eq!(r.layer(0).unwrap(), [0.75, 0.25, 0.5, 0.5]);
        assert!(r.layer(1).is_none());
    }

    #[test]
    fn layers_multiply_and_rows_sum_to_one() {
        // Two layers, one head each: layer 0 sends token 1 to token 0, layer 1 is the identity.
        let weights = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0];
        let r = rollout(&weights, 2, 1, 2);
        // Â₀ = [[1, 0], [0.5, 0.5]]; Â₁ = I, so rollout₁ = rollout₀.
        assert_eq!(r.layer(0).unwrap(), [1.0, 0.0, 0.5, 0.5]);
        assert_eq!(r.layer(1).unwrap(), r.layer(0).unwrap());
        // Rows that sum to less than 1 (a view without [CLS]/[SEP]) are renormalised.
        let r = rollout(&[0.2, 0.1, 0.3, 0.3], 1, 1, 2);
        for row in r.rollout.chunks(2) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{row:?}");
        }
        assert_eq!(rollout(&[], 3, 2, 0).rollout.len(), 0);
    }
}
