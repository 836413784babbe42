// Inside and across the trained model's heads, in Chromium, from the built
// files in dist/model/: head search (its ranking equals the CLI's
// `attention heads`), ranking by behaviour, the open head step by step (its
// numbers equal the heatmap and the reference forward pass), the queries and
// keys in 2-D, rollout across layers, and the link keys of all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { assertClose, DIST, hashFor, hashOf, openPage, readTable, ready, ROOT, useSite } from './helpers.mjs';

const GOLDEN = JSON.parse(readFileSync(path.join(ROOT, 'tests/golden/minilm-l5h11.json'), 'utf8'));
const CAT = GOLDEN.sentence;
const TOLERANCE = 1e-4;
const MODEL_LOAD_MS = 90000;

const site = useSite({
  check: () => assert.ok(
    existsSync(path.join(DIST, 'model', 'manifest.json')),
    'dist/model/manifest.json is missing: the trained-model tests need the built model. Run scripts/build-model, then scripts/build (scripts/test does both).',
  ),
});

/** `attention heads … --json` of the CLI: the built binary when there is one, else through cargo. */
function cliHeads(sentence, from, to) {
  const args = ['heads', sentence, '--from', from, '--to', to, '--top', '72', '--json'];
  const binary = path.join(ROOT, 'target', 'debug', 'attention');
  const output = existsSync(binary)
    ? execFileSync(binary, args, { cwd: ROOT, encoding: 'utf8' })
    : execFileSync('cargo', ['run', '-q', '--bin', 'attention', '--', ...args], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(output);
}

async function modelReady(page) {
  await page.waitForSelector('#model-view[data-state="ready"][data-head]', { timeout: MODEL_LOAD_MS });
}

async function openModel(hash) {
  const opened = await openPage(site.browser, site.url + hashFor(CAT, hash));
  await ready(opened.page);
  await modelReady(opened.page);
  return opened;
}

/** The ranked list as [{ layer, head, value }], once it lists `count` heads. */
async function ranking(page, count = 72) {
  await page.waitForSelector(`#model-ranking[data-count="${count}"]`);
  return page.locator('#model-ranking button.model-hit').evaluateAll((hits) => hits.map((b) => ({
    layer: Number(b.dataset.layer), head: Number(b.dataset.head), value: Number(b.dataset.value),
  })));
}

/** The step panel's table: { key label: weight text }, in the order listed. */
async function panelWeights(page) {
  await page.waitForSelector('#model-explain[data-state="ready"]');
  return page.locator('#model-explain .steps-table tbody tr').evaluateAll((rows) => rows.map((tr) => ({
    key: tr.querySelector('th').textContent, weight: tr.querySelector('td.weight').textContent,
  })));
}

/**
 * Puts the pointer on cell (row, col) of the open head's heatmap and returns
 * the projection's lit points (`data-lit`) once they are `wanted`, else what
 * they were at the last try. The model view's parts arrive from a worker one
 * after another, and on a busy machine one of them can move the heatmap
 * between the read of its box and the pointer's move: each try reads the box
 * again and moves anew.
 */
async function hoverModelCell(page, row, col, wanted, tries = 4) {
  const overlay = page.locator('#model-heatmap-overlay');
  const projection = page.locator('#model-projection');
  let lit = null;
  for (let attempt = 0; attempt < tries && lit !== wanted; attempt++) {
    await overlay.scrollIntoViewIfNeeded();
    const box = await overlay.boundingBox();
    const [x, y] = (await overlay.getAttribute('data-matrix')).split(',').map(Number);
    const side = Number(await overlay.getAttribute('data-cell'));
    await page.mouse.move(0, 0);
    await page.mouse.move(box.x + x + (col + 0.5) * side, box.y + y + (row + 0.5) * side);
    await page.waitForFunction((value) => document.querySelector('#model-projection')?.dataset.lit === value, wanted, { timeout: 5000 }).catch(() => {});
    lit = await projection.getAttribute('data-lit');
  }
  return lit;
}

test("head search ranks every head by 'it' → 'cat' as `attention heads` does, and the grid marks the best", async () => {
  const expected = cliHeads(CAT, 'it', 'cat');
  const { page, finish } = await openModel('&model=1');
  await page.fill('#model-search-query', 'it');
  await page.fill('#model-search-key', 'cat');
  await page.press('#model-search-key', 'Enter');
  const ranked = await ranking(page);
  assert.equal(ranked.length, expected.heads.length);
  ranked.forEach((hit, r) => {
    const cli = expected.heads[r];
    assert.ok(Math.abs(hit.value - cli.weight) <= 1e-5, `rank ${r}: ${hit.value} vs ${cli.weight}`);
    // Equal weights (within the wasm/native rounding) may come in either order.
    const tied = expected.heads.filter((h) => Math.abs(h.weight - cli.weight) <= 1e-5);
    assert.ok(tied.some((h) => h.layer === hit.layer && h.head === hit.head), `rank ${r}: L${hit.layer}H${hit.head}, the CLI has L${cli.layer}H${cli.head}`);
  });
  assert.deepEqual([ranked[0].layer, ranked[0].head], [5, 11]);
  const hash = await hashOf(page);
  assert.deepEqual([hash.mq, hash.mk, hash.mrank], [String(expected.from.index), String(expected.to.index), undefined]);
  // The best five are marked on the grid, the best first.
  const marked = await page.locator('#model-grid .model-thumb[data-rank]').evaluateAll((t) => t.map((b) => [Number(b.dataset.rank), Number(b.dataset.layer), Number(b.dataset.head)]).sort((a, b) => a[0] - b[0]));
  assert.deepEqual(marked, ranked.slice(0, 5).map((h, r) => [r + 1, h.layer, h.head]));
  // Each head has its description, measured on this sentence, as the CLI prints it.
  const first = await page.locator('#model-ranking button.model-hit').first().locator('.model-hit-about').textContent();
  assert.equal(first, expected.heads[0].description);
  // A click on a ranked head opens it.
  await page.locator('#model-ranking button.model-hit').nth(1).click();
  await page.waitForSelector(`table#weights[data-layer="${ranked[1].layer}"][data-head="${ranked[1].head}"]`);
  assert.match(await page.locator('#model-head-about').textContent(), new RegExp(`^Layer ${ranked[1].layer}, head ${ranked[1].head}, measured on this sentence: `));
  await finish();
});

test('a word not in the sentence is named, and the previous ranking leaves the list, the grid and the link', async () => {
  const { page, finish } = await openModel('&model=1');
  await page.fill('#model-search-query', 'it');
  await page.fill('#model-search-key', 'cat');
  await page.press('#model-search-key', 'Enter');
  await ranking(page);
  assert.equal((await hashOf(page)).mq, '8');
  await page.fill('#model-search-query', 'dog');
  await page.click('#model-search button[type="submit"]');
  const status = page.locator('#model-search-status');
  await page.waitForFunction(() => document.querySelector('#model-search-status')?.dataset.problem === '1');
  assert.match(await status.textContent(), /'dog' is not in the sentence; its words are: the, cat, sat/);
  await page.waitForSelector('#model-ranking[data-count="0"]', { state: 'attached' });
  assert.equal(await page.locator('#model-ranking button').count(), 0);
  assert.equal(await page.locator('#model-grid .model-thumb[data-rank]').count(), 0, 'the grid marks no ranking');
  const hash = await hashOf(page);
  assert.deepEqual([hash.mq, hash.mk], [undefined, undefined]);
  assert.equal(await page.inputValue('#model-search-query'), 'dog', 'what was typed stays, to be corrected');
  // An index beyond the sentence, from a link, says so too.
  await page.goto(site.url + hashFor(CAT, '&model=1&mq=40&mk=2'));
  await page.waitForFunction(() => /mq=40 \(the head search’s query\) points past the end of this sentence/.test(document.querySelector('#model-search-status')?.textContent ?? ''));
  await finish();
});

test('ranking by behaviour: previous token, and same word disabled with the reason when no word repeats', async () => {
  const { page, finish } = await openModel('&model=1');
  await page.click('#model-rank-previous');
  const ranked = await ranking(page);
  assert.equal((await hashOf(page)).mrank, 'previous');
  assert.equal(await page.getAttribute('#model-rank-previous', 'aria-pressed'), 'true');
  for (let r = 1; r < ranked.length; r++) assert.ok(ranked[r - 1].value >= ranked[r].value, 'best first');
  const status = () => page.textContent('#model-search-status');
  assert.equal(await status(), 'All 72 heads by attention to the previous token, best first; the grid marks the best 5.');
  // Each behaviour is said in a sentence.
  for (const [name, said] of [['self', 'each token’s attention to itself'], ['special', 'attention to [CLS] and [SEP]'], ['focus', 'attention to one token that the others all look at']]) {
    await page.click(`#model-rank-${name}`);
    await page.waitForSelector(`#model-ranking[data-by="${name}"][data-count="72"]`);
    assert.equal(await status(), `All 72 heads by ${said}, best first; the grid marks the best 5.`);
  }
  // The cat sentence repeats 'the': same word applies.
  assert.equal(await page.isDisabled('#model-rank-same-word'), false);
  await page.goto(site.url + hashFor('A cat sat on it', '&model=1&mrank=same-word'));
  await page.waitForFunction(() => document.querySelector('#model-rank-same-word')?.disabled === true);
  assert.match(await page.locator('#model-rank-why').textContent(), /no word repeats/);
  assert.equal(await page.getAttribute('#model-rank-same-word', 'aria-describedby'), 'model-rank-why');
  await page.waitForFunction(() => /No word repeats in this sentence/.test(document.querySelector('#model-search-status')?.textContent ?? ''));
  await finish();
});

test("the open head step by step: the panel's weights are the heatmap row and the reference's", async () => {
  const { page, finish } = await openModel('&focus=7&model=1&mlayer=5&mhead=11');
  const panel = await panelWeights(page);
  const row = (await readTable(page)).rows.find((r) => r.focused);
  assert.equal(row.query, 'it');
  assert.deepEqual(panel.map((p) => p.key), GOLDEN.pieces.map((p) => p.text));
  assert.deepEqual(panel.map((p) => p.weight), row.cells, 'the panel prints the heatmap row');
  assertClose(panel.map((p) => Number(p.weight)), GOLDEN.rows['8'], TOLERANCE);
  // ÷√32: the scale of a MiniLM head (384 / 12 dimensions).
  // (teach-steps.js writes the step as 's = q·k × 1/√32 = q·k × 0.1768', formerly '… × 1/√32 = 0.1768'.)
  assert.match(await page.locator('#model-explain ol.steps').textContent(), /1\/√32 = (?:q·k × )?0\.1768/);
  // By default the strongest key's dot product, term by term: 6 terms shown, 26 more folded.
  const cell = page.locator('#model-explain .cell-steps');
  assert.equal(await cell.locator('h3').textContent(), 'Dot product of it and cat term by term, the largest (+ or −) first');
  assert.equal(await cell.locator('table.terms').first().locator('tbody tr').count(), 6);
  assert.match(await cell.locator('details summary').textContent(), /The other 26 terms/);
  assert.equal(await page.locator('#model-explain .model-vector-table thead th').count(), 32, 'q and k: 32 dimensions (the corner is a cell)');
  // The two "the" are told apart by their places, which count [CLS]: tokens 2 and 6, not words.
  const thes = await page.locator('#model-explain .steps-table tbody button', { hasText: /^the$/ }).evaluateAll((buttons) => buttons.map((b) => [b.dataset.place, b.title]).sort());
  assert.deepEqual(thes, [['2', "Show q·k for 'the' (token 2) term by term"], ['6', "Show q·k for 'the' (token 6) term by term"]]);
  // Another key: its own dot product, and the link keeps it (as a piece index).
  await page.locator('#model-explain .steps-table tbody tr', { hasText: 'mat' }).locator('button').click();
  await page.waitForSelector('#model-explain[data-state="ready"][data-key="6"]');
  assert.equal((await hashOf(page)).mcell, '6');
  assert.equal(await cell.locator('h3').textContent(), 'Dot product of it and mat term by term, the largest (+ or −) first');
  await finish();
});

test('in whole words without [CLS]/[SEP] the panel still agrees with the heatmap on every word it shows', async () => {
  const { page, finish } = await openModel('&focus=7&model=1&units=words&special=0');
  const panel = await panelWeights(page);
  const table = await readTable(page);
  const row = table.rows.find((r) => r.focused);
  assert.equal(row.query, 'it');
  const shown = panel.filter((p) => p.key !== '[CLS]' && p.key !== '[SEP]');
  assert.deepEqual(shown.map((p) => p.weight), row.cells);
  assertClose(shown.map((p) => Number(p.weight)), GOLDEN.words_without_special.rows['7'], TOLERANCE);
  assert.match(await page.locator('#model-explain .note').first().textContent(), /\[CLS\] and \[SEP\] are hidden/);
  await finish();
});

test('queries and keys: 2n points, a legend, the variance on the axes, linked to the heatmap', async () => {
  const { page, finish } = await openModel('&focus=7&model=1');
  const canvas = page.locator('#model-projection');
  await page.waitForSelector('#model-projection[data-state="ready"]');
  assert.equal(await canvas.getAttribute('data-points'), String(2 * GOLDEN.pieces.length));
  const explained = (await canvas.getAttribute('data-explained')).split(',').map(Number);
  assert.ok(explained[0] > 0 && explained[0] >= explained[1] && explained[0] + explained[1] <= 1, String(explained));
  const legend = await page.locator('#model-projection-legend li').allTextContents();
  assert.equal(legend.length, 2);
  assert.match(legend[0], /query/);
  assert.match(legend[1], /key/);
  assert.equal(await page.locator('.model-projection-table tbody tr').count(), GOLDEN.pieces.length);
  // The heatmap's hover lights up the query of 'it' (piece 8) and the key of 'cat' (piece 2 + n).
  assert.equal(await hoverModelCell(page, 8, 2, '8,14'), '8,14');
  // And the keyboard walks the points, naming each.
  await page.mouse.move(0, 0);
  await canvas.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  assert.match(await page.locator('.model-projection-status').textContent(), /^Key of 'the': \(/);
  await finish();
});

test('rollout and the layer average: six layers, and every rollout row sums to 1', async () => {
  const { page, finish } = await openModel('&focus=7&model=1');
  await page.click('#model-flow summary');
  await page.waitForSelector('#model-flow-table[data-flow="rollout"] tbody tr');
  assert.equal((await hashOf(page)).mflow, 'rollout');
  const sums = async () => page.locator('#model-flow-table tbody tr').evaluateAll((rows) => rows.map((tr) => {
    const cells = [...tr.querySelectorAll('td:not(.row-sum)')].map((td) => Number(td.textContent));
    return cells.reduce((a, b) => a + b, 0);
  }));
  const rollout = await sums();
  assert.equal(rollout.length, 6);
  // 12 cells printed with 4 decimals: at most 12 × 0.00005 of rounding.
  for (const sum of rollout) assert.ok(Math.abs(sum - 1) <= 12 * 5e-5, String(sum));
  assert.equal(await page.locator('#model-flow .model-flow-layer canvas').count(), 6);
  // Each layer downloads as a figure: the last layer's JSON holds the table's last row (the focused token, 'it').
  const tableRow = async (layer) => page.locator('#model-flow-table tbody tr').nth(layer).evaluate((tr) => [...tr.querySelectorAll('td:not(.row-sum)')].map((td) => td.textContent));
  await page.focus('#export-figure');
  const flowFigures = async () => page.$$eval('#export-figure option', (list) => list.filter((o) => o.value.startsWith('model-flow-')).map((o) => o.textContent));
  assert.deepEqual(await flowFigures(), [0, 1, 2, 3, 4, 5].map((l) => `the rollout of the trained model after layer ${l}`));
  const json = async (layer) => {
    await page.selectOption('#export-figure', `model-flow-${layer}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    return { name: download.suggestedFilename(), ...JSON.parse(readFileSync(await download.path(), 'utf8')) };
  };
  const last = await json(5);
  assert.equal(last.name, 'attention-the-cat-sat-on-the-mat-because-it-was-minilm-rollout-layer-5.json');
  assert.equal(last.kind, 'model');
  assert.match(last.caption, /^all-MiniLM-L6-v2 · rollout after layer 5 \(layers 0 to 5 multiplied, each with its residual\) · word pieces · with \[CLS\] and \[SEP\]/);
  assert.equal(last.queries[8], 'it');
  assert.deepEqual(last.weights[8].map((w) => w.toFixed(4)), await tableRow(5));
  for (const row of last.weights) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, 'a rollout row sums to 1');
  // Rows of the raw average sum to 1 as well while [CLS] and [SEP] are shown.
  await page.check('#model-flow input[value="average"]');
  await page.waitForSelector('#model-flow-table[data-flow="average"]');
  for (const sum of await sums()) assert.ok(Math.abs(sum - 1) <= 12 * 5e-5, String(sum));
  assert.equal((await hashOf(page)).mflow, 'average');
  await page.focus('#export-figure');
  assert.equal((await flowFigures())[0], 'the heads’ average of the trained model after layer 0');
  const first = await json(0);
  assert.match(first.caption, /· layer 0, the average of its heads ·/);
  assert.deepEqual(first.weights[8].map((w) => w.toFixed(4)), await tableRow(0));
  // Closed, the section lists none.
  await page.click('#model-flow summary');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('mflow'));
  await page.focus('#export-figure');
  assert.deepEqual(await flowFigures(), []);
  await finish();
});

test('the new link keys round-trip, and the search follows a change of units', async () => {
  const link = '&focus=7&model=1&mlayer=5&mhead=11&units=pieces&special=1&mq=8&mk=2&mcell=6&mflow=average';
  const { page, finish } = await openModel(link);
  await ranking(page);
  assert.equal(await page.inputValue('#model-search-query'), 'it');
  assert.equal(await page.inputValue('#model-search-key'), 'cat');
  await page.waitForSelector('#model-explain[data-state="ready"][data-key="6"]');
  await page.waitForSelector('#model-flow-table[data-flow="average"]');
  assert.equal(await page.locator('#model-flow').getAttribute('open'), '');
  const hash = await hashOf(page);
  for (const [key, value] of new URLSearchParams(link.slice(1))) assert.equal(hash[key], value, key);
  // Without [CLS]/[SEP] the tokens move down by one: the search keeps 'it' → 'cat'.
  await page.uncheck('#model-special');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('mq') === '7');
  assert.equal((await hashOf(page)).mk, '1');
  assert.equal((await ranking(page))[0].layer, 5);
  assert.equal(await page.inputValue('#model-search-query'), 'it');
  // A behaviour in the link.
  await page.goto(site.url + hashFor(CAT, '&model=1&mrank=special'));
  await page.waitForSelector('#model-ranking[data-by="special"][data-count="72"]');
  assert.equal(await page.getAttribute('#model-rank-special', 'aria-pressed'), 'true');
  await finish();
});

test('rollout says when [CLS] and [SEP] are left out of it, and whole words say which row the panel shows', async () => {
  const { page, finish } = await openModel('&focus=7&model=1&mflow=rollout&special=0');
  await page.waitForSelector('#model-flow-table[data-flow="rollout"] tbody tr');
  const explained = () => page.locator('#model-flow p.note').first().textContent();
  assert.match(await explained(), /With \[CLS\] and \[SEP\] hidden, rollout is computed without them: .* This is another quantity than the rollout with them/);
  await finish();
  // Shown, the explanation is the rollout's own, and says what a share on [CLS] is.
  const shown = await openModel('&focus=7&model=1&mflow=rollout');
  await shown.page.waitForSelector('#model-flow-table[data-flow="rollout"] tbody tr');
  const text = await shown.page.locator('#model-flow p.note').first().textContent();
  assert.ok(!text.includes('hidden') && text.includes('attention parked there'), text);
  await shown.finish();
  // A word of two pieces in whole words: the panel's row is its first piece's, not the heatmap's.
  const words = await openPage(site.browser, site.url + hashFor('Tokenization is hard', '&focus=0&model=1&units=words'));
  await ready(words.page);
  await modelReady(words.page);
  await words.page.click('#model-inside summary');
  await words.page.waitForSelector('#model-explain[data-state="ready"]');
  const note = await words.page.locator('#model-explain').evaluate((box) => box.closest('details, section')?.textContent ?? box.textContent);
  assert.ok(!note.includes('The weights below are the heatmap’s row.') && note.includes('averages the rows of its 2 pieces'), note);
  await words.finish();
});
