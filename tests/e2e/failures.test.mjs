// Each thing the page loads, failing in turn: the word vectors, the wasm, one
// shard, the trained model, its worker, its manifest. Each time the page says
// what failed, draws what it still can, and logs no uncaught error (every test
// here fails on a page error, as openPage records them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DIST, hashFor, KING, openPage, readTable, ready, serveDist, useSite } from './helpers.mjs';

const site = useSite();
// scripts/test builds the model and sets AE_REQUIRE_MODEL=1: there these run
// (and fail without the model) instead of skipping.
const hasModel = process.env.AE_REQUIRE_MODEL === '1' || existsSync(path.join(DIST, 'model', 'manifest.json'));
const notFound = (route) => route.fulfill({ status: 404, body: 'not found' });
const ALLOW = [/status of 404/, /Failed to load resource/];

test('no word vectors: the page says so, and the matrix playground still works', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), { allow: ALLOW, routes: [['**/glove-6b-50d/manifest.json', notFound]] });
  await page.waitForSelector('html[data-failed="1"]');
  assert.match(await page.textContent('#error'), /word vectors could not be loaded/);
  assert.match(await page.textContent('#lab-steps .lab-failed'), /needs what the page could not load/);
  await page.click('#tab-play');
  await page.waitForSelector('#play-weights tbody tr');
  assert.equal(await page.locator('#play-weights tbody tr').count(), 1, 'the worked example: one query over three keys');
  assert.ok(await page.locator('#lab-play .lab-failed').count() === 0, 'no failure note on the playground');
  await finish();
});

test('no WebAssembly: the page says so, and every tab says what it lacks', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), { allow: [...ALLOW, /WebAssembly/, /attention_wasm/], routes: [['**/attention_wasm_bg.wasm', notFound]] });
  await page.waitForSelector('html[data-failed="1"]');
  assert.match(await page.textContent('#error'), /WebAssembly module could not be loaded/);
  assert.equal(await page.locator('#tokens .token').count(), 0, 'no chip waits for vectors that cannot come');
  assert.equal(await page.locator('#teach [role="tab"]').count(), 6, 'the teaching section is still there');
  await page.click('#tab-play');
  assert.match(await page.textContent('#lab-play .lab-failed'), /WebAssembly module could not be loaded/);
  await finish();
});

test('one shard failing: its words are marked, the rest is drawn', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king and queen ruled the kingdom'), {
    allow: ALLOW,
    routes: [['**/data/glove-6b-50d/*/*.aews', async (route) => {
      const response = await route.fetch();
      const body = await response.body();
      if (body.includes(Buffer.from('\nkingdom\n')) || body.subarray(48).toString().startsWith('kingdom\n')) await notFound(route);
      else await route.fulfill({ response, body });
    }]],
  });
  await ready(page);
  assert.deepEqual((await readTable(page)).header, ['the', 'king', 'and', 'queen', 'ruled', 'the']);
  assert.match(await page.textContent('#unknown-note'), /'kingdom' could not be loaded/);
  await finish();
});

test('a view fetched after a deploy is not run beside the page’s older modules: the page says to reload', async () => {
  // The site is deployed again after the page opened: the modules fetched
  // from then on carry another build's version.
  let deployed = false;
  // The bundles carry the build's version as a string (scripts/offline-files.mjs stamps it).
  const { version } = JSON.parse(readFileSync(path.join(DIST, 'sw.js'), 'utf8').match(/^const BUILD = (.*);$/m)[1]);
  const redeploy = (body) => ({ status: 200, body: deployed ? body.toString('utf8').replaceAll(`"${version}"`, '"0000000000000002"') : body });
  const server = await serveDist(DIST, { answers: { '/js/whatif.js': redeploy, '/js/model-view.js': redeploy } });
  try {
    const { page, finish } = await openPage(site.browser, server.url + hashFor(KING));
    await ready(page);
    deployed = true;
    await page.click('#tab-whatif');
    await page.waitForSelector('#lab-whatif .error');
    assert.equal(await page.textContent('#lab-whatif .error'), 'This view could not be loaded (this site was updated since the page was opened). Reload the page.');
    await page.click('#model-open');
    await page.waitForSelector('#error:not([hidden])');
    assert.equal(await page.textContent('#error'), 'The trained-model view could not be loaded: this site was updated since the page was opened. Reload the page.');
    // What the page holds is still drawn, and a tab of its own build still opens.
    assert.equal((await readTable(page)).rows[1].cells[2], '0.0489');
    await page.click('#tab-play');
    await page.waitForSelector('#play-weights tbody tr');
    await finish();
  } finally {
    await server.close();
  }
});

test('the trained model’s files failing: the model view says which, GloVe stays, a retry is offered', { skip: !hasModel && 'no built model' }, async () => {
  for (const [pattern, expected] of [
    ['**/model/minilm-core.aebm', /minilm-core\.aebm could not be downloaded: the server answered HTTP 404/],
    ['**/js/model-worker.js', /worker/],
  ]) {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&model=1'), { allow: [...ALLOW, /worker/i], routes: [[pattern, notFound]] });
    await ready(page);
    await page.waitForSelector('#model-view[data-state="error"]', { timeout: 30000 });
    assert.match(await page.textContent('#model-view .model-error'), expected, pattern);
    assert.equal((await readTable(page)).rows.length, 7, 'the GloVe table is untouched');
    await finish();
  }
});

test('a model manifest that lies about sizes is refused before anything is allocated', { skip: !hasModel && 'no built model' }, async (t) => {
  // The server itself lies (the model worker's first request: served, not routed).
  const lie = (bytes) => {
    const manifest = JSON.parse(bytes);
    manifest.core.bytes = 3e9;
    return { status: 200, body: JSON.stringify(manifest) };
  };
  const server = await serveDist(DIST, { answers: { '/model/manifest.json': lie } });
  t.after(() => server.close());
  const { page, finish } = await openPage(site.browser, server.url + hashFor(KING, '&model=1'));
  await ready(page);
  await page.waitForSelector('#model-view[data-state="error"]', { timeout: 30000 });
  const message = await page.textContent('#model-view .model-error');
  assert.match(message, /model\/manifest\.json was refused: .*core/);
  assert.doesNotMatch(message, /RangeError|Array buffer allocation/);
  await finish();
});

test('the GloVe table keeps its look while the model view holds the page’s table id', { skip: !hasModel && 'no built model' }, async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const look = (selector) => page.locator(selector).evaluate((table) => {
    const cell = getComputedStyle(table.querySelector('td'));
    return [getComputedStyle(table).borderCollapse, cell.paddingLeft, cell.whiteSpace, cell.textAlign];
  });
  const before = await look('#weights');
  await page.click('#model-open');
  await page.waitForSelector('#model-view[data-state="ready"][data-head]', { timeout: 90000 });
  assert.deepEqual(await look('#glove-weights'), before);
  await finish();
});
