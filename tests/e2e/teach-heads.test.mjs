// Multi-head attention on the page equals the native computation with the
// same seed: tests/golden/multihead.json is written and checked by the Rust
// test crates/attention-wasm/tests/multihead_golden.rs, and read here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { hashFor, hashOf, openPage, ready, ROOT, useSite } from './helpers.mjs';
import { tableOf } from './teach-helpers.mjs';

const fixture = JSON.parse(await readFile(path.join(ROOT, 'tests/golden/multihead.json'), 'utf8'));

const site = useSite();

/** The shown matrix equals `expected` to the 4 printed decimals. */
function assertMatrix(table, tokens, expected, what) {
  assert.deepEqual(table.header, tokens, what);
  assert.deepEqual(table.rows.map((r) => r.label), tokens, what);
  table.rows.forEach((row, i) => row.cells.forEach((cell, j) => {
    // Printed with 4 decimals: within half a unit of the last place (and a hair for f32).
    assert.ok(Math.abs(Number(cell) - expected[i][j]) <= 0.00005 + 2e-6, `${what} [${i}][${j}]: page ${cell}, native ${expected[i][j]}`);
  }));
}

async function shown(page, title) {
  await page.waitForFunction((want) => document.querySelector('#heads-title')?.textContent === want, title, { timeout: 10000 });
  return tableOf(page, '#heads-weights');
}

for (const [index, c] of fixture.cases.entries()) {
  test(`${c.heads} ${c.mode} heads${c.mode === 'projected' ? ` with seed ${c.seed}` : ''} match the native test (case ${index})`, async () => {
    const seed = c.mode === 'projected' ? `&seed=${c.seed}` : '';
    const { page, finish } = await openPage(site.browser, site.url + hashFor(c.sentence, `&lab=heads&h=${c.heads}&hm=${c.mode}${seed}`));
    await ready(page);
    assertMatrix(await shown(page, `The average of ${c.heads} heads`), c.tokens, c.average, 'average');
    assert.equal(await page.locator('#head-grid .head-tile').count(), c.heads + 1, 'the average and one tile per head');
    // Enlarge the first and the last head (and every head of a small case) by clicking their tiles.
    const heads = c.heads <= 5 ? [...Array(c.heads).keys()] : [0, c.heads - 1];
    for (const h of heads) {
      await page.click(`#head-grid .head-tile[data-head="${h}"]`);
      assertMatrix(await shown(page, `Head ${h + 1} of ${c.heads}`), c.tokens, c.weights[h], `head ${h}`);
      assert.equal((await hashOf(page)).head, String(h));
      assert.equal(await page.getAttribute(`#head-grid .head-tile[data-head="${h}"]`, 'aria-pressed'), 'true');
    }
    await finish();
  });
}

test('head count, mode, seed, toggles and the enlarged head survive a link', async () => {
  const c = fixture.cases[0];
  const { page, finish } = await openPage(site.browser, site.url + hashFor(c.sentence, '&lab=heads'));
  await ready(page);
  await shown(page, 'The average of 5 heads');
  // Every count that divides 50 is offered.
  const counts = await page.$$eval('#heads-count option', (options) => options.map((o) => o.value));
  assert.deepEqual(counts, ['1', '2', '5', '10', '25', '50']);
  await page.selectOption('#heads-count', '10');
  await page.check('#heads-mode-split');
  assert.ok(await page.isDisabled('#heads-seed'), 'split mode has no seed');
  await page.check('#heads-mode-projected');
  await page.fill('#heads-seed', '7');
  await page.press('#heads-seed', 'Enter');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('seed') === '7');
  await page.uncheck('#head-toggle-2');
  await page.uncheck('#head-toggle-4');
  await page.click('#head-grid .head-tile[data-head="3"]');
  await shown(page, 'Head 4 of 10');
  const hash = await hashOf(page);
  // projected is the default mode: it is left out of the link.
  assert.deepEqual([hash.h, hash.hm, hash.seed, hash.hide, hash.head, hash.lab], ['10', undefined, '7', '2,4', '3', 'heads']);
  const before = await tableOf(page, '#heads-weights');
  const url = await page.evaluate(() => location.href);
  const { page: again, finish: finishAgain } = await openPage(site.browser, url);
  await ready(again);
  assert.deepEqual(await shown(again, 'Head 4 of 10'), before);
  assert.equal(await again.inputValue('#heads-count'), '10');
  assert.equal(await again.inputValue('#heads-seed'), '7');
  assert.ok(!(await again.isChecked('#head-toggle-2')) && (await again.isChecked('#head-toggle-1')));
  assert.equal(await again.evaluate(() => location.href), url);
  await finishAgain();
  await finish();
});

test('a head count that does not divide the dimension gives way to the nearest that does, and the link holds it', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(fixture.cases[0].sentence, '&lab=heads&h=7&hm=nonsense&seed=-1'));
  await ready(page);
  const c = fixture.cases[0];
  // 5 and 10 divide 50: 5 is nearer to 7.
  assertMatrix(await shown(page, 'The average of 5 heads'), c.tokens, c.average, 'average');
  assert.equal(await page.inputValue('#heads-count'), '5');
  assert.ok(await page.isChecked('#heads-mode-projected'));
  assert.equal(await page.textContent('#heads-fit-note'), '7 heads do not divide the 50 dimensions of these vectors: 5 heads shown, the nearest count that does.');
  // 5 is the default: the link drops h.
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('h'), null, { timeout: 10000 });
  // Another link (h=0, named in the link note) leaves nothing of the note about 7.
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(c.sentence, '&lab=heads&h=0').slice(1));
  await page.waitForFunction(() => document.getElementById('link-note')?.textContent.includes('h=0'), null, { timeout: 10000 });
  await page.waitForSelector('#heads-fit-note', { state: 'hidden', timeout: 5000 });
  await finish();
});

test('a head count, an enlarged head or hidden heads a link asks for but cannot have are named in the link note', async () => {
  const c = fixture.cases[0];
  const { page, finish } = await openPage(site.browser, site.url + hashFor(c.sentence, '&lab=heads&h=3&head=7&hide=1,9'));
  await ready(page);
  // 2 and 5 divide 50: 2 is nearer to 3.
  await shown(page, 'The average of 2 heads');
  await page.waitForFunction(() => document.getElementById('link-note')?.textContent.includes('head=7'), null, { timeout: 10000 });
  const note = await page.textContent('#link-note');
  assert.match(note, /h=3 \(expected a number of heads that divides 50: 1, 2, 5, 10, 25 or 50; 2 heads shown\)/);
  assert.match(note, /head=7 \(expected a head from 0 to 1\)/);
  assert.match(note, /hide=1,9 \(expected heads from 0 to 1\)/);
  assert.ok(!(await page.isChecked('#head-toggle-1')), 'head 1 is hidden as asked');
  // The link holds what is shown.
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('h') === '2', null, { timeout: 10000 });
  const hash = await hashOf(page);
  assert.deepEqual([hash.h, hash.head, hash.hide], ['2', undefined, '1']);
  await finish();
});

test('the seed field names a value it cannot use, and an empty field is not seed 0', async () => {
  const c = fixture.cases[0];
  const { page, finish } = await openPage(site.browser, site.url + hashFor(c.sentence, '&lab=heads&seed=7'));
  await ready(page);
  await shown(page, 'The average of 5 heads');
  for (const bad of ['-1', '1.5', '99999999999', '']) {
    await page.fill('#heads-seed', bad);
    await page.press('#heads-seed', 'Enter');
    await page.waitForSelector('#heads-seed-error:not([hidden])');
    assert.equal(await page.textContent('#heads-seed-error'), 'Type a whole number from 0 to 4,294,967,295.', bad);
    assert.equal(await page.$eval('#heads-seed', (field) => field.validity.valid), false, bad);
    assert.equal((await hashOf(page)).seed, '7', `${bad}: the seed stays 7`);
    assert.match(await page.textContent('#lab-heads figcaption, #lab-heads .teach-panel'), /projections from seed 7/);
  }
  await page.fill('#heads-seed', '0');
  await page.press('#heads-seed', 'Enter');
  await page.waitForSelector('#heads-seed-error', { state: 'hidden' });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('seed') === '0');
  await finish();
});

test("the heads' colours follow the page's theme, not the system's, and change with it", async () => {
  const c = fixture.cases[0];
  const { page, finish } = await openPage(site.browser, site.url + hashFor(c.sentence, '&lab=heads&theme=dark'), { colorScheme: 'light' });
  await ready(page);
  await shown(page, 'The average of 5 heads');
  // The colour of head 1 (hue 25) as the browser writes it: lighter on a dark page.
  const colour = (lightness) => page.evaluate((l) => {
    const probe = document.createElement('span');
    probe.style.background = `hsl(25 75% ${l}%)`;
    return probe.style.background;
  }, lightness);
  const swatch = () => page.$eval('#head-toggles .swatch', (span) => span.style.background);
  assert.equal(await swatch(), await colour(62));
  await page.selectOption('#opt-theme', 'light');
  await page.waitForFunction((want) => document.querySelector('#head-toggles .swatch')?.style.background === want, await colour(42));
  await finish();
});

/** A vectors file of the four words of KING_FOUR, `d` dimensions each. */
function vectorsFile(d, name) {
  const lines = ['the', 'king', 'and', 'queen'].map((w, i) => `${w} ${Array.from({ length: d }, (_, j) => ((i * 7 + j * 3) % 5) / 5).join(' ')}`);
  return { name, mimeType: 'text/plain', buffer: Buffer.from(`${lines.join('\n')}\n`) };
}

/** Loads `d`-dimensional vectors and waits for the tab to show `title`: the tab as the user reads it, and the link. */
async function loadVectors(page, d, title) {
  await page.setInputFiles('#vectors-file', vectorsFile(d, `v${d}.txt`));
  await page.waitForFunction((want) => document.querySelector('#status').textContent.includes(want), `d = ${d}`, { timeout: 20000 });
  await page.waitForFunction((want) => document.querySelector('#heads-title')?.textContent === want, title, { timeout: 10000 });
  return page.evaluate(() => ({
    count: document.querySelector('#heads-count').value,
    tiles: document.querySelectorAll('#head-grid .head-tile').length,
    text: document.querySelector('#lab-heads').innerText,
    fit: document.querySelector('#heads-fit-note').hidden ? '' : document.querySelector('#heads-fit-note').textContent,
  }));
}

test('vectors of any dimension show heads: the nearest count that divides it, no old table, and the link holds it', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the king and queen', '&lab=heads'));
  await ready(page);
  await shown(page, 'The average of 5 heads');
  // 3 dimensions: 3 heads are nearer the default 5 than 1.
  let tab = await loadVectors(page, 3, 'The average of 3 heads');
  assert.deepEqual([tab.count, tab.tiles], ['3', 4]);
  assert.match(tab.text, /d_k = 1, projections from seed 42/);
  assert.doesNotMatch(tab.text, /Invalid|d_k = 10/);
  assert.equal(tab.fit, '5 heads do not divide the 3 dimensions of these vectors: 3 heads shown, the nearest count that does.');
  // 3 heads on 4 dimensions: 2 and 4 are as near, the smaller is shown.
  tab = await loadVectors(page, 4, 'The average of 2 heads');
  assert.deepEqual([tab.count, tab.tiles], ['2', 3]);
  assert.match(tab.text, /d_k = 2/);
  // 2 heads on 7 dimensions: 1 head, said in the singular.
  tab = await loadVectors(page, 7, 'The average of 1 head');
  assert.deepEqual([tab.count, tab.tiles], ['1', 2]);
  // The link holds it (url.js writes the address in a task after the frame: a reader's copy waits as long).
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('h') === '1', null, { timeout: 10000 });
  assert.equal(tab.fit, '2 heads do not divide the 7 dimensions of these vectors: 1 head shown, the nearest count that does.');
  assert.doesNotMatch(tab.text, /Invalid|1 heads/);
  // 1,024 heads, split, the last enlarged; back to GloVe: 50 split heads, the average, and the link says so.
  await loadVectors(page, 1024, 'The average of 1 head');
  await page.selectOption('#heads-count', '1024');
  await page.check('#heads-mode-split');
  await page.click('#head-grid .head-tile[data-head="1023"]');
  await page.waitForFunction(() => document.querySelector('#heads-title')?.textContent === 'Head 1024 of 1024', null, { timeout: 20000 });
  await page.click('#vectors-default');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 50'), null, { timeout: 20000 });
  await shown(page, 'The average of 50 heads');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('h') === '50', null, { timeout: 10000 });
  const hash = await hashOf(page);
  assert.deepEqual([hash.h, hash.hm, hash.head, hash.vec], ['50', 'split', undefined, undefined]);
  assert.ok(await page.isChecked('#heads-mode-split'));
  await finish();
});

test('an exported head names its own scaling, ÷ √d_k, not the vectors\' ÷ √d', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the king and queen', '&lab=heads&h=10&head=2'));
  await ready(page);
  await shown(page, 'Head 3 of 10');
  await page.focus('#export-figure'); // its list of figures is made when it is opened
  await page.selectOption('#export-figure', 'panel-heads-weights');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const { caption } = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(caption, 'Multi-head: Head 3: 4 tokens, d_k = 5, projections from seed 42 · GloVe 6B 50d · scores ÷ √5 · a word may attend to itself · no causal mask');
  // Each head, and the average, downloads under its own name.
  assert.equal(download.suggestedFilename(), 'attention-the-king-and-queen-multi-head-head-3-of-10.json');
  await page.click('#head-grid .head-tile[data-head="-1"]');
  await shown(page, 'The average of 10 heads');
  await page.check('#heads-mode-split');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('hm') === 'split', null, { timeout: 10000 });
  await page.selectOption('#export-figure', 'panel-heads-weights');
  const [average] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  assert.equal(average.suggestedFilename(), 'attention-the-king-and-queen-multi-head-average-of-10-split.csv');
  await finish();
});

test('a tab drawn as it comes near the screen keeps its size: scrolling to the Share button below moves nothing', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king and queen ruled the kingdom', '&focus=1&lab=heads&h=10'));
  await ready(page);
  await page.waitForSelector('#heads-weights tbody tr');
  // Where the Share button is and how tall the tab's heatmap is, once both are the same three frames running.
  const place = () => page.evaluate(() => new Promise((resolve) => {
    let last = '';
    let same = 0;
    const read = () => {
      const at = {
        share: Math.round(document.getElementById('share-open').getBoundingClientRect().top + scrollY),
        heatmap: Math.round(document.querySelector('#lab-heads .canvas-stack').getBoundingClientRect().height),
      };
      same = JSON.stringify(at) === last ? same + 1 : 0;
      last = JSON.stringify(at);
      if (same === 3) resolve(at);
      else requestAnimationFrame(read);
    };
    read();
  }));
  const before = await place();
  await page.evaluate(() => document.getElementById('share-open').scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => document.querySelector('#lab-heads .teach-views').style.opacity === '', null, { timeout: 10000 });
  const after = await place();
  assert.ok(before.heatmap > 200, `the heatmap is laid out before it is painted (${before.heatmap} px)`);
  assert.deepEqual(after, before);
  await finish();
});
