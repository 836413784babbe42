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
 * A weight with 4 decimals, a tie rounded to even as the CLI (Rust), NumPy
 * and PyTorch print it: 1/32 is 0.0312, where toFixed gives 0.0313. A
 * float32 weight times 10⁴ is exact in a double (24 + 14 bits), so a tie is
 * seen exactly.
 */
export function weight(w) {
  const scaled = w * 1e4;
  const below = Math.floor(scaled);
  return scaled - below === 0.5 && below % 2 === 0 ? (below / 1e4).toFixed(4) : w.toFixed(4);
}

/**
 * How a score s came from q·k, for a learner: 'scaled' (÷√d, and ÷T), '÷ T'
 * with scaling off, or 'not scaled' when s is q·k itself.
 */
export function scoring({ scale, temperature }) {
  return scale ? 'scaled' : temperature !== 1 ? '÷ T' : 'not scaled';
}

/**
 * A whole number with commas between thousands, as en-US writes it
 * ("400,000"). Not toLocaleString: its first call in a page loads the
 * locale's number formats, 45 ms on the first draw.
 */
export function grouped(n) {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A size in megabytes, one decimal: "21.9 MB" (the model's downloads). */
export function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** A count and its noun, singular for one: "1 dimension", "4,000 words". */
export function counted(n, noun) {
  return `${grouped(n)} ${noun}${n === 1 ? '' : 's'}`;
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

/**
 * Characters the core's messages write as escapes (crates/attention-core
 * error.rs `hidden`): controls, line and paragraph separators, and format
 * characters that take no space (soft hyphen, zero-width spaces and
 * joiners, direction marks, embeddings, overrides and isolates, invisible
 * operators, the deprecated format characters, the byte-order mark,
 * interlinear annotation marks, musical format controls, tags).
 */
const HIDDEN = /^[\p{Cc}\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u{1D173}-\u{1D17A}\u{E0001}\u{E0020}-\u{E007F}]$/u;

/** A tag character: drawn only in a flag's tag sequence (🏴 + tags + U+E007F, England's flag). */
const TAG = /^[\u{E0020}-\u{E007F}]$/u;

/** A character drawn as itself beside a joiner: not ASCII, not hidden. */
const shownBeside = (c) => c !== undefined && c > '\u007F' && !HIDDEN.test(c);

/**
 * `text` with its control and invisible characters written as escapes
 * (`\u{202e}`), as the core's messages quote a word: a raw override would
 * turn the rest of the message around, and a zero-width space would be
 * quoted as ''. A joiner between two non-ASCII characters stays, as part of
 * an emoji (👩‍💻) or of a word of a script that uses it.
 */
export function escapeHidden(text) {
  const chars = [...wellFormed(text)];
  let inFlag = false; // after 🏴 and the tags kept after it
  return chars.map((c, i) => {
    const flagTag = inFlag && TAG.test(c);
    inFlag = (c === '\u{1F3F4}' || flagTag) && c !== '\u{E007F}';
    if (!HIDDEN.test(c) || flagTag) return c;
    const joins = (c === '\u200C' || c === '\u200D') && shownBeside(chars[i - 1]) && shownBeside(chars[i + 1]);
    return joins ? c : `\\u{${c.codePointAt(0).toString(16)}}`;
  }).join('');
}

/**
 * Characters that can reorder the text around them in a left-to-right line:
 * right-to-left letters (Hebrew, Arabic and the other scripts of
 * U+0590–U+08FF, their presentation forms, and those past U+10800), and
 * direction marks and controls.
 */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** A digit before any letter: after a right-to-left word it would join that word's run ("في 3"). */
const LEADING_DIGIT = /^\P{L}*\p{N}/u;

/**
 * `text` as one unit of direction inside a sentence: wrapped in U+2068 FIRST
 * STRONG ISOLATE … U+2069 POP DIRECTIONAL ISOLATE when it holds anything that
 * could reorder it with its neighbours ("'في' → 'של'" would otherwise read
 * right to left, key first). Plain left-to-right text is returned as it is,
 * so the words a screen reader hears and a test reads stay unchanged. Isolate
 * controls inside `text` are balanced first, so that nothing in it can close
 * the isolate early or leave it open.
 */
export function isolate(text) {
  const s = wellFormed(text);
  if (!RIGHT_TO_LEFT.test(s) && !LEADING_DIGIT.test(s)) return s;
  let open = 0;
  let inner = '';
  for (const c of s) {
    if (c === '\u2069') {
      if (open === 0) continue; // a pop that closes nothing inside `text`: dropped
      open--;
    } else if (c >= '\u2066' && c <= '\u2068') {
      open++;
    }
    inner += c;
  }
  return `\u2068${inner}${'\u2069'.repeat(open)}\u2069`;
}

/**
 * A word as the page's messages quote it: its first `max` UTF-16 units (see
 * `excerpt`; 40, as the core's messages quote 40 characters), invisible
 * characters escaped (`escapeHidden`), isolated (`isolate`: a right-to-left
 * word keeps its place beside the numbers) and in single quotes.
 */
export function quoted(word, max = 40) {
  // Most words: a letter first, then printable ASCII, short enough (nothing to escape, shorten or isolate).
  if (word.length <= max && /^[A-Za-z][\x20-\x7E]*$/.test(word)) return `'${word}'`;
  return `'${isolate(escapeHidden(excerpt(word, max)))}'`;
}

/** The form of `text` the token find box compares: accents dropped (NFD, then no marks), lowercase, ’ read as '. */
export function findKey(text) {
  return wellFormed(text).normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\u2019/g, "'");
}

let graphemeSegmenter;
/**
 * Finds where the characters a reader sees begin and end (null where
 * Intl.Segmenter is missing). Made when first needed: making one loads the
 * browser's break rules, 10-20 ms in a fresh tab here, which a first load
 * would pay before any of its downloads starts.
 */
function graphemes() {
  graphemeSegmenter ??= typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  return graphemeSegmenter;
}

/**
 * `text` in lines that each pass `fits(line)` (a width check): broken at its
 * ' · ' separators where it can, else between words, and a word too long for
 * a line between characters (never inside an emoji). At most `most` lines:
 * the last one kept ends in '…'.
 */
export function wrapLines(text, fits, most = Infinity) {
  const lines = [];
  let line = '';
  const put = (piece, joiner) => {
    if (line && fits(line + joiner + piece)) line += joiner + piece;
    else if (!line && fits(piece)) line = piece;
    else {
      if (line) lines.push(line);
      line = '';
      // A piece wider than a line: as many characters as fit, then the rest.
      const segmenter = graphemes();
      const chars = segmenter ? Array.from(segmenter.segment(piece), (g) => g.segment) : Array.from(piece);
      for (const char of chars) {
        if (line && !fits(line + char)) {
          lines.push(line);
          line = '';
        }
        line += char;
      }
    }
  };
  for (const part of wellFormed(text).split(' · ')) {
    if (fits(part) || (line && fits(`${line} · ${part}`))) put(part, ' · ');
    else part.split(' ').forEach((word, k) => put(word, k === 0 ? ' · ' : ' '));
  }
  if (line) lines.push(line);
  if (lines.length <= most) return lines;
  let last = lines[most - 1];
  while (last && !fits(`${last}…`)) last = clip(last, last.length - 1);
  return [...lines.slice(0, most - 1), `${last.trimEnd()}…`];
}

/**
 * At most `max` UTF-16 units of a user's `text`, as a title or a snippet
 * shows it: `cut` (never half a code point), then back to the start
 * of the character a reader sees when the cut falls inside one, so that an
 * emoji keeps its skin tone and joined parts, and a letter its accents, or
 * each is left out whole (cut as `cut` does when that one character is
 * longer than `max`).
 */
export function clip(text, max) {
  const whole = wellFormed(text);
  const kept = cut(whole, max);
  const segmenter = graphemes();
  if (kept.length === whole.length || !segmenter) return kept;
  const start = segmenter.segment(whole).containing(kept.length).index;
  return start > 0 ? whole.slice(0, start) : kept;
}
