// Text from links, attributes and the user, made safe to encode and show.
// Pure functions, no DOM.

/** `text` with every lone surrogate replaced by U+FFFD: safe for encodeURIComponent and the DOM. */
export function wellFormed(text) {
  const s = String(text ?? '');
  if (typeof s.toWellFormed === 'function') return s.toWellFormed();
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** At most `max` UTF-16 units of `text`, never cutting a character in two. */
export function cut(text, max) {
  const s = wellFormed(text);
  if (s.length <= max) return s;
  const end = /[\uD800-\uDBFF]/.test(s[max - 1]) ? max - 1 : max;
  return s.slice(0, end);
}

/** `text` as a message quotes it: its first `max` UTF-16 units (see `cut`), and "…" when it had more. */
export function excerpt(text, max) {
  const s = wellFormed(text);
  return s.length > max ? `${cut(s, max)}…` : s;
}

/** A URI component of any string (lone surrogates repaired first): never throws. */
export function encode(text) {
  return encodeURIComponent(wellFormed(text));
}

/**
 * A whole number with commas between thousands, as en-US writes it
 * ("400,000"). Not toLocaleString: its first call in a page loads the
 * locale's number formats, 45 ms on the first draw.
 */
export function grouped(n) {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A character the tokenizer cuts at (Rust's `char::is_whitespace`). */
const WHITESPACE = /^\p{White_Space}$/u;

/**
 * The UTF-16 index where the chunk of `text` that holds index `at` ends: the
 * next white space, where the tokenizer cuts, or the end of the text (`at`
 * itself when it is white space or the end).
 */
export function chunkEnd(text, at) {
  let end = at;
  while (end < text.length && !WHITESPACE.test(text[end])) end++;
  return end;
}

/**
 * `text` cut to at most `max` UTF-16 units after its last whole chunk (inside
 * one only when the first chunk alone is longer), without trailing space.
 */
export function wholeChunks(text, max) {
  const kept = cut(text, max);
  let end = kept.length;
  if (end < text.length && !WHITESPACE.test(text[end])) {
    while (end > 0 && !WHITESPACE.test(kept[end - 1])) end--;
  }
  return end > 0 ? kept.slice(0, end).trimEnd() : kept;
}

/** The UTF-16 index where `text`'s first `max` whitespace-separated chunks end, or -1 when it has no more. */
export function chunkCut(text, max) {
  const chunks = /\S+/g;
  let end = -1;
  for (let count = 0; chunks.exec(text); count++) {
    if (count === max) return end;
    end = chunks.lastIndex;
  }
  return -1;
}

/**
 * The page's first cut of a long text, made before any of its shards is
 * fetched (-1: none): after twice as many whitespace-separated chunks as
 * `maxTokens`. The exact cut, after its last known word that fits, comes
 * once its shards are in.
 */
export function roughCut(text, maxTokens) {
  return chunkCut(text, 2 * maxTokens);
}
