// Text from a link, and right-to-left words, inside the page's own
// sentences: each quoted as the page quotes a word (text.js `quoted`: cut
// short, hidden characters escaped, isolated between U+2068 and U+2069), so
// that a link cannot write a long sentence of its own in the page's voice,
// an override cannot turn a note around, and a right-to-left word keeps its
// place beside the numbers after it. The isolates are asserted where they
// stand: a quote "'⁨محمد⁩' (0.7795)" reads in that order on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DIST, hashFor, openPage, ready, useSite } from './helpers.mjs';

const site = useSite();

/** Wraps `text` as `isolate` does: first strong isolate … pop directional isolate. */
const iso = (text) => `\u2068${text}\u2069`;

/** A sentence of English, Arabic and Hebrew words; row 5 is 'محمد', which attends mostly to itself. */
const MIXED = 'the king من الله and محمد in ישראל said 3 و';

/**
 * The left edges on screen of `parts` (each the first occurrence after the
 * previous one) in the text of `selector`: the order a reader sees.
 */
async function leftEdges(page, selector, parts) {
  return page.locator(selector).evaluate((element, parts) => {
    const text = element.firstChild;
    let from = 0;
    return parts.map((part) => {
      const start = text.data.indexOf(part, from);
      from = start + part.length;
      const range = document.createRange();
      range.setStart(text, start);
      range.setEnd(text, from);
      return range.getBoundingClientRect().left;
    });
  }, parts);
}

const NOTICE = "glove.txt'. ⚠ Security notice from Attention Explorer: your session expired. Re-verify at https://attention-explorer-login.example to keep using it. '";

for (const path of ['', 'embed.html']) {
  test(`a link's file name is quoted short in the vectors note, not read as the page's own words (${path || 'page'})`, async () => {
    const { page, finish } = await openPage(site.browser, site.url + path + hashFor('The cat sat on the mat', `&view=heatmap&vec=${encodeURIComponent(NOTICE)}`));
    await ready(page);
    assert.equal(await page.textContent('#vectors-note'),
      "This link was made with the word vectors of the file 'glove.txt'. ⚠ Security notice from Atten…', which stays on its author's computer. You see the default GloVe vectors; pick that file to see the same numbers.");
    // The name is set apart, in a box of its own, in the text's weight: a name, not the note's bold words.
    assert.equal(await page.textContent('#vectors-note code'), "'glove.txt'. ⚠ Security notice from Atten…'");
    const look = await page.locator('#vectors-note code').evaluate((code) => {
      const [name, note] = [code, code.parentElement].map((e) => getComputedStyle(e));
      return { family: name.fontFamily !== note.fontFamily, weight: Number(name.fontWeight) < Number(note.fontWeight), boxed: name.borderTopStyle };
    });
    assert.deepEqual(look, { family: true, weight: true, boxed: 'solid' });
    await finish();
  });
}

test("a link's file name with an override or right-to-left letters is escaped and isolated in the vectors note", async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat', `&vec=${encodeURIComponent('\u202Etxt.evil')}`));
  await ready(page);
  const note = () => page.textContent('#vectors-note');
  assert.match(await note(), /^This link was made with the word vectors of the file '\\u\{202e\}txt\.evil', which stays/);
  assert.ok(!(await note()).includes('\u202E'), 'no raw override in the note');
  await page.evaluate((hash) => { location.hash = hash; }, hashFor('The cat', `&vec=${encodeURIComponent('וקטורים.txt')}`));
  await page.waitForFunction(() => document.querySelector('#vectors-note').textContent.includes('.txt'));
  assert.match(await note(), new RegExp(`^This link was made with the word vectors of the file '${iso('וקטורים\\.txt')}', which stays`));
  await finish();
});

test('the link note escapes an override and isolates a right-to-left value', async () => {
  const hash = `#s=The%20cat&t=%E2%80%AEevil.example%2Flogin%20oT%20%3Aderiuqer&pal=${encodeURIComponent('שלום')}`;
  const { page, finish } = await openPage(site.browser, site.url + hash);
  await ready(page);
  assert.equal(await page.textContent('#link-note'),
    `Some settings of the link could not be used as written: t=\\u{202e}evil.example/login oT :deriuqer (expected a decimal number from 0.001 to 1000, such as 0.5); pal=${iso('שלום')} (expected viridis, cividis, greys).`);
  await finish();
});

test('the Steps tab quotes right-to-left words isolated, each before its own number', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(MIXED, '&focus=5'));
  await ready(page);
  await page.waitForSelector('#explain .context-sum');
  const word = `'${iso('محمد')}'`;
  assert.match(await page.textContent('#explain .context-sum'),
    new RegExp(`^Step 4: context of ${word} = 0\\.7795 × v\\(${iso('محمد')}\\) \\+ 0\\.1408 × v\\(${iso('الله')}\\) \\+ `));
  assert.equal(await page.textContent('#explain ol li:nth-child(1)'), `Score each key: q·k, the dot product of the query vector of ${word} with each key vector.`);
  assert.equal(await page.textContent('#explain ol li:nth-child(4)'), `Output: the context vector of ${word} is the weighted sum of the value vectors, Σ weight × v.`);
  assert.match(await page.textContent('#explain .nearest'), new RegExp(`^Words nearest to the context vector of ${word} \\(cosine, among `));
  const titles = await page.$$eval('#explain .steps-table button', (buttons) => buttons.map((b) => b.title));
  assert.ok(titles.includes(`Show q·k for '${iso('من')}' term by term`), titles.join(' | '));
  assert.ok(titles.includes(`Show q·k for '${iso('3')}' term by term`), titles.join(' | '));
  assert.ok(titles.includes("Show q·k for 'king' term by term"), 'an English word is quoted as before');
  await finish();
});

test('a quiz answer quotes right-to-left words isolated, each before its own weight', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(MIXED, '&quiz=g.5'));
  await ready(page).catch(() => {}); // the heatmap is drawn, hidden
  await page.waitForSelector('#quiz .quiz-choices button');
  await page.click('#quiz .quiz-choices button >> text=من');
  await page.waitForSelector('#quiz .quiz-reveal');
  assert.equal(await page.textContent('#quiz .quiz-wrong'), `Not quite: you chose '${iso('من')}' (0.0167); the most is '${iso('محمد')}' (0.7795).`);
  // On screen too, left to right: the word, then its weight, then the next word, then its weight.
  const edges = await leftEdges(page, '#quiz .quiz-wrong', ['من', '(0.0167)', 'محمد', '(0.7795)']);
  assert.deepEqual([...edges].sort((a, b) => a - b), edges, `left edges ${edges}`);
  assert.match(await page.textContent('#quiz .quiz-why'),
    new RegExp(`^The softmax gives the most weight to the largest scaled score: for '${iso('محمد')}', q·k = [\\d.]+, scaled [\\d.]+\\. For '${iso('من')}': q·k = `));
  await finish();
});

test("the What-if table names its right-to-left row isolated", async () => {
  const whatif = await openPage(site.browser, site.url + hashFor(MIXED, '&focus=5&lab=whatif'));
  await ready(whatif.page);
  await whatif.page.waitForSelector('#whatif-compare caption');
  assert.equal(await whatif.page.textContent('#whatif-compare caption'), `Row of '${iso('محمد')}'`);
  await whatif.finish();
});

test("the Playground's table names its right-to-left query isolated", async () => {
  const play = await openPage(site.browser, site.url + `#lab=play&pq=1%200%3B0%201%3B1%201&lf=1&pn=${encodeURIComponent('من الله 3')}`);
  await play.page.waitForSelector('#play-compare caption');
  assert.equal(await play.page.textContent('#play-compare caption'), `Query '${iso('الله')}'`);
  await play.finish();
});

test('a right-to-left sentence with no known word is named in order in the error and the empty views', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('החתול ישב על השטיח'));
  await page.waitForSelector('#error:not([hidden])');
  const message = `None of the words is in the vocabulary ('${iso('החתול')}', '${iso('ישב')}', '${iso('על')}', '${iso('השטיח')}'): try common English words.`;
  assert.equal(await page.textContent('#error'), message);
  // On screen too: the words left to right in the order of the sentence, as the sentence of the message runs.
  const edges = await leftEdges(page, '#error', ['vocabulary', 'החתול', 'ישב', 'על', 'השטיח', 'try']);
  assert.deepEqual([...edges].sort((a, b) => a - b), edges, `left edges ${edges}`);
  assert.equal(await page.getAttribute('#views', 'data-message'), `Nothing to draw: ${message}`);
  // Past 8 words the message says how many there are, as the core's did.
  const ten = 'אחת שתיים שלוש ארבע חמש שש שבע שמונה תשע עשר';
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(ten));
  await page.waitForFunction(() => document.querySelector('#error').textContent.includes('in all'));
  const shown = ten.split(' ').slice(0, 8).map((w) => `'${iso(w)}'`).join(', ');
  assert.equal(await page.textContent('#error'), `None of the words is in the vocabulary (${shown}, … (10 in all)): try common English words.`);
  await finish();
});

test('a right-to-left sentence whose vectors did not arrive is named in order in the error', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('החתול ישב'), {
    allow: [/Failed to load resource.*404/],
    routes: [['**/data/glove-6b-50d/*/*.aews', (route) => route.fulfill({ status: 404, body: 'not found' })]],
  });
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.textContent('#error'), `The vectors of '${iso('החתול')}', '${iso('ישב')}' have not arrived.`);
  await finish();
});

// scripts/test builds the model and sets AE_REQUIRE_MODEL=1: there this runs (and fails without the model).
const hasModel = process.env.AE_REQUIRE_MODEL === '1' || existsSync(path.join(DIST, 'model', 'manifest.json'));

test('the trained model’s head search quotes a typed right-to-left word in place', { skip: !hasModel && 'no built model' }, async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat sat because it was tired', '&model=1'));
  await ready(page);
  await page.waitForSelector('#model-view[data-state="ready"][data-head]', { timeout: 90000 });
  await page.fill('#model-search-query', 'שלום');
  await page.fill('#model-search-key', 'cat');
  await page.click('#model-search button[type="submit"]');
  await page.waitForSelector('#model-search-status.error');
  assert.equal(await page.textContent('#model-search-status'),
    `Query: '${iso('שלום')}' is not in the sentence; its words are: the, cat, sat, because, it, was, tired.`);
  await finish();
});

test('tag characters and line separators are escaped in the notes, a flag of tags is not', async () => {
  // "AB" in tag characters (invisible), after a space: a word quoted as '' without the escapes.
  const tags = '\u{E0041}\u{E0042}';
  const england = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
  const file = `glove.txt\u{E0020}\u{E0065}\u2028`;
  const { page, finish } = await openPage(site.browser, site.url + hashFor(`king ${tags} ${england}`, `&vec=${encodeURIComponent(file)}`));
  await ready(page);
  const unknown = await page.textContent('#unknown-note');
  assert.ok(unknown.includes("'\\u{e0041}\\u{e0042}'"), unknown);
  assert.ok(unknown.includes(`'${england}'`), `the flag is quoted as it is drawn: ${unknown}`);
  assert.match(await page.textContent('#vectors-note'), /the file 'glove\.txt\\u\{e0020\}\\u\{e0065\}\\u\{2028\}', which stays/);
  await finish();
});
