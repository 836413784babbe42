// The share-link keys of the teaching views (see docs/share-links.md).
// state.js reads and writes them beside the sentence's and the options'; pure
// functions, no DOM. A key at its default is left out of the link.
//
//   cell  key column of the clicked cell in the focused row (needs focus)
//   lab   open teaching panel: steps | whatif | play | heads | cross | meaning
//         (default steps, the step-by-step panel of the focused word; links made
//         before it existed opened with the what-if panel below the others)
//   lf    focused query row inside the open panel (default 0)
//   lc    clicked key column inside the open panel (absent = none)
//   pad   padding demo: pad the sentence to this many positions, 1–128 (absent = 12)
//   h     number of heads; must divide the vector dimension (default 5)
//   hm    head mode: projected | split (default projected)
//   seed  seed of the projections, 0–4294967295 (default 42)
//   head  head shown large, 0-based (absent = the average of the heads)
//   hide  heads hidden in the arrows, comma-separated indices (absent = none)
//   b     sentence B of cross-attention (default DEFAULT_SENTENCE_B)
//   pq pk pv pwq pwk pwv  playground matrices as typed ("2 3; 1 2");
//         empty pk = same as pq, empty pv = same as pk, empty pw* = no projection
//   pn    playground token names, space-separated
//   pdk   playground: scale by 1/√pdk instead of 1/√d_k, 0–100000 (0 or absent = d_k)
//
// Text longer than its field takes (b, the playground's) is cut, and noted.
// Values that only the sentence can judge (lf past its rows, head past the
// heads) are noted by the tabs themselves (views/teach/common.js).
//
// Text from a link is only ever shown as text (form values, textContent).

import { index } from './params.js';
import { cut, encode, excerpt, grouped } from './text.js';

export const LABS = ['steps', 'whatif', 'play', 'heads', 'cross', 'meaning'];
export const HEAD_MODES = ['projected', 'split'];
export const DEFAULT_SENTENCE_B = 'The Eiffel Tower is located in Paris, France.';
export const MAX_PAD = 128;
export const DEFAULT_PAD = 12;
/** Longest playground matrix text accepted from a link. */
export const MAX_MATRIX_TEXT = 4000;
/** Longest sentence B and playground token names accepted from a link. */
export const MAX_SENTENCE_B = 2000;
const MAX_NAMES_TEXT = 400;
/** Largest playground d_k. */
export const MAX_SCALE_DIM = 100000;
const MAX_SEED = 4294967295;

/** The tutorials' first worked example: one query, keys C, A, B. */
export const PRESETS = {
  dot: { label: 'Dot products: Q = [2, 3], keys C, A, B', q: '2 3', k: '11 13; 1 2; 4 6', v: '', wq: '', wk: '', wv: '', names: 'C A B', dk: 0 },
  saturation: { label: 'Saturation: scores 100 and 80, d_k = 100', q: '1', k: '100; 80', v: '', wq: '', wk: '', wv: '', names: 'x y', dk: 100 },
  projected: {
    label: 'Three tokens, four dimensions, with W_q, W_k, W_v',
    q: '1 0 1 0; 0 2 0 2; 1 1 1 1',
    k: '',
    v: '',
    wq: '1 0 1; 1 0 0; 0 0 1; 0 1 1',
    wk: '0 0 1; 1 1 0; 0 1 0; 1 1 0',
    wv: '0 2 0; 0 3 0; 1 0 3; 1 1 0',
    names: 'I love cats',
    dk: 0,
  },
};

export function defaultPlay() {
  const { label, ...play } = PRESETS.dot;
  return play;
}

export function defaultTeach() {
  return {
    lab: 'steps', lf: 0, lc: null, pad: DEFAULT_PAD, heads: 5, headMode: 'projected', seed: 42, head: null,
    hide: [], b: DEFAULT_SENTENCE_B, play: defaultPlay(),
  };
}


/** The text of `key` (or null), its first `max` characters; a longer one is noted as cut. */
function readText(params, key, max) {
  const text = params.get(key);
  if (text === null) return null;
  const kept = cut(text, max);
  if (kept.length < text.length) params.problems.push({ key, value: excerpt(text, 40), expected: `at most ${grouped(max)} characters: the rest is cut` });
  return kept;
}

/** Reads the teaching keys of `params` (a LinkParams: bad values are noted there). */
export function parseTeach(params) {
  const teach = defaultTeach();
  teach.lab = params.read('lab', (text) => (LABS.includes(text) ? text : null), LABS.join(', ')) ?? teach.lab;
  teach.lf = params.read('lf', index(), 'a row index') ?? 0;
  teach.lc = params.read('lc', index(), 'a column index');
  const pad = params.read('pad', (text) => { const v = index(MAX_PAD)(text); return v !== null && v >= 1 ? v : null; }, `1 to ${MAX_PAD}`);
  if (pad !== null) teach.pad = pad;
  const heads = params.read('h', (text) => { const v = index(4096)(text); return v !== null && v >= 1 ? v : null; }, 'a number of heads');
  if (heads !== null) teach.heads = heads;
  teach.headMode = params.read('hm', (text) => (HEAD_MODES.includes(text) ? text : null), HEAD_MODES.join(' or ')) ?? teach.headMode;
  const seed = params.read('seed', (text) => (/^\d{1,10}$/.test(text) && Number(text) <= MAX_SEED ? Number(text) : null), `0 to ${MAX_SEED}`);
  if (seed !== null) teach.seed = seed;
  teach.head = params.read('head', index(), 'a head index');
  const hide = params.read('hide', (text) => (/^\d{1,4}(,\d{1,4})*$/.test(text) ? text : null), 'head indices separated by commas');
  if (hide !== null) teach.hide = [...new Set(hide.split(',').map(Number))].sort((a, b) => a - b);
  const b = readText(params, 'b', MAX_SENTENCE_B);
  if (b !== null) teach.b = b;
  const keys = ['pq', 'pk', 'pv', 'pwq', 'pwk', 'pwv'];
  if (keys.some((key) => params.has(key)) || params.has('pn')) {
    // A link with any playground key describes the whole playground.
    teach.play = { q: '', k: '', v: '', wq: '', wk: '', wv: '', names: '', dk: 0 };
    for (const key of keys) teach.play[key.slice(1)] = readText(params, key, MAX_MATRIX_TEXT) ?? '';
    teach.play.names = readText(params, 'pn', MAX_NAMES_TEXT) ?? '';
  }
  teach.play.dk = params.read('pdk', index(MAX_SCALE_DIM), `a whole number from 0 to ${grouped(MAX_SCALE_DIM)}`) ?? teach.play.dk;
  return teach;
}

/** The teaching keys as hash parts ('key=value'), defaults left out. */
export function formatTeach(teach) {
  const d = defaultTeach();
  const parts = [];
  const put = (key, value) => parts.push(`${key}=${encode(value)}`);
  if (teach.lab !== d.lab) put('lab', teach.lab);
  if (teach.lf !== 0) put('lf', teach.lf);
  if (teach.lc !== null) put('lc', teach.lc);
  if (teach.pad !== d.pad) put('pad', teach.pad);
  if (teach.heads !== d.heads) put('h', teach.heads);
  if (teach.headMode !== d.headMode) put('hm', teach.headMode);
  if (teach.seed !== d.seed) put('seed', teach.seed);
  if (teach.head !== null) put('head', teach.head);
  if (teach.hide.length) parts.push(`hide=${teach.hide.join(',')}`);
  if (teach.b !== d.b) put('b', teach.b);
  const play = teach.play;
  const defaults = d.play;
  if (['q', 'k', 'v', 'wq', 'wk', 'wv', 'names'].some((key) => play[key] !== defaults[key])) {
    for (const key of ['q', 'k', 'v', 'wq', 'wk', 'wv']) put(`p${key}`, play[key]);
    put('pn', play.names);
  }
  if (play.dk !== defaults.dk) put('pdk', play.dk);
  return parts;
}

export function sameTeach(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
