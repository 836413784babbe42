"""Exports crates/attention-model/testdata/wordpiece.json: for each sentence,
the ids, pieces and byte spans that the reference `tokenizers` package gives
with all-MiniLM-L6-v2's tokenizer.json (padding and truncation switched off:
the Rust tokenizer never pads or truncates).

Usage: python make_tokenizer_fixture.py MODEL_DIR OUT_JSON
"""

import json
import sys

from tokenizers import Tokenizer

import tokenizers

SENTENCES = [
    "The cat sat on the mat because it was tired",
    "The king and queen ruled the kingdom",
    "The animal didn't cross the street because it was too tired.",
    "I can't believe it's already 3:45 p.m. -- we're late!",
    "Don't, won't, shouldn't've, y'all, o'clock, rock'n'roll.",
    "Hello, world! How are you?!?",
    "\"Quoted\" (parenthesised) [bracketed] {braced} <angled> text...",
    "Email me at someone@example.com or visit https://example.org/path?q=1&r=2#frag",
    "Prices: $5.99, €10, £3.50, ¥1000 and 15% off; 1,000,000 people.",
    "In 1969, Apollo 11 landed on the Moon; 3.14159 is pi and 2^10 = 1024.",
    "Café naïve résumé: the über-complex façade of Zürich.",
    "ÀÉÎÕÜ àéîõü ÇçÑñ ÅåØøÆæ ß Œuvre",
    "İstanbul, ǅemal, ΣΊΣΥΦΟΣ and Ελληνικά",
    "Москва — столица России.",
    "日本語のテキストと中文文本混合。",
    "我爱自然语言处理",
    "한국어 문장도 있습니다",
    "Emoji: 😀 🐈‍⬛ 👍🏽 ❤️ and flags 🇫🇷",
    "The word pneumonoultramicroscopicsilicovolcanoconiosis is long.",
    "a" * 100 + " " + "b" * 101,
    "Antidisestablishmentarianism" * 4,
    "",
    "   \t\n  ",
    "!!!",
    "\u200b\u00ad\ufeff zero width and soft hyphen",
    "Tabs\tand\nnewlines\r\nand\u00a0non-breaking\u3000spaces",
    "Control \x00 characters \x07 and \ufffd replacement",
    "well-known, state-of-the-art, U.S.A., e.g., i.e.",
    "UNBELIEVABLE unbelievable Unbelievable",
    "Transformers use self-attention to weigh every token against every other token.",
    "She gave him her book, and he read it twice before returning it to her.",
    "COVID-19 vaccines, GPT-4, and iPhone15Pro",
    "ﬁne ligatures ﬀ and ½ fractions, ² superscripts, Ⅻ numerals",
    "Arabic: مرحبا بالعالم and Hebrew: שלום עולם",
    "हिन्दी और தமிழ் text",
    "x",
]


def byte_offset(text, char_index):
    return len(text[:char_index].encode("utf-8"))


def main():
    model_dir, out = sys.argv[1], sys.argv[2]
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.no_truncation()
    cases = []
    for text in SENTENCES:
        enc = tok.encode(text)
        spans = [[byte_offset(text, s), byte_offset(text, e)] for s, e in enc.offsets]
        cases.append({"text": text, "ids": enc.ids, "pieces": enc.tokens, "spans": spans})
    fixture = {
        "about": "ids, pieces and byte spans from the reference tokenizers package "
        f"{tokenizers.__version__} with all-MiniLM-L6-v2's tokenizer.json, padding and truncation off; "
        "regenerate with scripts/reference/make_tokenizer_fixture.py",
        "cases": cases,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(fixture, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(cases)} sentences -> {out}")


if __name__ == "__main__":
    main()
