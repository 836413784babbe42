// The matrix playground reproduces the tutorials' worked examples to the
// printed precision, names bad input, and lives in the link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashOf, linkOf, openPage, ready, useSite } from './helpers.mjs';
import { assertPrinted, rowNamed, tableOf, waitForHeader } from './teach-helpers.mjs';

const site = useSite();

const softmax = (xs) => {
  const max = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b);
  return e.map((x) => x / sum);
};

test('Q = [2, 3] over keys C, A, B scores 61, 8 and 26', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play');
  await ready(page);
  assert.equal(await page.getAttribute('#tab-play', 'aria-selected'), 'true');
  await waitForHeader(page, '#play-weights', ['C', 'A', 'B']);
  const compare = await tableOf(page, '#play-compare');
  assert.deepEqual(rowNamed(compare, 'q·k'), ['61', '8', '26']);
  // The step panel lists the same dot products, key by key.
  const steps = await tableOf(page, '#play-steps .steps-table');
  assert.deepEqual(steps.rows.map((r) => [r.label, r.cells[0]]), [['C', '61'], ['A', '8'], ['B', '26']]);
  // Scaled by 1/√2 (d_k = 2, the default of the page): weights as computed here from the scores.
  assertPrinted(rowNamed(await tableOf(page, '#play-weights'), 'q1'), softmax([61, 8, 26].map((s) => s / Math.SQRT2)));
  // The cell C: 2·11 + 3·13, the larger term first.
  await page.click('#play-steps .steps-table button >> text=C');
  await page.waitForSelector('#play-steps .cell-steps');
  const terms = await tableOf(page, '#play-steps .cell-steps table');
  assert.deepEqual(terms.rows.map((r) => r.cells[2]), ['39', '22']);
  assert.equal((await hashOf(page)).lc, '0');
  await finish();
});

test('the comparison names the temperature that divides its scores', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play&t=10');
  await ready(page);
  await page.selectOption('#play-preset', 'saturation');
  await waitForHeader(page, '#play-weights', ['x', 'y']);
  // 100 and 80, ÷ √100, ÷ 10.
  assert.deepEqual(rowNamed(await tableOf(page, '#play-compare'), 's = q·k ÷ √100 ÷ T (T = 10)'), ['1', '0.800']);
  await finish();
});

test('step 2 says what d_k is when it is set by hand or 1, the comparison divides both weights by T, and a typeset minus reads as one', async () => {
  const scale = (page) => page.textContent('#play-steps ol.steps li:nth-child(2)');
  // d_k set to 100,000 for q and k of 2 numbers: not 'the scores of 100000 dimensions'.
  const typed = 'pq=2%203&pk=11%2013%3B%201%202%3B%204%206&pn=';
  let { page, finish } = await openPage(site.browser, site.url + `#lab=play&${typed}&pdk=100000&t=2`);
  await ready(page);
  await waitForHeader(page, '#play-weights', ['k1', 'k2', 'k3']);
  assert.match(await scale(page), /÷√100000 keeps the scores \(with d_k set to 100000; q and k have 2 numbers\) from making the softmax all-or-nothing, and T = 2, above 1, makes the weights flatter\.$/);
  const compare = await tableOf(page, '#play-compare');
  assert.deepEqual(compare.rows.map((r) => r.label), ['q·k', 'weight, scaling off ÷ T (T = 2)', 's = q·k ÷ √100000 ÷ T (T = 2)', 'weight, scaling on ÷ T (T = 2)']);
  await finish();
  // One number a vector, typed with U+2212: d_k = 1, whose ÷√1 changes nothing.
  ({ page, finish } = await openPage(site.browser, site.url + `#lab=play&pq=${encodeURIComponent('\u22125')}&pk=1%3B%20${encodeURIComponent('\u22122')}&pn=`));
  await ready(page);
  await waitForHeader(page, '#play-weights', ['k1', 'k2']);
  assert.equal(await page.textContent('#lab-play .error'), '');
  assert.deepEqual(rowNamed(await tableOf(page, '#play-compare'), 'q·k'), ['-5', '10']);
  assert.match(await scale(page), /÷√1 changes nothing, as scores of one number each do not spread\.$/);
  await finish();
});

test('at T = 0.001 the scaled scores are the scores × 1000, as step 2 writes', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play&pq=30&pk=30%3B%2029&pn=&t=0.001&scale=0');
  await ready(page);
  await waitForHeader(page, '#play-weights', ['k1', 'k2']);
  const steps = await tableOf(page, '#play-steps .steps-table');
  // 900 and 870: the float32 nearest 0.001 gave 899999.957 and 869999.959.
  assert.deepEqual(steps.rows.map((r) => r.cells.slice(0, 2)), [['900', '900000'], ['870', '870000']]);
  assert.match(await page.textContent('#play-steps ol.steps li:nth-child(2)'), /= q·k × 1000: no ÷√1/);
  await finish();
});

test('scores 100 and 80 saturate unscaled and give 0.88 / 0.12 scaled by √100', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play');
  await ready(page);
  await page.selectOption('#play-preset', 'saturation');
  await waitForHeader(page, '#play-weights', ['x', 'y']);
  const compare = await tableOf(page, '#play-compare');
  assert.deepEqual(rowNamed(compare, 'q·k'), ['100', '80']);
  assert.deepEqual(rowNamed(compare, 'weight, scaling off'), ['1.0000', '0.0000']);
  assert.deepEqual(rowNamed(compare, 's = q·k ÷ √100'), ['10', '8']);
  assert.deepEqual(rowNamed(compare, 'weight, scaling on'), ['0.8808', '0.1192']);
  assert.deepEqual(rowNamed(await tableOf(page, '#play-weights'), 'q1'), ['0.8808', '0.1192']);
  // The step panel: exp(10) and exp(8), their sum, the weights; past 100, to the 6 digits float32 holds.
  const six = (x) => String(Number(x.toPrecision(6)));
  const steps = await tableOf(page, '#play-steps .steps-table');
  assert.deepEqual(steps.rows.map((r) => r.cells[2]), [six(Math.exp(10)), six(Math.exp(8))]);
  assert.equal(await page.textContent('#play-steps .sum-of-exps'), six(Math.exp(10) + Math.exp(8)));
  const hash = await hashOf(page);
  assert.equal(hash.pq, '1');
  assert.equal(hash.pk, '100; 80');
  assert.equal(hash.pdk, '100');
  // Scaling off in the options: the playground's heatmap saturates.
  await page.uncheck('#opt-scale');
  await page.waitForFunction(() => document.querySelector('#play-weights tbody td')?.textContent === '1.0000');
  assert.deepEqual(rowNamed(await tableOf(page, '#play-weights'), 'q1'), ['1.0000', '0.0000']);
  await finish();
});

test('three tokens, four dimensions, projected by W_q, W_k, W_v', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play&scale=0');
  await ready(page);
  await page.selectOption('#play-preset', 'projected');
  await waitForHeader(page, '#play-weights', ['I', 'love', 'cats']);
  // Q·W_q, K·W_k, V·W_v, each computed by hand from the preset.
  const used = async (id) => (await tableOf(page, id)).rows.map((r) => r.cells.map(Number));
  assert.deepEqual(await used('#play-q-used'), [[1, 0, 2], [2, 2, 2], [2, 1, 3]]);
  assert.deepEqual(await used('#play-k-used'), [[0, 1, 1], [4, 4, 0], [2, 3, 1]]);
  assert.deepEqual(await used('#play-v-used'), [[1, 2, 3], [2, 8, 0], [2, 6, 3]]);
  const weights = await tableOf(page, '#play-weights');
  assertPrinted(rowNamed(weights, 'I'), softmax([2, 4, 4]));
  assertPrinted(rowNamed(weights, 'love'), softmax([4, 16, 12]));
  assertPrinted(rowNamed(weights, 'cats'), softmax([4, 12, 10]));
  // The context vector of 'I': Σ weight × v.
  const w = softmax([2, 4, 4]);
  const context = [0, 1, 2].map((c) => w[0] * [1, 2, 3][c] + w[1] * [2, 8, 0][c] + w[2] * [2, 6, 3][c]);
  const steps = await tableOf(page, '#play-steps .context');
  assert.equal(steps.rows.length, 3);
  const total = await page.$$eval('#play-steps .context tfoot td', (tds) => tds.slice(1).map((td) => td.textContent));
  assertPrinted(total, context);
  await finish();
});

test('a matrix pasted past what a box holds is said to be cut, before the shape error its cut makes', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play');
  await ready(page);
  await waitForHeader(page, '#play-weights', ['C', 'A', 'B']);
  // 128 rows of 32 numbers: 4,096 numbers, 8,192 characters; the box keeps 4,000 of them.
  const matrix = Array.from({ length: 128 }, () => Array(32).fill(1).join(' ')).join('; ');
  await page.fill('#play-q', '');
  await page.keyboard.insertText(matrix);
  assert.equal((await page.inputValue('#play-q')).length, 4000, 'the browser cut the paste at the box\'s maxlength');
  await page.waitForSelector('#play-error:not([hidden])');
  assert.match(await page.textContent('#play-error'), /^Q holds 4,000 characters, the most a box takes, so what was pasted past them was cut\. Q: matrix shapes do not fit: row 62 has 18 numbers but row 1 has 32\.$/);
  await finish();
});

test('a typing mistake is named, and the playground survives a link', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play');
  await ready(page);
  await waitForHeader(page, '#play-weights', ['C', 'A', 'B']);
  await page.fill('#play-k', '1 2; x 3');
  await page.waitForSelector('#play-error:not([hidden])');
  assert.equal(await page.textContent('#play-error'), "K: row 2: 'x' is not a number.");
  await page.fill('#play-k', '1 2; 3 4');
  await page.fill('#play-names', 'alpha beta');
  await page.waitForSelector('#play-error', { state: 'hidden' });
  await waitForHeader(page, '#play-weights', ['alpha', 'beta']);
  const before = await tableOf(page, '#play-weights');
  const url = await linkOf(page);
  const { page: again, finish: finishAgain } = await openPage(site.browser, url);
  await ready(again);
  await waitForHeader(again, '#play-weights', ['alpha', 'beta']);
  assert.equal(await again.inputValue('#play-k'), '1 2; 3 4');
  assert.equal(await again.inputValue('#play-q'), '2 3');
  assert.deepEqual(await tableOf(again, '#play-weights'), before);
  assert.equal(await again.evaluate(() => location.href), url);
  await finishAgain();
  await finish();
});

test('the d_k field names a value it cannot use and the page keeps computing with the last good one', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#lab=play');
  await ready(page);
  await page.selectOption('#play-preset', 'saturation');
  await waitForHeader(page, '#play-weights', ['x', 'y']);
  for (const bad of ['-5', '1e9', '0.4', '100001', '']) {
    await page.fill('#play-dk', bad);
    await page.waitForSelector('#play-dk-error:not([hidden])');
    assert.equal(await page.textContent('#play-dk-error'), 'Type a whole number from 0 to 100,000 (0: the number of columns of Q·W_q).', bad);
    assert.equal(await page.$eval('#play-dk', (field) => field.validity.valid), false, bad);
    assert.equal((await hashOf(page)).pdk, '100', `${bad}: d_k stays 100`);
    assert.deepEqual(rowNamed(await tableOf(page, '#play-compare'), 's = q·k ÷ √100'), ['10', '8']);
  }
  await page.fill('#play-dk', '4');
  await page.waitForSelector('#play-dk-error', { state: 'hidden' });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('pdk') === '4');
  assert.deepEqual(rowNamed(await tableOf(page, '#play-compare'), 's = q·k ÷ √4'), ['50', '40']);
  await finish();
});

test('a link with matrices whose products are too large to draw gets a message, and the page stays responsive', async () => {
  // 1,000 one-number rows and a 1 × 1,000 W_q: a 1,000 × 1,000 product, drawn cell by cell, held the page for a minute.
  const rows = Array(1000).fill('1');
  const { page, finish } = await openPage(site.browser, site.url + `#s=The%20king&lab=play&pq=${rows.join('%3B')}&pwq=${rows.join('%20')}`);
  await ready(page);
  await page.waitForSelector('#play-error:not([hidden])');
  assert.equal(await page.textContent('#play-error'), 'Q: 1000 rows; the playground takes at most 128, a row a token.');
  await page.fill('#play-q', '1; 2; 3; 4; 5');
  await page.waitForFunction(() => /Q · W_q would be 5 × 1000: the playground shows at most 4096 numbers a matrix/.test(document.getElementById('play-error').textContent));
  assert.equal(await page.locator('#play-weights td').count(), 0);
  await finish();
});
