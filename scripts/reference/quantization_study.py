"""How far each way of storing all-MiniLM-L6-v2's weights moves the attention
probabilities: the largest difference from the float64 reference with the
original F32 weights, over every layer, head, query and key of 9 sentences
(9 to 118 pieces), and the size each way would take. The numbers in
crates/attention-model/README.md come from here.

Usage: python quantization_study.py MODEL_DIR      (a few minutes)
"""

import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from bert_reference import forward

SENTENCES = [
    "The cat sat on the mat because it was tired",
    "The king and queen ruled the kingdom",
    "The animal didn't cross the street because it was too tired.",
    "I can't believe it's already 3:45 p.m. -- we're late!",
    "Café naïve résumé: the über-complex façade of Zürich.",
    "She gave him her book, and he read it twice before returning it to her.",
    "In 1969, Apollo 11 landed on the Moon; Neil Armstrong stepped out first.",
    "Transformers use self-attention to weigh every token against every other token in the sequence.",
    " ".join(
        ["The quick brown fox jumps over the lazy dog while the farmer watches from the old barn, "
         "wondering whether it will rain before the harvest is finished."] * 4
    ),
]
WORD = "embeddings.word_embeddings.weight"


def f16(a):
    return a.astype(np.float16).astype(np.float32)


def uniform_rows(a, bits, block=None):
    """Symmetric uniform quantization, one scale per row (or per block of the row)."""
    levels = 2 ** (bits - 1) - 1
    r = a.reshape(a.shape[0], -1) if block is None else a.reshape(-1, block)
    s = np.abs(r).max(axis=1, keepdims=True) / levels
    s[s == 0] = 1
    q = np.clip(np.round(r / s), -levels, levels)
    return (q * s).reshape(a.shape).astype(np.float32), q


def entropy_bits(q):
    _, counts = np.unique(q, return_counts=True)
    p = counts / counts.sum()
    return -(p * np.log2(p)).sum()


def main():
    model_dir = sys.argv[1]
    w = load_file(f"{model_dir}/model.safetensors")
    w.pop("embeddings.position_ids", None)
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.no_truncation()
    ids = [tok.encode(s).ids for s in SENTENCES]
    reference = [forward(w, i, 6, 12)[0] for i in ids]

    def study(name, store):
        """store(name, array) -> (stored array, bytes)."""
        stored, size = {}, 0
        for k, v in w.items():
            stored[k], b = store(k, v)
            size += b
        err = max(np.abs(forward(stored, i, 6, 12)[0] - r).max() for i, r in zip(ids, reference))
        print(f"{name:<48} {size / 1e6:6.1f} MB   max attention difference {err:.4f}", flush=True)

    def vec_f16(v):
        return f16(v), v.size * 2

    def int8_rows(v, block=None):
        deq, _ = uniform_rows(v, 8, block)
        rows = v.size // (block or v.shape[1])
        return deq, v.size + rows * 4

    def entropy_coded(v, bits):
        deq, q = uniform_rows(v, bits)
        return deq, v.size * entropy_bits(q) / 8 + v.shape[0] * 4

    study("f16 everywhere", lambda k, v: vec_f16(v))
    study("word embeddings int8/row, rest f16", lambda k, v: int8_rows(v) if k == WORD else vec_f16(v))
    study("matrices int8/row", lambda k, v: int8_rows(v) if v.ndim == 2 else vec_f16(v))
    study("matrices int8, blocks of 32", lambda k, v: int8_rows(v, 32) if v.ndim == 2 else vec_f16(v))
    for bits in (9, 10, 11):
        study(
            f"matrices {bits}-bit/row, ideally entropy-coded",
            lambda k, v, bits=bits: entropy_coded(v, bits) if v.ndim == 2 else vec_f16(v),
        )


if __name__ == "__main__":
    main()
