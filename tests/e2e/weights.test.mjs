// The numbers: the tutorial's 'king' row, and every option changing the
// table and the URL hash together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, cellPoint, hashFor, hashOf, KING, KING_ROW, openPage, readTable, ready, rowOf, useSite } from './helpers.mjs';

const site = useSite();

test("the link of the tutorial sentence shows the 'king' row", async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#s=The%20king%20and%20queen%20ruled%20the%20kingdom');
  await ready(page);
  const table = await readTable(page);
  assert.deepEqual(table.header, ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  assert.equal(table.rows.length, 7);
  assertClose(await rowOf(page, 'king'), KING_ROW);
  // Every cell is written with 4 decimals.
  for (const row of table.rows) for (const cell of row.cells) assert.match(cell, /^\d\.\d{4}$/);
  assert.equal(await page.inputValue('#sentence'), KING);
  await finish();
});

test('a weight exactly halfway between two 4-decimal values is rounded to even, as the CLI prints it', async () => {
  // 'the' 4 times: every weight is 1/4 exactly; 32 times, 1/32 = 0.03125 exactly, printed 0.0312 (toFixed gave 0.0313).
  const { page, finish } = await openPage(site.browser, site.url + hashFor(Array(32).fill('the').join(' '), '&focus=0'));
  await ready(page);
  const table = await readTable(page);
  // Past 16 tokens the table renders the cells in view (the focused row's at least); the others are empty.
  assert.deepEqual([...new Set(table.rows.flatMap((r) => r.cells).filter(Boolean))], ['0.0312']);
  await hoverCell(page, 0, 1, "'the' → 'the'");
  assert.match(await page.textContent('#tooltip'), /weight 0\.0312/);
  await finish();
  const { weight } = await import('../../www/js/text.js');
  // Ties (1/32, 3/32, 5/32) to the even digit; 0.00015, a double just below its tie, down as toFixed has it.
  assert.deepEqual([0.03125, 0.09375, 0.15625, 0.00015, 0.1, 1, 0].map(weight),
    ['0.0312', '0.0938', '0.1562', '0.0001', '0.1000', '1.0000', '0.0000']);
});

test('the heatmap writes each word whole beside and above its cells, the widest too', async () => {
  const { page, context, finish } = await openPage(site.browser, null, { origins: [new URL(site.url).origin] });
  // Every text the page writes on the heatmap's canvas.
  await context.addInitScript(() => {
    const fill = CanvasRenderingContext2D.prototype.fillText;
    window.heatmapTexts = [];
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      if (this.canvas.id === 'heatmap') window.heatmapTexts.push(String(text));
      return fill.call(this, text, ...rest);
    };
  });
  await page.goto(site.url + hashFor(KING));
  await ready(page);
  const texts = await page.evaluate(() => window.heatmapTexts);
  // Each label twice (its row and its column) at each paint; "kingdom", the widest, was drawn "kingd…".
  for (const word of ['the', 'king', 'and', 'queen', 'ruled', 'kingdom']) {
    assert.ok(texts.filter((t) => t === word).length >= 2, `${word} in ${JSON.stringify(texts)}`);
  }
  assert.deepEqual(texts.filter((t) => t.includes('…')), []);
  await finish();
});

test("the colour bar runs from the palette's first colour at the bottom to its last at the top", async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const ends = () => page.evaluate(() => {
    const [x, y, w, h] = document.getElementById('heatmap-overlay').dataset.colorbar.split(',').map(Number);
    const canvas = document.getElementById('heatmap');
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    const pixel = (px, py) => [...canvas.getContext('2d').getImageData(Math.round(px * ratio), Math.round(py * ratio), 1, 1).data.slice(0, 3)];
    // 3 px in: the bar's 1 px outline is drawn over its edges.
    return { top: pixel(x + w / 2, y + 3), bottom: pixel(x + w / 2, y + h - 3) };
  });
  // viridis: from dark purple (68, 1, 84) to yellow (253, 231, 37); 3 px in, a band or two from the end.
  const near = (actual, expected) => assert.ok(actual.every((c, k) => Math.abs(c - expected[k]) <= 8), `${actual} is not near ${expected}`);
  const viridis = await ends();
  near(viridis.top, [253, 231, 37]);
  near(viridis.bottom, [68, 1, 84]);
  await page.selectOption('#opt-palette', 'greys');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('pal') === 'greys');
  const greys = await ends();
  assert.ok(greys.top.every((c) => c === greys.top[0]) && greys.bottom.every((c) => c === greys.bottom[0]), JSON.stringify(greys));
  assert.notDeepEqual(greys.top, greys.bottom);
  await finish();
});

test('each heatmap cell has the colour of its weight, and masked cells are left to the hatching', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&causal=1'));
  await ready(page);
  const weights = (await readTable(page)).rows.map((row) => row.cells.map(Number));
  const { viridis, pixels } = await page.evaluate(async () => {
    const { colormapTable } = await import('/pkg/attention_wasm.js');
    const overlay = document.getElementById('heatmap-overlay');
    const [x, y] = overlay.dataset.matrix.split(',').map(Number);
    const cell = Number(overlay.dataset.cell);
    const canvas = document.getElementById('heatmap');
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    // Near a cell's corner, away from the number printed in its middle.
    const pixel = (i, j) => [...canvas.getContext('2d').getImageData(Math.floor((x + (j + 0.2) * cell) * ratio), Math.floor((y + (i + 0.2) * cell) * ratio), 1, 1).data.slice(0, 3)];
    return { viridis: Array.from(colormapTable('viridis')), pixels: Array.from({ length: 7 }, (_, i) => Array.from({ length: 7 }, (_, j) => pixel(i, j))) };
  });
  const colour = (k) => viridis.slice(3 * k, 3 * k + 3);
  const top = Math.max(...weights.flat());
  assert.equal(top, 1, "causal: 'the' sees only itself");
  for (let i = 0; i < 7; i++) {
    for (let j = 0; j < 7; j++) {
      if (j > i) {
        assert.notDeepEqual(pixels[i][j], colour(0), `cell (${i}, ${j}) is masked: not painted as a weight of 0`);
        continue;
      }
      // The weights are read with 4 decimals: the colour is the nearest of the 256, or one next to it.
      const k = Math.round((weights[i][j] / top) * 255);
      const near = [k - 1, k, k + 1].filter((c) => c >= 0 && c < 256).map(colour);
      assert.ok(near.some((c) => c.join() === pixels[i][j].join()), `cell (${i}, ${j}), weight ${weights[i][j]}: ${pixels[i][j]} is not colour ${k} (${colour(k)})`);
    }
  }
  await finish();
});

test('the default page shows the default sentence', async () => {
  const { page, finish } = await openPage(site.browser, site.url);
  await ready(page);
  assert.equal(await page.inputValue('#sentence'), KING);
  assertClose(await rowOf(page, 'king'), KING_ROW);
  await finish();
});

test('each option changes the table and the hash', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);

  await page.uncheck('#opt-self');
  let king = await rowOf(page, 'king');
  assert.equal(king[1], 0, "'king' may not attend to itself");
  assert.ok(Math.abs(king.reduce((a, b) => a + b) - 1) < 1e-3, 'the row still sums to 1');
  assert.ok(king[3] > 0.25, `'queen' takes the lead: ${king}`);
  assert.equal((await hashOf(page)).self, '0');
  await page.check('#opt-self');
  assertClose(await rowOf(page, 'king'), KING_ROW);
  assert.equal((await hashOf(page)).self, '1');

  await page.check('#opt-causal');
  assert.deepEqual(await rowOf(page, 'the'), [1, 0, 0, 0, 0, 0, 0], 'the first word sees only itself');
  king = await rowOf(page, 'king');
  assert.deepEqual(king.slice(2), [0, 0, 0, 0, 0], "'king' sees nothing after it");
  assert.equal((await hashOf(page)).causal, '1');
  await page.uncheck('#opt-causal');
  assert.equal((await hashOf(page)).causal, '0');

  await page.uncheck('#opt-scale');
  king = await rowOf(page, 'king');
  assert.ok(king[1] > 0.9, `unscaled, 'king' looks almost only at itself: ${king}`);
  assert.equal((await hashOf(page)).scale, '0');
  await page.check('#opt-scale');
  assertClose(await rowOf(page, 'king'), KING_ROW);

  // Temperature 10 (the slider is logarithmic: position 1 = 10¹).
  await page.locator('#opt-temperature').fill('1');
  assert.equal((await hashOf(page)).t, '10');
  assert.equal(await page.textContent('#temperature-value'), '10');
  king = await rowOf(page, 'king');
  assert.ok(king[1] < 0.2 && Math.max(...king) - Math.min(...king) < 0.1, `a hot softmax is nearly flat: ${king}`);
  await finish();
});

test('the sliders tell a screen reader their values as the page shows them, after a link or Back too', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&t=0.5&th=0.25'));
  await ready(page);
  const temperature = page.locator('#opt-temperature');
  const threshold = page.locator('#threshold');
  const said = async () => [await temperature.getAttribute('aria-valuetext'), await threshold.getAttribute('aria-valuetext')];
  // The names are the labels' words: not the <output>'s tooltip, not its number.
  assert.match(await temperature.ariaSnapshot(), /^- slider "Temperature":/);
  assert.match(await threshold.ariaSnapshot(), /^- slider "Hide links weaker than"/);
  assert.deepEqual(await said(), ['temperature 0.5', '25 % of the strongest']);
  await temperature.fill('-0.5');
  await threshold.fill('0.1');
  assert.equal((await hashOf(page)).t, '0.316');
  assert.deepEqual(await said(), ['temperature 0.316', '10 % of the strongest']);
  const back = async (t) => {
    await page.goBack();
    await page.waitForFunction((value) => new URLSearchParams(location.hash.slice(1)).get('t') === value, t);
  };
  await back('0.316');
  assert.deepEqual(await said(), ['temperature 0.316', '25 % of the strongest']);
  await back('0.5');
  assert.deepEqual(await said(), ['temperature 0.5', '25 % of the strongest']);
  await finish();
});

test('the tabs follow the WAI-ARIA pattern, and a run of arrow keys is one history entry', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const entries = await page.evaluate(() => history.length);
  await page.focus('#tab-steps');
  const press = async (key, lab) => {
    await page.keyboard.press(key);
    assert.equal(await page.evaluate(() => document.activeElement.id), `tab-${lab}`, key);
    assert.equal(await page.getAttribute(`#tab-${lab}`, 'aria-selected'), 'true');
  };
  await press('End', 'meaning');
  await press('ArrowRight', 'steps');
  await press('ArrowRight', 'whatif');
  await press('Home', 'steps');
  await press('ArrowLeft', 'meaning');
  await press('ArrowLeft', 'cross');
  // The address is written in a background task after the change's frame (url.js).
  await page.waitForFunction(() => location.hash.includes('lab=cross'));
  assert.equal(await page.evaluate(() => history.length), entries + 1);
  // One Back undoes the whole run.
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('tab-steps').getAttribute('aria-selected') === 'true');
  assert.equal((await hashOf(page)).lab, undefined);
  // A run that is back on its first tab when the address is written still
  // makes its entry with its next step (two keys in one task, then a third).
  await page.focus('#tab-steps');
  await page.evaluate(() => {
    for (const key of ['ArrowRight', 'ArrowLeft']) document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
  });
  await page.waitForTimeout(100);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => location.hash.includes('lab=whatif'));
  assert.equal(await page.evaluate(() => history.length), entries + 1, 'the run made its own entry');
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('tab-steps').getAttribute('aria-selected') === 'true');
  await finish();
});

test('typing recomputes, and unknown words are marked and explained', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  await page.fill('#sentence', 'The cat sat on the mat because it was tired');
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr').length === 10);
  const table = await readTable(page);
  assert.deepEqual(table.header, ['the', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'tired']);
  assert.equal((await hashOf(page)).s, 'The cat sat on the mat because it was tired');

  await page.fill('#sentence', 'The zorblax sat');
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr').length === 2);
  const unknown = page.locator('#tokens .token.unknown');
  assert.equal(await unknown.count(), 1);
  assert.equal(await unknown.textContent(), 'zorblax');
  // The chips are the new sentence's, each focusing its own row.
  assert.deepEqual(await page.locator('#tokens button.token').evaluateAll((chips) => chips.map((c) => [c.textContent, c.dataset.row, c.title])),
    [['The', '0', "Focus 'the' (word 1)"], ['sat', '1', "Focus 'sat' (word 2)"]]);
  const note = await page.textContent('#unknown-note');
  assert.match(note, /'zorblax'/);
  assert.match(note, /left out of the attention/);
  // Shown once the keys pause (a fill is typing).
  await page.waitForSelector('#unknown-note:not([hidden])');
  assert.match(await page.getAttribute('#heatmap-overlay', 'aria-label'), /^Attention heatmap of 2 tokens:/);
  await page.fill('#sentence', 'The zorblax');
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr').length === 1);
  assert.match(await page.getAttribute('#heatmap-overlay', 'aria-label'), /^Attention heatmap of 1 token:/);

  // An emoji with its variation selector is one chip, never an empty one.
  await page.fill('#sentence', 'I \u2764\uFE0F my cat!');
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr').length === 4);
  assert.deepEqual(await page.locator('#tokens .token').allTextContents(), ['I', '\u2764\uFE0F', 'my', 'cat', '!']);
  assert.deepEqual(await unknown.allTextContents(), ['\u2764\uFE0F']);

  await page.fill('#sentence', '   ');
  await page.waitForFunction(() => !document.querySelector('#error').hidden);
  assert.match(await page.textContent('#error'), /The sentence is empty/);
  assert.equal(await page.locator('#weights tbody tr').count(), 0);
  await finish();
});

test('what is typed survives a redraw that comes before its frame (a shard arriving, an option clicked)', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  // In one task: two keystrokes, then a change that redraws every view at once.
  const seen = await page.evaluate(() => {
    const box = document.getElementById('sentence');
    const rows = () => document.querySelectorAll('#weights tbody tr').length;
    const type = (text) => {
      box.value = text;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      return rows();
    };
    const first = type('The queen');
    const second = type('The queen ruled');
    document.getElementById('opt-scale').click();
    return { first, second, box: box.value };
  });
  // The first key of a frame is drawn at once; the next waits for that frame, and the redraw leaves it in the box.
  assert.deepEqual(seen, { first: 2, second: 2, box: 'The queen ruled' });
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr').length === 3);
  assert.equal(await page.inputValue('#sentence'), 'The queen ruled');
  const hash = await hashOf(page);
  assert.equal(hash.s, 'The queen ruled');
  assert.equal(hash.scale, '0');
  await finish();
});

test('text composed with an input method is analysed once composed, and a redraw meanwhile keeps the composition', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  await page.locator('#sentence').evaluate((box) => {
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  });
  await page.keyboard.type(' caf');
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].at(-1)?.textContent === 'caf');
  // A dead key: '´' is shown, being composed, then 'é' replaces it (Chromium's own input-method path).
  const cdp = await context.newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: '´', selectionStart: 1, selectionEnd: 1 });
  // A redraw in the middle (an option clicked by script: a click would end the composition).
  await page.evaluate(() => document.getElementById('opt-scale').click());
  await page.waitForTimeout(400); // past the typing pause: a word being typed would be fetched and drawn by now
  assert.equal(await page.inputValue('#sentence'), `${KING} caf´`, 'the composition is still in the box');
  assert.equal(await page.textContent('#unknown-note'), '', 'nothing is said of the \'´\' being composed');
  assert.equal((await readTable(page)).header.at(-1), 'caf');
  await cdp.send('Input.imeSetComposition', { text: 'é', selectionStart: 1, selectionEnd: 1 });
  await cdp.send('Input.insertText', { text: 'é' });
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].at(-1)?.textContent === 'café');
  assert.equal((await hashOf(page)).s, `${KING} café`);
  assert.equal(await page.textContent('#unknown-note'), '');
  await finish();
});

test('a paste cut at the box\'s limit in the middle of a composition does not stop the box being analysed', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.replace(/\/$/, '') });
  await ready(page);
  await page.fill('#sentence', 'abcdefghijklmnopqrstuvwx '.repeat(799)); // 19,975 characters
  await page.keyboard.press('End');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: 'かき', selectionStart: 2, selectionEnd: 2 });
  await page.evaluate(() => navigator.clipboard.writeText(' pasted words that go past the limit'));
  // The page cuts the paste by setting the box, which ends the composition without a compositionend.
  await page.keyboard.press('Control+V');
  await cdp.send('Input.insertText', { text: '柿' });
  await page.fill('#sentence', 'The dog ran home');
  await page.keyboard.type(' fast');
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].at(-1)?.textContent === 'fast', null, { timeout: 10000 });
  assert.deepEqual((await readTable(page)).header, ['the', 'dog', 'ran', 'home', 'fast']);
  assert.equal((await hashOf(page)).s, 'The dog ran home fast');
  await finish();
});

test('bad values in a link fall back to the defaults', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&self=maybe&causal=2&scale=&t=-4&focus=99&colour=red'));
  await ready(page);
  assertClose(await rowOf(page, 'king'), KING_ROW);
  assert.ok(await page.isChecked('#opt-self'));
  assert.ok(!(await page.isChecked('#opt-causal')));
  const hash = await hashOf(page);
  assert.equal(hash.focus, undefined, 'row 99 does not exist');
  assert.equal(hash.t, undefined);
  await finish();
});

test('a focus past the text is named in the link note with the heatmap alone on screen, and not after an edit', async () => {
  // The embed page showing the heatmap alone: no Steps tab to name it, as it used to.
  const { page, finish } = await openPage(site.browser, site.url + 'embed.html' + hashFor(KING, '&view=heatmap&focus=99&cell=3'));
  await ready(page);
  await page.waitForFunction(() => !document.getElementById('link-note').hidden);
  assert.equal(await page.textContent('#link-note'), 'Some settings of the link could not be used as written: focus=99 (expected a word from 0 to 6).');
  assert.equal((await hashOf(page)).focus, undefined);
  await finish();
  // The page: a focused word, then a shorter text typed: the user's edit, not the link's.
  const full = await openPage(site.browser, site.url + hashFor(KING, '&focus=5'));
  await ready(full.page);
  await full.page.fill('#sentence', 'The king and queen');
  await full.page.waitForFunction(() => document.querySelector('#heatmap-overlay').getAttribute('aria-label').includes('of 4 tokens'));
  assert.equal((await hashOf(full.page)).focus, undefined);
  assert.ok(await full.page.locator('#link-note').isHidden());
  await full.finish();
});

test('an address edited by hand is named in the link note as it is now, not as the first link was', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&t=hot'));
  await ready(page);
  const note = () => page.evaluate(() => {
    const element = document.getElementById('link-note');
    return element.hidden ? '' : element.textContent;
  });
  assert.match(await note(), /t=hot \(expected a decimal number from 0\.001 to 1000, such as 0\.5\)/);
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(KING, '&pal=plaid'));
  await page.waitForFunction(() => document.getElementById('link-note').textContent.includes('pal=plaid'));
  assert.doesNotMatch(await note(), /t=hot/, 'the first link’s problem is gone with it');
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(KING, '&focus=1'));
  await page.waitForFunction(() => document.getElementById('link-note').hidden);
  assert.equal(await note(), '');
  await finish();
});

/** FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE around `text`: what keeps a right-to-left word in its place in a line. */
const isolated = (text) => `\u2068${text}\u2069`;

/** Moves the pointer onto heatmap cell (row, col) and waits for the tooltip to name `query` → `key`; `scroll` (optional) scrolls the page first, after the cell is in the middle of the viewport. */
async function hoverCell(page, row, col, first, scroll = 0) {
  await page.mouse.move(0, 0);
  await cellPoint(page, row, col);
  await page.evaluate((by) => window.scrollBy(0, by), scroll);
  const box = await page.locator('#heatmap-overlay').boundingBox();
  const [x, y] = (await page.getAttribute('#heatmap-overlay', 'data-matrix')).split(',').map(Number);
  const cell = Number(await page.getAttribute('#heatmap-overlay', 'data-cell'));
  await page.mouse.move(box.x + x + (col + 0.5) * cell, box.y + y + (row + 0.5) * cell);
  await page.waitForFunction((text) => !document.getElementById('tooltip').hidden && document.getElementById('tooltip').firstChild?.textContent === text, first);
}

test('the tooltip names what the softmax took: the scaled score, the score ÷ T, or the score itself', async () => {
  const lines = async (hash) => {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, hash));
    await ready(page);
    await hoverCell(page, 1, 3, "'king' → 'queen'");
    const text = [...(await page.locator('#tooltip div').allTextContents())];
    await finish();
    return text[2];
  };
  assert.match(await lines(''), /^score q·k \d+\.\d{3} → scaled \d+\.\d{3}$/);
  assert.match(await lines('&scale=0'), /^score q·k \d+\.\d{3} \(not scaled\)$/);
  assert.match(await lines('&scale=0&t=2'), /^score q·k \d+\.\d{3} → ÷ T \d+\.\d{3}$/);
});

test('a bidi override in an unknown word is quoted as an escape, and cannot turn the note around', async () => {
  // The override belongs to the word (left out of its spelling); the control character is a token.
  const { page, finish } = await openPage(site.browser, site.url + '#s=king%20%01%20zzqx%E2%80%AEabc%20queen');
  await ready(page);
  const note = await page.textContent('#unknown-note');
  assert.ok(note.includes("vocabulary: '\\u{1}', 'zzqxabc'. They have no vector"), note);
  assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(note.replaceAll(/\u2068[^\u2068\u2069]*\u2069/g, '')), `no raw direction control: ${JSON.stringify(note)}`);
  // A right-to-left unknown word is isolated, so the sentence after it keeps its order.
  await page.fill('#sentence', 'king \u05D6\u05D5\u05E8\u05D1\u05DC\u05E7\u05E1 queen');
  await page.waitForFunction(() => /\u05D6.*no vector/.test(document.getElementById('unknown-note').textContent));
  assert.match(await page.textContent('#unknown-note'), new RegExp(`vocabulary: '${isolated('\u05D6\u05D5\u05E8\u05D1\u05DC\u05E7\u05E1')}'\\. It has`));
  await finish();
});

test('the tooltip and the announcement of two right-to-left words name the query first, each word isolated', async () => {
  const { page, finish } = await openPage(site.browser, site.url + '#s=king%20%D9%81%D9%8A%20queen%20%D7%A9%D7%9C&focus=1');
  await ready(page);
  assert.deepEqual((await readTable(page)).header, ['king', 'في', 'queen', 'של']);
  const line = `'${isolated('في')}' → '${isolated('של')}'`;
  await hoverCell(page, 1, 3, line);
  assert.match(await page.textContent('#tooltip'), /^'\u2068في\u2069' → '\u2068של\u2069'weight 0\.\d{4}/);
  assert.match(await page.textContent('#announce'), /^Focus on \u2068في\u2069 \(word 2\)\. Strongest keys: /);
  await finish();
});

test('no chip is blank: invisible characters and a lone accent show their code points', async () => {
  // A soft hyphen and an override inside words belong to them (the tokenizer
  // reads "kingdom", "queen"); a direction mark alone separates like a space.
  const { page, finish } = await openPage(site.browser, site.url + '#s=king%C2%ADdom%20%CC%81%20a%01b%20%E2%80%8E%20the%20qu%E2%80%AEeen%20%EF%BB%BF');
  await ready(page);
  const chips = await page.locator('#tokens .token').allTextContents();
  assert.deepEqual(chips, ['kingdom', 'U+0301', 'a', 'U+0001', 'b', 'the', 'queen']);
  assert.deepEqual((await readTable(page)).header, ['kingdom', 'a', 'b', 'the', 'queen']);
  for (const chip of chips) {
    assert.ok(/\S/u.test(chip.replace(/[\p{Cf}\p{Cc}]/gu, '').replace(/^\p{M}+/u, '')), `chip ${JSON.stringify(chip)} shows something`);
    assert.ok(!/[\p{Cf}\p{Cc}]/u.test(chip), `chip ${JSON.stringify(chip)} holds no invisible character`);
  }
  // An emoji keeps its joiners and variation selectors.
  await page.fill('#sentence', 'I \u2764\uFE0F \u{1F469}\u200D\u{1F4BB}');
  await page.waitForFunction(() => document.querySelectorAll('#tokens .token').length === 3);
  assert.deepEqual(await page.locator('#tokens .token').allTextContents(), ['I', '\u2764\uFE0F', '\u{1F469}\u200D\u{1F4BB}']);
  await finish();
});

test('the find box ignores case and accents, and reads ’ as \'', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor("We can't meet at the café"));
  await ready(page);
  assert.deepEqual((await readTable(page)).header, ['we', 'ca', "n't", 'meet', 'at', 'the', 'café']);
  const find = async (query, row, status) => {
    await page.fill('#token-find', query);
    await page.waitForFunction((want) => new URLSearchParams(location.hash.slice(1)).get('focus') === want, String(row));
    assert.equal((await readTable(page)).rows.find((r) => r.focused)?.query, (await readTable(page)).header[row]);
    assert.equal(await page.textContent('#token-find-status'), status);
  };
  await find('cafe', 6, '1 of 1');
  await find('n’t', 2, '1 of 1');
  await find('CAFÉ', 6, '1 of 1');
  await page.fill('#token-find', 'zebra');
  await page.waitForFunction(() => document.getElementById('token-find-status').textContent === "No token contains 'zebra'.");
  await finish();
});

test('on a phone, a tap shows the cell’s weight beside, above or below the cell, never over it, in the main heatmap and in a teaching tab', async () => {
  const text = 'The cat sat on the mat because it was tired';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text, '&lab=whatif'), { viewport: { width: 360, height: 740 }, phone: true });
  await ready(page);
  /** Taps cell (row, col) of heatmap `overlay` (scrolled to the middle first) and returns the cell's box and the tooltip `tooltip`'s, once it shows `first`. */
  const tap = async (overlay, tooltip, row, col, first) => {
    const canvas = page.locator(overlay);
    await canvas.scrollIntoViewIfNeeded();
    // A teaching tab's heatmap is drawn once near the screen: until then it is laid out (its size
    // kept) but transparent, and a tap on it is not taken (page.js drawWhenNear).
    await canvas.evaluate((c) => new Promise((resolve) => {
      const check = () => (c.dataset.matrix && c.closest('.teach-views')?.style.opacity !== '0' ? resolve() : requestAnimationFrame(check));
      check();
    }));
    const cell = await canvas.evaluate((c, [r, k]) => {
      c.scrollIntoView({ block: 'center' });
      const [x, y] = c.dataset.matrix.split(',').map(Number);
      const side = Number(c.dataset.cell);
      const box = c.getBoundingClientRect();
      return { x: box.left + x + k * side, y: box.top + y + r * side, width: side, height: side };
    }, [row, col]);
    await page.touchscreen.tap(cell.x + cell.width / 2, cell.y + cell.height / 2);
    const shown = page.locator(tooltip);
    await page.waitForFunction(([tip, text]) => !tip.hidden && tip.firstChild?.textContent === text, [await shown.elementHandle(), first]);
    const tip = await shown.evaluate((t) => JSON.parse(JSON.stringify(t.getBoundingClientRect())));
    return { cell, tip, lines: await shown.locator('div').allTextContents() };
  };
  const apart = (a, b) => a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
  // The middle columns, where beside the cell fits on neither side of a 360 px screen.
  for (const col of [3, 4, 5, 6]) {
    const { cell, tip } = await tap('#heatmap-overlay', '#tooltip', 2, col, `'sat' → '${text.toLowerCase().split(' ')[col]}'`);
    assert.ok(apart(cell, tip), `column ${col}: the tooltip ${JSON.stringify(tip)} covers the cell ${JSON.stringify(cell)}`);
  }
  // What if…'s scaled heatmap: a tap gives the weight too (its cells print none at this size).
  const { cell, tip, lines } = await tap('#lab-whatif .teach-panel canvas.overlay >> nth=0', '#lab-whatif .teach-panel .tooltip >> nth=0', 1, 4, "'cat' → 'the'");
  assert.match(lines[1], /^weight 0\.\d{4}$/);
  assert.ok(apart(cell, tip), `What if: the tooltip ${JSON.stringify(tip)} covers the cell ${JSON.stringify(cell)}`);
  await finish();
});

test('a link whose focus is past the end draws its arrows without one, and logs no error', async () => {
  // The page drops the focus a moment after the first draw; the arrows drawn before must not read its row.
  for (let k = 0; k < 4; k++) {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=9'));
    await ready(page);
    await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
    await finish(); // asserts that the page logged no error
  }
});

test('the heatmap tooltip stays inside the viewport beside the last column and the last row', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king and queen'));
  await ready(page);
  const inside = async (what) => {
    const box = await page.locator('#tooltip').boundingBox();
    const { width, height } = await page.evaluate(() => ({ width: document.documentElement.clientWidth, height: document.documentElement.clientHeight }));
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height, `${what}: ${JSON.stringify(box)} is not inside ${width} × ${height}`);
  };
  await hoverCell(page, 0, 3, "'the' → 'queen'");
  await inside('the last column');
  await hoverCell(page, 3, 0, "'queen' → 'the'");
  await inside('the last row');
  // The last row scrolled down to the bottom edge of the viewport: the tooltip moves up to stay in view.
  const bottom = await page.evaluate(() => Math.round(window.innerHeight / 2 - 12));
  await hoverCell(page, 3, 3, "'queen' → 'queen'", -bottom);
  await inside('the last cell, at the bottom of the viewport');
  await finish();
});
