// The share format (www/js/state.js) without a browser: links once shared
// must keep working, bad values fall back to defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkCut, chunkEnd, grouped } from '../../www/js/text.js';
import { DEFAULT_SENTENCE, defaultState, formatHash, parseHash, settingsOf, textsOf } from '../../www/js/state.js';
import { syncUrl, writeBudget } from '../../www/js/url.js';
import { createStore } from '../../www/js/store.js';
import { hashFor, hashOf, launch, openPage, ready, rowOf, serveDist } from './helpers.mjs';

test('an empty hash is the default state', () => {
  assert.deepEqual(parseHash(''), defaultState());
  assert.deepEqual(parseHash('#'), defaultState());
  assert.equal(defaultState().sentence, DEFAULT_SENTENCE);
});

test('the address is written at most 80 times in any 30 s (Safari refuses the 101st), the first 20 at once', () => {
  let now = 0;
  const budget = writeBudget(() => now);
  const times = [];
  // Asked for 60 times a second for a minute, as a drag of a slider asks.
  for (let k = 0; k < 3600; k++) {
    now = (k * 1000) / 60;
    if (budget.wait() === 0) {
      budget.spend();
      times.push(now);
    }
  }
  // The first 20 asks are written as they come, then one every 500 ms.
  assert.deepEqual(times.slice(0, 20), Array.from({ length: 20 }, (_, k) => (k * 1000) / 60));
  assert.deepEqual(times.slice(20, 23), [500, 1000, 1500]);
  const most = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 30000).length));
  assert.ok(most <= 80 && most >= 75, `${most} writes in 30 s`);
  // Over budget, the wait is the time to the next write.
  const spent = writeBudget(() => 0, 1, 500);
  spent.spend();
  assert.equal(spent.wait(), 500);
});

test('a new address is read once: popstate and the hashchange that follows it are one navigation', () => {
  // The browser's side, as Chromium and Firefox do it: a new hash fires popstate, then hashchange;
  // Back to an entry of the same hash fires popstate alone.
  const saved = { window: globalThis.window, location: globalThis.location, history: globalThis.history };
  const target = new EventTarget();
  globalThis.window = target;
  globalThis.location = { hash: formatHash(defaultState()) };
  globalThis.history = { pushState() {}, replaceState() {} };
  try {
    const store = createStore(parseHash(location.hash));
    const heard = [];
    store.subscribe((state) => heard.push(state.sentence));
    let same = 0;
    syncUrl(store, { onSame: () => same++ });
    const go = (hash, events = ['popstate', 'hashchange']) => {
      location.hash = hash;
      for (const type of events) target.dispatchEvent(new Event(type));
    };
    go('#s=The%20cat%20sat');
    assert.deepEqual(heard, ['The cat sat']);
    assert.equal(same, 0, 'the hashchange after the popstate of one navigation is not read again');
    // Another spelling of the same state (a default written out): the page is told once.
    go('#s=The%20cat%20sat&t=1');
    assert.deepEqual([heard.length, same], [1, 1]);
    // Back to an entry of the same hash: popstate alone, read.
    go('#s=The%20cat%20sat&t=1', ['popstate']);
    assert.equal(same, 2);
    // A browser that fires hashchange alone (no popstate): still read.
    go('#s=A%20dog', ['hashchange']);
    assert.deepEqual(heard, ['The cat sat', 'A dog']);
    go('#s=A%20dog%20ran', ['hashchange']);
    assert.deepEqual(heard, ['The cat sat', 'A dog', 'A dog ran']);
  } finally {
    Object.assign(globalThis, saved);
  }
});

test('every key of the sentence and the options is read', () => {
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
  const problems = [];
  const state = parseHash('#s=hi&self=yes&causal=&scale=2&t=0&focus=-1&colour=dark&pal=rainbow', problems);
  assert.deepEqual(state, { ...defaultState(), sentence: 'hi' });
  // Every bad value is noted, so that the page can say which settings it did not understand; unknown keys are not.
  assert.deepEqual(problems.map((p) => p.key), ['self', 'causal', 'scale', 't', 'focus', 'pal']);
  assert.equal(parseHash('#t=1e9').temperature, 1);
  assert.equal(parseHash('#t=NaN').temperature, 1);
  assert.equal(parseHash('#focus=1.5').focus, null);
  assert.equal(parseHash('#focus=9999999').focus, null, 'more than six digits');
  assert.equal(typeof parseHash('#s=%E0%A4%A').sentence, 'string', 'a broken escape does not throw');
  // A key given twice: the first is used, and the second noted; a key of the page's written with capitals is noted.
  const twice = [];
  const doubled = parseHash('#s=The%20cat%20sat&s=A%20dog%20ran&th=0.3&th=0.5&S=Hello&Focus=1&colour=dark&COLOUR=red', twice);
  assert.deepEqual([doubled.sentence, doubled.threshold, doubled.focus], ['The cat sat', 0.3, null]);
  assert.deepEqual(twice, [
    { key: 's', value: 'A dog ran', expected: 's once: the first, The cat sat, is used' },
    { key: 'th', value: '0.5', expected: 'th once: the first, 0.3, is used' },
    { key: 'S', value: 'Hello', expected: 's: keys are written in lower case' },
    { key: 'Focus', value: '1', expected: 'focus: keys are written in lower case' },
  ]);
});

test('a sentence whose bytes are not UTF-8 is shown with U+FFFD and noted; one that writes U+FFFD is not', () => {
  for (const hash of ['#s=king%ED%A0%80queen', '#s=king%E2%82', '#s=%FF']) {
    const problems = [];
    const state = parseHash(hash, problems);
    assert.ok(state.sentence.includes('\uFFFD'), hash);
    assert.deepEqual(problems.map((p) => [p.key, p.expected]), [['s', 'UTF-8 text: the bytes that are not are shown as �']], hash);
  }
  for (const hash of ['#s=a%EF%BF%BDb', '#s=a\uFFFDb', formatHash({ ...defaultState(), sentence: 'x \uFFFD y' })]) {
    const problems = [];
    assert.ok(parseHash(hash, problems).sentence.includes('\uFFFD'), hash);
    assert.deepEqual(problems, [], hash);
  }
});

test('a temperature is kept exactly as the link wrote it, or refused; a threshold to 2 decimals, as its slider', () => {
  assert.equal(parseHash('#t=999.99').temperature, 999.99);
  assert.match(formatHash(parseHash('#t=999.99')), /&t=999\.99$/);
  assert.equal(parseHash('#t=0.001').temperature, 0.001);
  assert.equal(parseHash('#t=1000').temperature, 1000);
  for (const bad of ['1000.01', '1e3', '-2', '0x10', ' 2', '2.5.1', '0.0004', '.']) assert.equal(parseHash(`#t=${bad}`).temperature, 1, bad);
  // √10 and a half as someone writes them by hand: kept as written, the temperature the CLI computes with.
  assert.equal(parseHash('#t=3.16227766').temperature, 3.16227766);
  assert.match(formatHash(parseHash('#t=0.0012345')), /&t=0\.0012345$/);
  assert.equal(parseHash('#t=.5').temperature, 0.5);
  const problems = [];
  assert.deepEqual(['0.333', '.5', '0', '0.9'].map((th) => parseHash(`#th=${th}`, problems).threshold), [0.33, 0.5, 0, 0.9]);
  assert.deepEqual(problems, []);
  for (const bad of ['0.95', '1', '-0.1', '0,5']) assert.equal(parseHash(`#th=${bad}`).threshold, 0.1, bad);
});

test('a cut emoji or a lone surrogate is repaired, never thrown', () => {
  const cutEmoji = 'The cat 😀'.slice(0, -1); // the first half of the emoji only
  const hash = formatHash({ ...defaultState(), sentence: cutEmoji, teach: { ...defaultState().teach, b: '\uDE00 alone' } });
  assert.match(hash, /^#s=The%20cat%20%EF%BF%BD&/);
  assert.equal(parseHash(hash).sentence, 'The cat \uFFFD');
  assert.equal(parseHash('#s=' + '😀'.repeat(10001)).sentence.length, 20000, 'cut between two emoji, not inside one');
  assert.equal(parseHash('#s=a%ED%A0%80b').sentence, 'a\uFFFD\uFFFD\uFFFDb', 'an escaped lone surrogate decodes to replacement characters');
});

test('the palette, the theme, the zoom and the embedded view round-trip', () => {
  const state = { ...defaultState(), palette: 'cividis', theme: 'dark', zoom: { row: 10, col: 20, size: 24 }, view: 'heads', threshold: 0.25 };
  assert.deepEqual(parseHash(formatHash(state)), state);
  assert.match(formatHash(state), /&th=0\.25&pal=cividis&theme=dark&zoom=10,20,24&view=heads/);
});

test('a very long sentence from a link is cut, not refused', () => {
  assert.equal(parseHash('#s=' + 'a'.repeat(50000)).sentence.length, 20000);
});

test('a temperature of more than six decimals is computed as written, as the CLI computes it, and stays in the link', async () => {
  const server = await serveDist();
  const browser = await launch();
  try {
    const { page, finish } = await openPage(browser, server.url + hashFor('to they', '&t=0.0012345&focus=0'));
    await ready(page);
    // attention --json --temperature 0.0012345 -- "to they": 0.8842076, 0.11579241 (0.001234 gives 0.8843, 0.1157).
    assert.deepEqual(await rowOf(page, 'to'), [0.8842, 0.1158]);
    assert.match(await page.textContent('#status'), /÷ 0\.0012345$/);
    assert.equal((await hashOf(page)).t, '0.0012345');
    await finish();
  } finally {
    await browser.close();
    await server.close();
  }
});

test('opened, a link’s sentence over the limit fills the box up to its last whole word, and the link note says where it was cut', async () => {
  const server = await serveDist();
  const browser = await launch();
  try {
    const { page, finish } = await openPage(browser, server.url + hashFor(`the ${'z'.repeat(19990)} kingdom queen`));
    await ready(page);
    const box = await page.inputValue('#sentence');
    assert.ok(box === `the ${'z'.repeat(19990)}`, `the box ends in ${JSON.stringify(box.slice(-12))} (${box.length} characters)`);
    const chips = await page.$$eval('#tokens .token', (list) => list.map((t) => t.textContent));
    assert.ok(!chips.includes('kingd'), 'no word cut in two');
    assert.ok(await page.isVisible('#link-note'));
    assert.match(await page.textContent('#link-note'), /s=the z+… \(expected at most 20,000 characters: the sentence was cut after its first 2 words \(19,994 characters\), before 'kingdom queen'\)/);
    // The parser run in the browser (the tests above run it in Node): the cut text's link notes nothing, a text that fits is kept as written.
    const again = await page.evaluate(async (texts) => {
      const { formatHash, parseHash } = await import('./src/js/state.js');
      return texts.map((text) => {
        const problems = [];
        const state = parseHash(`#s=${encodeURIComponent(text)}`, problems);
        return [state.sentence === text, parseHash(formatHash(state), problems).sentence === text, problems];
      });
    }, [`the ${'z'.repeat(19990)}`, `${'a '.repeat(9999)}b `]);
    assert.deepEqual(again, [[true, true, []], [true, true, []]]);
    await finish();
  } finally {
    await browser.close();
    await server.close();
  }
});

test('the examples menu fills after the first heatmap, shows the sentence it holds, and draws the one picked, in the link too', async () => {
  const server = await serveDist();
  const browser = await launch();
  try {
    const { page, finish } = await openPage(browser, server.url);
    await ready(page);
    await page.waitForFunction(() => document.querySelectorAll('#examples option').length > 2);
    // Its file is not among what the first heatmap waits for.
    const asked = await page.evaluate(() => performance.getEntriesByType('resource').find((r) => r.name.endsWith('/examples.txt')).startTime);
    assert.ok(asked >= await page.evaluate(() => performance.getEntriesByName('first-heatmap')[0].startTime), 'examples.txt asked for before the first heatmap');
    assert.equal(await page.inputValue('#examples'), DEFAULT_SENTENCE);
    const cat = 'The cat sat on the mat because it was tired';
    await page.selectOption('#examples', cat);
    await page.waitForFunction((first) => document.querySelector('#weights thead th:nth-child(2)')?.textContent === first, 'the');
    await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 11);
    assert.equal(await page.inputValue('#sentence'), cat);
    await page.waitForFunction((hash) => location.hash.startsWith(hash), `#s=${encodeURIComponent(cat)}`);
    // A sentence of none of them shows the menu's name.
    await page.fill('#sentence', 'Zebras graze');
    await page.waitForFunction(() => document.querySelector('#examples').value === '');
    await finish();
  } finally {
    await browser.close();
    await server.close();
  }
});

test('settings for the wasm boundary use its field names', () => {
  assert.deepEqual(settingsOf(parseHash('#self=0&t=3')), { scale: true, selfAttention: false, causal: false, temperature: 3 });
});

test('the <attention-viz> element passes on every key a share link has', async () => {
  const { readFile } = await import('node:fs/promises');
  const root = new URL('../../', import.meta.url);
  const element = await readFile(new URL('www/attention-viz.js', root), 'utf8');
  const listed = new Set(element.match(/const KEYS = \[([^\]]*)\]/)[1].match(/'[a-z]+'/g).map((k) => k.slice(1, -1)));
  const documented = [...(await readFile(new URL('docs/share-links.md', root), 'utf8')).matchAll(/^\| `([a-z]+)`(?:, `([a-z]+)`)?(?:, `([a-z]+)`)?/gm)]
    .flatMap((m) => m.slice(1).filter(Boolean));
  assert.ok(documented.length > 40, `keys found in docs/share-links.md: ${documented}`);
  assert.deepEqual(documented.filter((k) => !listed.has(k)), [], 'keys the element would drop');
});

test('counts are written as en-US writes them, without Intl', () => {
  const numbers = [0, 7, 999, 1000, 20003, 400000, 1234567, -1234, 1e9 + 1];
  for (let k = 1; k < 2e6; k = Math.ceil(k * 1.37)) numbers.push(k);
  for (const n of numbers) assert.equal(grouped(n), n.toLocaleString('en-US'), String(n));
});

test('the words a link needs: its sentence, and sentence B only while cross-attention is open', () => {
  assert.equal(textsOf(parseHash('#s=The%20cat%20sat')), 'The cat sat');
  assert.equal(textsOf(parseHash('#s=The%20cat&lab=cross&b=A%20dog')), 'The cat\nA dog');
  assert.equal(textsOf(parseHash('#s=The%20cat&lab=steps&b=A%20dog')), 'The cat');
});

test('a text is cut after its first max whitespace-separated chunks, or not at all', () => {
  assert.equal(chunkCut('the cat  sat on', 2), 7, "after 'cat'");
  assert.equal(chunkCut('  the cat ', 2), -1, 'two chunks fit');
  assert.equal(chunkCut('', 1), -1);
});

test('a chunk ends at the next white space the tokenizer cuts at, or at the end of the text', () => {
  assert.equal(chunkEnd('the king, and', 4), 9, "'king,' is one chunk");
  assert.equal(chunkEnd('the king, and', 3), 3, 'at a space: there');
  assert.equal(chunkEnd('the king', 5), 8, 'the end of the text');
  assert.equal(chunkEnd('king\u00a0queen', 0), 4, 'a no-break space is white space, as in Rust');
  assert.equal(chunkEnd('king\u2003queen', 0), 4, 'so is an em space');
});

test("a link's bad value is shown cut short in the note, whoever passes it whole", async () => {
  const { describeProblems } = await import('../../www/js/params.js');
  // The Multi-head tab checks `hide` against its head count and passes the whole list.
  const hide = Array.from({ length: 10000 }, (_, k) => k).join(',');
  const note = describeProblems([{ key: 'hide', value: hide, expected: 'heads from 0 to 1' }]);
  assert.equal(note, 'Some settings of the link could not be used as written: hide=\u20680,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16…\u2069 (expected heads from 0 to 1).');
});
