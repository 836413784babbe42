"""A reference implementation, in plain Python, of the GloVe-compatible
tokenizer rules that crates/attention-core/src/tokenize.rs documents. It
shares no code with the project: it is written from the rules, so that the
golden files (scripts/reference/glove_golden.py) check the Rust tokenizer
against something else.

The rules, in the order they are tried on each piece of text:

1. The text is cut at whitespace (Unicode White_Space, as Rust's
   `char::is_whitespace`, and the zero-width space U+200B) into chunks. An
   invisible character (below) with nothing before it in its chunk cuts too.
2. A piece the vocabulary holds after normalizing (lowercase, with the
   final-sigma rule; invisible characters left out, and a zero-width joiner
   U+200D between two characters of which one is ASCII; the
   ligatures U+FB00..U+FB06 and the full-width forms U+FF01..U+FF5E as the
   letters NFKC makes of them; curly apostrophe ’ read as '; then Unicode
   NFC, so that "cafe" + U+0301 is "café") is one token, except a piece that
   ends a sentence with its period: a piece of a chunk that is the text's
   last, or whose next chunk's first letter or number is a capital (a letter
   that lowercases to another) while the chunk (without its leading non-word
   characters and its trailing periods) is not one of the titles in TITLES,
   case aside; and that ends in
   "." after a word character, with no other "." in it. Such a piece goes on
   to rule 4, which cuts the period off ("The cat sat." is the cat sat .,
   though "sat." is a GloVe word).
3. A piece that starts with non-word characters (a word character is a
   Unicode letter or number) but is not all of them loses a leading token:
   the longest prefix of that leading run, of at most 8 characters, that the
   vocabulary holds, else its first character. The rest goes back to rule 2.
4. Likewise for a trailing run of non-word characters: the longest known
   suffix of at most 8 characters of that run, else its last character. The
   part before it goes back to rule 2 (and its tokens come first).
5. A piece made only of non-word characters becomes, from the left, the
   longest known prefix (at most 8 characters) of what is left, else one
   character, again and again.
6. A piece (which now starts and ends with word characters) that ends in a
   contraction suffix n't 're 've 'll 's 'd 'm (tried in this order, after
   normalizing, so ’ counts as ') loses it as a token; the rest goes back to
   rule 2.
7. A piece that holds non-word characters other than ' and ’, and is not a
   number (ASCII digits with single , or . between them, like 12,345,678),
   is cut at each such character: every one of them is a token on its own,
   and the parts between them go back to rule 2.
8. Whatever is left is one token, known or not.

"Character" in rules 3 to 7 means a cluster: a character with the
extenders after it (every mark, Unicode category M: accents, Indic
viramas and vowel signs, Thai tone marks, the keycap U+20E3; variation selectors
U+FE00..U+FE0F, U+E0100..U+E01EF; skin tones U+1F3FB..U+1F3FF; tags
U+E0020..U+E007F; the zero-width joiner U+200D; the invisible characters
U+00AD, U+061C, U+200C, U+200E, U+200F, U+202A..U+202E, U+2060..U+2064,
U+2066..U+2069, U+FEFF), any character right after a joiner, and a regional
indicator (U+1F1E6..U+1F1FF) right after another (a run of flags is one
cluster). A cluster is a word character if its first character is one;
"at most 8 characters" counts clusters.

Apostrophes are non-word characters: they come off at the edges (rules 3 to
5) but never cut a word inside (rule 7), so "rock'n'roll" stays one token.

Usage as a script: python glove_tokenize.py WORDS_TXT [SENTENCE...]
(reads sentences from stdin when none are given; prints tokens, unknown ones
marked with a leading '?').
"""

import re
import sys
import unicodedata
from dataclasses import dataclass

# Unicode White_Space: what Rust's char::is_whitespace accepts. Python's
# str.isspace() also accepts U+001C..U+001F, which Rust does not.
WHITESPACE = frozenset(
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
CONTRACTIONS = ("n't", "'re", "'ve", "'ll", "'s", "'d", "'m")
TITLES = ("mr", "mrs", "ms", "dr", "prof", "st", "mt", "ft", "jr", "sr", "gen", "gov", "sen", "rep", "rev", "lt", "col",
          "capt", "sgt", "hon", "vs")
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
APOSTROPHES = ("'", "\u2019")
MAX_RUN = 8
NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*\Z")


@dataclass(frozen=True)
class Token:
    text: str  # normalized: lowercase, ’ written as '
    start: int  # byte offsets into the UTF-8 sentence
    end: int
    known: bool


def is_word_char(c):
    """A Unicode letter or number (Rust: char::is_alphanumeric).

    Python's isalnum() agrees with Rust on letters (L*) and numbers (N*); it
    differs on the few marks and symbols that are Unicode Alphabetic without
    being letters (Other_Alphabetic: e.g. Indic vowel signs, circled letters
    like Ⓐ), which Rust counts as word characters. check_characters() below
    refuses text holding them.
    """
    return c.isalnum()


ZWJ = "\u200d"
ZWSP = "\u200b"
INVISIBLE = ((0x00AD, 0x00AD), (0x061C, 0x061C), (0x200C, 0x200C), (0x200E, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x2069), (0xFEFF, 0xFEFF))
REGIONAL_INDICATORS = (0x1F1E6, 0x1F1FF)
EXTENDERS = INVISIBLE + (
    (0x0300, 0x036F), (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F),
    (0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x1F3FB, 0x1F3FF), (0xE0020, 0xE007F), (0x200D, 0x200D),
)


def is_extender(c):
    return unicodedata.category(c) in MARKS or any(lo <= ord(c) <= hi for lo, hi in EXTENDERS)


def is_invisible(c):
    return any(lo <= ord(c) <= hi for lo, hi in INVISIBLE)


MARKS = ("Mn", "Mc", "Me")


def is_regional_indicator(c):
    return REGIONAL_INDICATORS[0] <= ord(c) <= REGIONAL_INDICATORS[1]


def joins(prev, c):
    """Whether no cut may fall between prev and c."""
    return prev == ZWJ or is_extender(c) or (is_regional_indicator(prev) and is_regional_indicator(c))


def clusters(piece):
    """The (start, end) char offsets of the clusters of piece, in order."""
    starts = [i for i, c in enumerate(piece) if i == 0 or not joins(piece[i - 1], c)]
    return list(zip(starts, starts[1:] + [len(piece)]))


def fold(c):
    """A ligature or full-width form as its letters (rule 2), else c."""
    if 0xFF01 <= ord(c) <= 0xFF5E:
        return chr(ord(c) - 0xFEE0)
    return LIGATURES.get(c, c)


def normalize(piece):
    """Lowercase (the whole piece, so a word-final Σ is ς), invisible
    characters and joiners beside ASCII left out, ligatures and full-width
    forms folded, ’ → ', then NFC (every GloVe 6B word is NFC)."""
    lower = piece.lower()
    kept = []
    for i, c in enumerate(lower):
        if is_invisible(c):
            continue
        if c == ZWJ and 0 < i < len(lower) - 1 and (lower[i - 1].isascii() or lower[i + 1].isascii()):
            continue
        kept.append(fold(c))
    return unicodedata.normalize("NFC", "".join(kept).replace("\u2019", "'"))


def ends_sentence(chunk, following):
    """Whether chunk ends a sentence (rule 2): the text's last, or followed by
    a chunk whose first word character is a capital, and not a title."""
    if following is None:
        return True
    first = next((c for c in following if is_word_char(c)), None)
    start = next((i for i, c in enumerate(chunk) if is_word_char(c)), len(chunk))
    stem = chunk[start:].rstrip(".")
    # A capital: a letter that lowercases to something else (as the Rust code asks).
    return first is not None and first.lower() != first and stem.lower() not in TITLES


def has_final_period(piece):
    """Whether piece ends in "." after a word character, with no other "."."""
    stem = piece[:-1]
    return piece.endswith(".") and "." not in stem and bool(stem) and is_word_char(stem[clusters(stem)[-1][0]])


# Marks that are not Unicode Alphabetic: combining diacritics (but U+0345),
# combining marks for symbols (keycap U+20E3), half marks, variation selectors.
NON_ALPHABETIC_MARKS = ((0x0300, 0x0344), (0x0346, 0x0362), (0x20D0, 0x20FF), (0xFE00, 0xFE0F), (0xFE20, 0xFE2F), (0xE0100, 0xE01EF))


def check_characters(text):
    """Raises ValueError for a character on which this module may disagree
    with the Rust tokenizer.

    Compared with Rust 1.95 over every code point, Python 3.11's isalnum()
    says False where Rust's is_alphanumeric() says True for: 1,312 combining
    marks (Mn, Mc) that are Other_Alphabetic (Indic vowel signs, Hebrew and
    Arabic points, U+0345, U+0363..U+036F), 130 circled or squared Latin
    letters (So, e.g. Ⓐ), and letters added after Unicode 14 (Python's
    unicodedata is 14.0). Never the other way. Python's isspace() also
    accepts U+001C..U+001F, which Rust's is_whitespace() does not (this
    module uses Rust's set). Lowercase agrees on every code point assigned in
    Unicode 14 (İ → i̇ in both; a final Σ → ς in both: str.lower and Rust's
    str::to_lowercase apply the final-sigma rule).
    """
    import unicodedata

    for i, c in enumerate(text):
        cat = unicodedata.category(c)
        where = f"{c!r} (U+{ord(c):04X}, {cat})"
        if cat == "Cn":
            raise ValueError(f"{where}: unassigned in Python's Unicode {unicodedata.unidata_version}")
        # A mark joins the character before it, whose class decides; only a
        # mark that starts a piece is classed by itself.
        first = i == 0 or text[i - 1] in WHITESPACE or text[i - 1] == ZWSP
        if cat in MARKS and first and not any(lo <= ord(c) <= hi for lo, hi in NON_ALPHABETIC_MARKS):
            raise ValueError(f"{where}: a mark that may be Unicode Alphabetic (a word character in Rust)")
        if cat == "So" and "LATIN" in unicodedata.name(c, ""):
            raise ValueError(f"{where}: a symbol that may be Unicode Alphabetic (a word character in Rust)")
        if c.isspace() and c not in WHITESPACE:
            raise ValueError(f"{where}: whitespace for Python, not for Rust")


class Tokenizer:
    def __init__(self, vocabulary):
        self.vocabulary = vocabulary

    def known(self, piece):
        return normalize(piece) in self.vocabulary

    def tokenize(self, text):
        """Returns the list of Token for `text`."""
        chunks = []  # (start char, end char)
        start = None
        for i, c in enumerate(text):
            if c in WHITESPACE or c == ZWSP or (start is None and is_invisible(c)):
                if start is not None:
                    chunks.append((start, i))
                    start = None
            elif start is None:
                start = i
        if start is not None:
            chunks.append((start, len(text)))
        out = []  # (start char, end char)
        for k, (a, b) in enumerate(chunks):
            following = text[chunks[k + 1][0]:chunks[k + 1][1]] if k + 1 < len(chunks) else None
            self._piece(text, a, b, out, ends_sentence(text[a:b], following))
        # char offsets → byte offsets
        byte_at = [0]
        for c in text:
            byte_at.append(byte_at[-1] + len(c.encode("utf-8")))
        result = []
        for a, b in out:
            word = normalize(text[a:b])
            result.append(Token(word, byte_at[a], byte_at[b], word in self.vocabulary))
        return result

    def _longest_prefix(self, run):
        """Length of the longest known prefix of run (at most MAX_RUN clusters), at least one cluster."""
        ends = [end for _, end in clusters(run)[:MAX_RUN]]
        return next((end for end in reversed(ends[1:]) if self.known(run[:end])), ends[0])

    def _longest_suffix(self, run):
        starts = [start for start, _ in clusters(run)[-MAX_RUN:]]
        return next((len(run) - s for s in starts[:-1] if self.known(run[s:])), len(run) - starts[-1])

    def _piece(self, text, a, b, out, at_end=False):
        """Tokenizes text[a:b] (char offsets), appending (start, end) pairs to
        out; at_end: the piece is what is left of a chunk that ends a sentence."""
        if a >= b:
            return
        piece = text[a:b]
        if self.known(piece) and not (at_end and has_final_period(piece)):  # rule 2
            out.append((a, b))
            return
        n = len(piece)
        words = [(s, e) for s, e in clusters(piece) if is_word_char(piece[s])]
        lead = words[0][0] if words else n
        if 0 < lead < n:  # rule 3
            cut = a + self._longest_prefix(piece[:lead])
            out.append((a, cut))
            self._piece(text, cut, b, out, at_end)
            return
        trail = n - words[-1][1] if words else n
        if 0 < trail < n:  # rule 4
            cut = b - self._longest_suffix(piece[n - trail:])
            self._piece(text, a, cut, out, at_end)
            out.append((cut, b))
            return
        if lead == n:  # rule 5: all non-word characters
            while a < b:
                cut = a + self._longest_prefix(text[a:b])
                out.append((a, cut))
                a = cut
            return
        lower = normalize(piece)
        for suffix in CONTRACTIONS:  # rule 6
            if len(lower) > len(suffix) and lower.endswith(suffix) and n > len(suffix):
                cut = b - len(suffix)
                self._piece(text, a, cut, out)
                out.append((cut, b))
                return
        inner = [(s, e) for s, e in clusters(piece) if not is_word_char(piece[s]) and piece[s] not in APOSTROPHES]
        if inner and not NUMBER.match(piece):  # rule 7
            at = a
            for s, e in inner:
                self._piece(text, at, a + s, out)
                out.append((a + s, a + e))
                at = a + e
            self._piece(text, at, b, out)
            return
        out.append((a, b))  # rule 8


def load_vocabulary(words_path):
    with open(words_path, encoding="utf-8") as f:
        words = f.read().split("\n")
    if words and words[-1] == "":
        words.pop()
    return words


def main():
    vocabulary = frozenset(load_vocabulary(sys.argv[1]))
    tokenizer = Tokenizer(vocabulary)
    sentences = sys.argv[2:] or [line.rstrip("\n") for line in sys.stdin]
    for sentence in sentences:
        tokens = tokenizer.tokenize(sentence)
        print(" ".join(t.text if t.known else "?" + t.text for t in tokens))


if __name__ == "__main__":
    main()
