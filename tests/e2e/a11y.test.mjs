// Accessibility as a screen reader or keyboard user meets it: what the live
// regions say while a sentence is typed and while the temperature slider
// moves, the order in which Tab reaches the share controls, and captions that
// a phone shows whole, however wide their tables; and axe-core's audit of
// every view, on a desktop and on a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hashFor, KING, openPage, ready, ROOT, useSite } from './helpers.mjs';

const site = useSite();

/**
 * Records, from now on, what the page's live regions tell a screen reader:
 * `window.said` gets { region, text } each time the text of a shown live
 * region changes to something new and not empty. A live region is what
 * Chromium exposes as one: aria-live other than "off", or role status,
 * alert or log (as <output> has) without aria-live="off". `window.shown`
 * gets every text the status line and the note under the tokens show.
 */
async function listen(page) {
  await page.evaluate(() => {
    const LIVE = '[aria-live]:not([aria-live="off"]), :is([role="status"], [role="alert"], [role="log"], output):not([aria-live])';
    window.said = [];
    window.shown = new Set();
    const last = new Map();
    const textOf = (node) => (node.checkVisibility() ? node.textContent.trim() : '');
    for (const node of document.querySelectorAll(LIVE)) last.set(node, textOf(node));
    new MutationObserver(() => {
      for (const node of document.querySelectorAll(LIVE)) {
        const text = textOf(node);
        if (text !== (last.get(node) ?? '') && text) window.said.push({ region: node.id, text });
        last.set(node, text);
      }
      for (const id of ['status', 'unknown-note']) window.shown.add(textOf(document.getElementById(id)));
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['hidden', 'class', 'aria-live', 'role'] });
  });
}

const said = (page) => page.evaluate(() => window.said);

/** Resolves after two frames and a task: what a change writes in its frame, and in the next, is in. */
const settled = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));

test('typing says the result once typing pauses, not each word being loaded at every key', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat'));
  await ready(page);
  await listen(page);
  await page.focus('#sentence');
  await page.keyboard.press('End');
  // A steady typist: every key comes before the page fetches the word being typed.
  await page.keyboard.type(' sat zorblax', { delay: 60 });
  await page.waitForFunction(() => window.said.some((s) => /3 tokens in the attention, 1 left out/.test(s.text)), null, { timeout: 15000 });
  await settled(page);
  const heard = await said(page);
  // One announcement, twelve keys: the tokens counted, and the unknown word named and explained.
  assert.equal(heard.length, 1, JSON.stringify(heard, null, 1));
  assert.match(heard[0].text, /^3 tokens in the attention, 1 left out · d = 50\. Not in the [\w ,-]*vocabulary[^:]*: 'zorblax'\./);
  // The status line still shows the loading states to the eye (the note waits for the keys to pause: vectors.test.mjs).
  const shown = await page.evaluate(() => [...window.shown]);
  assert.ok(shown.some((t) => /^Loading the vectors of \d word/.test(t)), JSON.stringify(shown));
  assert.match(await page.textContent('#status'), /^3 tokens in the attention, 1 left out · d = 50 · scores × 1\/√50$/);
  await finish();
});

test('typing with a row focused says its new weights once the keys pause, not at every key', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat sat', '&focus=1'));
  await ready(page);
  await listen(page);
  // A slow typist, a key every 250 ms (typed in the page, so that slowed frames leave the pace alone): the page computes between keys.
  await page.evaluate((text) => new Promise((resolve) => {
    const box = document.getElementById('sentence');
    box.focus();
    let k = 0;
    const key = () => {
      box.value += text[k++];
      box.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text[k - 1] }));
      if (k < text.length) setTimeout(key, 250);
      else resolve();
    };
    key();
  }), ' on the mat');
  await page.waitForFunction(() => window.said.some((s) => s.region === 'status-said' && /^6 tokens/.test(s.text)), null, { timeout: 15000 });
  await page.waitForFunction(() => window.said.some((s) => s.region === 'announce'), null, { timeout: 15000 });
  await page.waitForTimeout(700);
  const heard = await said(page);
  // Eleven keys, each a new analysis: the row of "cat" is said once, with the weights of the whole sentence.
  assert.deepEqual(heard.map((s) => s.region).sort(), ['announce', 'status-said'], JSON.stringify(heard, null, 1));
  const row = heard.find((s) => s.region === 'announce').text;
  assert.match(row, /^Focus on cat \(word 2\)\. Strongest keys: /);
  assert.match(row, /mat \(word 6\)|the \(word [15]\)|on \(word 4\)|sat \(word 3\)/, 'keys typed after the focus are among them');
  await finish();
});

test('each step of the temperature slider says the focused row once; the slider says its value', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=whatif'));
  await ready(page);
  await page.waitForSelector('#whatif-compare caption');
  await listen(page);
  await page.focus('#opt-temperature');
  const temperatures = [];
  for (let step = 0; step < 3; step++) {
    const before = await page.textContent('#temperature-value');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((t) => document.getElementById('temperature-value').textContent !== t, before);
    await settled(page);
    temperatures.push(await page.textContent('#temperature-value'));
  }
  assert.deepEqual(temperatures, ['1.02', '1.05', '1.07']);
  // The slider's own value text gives the temperature; the live regions only the effect, once a step.
  assert.equal(await page.getAttribute('#opt-temperature', 'aria-valuetext'), 'temperature 1.07');
  const heard = await said(page);
  assert.deepEqual(heard.map((s) => s.region), ['announce', 'announce', 'announce'], JSON.stringify(heard, null, 1));
  for (const { text } of heard) assert.match(text, /^Focus on king \(word 2\)\. Strongest keys: king \(word 2\) 0\.4\d{3}, /);
  assert.equal(new Set(heard.map((s) => s.text)).size, 3, 'new weights at each step');
  // The status line still shows the temperature.
  assert.match(await page.textContent('#status'), /÷ 1\.07$/);
  await finish();
});

for (const width of [1200, 360]) {
  test(`at ${width} px Tab goes through the share controls in the order they are seen, into the panel from its button`, async () => {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), { viewport: { width, height: 800 } });
    await ready(page);
    await page.click('#share-open');
    await page.focus('#copy-link');
    const reached = [];
    for (let k = 0; k < 12; k++) {
      reached.push(await page.evaluate(() => {
        const node = document.activeElement;
        const box = node.getBoundingClientRect();
        return { name: node.id || `copy ${node.dataset.copy}`, top: box.top + scrollY, bottom: box.bottom + scrollY, left: box.left };
      }));
      await page.keyboard.press('Tab');
    }
    const names = reached.map((r) => r.name);
    assert.deepEqual(names, [
      'copy-link', 'export-figure', 'export-png', 'export-svg', 'export-csv', 'export-json', 'share-open',
      'share-view', 'share-link', 'copy share-link', 'share-iframe', 'copy share-iframe',
    ]);
    // Each stop is after the one before as a reader's eye goes: further right on its line, or on a line below.
    reached.slice(1).forEach((next, k) => {
      const before = reached[k];
      const sameLine = next.top < before.bottom && before.top < next.bottom;
      assert.ok(sameLine ? next.left > before.left : next.top >= before.bottom, `${before.name} → ${next.name}: ${JSON.stringify([before, next])}`);
    });
    await finish();
  });
}

test('on a 360 px phone the captions of the steps table and of the weights table wrap to the screen', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'), { viewport: { width: 360, height: 740 } });
  await ready(page);
  await page.waitForSelector('#explain .steps-table caption');
  for (const selector of ['#explain .steps-table', '#weights']) {
    const table = page.locator(selector);
    await table.scrollIntoViewIfNeeded();
    const read = () => table.evaluate((node) => {
      const box = (n) => { const r = n.getBoundingClientRect(); return { left: r.left, right: r.right }; };
      return { caption: box(node.caption), table: box(node), scroller: box(node.parentElement), text: node.caption.textContent };
    });
    const seen = await read();
    assert.ok(seen.table.right > 360, `${selector} is wider than the phone (${seen.table.right}), so the test means something`);
    assert.ok(seen.caption.left >= 0 && seen.caption.right <= 360, `${selector} caption ${JSON.stringify(seen)}`);
    assert.ok(seen.caption.right <= seen.scroller.right + 0.5, `${selector} caption within its scroller ${JSON.stringify(seen)}`);
    // The table scrolls sideways in its own box; its caption stays where it is read.
    await table.evaluate((node) => { node.parentElement.scrollLeft = 120; });
    const scrolled = await read();
    assert.ok(scrolled.table.left < seen.table.left - 100, 'the table scrolled');
    assert.deepEqual(scrolled.caption, seen.caption);
  }
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360, 'the page itself does not scroll sideways');
  await finish();
});

for (const scheme of ['light', 'dark']) {
  test(`on the highlight of a picked row (${scheme}), the key and the grey numbers read at 4.5:1 at least`, async () => {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&focus=7&cell=7'), { colorScheme: scheme });
    await page.waitForSelector('#explain tr.picked td.muted');
    const ratios = await page.evaluate(() => {
      const parse = (c) => c.match(/[\d.]+/g).map(Number);
      const over = (top, under) => [0, 1, 2].map((k) => top[k] * (top[3] ?? 1) + under[k] * (1 - (top[3] ?? 1)));
      // The background under a node: its ancestors' colours laid over one another, from the first opaque one up.
      const under = (node) => {
        const layers = [];
        for (let n = node; n; n = n.parentElement) {
          const c = parse(getComputedStyle(n).backgroundColor);
          if ((c[3] ?? 1) > 0) layers.push(c);
          if ((c[3] ?? 1) === 1) break;
        }
        return layers.reverse().reduce((below, c) => over(c, below), [255, 255, 255]);
      };
      const lum = (rgb) => rgb.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((a, v, k) => a + v * [0.2126, 0.7152, 0.0722][k], 0);
      const ratio = (node) => {
        const [a, b] = [lum(over(parse(getComputedStyle(node).color), under(node))), lum(under(node))];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      };
      return Object.fromEntries(['tr.picked th .link-button', 'tr.picked td.muted'].map((s) => [s, ratio(document.querySelector(`#explain ${s}`))]));
    });
    for (const [what, ratio] of Object.entries(ratios)) assert.ok(ratio >= 4.6, `${what}: ${ratio.toFixed(2)}:1`);
    await finish();
  });
}

test('the focus ring of a key in the Steps table is drawn whole, not cut by its scroll box', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(CAT, '&focus=7'));
  const key = page.locator('#explain tbody th .link-button').first();
  await key.focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab'); // a keyboard focus: :focus-visible
  const ring = await key.evaluate((button) => {
    const style = getComputedStyle(button);
    const reach = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
    const [b, box] = [button.getBoundingClientRect(), button.closest('.steps-scroll').getBoundingClientRect()];
    return { visible: button.matches(':focus-visible'), left: b.left - reach, top: b.top - reach, box: { left: box.left, top: box.top } };
  });
  assert.ok(ring.visible, 'focused from the keyboard');
  assert.ok(ring.left >= ring.box.left - 0.5, `the ring's left edge ${ring.left} is inside the scroll box (${ring.box.left})`);
  await finish();
});

test('zooming the heatmap from the keyboard, and clearing its focus with Escape, are said', async () => {
  const words = 'the king and queen ruled the kingdom while people of the city said that it was good';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words));
  await ready(page);
  await listen(page);
  await page.focus('#heatmap-overlay');
  await page.keyboard.press('ArrowDown');
  for (const key of ['+', '0', 'Escape']) {
    await page.keyboard.press(key);
    await settled(page);
  }
  const announced = (await said(page)).filter((s) => s.region === 'announce').map((s) => s.text);
  assert.match(announced.at(-3), /^Zoomed to rows and columns 1–\d+ of 17$/, announced.join(' | '));
  assert.deepEqual(announced.slice(-2), ['Whole matrix: 17 rows and columns', 'Focus cleared']);
  await finish();
});

test('on a touch screen the steps\' keys, the token chips and the sliders are targets of 24 px each way at least', async () => {
  const sentence = 'The cat sat on the mat, because it was tired.';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(sentence, '&focus=1'), { viewport: { width: 360, height: 740 }, phone: true });
  await ready(page);
  await page.waitForSelector('#explain .steps-table tbody .link-button');
  const small = await page.evaluate(() => {
    const targets = [...document.querySelectorAll('#explain .steps-table tbody .link-button, #tokens .token, input[type="range"]')];
    return {
      count: targets.length,
      small: targets.map((t) => [t.textContent || t.id, t.getBoundingClientRect()]).filter(([, r]) => r.width < 24 || r.height < 24)
        .map(([name, r]) => `${name} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`),
    };
  });
  assert.ok(small.count >= 2 * 12 + 2, `${small.count} targets: the keys, the chips, the sliders`);
  assert.deepEqual(small.small, []);
  // The "," key is the whole row header: a tap at its right edge picks it.
  const comma = page.locator('#explain .steps-table tbody .link-button', { hasText: /^,$/ });
  await comma.scrollIntoViewIfNeeded();
  const box = await comma.boundingBox();
  await page.touchscreen.tap(box.x + box.width - 3, box.y + box.height / 2);
  await page.waitForSelector('#explain .steps-table tr.picked');
  assert.equal(await page.locator('#explain .steps-table tr.picked .link-button').textContent(), ',');
  await finish();
});

test('on a phone a shared link\'s heatmap starts on the first screen: the options fold under a summary of what the link changed', async () => {
  const link = hashFor('The cat sat on the mat because it was tired', '&focus=7&causal=1&t=2');
  const { page, finish } = await openPage(site.browser, site.url + link, { viewport: { width: 360, height: 740 }, phone: true });
  await ready(page);
  assert.equal(await page.locator('#settings').evaluate((details) => details.open), false);
  assert.equal(await page.textContent('#settings-summary'), 'Options: causal mask, temperature 2');
  assert.equal(await page.locator('#opt-causal').isVisible(), false);
  const heatmap = await page.locator('#heatmap').boundingBox();
  assert.ok(heatmap.y < 740, `the heatmap starts at ${heatmap.y}, below the first screen`);
  // A tap opens them, as they are; a change shows in the summary.
  await page.tap('#settings-summary');
  assert.equal(await page.locator('#opt-causal').isChecked(), true);
  await page.tap('#opt-causal');
  await page.waitForFunction(() => document.getElementById('settings-summary').textContent === 'Options: temperature 2');
  await finish();
  // Wider, they are open and have no summary: nothing to unfold.
  const wide = await openPage(site.browser, site.url + link, { viewport: { width: 1200, height: 900 } });
  await ready(wide.page);
  assert.equal(await wide.page.locator('#settings').evaluate((details) => details.open), true);
  assert.equal(await wide.page.locator('#settings-summary').isVisible(), false);
  assert.equal(await wide.page.locator('#opt-causal').isVisible(), true);
  await wide.finish();
});

test('the first load moves nothing on the screen: its layout shifts add up to less than 0.01 on a laptop and 0.05 on a phone', async () => {
  // Before: 0.08 and 0.31 (the zoom buttons shown while loading, the empty heatmap's 150 px, the status and the
  // examples menu taking a second line on a phone, the options' summary, the token strip filled late).
  for (const [viewport, most] of [[{ width: 1200, height: 900 }, 0.01], [{ width: 360, height: 740 }, 0.05]]) {
    const phone = viewport.width < 600;
    const { page, context, finish } = await openPage(site.browser, null, { viewport, phone, origins: [new URL(site.url).origin] });
    await context.addInitScript(() => {
      window.shifts = [];
      const name = (node) => node?.id || node?.className || node?.nodeName;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.shifts.push({ at: Math.round(e.startTime), value: e.value, moved: e.sources.map((s) => name(s.node)) });
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(site.url);
    await ready(page);
    // The examples menu is filled last, after the first heatmap.
    await page.waitForFunction(() => document.querySelectorAll('#examples option').length > 1);
    await settled(page);
    const shifts = await page.evaluate(() => window.shifts);
    const total = shifts.reduce((sum, s) => sum + s.value, 0);
    assert.ok(total < most, `${viewport.width} px: ${total.toFixed(4)} ${JSON.stringify(shifts)}`);
    await finish();
  }
});

/** axe-core (tests/package.json), run in a page by the test's own DevTools session: the page's CSP allows no other script. */
const AXE = readFileSync(path.join(ROOT, 'tests/node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * The views to audit: [name, link, what shows once the view is drawn]. The
 * tabs' panels and the trained model are built by script, after the page's
 * own HTML: an audit of the first heatmap alone would miss them.
 */
const CAT = 'The cat sat on the mat because it was tired';
const AUDITED = [
  ['the focused row and a cell, term by term', hashFor(KING, '&focus=1&cell=3'), '#explain .cell-steps table'],
  ['What if…', hashFor(KING, '&focus=1&lab=whatif'), '#whatif-compare tbody tr'],
  ['Matrix playground', hashFor(KING, '&lab=play'), '#play-compare tbody tr'],
  ['Multi-head', hashFor(CAT, '&lab=heads'), '#lab-heads canvas'],
  ['Cross-attention', hashFor(CAT, '&focus=4&lab=cross'), '#lab-cross .context-steps table'],
  ['Context vectors', hashFor(CAT, '&lab=meaning'), '#lab-meaning tbody tr'],
  ['a quiz', hashFor(CAT, '&quiz=g.7.1'), '#quiz .quiz-choices button'],
  ['the trained model', hashFor(CAT, '&focus=7&model=1'), '#model-explain[data-state="ready"] .model-vector-table'],
  ['its heads ranked by it → cat', hashFor(CAT, '&focus=7&model=1&mq=8&mk=2'), '#model-ranking button.model-hit'],
  ['a widget', `embed.html${hashFor(CAT, '&focus=7')}`, '#heatmap'],
];

for (const [width, scheme] of [[1200, 'light'], [360, 'dark']]) {
  test(`axe-core finds no violation in any view at ${width} px (${scheme}): headings in order, every table header named, every scrolling table reachable by keyboard`, async () => {
    const found = [];
    for (const [name, link, drawn] of AUDITED) {
      const { page, finish } = await openPage(site.browser, site.url + link, { viewport: { width, height: 900 }, colorScheme: scheme });
      await page.waitForSelector(drawn, { state: 'attached', timeout: 60000 });
      await settled(page);
      await page.evaluate(AXE);
      // A widget is transparent: its background is the post's, which axe, reading the page alone, takes
      // for white. Its colours are the full page's, audited with the page's own background.
      const rules = link.startsWith('embed.html') ? { 'color-contrast': { enabled: false } } : {};
      const { violations, incomplete } = await page.evaluate(async (rules) => window.axe.run(document, { resultTypes: ['violations', 'incomplete'], rules }), rules);
      // An aria-label on an element with no role names nothing: axe calls it a violation when the
      // element's contents are skipped (a table off screen, content-visibility), and leaves it to
      // review when it sees them. The same defect either way: both fail.
      const decided = incomplete.filter((v) => v.id === 'aria-prohibited-attr');
      for (const v of [...violations, ...decided]) for (const node of v.nodes) found.push(`${name}: ${v.id} (${v.impact}) at ${node.target.join(' ')}`);
      await finish();
    }
    assert.deepEqual(found, []);
  });
}
