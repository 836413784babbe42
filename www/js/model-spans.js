// Where a token of one tokenization lies in the other. The GloVe view counts
// in UTF-16 code units (JavaScript string indices); the model returns UTF-8
// byte offsets. Both are converted to UTF-16 spans `[start, end)` of the same
// sentence, then matched by overlap. Pure functions: no DOM here.

/** UTF-8 length of one code point (a lone surrogate is sent as U+FFFD: 3 bytes). */
function utf8Length(codePoint) {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * `map[b]` is the UTF-16 index of UTF-8 byte offset `b` of `sentence`, for
 * every `b` from 0 to the UTF-8 length (bytes inside a character map to its start).
 */
export function utf16Offsets(sentence) {
  const units = [];
  let unit = 0;
  for (const ch of sentence) {
    for (let k = utf8Length(ch.codePointAt(0)); k > 0; k--) units.push(unit);
    unit += ch.length;
  }
  units.push(unit);
  return Uint32Array.from(units);
}

/** The model's tokens with `start`/`end` in UTF-16 units added (empty spans stay empty). */
export function withUtf16Spans(sentence, tokens) {
  const map = utf16Offsets(sentence);
  const at = (byte) => map[Math.min(Math.max(0, byte), map.length - 1)];
  return tokens.map((t) => ({ ...t, start: at(t.span[0]), end: at(t.span[1]) }));
}

/** Length of the overlap of `[a.start, a.end)` and `[b.start, b.end)`. */
export function overlap(a, b) {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/**
 * The index in `candidates` (objects with start/end) that overlaps `span` the
 * most (the first of equals), or null when none does.
 */
export function bestMatch(span, candidates) {
  let best = null;
  let most = 0;
  candidates.forEach((c, k) => {
    const shared = overlap(span, c);
    if (shared > most) {
      most = shared;
      best = k;
    }
  });
  return best;
}

/**
 * The index in `candidates` of the first piece of the word `span`: the first
 * candidate that starts inside it (so "unbelievably" gives "un", not the
 * longer "##lie", and "n't" of "didn't" gives "'", not "didn"), else the one
 * that overlaps it the most (a word inside one candidate). Null when none
 * overlaps. The head search and the CLI's `attention heads` take a word's
 * first piece too.
 */
export function firstPiece(span, candidates) {
  const k = candidates.findIndex((c) => c.start >= span.start && c.start < span.end && overlap(span, c) > 0);
  return k >= 0 ? k : bestMatch(span, candidates);
}
