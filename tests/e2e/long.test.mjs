// Long texts, as a user meets them: the weights table of 1,024 tokens holds
// the focused row and says how many rows there are, the token strip has one
// Tab stop and a find box, the heatmap zooms, and a giant paste is cut to the
// documented limit with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { cellPoint, hashFor, hashOf, KING, openPage, readTable, ready, useSite } from './helpers.mjs';

const site = useSite();

/** A text of `n` distinct common words (no punctuation): n tokens, all known. */
function words(n) {
  const pool = ('time year people way day man thing woman life child world school state family student group country problem hand part place case week company system program question work government number night point home water room mother area money story fact month lot right study book eye job word business issue side kind head house service friend father power hour game line end member law car city community name president team minute idea kid body information back parent face others level office door health person art war history party result change morning reason research girl guy moment air teacher force education').split(' ');
  return Array.from({ length: n }, (_, i) => pool[i % pool.length]).join(' ');
}

test('at 1,024 tokens the table holds the focused row and tells its real size', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&focus=700'));
  await ready(page);
  // The table of a long text is drawn a frame after the heatmap, and is busy until then.
  const table = page.locator('#weights:not([aria-busy="true"])');
  assert.equal(await table.getAttribute('aria-rowcount'), '1025');
  assert.equal(await page.locator('#weights thead th').count(), 1025, 'one header cell per token, and the corner');
  assert.equal(await table.getAttribute('aria-colcount'), '1025');
  assert.deepEqual(await page.locator('#weights thead th').evaluateAll((ths) => ths.slice(1, 4).map((th) => th.textContent)), ['time', 'year', 'people']);
  const rows = await readTable(page);
  assert.ok(rows.rows.length < 100, `${rows.rows.length} rows rendered, not 1,024`);
  const cells = rows.rows.reduce((sum, r) => sum + r.cells.length, 0);
  assert.ok(cells < 3000, `${cells} cells rendered, not a million`);
  const focused = rows.rows.find((r) => r.focused);
  assert.ok(focused, 'the focused row is there');
  assert.equal(focused.query, words(1024).split(' ')[700]);
  assert.equal(await page.getAttribute('#weights tr.focused', 'aria-rowindex'), '702');
  // Its cells say which column they are, and hold the weights of the heatmap.
  const first = page.locator('#weights tr.focused td:not(.spacer)').first();
  assert.equal(await first.getAttribute('aria-colindex'), '2');
  assert.match(await first.textContent(), /^0\.\d{4}$/);
  // In view, it fills with the rows around; scrolling it brings other rows
  // and columns, still in order and numbered.
  await page.locator('.weights-section .table-scroll').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('#weights tbody tr:not(.spacer)').length > 10);
  await page.locator('.weights-section .table-scroll').evaluate((box) => { box.scrollTop = 26 * 300; box.scrollLeft = 64 * 900; });
  await page.waitForFunction(() => document.querySelector('#weights tbody tr[aria-rowindex="310"] td[aria-colindex="902"]'));
  assert.ok(await page.locator('#weights tr.focused td[aria-colindex="902"]').count(), 'the focused row scrolls with the others');
  // Focusing a row in view marks it, and it alone; its weights stay as they were.
  const rowText = (index) => page.locator(`#weights tbody tr[aria-rowindex="${index}"]`).evaluate((tr) => tr.textContent);
  const before = await rowText(307);
  await page.evaluate(() => { location.hash = location.hash.replace('focus=700', 'focus=305'); });
  await page.waitForFunction(() => document.querySelector('#weights tr.focused')?.getAttribute('aria-rowindex') === '307');
  assert.equal(await page.locator('#weights tbody tr.focused').count(), 1);
  assert.equal(await page.locator('#weights tbody tr[aria-current="true"]').count(), 1);
  assert.equal(await page.locator('#weights tbody tr[aria-rowindex="702"]').count(), 0, 'the row focused before, out of view, is gone');
  assert.equal(await rowText(307), before);
  // …and the next focus in view moves the mark.
  await page.evaluate(() => { location.hash = location.hash.replace('focus=305', 'focus=306'); });
  await page.waitForFunction(() => document.querySelector('#weights tr.focused')?.getAttribute('aria-rowindex') === '308');
  assert.deepEqual(await page.locator('#weights tbody tr[aria-current="true"]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('aria-rowindex'))), ['308']);
  assert.match(await page.textContent('#weights-note'), /^1,024 rows/);
  // The same text with another option keeps its header: the table is drawn
  // with the other views, not a frame later, and holds the new weights.
  const scaled = await rowText(308);
  const drawn = await page.evaluate(() => new Promise((resolve) => {
    const status = document.getElementById('status');
    new MutationObserver((_, observer) => {
      if (!status.textContent.includes('unscaled scores')) return; // still computing
      observer.disconnect();
      const table = document.getElementById('weights');
      resolve({ busy: table.getAttribute('aria-busy'), row: table.querySelector('tbody tr[aria-rowindex="308"]')?.textContent });
    }).observe(status, { childList: true, characterData: true, subtree: true });
    document.getElementById('opt-scale').click();
  }));
  assert.notEqual(drawn.busy, 'true', 'not waiting for a later frame');
  assert.notEqual(drawn.row, scaled);
  const fresh = await openPage(site.browser, site.url + hashFor(words(1024), '&scale=0&focus=306'));
  await ready(fresh.page);
  await fresh.page.locator('.weights-section .table-scroll').scrollIntoViewIfNeeded();
  await fresh.page.waitForFunction(() => document.querySelectorAll('#weights:not([aria-busy="true"]) tbody tr:not(.spacer)').length > 10);
  await fresh.page.locator('.weights-section .table-scroll').evaluate((box) => { box.scrollTop = 26 * 300; box.scrollLeft = 64 * 900; });
  await fresh.page.waitForSelector('#weights:not([aria-busy="true"]) tbody tr[aria-rowindex="308"] td[aria-colindex="902"]');
  assert.equal(drawn.row, await fresh.page.locator('#weights tbody tr[aria-rowindex="308"]').evaluate((tr) => tr.textContent));
  await fresh.finish();
  // A new text of the same length leaves the page's layout where it was:
  // its table, with a new header, is drawn with the other views too.
  const shifted = words(1025).split(' ').slice(1).join(' ');
  const relabelled = await page.evaluate((hash) => new Promise((resolve) => {
    const status = document.getElementById('status');
    let computing = false;
    new MutationObserver((_, observer) => {
      if (status.textContent.startsWith('Computing')) computing = true;
      if (!computing || !status.textContent.includes('in the attention')) return;
      observer.disconnect();
      const table = document.getElementById('weights');
      resolve({ busy: table.getAttribute('aria-busy'), first: table.querySelector('thead th:nth-child(2)')?.textContent });
    }).observe(status, { childList: true, characterData: true, subtree: true });
    location.hash = hash;
  }), hashFor(shifted, '&scale=0&focus=306'));
  assert.deepEqual(relabelled, { busy: null, first: 'year' });
  await finish();
});

test('on a phone a long text shows its first 24 chips, and a shared link its heatmap on the first screen', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(300), '&focus=200&causal=1'), { viewport: { width: 390, height: 844 }, phone: true });
  await ready(page);
  const chips = await page.locator('#tokens button.token').evaluateAll((list) => list.map((c) => Number(c.dataset.row)));
  assert.deepEqual(chips, [...Array(24).keys(), 200], 'the first 24, then the focused one');
  assert.match(await page.textContent('#tokens .token-more'), /Show all 300 tokens/);
  const top = await page.locator('#heatmap-overlay').evaluate((canvas) => canvas.getBoundingClientRect().top + Number(canvas.dataset.matrix.split(',')[1]));
  assert.ok(top < 844 - 100, `the matrix starts at ${top} px, on the first screen with room to see it`);
  await finish();
});

test('the token strip is one Tab stop, with arrow keys inside and a find box', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(300)));
  await ready(page);
  const chips = page.locator('#tokens button.token');
  assert.ok(await chips.count() <= 81, 'a long text collapses to the first chips');
  assert.match(await page.textContent('#tokens .token-more'), /Show all 300 tokens/);
  assert.equal(await page.locator('#tokens [tabindex="0"]').count(), 1, 'one Tab stop');
  await page.focus('#tokens button.token >> nth=0');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await hashOf(page)).focus, '2');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.row), '2');
  // Only the focused chip is marked, and it holds the Tab stop, at once (a
  // focus change marks the chips again without redrawing them; a later
  // redraw, when the nearest words' shards arrive, must not be what marks them).
  const marked = (selector) => page.locator(`#tokens ${selector}`).evaluateAll((chips) => chips.map((c) => c.dataset.row));
  assert.deepEqual(await marked('button.token.focused'), ['2']);
  assert.deepEqual(await marked('button.token[aria-pressed="true"]'), ['2']);
  assert.deepEqual(await marked('[tabindex="0"]'), ['2']);
  // End reaches the last token, past the collapsed chips; Home the first.
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.row), '299');
  await page.keyboard.press('Home');
  // Find a word far beyond the collapsed chips: it is focused, and its chip shows.
  await page.fill('#token-find', 'educat');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') !== null);
  const focus = Number((await hashOf(page)).focus);
  const row = (await readTable(page)).rows.find((r) => r.focused);
  assert.equal(row.query, 'education');
  assert.equal(await page.textContent(`#tokens button.token[data-row="${focus}"]`), 'education');
  assert.match(await page.textContent('#token-find-status'), /1 of \d+/);
  await page.press('#token-find', 'Enter');
  await page.waitForFunction((previous) => Number(new URLSearchParams(location.hash.slice(1)).get('focus')) > previous, focus);
  // The next match, past the collapsed chips too: the chip after them is now its chip, marked.
  const next = Number((await hashOf(page)).focus);
  assert.ok(next > 80, `the next 'education' is row ${next}`);
  assert.deepEqual(await marked('button.token.focused'), [String(next)]);
  assert.equal(await page.textContent(`#tokens button.token[data-row="${next}"]`), 'education');
  assert.equal(await chips.count(), 81);
  await page.click('#tokens .token-more');
  assert.equal(await chips.count(), 300);
  await finish();
});

/** What has the keyboard focus: its tag, id, text and row (a chip's). */
const focused = (page) => page.evaluate(() => {
  const at = document.activeElement;
  return { tag: at.tagName, id: at.id, text: at.textContent.trim().slice(0, 30), row: at.dataset?.row ?? null };
});

test('the keyboard focus stays on the control pressed, or where its content went, never on the page itself', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024)));
  await ready(page);
  // A word found past the collapsed chips: its chip is drawn after them.
  await page.fill('#token-find', 'educat');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') !== null);
  const row = (await hashOf(page)).focus;
  await page.focus('#tokens .token-more');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#tokens button.token').length === 1024);
  assert.deepEqual(await focused(page), { tag: 'BUTTON', id: '', text: 'Show fewer', row: null });
  // Collapsing removes the 943 chips before the button, and the button stays focused.
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#tokens button.token').length === 81);
  assert.deepEqual(await focused(page), { tag: 'BUTTON', id: '', text: 'Show all 1,024 tokens', row: null });
  assert.equal(await page.textContent(`#tokens button.token[data-row="${row}"]`), 'education');
  // "Clear focus" in the Steps tab goes with the steps: the focus moves to the tab's panel, which now holds the hint.
  await page.focus('#explain .explain-head button');
  assert.equal((await focused(page)).text, 'Clear focus');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  const after = await focused(page);
  assert.equal(after.id, 'lab-steps');
  assert.match(after.text, /^Click a row/);
  await finish();
});

test('in a collapsed strip the arrow keys, Home and End reach every token, drawing its chip', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024)));
  await ready(page);
  const all = words(1024).split(' ');
  await page.focus('#tokens button.token >> nth=0');
  const press = async (key, row) => {
    await page.keyboard.press(key);
    assert.deepEqual(await focused(page), { tag: 'BUTTON', id: '', text: all[row], row: String(row) }, `${key} to row ${row}`);
    assert.equal((await hashOf(page)).focus, String(row));
  };
  await press('End', 1023);
  await press('ArrowLeft', 1022);
  await press('ArrowRight', 1023);
  await press('ArrowRight', 1023);
  await press('Home', 0);
  await press('ArrowLeft', 0);
  // From the last collapsed chip onwards, one token at a time; still 81 chips.
  await page.focus('#tokens button.token[data-row="79"]');
  await press('ArrowRight', 80);
  await press('ArrowDown', 81);
  await press('ArrowUp', 80);
  assert.equal(await page.locator('#tokens button.token').count(), 81);
  assert.equal(await page.locator('#tokens [tabindex="0"]').count(), 1, 'still one Tab stop');
  await finish();
});

test('at 1,024 tokens a new focus is drawn in the heatmap in a frame of its own; the Steps tab, the chips, the table and the link follow it', async () => {
  const all = words(1024).split(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&focus=1'));
  await ready(page);
  await page.locator('#weights:not([aria-busy="true"])').waitFor();
  const stepsWord = page.locator('#explain .explain-head h2 q');
  assert.equal(await stepsWord.textContent(), all[1]);
  // What the click's first frame holds: read in the first frame callback after it.
  await page.evaluate(() => {
    addEventListener('click', () => requestAnimationFrame(() => {
      window.firstFrame = { said: document.getElementById('announce').textContent, steps: document.querySelector('#explain .explain-head h2 q').textContent };
    }), { capture: true, once: true });
  });
  // Half a pixel a row: the row clicked is the one the link then holds, near 700.
  const { x, y } = await cellPoint(page, 700, 5);
  await page.mouse.click(x, y);
  const row = Number((await hashOf(page)).focus);
  assert.ok(Math.abs(row - 700) <= 2, `row ${row} focused`);
  // Every view, once drawn, names that word.
  const everywhere = async (row) => {
    await page.waitForFunction((word) => document.querySelector('#explain .explain-head h2 q')?.textContent === word, all[row]);
    assert.equal((await readTable(page)).rows.find((r) => r.focused)?.query, all[row]);
    assert.equal(await page.getAttribute('#weights tr.focused', 'aria-rowindex'), String(row + 2));
    assert.equal(await page.locator('#tokens button.token.focused').textContent(), all[row]);
    assert.equal((await hashOf(page)).focus, String(row));
  };
  await everywhere(row);
  const first = await page.evaluate(() => window.firstFrame);
  assert.match(first.said, new RegExp(`^Focus on .?${all[row]}.? \\(word ${row + 1}\\)\\.`), 'the heatmap says the new focus in the click\'s frame');
  assert.equal(first.steps, all[1], 'the Steps tab is drawn after that frame');
  // A run of keys faster than the frames: each draws the heatmap, and the others catch up with the last.
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
  await everywhere(row + 3);
  assert.equal(await stepsWord.textContent(), all[row + 3]);
  await finish();
});

test('off screen, a new focus rewrites the table\'s focused row: the cells a fresh page draws for that row, masks and all', async () => {
  // The causal mask hides every key after the query: row 5 has masked cells in view, row 700 none.
  const focusedRow = (page) => page.evaluate(() => {
    const tr = document.querySelector('#weights tr.focused');
    return tr && {
      index: tr.getAttribute('aria-rowindex'),
      query: tr.querySelector('th').textContent,
      cells: [...tr.querySelectorAll('td:not(.spacer)')].map((td) => [td.getAttribute('aria-colindex'), td.textContent, td.className, td.title]),
    };
  });
  const fresh = await openPage(site.browser, site.url + hashFor(words(1024), '&causal=1&focus=700'));
  await ready(fresh.page);
  await fresh.page.locator('#weights:not([aria-busy="true"])').waitFor();
  const expected = await focusedRow(fresh.page);
  await fresh.finish();
  assert.equal(expected.index, '702');
  assert.ok(expected.cells.length >= 10 && expected.cells.every(([, , className]) => className === ''), 'row 700 sees its first keys');

  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&causal=1&focus=5'));
  await ready(page);
  await page.locator('#weights:not([aria-busy="true"])').waitFor();
  const before = await focusedRow(page);
  assert.ok(before.cells.some(([, , className, title]) => className === 'masked' && title === 'masked'), 'row 5 has masked keys in view');
  assert.equal(await page.evaluate(() => document.querySelector('.weights-section').getBoundingClientRect().top > innerHeight + 200), true, 'the table is off screen');
  await page.evaluate(() => { location.hash = location.hash.replace('focus=5', 'focus=700'); });
  await page.waitForFunction(() => document.querySelector('#weights tr.focused')?.getAttribute('aria-rowindex') === '702');
  assert.deepEqual(await focusedRow(page), expected);
  await finish();
});

test('a new focus scrolls the weights table\'s box to its row, and leaves the page where it is', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&focus=5'));
  await ready(page);
  const box = page.locator('.weights-section .table-scroll');
  await box.scrollIntoViewIfNeeded();
  const inBox = () => page.evaluate(() => {
    const outer = document.querySelector('.weights-section .table-scroll').getBoundingClientRect();
    const row = document.querySelector('#weights tbody tr.focused')?.getBoundingClientRect();
    return Boolean(row) && row.top >= outer.top && row.bottom <= outer.bottom;
  });
  await page.waitForFunction(() => document.querySelector('#weights tbody tr.focused th')?.textContent === 'man');
  assert.equal(await inBox(), true, 'row 5 in view at first');
  const scrollY = await page.evaluate(() => scrollY);
  // Focused from elsewhere (a link, the heatmap, the find box): row 700 is 18,000 px down the box.
  await page.evaluate(() => { location.hash = location.hash.replace('focus=5', 'focus=700'); });
  await page.waitForFunction(() => document.querySelector('#weights tbody tr.focused')?.getAttribute('aria-rowindex') === '702');
  await page.waitForFunction(() => {
    const outer = document.querySelector('.weights-section .table-scroll').getBoundingClientRect();
    const row = document.querySelector('#weights tbody tr.focused').getBoundingClientRect();
    return row.top >= outer.top && row.bottom <= outer.bottom;
  }, null, { timeout: 5000 });
  assert.equal(await page.evaluate(() => scrollY), scrollY, 'the page did not scroll');
  // Its label sticks at the left over the cells scrolled under it: opaque, the band laid on the page's colour.
  const label = await page.$eval('#weights tbody tr.focused th', (th) => ({ position: getComputedStyle(th).position, color: getComputedStyle(th).backgroundColor, image: getComputedStyle(th).backgroundImage }));
  assert.deepEqual([label.position, label.color], ['sticky', 'rgb(255, 255, 255)']);
  assert.match(label.image, /^linear-gradient\(rgba\(194, 65, 12, 0\.16\)/);
  // Rows around it are drawn, not only the focused one.
  const rows = await readTable(page);
  assert.ok(rows.rows.filter((r) => !r.focused).length >= 5, `${rows.rows.length} rows drawn`);
  await finish();
});

test('a collapsed strip marks with "…" where tokens are left out', async () => {
  const all = words(1024).split(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&focus=900'));
  await ready(page);
  const tail = () => page.$$eval('#tokens > *', (list) => list.slice(79).map((c) => [c.className, c.textContent, c.title ?? '']));
  assert.deepEqual((await tail()).map(([name, text]) => [name.split(' ')[0], text]), [
    ['token', all[79]], ['token-gap', '…'], ['token', all[900]], ['token-gap', '…'], ['small', 'Show all 1,024 tokens'],
  ]);
  const titles = (await tail()).filter(([name]) => name === 'token-gap').map(([, , title]) => title);
  assert.deepEqual(titles, ['820 more tokens here: show all, or find a word', '123 more tokens here: show all, or find a word']);
  assert.equal(await page.locator('#tokens .token-gap[aria-hidden="true"]').count(), 2);
  await page.click('#tokens .token-more');
  await page.waitForFunction(() => document.querySelectorAll('#tokens button.token').length === 1024);
  assert.equal(await page.locator('#tokens .token-gap').count(), 0, 'no gap once all are shown');
  await finish();
});

test('the find box says why a token it matches has no row, and leaves the focus', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the ☕ king zzqxv ruled', '&focus=0'));
  await ready(page);
  const status = async (query) => {
    await page.fill('#token-find', query);
    await page.waitForFunction((q) => document.getElementById('token-find').value === q && document.getElementById('token-find-status').textContent !== '', query);
    return page.textContent('#token-find-status');
  };
  // Chips of the strip, with no vector: the box said "No token contains '☕'."
  assert.equal(await status('☕'), "'☕' is not in the vocabulary: it has no vector, so no row to focus.");
  assert.equal(await status('zzq'), "'zzqxv' is not in the vocabulary: it has no vector, so no row to focus.");
  assert.equal(await status('qqq'), "No token contains 'qqq'.");
  assert.equal((await hashOf(page)).focus, '0');
  assert.equal(await status('kin'), '1 of 1');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') === '1');
  await finish();
});

test('a run of typing in the find box is one history entry', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(300)));
  await ready(page);
  const entries = await page.evaluate(() => history.length);
  // Each of the keys moves the focus to another word: 'e' (time), 'ed', 'edu'.
  await page.locator('#token-find').pressSequentially('educat', { delay: 40 });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') === '99');
  await page.press('#token-find', 'Enter');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') !== '99');
  await hashOf(page);
  assert.equal(await page.evaluate(() => history.length), entries + 1);
  await page.goBack();
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  assert.equal(await page.locator('#tokens button.token.focused').count(), 0, 'Back: nothing focused, as before the search');
  await finish();
});

/**
 * A page of 256 words (no link hidden for being weak: the threshold at 0)
 * that counts the curves drawn on the arrows canvas in `window.curves`,
 * after a change made at the top of the page: the arrows, below the fold at
 * 900 px of viewport, are left out of date.
 */
async function arrowsLeftBelow() {
  const opened = await openPage(site.browser, site.url + hashFor(words(256), '&th=0'));
  const { page } = opened;
  await ready(page);
  await page.evaluate(() => {
    const curve = CanvasRenderingContext2D.prototype.bezierCurveTo;
    window.curves = 0;
    CanvasRenderingContext2D.prototype.bezierCurveTo = function (...args) {
      if (this.canvas.id === 'arrows') window.curves++;
      return curve.apply(this, args);
    };
  });
  assert.equal(await page.evaluate(() => scrollY), 0);
  const before = await page.locator('#weights tbody td:not(.spacer)').first().textContent();
  await page.click('#opt-scale');
  await page.waitForFunction((text) => document.querySelector('#weights tbody td:not(.spacer)')?.textContent !== text, before);
  await page.waitForTimeout(300);
  return opened;
}

/** The curves drawn on the arrows canvas so far, and its opacity. */
const arrowsDrawn = (page) => page.evaluate(() => [window.curves, getComputedStyle(document.getElementById('arrows')).opacity]);

test('the arrows of a long text wait below the fold; on screen, nothing focused draws the thousand strongest links, a focused row all of its own', async () => {
  const { page, finish } = await arrowsLeftBelow();
  // The change computed and drew the heatmap, not the arrows, whose last picture is transparent.
  assert.deepEqual(await arrowsDrawn(page), [0, '0'], 'no curve drawn below the fold');
  const drawnAfter = async (act) => {
    await page.evaluate(() => { window.curves = 0; });
    await act();
    await page.waitForFunction(() => window.curves > 0);
    await page.waitForTimeout(100); // one redraw, not a part of it
    return arrowsDrawn(page);
  };
  // Scrolled to, every row: the strongest thousand of the 65,536 pairs.
  assert.deepEqual(await drawnAfter(() => page.locator('#arrows-box').scrollIntoViewIfNeeded()), [1000, '1']);
  // On screen, one row: every one of its 256 keys, and the 6 it names (rows too thin for every label) again over them.
  assert.deepEqual(await drawnAfter(() => page.evaluate(() => { location.hash += '&focus=5'; })), [256 + 6, '1']);
  await finish();
});

test('a printed page shows the arrows that waited below the fold', async () => {
  const { page, finish } = await arrowsLeftBelow();
  assert.deepEqual(await arrowsDrawn(page), [0, '0']);
  await page.pdf(); // fires beforeprint, as printing from the browser does
  assert.deepEqual(await arrowsDrawn(page), [1000, '1']);
  await finish();
});

test('the heatmap zooms in until the labels can be read, and a click still hits its cell', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(200)));
  await ready(page);
  assert.ok(!(await page.getAttribute('#heatmap-overlay', 'aria-label')).includes('zoomed'));
  for (let k = 0; k < 8; k++) await page.click('#zoom-in');
  const label = await page.getAttribute('#heatmap-overlay', 'aria-label');
  const [, first, last] = label.match(/zoomed to rows and columns (\d+)–(\d+)/);
  assert.ok(Number(last) - Number(first) + 1 <= 24, label);
  // A finger pinches the heatmap (never the page); zoomed, one finger pans it, not the page.
  const touch = () => page.$eval('#heatmap-overlay', (o) => getComputedStyle(o).touchAction);
  assert.equal(await touch(), 'none');
  // The cell under the pointer is the one of the window: focus its row.
  const p = await cellPoint(page, 2, 3);
  await page.mouse.click(p.x, p.y);
  assert.equal((await hashOf(page)).focus, String(Number(first) - 1 + 2));
  await page.click('#zoom-reset');
  assert.ok(!(await page.getAttribute('#heatmap-overlay', 'aria-label')).includes('zoomed'));
  assert.equal(await touch(), 'pan-x pan-y');
  await finish();
});

test('two fingers pan the zoomed heatmap as they move together, and zoom it as they spread', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(words(200)), { viewport: { width: 844, height: 390 }, phone: true });
  await ready(page);
  for (let k = 0; k < 6; k++) await page.click('#zoom-in');
  const window = async () => {
    const label = await page.getAttribute('#heatmap-overlay', 'aria-label');
    const m = label.match(/zoomed to rows (\d+)–(\d+) and columns (\d+)–(\d+)/) ?? label.match(/zoomed to rows and columns (\d+)–(\d+)/);
    assert.ok(m, label);
    return m[3] ? { rows: [Number(m[1]), Number(m[2])], cols: [Number(m[3]), Number(m[4])] } : { rows: [Number(m[1]), Number(m[2])], cols: [Number(m[1]), Number(m[2])] };
  };
  const before = await window();
  const span = before.rows[1] - before.rows[0] + 1;
  assert.ok(span < 60 && before.rows[0] > 1, JSON.stringify(before));
  // Two fingers on the heatmap, 80 px apart, by the DevTools protocol (Playwright has one finger).
  await page.locator('#heatmap-overlay').scrollIntoViewIfNeeded();
  const box = await page.locator('#heatmap-overlay').boundingBox();
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  const cdp = await context.newCDPSession(page);
  const touch = (type, points) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map(([px, py], id) => ({ x: px, y: py, id })) });
  const gesture = async (from, to) => {
    await touch('touchStart', from);
    for (let k = 1; k <= 5; k++) await touch('touchMove', from.map(([fx, fy], i) => [fx + ((to[i][0] - fx) * k) / 5, fy + ((to[i][1] - fy) * k) / 5]));
    await touch('touchEnd', []);
  };
  // Together, up and to the left by 100 px: the window moves down and right, its size kept.
  await gesture([[x - 40, y], [x + 40, y]], [[x - 140, y - 100], [x - 60, y - 100]]);
  const panned = await window();
  assert.equal(panned.rows[1] - panned.rows[0] + 1, span, JSON.stringify(panned));
  assert.ok(panned.rows[0] > before.rows[0] && panned.cols[0] > before.cols[0], `${JSON.stringify(before)} → ${JSON.stringify(panned)}`);
  // Spread apart, twice as far: zoomed in around the point between them.
  await gesture([[x - 40, y], [x + 40, y]], [[x - 80, y], [x + 80, y]]);
  const spread = await window();
  const side = spread.rows[1] - spread.rows[0] + 1;
  assert.ok(side < span && side >= span / 2 - 1, `${span} → ${side}`);
  // Each gesture is an entry of the history: Back undoes the spread, then the pan.
  const zoomNow = () => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('zoom'));
  const spreadZoom = (await hashOf(page)).zoom;
  await page.goBack();
  await page.waitForFunction((z) => new URLSearchParams(location.hash.slice(1)).get('zoom') !== z, spreadZoom);
  const pannedZoom = await zoomNow();
  assert.equal(Number(pannedZoom.split(',')[2]), span, `Back: the pan, before the spread (${pannedZoom})`);
  await page.goBack();
  await page.waitForFunction((z) => new URLSearchParams(location.hash.slice(1)).get('zoom') !== z, pannedZoom);
  await page.waitForFunction((b) => document.getElementById('heatmap-overlay').getAttribute('aria-label').includes(`${b.rows[0]}–${b.rows[1]}`), before);
  assert.deepEqual(await window(), before, 'Back again: before the pan');
  await finish();
});

test('the zoom\'s buttons and keys zoom around the focused cell, which stays in view', async () => {
  const window = async (page) => {
    const label = await page.getAttribute('#heatmap-overlay', 'aria-label');
    const m = label.match(/zoomed to rows and columns (\d+)–(\d+)/) ?? label.match(/zoomed to rows (\d+)–(\d+) and columns (\d+)–(\d+)/);
    assert.ok(m, label);
    const [rows, cols] = [[m[1], m[2]], m[3] ? [m[3], m[4]] : [m[1], m[2]]].map((r) => r.map(Number));
    return { rows, cols };
  };
  // Row 151 of 200 (1-based), its own column: the buttons zoomed at the middle, rows 97–104.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(200), '&focus=150'));
  await ready(page);
  for (let k = 0; k < 8; k++) await page.click('#zoom-in');
  const first = await window(page);
  assert.ok(first.rows[0] <= 151 && 151 <= first.rows[1] && first.cols[0] <= 151 && 151 <= first.cols[1], JSON.stringify(first));
  assert.ok(first.rows[1] - first.rows[0] + 1 <= 24, JSON.stringify(first));
  // The keys, for a clicked cell far from the diagonal (row 31, column 171).
  await page.click('#zoom-reset');
  await page.evaluate(() => { location.hash = location.hash.replace('focus=150', 'focus=30&cell=170'); });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('cell') === '170');
  await page.focus('#heatmap-overlay');
  for (let k = 0; k < 8; k++) await page.keyboard.press('+');
  const keyed = await window(page);
  assert.ok(keyed.rows[0] <= 31 && 31 <= keyed.rows[1] && keyed.cols[0] <= 171 && 171 <= keyed.cols[1], JSON.stringify(keyed));
  await finish();
});

test('a 100,000-word paste is cut to the limit, said so, and the page stays usable', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor('The king'));
  await ready(page);
  const huge = words(100000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate((text) => navigator.clipboard.writeText(text), huge);
  // The longest text the box ever held: the paste is cut before the browser
  // inserts it (600 KB cost it 80 ms of layout); what goes in is the cut text.
  await page.locator('#sentence').evaluate((box) => {
    window.longestInput = 0;
    box.addEventListener('input', () => { window.longestInput = Math.max(window.longestInput, box.value.length); });
  });
  await page.focus('#sentence');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('ControlOrMeta+V');
  await page.waitForSelector('#sentence-note:not([hidden])', { timeout: 20000 });
  assert.ok(await page.evaluate(() => window.longestInput) <= 20000, 'the whole paste went into the box');
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 1025, null, { timeout: 20000 });
  assert.match(await page.textContent('#sentence-note'), /cut after its first 1,024 known words, after '[^']+': the [\d,]+ characters after it \(99 % of the text\) are out of the box\./);
  const kept = await page.inputValue('#sentence');
  assert.equal(kept.split(' ').length, 1024, 'the box and the link keep the first 1,024 words');
  assert.equal((await hashOf(page)).s, kept);
  // What was cut is not lost: the note's button copies it, all of it (a rough cut, then an exact one).
  await page.click('#sentence-note button');
  await page.waitForFunction(() => document.querySelector('#sentence-note button').textContent === 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), huge.split(' ').slice(1024).join(' '));
  // Still responsive: a short sentence draws again.
  await page.fill('#sentence', 'The king and queen');
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 5);
  await finish();
});

test('a paste cut at the box\'s 20,000 characters is undone by Ctrl+Z, as any paste is', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  // 1,190 words of 21 characters: the box keeps 952 of them, fewer than 1,024.
  const long = 'internationalization '.repeat(1200).slice(0, 25000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate((text) => navigator.clipboard.writeText(text), long);
  await page.focus('#sentence');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('ControlOrMeta+V');
  await page.waitForSelector('#sentence-note:not([hidden])', { timeout: 20000 });
  assert.equal((await page.inputValue('#sentence')).length, 19991);
  await page.keyboard.press('ControlOrMeta+Z');
  await page.waitForFunction((king) => document.getElementById('weights').getAttribute('aria-colcount') === '8' && document.getElementById('sentence').value === king, KING);
  assert.equal((await hashOf(page)).s, KING);
  await finish();
});

test('a 100,000-word text dropped on the box is cut before it goes in, as a paste is', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king'));
  await ready(page);
  const huge = words(100000);
  const kept = await page.locator('#sentence').evaluate((box, text) => {
    window.longestInput = 0;
    box.addEventListener('input', () => { window.longestInput = Math.max(window.longestInput, box.value.length); });
    // Dropped after the box's text (the browser's caret at the drop point).
    box.value = 'The king ';
    const data = new DataTransfer();
    data.setData('text/plain', text);
    const r = box.getBoundingClientRect();
    const drop = new DragEvent('drop', { dataTransfer: data, clientX: r.right - 4, clientY: r.bottom - 4, bubbles: true, cancelable: true });
    box.dispatchEvent(drop);
    return { prevented: drop.defaultPrevented, value: box.value.length };
  }, huge);
  assert.ok(kept.prevented, 'the browser does not insert it');
  assert.ok(kept.value <= 20000, `the box holds ${kept.value} characters`);
  await page.waitForSelector('#sentence-note:not([hidden])', { timeout: 20000 });
  assert.ok(await page.evaluate(() => window.longestInput) <= 20000, 'no input event holds the whole drop');
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 1025, null, { timeout: 20000 });
  assert.match(await page.textContent('#sentence-note'), /cut after its first 1,024 known words/);
  const sentence = await page.inputValue('#sentence');
  assert.ok(sentence.startsWith(`The king ${huge.slice(0, 100)}`), sentence.slice(0, 120));
  assert.equal(sentence.split(' ').length, 1024);
  assert.equal((await hashOf(page)).s, sentence);
  // A short text dropped is the browser's to insert.
  const small = await page.locator('#sentence').evaluate((box) => {
    const data = new DataTransfer();
    data.setData('text/plain', 'queen');
    const drop = new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true });
    box.dispatchEvent(drop);
    return drop.defaultPrevented;
  });
  assert.equal(small, false);
  await finish();
});

test('a link to a text over the limit keeps its focus on the same word', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1100), '&focus=900'));
  await ready(page);
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 1025, null, { timeout: 20000 });
  assert.equal((await hashOf(page)).focus, '900');
  assert.equal(await page.locator('#tokens button.token.focused').textContent(), words(1100).split(' ')[900].toLowerCase());
  await finish();
});

test('a paste over 20,000 characters is cut after its last whole word, and said so', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king'));
  await ready(page);
  await page.fill('#sentence', '');
  // 1,000 words of 20 letters and a space: 20,999 characters, as the clipboard gives them.
  await page.keyboard.insertText(Array(1000).fill('internationalization').join(' '));
  await page.waitForSelector('#sentence-note:not([hidden])');
  assert.equal(await page.textContent('#sentence-note'), 'The text was cut after its first 952 words (19,991 characters): the box holds at most 20,000 characters. Copy the text left out');
  const kept = await page.inputValue('#sentence');
  assert.equal(kept.length, 19991);
  assert.ok(kept.split(' ').every((w) => w === 'internationalization'), 'no word cut in two');
  await page.waitForFunction(() => /^952 tokens in the attention ·/.test(document.getElementById('status').textContent));
  assert.equal((await hashOf(page)).s, kept);
  await finish();
});

test("the colour bar's tick labels of a long text, thousandths, fit in the heatmap", async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024)));
  await ready(page);
  const drawn = await page.evaluate(() => {
    const overlay = document.getElementById('heatmap-overlay');
    const [x, y, w, h] = overlay.dataset.colorbar.split(',').map(Number);
    const canvas = document.getElementById('heatmap');
    const ratio = canvas.width / canvas.getBoundingClientRect().width;
    const pixels = (from, to) => {
      const data = canvas.getContext('2d').getImageData(Math.round(from * ratio), Math.round(y * ratio), Math.round((to - from) * ratio), Math.round(h * ratio)).data;
      let inked = 0;
      for (let k = 3; k < data.length; k += 4) if (data[k] > 0) inked++;
      return inked;
    };
    const width = canvas.getBoundingClientRect().width;
    // The labels start 6 px after the strip; the last 3 px of the canvas stay clear of them.
    return { labels: pixels(x + w + 6, width - 3), edge: pixels(width - 3, width) };
  });
  assert.ok(drawn.labels > 100, `tick labels drawn (${drawn.labels} px)`);
  assert.equal(drawn.edge, 0, 'no tick label runs into the canvas edge');
  await finish();
});

test('a pasted run of thousands of letters is one chip ending in "…", quoted short, and the page keeps its width', async () => {
  const run = 'z'.repeat(5000);
  const { page, finish } = await openPage(site.browser, site.url + hashFor(`${run} the king and queen`));
  await ready(page);
  const chip = page.locator('#tokens .token.unknown');
  const { width } = await chip.boundingBox();
  assert.ok(width < 400, `the chip is ${width} px wide`);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0, 'no sideways scroll');
  const quoted = `'${'z'.repeat(40)}…'`;
  assert.equal(await chip.getAttribute('title'), `${quoted} is not in the vocabulary, so it has no vector and is left out of the attention.`);
  const note = await page.textContent('#unknown-note');
  assert.ok(note.includes(`: ${quoted}.`) && note.length < 400, note.slice(0, 120));
  // A text of that one word: the page's message (from the Rust core) names it short too.
  await page.evaluate((hash) => { location.hash = hash; }, hashFor('y'.repeat(19990)));
  await page.waitForSelector('#error:not([hidden])');
  assert.equal(await page.textContent('#error'), `None of the words is in the vocabulary ('${'y'.repeat(40)}…'): try common English words.`);
  await finish();
});

test('What-if at 1,024 tokens draws both sides, the unscaled one in a task of its own, and draws both again for a new text', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&lab=whatif'));
  await ready(page);
  // Each side: drawn (its label counts its rows) and shown (a side waiting for its task is
  // transparent), its caption, and a checksum of its cells.
  const sides = () => page.waitForFunction(() => {
    // The pair is scrolled to the top of the screen at every poll: a side more than
    // 150 px below the screen is drawn only when it comes near (lazyDrawing), and the
    // tab drawn after the heatmap can move the pair after any one scroll.
    document.querySelector('#lab-whatif .compare')?.scrollIntoView({ block: 'start' });
    const panels = [...document.querySelectorAll('#lab-whatif .compare .teach-panel')];
    const drawn = (p) => /\d+ query rows/.test(p.querySelector('canvas.overlay')?.getAttribute('aria-label')) && p.querySelector('.teach-views').style.opacity === '';
    if (panels.length !== 2 || !panels.every(drawn)) return null;
    return panels.map((panel) => {
      const canvas = panel.querySelector('canvas:not(.overlay)');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let sum = 0;
      for (let k = 0; k < data.length; k += 4) sum = (sum * 31 + data[k] + 7 * data[k + 1] + 13 * data[k + 2]) % 1000000007;
      const label = panel.querySelector('canvas.overlay').getAttribute('aria-label');
      return { caption: panel.querySelector('figcaption').textContent, rows: label.match(/(\d+) query rows/)?.[1], sum };
    });
  }, null, { timeout: 30000 }).then((handle) => handle.jsonValue());
  const first = await sides();
  assert.deepEqual(first.map((side) => side.rows), ['1024', '1024']);
  const mean = (side) => Number(side.caption.match(/is ([\d.]+) on average/)[1]);
  assert.match(first[0].caption, /^÷ √50: /);
  assert.match(first[1].caption, /^Unscaled: /);
  // Without the ÷√50 the softmax is sharper: a row's largest weight is larger on average.
  assert.ok(mean(first[1]) > mean(first[0]), `${first[1].caption} / ${first[0].caption}`);
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(words(1000), '&lab=whatif'));
  await page.waitForFunction(() => document.querySelectorAll('#lab-whatif .compare canvas.overlay[aria-label*="1000 query rows"]').length === 2, null, { timeout: 30000 });
  const next = await sides();
  assert.deepEqual(next.map((side) => side.rows), ['1000', '1000']);
  assert.notEqual(next[0].sum, first[0].sum, 'the scaled side is drawn again');
  assert.notEqual(next[1].sum, first[1].sum, 'the unscaled side is drawn again');
  await finish();
});

test('a teaching table of a long sentence renders its focused row and the rows in view, and announces them all', async () => {
  const text = words(100);
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text, '&lab=whatif&pad=128&lf=5'));
  await ready(page);
  await page.waitForFunction(() => document.querySelector('#pad-weights tbody tr.focused th')?.textContent);
  const read = () => page.locator('#pad-weights').evaluate((t) => ({
    rows: [...t.querySelectorAll('tbody tr:not(.spacer)')].map((tr) => [tr.getAttribute('aria-rowindex'), tr.querySelector('th').textContent]),
    cells: t.querySelectorAll('tbody td:not(.spacer)').length,
    header: t.querySelectorAll('thead th').length,
    count: [t.getAttribute('aria-rowcount'), t.getAttribute('aria-colcount')],
    focused: t.querySelector('tbody tr.focused th')?.textContent,
  }));
  const table = await read();
  // 100 words padded to 128 positions: one header cell per position, the
  // focused row among the rendered ones, far fewer cells than 16,384.
  assert.equal(table.focused, text.split(' ')[5].toLowerCase());
  assert.deepEqual(table.count, ['129', '129']);
  assert.equal(table.header, 129);
  assert.ok(table.cells < 2000, `${table.cells} cells rendered, not 16,384`);
  // Scrolled to its end, it brings the last rows (the pads' own), in order.
  await page.locator('#lab-whatif .teach-panel .table-scroll').last().evaluate((box) => {
    box.scrollIntoView();
    box.scrollTop = box.scrollHeight;
  });
  await page.waitForFunction(() => document.querySelector('#pad-weights tbody tr[aria-rowindex="129"]'));
  const end = await read();
  assert.deepEqual(end.rows.at(-1), ['129', '<pad>']);
  assert.equal(end.focused, table.focused, 'the focused row stays');
  await finish();
});

/** The focused row of the weights table: its query and its cells as numbers. */
async function focusedRow(page) {
  const row = (await readTable(page)).rows.find((r) => r.focused);
  return row && { query: row.query, cells: row.cells.map(Number) };
}

test('a long text is computed in slices; a change of the options replaces one still being computed', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&focus=3'));
  await ready(page);
  const text = words(1010).split(' ').reverse().join(' ');
  // The new text's analysis starts (the status says so), and causal masking
  // is switched on in the same task: the first computation stops unfinished.
  const computing = await page.evaluate((hash) => new Promise((resolve) => {
    window.addEventListener('hashchange', () => {
      const said = document.getElementById('status').textContent;
      document.getElementById('opt-causal').click();
      resolve(said);
    }, { once: true });
    location.hash = hash;
  }), hashFor(text, '&focus=3'));
  assert.equal(computing, 'Computing the attention of 1,010 tokens…');
  await page.waitForFunction(() => /^1,010 tokens in the attention/.test(document.getElementById('status').textContent));
  const shown = await focusedRow(page);
  assert.equal(shown.query, text.split(' ')[3]);
  assert.ok(shown.cells.length > 10 && shown.cells.slice(4).every((w) => w === 0), `causal, no later key: ${shown.cells}`);
  assert.ok(shown.cells.slice(0, 4).every((w) => w > 0), 'the earlier keys and itself share the weight');
  // The last finished job leaves its measure for DevTools and scripts/bench-page,
  // in place of the one before (the first text's): its tokens, and a computing
  // time within its span.
  const jobs = await page.evaluate(() => performance.getEntriesByName('analysis-job').map((e) => [e.detail.tokens, e.detail.ms > 0 && e.detail.ms <= e.duration]));
  assert.deepEqual(jobs, [[1010, true]]);
  // The same row as a page that computed it in one go.
  const fresh = await openPage(site.browser, site.url + hashFor(text, '&causal=1&focus=3'));
  await ready(fresh.page);
  assert.deepEqual(shown, await focusedRow(fresh.page));
  await fresh.finish();
  await finish();
});

test('a CSV or JSON of 1,024 tokens is made a slice at a time: the page answers meanwhile, a second click waits, the file holds every weight', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words(1024), '&focus=700'));
  await ready(page);
  // The focused row's cells the table renders (the columns in view): key index → weight as printed.
  await page.waitForSelector('#weights:not([aria-busy="true"]) tr.focused td[aria-colindex]');
  const cells = await page.locator('#weights tr.focused td[aria-colindex]').evaluateAll((tds) => tds.map((td) => [Number(td.getAttribute('aria-colindex')) - 2, td.textContent]));
  assert.ok(cells.length > 5, `${cells.length} cells`);
  const query = words(1024).split(' ')[700];
  const asPrinted = (row) => cells.map(([key]) => row[key].toFixed(4));
  await page.click('#share-open');
  for (const format of ['csv', 'json']) {
    // A timer set as the click is handled fires before the file is made, and
    // a second click meanwhile says the first is still being prepared.
    const order = page.evaluate((id) => new Promise((resolve) => {
      const seen = [];
      const status = document.getElementById('share-status');
      const create = URL.createObjectURL;
      URL.createObjectURL = (blob) => {
        seen.push('file');
        URL.createObjectURL = create;
        resolve(seen);
        return create(blob);
      };
      document.getElementById(id).addEventListener('click', () => setTimeout(() => {
        seen.push(`timer: ${status.textContent}`);
        document.getElementById(id).click();
        seen.push(`second click: ${status.textContent}`);
      }, 0), { once: true });
    }), `export-${format}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#export-${format}`)]);
    const upper = format.toUpperCase();
    assert.deepEqual(await order, [`timer: Preparing the ${upper} (1,024 rows)…`, `second click: Still preparing the ${upper}…`, 'file']);
    assert.equal(await page.textContent('#share-status'), `${upper} downloaded.`);
    const text = (await readFile(await download.path())).toString('utf8');
    if (format === 'csv') {
      const lines = text.trim().split('\r\n');
      assert.equal(lines.length, 1025, 'a header and a line per query');
      assert.equal(lines[0].split(',').length, 1025);
      const row = lines[701].split(',');
      assert.equal(row[0], `"${query}"`);
      assert.deepEqual(asPrinted(row.slice(1).map(Number)), cells.map(([, text]) => text));
    } else {
      const json = JSON.parse(text);
      assert.equal(json.weights.length, 1024);
      assert.ok(json.weights.every((row) => row.length === 1024));
      assert.equal(json.queries[700], query);
      assert.deepEqual(asPrinted(json.weights[700]), cells.map(([, text]) => text));
      // A row of weights a line: 1,024 lines, not a million.
      assert.equal(text.match(/^ {2}\[.*\],?$/gm).length, 1024);
    }
  }
  await finish();
});
