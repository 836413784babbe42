"""Exports the forward-pass fixtures of crates/attention-model/testdata/:

- minilm_forward.json: all-MiniLM-L6-v2 (F32 weights from model.safetensors)
  run by the numpy float64 reference in bert_reference.py on three sentences:
  the full attention matrix of a few heads, the row of one query piece in every
  layer and head, and the first 16 dimensions of the last hidden states; for
  the first sentence (f16 weights), also the inside of layer 5, head 11 for
  the query 'it': q, k, v of every piece, scores, weights, context.
- tiny_forward.json: a tiny random model (2 layers, 4 heads, hidden 16) whose
  weights come from the splitmix64 generator below, which the Rust test
  reproduces bit for bit; the full attention and hidden states, and the inside
  of one head for one query of the first sentence.

Usage: python make_forward_fixture.py MODEL_DIR OUT_DIR
"""

import json
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import math

from bert_reference import forward

SENTENCES = [
    ("The cat sat on the mat because it was tired", "it"),
    ("The animal didn't cross the street because it was too tired.", "it"),
    ("Café naïve résumé: I can't believe it's 3:45 already!", "believe"),
]
FULL_HEADS = [[0, 0], [2, 5], [5, 11]]
HIDDEN_DIMS = 16
# The head opened like a GloVe row: layer, head and query piece of the first sentence.
INSIDE = (5, 11, "it")


def rounded(a, digits=8):
    return [float(f"{v:.{digits}g}") for v in np.asarray(a, dtype=np.float64).ravel()]


def outputs(weights, ids, q):
    attention, states = forward(weights, ids, layers=6, heads=12)
    return {
        "heads": [{"layer": l, "head": h, "weights": rounded(attention[l, h])} for l, h in FULL_HEADS],
        "query_rows": rounded(attention[:, :, q, :]),
        "hidden": rounded(states[-1][:, :HIDDEN_DIMS]),
    }


def inside(weights, ids, layers, heads, layer, head, query, eps=1e-12):
    """One head for one query piece: q, k, v (n, d) of every piece, the raw
    scores q·k, the weights softmax(scores / √d) and the context Σ w·v."""
    keep = {}
    attention, _ = forward(weights, ids, layers=layers, heads=heads, eps=eps, keep=keep)
    q, k, v = keep[layer]
    d = q.shape[1] // heads
    cols = slice(head * d, (head + 1) * d)
    q, k, v = q[:, cols], k[:, cols], v[:, cols]
    scores = k @ q[query]
    weights_row = attention[layer, head, query]
    return {
        "layer": layer,
        "head": head,
        "query": query,
        "dim": d,
        "q": rounded(q),
        "k": rounded(k),
        "v": rounded(v),
        "scores": rounded(scores),
        "scale": 1.0 / math.sqrt(d),
        "weights": rounded(weights_row),
        "context": rounded(weights_row @ v),
    }


def minilm(model_dir):
    weights = load_file(f"{model_dir}/model.safetensors")
    # The default model file stores every tensor as f16 (round to nearest even,
    # as numpy and the `half` crate both do): the same weights, exactly.
    weights_f16 = {k: v.astype(np.float16) for k, v in weights.items() if v.dtype == np.float32}
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.no_truncation()
    cases = []
    for text, query in SENTENCES:
        enc = tok.encode(text)
        q = enc.tokens.index(query)
        case = {
            "text": text,
            "ids": enc.ids,
            "pieces": enc.tokens,
            "query": q,
            "f32": outputs(weights, enc.ids, q),
            "f16": outputs(weights_f16, enc.ids, q),
        }
        if not cases:
            layer, head, piece = INSIDE
            case["f16"]["inside"] = inside(weights_f16, enc.ids, 6, 12, layer, head, enc.tokens.index(piece))
        cases.append(case)
    return {
        "about": "all-MiniLM-L6-v2 through scripts/reference/bert_reference.py (numpy float64), with the "
        "original F32 weights (f32) and with every weight rounded to f16 (f16, what the default model file holds). "
        "heads[k].weights: (n, n) of that layer/head; query_rows: (layers=6, heads=12, n) rows of piece "
        f"`query`; hidden: (n, {HIDDEN_DIMS}) first dims of the last layer's output; "
        "cases[0].f16.inside: one head for one query (q, k, v: (n, dim) of every piece after the bias; "
        "scores: q[query]·k (n); weights (n); context: weights·v (dim)). "
        "Regenerate with scripts/reference/make_forward_fixture.py",
        "hidden_dims": HIDDEN_DIMS,
        "cases": cases,
    }


MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        """In [-1, 1), with 24 bits: exact in f32 and f64."""
        return (self.next() >> 40) / float(1 << 23) - 1.0


TINY = {"vocab_size": 16, "hidden": 16, "layers": 2, "heads": 4, "intermediate": 32, "max_positions": 16, "type_vocab": 2}
TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "##s", ".", "a"]
TINY_SEED = 20240521


def required_tensors(c):
    """Same names and order as attention_model::format::required_tensors."""
    h, i = c["hidden"], c["intermediate"]
    out = [
        ("embeddings.word_embeddings.weight", (c["vocab_size"], h)),
        ("embeddings.position_embeddings.weight", (c["max_positions"], h)),
        ("embeddings.token_type_embeddings.weight", (c["type_vocab"], h)),
        ("embeddings.LayerNorm.weight", (h,)),
        ("embeddings.LayerNorm.bias", (h,)),
    ]
    for n in range(c["layers"]):
        p = f"encoder.layer.{n}."
        for name, o, k in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ]:
            out.append((f"{p}{name}.weight", (o, k)))
            out.append((f"{p}{name}.bias", (o,)))
        for name in ["attention.output.LayerNorm", "output.LayerNorm"]:
            out.append((f"{p}{name}.weight", (h,)))
            out.append((f"{p}{name}.bias", (h,)))
    return out


def tiny_weights():
    """Every value r/2 with r uniform in [-1, 1), LayerNorm weights 1 + r/2, in required_tensors order."""
    rng = SplitMix64(TINY_SEED)
    weights = {}
    for name, shape in required_tensors(TINY):
        count = int(np.prod(shape))
        values = np.array([rng.uniform() * 0.5 for _ in range(count)])
        if name.endswith("LayerNorm.weight"):
            values = values + 1.0
        weights[name] = values.reshape(shape)
    return weights


def tiny():
    weights = tiny_weights()
    texts = ["the cat sat on the mat because it was tired .", "a cats"]
    index = {w: k for k, w in enumerate(TINY_VOCAB)}
    ids_of = {texts[0]: [2] + [index[w] for w in texts[0].split()] + [3], texts[1]: [2, 15, 5, 13, 3]}
    cases = []
    for text in texts:
        ids = ids_of[text]
        attention, states = forward(weights, ids, layers=TINY["layers"], heads=TINY["heads"], eps=1e-12)
        case = {"text": text, "ids": ids, "attention": rounded(attention), "hidden": rounded(states[-1])}
        if not cases:
            # Layer 1, head 2, query 'it' (piece 8).
            case["inside"] = inside(weights, ids, TINY["layers"], TINY["heads"], 1, 2, 8)
        cases.append(case)
    return {
        "about": "tiny random BERT (weights from splitmix64, see make_forward_fixture.py) through bert_reference.py; "
        "attention: (layers, heads, n, n); hidden: (n, hidden) of the last layer; "
        "cases[0].inside: one head for one query, as in minilm_forward.json",
        "config": TINY,
        "vocab": TINY_VOCAB,
        "seed": TINY_SEED,
        "cases": cases,
    }


def write(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"-> {path}")


def main():
    model_dir, out_dir = sys.argv[1], sys.argv[2]
    write(f"{out_dir}/tiny_forward.json", tiny())
    write(f"{out_dir}/minilm_forward.json", minilm(model_dir))


if __name__ == "__main__":
    main()
