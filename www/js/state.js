// The page state and its URL form, the share format (docs/share-links.md). The state
// is exactly what a link holds; pure functions, no DOM here.
//
//   #s=<sentence>&self=1&causal=0&scale=1&t=1&focus=2
//
// - s: the sentence (percent-encoded UTF-8), at most MAX_SENTENCE_LENGTH UTF-16
//   units: a longer one is cut after its last whole word, and the cut noted.
// - self: 1 = a token may attend to itself (default 1).
// - causal: 1 = a token sees only itself and earlier tokens (default 0).
// - scale: 1 = scores are divided by √d_k (default 1).
// - t: temperature, a decimal number in [0.001, 1000] (default 1; written only
//   when not 1, exactly as it was given: the CLI computes with it as typed).
// - focus: 0-based index of the focused *row of the attention matrix*, that is
//   of the known tokens only: unknown words have no row and do not count.
//   Absent = nothing focused.
// - cell: key column of the clicked cell in the focused row (needs focus);
//   the step-by-step panel then lists that dot product term by term.
// - th: the arrows view hides links weaker than this share of the strongest,
//   0–0.9 in steps of 0.01, more decimals rounded (default 0.1).
// - pal: the colour palette of the heatmaps: viridis (default), cividis (made
//   for colour-vision deficiencies) or greys (the most contrast).
// - theme: light, dark, or auto (default: follow the system).
// - zoom: the part of the heatmap on screen, `row,col,size` (first row and
//   column, 0-based, and the rows a side); absent: the whole matrix.
// - view: what an embedded widget shows: main (heatmap and arrows, default),
//   heatmap, arrows, steps, whatif, play, heads, cross, meaning, model
//   (the trained model's heads), head (its open head). The full page shows
//   everything and ignores it.
// - quiz: a quiz, "predict, then reveal": `g.R1.R2…` asks, for each GloVe
//   row Ri (the 0-based rows of `focus`), "which word does it attend to
//   most?"; `m.L.H.T1.T2…` asks the same of the trained model's layer L,
//   head H for its tokens Ti (in the model's units and [CLS]/[SEP] setting).
//   At most 10 questions. The weights stay hidden until each is answered;
//   the answers are computed on the student's page, never written in the link.
// - vec: the name of the user's own word-vector file the link was made with
//   (absent: the default GloVe vectors). The file never leaves its owner's
//   computer: whoever opens the link is asked for a file of that name, and
//   sees the default vectors until they pick one.
// - The keys of the teaching views (lab, lf, lc, pad, h, hm, seed, head, hide,
//   b, pq, pk, pv, pwq, pwk, pwv, pn, pdk) are read and written by
//   teach-state.js, which documents each; docs/share-links.md lists them all.
// - model, mlayer, mhead, units, special, mfocus: the trained-model view, read
//   and written by model-state.js; `state.model` is absent while it is closed.
//
// Keys are never renamed once links are shared; unknown keys are ignored and
// a bad value falls back to its default. Text that cannot be encoded (a lone
// UTF-16 surrogate, from a cut emoji) is repaired to U+FFFD, never thrown.

import { formatModel, parseModel, sameModel } from './model-state.js';
import { defaultTeach, formatTeach, parseTeach, sameTeach } from './teach-state.js';
import { flag, index, LinkParams, oneOf } from './params.js';
import { cut, encode, excerpt, grouped, quoted, wholeChunks } from './text.js';

export const DEFAULT_SENTENCE = 'The king and queen ruled the kingdom';
export const TEMPERATURE_MIN = 0.001;
export const TEMPERATURE_MAX = 1000;
export const DEFAULT_THRESHOLD = 0.1;
export const PALETTES = ['viridis', 'cividis', 'greys'];
export const THEMES = ['auto', 'light', 'dark'];
/** The most questions a quiz link holds. */
export const MAX_QUESTIONS = 10;
export const VIEWS = ['main', 'heatmap', 'arrows', 'steps', 'whatif', 'play', 'heads', 'cross', 'meaning', 'model', 'head'];
/** Longest sentence accepted from a link or the box, in UTF-16 units. */
export const MAX_SENTENCE_LENGTH = 20000;

export function defaultState() {
  return {
    sentence: DEFAULT_SENTENCE, scale: true, self: true, causal: false, temperature: 1, focus: null, cell: null,
    threshold: DEFAULT_THRESHOLD, palette: 'viridis', theme: 'auto', zoom: null, view: 'main', quiz: null, vectors: null,
    teach: defaultTeach(),
  };
}


/**
 * A decimal number as a link writes it ('3.16227766', '.5'), rounded to
 * `decimals` places (null: as written), within [min, max]; else null.
 */
function decimalIn(text, decimals, min, max) {
  if (text === null || text.length > 24 || !/^(\d{1,4}(\.\d*)?|\.\d+)$/.test(text)) return null;
  const x = decimals === null ? Number(text) : Number(Number(text).toFixed(decimals));
  return x >= min && x <= max ? x : null;
}

/** A temperature written as a plain decimal number in range, exactly (as the CLI's --temperature takes it); else null. */
export function parseTemperature(text) {
  return decimalIn(text, null, TEMPERATURE_MIN, TEMPERATURE_MAX);
}


/** `row,col,size` of a zoomed heatmap, else null. */
function parseZoom(text) {
  const match = /^(\d{1,4}),(\d{1,4}),(\d{1,4})$/.exec(text);
  if (!match) return null;
  const [row, col, size] = match.slice(1).map(Number);
  return size >= 1 ? { row, col, size } : null;
}

/** A quiz as a link writes it (see `quiz` above), or null. Repeated rows are asked once: at most MAX_QUESTIONS rows after that. */
export function parseQuiz(text) {
  const glove = /^g((?:\.\d{1,6})+)$/.exec(text);
  const model = /^m\.(\d{1,2})\.(\d{1,2})((?:\.\d{1,6})+)$/.exec(text);
  const rows = (list) => [...new Set(list.slice(1).split('.').map(Number))];
  const quiz = glove ? { source: 'glove', rows: rows(glove[1]) }
    : model ? { source: 'model', layer: Number(model[1]), head: Number(model[2]), rows: rows(model[3]) } : null;
  return quiz && quiz.rows.length <= MAX_QUESTIONS ? quiz : null;
}

/** The link form of a quiz. */
export function formatQuiz(quiz) {
  const rows = quiz.rows.slice(0, MAX_QUESTIONS).join('.');
  return quiz.source === 'model' ? `m.${quiz.layer}.${quiz.head}.${rows}` : `g.${rows}`;
}

/**
 * The sentence of a link (`s`), or null. One longer than MAX_SENTENCE_LENGTH
 * is cut after its last whole word, as the sentence box cuts a long paste
 * (a cut inside a word would make a new, unknown word), and the cut is noted
 * as a problem of the link, saying what was kept and what was left out.
 * Bytes that are not UTF-8 are noted too: they are shown as U+FFFD.
 */
function readSentence(params) {
  const text = params.get('s');
  if (params.notText('s')) params.problems.push({ key: 's', value: excerpt(text, 40), expected: 'UTF-8 text: the bytes that are not are shown as �' });
  if (text === null || text.length <= MAX_SENTENCE_LENGTH) return text;
  const kept = wholeChunks(text, MAX_SENTENCE_LENGTH);
  const words = kept.match(/\S+/g)?.length ?? 0;
  const where = words > 1 ? `after its first ${grouped(words)} words (${grouped(kept.length)} characters)` : `to its first ${grouped(kept.length)} characters`;
  const rest = excerpt(text.slice(kept.length).trimStart(), 40);
  const before = rest ? `, before ${quoted(rest)}` : '';
  params.problems.push({ key: 's', value: excerpt(text, 40), expected: `at most ${grouped(MAX_SENTENCE_LENGTH)} characters: the sentence was cut ${where}${before}` });
  return kept;
}

/**
 * Reads a state from `location.hash` (with or without the leading '#').
 * Bad values fall back to their defaults; `problems`, when given, receives
 * one entry for each ({ key, value, expected }).
 */
export function parseHash(hash, problems = null) {
  const state = defaultState();
  const params = new LinkParams(hash);
  state.sentence = readSentence(params) ?? state.sentence;
  state.self = params.read('self', flag, '0 or 1') ?? state.self;
  state.causal = params.read('causal', flag, '0 or 1') ?? state.causal;
  state.scale = params.read('scale', flag, '0 or 1') ?? state.scale;
  state.temperature = params.read('t', parseTemperature, 'a decimal number from 0.001 to 1000, such as 0.5') ?? state.temperature;
  state.focus = params.read('focus', index(), 'a token index');
  if (state.focus !== null) state.cell = params.read('cell', index(), 'a token index');
  // The slider's steps: 0.01.
  state.threshold = params.read('th', (text) => decimalIn(text, 2, 0, 0.9), 'a share from 0 to 0.9') ?? state.threshold;
  state.palette = params.read('pal', oneOf(PALETTES), PALETTES.join(', ')) ?? state.palette;
  state.theme = params.read('theme', oneOf(THEMES), THEMES.join(', ')) ?? state.theme;
  state.zoom = params.read('zoom', parseZoom, 'row,column,size');
  state.view = params.read('view', oneOf(VIEWS), VIEWS.join(', ')) ?? state.view;
  state.quiz = params.read('quiz', parseQuiz, `g.ROW.ROW… or m.LAYER.HEAD.TOKEN… (at most ${MAX_QUESTIONS})`);
  const vec = params.get('vec');
  if (vec) state.vectors = cut(vec, 200);
  state.teach = parseTeach(params);
  const model = parseModel(params);
  if (model) state.model = model;
  params.noteUnread();
  problems?.push(...params.problems);
  return state;
}

/** Writes a state as a hash, '#s=…&self=…&causal=…&scale=…[&t=…][&focus=…]…'. Never throws. */
export function formatHash(state) {
  const parts = [
    `s=${encode(state.sentence)}`,
    `self=${state.self ? 1 : 0}`,
    `causal=${state.causal ? 1 : 0}`,
    `scale=${state.scale ? 1 : 0}`,
  ];
  if (state.temperature !== 1) parts.push(`t=${formatTemperature(state.temperature)}`);
  if (Number.isInteger(state.focus) && state.focus >= 0) {
    parts.push(`focus=${state.focus}`);
    if (Number.isInteger(state.cell) && state.cell >= 0) parts.push(`cell=${state.cell}`);
  }
  if (state.threshold !== undefined && state.threshold !== DEFAULT_THRESHOLD) parts.push(`th=${state.threshold}`);
  if (state.palette && state.palette !== 'viridis') parts.push(`pal=${state.palette}`);
  if (state.theme && state.theme !== 'auto') parts.push(`theme=${state.theme}`);
  if (state.zoom) parts.push(`zoom=${state.zoom.row},${state.zoom.col},${state.zoom.size}`);
  if (state.view && state.view !== 'main') parts.push(`view=${state.view}`);
  if (state.quiz) parts.push(`quiz=${formatQuiz(state.quiz)}`);
  if (state.vectors) parts.push(`vec=${encode(state.vectors)}`);
  if (state.teach) parts.push(...formatTeach(state.teach));
  if (state.model) parts.push(...formatModel(state.model));
  return '#' + parts.join('&');
}

/**
 * A temperature as it is written in links and shown: the shortest decimal
 * that reads back as it (in [0.001, 1000], never in e-notation), so a link's
 * 0.0012345 stays 0.0012345, the temperature the CLI computes with.
 */
export function formatTemperature(t) {
  return String(t);
}

/**
 * The options that differ from a new page's, in words: the folded options'
 * summary; with `looks` false, only those that change the numbers.
 */
export function changedOptions(state, { looks = true } = {}) {
  const usual = defaultState();
  return [
    state.scale !== usual.scale && 'scores not scaled',
    state.self !== usual.self && 'no attention to itself',
    state.causal !== usual.causal && 'causal mask',
    state.temperature !== usual.temperature && `temperature ${formatTemperature(state.temperature)}`,
    looks && state.palette !== usual.palette && `${state.palette} colours`,
    looks && state.theme !== usual.theme && `${state.theme} theme`,
  ].filter(Boolean);
}

/** A temperature from the logarithmic slider's position (−3 … 3): 3 significant digits. */
export function temperatureAt(position) {
  const t = Number((10 ** position).toPrecision(3));
  return Math.min(TEMPERATURE_MAX, Math.max(TEMPERATURE_MIN, t));
}

/** Settings object for the wasm `Explorer.analyze`. */
export function settingsOf(state) {
  return { scale: state.scale, selfAttention: state.self, causal: state.causal, temperature: state.temperature };
}

/** Every text whose words the open views need: the sentence, and sentence B while cross-attention is open. */
export function textsOf(state) {
  return state.teach?.lab === 'cross' ? `${state.sentence}\n${state.teach.b}` : state.sentence;
}

/** Whether two states compute the same attention (the sentence and the options). */
export function sameAnalysis(a, b) {
  return a.sentence === b.sentence && a.scale === b.scale && a.self === b.self && a.causal === b.causal &&
    a.temperature === b.temperature;
}

export function sameState(a, b) {
  return sameAnalysis(a, b) && a.focus === b.focus && (a.cell ?? null) === (b.cell ?? null) &&
    a.threshold === b.threshold && (a.vectors ?? null) === (b.vectors ?? null) && a.palette === b.palette &&
    a.theme === b.theme && a.view === b.view && JSON.stringify(a.quiz ?? null) === JSON.stringify(b.quiz ?? null) && JSON.stringify(a.zoom ?? null) === JSON.stringify(b.zoom ?? null) && sameModel(a.model, b.model) && sameTeach(a.teach, b.teach);
}
