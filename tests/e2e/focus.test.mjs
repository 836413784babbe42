// Focus: clicking cells and labels, the keyboard, links that restore a
// focus, Back/Forward between states, and what the heatmap tells a
// keyboard and screen reader user (the live region, its label, where the
// keyboard focus goes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, cellPoint, hashFor, hashOf, KING, KING_ROW, openPage, readTable, ready, rowOf, useSite } from './helpers.mjs';

const site = useSite();

/** A text of `n` common words, each repeated every 100 words (as in long.test.mjs). */
function words(n) {
  const pool = ('time year people way day man thing woman life child world school state family student group country problem hand part place case week company system program question work government number night point home water room mother area money story fact month lot right study book eye job word business issue side kind head house service friend father power hour game line end member law car city community name president team minute idea kid body information back parent face others level office door health person art war history party result change morning reason research girl guy moment air teacher force education').split(' ');
  return Array.from({ length: n }, (_, i) => pool[i % pool.length]).join(' ');
}

/** The id (or tag) of the element with the keyboard focus, once a frame has run (a disabled button loses it then). */
function keyboardFocus(page) {
  return page.evaluate(() => new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(() => resolve(document.activeElement?.id || document.activeElement?.tagName), 0));
  }));
}

const announced = (page) => page.textContent('#announce');
const zoomLabel = async (page) => (await page.getAttribute('#heatmap-overlay', 'aria-label')).match(/zoomed to ([^:]*)/)?.[1] ?? null;

/** What the page shows as focused: hash, table row, explanation, chip. */
async function focusShown(page) {
  const table = await readTable(page);
  return {
    hash: (await hashOf(page)).focus ?? null,
    tableRows: table.rows.map((r, i) => (r.focused ? i : -1)).filter((i) => i >= 0),
    heading: (await page.locator('#explain h2').count()) ? await page.textContent('#explain h2') : null,
    chip: (await page.locator('#tokens .token.focused').count()) ? await page.textContent('#tokens .token.focused') : null,
  };
}

test('clicking a cell focuses its query row and writes it in the hash', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  assert.deepEqual(await focusShown(page), { hash: null, tableRows: [], heading: null, chip: null });
  const { x, y } = await cellPoint(page, 1, 3); // query 'king', key 'queen'
  await page.mouse.move(x, y);
  const tooltip = await page.textContent('#tooltip');
  assert.match(tooltip, /'king' → 'queen'/);
  assert.match(tooltip, /weight 0\.164\d/);
  assert.match(tooltip, /score q·k \d+\.\d{3}/);
  await page.mouse.click(x, y);
  assert.deepEqual(await focusShown(page), { hash: '1', tableRows: [1], heading: 'How king attends', chip: 'king' });
  // The step-by-step table lists every key with the same weights.
  const steps = await page.$$eval('#explain .steps-table tbody tr', (trs) => trs.map((tr) => Number(tr.children[4].textContent)));
  assertClose(steps, KING_ROW);
  await finish();
});

test('clicking a row label or a column label focuses that token', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const cell = await cellPoint(page, 4, 0); // row 'ruled'
  let overlay = await page.locator('#heatmap-overlay').boundingBox();
  await page.mouse.click(overlay.x + 4, cell.y); // on its label, left of the cells
  assert.equal((await focusShown(page)).heading, 'How ruled attends');
  assert.equal((await hashOf(page)).focus, '4');
  const column = await cellPoint(page, 0, 6); // column 'kingdom'
  overlay = await page.locator('#heatmap-overlay').boundingBox();
  await page.mouse.click(column.x, overlay.y + 6); // on its label, above the cells
  assert.deepEqual(await focusShown(page), { hash: '6', tableRows: [6], heading: 'How kingdom attends', chip: 'kingdom' });
  // A word chip and the arrows view focus too.
  await page.click('#tokens button.token >> text=queen');
  assert.equal((await hashOf(page)).focus, '3');
  await page.click('#explain button >> text=Clear focus');
  assert.equal((await hashOf(page)).focus, undefined);
  await finish();
});

test('Tab reaches the heatmap, arrow keys move the focus, Escape clears it', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  await page.focus('#sentence');
  let reached = false;
  for (let k = 0; k < 40 && !reached; k++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'heatmap-overlay');
  }
  assert.ok(reached, 'Tab reaches the heatmap');
  await page.keyboard.press('ArrowDown');
  assert.equal((await hashOf(page)).focus, '0');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal((await hashOf(page)).focus, '2');
  await page.keyboard.press('ArrowUp');
  assert.deepEqual(await focusShown(page), { hash: '1', tableRows: [1], heading: 'How king attends', chip: 'king' });
  // The three strongest keys of the row (KING_ROW), strongest first, each with its place in the text.
  assert.equal(await announced(page), 'Focus on king (word 2). Strongest keys: king (word 2) 0.4431, queen (word 4) 0.1645, kingdom (word 7) 0.1512.');
  // Left and right move a key cursor along the focused row; its cell is shown and said.
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#tooltip'), /'king' → 'king'/);
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#tooltip'), /'king' → 'and'.*weight 0\.04(89|90)/s);
  assert.match(await announced(page), /^Query king \(word 2\), key and \(word 3\): weight 0\.04(89|90)\.$/);
  // Escape empties the row's announcement: what it did is said instead.
  await page.keyboard.press('Escape');
  assert.equal(await announced(page), 'Focus cleared');
  assert.deepEqual(await focusShown(page), { hash: null, tableRows: [], heading: null, chip: null });
  await finish();
});

test('a link with focus and options restores them exactly', async () => {
  const link = hashFor('The cat sat on the mat because it was tired', '&self=0&causal=1&scale=0&t=2.5&focus=7');
  const { page, finish } = await openPage(site.browser, site.url + link);
  await ready(page);
  assert.equal(await page.inputValue('#sentence'), 'The cat sat on the mat because it was tired');
  assert.ok(!(await page.isChecked('#opt-self')));
  assert.ok(await page.isChecked('#opt-causal'));
  assert.ok(!(await page.isChecked('#opt-scale')));
  assert.equal(await page.textContent('#temperature-value'), '2.5');
  assert.deepEqual(await focusShown(page), { hash: '7', tableRows: [7], heading: 'How it attends', chip: 'it' });
  const it = await rowOf(page, 'it');
  assert.equal(it[7], 0, 'no self');
  assert.deepEqual(it.slice(8), [0, 0], 'causal');
  assert.ok(Math.abs(it.reduce((a, b) => a + b) - 1) < 1e-3);
  assert.deepEqual(await hashOf(page), {
    s: 'The cat sat on the mat because it was tired', self: '0', causal: '1', scale: '0', t: '2.5', focus: '7',
  });
  await finish();
});

test('Back and Forward move between states', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  let p = await cellPoint(page, 1, 1);
  await page.mouse.click(p.x, p.y);
  p = await cellPoint(page, 3, 0);
  await page.mouse.click(p.x, p.y);
  await page.uncheck('#opt-self');
  assert.equal((await hashOf(page)).self, '0');

  await page.goBack();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('self') === '1');
  assert.ok(await page.isChecked('#opt-self'));
  assertClose(await rowOf(page, 'king'), KING_ROW);
  assert.equal((await focusShown(page)).heading, 'How queen attends');
  await page.goBack();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') === '1');
  assert.equal((await focusShown(page)).heading, 'How king attends');
  await page.goForward();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') === '3');
  assert.deepEqual((await focusShown(page)).tableRows, [3]);
  await finish();
});

test('a run of arrow keys on the heatmap is one history entry: Back returns to the view before it', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const entries = await page.evaluate(() => history.length);
  await page.focus('#heatmap-overlay');
  for (const key of ['ArrowDown', 'ArrowDown', 'ArrowDown']) {
    await page.keyboard.press(key);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  }
  assert.equal((await hashOf(page)).focus, '2');
  assert.equal(await page.evaluate(() => history.length), entries + 1);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  await hashOf(page);
  assert.equal(await page.evaluate(() => history.length), entries + 2);
  await page.goBack();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') === '2');
  await page.goBack();
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  assert.equal(await page.locator('#weights tr.focused').count(), 0, 'Back twice: the sentence, nothing focused');
  await finish();
});

test('two changes in one task are two history entries: the address is written after the frame, the first one still pending is not lost', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const entries = await page.evaluate(() => history.length);
  await page.evaluate(() => {
    document.getElementById('opt-self').click();
    document.getElementById('opt-causal').click();
  });
  const written = await hashOf(page);
  assert.deepEqual([written.self, written.causal], ['0', '1']);
  assert.equal(await page.evaluate(() => history.length), entries + 2);
  await page.goBack();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('causal') === '0');
  assert.equal((await hashOf(page)).self, '0', 'Back undoes the second change only');
  assert.ok(!(await page.isChecked('#opt-self')) && !(await page.isChecked('#opt-causal')));
  await finish();
});

test('dragging the temperature for seconds keeps the link right under Safari’s limit of 100 history writes in 30 s', async () => {
  const { page, context, finish } = await openPage(site.browser, null, { origins: [new URL(site.url).origin] });
  // Safari's rule, in Chromium: past 100 pushState/replaceState calls in 30 s, a SecurityError.
  await context.addInitScript(() => {
    const times = [];
    window.historyWrites = times;
    for (const name of ['pushState', 'replaceState']) {
      const original = History.prototype[name];
      History.prototype[name] = function (...args) {
        const now = performance.now();
        if (times.filter((t) => t > now - 30000).length >= 100) {
          throw new DOMException(`Attempt to use history.${name}() more than 100 times per 30 seconds`, 'SecurityError');
        }
        times.push(now);
        return original.apply(this, args);
      };
    }
  });
  await page.goto(site.url + hashFor(KING));
  await ready(page);
  // 240 steps 16 ms apart (about 4 s), as a drag of the slider makes them at 60 Hz; then it stops at 0.5 (temperature 3.16).
  const before = await page.evaluate(() => window.historyWrites.length);
  const took = await page.evaluate(async () => {
    const start = performance.now();
    const slider = document.getElementById('opt-temperature');
    const step = (value) => {
      slider.value = String(value);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    };
    for (let k = 0; k < 240; k++) {
      step(((k % 120) - 60) / 40);
      await new Promise((resolve) => setTimeout(resolve, 16));
    }
    step(0.5);
    return performance.now() - start;
  });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('t') === '3.16', null, { timeout: 5000 });
  // 20 at once, then one each 500 ms (and the last, after the drag): never the 241 steps.
  const writes = (await page.evaluate(() => window.historyWrites.length)) - before;
  assert.ok(writes <= 22 + took / 500, `${writes} history writes in ${Math.round(took)} ms`);
  assert.equal(await page.locator('#temperature-value').textContent(), '3.16');
  await finish();
});

test('typing a sentence writes it in the link as one history entry, and Back brings the old one', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const entries = await page.evaluate(() => history.length);
  await page.locator('#sentence').fill('');
  await page.locator('#sentence').pressSequentially('the cat sat', { delay: 40 });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('s') === 'the cat sat');
  assert.equal(await page.evaluate(() => history.length), entries + 1, 'one entry for the whole typing session');
  await page.goBack();
  await page.waitForFunction((king) => new URLSearchParams(location.hash.slice(1)).get('s') === king, KING);
  assert.equal(await page.inputValue('#sentence'), KING);
  assertClose(await rowOf(page, 'king'), KING_ROW);
  await finish();
});

test('words typed after the focused word keep its focus; an edit of the word itself clears it', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  const focusedQuery = async () => (await readTable(page)).rows.find((r) => r.focused)?.query ?? null;
  assert.equal(await focusedQuery(), 'king');
  const caretAt = (at) => page.locator('#sentence').evaluate((box, i) => {
    box.focus();
    box.setSelectionRange(i < 0 ? box.value.length : i, i < 0 ? box.value.length : i);
  }, at);
  await caretAt(-1);
  await page.keyboard.type(' with wisdom', { delay: 30 });
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr').length === 9);
  assert.equal((await hashOf(page)).focus, '1');
  assert.equal(await focusedQuery(), 'king');
  assert.equal(await page.locator('#tokens button.token.focused').textContent(), 'king');
  // "king" becomes "kings": its own chunk changed, so no row is focused.
  await caretAt('The king'.length);
  await page.keyboard.type('s');
  await page.waitForFunction(() => document.querySelector('#weights thead th:nth-child(3)')?.textContent === 'kings');
  assert.equal((await hashOf(page)).focus, undefined);
  assert.equal(await focusedQuery(), null);
  await finish();
});

test('at 360 px the page fits and a tap locks the focus', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat sat on the mat because it was tired'), {
    viewport: { width: 360, height: 740 },
  });
  await ready(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  const canvas = await page.locator('#heatmap').boundingBox();
  assert.ok(canvas.width <= 360 && canvas.width > 250, `heatmap ${canvas.width}px wide`);
  // The status breaks between its parts, not inside '1/√50' (it broke after the '/').
  assert.equal(await page.textContent('#status'), '10 tokens in the attention · d = 50 · scores × 1/√50');
  const lines = await page.$$eval('#status .status-part', (parts) => parts.map((part) => new Set([...part.getClientRects()].map((r) => Math.round(r.top))).size));
  assert.deepEqual(lines.slice(1), [1, 1], 'd = 50, and the scaling, each on one line');
  const p = await cellPoint(page, 7, 1);
  await page.mouse.click(p.x, p.y);
  assert.equal((await hashOf(page)).focus, '7');
  assert.equal(await page.textContent('#explain h2'), 'How it attends');
  await finish();
});

test('a fully masked row is explained, with zero weights and no numbers invented', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&self=0&causal=1&focus=0'));
  await ready(page);
  assert.deepEqual(await rowOf(page, 'the'), [0, 0, 0, 0, 0, 0, 0]);
  assert.match(await page.textContent('#explain'), /Every key of 'the' is masked/);
  const p = await cellPoint(page, 0, 0);
  await page.mouse.move(p.x, p.y);
  assert.match(await page.textContent('#tooltip'), /masked: a token may not attend to itself/);
  const later = await cellPoint(page, 1, 4);
  await page.mouse.move(later.x, later.y);
  assert.match(await page.textContent('#tooltip'), /masked: 'ruled' comes later \(causal\)/);
  await finish();
});

test('the zoom buttons show for a matrix larger than the smallest zoom, and not while the page loads (they moved the heatmap down and back)', async () => {
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    routes: [['**/attention_wasm_bg.wasm', async (route) => {
      await held;
      await route.continue().catch(() => {});
    }]],
  });
  await page.waitForSelector('.zoom-bar', { state: 'attached' });
  assert.equal(await page.textContent('#status'), 'Loading…');
  assert.ok(await page.locator('.zoom-bar').isHidden(), 'hidden while the page loads');
  release();
  await ready(page);
  assert.ok(await page.locator('.zoom-bar').isHidden(), '7 tokens: nothing to zoom');
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(words(9)));
  await page.locator('#zoom-in').waitFor();
  assert.equal((await readTable(page)).header.length, 9);
  await finish();
});

test('a zoom button that disables itself hands the keyboard focus to the heatmap, which takes the same keys', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(200)));
  await ready(page);
  await page.focus('#zoom-in');
  for (let k = 0; k < 20 && !(await page.isDisabled('#zoom-in')); k++) await page.keyboard.press('Enter');
  assert.ok(await page.isDisabled('#zoom-in'), 'zoomed in as far as it goes');
  assert.equal(await keyboardFocus(page), 'heatmap-overlay');
  await page.keyboard.press('-');
  assert.ok(!(await page.isDisabled('#zoom-in')), 'the − key zoomed out');
  await page.focus('#zoom-reset');
  await page.keyboard.press('Enter');
  assert.equal(await zoomLabel(page), null);
  assert.equal(await keyboardFocus(page), 'heatmap-overlay');
  await page.click('#zoom-in');
  await page.focus('#zoom-out');
  await page.keyboard.press('Enter');
  assert.equal((await hashOf(page)).zoom, undefined, 'back to the whole matrix');
  assert.equal(await keyboardFocus(page), 'heatmap-overlay');
  await finish();
});

test("the live region says the focused row again when its weights change, and only then", async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  await page.focus('#heatmap-overlay');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const said = [await announced(page)];
  assert.equal(said[0], 'Focus on king (word 2). Strongest keys: king (word 2) 0.4431, queen (word 4) 0.1645, kingdom (word 7) 0.1512.');
  // A word typed after 'king' keeps its focus and takes a share of its weights.
  await page.locator('#sentence').evaluate((box) => {
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  });
  await page.keyboard.type(' wisely', { delay: 30 });
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 9);
  assert.equal((await hashOf(page)).focus, '1');
  // Said once the keys pause (dom.js announcer), not at each key.
  await page.waitForFunction((before) => document.getElementById('announce').textContent !== before, said[0]);
  said.push(await announced(page));
  await page.locator('#opt-temperature').fill('0.3');
  assert.equal((await hashOf(page)).t, '2');
  said.push(await announced(page));
  await page.check('#opt-causal');
  said.push(await announced(page));
  assert.match(said[3], /^Focus on king \(word 2\)\. Strongest keys: king \(word 2\) 0\.\d{4}, the \(word 1\) 0\.\d{4}\.$/, 'causal: the two words up to king');
  for (let k = 1; k < said.length; k++) assert.notEqual(said[k], said[k - 1], `change ${k} is said: ${said[k]}`);
  // A change that leaves the row's weights alone (the colours) says nothing again.
  const writes = await page.evaluate(() => new Promise((resolve) => {
    let count = 0;
    new MutationObserver((records) => { count += records.length; }).observe(document.getElementById('announce'), { childList: true, characterData: true, subtree: true });
    const palette = document.getElementById('opt-palette');
    palette.value = [...palette.options].find((o) => o.value !== palette.value).value;
    palette.dispatchEvent(new Event('change', { bubbles: true }));
    requestAnimationFrame(() => setTimeout(() => resolve(count), 0));
  }));
  assert.equal(writes, 0);
  await finish();
});

test('the keyboard cursor moving along a row says each cell, masked ones with why', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&causal=1&focus=1'));
  await ready(page);
  await page.focus('#heatmap-overlay');
  await page.keyboard.press('ArrowLeft');
  assert.match(await announced(page), /^Query king \(word 2\), key the \(word 1\): weight 0\.\d{4}\.$/);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await announced(page), "Query king (word 2), key and (word 3): masked, because 'and' comes later (causal).");
  // The cell said follows its weight: without the mask it has one.
  await page.uncheck('#opt-causal');
  assert.match(await announced(page), /^Query king \(word 2\), key and \(word 3\): weight 0\.04(89|90)\.$/);
  // Another row is said as a row.
  await page.focus('#heatmap-overlay');
  await page.keyboard.press('ArrowDown');
  assert.match(await announced(page), /^Focus on and \(word 3\)\. Strongest keys: /);
  await finish();
});

test('a zoomed heatmap names the rows and columns it shows, and its keyboard cursor starts inside and pans the view', async () => {
  const text = words(200).split(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(200)));
  await ready(page);
  await page.focus('#heatmap-overlay');
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.keyboard.press('ArrowDown');
  // The first row shown is focused, on its diagonal cell: nothing moved.
  assert.deepEqual([(await hashOf(page)).focus, (await hashOf(page)).zoom], ['55', '55,55,89']);
  assert.equal(await zoomLabel(page), 'rows and columns 56–144');
  assert.ok(await page.isVisible('#tooltip'));
  assert.match(await page.textContent('#tooltip'), new RegExp(`^'${text[55]}' → '${text[55]}'`));
  // Home goes to the first row: the rows pan, the columns stay.
  await page.keyboard.press('Home');
  assert.deepEqual([(await hashOf(page)).focus, (await hashOf(page)).zoom], ['0', '0,55,89']);
  assert.equal(await zoomLabel(page), 'rows 1–89 and columns 56–144');
  assert.match(await page.textContent('#tooltip'), new RegExp(`^'${text[0]}' → '${text[55]}'`));
  // Left of the first column shown: the columns pan one step to keep the cursor in view.
  await page.keyboard.press('ArrowLeft');
  assert.equal((await hashOf(page)).zoom, '0,54,89');
  assert.equal(await zoomLabel(page), 'rows 1–89 and columns 55–143');
  assert.ok(await page.isVisible('#tooltip'));
  assert.match(await page.textContent('#tooltip'), new RegExp(`^'${text[0]}' → '${text[54]}'`));
  assert.match(await announced(page), new RegExp(`^Query ${text[0]} \\(word 1\\), key ${text[54]} \\(word 55\\): weight`));
  await finish();
});

test('a word repeated in the text is told apart by its place, counted as the weights table counts', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(200), '&focus=1'));
  await ready(page);
  const said = await announced(page);
  assert.match(said, /^Focus on year \(word 2\)\. Strongest keys: /);
  const keys = [...said.matchAll(/(\w+) \(word (\d+)\) (0\.\d{4})/g)].map(([, word, place]) => ({ word, place: Number(place) }));
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys.map((k) => k.place)).size, 3, `three places: ${said}`);
  // The word at each place is the table's header of that column; the focused row is the table's row of word 2 (after the header row).
  const headers = await page.locator('#weights thead th').evaluateAll((ths) => ths.slice(1).map((th) => th.textContent));
  for (const { word, place } of keys) assert.equal(headers[place - 1], word, `word ${place}`);
  assert.equal(await page.getAttribute('#weights:not([aria-busy="true"]) tr.focused', 'aria-rowindex'), '3');
  await finish();
});

test('the quiz, the Multi-head tiles and toggles keep the keyboard focus when they are drawn anew', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.0.1.2'));
  await ready(page);
  // A guess by the keyboard: the focus goes to the question, which now holds the answer.
  await page.locator('#quiz .quiz-choices button').first().focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('#quiz .quiz-question .quiz-verdict, #quiz .quiz-question p.right, #quiz[data-answered="1"]');
  assert.equal(await keyboardFocus(page), 'H3');
  await page.focus('#quiz-next');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /Question 2/.test(document.activeElement?.textContent ?? ''));
  await page.focus('#quiz-previous');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /Question 1/.test(document.activeElement?.textContent ?? ''));
  // Leaving the quiz: the focus goes to the heatmap it hid.
  await page.focus('#quiz-end');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#quiz', { state: 'hidden' });
  assert.equal(await keyboardFocus(page), 'heatmap-overlay');
  // Multi-head: a tile and a toggle pressed keep the focus on their new selves.
  await page.goto(site.url + hashFor(KING, '&lab=heads'));
  await ready(page);
  await page.waitForSelector('#head-grid .head-tile[data-head="1"]');
  await page.focus('#head-grid .head-tile[data-head="1"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#head-grid .head-tile[data-head="1"]')?.getAttribute('aria-pressed') === 'true');
  assert.equal(await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(document.activeElement?.dataset.head ?? document.activeElement?.tagName), 0)))), '1');
  await page.focus('#head-toggle-0');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => !document.getElementById('head-toggle-0').checked);
  assert.equal(await keyboardFocus(page), 'head-toggle-0');
  await finish();
});
