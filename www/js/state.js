// The page state and its URL form, the share format of DESIGN.md.
//
//   #s=<sentence>&self=1&causal=0&scale=1&t=1&focus=2
//
// - s: the sentence (percent-encoded UTF-8).
// - self: 1 = a token may attend to itself (default 1).
// - causal: 1 = a token sees only itself and earlier tokens (default 0).
// - scale: 1 = scores are divided by √d_k (default 1).
// - t: temperature, a number in [0.001, 1000] (default 1; written only when not 1).
// - focus: 0-based index of the focused *row of the attention matrix*, that is
//   of the known tokens only: unknown words have no row and do not count.
//   Absent = nothing focused.
//
// - cell: key column of the clicked cell in the focused row (needs focus);
//   the step-by-step panel then lists that dot product term by term.
// - The keys of the teaching views (lab, lf, lc, pad, h, hm, seed, head, hide,
//   b, pq, pk, pv, pwq, pwk, pwv, pn, pdk) are read and written by
//   teach-state.js, which documents each; docs/share-links.md lists them all.
//
// - model, mlayer, mhead, units, special, mfocus: the trained-model view, read
//   and written by model-state.js, which documents each; `state.model` is
//   absent while that view is closed.
//
// Keys are never renamed once links are shared; unknown keys are ignored and
// a bad value falls back to its default. Pure functions: no DOM here.

import { formatModel, parseModel, sameModel } from './model-state.js';
import { defaultTeach, formatTeach, parseTeach, sameTeach } from './teach-state.js';

export const DEFAULT_SENTENCE = 'The king and queen ruled the kingdom';
export const TEMPERATURE_MIN = 0.001;
export const TEMPERATURE_MAX = 1000;
/** Longest sentence accepted from a link or the box, in UTF-16 units. */
export const MAX_SENTENCE_LENGTH = 20000;

export function defaultState() {
  return { sentence: DEFAULT_SENTENCE, scale: true, self: true, causal: false, temperature: 1, focus: null, cell: null, teach: defaultTeach() };
}

function flag(params, key, fallback) {
  const value = params.get(key);
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  return fallback;
}

/** Reads a state from `location.hash` (with or without the leading '#'). */
export function parseHash(hash) {
  const state = defaultState();
  let params;
  try {
    params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return state;
  }
  const sentence = params.get('s');
  if (sentence !== null) state.sentence = sentence.slice(0, MAX_SENTENCE_LENGTH);
  state.self = flag(params, 'self', state.self);
  state.causal = flag(params, 'causal', state.causal);
  state.scale = flag(params, 'scale', state.scale);
  const t = params.has('t') ? Number(params.get('t')) : NaN;
  if (Number.isFinite(t) && t >= TEMPERATURE_MIN && t <= TEMPERATURE_MAX) state.temperature = t;
  const focus = params.get('focus');
  if (focus !== null && /^\d{1,6}$/.test(focus)) state.focus = Number(focus);
  const cell = params.get('cell');
  if (state.focus !== null && cell !== null && /^\d{1,6}$/.test(cell)) state.cell = Number(cell);
  state.teach = parseTeach(params);
  const model = parseModel(params);
  if (model) state.model = model;
  return state;
}

/** Writes a state as a hash, '#s=…&self=…&causal=…&scale=…[&t=…][&focus=…]'. */
export function formatHash(state) {
  const parts = [
    `s=${encodeURIComponent(state.sentence)}`,
    `self=${state.self ? 1 : 0}`,
    `causal=${state.causal ? 1 : 0}`,
    `scale=${state.scale ? 1 : 0}`,
  ];
  if (state.temperature !== 1) parts.push(`t=${formatTemperature(state.temperature)}`);
  if (Number.isInteger(state.focus) && state.focus >= 0) {
    parts.push(`focus=${state.focus}`);
    if (Number.isInteger(state.cell) && state.cell >= 0) parts.push(`cell=${state.cell}`);
  }
  if (state.teach) parts.push(...formatTeach(state.teach));
  if (state.model) parts.push(...formatModel(state.model));
  return '#' + parts.join('&');
}

/** Temperature with at most 3 significant decimals, no trailing zeros. */
export function formatTemperature(t) {
  return String(Number(t.toPrecision(3)));
}

/** Settings object for the wasm `Explorer.analyze`. */
export function settingsOf(state) {
  return { scale: state.scale, selfAttention: state.self, causal: state.causal, temperature: state.temperature };
}

export function sameState(a, b) {
  return a.sentence === b.sentence && a.scale === b.scale && a.self === b.self && a.causal === b.causal &&
    a.temperature === b.temperature && a.focus === b.focus && sameModel(a.model, b.model) &&
    (a.cell ?? null) === (b.cell ?? null) && sameTeach(a.teach, b.teach);
}
