// The trained-model view's share keys (www/js/model-state.js through
// state.js) and the span conversion between the two tokenizations
// (www/js/model-spans.js), without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatHash, parseHash, sameState } from '../../www/js/state.js';
import { defaultModel } from '../../www/js/model-state.js';
import { bestMatch, firstPiece, utf16Offsets, withUtf16Spans } from '../../www/js/model-spans.js';
import { resolveToken, tokenText } from '../../www/js/views/model/search.js';

test('a closed model view adds nothing to the state or the link', () => {
  assert.equal('model' in parseHash('#s=hi&mlayer=2&mhead=3'), false, 'keys without model=1 are ignored');
  assert.equal('model' in parseHash('#s=hi&model=0'), false);
  assert.doesNotMatch(formatHash(parseHash('#s=hi&focus=1')), /model|mlayer|mhead|units|special|mfocus/);
});

test('every model key is read, and a link round-trips', () => {
  const state = parseHash('#s=The%20cat&focus=1&model=1&mlayer=2&mhead=7&units=words&special=0&mfocus=3');
  assert.deepEqual(state.model, { ...defaultModel(), layer: 2, head: 7, units: 'words', special: false, focus: 3 });
  assert.equal(state.focus, 1, 'the GloVe focus is its own key');
  const again = parseHash(formatHash(state));
  assert.deepEqual(again, state);
  assert.ok(sameState(again, state));
  assert.ok(!sameState(again, { ...state, model: { ...state.model, head: 8 } }));
  assert.ok(!sameState(again, { ...state, model: undefined }));
});

test('the search, ranking, step panel and rollout keys are read, written only when set, and round-trip', () => {
  const state = parseHash('#s=The%20cat&model=1&mq=8&mk=2&mrank=same-word&mcell=6&mflow=average');
  assert.deepEqual(state.model, { ...defaultModel(), query: 8, key: 2, rank: 'same-word', cell: 6, flow: 'average' });
  const hash = formatHash(state);
  assert.match(hash, /&mq=8&mk=2&mrank=same-word&mcell=6&mflow=average$/);
  assert.deepEqual(parseHash(hash), state);
  assert.ok(!sameState(state, { ...state, model: { ...state.model, rank: 'previous' } }));
  assert.ok(!sameState(state, { ...state, model: { ...state.model, cell: null } }));
  assert.doesNotMatch(formatHash(parseHash('#s=hi&model=1')), /mq|mk|mrank|mcell|mflow/, 'absent at their defaults');
  const bad = parseHash('#model=1&mq=-1&mk=x&mrank=sideways&mcell=1.5&mflow=up');
  assert.deepEqual(bad.model, defaultModel());
});

test('opening the view writes the defaults: layer 5, head 11, pieces, [CLS]/[SEP] shown', () => {
  const hash = formatHash({ ...parseHash('#s=hi'), model: defaultModel() });
  assert.match(hash, /&model=1&mlayer=5&mhead=11&units=pieces&special=1$/);
});

test('bad model values fall back to their defaults', () => {
  const { model } = parseHash('#model=1&mlayer=-1&mhead=1.5&units=letters&special=yes&mfocus=x');
  assert.deepEqual(model, defaultModel());
  assert.equal(parseHash('#model=1&mlayer=9999999').model.layer, 5, 'more than six digits');
});

test('each bad model value is noted with what was expected, and left out of the link', () => {
  const problems = [];
  const state = parseHash('#s=hi&model=1&mlayer=99&mhead=12&units=bogus&special=2&mrank=bogus&mflow=bogus&mfocus=x&mq=-1&mk=1.5&mcell=y', problems);
  assert.deepEqual(state.model, defaultModel());
  assert.deepEqual(problems.map((p) => `${p.key}=${p.value} (expected ${p.expected})`), [
    'mlayer=99 (expected a layer from 0 to 5)', 'mhead=12 (expected a head from 0 to 11)', 'units=bogus (expected pieces or words)',
    'special=2 (expected 0 or 1)', 'mfocus=x (expected a token index)', 'mq=-1 (expected a token index)', 'mk=1.5 (expected a token index)',
    'mrank=bogus (expected previous, next, self, special, same-word, focus)', 'mcell=y (expected a piece index)', 'mflow=bogus (expected rollout or average)',
  ]);
  assert.match(formatHash(state), /&model=1&mlayer=5&mhead=11&units=pieces&special=1$/);
  // model=2 leaves the view closed, and says so; model=0 is closed without a word.
  const closed = [];
  assert.equal('model' in parseHash('#s=hi&model=2', closed), false);
  assert.deepEqual(closed, [{ key: 'model', value: '2', expected: '0 or 1' }]);
  const quiet = [];
  parseHash('#s=hi&model=0&mlayer=99', quiet);
  assert.deepEqual(quiet, [], 'the keys of a closed view are not read');
});

test('half a head search, a query without its key or a key without its query, is dropped and noted', () => {
  for (const [half, other] of [['mq=8', 'mk'], ['mk=02', 'mq']]) {
    const problems = [];
    const state = parseHash(`#s=hi&model=1&${half}`, problems);
    assert.deepEqual(state.model, defaultModel());
    assert.deepEqual(problems.map((p) => `${p.key}=${p.value} (expected ${p.expected})`), [`${half} (expected ${other} with it: a head search needs a query and a key)`]);
    assert.doesNotMatch(formatHash(state), /mq|mk/);
  }
});

test('UTF-8 byte offsets become UTF-16 indices: accents, CJK, emoji', () => {
  // é: 2 bytes, 1 unit; 猫: 3 bytes, 1 unit; 😀: 4 bytes, 2 units.
  const sentence = 'é猫😀a';
  assert.deepEqual(Array.from(utf16Offsets(sentence)), [0, 0, 1, 1, 1, 2, 2, 2, 2, 4, 5]);
  assert.deepEqual(Array.from(utf16Offsets('')), [0]);
});

test("the model's 'it' finds the GloVe 'it' after accented words", () => {
  const sentence = 'Café crème, déjà vu: it was';
  // The model's spans are bytes: 'it' starts at byte 25 (4 accented letters before it).
  const model = withUtf16Spans(sentence, [
    { text: '[CLS]', span: [0, 0], special: true },
    { text: 'cafe', span: [0, 5], special: false },
    { text: 'it', span: [25, 27], special: false },
    { text: 'was', span: [28, 31], special: false },
    { text: '[SEP]', span: [31, 31], special: true },
  ]);
  assert.equal(sentence.slice(model[2].start, model[2].end), 'it');
  assert.equal(sentence.slice(model[1].start, model[1].end), 'Café');
  // GloVe tokens carry UTF-16 spans already.
  const glove = [{ start: 0, end: 4 }, { start: 21, end: 23 }, { start: 24, end: 27 }];
  assert.equal(bestMatch(model[2], glove), 1);
  assert.equal(bestMatch(glove[1], model), 2);
  assert.equal(bestMatch({ start: 10, end: 10 }, model), null, 'an empty span matches nothing');
});

test('a word split into pieces maps to the piece sharing most of it, and each piece back to the word', () => {
  const pieces = [{ start: 0, end: 2 }, { start: 2, end: 5 }, { start: 5, end: 10 }, { start: 11, end: 13 }];
  const word = { start: 0, end: 10 };
  assert.equal(bestMatch(word, pieces), 2, 'the piece sharing the most characters');
  assert.equal(bestMatch(pieces[1], [word, { start: 11, end: 13 }]), 0);
});

test('a word maps to its first piece: the first that starts inside it, else the one that holds it', () => {
  // 'unbelievably' as the model cuts it: un ##bel ##ie ##va ##bly.
  const pieces = [{ start: 0, end: 0 }, { start: 0, end: 2 }, { start: 2, end: 5 }, { start: 5, end: 7 }, { start: 7, end: 9 }, { start: 9, end: 12 }];
  assert.equal(firstPiece({ start: 0, end: 12 }, pieces), 1, "'un', not the longer '##bel'");
  // "didn't": GloVe reads 'did' 'n't', the model 'didn' ''' 't'.
  const model = [{ start: 0, end: 4 }, { start: 4, end: 5 }, { start: 5, end: 6 }];
  assert.equal(firstPiece({ start: 0, end: 3 }, model), 0, "'did' is in 'didn'");
  assert.equal(firstPiece({ start: 3, end: 6 }, model), 1, "'n't' starts with the apostrophe, not inside 'didn'");
  // A GloVe word inside one model token maps to that token.
  assert.equal(firstPiece({ start: 1, end: 3 }, model), 0);
  assert.equal(firstPiece({ start: 7, end: 9 }, model), null, 'past the end: none');
});

test('the head search reads a repeated word by its occurrence, however its number is written', () => {
  const sentence = 'It is hard, and it is slow';
  const words = [['[CLS]', 0, 0], ['it', 0, 2], ['is', 3, 5], ['hard', 6, 10], [',', 10, 11], ['and', 12, 15], ['it', 16, 18], ['is', 19, 21], ['slow', 22, 26], ['[SEP]', 26, 26]];
  const run = {
    words: true,
    labels: words.map(([text]) => text),
    tokens: words.map(([text, start, end]) => ({ text, start, end, special: text.startsWith('[') })),
  };
  for (const typed of ['is#2', 'is #2', 'IS#02', 'is#0002', 'is#00002', ' is #2 ']) assert.deepEqual(resolveToken(run, sentence, typed), { index: 7 }, typed);
  assert.deepEqual(resolveToken(run, sentence, 'is'), { index: 2 });
  assert.equal(tokenText(run, 7), 'is#2', 'the search writes it back so');
  assert.deepEqual(resolveToken(run, sentence, 'is#3'), { error: "'is' occurs 2 times in the sentence." });
  assert.deepEqual(resolveToken(run, sentence, `is#${'9'.repeat(400)}`), { error: "'is' occurs 2 times in the sentence." });
  assert.deepEqual(resolveToken(run, sentence, 'is#0'), { error: 'Occurrences count from 1 (is#1 is the first).' });
});
