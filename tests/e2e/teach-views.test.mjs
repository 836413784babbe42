// The other teaching views: the step panel of a clicked cell, scaling on
// beside off, the padding mask, cross-attention, the nearest words of
// context vectors, every new state through a link, and keyboard and
// screen-reader access to the new controls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { assertClose, cellPoint, hashFor, hashOf, KING, KING_ROW, openPage, readTable, ready, rowOf, useSite } from './helpers.mjs';
import { rowNamed, tableOf, waitForHeader } from './teach-helpers.mjs';

const site = useSite();

const A = 'Where is the Eiffel Tower?';
const B = 'The Eiffel Tower is located in Paris, France.';

test('masked keys say so in the steps, with weight 0, and a masked cell says it is masked', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&cell=3&causal=1'));
  await ready(page);
  await page.waitForSelector('#explain .cell-steps');
  const steps = await tableOf(page, '#explain .steps-table');
  assert.deepEqual(steps.rows.map((r) => r.label), ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  // 'king' sees 'the' and itself; the five later keys are masked (causal).
  for (const row of steps.rows.slice(2)) assert.deepEqual(row.cells.slice(1, 5), ['masked', '0', '0.0000', '0'], row.label);
  assert.ok(Number(steps.rows[0].cells[3]) > 0 && Number(steps.rows[1].cells[3]) > 0);
  assert.match(await page.textContent('#explain .steps'), /Masked keys get weight 0\./);
  assert.match(await page.textContent('#explain .cell-steps'), /Sum: q·k = [\d.]+; s: masked; weight 0\.0000/);
  await finish();
});

test('the texts beside the numbers say what was computed: a row with every key masked, a factor below 0.01, the playground’s d_k, the tooltip without scaling', async () => {
  // Causal and no attention to itself: the first word has no key left.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=0&causal=1&self=0'));
  await ready(page);
  assert.equal(await page.textContent('#explain ol li:nth-child(3)'), 'Softmax: every key is masked, so there is nothing to divide by: this page sets every weight to 0 (some libraries give NaN here).');
  assert.match(await page.getAttribute('#weights', 'aria-label') ?? await page.textContent('#weights caption'), /a row sums to 1 \(to 0 when every key of its query is masked\)/);
  await finish();
  // At T = 1000 the factor is 0.0001414: four decimals printed 0.0001, which did not give the scores beside it.
  const hot = await openPage(site.browser, site.url + hashFor(KING, '&t=1000&focus=1'));
  await ready(hot.page);
  assert.match(await hot.page.textContent('#explain ol li:nth-child(2)'), /= q·k × 0\.0001414:/);
  await hot.finish();
  // The saturation example scales by 1/√100 while q and k have one number each: the caption says both.
  const play = await openPage(site.browser, site.url + hashFor(KING, '&lab=play&pq=10&pk=10%3B8&pv=1%3B0&pn=q1%20x%20y&pdk=100'));
  await ready(play.page);
  await play.page.waitForSelector('#play-weights tbody tr');
  assert.match(await play.page.textContent('#lab-play'), /1 query × 2 keys, d_k = 100 \(set below; q and k have 1 number\), d_v = 1/);
  await play.finish();
  // Scaling off: a clicked cell's s is q·k itself, not "scaled"; with T = 2, s is q·k ÷ T.
  for (const [extra, how] of [['&scale=0', 'not scaled'], ['&scale=0&t=2', '÷ T'], ['', 'scaled']]) {
    const off = await openPage(site.browser, site.url + hashFor(KING, `&focus=1&cell=3${extra}`));
    await ready(off.page);
    await off.page.waitForSelector('#explain .cell-steps');
    const [, dot, s, said] = (await off.page.textContent('#explain .cell-sum')).match(/^Sum: q·k = ([\d.]+); s = ([\d.]+) \(([^)]+)\); weight/);
    assert.equal(said, how, extra);
    if (how === 'not scaled') assert.equal(s, dot);
    await off.finish();
  }
});

test('on a phone, a Steps table wider than its box shows a shadow at the edge it scrolls to', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat sat on the mat because it was tired', '&focus=2'), { viewport: { width: 360, height: 740 }, phone: true });
  await ready(page);
  const box = page.locator('#explain .steps-scroll').first();
  await box.scrollIntoViewIfNeeded();
  /** The brightness of the box's pixels 1 px inside its left and right edges, and in its middle, at the height of a row gap. */
  const edges = async () => {
    const shot = (await box.screenshot()).toString('base64');
    return page.evaluate(async (base64) => {
      const image = Object.assign(new Image(), { src: `data:image/png;base64,${base64}` });
      await image.decode();
      const canvas = new OffscreenCanvas(image.width, image.height);
      const draw = canvas.getContext('2d');
      draw.drawImage(image, 0, 0);
      const at = (x) => [...draw.getImageData(x, Math.round(image.height / 2), 1, 1).data].slice(0, 3).reduce((a, b) => a + b) / 3;
      return { left: at(1), middle: at(Math.round(image.width / 2)), right: at(image.width - 2) };
    }, shot);
  };
  assert.ok(await box.evaluate((b) => b.scrollWidth > b.clientWidth + 50), 'wider than its box');
  const start = await edges();
  assert.ok(start.right < start.left - 20, `a shadow on the right, none on the left: ${JSON.stringify(start)}`);
  await box.evaluate((b) => { b.scrollLeft = b.scrollWidth; });
  const end = await edges();
  assert.ok(end.left < end.right - 20, `at the end, on the left only: ${JSON.stringify(end)}`);
  await finish();
});

test('step 2 gives the reasons of the scaling actually applied, and exp(s) only the digits float32 holds', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&scale=0&t=0.1&focus=1'));
  await ready(page);
  const step2 = () => page.textContent('#explain ol li:nth-child(2)');
  assert.equal(await step2(), 'Scale: s = q·k ÷ T (T = 0.1) = q·k × 10: no ÷√50 (scaling is off), and T = 0.1, below 1, makes the weights sharper.');
  await finish();
  const other = await openPage(site.browser, site.url + hashFor(KING, '&t=0.5&focus=1'));
  await ready(other.page);
  assert.equal(await other.page.textContent('#explain ol li:nth-child(2)'), 'Scale: s = q·k × 1/√50 ÷ T (T = 0.5) = q·k × 0.2828: ÷√50 keeps the scores of 50 dimensions (their spread grows with √50) from making the softmax all-or-nothing, and T = 0.5, below 1, makes the weights sharper.');
  // exp(s) of king → king is about 3,540: 6 significant digits, as far as float32 holds them (not 3540.6612).
  const large = [...(await tableOf(other.page, '#explain .steps-table')).rows.map((r) => r.cells[2]), await other.page.textContent('#explain .sum-of-exps')]
    .filter((e) => Number(e) >= 100);
  assert.ok(large.length >= 2, large.join(' '));
  for (const e of large) assert.ok(e.replace(/\D/g, '').length <= 6, e);
  assert.match(await other.page.textContent('#explain .nearest'), /\(cosine, among the 20,000 most frequent words\)/);
  await other.finish();
  // What if…: unscaled rows of repeated words share their weight (0.33 on average); the note does not say "almost all".
  const whatif = await openPage(site.browser, site.url + hashFor('The cat saw the dog and the dog saw the cat', '&lab=whatif'));
  await ready(whatif.page);
  await whatif.page.waitForSelector('#whatif-compare caption');
  const note = await whatif.page.textContent('#whatif-scaling-note');
  assert.match(note, /Without the division by √d the softmax is sharper: rows put more of their weight on their largest key, mostly on the word itself, up to all of it\./);
  await whatif.finish();
});

test('a clicked cell shows its dot product term by term, and the steps add up', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const p = await cellPoint(page, 1, 3); // king → queen
  await page.mouse.click(p.x, p.y);
  await page.waitForSelector('#explain .cell-steps');
  const hash = await hashOf(page);
  assert.deepEqual([hash.focus, hash.cell], ['1', '3']);
  const steps = await tableOf(page, '#explain .steps-table');
  assert.deepEqual(steps.rows.map((r) => r.label), ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  assertClose(steps.rows.map((r) => Number(r.cells[3])), KING_ROW);
  // exp(s) ÷ Σ exp(s) is the weight, to the printed precision.
  const exps = steps.rows.map((r) => Number(r.cells[2]));
  const sum = Number(await page.textContent('#explain .sum-of-exps'));
  assert.ok(Math.abs(exps.reduce((a, b) => a + b) - sum) < 1e-3);
  exps.forEach((e, j) => assert.ok(Math.abs(e / sum - Number(steps.rows[j].cells[3])) < 1e-4));
  // The terms: the largest six by size, the other 44 collapsed, all adding up to q·k.
  const shownTerms = await page.$$eval('#explain .cell-steps > table tbody tr td:nth-child(4)', (tds) => tds.map((td) => Number(td.textContent)));
  assert.equal(shownTerms.length, 6);
  for (let k = 1; k < 6; k++) assert.ok(Math.abs(shownTerms[k - 1]) >= Math.abs(shownTerms[k]));
  assert.match(await page.textContent('#explain .cell-steps summary'), /The other 44 terms/);
  const all = await page.$$eval('#explain .cell-steps table tbody tr td:nth-child(4)', (tds) => tds.map((td) => Number(td.textContent)));
  assert.equal(all.length, 50);
  const dot = Number(rowNamed(steps, 'queen')[0]);
  assert.ok(Math.abs(all.reduce((a, b) => a + b) - dot) < 0.01, `${all.reduce((a, b) => a + b)} vs ${dot}`);
  assert.match(await page.textContent('#explain .context-sum'), /0\.4431 × v\(king\) \+ 0\.1645 × v\(queen\)/);
  // Another key from the step table; Escape on the heatmap clears everything.
  await page.click('#explain .steps-table button >> text=kingdom');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('cell') === '6');
  await finish();
});

test('a word the text holds twice is told apart in the steps table by its place, sorted as the rows are', async () => {
  // A long text sorts its keys by weight: "the" at words 1 and 6 would be two rows named alike.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  await page.waitForSelector('#explain .steps-table');
  const keys = await page.$$eval('#explain .steps-table tbody th button', (buttons) => buttons.map((b) => ({
    text: b.textContent, place: b.dataset.place ?? null, shown: getComputedStyle(b, '::after').content, title: b.title,
  })));
  assert.deepEqual(keys.map((k) => [k.text, k.place]), [['the', '1'], ['king', null], ['and', null], ['queen', null], ['ruled', null], ['the', '6'], ['kingdom', null]]);
  // Shown after the word (style.css), only where the word repeats.
  assert.notEqual(keys[5].shown, 'none');
  assert.equal(keys[1].shown, 'none');
  assert.equal(keys[5].title, "Show q·k for 'the' (word 6) term by term");
  assert.equal(keys[1].title, "Show q·k for 'king' term by term");
  await finish();
});

test('a key picked from the steps table with the keyboard keeps the focus, and the next key is one Tab away', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  await page.waitForSelector('#explain .steps-table');
  await page.locator('#explain .steps-table button', { hasText: /^queen$/ }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#explain .cell-steps h3')?.textContent.includes('queen'));
  assert.equal((await hashOf(page)).cell, '3');
  // The panel changed its numbers around the button: the focus is where it was.
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'queen');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('tr')?.classList.contains('picked')), true);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('cell') === '4');
  assert.match(await page.textContent('#explain .cell-steps h3'), /ruled/);
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'ruled');
  await finish();
});

test('scaling on beside off shows the saturation of the same row', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=whatif'));
  await ready(page);
  const compare = await tableOf(page, '#whatif-compare');
  assertClose(rowNamed(compare, 'weight ÷ √50').map(Number), KING_ROW);
  const unscaled = rowNamed(compare, 'weight unscaled').map(Number);
  assert.ok(unscaled[1] > 0.99, `unscaled, 'king' takes nearly everything: ${unscaled}`);
  // The same numbers as the main table with scaling switched off.
  await page.uncheck('#opt-scale');
  await page.waitForFunction(() => Number(document.querySelector('#weights tbody tr:nth-child(2) td:nth-child(3)').textContent) > 0.99);
  assert.deepEqual((await rowOf(page, 'king')).map((w) => w.toFixed(4)), unscaled.map((w) => w.toFixed(4)));
  // One side is the page's own analysis, which is now the unscaled one: the rows keep their places.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)))));
  const swapped = await tableOf(page, '#whatif-compare');
  assertClose(rowNamed(swapped, 'weight ÷ √50').map(Number), KING_ROW);
  assert.deepEqual(rowNamed(swapped, 'weight unscaled'), rowNamed(compare, 'weight unscaled'));
  await finish();
  // A temperature divides both sides: their labels say so.
  const hot = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=whatif&t=0.5'));
  await ready(hot.page);
  const labels = (await tableOf(hot.page, '#whatif-compare')).rows.map((r) => r.label);
  assert.deepEqual(labels, ['weight ÷ √50 ÷ T (T = 0.5)', 'weight unscaled ÷ T (T = 0.5)']);
  assert.match(await hot.page.textContent('#lab-whatif'), /Unscaled: scores ÷ T \(T = 0\.5\) only; the largest weight of a row is/);
  await hot.finish();
});

test('a new short sentence shows in the open teaching tab in the same task as in the heatmap: one frame for the page', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=whatif'));
  await ready(page);
  assert.ok((await tableOf(page, '#whatif-compare')).header.includes('king'));
  // The page hears the change first (its listener came first); this one reads what the change's own task drew.
  const drawn = await page.evaluate((hash) => new Promise((resolve) => {
    window.addEventListener('hashchange', () => resolve({
      heatmap: document.getElementById('heatmap-overlay').getAttribute('aria-label'),
      tab: [...document.querySelectorAll('#whatif-compare thead th')].map((th) => th.textContent),
    }), { once: true });
    location.hash = hash;
  }), hashFor('The queen ruled the kingdom', '&focus=1&lab=whatif')); // its words' vectors are in: computed at once
  assert.match(drawn.heatmap, /of 5 tokens/);
  assert.ok(drawn.tab.includes('queen') && drawn.tab.includes('ruled') && !drawn.tab.includes('king'), drawn.tab.join(' '));
  await finish();
});

test('on a long text, the other side comes in slices and holds the numbers of the page switched over', async () => {
  // 300 tokens: past 256 the page computes an analysis a slice at a time.
  const words = KING.split(' ');
  const text = Array.from({ length: 300 }, (_, i) => words[i % words.length]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text, '&focus=1&lab=whatif'));
  await ready(page);
  const compare = await tableOf(page, '#whatif-compare');
  assert.match(compare.caption, /Row of 'king': the 24 keys that either row weighs most, of 300/);
  const scaledRow = rowNamed(compare, 'weight ÷ √50');
  const unscaledRow = rowNamed(compare, 'weight unscaled');
  assert.notDeepEqual(scaledRow, unscaledRow);
  // Switched over, the page's own analysis is the unscaled one, and the other side the scaled one: the same rows.
  await page.locator('#whatif-compare tbody').evaluate((tbody) => { tbody.dataset.before = '1'; });
  await page.uncheck('#opt-scale');
  await page.waitForSelector('#whatif-compare tbody:not([data-before])', { timeout: 10000 });
  const swapped = await tableOf(page, '#whatif-compare');
  assert.deepEqual(swapped.header, compare.header);
  assert.deepEqual([rowNamed(swapped, 'weight ÷ √50'), rowNamed(swapped, 'weight unscaled')], [scaledRow, unscaledRow]);
  await finish();
});

test('with the What-if tab open, the other side of a long text comes with it, not after a second analysis', async () => {
  const words = KING.split(' ');
  const text = Array.from({ length: 300 }, (_, i) => words[(i + 3) % words.length]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=whatif'));
  await ready(page);
  await tableOf(page, '#whatif-compare');
  // Every caption the compare table shows, from the change until it holds the long text.
  await page.evaluate(() => {
    window.captions = [];
    const table = document.getElementById('whatif-compare');
    new MutationObserver(() => window.captions.push(table.querySelector('caption')?.textContent ?? ''))
      .observe(table, { subtree: true, childList: true, characterData: true });
  });
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(text, '&focus=1&lab=whatif'));
  await page.waitForFunction(() => /^Row of 'ruled'.* of 300$/.test(document.querySelector('#whatif-compare caption')?.textContent ?? ''));
  const captions = await page.evaluate(() => window.captions);
  assert.ok(captions.length > 0);
  assert.ok(!captions.some((c) => /Computing/.test(c)), `the other side was computed on its own: ${captions.join(' | ')}`);
  const compare = await tableOf(page, '#whatif-compare');
  assert.notDeepEqual(rowNamed(compare, 'weight ÷ √50'), rowNamed(compare, 'weight unscaled'));
  // Opened on a text computed without it, the tab computes the other side itself.
  await page.evaluate(() => { location.hash = location.hash.replace('lab=whatif', 'lab=steps'); });
  await page.waitForSelector('#explain');
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(text.split(' ').reverse().join(' '), '&focus=1&lab=steps'));
  await page.waitForFunction(() => /^300 tokens in the attention/.test(document.getElementById('status').textContent) && document.querySelector('#weights tr.focused th')?.textContent === 'the');
  await page.evaluate(() => { window.captions = []; location.hash = location.hash.replace('lab=steps', 'lab=whatif'); });
  // The focused word of the reversed text is 'the' (the first text's was 'ruled').
  await page.waitForFunction(() => /^Row of 'the'.* of 300$/.test(document.querySelector('#whatif-compare caption')?.textContent ?? ''));
  assert.ok((await page.evaluate(() => window.captions)).some((c) => /Computing the unscaled side/.test(c)));
  await finish();
});

test('the padding demo masks the pad keys and leaves the words alone', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=whatif'));
  await ready(page);
  await page.fill('#pad-length', '10');
  await page.press('#pad-length', 'Enter');
  await waitForHeader(page, '#pad-weights', [...KING.toLowerCase().split(' '), '<pad>', '<pad>', '<pad>']);
  assert.equal((await hashOf(page)).pad, '10');
  const padded = await tableOf(page, '#pad-weights');
  const plain = await readTable(page);
  for (let i = 0; i < 7; i++) {
    assert.deepEqual(padded.rows[i].cells.slice(0, 7), plain.rows[i].cells, `row ${i}`);
    assert.deepEqual(padded.rows[i].cells.slice(7), ['0.0000', '0.0000', '0.0000']);
    assert.deepEqual(padded.rows[i].classes.slice(7), ['masked', 'masked', 'masked']);
  }
  // The steps below (of its first word): a pad's vector is all zeros, so it
  // has no cosine with it ('–', and why), where 0.000 would read as a right angle.
  const steps = '#lab-whatif .lab-steps .steps-table tbody tr';
  await page.waitForFunction((rows) => document.querySelectorAll(rows).length === 10, steps);
  assert.equal(await page.textContent('#lab-whatif .lab-steps h2'), 'How the attends');
  const read = await page.locator(steps).locator('td:nth-of-type(6)').evaluateAll((tds) => tds.map((td) => [td.textContent, td.title]));
  assert.deepEqual(read.slice(0, 2).map(([text]) => text), ['1.000', '0.572'], 'the with itself, and with king');
  assert.deepEqual(read.slice(7), Array(3).fill(['–', 'a vector of zeros, as a pad’s, has no direction, so no angle']));
  assert.ok(read.slice(0, 7).every(([text, title]) => /^-?\d\.\d{3}$/.test(text) && title === ''));
  await finish();
});

test("a tab's panels far below the screen wait to be drawn until they are scrolled to", async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=whatif'));
  await ready(page);
  const pads = (k) => Array(k).fill('<pad>');
  await waitForHeader(page, '#pad-weights', [...KING.toLowerCase().split(' '), ...pads(5)]); // padded to 12 by default
  // Counts the drawing on two What-if panels' canvases: the first (on
  // screen) and the padded one (below the fold at 900 px).
  await page.evaluate(() => {
    window.drawn = [0, 0];
    const panels = () => [document.querySelector('#lab-whatif .teach-panel'), document.getElementById('pad-weights').closest('.teach-panel')];
    for (const name of ['putImageData', 'fillText']) {
      const draw = CanvasRenderingContext2D.prototype[name];
      CanvasRenderingContext2D.prototype[name] = function (...args) {
        panels().forEach((panel, k) => { if (panel.contains(this.canvas)) window.drawn[k]++; });
        return draw.apply(this, args);
      };
    }
  });
  const padded = page.locator('.teach-panel:has(#pad-weights)');
  assert.ok((await padded.boundingBox()).y > 1200, 'the padded panel starts below the fold');
  const transparent = () => padded.locator('.teach-views').evaluate((views) => getComputedStyle(views).opacity === '0');
  // A new sentence: every table shows it, the panel on screen draws it, the padded one waits, transparent.
  await page.evaluate((hash) => { location.hash = hash; }, hashFor('The queen ruled the kingdom', '&focus=1&lab=whatif'));
  await waitForHeader(page, '#pad-weights', ['the', 'queen', 'ruled', 'the', 'kingdom', ...pads(7)]);
  await page.waitForTimeout(300);
  const [top, below] = await page.evaluate(() => window.drawn);
  assert.ok(top > 0, 'the panel on screen is drawn');
  assert.equal(below, 0, 'the padded panel is not drawn below the fold');
  assert.ok(await transparent(), 'and its last picture is transparent');
  // Focused without scrolling (as a script can), before it was ever drawn:
  // a key does nothing yet, and breaks nothing (finish() checks the errors).
  const overlay = padded.locator('canvas.overlay');
  await overlay.evaluate((canvas) => canvas.focus({ preventScroll: true }));
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(200); // the address is written in a background task
  assert.equal((await hashOf(page)).lf, undefined, 'the panel keeps its focus on its first row');
  // Scrolled to, it is drawn, with the new words, and its keys move its focus.
  await padded.locator('.teach-views').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.drawn[1] > 0);
  assert.ok(!(await transparent()));
  await overlay.press('ArrowDown');
  await page.waitForFunction(() => /[#&]lf=1(&|$)/.test(location.hash));
  await finish();
});

test("cross-attention has A's words as rows and B's as columns", async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=cross'));
  await ready(page);
  // B is already the example's (its default): only A's rows show the example has been drawn.
  await page.click('#cross-example');
  const columns = ['the', 'eiffel', 'tower', 'is', 'located', 'in', 'paris', ',', 'france', '.'];
  await waitForHeader(page, '#cross-weights', columns);
  await page.waitForFunction(() => document.querySelector('#cross-weights tbody th')?.textContent === 'where');
  assert.equal(await page.inputValue('#sentence'), A);
  assert.equal(await page.inputValue('#cross-b'), B);
  const table = await tableOf(page, '#cross-weights');
  assert.deepEqual(table.rows.map((r) => r.label), ['where', 'is', 'the', 'eiffel', 'tower', '?']);
  for (const row of table.rows) {
    assert.equal(row.cells.length, 10);
    const sum = row.cells.map(Number).reduce((a, b) => a + b);
    assert.ok(Math.abs(sum - 1) < 1e-3, `${row.label} sums to ${sum}`);
  }
  // 'tower' in A looks most at 'tower' in B, and its steps list B's words.
  const tower = rowNamed(table, 'tower').map(Number);
  assert.equal(tower.indexOf(Math.max(...tower)), 2);
  await page.click('#cross-weights tbody tr:nth-child(5) th');
  await page.locator('#lab-cross .overlay').focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('lf') === '1');
  const steps = await tableOf(page, '#lab-cross .steps-table');
  assert.deepEqual(steps.rows.map((r) => r.label), columns);
  // Sentence B is in the link.
  assert.equal((await hashOf(page)).b, undefined, 'B is the default sentence');
  await page.fill('#cross-b', 'The tower is in Paris');
  await waitForHeader(page, '#cross-weights', ['the', 'tower', 'is', 'in', 'paris']);
  assert.equal((await hashOf(page)).b, 'The tower is in Paris');
  await finish();
});

test('cross-attention says which sentence it cannot use, names B\'s words without a vector, and follows Back in its box', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(A, '&lab=cross'));
  await ready(page);
  await waitForHeader(page, '#cross-weights', ['the', 'eiffel', 'tower', 'is', 'located', 'in', 'paris', ',', 'france', '.']);
  // Typed into B, then Back while the box keeps the keyboard: the box shows the address's B, as the table does.
  await page.fill('#cross-b', 'Paris xqzzy is big');
  await waitForHeader(page, '#cross-weights', ['paris', 'is', 'big']);
  assert.match(await page.textContent('#lab-cross figcaption'), /Columns: the 3 words of B \(keys and values\)\. Left out of B \(no vector\): 'xqzzy'\.$/);
  await page.goBack();
  await waitForHeader(page, '#cross-weights', ['the', 'eiffel', 'tower', 'is', 'located', 'in', 'paris', ',', 'france', '.']);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'cross-b');
  assert.equal(await page.inputValue('#cross-b'), B);
  // B emptied: the message names B, not "the sentence" (A is on screen, not empty).
  await page.fill('#cross-b', '');
  await page.waitForSelector('#lab-cross .error:not([hidden])');
  assert.equal(await page.textContent('#lab-cross .error:not([hidden])'), 'Sentence B is empty: type a few words.');
  await finish();
});

test('What if with nothing focused marks no row, and says which row it compares; past 128 words its padding panel gives way to the reason', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=whatif'));
  await ready(page);
  const compare = await tableOf(page, '#whatif-compare');
  assert.equal(compare.caption, "Row of 'the', the first: no word is focused (click a row to compare it)");
  const long = Array.from({ length: 130 }, (_, k) => ['the', 'king', 'and', 'queen', 'ruled'][k % 5]).join(' ');
  await page.fill('#sentence', long);
  await page.waitForFunction(() => /130 known words/.test(document.querySelector('#lab-whatif .lab-steps')?.textContent));
  assert.equal(await page.textContent('#lab-whatif .lab-steps'), 'The text has 130 known words; the padding example takes at most 128: shorten it.');
  assert.equal(await page.locator('#pad-weights').isVisible(), false, 'no empty padding panel');
  await finish();
});

test('the nearest words of a known vector, and of each context vector', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=meaning'));
  await ready(page);
  const table = await tableOf(page, '#meaning-table:not([aria-busy])');
  assert.match(table.caption, /^Nearest of the [\d,]+ most frequent vocabulary words by cosine similarity/);
  assert.deepEqual(table.rows.map((r) => r.label), ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  // The vector of 'king' itself: the same words as the native core finds
  // (crates/attention-wasm/tests/teach.rs), itself first.
  const own = rowNamed(table, 'king')[0].split(' · ');
  assert.deepEqual(own.slice(0, 4).map((w) => w.split(' ')[0]), ['king', 'prince', 'queen', 'ii']);
  assert.equal(own[0], 'king 1.00');
  const mixed = rowNamed(table, 'king')[1].split(' · ').map((w) => w.split(' ')[0]);
  assert.equal(mixed[0], 'king', "the context of 'king' stays closest to 'king'");
  // The step panel shows the raw cosine beside each weight: 1 for the word itself.
  await page.click('#tokens button.token >> nth=1');
  await page.click('#tab-steps');
  const steps = await tableOf(page, '#explain .steps-table');
  assert.equal(rowNamed(steps, 'king')[5], '1.000');
  await finish();
  // A row with every key masked: its context vector is zero, and the cell says why it lists no word.
  const masked = await openPage(site.browser, site.url + hashFor(KING, '&lab=meaning&causal=1&self=0'));
  await ready(masked.page);
  const rows = await tableOf(masked.page, '#meaning-table:not([aria-busy])');
  assert.equal(rows.rows[0].cells[1], 'none: every key is masked, so its context vector is zero');
  assert.notEqual(rows.rows[1].cells[1], rows.rows[0].cells[1]);
  await masked.finish();
});

test('a text longer than 64 words lists the page of 64 that holds the focused word, marked and scrolled to', async () => {
  const words = KING.toLowerCase().split(' ');
  const text = Array.from({ length: 100 }, (_, k) => words[k % words.length]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text, '&lab=meaning&focus=80'));
  await ready(page);
  const table = await tableOf(page, '#meaning-table:not([aria-busy])');
  assert.deepEqual(table.rows.map((r) => r.label), text.split(' ').slice(64), 'words 65 to 100');
  assert.match(table.caption, /; words 65–100 of 100, the page of the focused word$/);
  assert.match(table.rows[0].cells[0], /^king 1\.00 · /, "the first row is word 65, 'king', nearest to itself");
  assert.equal(await page.getAttribute('#meaning-table', 'aria-rowcount'), '101');
  // Word 81 ('queen', which the text repeats: its place shows) is marked, and scrolled into the table's view.
  const focused = page.locator('#meaning-table tbody tr.picked');
  assert.equal(await focused.count(), 1);
  assert.equal(await focused.getAttribute('aria-rowindex'), '82');
  assert.equal(await focused.getAttribute('aria-current'), 'true');
  assert.equal(await focused.locator('th').textContent(), 'queen');
  assert.equal(await focused.locator('th').getAttribute('data-place'), '81');
  await page.waitForFunction(() => {
    const row = document.querySelector('#meaning-table tr.picked').getBoundingClientRect();
    const box = document.querySelector('#meaning-table').closest('.table-scroll').getBoundingClientRect();
    return row.top >= box.top && row.bottom <= box.bottom;
  });
  // Another change (the arrows' threshold, in the link) leaves the reader's scroll of the table alone.
  const box = page.locator('#lab-meaning .table-scroll');
  await box.evaluate((scroll) => { scroll.scrollTop = 0; });
  await page.locator('#threshold').fill('0.5');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('th') === '0.5');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 100)))));
  assert.equal(await box.evaluate((scroll) => scroll.scrollTop), 0);
  // A focus on the first page (from a link) lists words 1 to 64; no focus, the same, and says how to see the rest.
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(text, '&lab=meaning&focus=10'));
  await page.waitForFunction(() => document.querySelector('#meaning-table:not([aria-busy]) tbody th')?.textContent === 'the');
  const firstPage = await tableOf(page, '#meaning-table:not([aria-busy])');
  assert.deepEqual(firstPage.rows.map((r) => r.label), text.split(' ').slice(0, 64));
  assert.match(firstPage.caption, /; words 1–64 of 100, the page of the focused word$/);
  assert.equal(await page.getAttribute('#meaning-table tr.picked', 'aria-rowindex'), '12');
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(text, '&lab=meaning'));
  await page.waitForFunction(() => /focus a word to list its page of 64$/.test(document.querySelector('#meaning-table caption').textContent));
  assert.equal(await page.locator('#meaning-table tr.picked').count(), 0);
  await finish();
});

test('a new sentence refills the nearest words a few rows at a time, the old rows dimmed until then', async () => {
  const words = KING.replace('.', '').toLowerCase().split(' ');
  const text = (shift) => Array.from({ length: 64 }, (_, k) => words[(k + shift) % words.length]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text(0), '&lab=meaning'));
  await ready(page);
  const before = await tableOf(page, '#meaning-table:not([aria-busy])');
  assert.equal(before.rows.length, 64);
  // What the table shows after each task: busy or not, and how many rows are fresh.
  await page.evaluate(() => {
    const table = document.getElementById('meaning-table');
    window.seen = [];
    new MutationObserver(() => window.seen.push({
      busy: table.getAttribute('aria-busy') === 'true',
      fresh: table.querySelectorAll('tbody tr:not(.stale)').length,
      rows: table.tBodies[0].rows.length,
    })).observe(table, { subtree: true, attributes: true, childList: true, characterData: true });
  });
  // A quarter of the CPU, so that 128 searches exceed one slice on a fast machine too.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.fill('#sentence', text(1));
  // Done: not busy, and its first row is the new sentence's first word.
  await page.waitForFunction(() => {
    const table = document.querySelector('#meaning-table:not([aria-busy])');
    return table?.tBodies[0].rows[0]?.cells[0].textContent === 'king';
  });
  const after = await tableOf(page, '#meaning-table');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  assert.deepEqual(after.rows.map((r) => r.label), text(1).split(' '));
  assert.equal(after.rows[0].cells[0], rowNamed(before, 'king')[0], "the first row is 'king' now, with the words nearest to its own vector");
  assert.notEqual(after.rows[0].cells[1], before.rows[0].cells[1], "and the context vector of 'king', not of 'the'");
  assert.equal(await page.locator('#meaning-table tr.stale').count(), 0);
  const seen = await page.evaluate(() => window.seen);
  const partial = seen.filter((s) => s.busy && s.fresh > 0 && s.fresh < 64);
  assert.ok(partial.length > 0, `the rows came in one task: ${JSON.stringify(seen)}`);
  assert.ok(seen.every((s) => s.rows === 64), 'the table keeps its 64 rows meanwhile');
  await finish();
});

test('every new state survives a round trip through a link', async () => {
  const extra = '&focus=1&cell=3&lab=cross&lf=2&lc=2&pad=20&h=10&hm=split&head=3&hide=0,5&b=The%20queen%20ruled' +
    '&pq=1%202&pk=3%204%3B%205%206&pv=&pwq=&pwk=&pwv=&pn=a%20b&pdk=9&seed=99';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, extra));
  await ready(page);
  await waitForHeader(page, '#cross-weights', ['the', 'queen', 'ruled']);
  const hash = await hashOf(page);
  assert.deepEqual(hash, {
    s: KING, self: '1', causal: '0', scale: '1', focus: '1', cell: '3', lab: 'cross', lf: '2', lc: '2', pad: '20', h: '10',
    hm: 'split', seed: '99', head: '3', hide: '0,5', b: 'The queen ruled', pq: '1 2', pk: '3 4; 5 6', pv: '', pwq: '', pwk: '',
    pwv: '', pn: 'a b', pdk: '9',
  });
  assert.equal(await page.getAttribute('#cross-weights tbody tr:nth-child(3)', 'class'), 'focused');
  // The page's own focus and cell: the Steps tab shows that dot product term by term.
  await page.click('#tab-steps');
  await page.waitForSelector('#explain .cell-steps');
  assert.equal((await hashOf(page)).lab, undefined, 'Steps is the default tab');
  await finish();
});

test('the teaching views are keyboard-reachable and every control has a name', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const unnamed = await page.$$eval('#teach input, #teach select, #teach textarea, #teach button, #teach [tabindex="0"]', (nodes) =>
    nodes.filter((n) => !(n.labels?.length || n.getAttribute('aria-label') || n.getAttribute('aria-labelledby') || n.textContent.trim()))
      .map((n) => n.outerHTML.slice(0, 80)));
  assert.deepEqual(unnamed, []);
  // Tabs follow the ARIA pattern: arrows move between them.
  await page.click('#tab-whatif');
  await page.focus('#tab-whatif');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.activeElement?.id === 'tab-play');
  assert.equal(await page.getAttribute('#tab-play', 'aria-selected'), 'true');
  assert.ok(await page.isVisible('#lab-play'));
  assert.ok(!(await page.isVisible('#lab-whatif')));
  assert.equal((await hashOf(page)).lab, 'play');
  // Tab reaches the playground's fields once they are there (the tab's
  // module loads on first use, and with frames 200 ms late that can come
  // after the panel shows); typing there recomputes.
  await page.waitForSelector('#play-preset');
  await page.keyboard.press('Tab');
  const reached = [];
  for (let k = 0; k < 4; k++) {
    reached.push(await page.evaluate(() => document.activeElement?.id));
    await page.keyboard.press('Tab');
  }
  assert.ok(reached.includes('play-preset') && reached.includes('play-q'), reached.join(','));
  await finish();
});

/** Whether the element at `selector` is laid out and shown. */
const shows = (page, selector) => page.locator(selector).first().isVisible();

test('a sentence with no known word, or none at all, leaves no old numbers in the tabs and says what to type', async () => {
  const results = { whatif: '#pad-weights', heads: '#heads-weights', meaning: '#meaning-table', cross: '#cross-weights' };
  for (const [lab, table] of Object.entries(results)) {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, `&lab=${lab}`));
    await ready(page);
    await page.waitForSelector(`${table} tbody tr`);
    for (const [text, message] of [['xqzzy blorf', /None of the words is in the vocabulary/], ['', /The sentence is empty/]]) {
      await page.fill('#sentence', text);
      // The message of this text, not the last one's (a frame may still be on its way).
      await page.locator(`#${lab}-nothing:not([hidden])`, { hasText: message }).waitFor({ timeout: 10000 });
      assert.match(await page.textContent(`#${lab}-nothing`), message, lab);
      assert.match(await page.textContent(`#${lab}-nothing`), /^Nothing to show here: /, lab);
      assert.equal(await shows(page, table), false, `${lab}: the previous sentence's table is hidden`);
    }
    await page.fill('#sentence', 'The queen ruled');
    await page.waitForSelector(`#${lab}-nothing`, { state: 'hidden' });
    await page.waitForFunction((sel) => document.querySelector(`${sel} tbody th`)?.textContent === 'the', table);
    assert.equal(await shows(page, table), true, `${lab}: the new sentence's table is back`);
    await finish();
  }
});

test('the scaling step names the temperature apart from the factor', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&t=0.05'));
  await ready(page);
  const scaleStep = () => page.textContent('#explain .steps li:nth-child(2)');
  await page.waitForSelector('#explain .steps');
  assert.match(await scaleStep(), /^Scale: s = q·k × 1\/√50 ÷ T \(T = 0\.05\) = q·k × 2\.8284:/);
  await page.uncheck('#opt-scale');
  await page.waitForFunction(() => document.querySelector('#explain .steps li:nth-child(2)')?.textContent.includes('scaling is off'));
  assert.match(await scaleStep(), /^Scale: s = q·k ÷ T \(T = 0\.05\) = q·k × 20(\.0000)?:/);
  await finish();
});

/** The page's note about the link, once it names `key`. */
async function linkNoteNaming(page, key) {
  await page.waitForFunction((k) => document.getElementById('link-note')?.textContent.includes(`${k}=`), key, { timeout: 10000 });
  assert.equal(await page.isVisible('#link-note'), true);
  return page.textContent('#link-note');
}

test('link values the teaching tabs cannot use are named in the link note', async () => {
  const { page: steps, finish: finishSteps } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&cell=99'));
  await ready(steps);
  let note = await linkNoteNaming(steps, 'cell');
  assert.match(note, /cell=99 \(expected a key from 0 to 6\)/);
  await finishSteps();

  // The What-if tab's padded sentence has 12 positions.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=whatif&lf=99&lc=42'));
  await ready(page);
  note = await linkNoteNaming(page, 'lf');
  assert.match(note, /lf=99 \(expected a row from 0 to 11\)/);
  assert.match(note, /lc=42 \(expected a column from 0 to 11\)/);
  // Named once, and not passed on: the address holds the last row, shown focused, and no column.
  const link = await hashOf(page);
  assert.deepEqual([link.lf, link.lc], ['11', undefined]);
  await finish();

  const long = 'word '.repeat(500);
  const { page: cross, finish: finishCross } = await openPage(site.browser, site.url + hashFor(KING, `&lab=cross&b=${encodeURIComponent(long)}`));
  await ready(cross);
  note = await linkNoteNaming(cross, 'b');
  assert.match(note, /b=word word .*… \(expected at most 2,000 characters: the rest is cut\)/);
  assert.equal((await cross.inputValue('#cross-b')).length, 2000);
  await finishCross();
});

test('a pad length shorter than the sentence is kept, and the caption says nothing is padded', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=whatif&pad=3'));
  await ready(page);
  await page.waitForSelector('#pad-weights tbody tr');
  assert.equal(await page.inputValue('#pad-length'), '3');
  assert.equal(await page.isVisible('#link-note'), false, 'pad=3 is a legal value');
  assert.match(await page.locator('#lab-whatif').textContent(), /The 7 words fill more than the 3 positions asked for: nothing is padded \(pad to 8 or more to see pad columns\)\./);
  await finish();
});

test('the pad length field names a value it cannot use, and an empty field is not 0', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=whatif'));
  await ready(page);
  await page.waitForSelector('#pad-weights tbody tr');
  for (const bad of ['0', '500', '-3', '2.5', '']) {
    await page.fill('#pad-length', bad);
    await page.press('#pad-length', 'Enter');
    await page.waitForSelector('#pad-length-error:not([hidden])');
    assert.equal(await page.textContent('#pad-length-error'), 'Type a whole number from 1 to 128.', bad);
    assert.equal(await page.$eval('#pad-length', (field) => field.validity.valid), false, bad);
    assert.equal(await page.inputValue('#pad-length'), bad, 'the typed text stays, to be mended');
    assert.equal((await hashOf(page)).pad, undefined, `${bad}: the pad length stays 12`);
  }
  await page.fill('#pad-length', '9');
  await page.press('#pad-length', 'Enter');
  await page.waitForSelector('#pad-length-error', { state: 'hidden' });
  assert.equal((await hashOf(page)).pad, '9');
  assert.equal(await page.$eval('#pad-length', (field) => field.validity.valid), true);
  await finish();
});

/** The caption of figure `figure` (a value of #export-figure) as exported: its JSON download's. */
async function exportedCaption(page, figure) {
  await page.focus('#export-figure'); // its list of figures is made when it is opened
  await page.waitForFunction((want) => [...document.querySelectorAll('#export-figure option')].some((o) => o.value === want), figure, { timeout: 10000 });
  await page.selectOption('#export-figure', figure);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  return JSON.parse(await readFile(await download.path(), 'utf8')).caption;
}

test('an exported teaching panel names what it computed: its own scaling, masks where they apply, vectors where they go in', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=cross&scale=0&causal=1'));
  await ready(page);
  await page.waitForSelector('#cross-weights tbody tr');
  // Across sentences no self or causal mask applies.
  const cross = await exportedCaption(page, 'panel-cross-weights');
  assert.match(cross, /^Cross-attention: Rows: .* · GloVe 6B 50d · unscaled scores$/);
  // Your own vectors, in the What-if tab: each side its own scaling, the sentence's d in the text.
  await page.setInputFiles('#vectors-file', { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\nking 0 1 0\nand 0 0 1\nqueen 1 1 0\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'), null, { timeout: 20000 });
  await page.click('#tab-whatif');
  await page.waitForFunction(() => /^Row of 'the'/.test(document.querySelector('#whatif-compare caption')?.textContent ?? ''), null, { timeout: 10000 });
  assert.match(await page.textContent('#whatif-scaling-note'), /^Dot products of 3-dimensional vectors are large\./);
  const scaled = await exportedCaption(page, 'panel-Scaled');
  assert.match(scaled, /^Scaled: ÷ √3: .* · your own vectors \(a\.txt, 3d\) · scores ÷ √3 · a word may attend to itself · causal mask$/);
  const unscaled = await exportedCaption(page, 'panel-Unscaled');
  assert.match(unscaled, /^Unscaled: the largest weight .* · your own vectors \(a\.txt, 3d\) · unscaled scores · a word may attend to itself · causal mask$/);
  // The playground has no word vectors, and scales by its own d_k (2 in the first example).
  await page.check('#opt-scale');
  await page.click('#tab-play');
  await page.waitForSelector('#play-weights tbody tr');
  const play = await exportedCaption(page, 'panel-play-weights');
  assert.match(play, /^Playground: 1 query × 3 keys, d_k = 2, d_v = 2 · scores ÷ √2 · a word may attend to itself · causal mask$/);
  await finish();
});
