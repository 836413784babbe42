// The trained-model view in Chromium, from the built files in dist/model/
// (scripts/build copies model/ there; scripts/build-model makes model/).
// Without them every test here fails on purpose: CI builds the model, and a
// silent skip would hide a broken pipeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { assertClose, DIST, everythingKept, hashFor, hashOf, openPage, readTable, ready, ROOT, serveDist, useSite } from './helpers.mjs';

const GOLDEN = JSON.parse(readFileSync(path.join(ROOT, 'tests/golden/minilm-l5h11.json'), 'utf8'));
const CAT = GOLDEN.sentence;
/** The table prints 4 decimals; the page must agree with the reference within 1e-4 there. */
const TOLERANCE = 1e-4;
const MODEL_LOAD_MS = 90000;
/** Chromium logs a failed fetch as a console error; the page's own message is what we check. */
const ALLOW_404 = [/status of 404/];

const site = useSite({
  check: () => assert.ok(
    existsSync(path.join(DIST, 'model', 'manifest.json')),
    'dist/model/manifest.json is missing: the trained-model tests need the built model. Run scripts/build-model, then scripts/build (scripts/test does both).',
  ),
});

/** Opens the model view with its button and waits for the first head. */
async function openModel(page) {
  await page.click('#model-open');
  await modelReady(page);
}

async function modelReady(page) {
  await page.waitForSelector('#model-view[data-state="ready"][data-head]', { timeout: MODEL_LOAD_MS });
}

function thumb(page, layer, head) {
  return page.locator(`#model-grid .model-thumb[data-layer="${layer}"][data-head="${head}"]`);
}

/** Waits until the table shows head (layer, head). */
async function tableShows(page, layer, head) {
  await page.waitForSelector(`table#weights[data-layer="${layer}"][data-head="${head}"]`);
}

function assertRows(table, expectedRows) {
  for (const [i, expected] of Object.entries(expectedRows)) {
    const row = table.rows[Number(i)];
    assert.ok(row, `no row ${i}`);
    for (const cell of row.cells) assert.match(cell, /^\d\.\d{4}$/);
    assertClose(row.cells.map(Number), expected, TOLERANCE);
  }
}

/** Every request the context's pages make, as paths (not the service worker's own). */
function recordPaths(context) {
  const paths = [];
  context.on('request', (request) => request.serviceWorker() || paths.push(new URL(request.url()).pathname));
  return paths;
}

test('the model view loads from the built files, shows 72 heads, and layer 5 head 11 has the reference numbers', async () => {
  const { page, context, finish } = await openPage(site.browser, null, { origins: [new URL(site.url).origin] });
  const paths = recordPaths(context);
  await page.goto(site.url + hashFor(CAT, '&focus=7'));
  await ready(page);
  // The first load fetches nothing of the model.
  assert.deepEqual(paths.filter((p) => /model/.test(p)), [], 'model files before the view opens');
  assert.equal(await page.locator('#model-view').isHidden(), true);
  // Its button says what a click downloads: the core and the model's wasm.
  const { core } = JSON.parse(readFileSync(path.join(DIST, 'model', 'manifest.json'), 'utf8'));
  const megabytes = Math.round((core.bytes + readFileSync(path.join(DIST, 'pkg-model', 'attention_model_wasm_bg.wasm')).length) / 1e6);
  assert.ok(megabytes >= 20, `${megabytes} MB`);
  assert.equal(await page.textContent('#model-open'), `Compare with a trained transformer: MiniLM’s 72 attention heads (about ${megabytes} MB, downloaded once)`);

  await openModel(page);
  assert.equal(await page.locator('#model-grid .model-thumb').count(), 72);
  assert.equal(await page.locator('#model-grid .model-grid-row:not(.model-grid-header)').count(), 6, 'a row per layer');
  // Only the core and the shards of this sentence's pieces were downloaded.
  const shards = paths.filter((p) => p.startsWith('/model/embeddings/'));
  assert.deepEqual(shards.map((p) => Number(p.match(/(\d{4})\.aeemb$/)[1])).sort((a, b) => a - b), [3, 62, 66, 91, 154, 170, 422]);
  assert.equal(paths.filter((p) => p === '/model/minilm-core.aebm').length, 1);

  // Another head first, then the one of the acceptance test.
  await thumb(page, 0, 0).click();
  await tableShows(page, 0, 0);
  assert.equal(await thumb(page, 0, 0).getAttribute('aria-pressed'), 'true');
  const other = await readTable(page);
  await thumb(page, 5, 11).click();
  await tableShows(page, 5, 11);
  assert.equal(await thumb(page, 5, 11).getAttribute('aria-pressed'), 'true');
  assert.equal(await thumb(page, 0, 0).getAttribute('aria-pressed'), 'false');
  const table = await readTable(page);
  assert.notDeepEqual(table.rows[8].cells, other.rows[8].cells, 'another head has other numbers');
  assert.deepEqual(table.header, GOLDEN.pieces.map((p) => p.text));
  assert.deepEqual(table.rows.map((r) => r.query), GOLDEN.pieces.map((p) => p.text));
  assertRows(table, GOLDEN.rows);
  assert.equal(table.rows[8].cells[2], '0.6825', "'it' → 'cat'");
  assert.ok(table.rows[8].focused, "the GloVe focus 'it' is the model's focused row");
  const hash = await hashOf(page);
  assert.deepEqual([hash.model, hash.mlayer, hash.mhead, hash.units, hash.special], ['1', '5', '11', 'pieces', '1']);
  // One table with that id: the GloVe table stepped aside.
  assert.equal(await page.locator('table#weights').count(), 1);
  assert.equal(await page.locator('table#glove-weights').count(), 1);

  // Back returns to the previous head; Close gives the GloVe table its id back.
  await page.goBack();
  await tableShows(page, 0, 0);
  await page.click('#model-view .model-head button');
  assert.equal(await page.locator('#model-view').isHidden(), true);
  assert.equal((await hashOf(page)).model, undefined);
  assert.deepEqual((await readTable(page)).header, ['the', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'tired']);
  await finish();
});

test('a link opens the exact head, in whole words without [CLS]/[SEP]', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&focus=7&model=1&mlayer=5&mhead=11&units=words&special=0'));
  await ready(page);
  await modelReady(page);
  await tableShows(page, 5, 11);
  const view = GOLDEN.words_without_special;
  const table = await readTable(page);
  assert.deepEqual(table.header, view.words.map((w) => w.text));
  assertRows(table, view.rows);
  assert.equal(await page.isChecked('#model-view input[value="words"]'), true);
  assert.equal(await page.isChecked('#model-special'), false);
  assert.equal(await thumb(page, 5, 11).getAttribute('aria-pressed'), 'true');
  // The comparison names the same word on both sides.
  const compare = page.locator('#model-compare');
  assert.equal(await compare.getAttribute('data-glove-word'), 'it');
  assert.equal(await compare.getAttribute('data-model-word'), 'it');
  assert.deepEqual(await compare.locator('h3').allTextContents(), ['GloVe: raw vectors', 'MiniLM: layer 5, head 11']);
  // The page's options shape the GloVe column alone, and its title says which.
  await page.check('#opt-causal');
  await page.waitForFunction(() => document.querySelector('#model-compare h3')?.textContent === 'GloVe: raw vectors, causal mask');
  await page.uncheck('#opt-causal');
  await page.waitForFunction(() => document.querySelector('#model-compare h3')?.textContent === 'GloVe: raw vectors');

  // Switching back to pieces keeps the word in focus.
  await page.check('#model-view input[value="pieces"]');
  // Pieces are lower-cased ('the'); the word view writes words as typed ('The').
  await page.waitForFunction(() => document.querySelector('table#weights thead th:nth-child(2)')?.textContent === 'the');
  assert.equal((await readTable(page)).rows.find((r) => r.focused)?.query, 'it');
  const hash = await hashOf(page);
  assert.equal(hash.units, 'pieces');
  assert.equal(hash.focus, '7');
  await finish();
});

test('bad model keys fall back to the defaults, each named in the link note and dropped from the link', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&model=1&mlayer=99&mhead=12&units=bogus&special=2'));
  await ready(page);
  await modelReady(page);
  await tableShows(page, 5, 11);
  assert.equal((await readTable(page)).header[0], '[CLS]');
  let hash = await hashOf(page);
  assert.deepEqual([hash.mlayer, hash.mhead, hash.units, hash.special], ['5', '11', 'pieces', '1']);
  const note = await page.textContent('#link-note');
  for (const named of ['mlayer=99 (expected a layer from 0 to 5)', 'mhead=12 (expected a head from 0 to 11)', 'units=bogus (expected pieces or words)', 'special=2 (expected 0 or 1)']) {
    assert.ok(note.includes(named), `${named} in: ${note}`);
  }

  // Token indices past the end are known only once the model has tokenized: dropped then, and said.
  // (A load, not a hash change: the page notes a link's problems when it opens it.)
  await page.goto('about:blank');
  await page.goto(site.url + hashFor(CAT, '&model=1&mrank=bogus&mflow=bogus&mfocus=999&mcell=999&mq=40&mk=2'));
  await ready(page);
  await modelReady(page);
  assert.match(await page.textContent('#link-note'), /mrank=bogus \(expected previous, next, self, special, same-word, focus\); mflow=bogus \(expected rollout or average\)/);
  await page.waitForSelector('#model-dropped:not([hidden])');
  assert.equal(await page.textContent('#model-dropped'),
    'The link’s mfocus=999 (the focused token) points past the end of this sentence, which has 12 pieces (0 to 11), so it was dropped. ' +
    'The link’s mcell=999 (the step panel’s key, counted in pieces) points past the end of this sentence, which has 12 pieces with [CLS] and [SEP] (0 to 11), so it was dropped.');
  assert.match(await page.textContent('#model-search-status'), /^The link’s mq=40 \(the head search’s query\) points past the end of this sentence, which has 12 pieces \(0 to 11\), so the search was dropped\./);
  hash = await hashOf(page);
  assert.deepEqual([hash.mrank, hash.mflow, hash.mfocus, hash.mcell, hash.mq, hash.mk], [undefined, undefined, undefined, undefined, undefined, undefined]);

  // Half a head search, a query without its key or a key without its query, is no search: dropped and named too.
  for (const [half, other] of [['mq=8', 'mk'], ['mk=2', 'mq']]) {
    await page.goto('about:blank');
    await page.goto(site.url + hashFor(CAT, `&model=1&${half}`));
    await ready(page);
    await modelReady(page);
    const said = await page.textContent('#link-note');
    assert.ok(said.includes(`${half} (expected ${other} with it: a head search needs a query and a key)`), said);
    hash = await hashOf(page);
    assert.deepEqual([hash.mq, hash.mk], [undefined, undefined], `${half} left out of the link`);
  }
  await finish();
});

test("the focus maps between the GloVe and model tokens through accented text", async () => {
  // Every accented letter is 2 UTF-8 bytes but 1 UTF-16 unit: a wrong
  // conversion of the model's byte spans would land on another word.
  const sentence = 'Café crème, déjà vu: the cat sat because it was tired';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(sentence, '&model=1'));
  await ready(page);
  await modelReady(page);
  // GloVe → model: click the word 'it' above the GloVe views.
  await page.locator('#tokens button.token', { hasText: /^it$/ }).click();
  const compare = page.locator('#model-compare');
  await page.waitForFunction(() => document.querySelector('#model-compare')?.dataset.modelWord === 'it');
  assert.equal(await compare.getAttribute('data-glove-word'), 'it');
  assert.equal((await readTable(page)).rows.find((r) => r.focused)?.query, 'it');
  // Model → GloVe: move the model focus up two pieces with the keyboard, to 'sat' ('because' is between).
  await page.focus('#model-heatmap-overlay');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('#model-compare')?.dataset.modelWord === 'sat');
  assert.equal(await compare.getAttribute('data-glove-word'), 'sat');
  assert.equal(await page.locator('#tokens button.token.focused').textContent(), 'sat');
  // The link keeps both: the GloVe row and the model's own token.
  const hash = await hashOf(page);
  const modelTokens = (await readTable(page)).header;
  assert.equal(modelTokens[Number(hash.mfocus)], 'sat');
  // A word of several pieces maps to its first, as the head search and the
  // CLI take it: 'crème' is 'cr' '##eme', and the longer '##eme' is not it.
  await page.locator('#tokens button.token', { hasText: /^crème$/ }).click();
  await page.waitForFunction(() => document.querySelector('#model-compare')?.dataset.gloveWord === 'crème');
  assert.equal(await compare.getAttribute('data-model-word'), 'cr');
  await finish();
});

test('beside the reader’s own vectors, the comparison names them, not GloVe', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the cat sat because it was tired', '&model=1&focus=4'));
  await ready(page);
  await modelReady(page);
  await page.setInputFiles('#vectors-file', { name: 'tiny.vec', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\ncat 0 1 0\nsat 0 0 1\nbecause 1 1 0\nit 0 1 1\nwas 1 0 1\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'), null, { timeout: 20000 });
  await page.waitForFunction(() => document.querySelector('#model-compare h3')?.textContent.startsWith('Your vectors'));
  assert.deepEqual(await page.locator('#model-compare h3').allTextContents(), ["Your vectors ('tiny.vec'): raw", 'MiniLM: layer 5, head 11']);
  await finish();
});

test('clicking a cell of the open head focuses its query, and the tooltip gives the weight', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&model=1'));
  await ready(page);
  await modelReady(page);
  const overlay = page.locator('#model-heatmap-overlay');
  await overlay.scrollIntoViewIfNeeded();
  // Parts of the view drawn in later frames can move the heatmap: measure it once it stays put.
  await overlay.evaluate((canvas) => new Promise((resolve) => {
    let last = null;
    const check = () => {
      const { x, y, width } = canvas.getBoundingClientRect();
      const now = `${x} ${y} ${width} ${canvas.dataset.matrix} ${canvas.dataset.cell}`;
      if (now === last) resolve();
      else requestAnimationFrame(() => requestAnimationFrame(check));
      last = now;
    };
    check();
  }));
  const box = await overlay.boundingBox();
  const [x, y] = (await overlay.getAttribute('data-matrix')).split(',').map(Number);
  const cell = Number(await overlay.getAttribute('data-cell'));
  // Row 8 ('it'), column 2 ('cat').
  await page.mouse.click(box.x + x + 2.5 * cell, box.y + y + 8.5 * cell);
  await page.waitForFunction(() => document.querySelector('#model-compare')?.dataset.modelWord === 'it');
  const tooltip = await page.locator('#model-tooltip').innerText();
  assert.match(tooltip, /'it' → 'cat'/);
  assert.match(tooltip, /weight 0\.682[45]/);
  assert.equal((await hashOf(page)).mfocus, '8');
  assert.equal(await page.locator('#tokens button.token.focused').textContent(), 'it');
  await finish();
});

test('the keyboard on the open head hears that head’s weights, not GloVe’s', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&model=1&mlayer=5&mhead=11'));
  await ready(page);
  await modelReady(page);
  const glove = await page.locator('#announce').textContent();
  // Down to piece 8, 'it' ([CLS] is 0), then along its row to 'cat' (piece 2).
  await page.focus('#model-heatmap-overlay');
  for (let k = 0; k < 9; k++) await page.keyboard.press('ArrowDown');
  const said = page.locator('#model-announce');
  await page.waitForFunction(() => document.querySelector('#model-announce').textContent.includes('Focus on it'));
  // The page's table shows this head's row: the region names its three strongest keys.
  const row = (await readTable(page)).rows.find((r) => r.focused);
  assert.equal(row.query, 'it');
  const header = (await readTable(page)).header;
  const top = row.cells.map((w, j) => [header[j], j, w]).sort((a, b) => Number(b[2]) - Number(a[2])).slice(0, 3);
  assert.equal(await said.textContent(), `Layer 5, head 11: Focus on it (token 9). Strongest keys: ${top.map(([w, j, v]) => `${w} (token ${j + 1}) ${v}`).join(', ')}.`);
  assert.equal(top[0][0], 'cat');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#model-announce').textContent.startsWith('Layer 5, head 11: Query it (token 9), key'));
  assert.match(await said.textContent(), /^Layer 5, head 11: Query it \(token 9\), key \S+ \(token \d+\): weight 0\.\d{4}\.$/);
  // GloVe's region kept still: it would name the same word with GloVe's weights.
  assert.equal(await page.locator('#announce').textContent(), glove);
  await finish();
});

test('typing with the model view open, its result is said once the keys pause, not twice a key', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat', '&model=1'));
  await ready(page);
  await modelReady(page);
  // What the live regions of the model's status say from now on.
  await page.evaluate(() => {
    window.modelSaid = [];
    const regions = [...document.querySelectorAll('#model-view .model-loading :is([role="status"], [aria-live]:not([aria-live="off"]))')];
    const last = new Map(regions.map((region) => [region, region.textContent]));
    new MutationObserver(() => {
      for (const region of regions) {
        if (region.textContent && region.textContent !== last.get(region)) window.modelSaid.push(region.textContent);
        last.set(region, region.textContent);
      }
    }).observe(document.getElementById('model-view'), { subtree: true, childList: true, characterData: true });
  });
  await page.focus('#sentence');
  await page.keyboard.press('End');
  await page.keyboard.type(' sat on the mat', { delay: 120 });
  await page.waitForFunction(() => window.modelSaid.some((t) => /^8 pieces · all 72 heads computed$/.test(t)), null, { timeout: MODEL_LOAD_MS });
  // Fifteen keys: the visible line changed twice at each (Running…, then its result), every one said.
  assert.deepEqual(await page.evaluate(() => window.modelSaid), ['8 pieces · all 72 heads computed']);
  await finish();
});

test('on a 320 px screen the model view fits: its arrows as wide as their box, no sideways scroll', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&focus=7&model=1&mlayer=5&mhead=11'), { viewport: { width: 320, height: 800 }, phone: true });
  await modelReady(page);
  // Drawn first at a width guessed before the box is measured, then at the box's (its observer's callback, a frame or two later):
  // the arrows were 320 px wide for good.
  await page.waitForFunction(() => {
    const arrows = document.querySelector('#model-arrows');
    return arrows?.style.width && arrows.getBoundingClientRect().width === arrows.parentElement.getBoundingClientRect().width;
  }, null, { timeout: 10000 });
  const { scroll, client, arrows, box } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
    arrows: document.querySelector('#model-arrows').getBoundingClientRect().width, box: document.querySelector('#model-arrows').parentElement.getBoundingClientRect().width,
  }));
  assert.equal(scroll, client);
  assert.equal(arrows, box, 'the arrows were 320 px wide whatever their box');
  await finish();
});

test('the model view is drawn styled from its first frame, and drawn even when its style sheet fails', async () => {
  // model.css comes 500 ms after the view's code: before, the view showed unstyled (1,800 px tall) until it did.
  for (const sheet of ['late', 'missing']) {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT), {
      allow: ALLOW_404,
      routes: [['**/model.css', async (route) => {
        if (sheet === 'missing') return route.fulfill({ status: 404, body: 'not found' });
        await new Promise((resolve) => setTimeout(resolve, 500));
        return route.continue().catch(() => {});
      }]],
    });
    await ready(page);
    await page.evaluate(() => {
      window.looks = [];
      const root = document.getElementById('model-view');
      let clicked = false;
      document.getElementById('model-open').addEventListener('click', () => {
        clicked = true;
      }, { capture: true });
      const look = () => {
        if (window.stopLooking) return;
        const styled = [...document.styleSheets].some((s) => s.href?.endsWith('/model.css'));
        if (clicked) window.looks.push({ drawn: root.childElementCount > 0 && !root.hidden, styled });
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await page.click('#model-open');
    await page.locator('#model-view .model-head').waitFor();
    const frames = await page.evaluate(() => {
      window.stopLooking = true;
      return window.looks;
    });
    if (sheet === 'late') {
      // Frames after the click: about 30 before the sheet comes (a few with scripts/test-browser --slow-frames).
      assert.ok(frames.filter((f) => !f.drawn).length >= 1, 'the view waits for its sheet');
      assert.deepEqual(frames.filter((f) => f.drawn && !f.styled), [], 'never drawn without its sheet');
    } else {
      assert.match(await page.textContent('#model-view h2'), /A trained transformer/);
    }
    await finish();
  }
});

test('a 404 on the model weights says which file failed, and GloVe keeps working', async () => {
  const { page, finish } = await openPage(site.browser, null, {
    allow: ALLOW_404,
    origins: [new URL(site.url).origin],
    routes: [['**/model/minilm-core.aebm', (route) => route.fulfill({ status: 404, body: 'not found' })]],
  });
  await page.goto(site.url + hashFor(CAT, '&focus=7&model=1'));
  await ready(page);
  const error = page.locator('#model-view .model-error');
  await error.waitFor({ state: 'visible', timeout: MODEL_LOAD_MS });
  assert.match(await error.textContent(), /minilm-core\.aebm.*HTTP 404/);
  assert.equal(await page.locator('#model-view').getAttribute('data-state'), 'error');
  assert.equal(await page.textContent('#model-view .model-status'), 'The model could not be loaded.', 'not "Starting…" beside the error');
  // The GloVe view is untouched and still owns the table.
  assert.equal((await readTable(page)).header[0], 'the');
  assert.equal(await page.locator('#error').isHidden(), true);
  await finish();
});

test('a 404 on an embedding shard names the shard', async () => {
  const { page, finish } = await openPage(site.browser, null, {
    allow: ALLOW_404,
    origins: [new URL(site.url).origin],
    routes: [['**/model/embeddings/*.aeemb', (route) => route.fulfill({ status: 404, body: 'not found' })]],
  });
  await page.goto(site.url + hashFor(CAT, '&model=1'));
  await ready(page);
  const error = page.locator('#model-view .model-error');
  await error.waitFor({ state: 'visible', timeout: MODEL_LOAD_MS });
  assert.match(await error.textContent(), /embeddings\/\d{4}\.aeemb.*HTTP 404/);
  await finish();
});

test('a worker script that failed to load is started anew by Try again, and by reopening the view', async (t) => {
  // The server lacks the worker's script while `missing` holds (a site caught half-way through an update).
  let missing = true;
  const server = await serveDist(DIST, { answers: { '/js/model-worker.js': () => (missing ? { status: 404, body: 'not found' } : null) } });
  t.after(() => server.close());
  const failed = async (page) => {
    await ready(page);
    const error = page.locator('#model-view .model-error');
    await error.waitFor({ state: 'visible', timeout: MODEL_LOAD_MS });
    assert.match(await error.textContent(), /^The model's worker stopped: its script could not be loaded\./);
    missing = false;
  };
  const first = await openPage(site.browser, server.url + hashFor(CAT, '&model=1'), { allow: ALLOW_404 });
  await failed(first.page);
  await first.page.click('#model-view button:has-text("Try again")');
  await modelReady(first.page);
  await tableShows(first.page, 5, 11);
  await first.finish();

  missing = true;
  const second = await openPage(site.browser, server.url + hashFor(CAT, '&model=1'), { allow: ALLOW_404 });
  await failed(second.page);
  await second.page.click('#model-view button:has-text("Close")');
  await second.page.click('#model-open');
  await modelReady(second.page);
  await tableShows(second.page, 5, 11);
  await second.finish();
});

test('without model files the view says how to build them', async (t) => {
  // The server has no manifest (the model worker's first request: served, not routed).
  const server = await serveDist(DIST, { answers: { '/model/manifest.json': () => ({ status: 404, body: 'not found' }) } });
  t.after(() => server.close());
  const { page, finish } = await openPage(site.browser, server.url + hashFor(CAT), { allow: ALLOW_404 });
  await ready(page);
  await page.click('#model-open');
  const error = page.locator('#model-view .model-error');
  await error.waitFor({ state: 'visible', timeout: MODEL_LOAD_MS });
  assert.match(await error.textContent(), /manifest\.json answered HTTP 404.*scripts\/build-model/);
  await finish();
});

test('a text beyond the model\'s 512 pieces is refused in a sentence, with nothing left saying "Running…"; a shorter one runs', async () => {
  const words = 'the king and queen ruled the kingdom while people said that it was good'.split(' ');
  const long = Array.from({ length: 600 }, (_, k) => words[k % words.length]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(long, '&model=1'));
  await ready(page);
  await page.waitForSelector('#model-view[data-state="error"]', { timeout: MODEL_LOAD_MS });
  assert.equal(await page.textContent('#model-view .model-error'),
    'The sentence has 602 pieces with [CLS] and [SEP]; the model reads at most 512: shorten it.');
  assert.equal(await page.locator('#model-view .model-loading').isVisible(), false, 'the download line is gone');
  assert.equal(await page.textContent('#model-view .model-status'), 'The model could not run this sentence.', 'its line agrees with the error');
  await page.fill('#sentence', CAT);
  await modelReady(page);
  assert.equal(await page.locator('#model-view .model-error').isVisible(), false);
  assert.match(await page.textContent('#model-view .model-status'), /^\d+ pieces · all 72 heads computed/);
  await finish();
});

test('when the model cannot run a new sentence, the previous one\'s results are hidden, not shown as its', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&focus=7&model=1'));
  await ready(page);
  await modelReady(page);
  assert.match(await page.textContent('#model-head-about'), /on 'cat'/);
  const words = 'the king and queen ruled the kingdom while people said that it was good'.split(' ');
  await page.fill('#sentence', Array.from({ length: 600 }, (_, k) => words[k % words.length]).join(' '));
  await page.waitForSelector('#model-view[data-state="error"]', { timeout: MODEL_LOAD_MS });
  assert.equal(await page.textContent('#model-view .model-error'),
    'The sentence has 602 pieces with [CLS] and [SEP]; the model reads at most 512: shorten it. The previous results are hidden until the model can run this sentence.');
  for (const part of ['#model-grid', '#model-head-about', '#model-heatmap-overlay', '#model-search', '#model-compare']) {
    assert.equal(await page.locator(part).isVisible(), false, `${part} is hidden`);
  }
  // The weights table and the downloads are the new sentence's GloVe ones, not the cat sentence's model head.
  assert.equal(await page.locator('table#weights.model-table').count(), 0);
  assert.equal(await page.locator('table#weights').count(), 1);
  await page.focus('#export-figure');
  assert.deepEqual(await page.$$eval('#export-figure option', (list) => list.map((o) => o.value)), ['main', 'arrows']);

  // A sentence the model can run brings the view back, with its own numbers.
  await page.fill('#sentence', CAT);
  await page.waitForSelector('#model-view[data-state="ready"] .model-body:not([hidden])', { timeout: MODEL_LOAD_MS });
  await tableShows(page, 5, 11);
  assert.equal((await readTable(page)).rows[8].cells[2], '0.6825');
  assert.equal(await page.locator('#model-view .model-error').isVisible(), false);
  await page.focus('#export-figure');
  assert.ok((await page.$$eval('#export-figure option', (list) => list.map((o) => o.value))).includes('model-head'));
  await finish();
});

test('a second visit reads the model from the Cache API, and a damaged kept file is fetched again', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&model=1'));
  await ready(page);
  await modelReady(page);
  const coreUrl = new URL('model/minilm-core.aebm', site.url).href;

  // Second visit, same browser profile: no download of the core.
  const paths = recordPaths(context);
  await page.reload();
  await ready(page);
  await modelReady(page);
  assert.deepEqual(paths.filter((p) => p.endsWith('.aebm') || p.endsWith('.aeemb')), []);
  assert.match(await page.locator('#model-view .model-status').textContent(), /12 pieces/);

  // Damage the kept core: the page notices (SHA-256), fetches it again and runs.
  await page.evaluate(async (url) => {
    const cache = await caches.open('attention-explorer-model-v1');
    const kept = new Uint8Array(await (await cache.match(url)).arrayBuffer());
    kept[kept.length - 1] ^= 0xff;
    await cache.put(url, new Response(kept));
  }, coreUrl);
  paths.length = 0;
  await page.reload();
  await ready(page);
  await modelReady(page);
  assert.deepEqual(paths.filter((p) => p.endsWith('.aebm')), ['/model/minilm-core.aebm']);
  assertRows(await readTable(page), GOLDEN.rows);
  const repaired = await page.evaluate(async (url) => {
    const cache = await caches.open('attention-explorer-model-v1');
    const bytes = await (await cache.match(url)).arrayBuffer();
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  }, coreUrl);
  const manifest = JSON.parse(readFileSync(path.join(DIST, 'model', 'manifest.json'), 'utf8'));
  assert.equal(repaired, manifest.core.sha256, 'the cache holds the good copy again');
  await finish();
});

test('a widget of one head shows that head under its name, without the grid of 72, their summary or the head search', async () => {
  const { page, finish } = await openPage(site.browser, `${site.url}embed.html${hashFor(CAT, '&focus=7&mlayer=5&mhead=11&view=head')}`, { viewport: { width: 640, height: 600 } });
  await modelReady(page);
  await page.waitForSelector('#model-heatmap');
  const shown = await page.evaluate(() => Object.fromEntries(['.model-top', '.model-summary', '#model-search', '#model-heatmap', '#model-head-about'].map((s) => [s, document.querySelector(s)?.checkVisibility() ?? null])));
  assert.deepEqual(shown, { '.model-top': false, '.model-summary': false, '#model-search': false, '#model-heatmap': true, '#model-head-about': true });
  assert.match(await page.textContent('#model-head-about'), /^Layer 5, head 11, measured on this sentence: /);
  // Its heatmap starts on the widget's first 600 px (below the grid, summary and search, it started at 848).
  const top = await page.locator('#model-heatmap').evaluate((c) => c.getBoundingClientRect().top);
  assert.ok(top < 600, `the head's heatmap starts at ${top}px`);
  await finish();
});

test('Close gives the keyboard focus back to the button that opened the view', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat sat on the mat'));
  await ready(page);
  await openModel(page);
  await page.locator('#model-view button', { hasText: 'Close' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('#model-view', { state: 'hidden' });
  assert.equal(await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(document.activeElement?.id), 0)))), 'model-open');
  await finish();
});

test('an edit of the sentence keeps the head search on its words, or says it was dropped', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&model=1&mq=8&mk=2'));
  await ready(page);
  await modelReady(page);
  const asked = () => page.evaluate(() => [document.querySelector('#model-search-query').value, document.querySelector('#model-search-key').value]);
  assert.deepEqual(await asked(), ['it', 'cat']);
  // A word typed before both: the search is still 'it' → 'cat', one token further on.
  await page.evaluate(() => { location.hash = location.hash.replace(/s=[^&]*/, `s=${encodeURIComponent('The big cat sat on the mat because it was tired')}`); });
  await page.waitForFunction(() => /mq=9&mk=3|mk=3.*mq=9/.test(location.hash) || (new URLSearchParams(location.hash.slice(1)).get('mq') === '9' && new URLSearchParams(location.hash.slice(1)).get('mk') === '3'), null, { timeout: MODEL_LOAD_MS });
  assert.deepEqual(await asked(), ['it', 'cat']);
  assert.match(await page.textContent('#model-search-status'), /'it' → 'cat'/);
  // 'cat' gone: the search is dropped, and said.
  await page.evaluate(() => { location.hash = location.hash.replace(/s=[^&]*/, `s=${encodeURIComponent('The big dog sat on the mat because it was tired')}`); });
  await page.waitForFunction(() => /no longer in it/.test(document.querySelector('#model-search-status').textContent), null, { timeout: MODEL_LOAD_MS });
  assert.equal(await page.textContent('#model-search-status'), "The sentence changed: 'cat' is no longer in it, so the search was dropped. Type a query word and a key word.");
  const hash = await hashOf(page);
  assert.deepEqual([hash.mq, hash.mk], [undefined, undefined]);
  await finish();
});

test('the head search names a repeated word by its occurrence, and says when a word is several pieces', async () => {
  const sentence = 'Tokenization is hard, and it is slow';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(sentence, '&model=1'));
  await ready(page);
  await modelReady(page);
  await page.fill('#model-search-query', 'is#2');
  await page.fill('#model-search-key', 'tokenization');
  await page.click('#model-search button[type="submit"]');
  await page.waitForFunction(() => /^All 72 heads/.test(document.querySelector('#model-search-status').textContent));
  assert.equal(await page.textContent('#model-search-status'),
    "All 72 heads by the weight 'is#2' → 'token', best first; the grid marks the best 5. 'Tokenization' is 2 pieces: the search uses its first, 'token' (choose whole words to rank by the word).");
  await finish();
});

test('a first visit by a link that opens the model keeps the model’s WebAssembly: the next visit opens it offline', async () => {
  // The model's worker starts before the service worker takes the page, so its fetches pass it by: the page names them to it.
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&model=1&mlayer=5&mhead=11'), { allow: [/ERR_INTERNET_DISCONNECTED|Failed to load resource/] });
  await ready(page);
  await modelReady(page);
  // Kept: the model's two files, and the sentence's shards (the page's own fetches, before the worker took it).
  await everythingKept(page, ['pkg-model/attention_model_wasm.js', 'pkg-model/attention_model_wasm_bg.wasm']);
  await context.setOffline(true);
  await page.reload();
  await ready(page);
  await page.waitForSelector('#model-view:is([data-state="ready"][data-head], [data-state="error"])', { timeout: MODEL_LOAD_MS });
  assert.equal(await page.getAttribute('#model-view', 'data-state'), 'ready', await page.textContent('#model-view'));
  await tableShows(page, 5, 11);
  await finish();
});
