// The token strip: one chip per token of the sentence, as the user typed it.
// Known tokens are buttons that focus their row; unknown ones are struck
// through and explained; tokens whose vectors are still loading (or could
// not be loaded) say so. One Tab stop for the whole strip, arrow keys inside
// it. Long texts collapse to the first chips and the focused one, with a
// find box that focuses a word.

import { attr, el, keepingFocus, put, putText, setChildren, untilTypingPauses } from '../dom.js';
import { counted, findKey, grouped, quoted } from '../text.js';

/** Chips shown while the strip is collapsed. */
const COLLAPSED = 80;
/**
 * On a phone: 80 chips took 390–530 px of a 568–915 px screen and pushed a
 * shared link's heatmap below it; 24 take four or five lines.
 */
const COLLAPSED_NARROW = 24;
const NARROW = '(max-width: 600px)';
/** How long words must have been loading before the note names them (their chips say so at once). */
const LOADING_NOTE_MS = 500;

export function mountTokens(ctx) {
  const strip = document.getElementById('tokens');
  return strip ? new TokenStrip(ctx, strip) : { update() {} };
}

class TokenStrip {
  constructor(ctx, strip) {
    this.ctx = ctx;
    this.store = ctx.store;
    this.strip = strip;
    this.note = document.getElementById('unknown-note');
    this.find = document.getElementById('token-find');
    this.findStatus = document.getElementById('token-find-status');
    this.expanded = false;
    this.state = null;
    this.analysis = null;
    this.narrow = matchMedia(NARROW);
    this.narrow.addEventListener('change', () => this.draw());
    strip.setAttribute('role', 'toolbar');
    strip.setAttribute('aria-label', 'Tokens: the arrow keys move between them, Enter or a click focuses one');
    this.more = el('button', '', 'small token-more');
    this.more.type = 'button';
    this.more.addEventListener('click', () => {
      this.expanded = !this.expanded;
      this.draw();
    });
    strip.addEventListener('click', (event) => {
      const chip = event.target.closest('button.token');
      if (chip) this.store.update({ focus: Number(chip.dataset.row), cell: null }, 'push');
    });
    strip.addEventListener('keydown', (event) => this.onKey(event));
    this.find?.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      this.findNext(event.shiftKey ? -1 : 1);
    });
    this.find?.addEventListener('input', () => this.findNext(0));
    // The note's "Try again": the failed shards are asked for again.
    this.retry = el('button', 'Try again', 'small');
    this.retry.type = 'button';
    this.retry.id = 'vectors-retry';
    this.retry.addEventListener('click', () => {
      this.ctx.engine?.vectors.retry();
      this.ctx.refresh();
    });
    // Back online, the shards that failed offline are asked for again without a click.
    window.addEventListener('online', () => {
      if (!this.ctx.engine?.vectors.anyFailed) return;
      this.ctx.engine.vectors.retry();
      this.ctx.refresh();
    });
    this.noteShown = null; // the texts the note shows
    this.noteSince = null; // since when the note has had something to say
    this.noteTimer = 0; // shows it once it may (writeNote)
    this.engineFailed = false; // the engine could not load (failed)
  }

  update(state, analysis) {
    this.state = state;
    // Until the engine is in, the text's words wait as chips: the strip has
    // its height from the first paint, rather than growing by a line or more
    // (and moving the page) once they are tokenized.
    this.analysis = analysis.loading && !this.engineFailed ? { ...analysis, tokens: roughTokens(state.sentence) } : analysis;
    this.draw();
    this.writeNote();
  }

  /** The engine could not load: no chip waits for it (the status says why). */
  failed() {
    this.engineFailed = true;
    if (this.state) this.update(this.state, { pending: true, tokens: [], n: 0, loading: true });
  }

  /**
   * The note under the strip; unchanged (a focus click, a shard of another
   * text arriving), it stays as it is. Its line, once shown, moves everything
   * below it down: a hidden note shows only once the keys typed pause, and
   * for words loading alone, once they have been loading LOADING_NOTE_MS. A
   * word being typed is not loading (its shard is fetched once the keys
   * pause), and one that arrives sooner never makes the page jump.
   */
  writeNote() {
    const { note } = this;
    if (!note) return;
    const { unknown, loading, failure, hidden, waiting } = noteOf(this.analysis.loading ? {} : this.analysis, this.ctx.engine?.vectors);
    const text = [unknown, loading].filter(Boolean).join(' ');
    const shown = `${text}\u0000${failure}`;
    if (this.noteShown !== shown) {
      this.noteShown = shown;
      note.replaceChildren(text, ...(failure ? [failure, this.retry] : []));
    }
    note.classList.toggle('loading', waiting);
    clearTimeout(this.noteTimer);
    if (hidden) {
      this.noteSince = null;
      put(note, 'hidden', true);
      return;
    }
    this.noteSince ??= performance.now();
    const loadingLeft = waiting ? this.noteSince + LOADING_NOTE_MS - performance.now() : 0;
    const wait = Math.max(untilTypingPauses(this.ctx), loadingLeft);
    if (wait > 0 && note.hidden) this.noteTimer = setTimeout(() => this.writeNote(), wait);
    else put(note, 'hidden', false);
  }

  /**
   * Arrow keys, Home and End move between the known tokens, focusing each
   * one's row: every token, not only the chips shown while the strip is
   * collapsed (the chip of the focused row is drawn after the first ones).
   */
  onKey(event) {
    const chip = document.activeElement;
    if (!chip?.matches('button.token') || !this.strip.contains(chip)) return;
    const rows = (this.analysis?.tokens ?? []).filter((t) => t.row != null).map((t) => t.row);
    const at = rows.indexOf(Number(chip.dataset.row));
    if (at < 0) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    let next = null;
    if (step) next = rows[Math.min(rows.length - 1, Math.max(0, at + step))];
    else if (event.key === 'Home') next = rows[0];
    else if (event.key === 'End') next = rows[rows.length - 1];
    if (next === null || next === undefined) return;
    event.preventDefault();
    this.store.update({ focus: next, cell: null }, 'replace');
    this.strip.querySelector(`button.token[data-row="${next}"]`)?.focus();
  }

  /**
   * Focuses the next known token whose text contains the query (direction 0:
   * the first from the current focus). Both are compared as a reader expects
   * (`findKey`): "cafe" finds "café", "n’t" finds "n't", case aside.
   */
  findNext(direction) {
    const query = findKey(this.find.value.trim());
    if (!this.analysis?.tokens || !query) {
      put(this.findStatus, 'textContent', '');
      return;
    }
    const keys = this.findKeys();
    const rows = this.analysis.tokens.filter((t, i) => t.row != null && keys[i].includes(query)).map((t) => t.row);
    if (rows.length === 0) {
      // A chip the query matches may be a token without a row: say why, not that there is none.
      const left = this.analysis.tokens.find((t, i) => t.row == null && keys[i].includes(query));
      put(this.findStatus, 'textContent', left ? rowless(left, this.ctx.engine?.vectors.statusOf(left.text)) : `No token contains ${quoted(this.find.value.trim())}.`);
      return;
    }
    const focus = this.store.get().focus ?? -1;
    const after = direction < 0 ? [...rows].reverse().find((r) => r < focus) : rows.find((r) => (direction === 0 ? r >= focus : r > focus));
    const row = after ?? (direction < 0 ? rows[rows.length - 1] : rows[0]);
    put(this.findStatus, 'textContent', `${rows.indexOf(row) + 1} of ${rows.length}`);
    // One history entry for a run of typing (and Enter) in the box, as for the sentence.
    if (row !== this.store.get().focus) this.store.update({ focus: row, cell: null }, 'push', 'find');
  }

  /** The find key of each token of the analysis, made once per analysis (a keystroke in the box at 1,024 tokens makes none). */
  findKeys() {
    if (this.keyed?.analysis !== this.analysis) this.keyed = { analysis: this.analysis, keys: this.analysis.tokens.map((t) => findKey(t.text)) };
    return this.keyed.keys;
  }

  /**
   * Draws the chips; the keyboard focus stays where it was (the "Show fewer"
   * button, a chip), or, when its chip goes, moves to the strip's Tab stop.
   */
  draw() {
    if (!this.state || !this.analysis) return;
    keepingFocus(this.strip, () => this.drawChips(), () => this.strip.querySelector('[tabindex="0"]'));
  }

  drawChips() {
    const { state, analysis, strip } = this;
    const tokens = analysis.tokens ?? [];
    const focusIndex = tokens.findIndex((t) => t.row != null && t.row === state.focus);
    const collapsed = this.narrow.matches ? COLLAPSED_NARROW : COLLAPSED;
    const limit = this.expanded || tokens.length <= collapsed ? tokens.length : collapsed;
    const indices = [...Array(limit).keys()];
    if (focusIndex >= limit) indices.push(focusIndex);
    // A focus change alone (a click at 1,024 tokens) marks the chips again and
    // rewrites no text: the same analysis, text and chips, and, while a chip
    // waits for its vector, the same shards in, loading and failed (the
    // nearest words' shards, which arrive after a click, change no chip).
    // Only the focused chip past the first `limit` is written anew.
    const vectors = this.ctx.engine?.vectors;
    const waiting = vectors && tokens.some((t) => t.pending);
    const drawn = { analysis, sentence: state.sentence, limit, vectors: waiting ? `${vectors.version} ${vectors.failed.size} ${vectors.loading.size}` : null };
    const same = this.drawn && Object.keys(drawn).every((k) => drawn[k] === this.drawn[k]);
    this.drawn = drawn;
    const chips = indices.map((i, k) => (same && k < limit ? this.markFocus(strip.children[k], tokens[i]) : this.chipFor(strip.children[k], tokens[i])));
    // The chip that takes the Tab stop: the focused one, else the first button.
    const tabStop = chips.find((c) => c.classList.contains('focused')) ?? chips.find((c) => c.tagName === 'BUTTON');
    for (const chip of chips) if (chip.tagName === 'BUTTON') attr(chip, 'tabindex', chip === tabStop ? 0 : -1);
    // Collapsed, a "…" stands where tokens are left out: before the focused
    // chip drawn after the first ones, and at the end.
    const children = [];
    let expected = 0;
    chips.forEach((chip, k) => {
      if (indices[k] > expected) children.push(this.gap(0, indices[k] - expected));
      children.push(chip);
      expected = indices[k] + 1;
    });
    if (expected < tokens.length) children.push(this.gap(1, tokens.length - expected));
    if (tokens.length > collapsed) {
      put(this.more, 'textContent', this.expanded ? 'Show fewer' : `Show all ${grouped(tokens.length)} tokens`);
      attr(this.more, 'aria-expanded', String(this.expanded));
      children.push(this.more);
    }
    // Only the chips out of place move: the focused chip of a long text, the
    // 81st, changes with the focus; the 80 before it stay.
    setChildren(strip, children);
    attr(strip, 'data-count', tokens.length);
  }

  /** Gap marker `k` (0: before the focused chip, 1: at the end) for `count` tokens left out of the collapsed strip. */
  gap(k, count) {
    this.gaps ??= [0, 1].map(() => {
      const span = el('span', '…', 'token-gap');
      span.setAttribute('aria-hidden', 'true');
      return span;
    });
    put(this.gaps[k], 'title', `${counted(count, 'more token')} here: show all, or find a word`);
    return this.gaps[k];
  }

  /** Marks chip `chip` of token `t` focused or not; returns it. */
  markFocus(chip, t) {
    if (chip.tagName === 'BUTTON') {
      const focused = t.row === this.state.focus;
      chip.classList.toggle('focused', focused);
      attr(chip, 'aria-pressed', String(focused));
    }
    return chip;
  }

  /**
   * The chip of token `t`: `old` changed in place when it is the same kind
   * of element (a button for a known word, else a span), so that a new
   * sentence, or a word typed before the others, rewrites the chips' text
   * and rows rather than making new ones.
   */
  chipFor(old, t) {
    const { state } = this;
    const kind = kindOf(t);
    const tag = kind === 'known' ? 'BUTTON' : 'SPAN';
    let chip = old;
    if (chip?.tagName !== tag || !chip.classList.contains('token')) {
      chip = el(tag.toLowerCase());
      if (kind === 'known') chip.type = 'button';
    }
    putText(chip, visible(state.sentence.slice(t.start, t.end)));
    const focused = kind === 'known' && t.row === state.focus;
    let title = '';
    let failed = false;
    if (kind === 'known') {
      put(chip.dataset, 'row', String(t.row));
      title = `Focus ${quoted(t.text)} (word ${t.row + 1})`;
    } else if (kind === 'unknown') {
      title = `${quoted(t.text)} is not in the vocabulary, so it has no vector and is left out of the attention.`;
    } else if (kind === 'pending') {
      const status = this.ctx.engine?.vectors.statusOf(t.text);
      failed = Boolean(status && status !== 'loading');
      const word = quoted(t.text);
      title = failed ? `${word}: its vector could not be loaded (${status})` : `${word}: loading its vector…`;
    }
    put(chip, 'className', `token ${kind}${failed ? ' failed' : ''}${focused ? ' focused' : ''}`);
    put(chip, 'title', title);
    attr(chip, 'aria-pressed', kind === 'known' ? String(focused) : null);
    return chip;
  }
}

/**
 * The words and signs of `sentence` about as the tokenizer cuts them, each
 * pending, for the chips shown before the engine is in: a word with its
 * apostrophes ("didn't", which the tokenizer cuts in two), or one sign.
 */
function roughTokens(sentence) {
  return Array.from(sentence.matchAll(/[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*|[^\s\p{L}\p{M}\p{N}]/gu), (m) => ({
    text: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length, known: false, pending: true, row: null,
  }));
}

/** What token `t` is to the strip: 'known' (a row), 'pending' (its vector on its way, or failed), 'unknown', or 'waiting' (known, no row: an analysis that failed). */
function kindOf(t) {
  return t.known ? (t.row != null ? 'known' : 'waiting') : t.pending ? 'pending' : 'unknown';
}

/** Why token `t` (found by the find box) has no row, as its chip's title says it; `status` is its shard's. */
function rowless(t, status) {
  const word = quoted(t.text);
  const kind = kindOf(t);
  if (kind === 'unknown') return `${word} is not in the vocabulary: it has no vector, so no row to focus.`;
  if (kind === 'pending' && status && status !== 'loading') return `${word} has no row: its vector could not be loaded (${status}).`;
  return `${word} has no row yet: its vector is still loading.`;
}

/**
 * Characters a chip never draws as they are: controls, format characters
 * (soft hyphen, direction marks and overrides, zero-width spaces), white
 * space and the other default-ignorable ones (Hangul fillers), and the blank
 * braille pattern. Each would make a blank chip, or turn its text around.
 */
const UNDRAWN = /^[\p{Cc}\p{Cf}\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]$/u;
/** A format character (soft hyphen, direction marks and controls, joiners). */
const FORMAT = /^\p{Cf}$/u;
/** A combining mark (accents, variation selectors): drawn on the character before it. */
const MARK = /^\p{M}$/u;
/** Tag characters: after a flag they spell a region (🏴 + tags + U+E007F is the flag of Scotland). */
const TAG = /^[\u{E0020}-\u{E007F}]$/u;

/** The code point of `c` as a chip shows it: "U+202E". */
const codePoint = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * What a chip shows: the text as typed, with each character that would draw
 * nothing or reorder the chip written as its code point ("U+00AD"): a format
 * or control character, and a combining mark with nothing drawn before it
 * in the token (a lone accent, a lone variation selector). A joiner between
 * two drawn non-ASCII characters, a mark after a drawn character and the
 * tags of a flag stay: they are part of an emoji (👩‍💻, ❤️) or of a word.
 * Other format characters after a drawn one (a soft hyphen, a direction
 * mark: the tokenizer reads "king" + U+00AD + "dom" as "kingdom") are left
 * out, as the sentence box draws nothing for them either.
 */
function visible(original) {
  if (/^[\x21-\x7E]*$/.test(original)) return original; // printable ASCII: every character drawn
  const chars = [...original];
  const shown = []; // drawn characters and code points, in order
  let base = false; // whether the last piece shown is a drawn character, which a mark may sit on
  chars.forEach((c, i) => {
    const next = chars[i + 1];
    const joins = (c === '\u200C' || c === '\u200D') && base && chars[i - 1] > '\u007F' && next > '\u007F' && !UNDRAWN.test(next);
    const drawn = MARK.test(c) ? base : !UNDRAWN.test(c) || joins || (TAG.test(c) && base);
    if (drawn) {
      shown.push(base ? shown.pop() + c : c);
      base = true;
    } else if (base && FORMAT.test(c)) {
      // Inside a word: nothing drawn, nothing shown.
    } else {
      shown.push(codePoint(c));
      base = false;
    }
  });
  // Code points stand apart from each other and from the letters around them.
  return shown.join(' ');
}

/** Whether the vector of `word`, a pending token's, is on its way (not failed: a failed shard's tokens are pending too). */
export function stillLoading(word, vectors) {
  return (vectors?.statusOf(word) ?? 'loading') === 'loading';
}

/**
 * What the note under the strip says, in parts: `unknown` words explained,
 * `loading` words, and `failure`d ones (followed by the retry button);
 * `waiting`: only loading words, no warning. The note is not a live region:
 * the status (status.js) says `unknown` and `failure` once the analysis is
 * in, and `loading` only shows, for it changes with every key typed.
 */
export function noteOf(analysis, vectors) {
  const tokens = analysis.tokens ?? [];
  const unique = (list) => [...new Set(list)];
  const quote = (words) => words.slice(0, 8).map((w) => quoted(w)).join(', ') + (words.length > 8 ? ', …' : '');
  const unknownTokens = tokens.filter((t) => !t.known && !t.pending).map((t) => t.text);
  const unknown = unique(unknownTokens);
  // A word left out more than once says so: the status counts tokens ("2 left out").
  const times = (w) => unknownTokens.reduce((count, t) => count + (t === w), 0);
  const unknownList = unknown.slice(0, 8).map((w) => quoted(w) + (times(w) > 1 ? ` (${times(w)} times)` : '')).join(', ') + (unknown.length > 8 ? ', …' : '');
  const pending = unique(tokens.filter((t) => t.pending).map((t) => t.text));
  const failed = pending.filter((w) => !stillLoading(w, vectors));
  const loading = pending.filter((w) => !failed.includes(w));
  const size = unknown.length && vectors ? grouped(vectors.manifest.words) : '';
  return {
    unknown: !unknown.length ? '' : vectors?.fallback
      ? `Not in the fallback vocabulary of ${size} words: ${unknownList}. This site runs on the small fallback, so rarer words are missing; the whole GloVe vocabulary (400,000 words) is built by scripts/build-data.`
      : `Not in the ${size}-word vocabulary: ${unknownList}. ${unknown.length === 1 ? 'It has' : 'They have'} no vector, so ${unknown.length === 1 ? 'it is' : 'they are'} left out of the attention (struck through above). Check the spelling or try a more common word.`,
    loading: loading.length ? `Loading the vectors of ${quote(loading)}…` : '',
    failure: failed.length ? ` The vectors of ${quote(failed)} could not be loaded (${vectors.statusOf(failed[0])}); they are left out. ` : '',
    hidden: !unknown.length && !pending.length,
    waiting: loading.length > 0 && !unknown.length && !failed.length,
  };
}
