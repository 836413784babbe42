"""Measures how much running English text the N most frequent GloVe words
cover (the table "Why 20,000 words" in data/README.md).

Usage: python coverage.py <words.txt>     (words in GloVe order; scripts/build-data caches it)
Needs: the venv of scripts/build-data (requirements-glove.txt)
"""

import sys

import wordfreq

words = open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]
frequencies = wordfreq.get_frequency_dict("en", "large")
total = sum(frequencies.values())
common = list(frequencies)[:10000]
print("| words kept | running words covered | of wordfreq's 10,000 most common words | file size (q16) |")
for n in [10000, 20000, 30000, 50000, 100000, len(words)]:
    kept = set(words[:n])
    covered = sum(f for w, f in frequencies.items() if w in kept) / total
    types = sum(1 for w in common if w in kept) / len(common)
    size = 20 + sum(len(w.encode()) + 1 for w in words[:n]) + 3 + n * (4 + 2 * 50)
    print(f"| {n:,} | {covered:.1%} | {types:.1%} | {size / 1e6:.1f} MB |")
