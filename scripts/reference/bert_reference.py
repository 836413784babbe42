"""An independent BERT encoder forward pass in numpy (float64), written from
the BERT definition (Devlin et al. 2019; the Hugging Face `BertModel` layout of
weight names). It is the reference the Rust forward pass is checked against.

    x  = LayerNorm(word[ids] + position[0..n] + token_type[0])
    per layer:
      q, k, v = x Wqᵀ + bq, x Wkᵀ + bk, x Wvᵀ + bv      (n, hidden)
      per head h (d = hidden / heads):
        p_h = softmax(q_h k_hᵀ / √d)                   (n, n), rows sum to 1
        c_h = p_h v_h                                  (n, d)
      x = LayerNorm(x + concat(c_h) Woᵀ + bo)
      x = LayerNorm(x + gelu(x W1ᵀ + b1) W2ᵀ + b2)     gelu(t) = t/2 (1 + erf(t/√2))
"""

import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(t):
    return 0.5 * t * (1.0 + _erf(t / math.sqrt(2.0)))


def layer_norm(x, weight, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def softmax(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def forward(weights, ids, layers, heads, eps=1e-12, keep=None):
    """Returns (attention (layers, heads, n, n), hidden states list: input + one per layer).

    With `keep` a dict, keep[layer] = (q, k, v) of every layer, each (n, hidden)
    after the bias; head h owns columns h*d .. (h+1)*d.
    """
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    ids = np.asarray(ids)
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    hidden = x.shape[1]
    d = hidden // heads
    attention = np.zeros((layers, heads, n, n))
    states = [x]
    for layer in range(layers):
        p = f"encoder.layer.{layer}."

        def dense(t, name):
            return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = dense(x, "attention.self.query")
        k = dense(x, "attention.self.key")
        v = dense(x, "attention.self.value")
        if keep is not None:
            keep[layer] = (q, k, v)
        context = np.zeros((n, hidden))
        for h in range(heads):
            cols = slice(h * d, (h + 1) * d)
            probs = softmax(q[:, cols] @ k[:, cols].T / math.sqrt(d))
            attention[layer, h] = probs
            context[:, cols] = probs @ v[:, cols]
        x = layer_norm(
            x + dense(context, "attention.output.dense"),
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        x = layer_norm(
            x + dense(gelu(dense(x, "intermediate.dense")), "output.dense"),
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
            eps,
        )
        states.append(x)
    return attention, states
