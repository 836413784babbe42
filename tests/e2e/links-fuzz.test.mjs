// The link parser (www/js/state.js with teach-state.js, model-state.js,
// params.js and text.js) on 20,000 seeded random hashes, without a browser:
// the libFuzzer targets of fuzz/ cover the Rust parsers, this covers the
// share format.
//
// Each hash mixes the known keys with garbage keys, and values that are
// valid, almost valid or hostile: lone UTF-16 surrogates, halves of emoji,
// broken and complete '%' escapes (of surrogates too), NUL, '&', '=', '#',
// huge and odd numbers, very long strings. For every one:
// - parseHash never throws, and returns a state whose every field has its
//   documented type and range, with no lone surrogate in any string;
// - the problems it notes are { key, value, expected } strings, also free of
//   lone surrogates, and describeProblems never throws;
// - formatHash never throws, writes plain ASCII, and round-trips:
//   parseHash(formatHash(state)) equals the state, and notes no problem.
//
// A failure names the seed and the case; rerun one case with
//   LINKS_FUZZ_SEED=<seed> LINKS_FUZZ_CASE=<case> node --test tests/e2e/links-fuzz.test.mjs
// (LINKS_FUZZ_CASES=<n> runs more or fewer cases).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultState, formatHash, MAX_QUESTIONS, MAX_SENTENCE_LENGTH, PALETTES, parseHash, THEMES, TEMPERATURE_MAX,
  TEMPERATURE_MIN, VIEWS,
} from '../../www/js/state.js';
import { HEAD_MODES, LABS, MAX_MATRIX_TEXT, MAX_PAD } from '../../www/js/teach-state.js';
import { BEHAVIOURS, FLOWS } from '../../www/js/model-state.js';
import { describeProblems } from '../../www/js/params.js';

const SEED = Number(process.env.LINKS_FUZZ_SEED ?? 20240521) >>> 0;
const CASES = Number(process.env.LINKS_FUZZ_CASES ?? 20000);
const ONLY = process.env.LINKS_FUZZ_CASE === undefined ? null : Number(process.env.LINKS_FUZZ_CASE);

/** SplitMix32 (the 32-bit SplitMix of Steele, Lea and Flood): case `i` of seed `s` is the same forever. */
function generator(seed, i) {
  let state = (seed ^ Math.imul(i + 1, 0x9e3779b9)) >>> 0;
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const below = (n) => next() % n;
  return { below, pick: (list) => list[below(list.length)], chance: (p) => next() / 2 ** 32 < p };
}

const KEYS = [
  's', 'self', 'causal', 'scale', 't', 'focus', 'cell', 'th', 'pal', 'theme', 'zoom', 'view', 'quiz', 'vec',
  'lab', 'lf', 'lc', 'pad', 'h', 'hm', 'seed', 'head', 'hide', 'b', 'pq', 'pk', 'pv', 'pwq', 'pwk', 'pwv', 'pn', 'pdk',
  'model', 'mlayer', 'mhead', 'units', 'special', 'mfocus', 'mq', 'mk', 'mrank', 'mcell', 'mflow',
];
const GARBAGE_KEYS = ['', 'S', 'x', '%73', 's%00', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '\uD83D', 'm%6Fdel', '#s', '?s', 'a=b'];
const WORDS = [
  ...LABS, ...HEAD_MODES, ...PALETTES, ...THEMES, ...VIEWS, ...BEHAVIOURS, ...FLOWS, 'pieces', 'words',
  'true', 'false', 'null', 'undefined', 'NaN', 'Infinity', '-Infinity', '__proto__',
];
const NUMBERS = [
  '0', '1', '2', '00', '01', '1.5', '0.5', '0.9', '0.91', '0.10', '0.001', '0.0009', '1000', '1000.000001', '999.999999',
  '-1', '-0', '+1', '1e3', '1e309', '0x10', '1_000', ' 1', '1 ', '4096', '4097', '128', '129', '999999', '1000000',
  '4294967295', '4294967296', '99999999999999999999', '9007199254740993', '.5', '5.', '1,2,3', '3,3,3', '0,0,0',
  '9999,9999,9999', '1,2', '0,1,0',
];
const QUIZZES = ['g.1', 'g.0.0.1', 'g.' + Array(11).fill(1).join('.'), 'g.', 'g1', 'm.5.11.8', 'm.99.99.1.2', 'm.100.1.1', 'm.1.1', 'g.1234567'];
const PIECES = [
  'a', 'The', 'cat', ' ', '+', '&', '=', '#', '?', ';', ',', '.', '%', '%2', '%25', '%20', '%26', '%3D', '%E0%A4%A',
  '%ED%A0%BD', '%ED%B8%80', '%F0%9F%98', '%F0%9F%98%80', '%C0%80', '%FF', '%00', '\0', '\n', '\t', '\uD83D', '\uDE00',
  '\uDE00\uD83D', '😀', '❤️', '\uFE0F', '👩‍👩‍👧', '\u200D', 'é', 'e\u0301', '中', '\u202E', '\uFFFD', '\uFEFF', '<img src=x>',
  '"', "'", '\\', '[[2, 3], [1, 2]]', '2 3; 1 2', '1e38', '-', '--',
];

const FLAG = ['0', '1', 'true', 'false'];
const INDEX = ['0', '3', '17', '999999'];
/** Values a key really takes, so that every field leaves its default often. */
const TYPICAL = {
  self: FLAG, causal: FLAG, scale: FLAG, special: ['0', '1'], model: ['1', '1', '0'],
  t: ['0.5', '2', '0.001', '1000', '1.000001', '999.999999', '0001.5'], th: ['0', '0.5', '0.9', '0.25', '0.10'],
  focus: INDEX, cell: INDEX, lf: INDEX, lc: INDEX, head: INDEX, pdk: INDEX, mlayer: INDEX, mhead: INDEX,
  mfocus: INDEX, mq: INDEX, mk: INDEX, mcell: INDEX,
  pal: PALETTES, theme: THEMES, view: VIEWS, zoom: ['1,2,3', '0,0,1', '0010,2,9999'], quiz: QUIZZES,
  vec: ['my-vectors.txt', 'v%C3%A9ctors.vec'], lab: LABS, pad: ['1', '128', '064'], h: ['1', '10', '4096'],
  hm: HEAD_MODES, seed: ['0', '4294967295', '0000000007'], hide: ['1,2', '3,3,1', '0', '9999,0'],
  units: ['pieces', 'words'], mrank: BEHAVIOURS, mflow: FLOWS,
};

function randomText(g, maxPieces) {
  let text = '';
  const n = g.below(maxPieces + 1);
  for (let k = 0; k < n; k++) text += g.chance(0.5) ? g.pick(PIECES) : String.fromCharCode(g.below(0x10000));
  return text;
}

/** Percent-encodes the UTF-8 of `text`, writing a lone surrogate as its three (invalid) UTF-8 bytes. */
function percentEncode(text) {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0);
    const bytes = code < 0x80 ? [code]
      : code < 0x800 ? [0xc0 | (code >> 6), 0x80 | (code & 63)]
        : code < 0x10000 ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
          : [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)];
    out += bytes.map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
  }
  return out;
}

function randomValue(g) {
  switch (g.below(9)) {
    case 0: return g.pick(NUMBERS);
    case 1: return g.pick(WORDS);
    case 2: return g.pick(QUIZZES);
    case 3: return String(g.below(10 ** (1 + g.below(8))));
    case 4: return percentEncode(randomText(g, 6));
    case 5: return g.pick(NUMBERS) + g.pick(PIECES);
    case 6: return '';
    case 7: {
      // Now and then longer than the longest sentence (20,000 UTF-16 units).
      const piece = g.pick(PIECES);
      return g.chance(0.05) ? piece.repeat(g.below(25000 / piece.length) + 1) : randomText(g, 40);
    }
    default: return randomText(g, 8);
  }
}

function randomHash(g) {
  const parts = [];
  const count = g.below(12);
  for (let k = 0; k < count; k++) {
    const key = g.chance(0.85) ? g.pick(KEYS) : g.pick(GARBAGE_KEYS);
    if (g.chance(0.05)) parts.push(key);
    else if (TYPICAL[key] && g.chance(0.4)) parts.push(`${key}=${g.pick(TYPICAL[key])}`);
    else parts.push(`${key}=${randomValue(g)}`);
  }
  const joined = parts.join(g.chance(0.9) ? '&' : g.pick(['&&', ';', '&amp;', '']));
  return g.pick(['#', '#', '', '?', '##']) + joined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every string inside `value`, with its path. */
function* strings(value, path = 'state') {
  if (typeof value === 'string') yield [path, value];
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) yield* strings(inner, `${path}.${key}`);
  }
}

const isIndex = (v, max = 999999) => Number.isInteger(v) && v >= 0 && v <= max;
const isIndexOrNull = (v, max) => v === null || isIndex(v, max);
const isText = (v, max) => typeof v === 'string' && v.length <= max;

/** The documented type and range of every field; returns what is wrong, or null. */
function fieldProblem(state) {
  const d = defaultState();
  const keys = Object.keys(state).filter((k) => k !== 'model').sort();
  if (JSON.stringify(keys) !== JSON.stringify(Object.keys(d).sort())) return `keys ${keys}`;
  const checks = {
    sentence: isText(state.sentence, MAX_SENTENCE_LENGTH),
    flags: [state.scale, state.self, state.causal].every((v) => typeof v === 'boolean'),
    temperature: Number.isFinite(state.temperature) && state.temperature >= TEMPERATURE_MIN && state.temperature <= TEMPERATURE_MAX,
    focus: isIndexOrNull(state.focus),
    cell: isIndexOrNull(state.cell) && (state.focus !== null || state.cell === null),
    threshold: Number.isFinite(state.threshold) && state.threshold >= 0 && state.threshold <= 0.9,
    palette: PALETTES.includes(state.palette),
    theme: THEMES.includes(state.theme),
    view: VIEWS.includes(state.view),
    zoom: state.zoom === null || (Object.keys(state.zoom).length === 3 && isIndex(state.zoom.row, 9999) &&
      isIndex(state.zoom.col, 9999) && isIndex(state.zoom.size, 9999) && state.zoom.size >= 1),
    quiz: state.quiz === null || (Array.isArray(state.quiz.rows) && state.quiz.rows.length >= 1 &&
      state.quiz.rows.length <= MAX_QUESTIONS && state.quiz.rows.every((r) => isIndex(r)) &&
      new Set(state.quiz.rows).size === state.quiz.rows.length &&
      (state.quiz.source === 'glove' ? Object.keys(state.quiz).length === 2
        : state.quiz.source === 'model' && isIndex(state.quiz.layer, 99) && isIndex(state.quiz.head, 99))),
    vectors: state.vectors === null || (isText(state.vectors, 200) && state.vectors.length > 0),
  };
  const t = state.teach;
  const play = t?.play;
  Object.assign(checks, {
    teach: t && JSON.stringify(Object.keys(t).sort()) === JSON.stringify(Object.keys(d.teach).sort()),
    lab: LABS.includes(t.lab),
    lf: isIndex(t.lf),
    lc: isIndexOrNull(t.lc),
    pad: isIndex(t.pad, MAX_PAD) && t.pad >= 1,
    heads: isIndex(t.heads, 4096) && t.heads >= 1,
    headMode: HEAD_MODES.includes(t.headMode),
    seed: isIndex(t.seed, 4294967295),
    head: isIndexOrNull(t.head),
    hide: Array.isArray(t.hide) && t.hide.every((h, k) => isIndex(h, 9999) && (k === 0 || h > t.hide[k - 1])),
    b: isText(t.b, 2000),
    play: play && ['q', 'k', 'v', 'wq', 'wk', 'wv'].every((key) => isText(play[key], MAX_MATRIX_TEXT)) &&
      isText(play.names, 400) && isIndex(play.dk) && Object.keys(play).length === 8,
  });
  if ('model' in state) {
    const m = state.model;
    Object.assign(checks, {
      model: m && Object.keys(m).length === 10 && isIndex(m.layer) && isIndex(m.head) &&
        ['pieces', 'words'].includes(m.units) && typeof m.special === 'boolean' &&
        [m.focus, m.query, m.key, m.cell].every((v) => isIndexOrNull(v)) &&
        (m.rank === null || BEHAVIOURS.includes(m.rank)) && (m.flow === null || FLOWS.includes(m.flow)),
    });
  }
  const wrong = Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name);
  return wrong.length ? `bad ${wrong.join(', ')}` : null;
}

function check(hash) {
  const problems = [];
  const state = parseHash(hash, problems);
  const wrong = fieldProblem(state);
  if (wrong) throw new Error(`${wrong}: ${JSON.stringify(state).slice(0, 400)}`);
  for (const [path, text] of strings(state)) {
    if (LONE_SURROGATE.test(text)) throw new Error(`${path} holds a lone surrogate`);
  }
  for (const p of problems) {
    if (typeof p.key !== 'string' || typeof p.value !== 'string' || typeof p.expected !== 'string') {
      throw new Error(`a problem is not three strings: ${JSON.stringify(p)}`);
    }
  }
  const message = describeProblems(problems);
  if (typeof message !== 'string') throw new Error('describeProblems did not return a string');
  for (const [path, text] of strings(problems, 'problems')) {
    if (LONE_SURROGATE.test(text)) throw new Error(`${path} holds a lone surrogate (shown on the page as it is)`);
  }
  const link = formatHash(state);
  if (!/^#[\x21-\x7e]*$/.test(link)) throw new Error(`formatHash wrote more than printable ASCII: ${JSON.stringify(link.slice(0, 200))}`);
  const again = [];
  assert.deepEqual(parseHash(link, again), state, `the link ${JSON.stringify(link.slice(0, 300))} does not round-trip`);
  assert.deepEqual(again, [], 'a written link has no problems');
}

test('20,000 random links: parsed to documented types, no lone surrogates, round-trips', () => {
  const cases = ONLY === null ? [...Array(CASES).keys()] : [ONLY];
  for (const i of cases) {
    const hash = randomHash(generator(SEED, i));
    try {
      check(hash);
    } catch (error) {
      const shown = JSON.stringify(hash.length > 300 ? `${hash.slice(0, 300)}…` : hash);
      error.message = `seed ${SEED}, case ${i} (LINKS_FUZZ_SEED=${SEED} LINKS_FUZZ_CASE=${i}): hash ${shown}\n${error.message}`;
      throw error;
    }
  }
});

test('a bad value quoted in the problems never ends in half an emoji', () => {
  // Found by the test above: the quote was cut at 40 UTF-16 units, between
  // the two halves of an emoji, and the page showed the lone half.
  const problems = [];
  parseHash(`#t=${'a'.repeat(39)}%F0%9F%98%80b`, problems);
  assert.equal(problems.length, 1);
  assert.doesNotMatch(problems[0].value, LONE_SURROGATE);
  assert.ok(problems[0].value.startsWith('a'.repeat(39)), problems[0].value);
});

test('the generator covers what it should', () => {
  // A fuzzer that only ever produced defaults would pass everything. The
  // counts are of the first 2,000 cases; every field must change within the
  // cases the run makes (a rare one, such as a valid cell, needs a valid
  // focus too: some seeds first draw one after 2,000 cases).
  let lone = 0;
  let long = 0;
  const keys = new Set();
  const changed = new Set();
  const fields = [...Object.keys(defaultState()), 'model'];
  for (let i = 0; i < 2000 || (i < Math.max(2000, CASES) && fields.some((key) => !changed.has(key))); i++) {
    const hash = randomHash(generator(SEED, i));
    if (i < 2000) {
      if (LONE_SURROGATE.test(hash)) lone++;
      if (hash.length > 20000) long++;
    }
    for (const part of hash.replace(/^[#?]+/, '').split('&')) keys.add(part.split('=')[0]);
    const state = parseHash(hash);
    for (const [key, value] of Object.entries(state)) {
      if (JSON.stringify(value) !== JSON.stringify(defaultState()[key])) changed.add(key);
    }
  }
  assert.ok(lone > 50, `${lone} hashes with a lone surrogate`);
  assert.ok(long > 0, 'some hashes longer than the longest sentence');
  for (const key of KEYS) assert.ok(keys.has(key), `key ${key} never drawn`);
  for (const key of fields) assert.ok(changed.has(key), `state.${key} never changed from its default`);
});
