// The share format (www/js/state.js) without a browser: links once shared
// must keep working, bad values fall back to defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SENTENCE, defaultState, formatHash, parseHash, settingsOf } from '../../www/js/state.js';

test('an empty hash is the default state', () => {
  assert.deepEqual(parseHash(''), defaultState());
  assert.deepEqual(parseHash('#'), defaultState());
  assert.equal(defaultState().sentence, DEFAULT_SENTENCE);
});

test('every key of DESIGN.md is read', () => {
  const state = parseHash('#s=The%20cat%20sat&self=0&causal=1&scale=0&t=2.5&focus=2');
  assert.deepEqual(state, { ...defaultState(), sentence: 'The cat sat', self: false, causal: true, scale: false, temperature: 2.5, focus: 2 });
});

test('format and parse round-trip, with spaces as %20 and hostile text kept exactly', () => {
  for (const sentence of ['The king and queen', 'a&b=c#d?e+f%g', '<img src=x onerror=alert(1)>', 'café 😀 “quotes”', '']) {
    const state = { ...defaultState(), sentence, self: false, causal: true, scale: true, temperature: 0.5, focus: 3 };
    const hash = formatHash(state);
    assert.ok(!hash.includes(' '), hash);
    assert.deepEqual(parseHash(hash), state);
  }
  assert.equal(formatHash(defaultState()), '#s=The%20king%20and%20queen%20ruled%20the%20kingdom&self=1&causal=0&scale=1');
});

test('unknown keys are ignored and bad values fall back to defaults', () => {
  const state = parseHash('#s=hi&self=yes&causal=&scale=2&t=0&focus=-1&theme=dark');
  assert.deepEqual(state, { ...defaultState(), sentence: 'hi' });
  assert.equal(parseHash('#t=1e9').temperature, 1);
  assert.equal(parseHash('#t=NaN').temperature, 1);
  assert.equal(parseHash('#focus=1.5').focus, null);
  assert.equal(parseHash('#focus=9999999').focus, null, 'more than six digits');
  assert.equal(typeof parseHash('#s=%E0%A4%A').sentence, 'string', 'a broken escape does not throw');
});

test('a very long sentence from a link is cut, not refused', () => {
  assert.equal(parseHash('#s=' + 'a'.repeat(50000)).sentence.length, 20000);
});

test('settings for the wasm boundary use its field names', () => {
  assert.deepEqual(settingsOf(parseHash('#self=0&t=3')), { scale: true, selfAttention: false, causal: false, temperature: 3 });
});
