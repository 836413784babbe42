// The page on paper and in forced colours, as a reader sees it: printed from
// the dark theme, text and canvas labels are dark on white and an unchecked
// box reads as unchecked; the printed Steps table names its keys; Windows
// high contrast still shows the focused word, the selected tab and the other
// states that colour alone showed; the canvases are drawn again, sharp, on a
// screen of another pixel ratio; and an empty heatmap offers no zoom.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashFor, openPage, ready, readTable, useSite } from './helpers.mjs';

const site = useSite();
const SENTENCE = 'The cat sat on the mat';

/** Resolves after two frames and a task: what a change writes in its frame, and in the next, is in. */
const settled = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));

/** The page as it prints: print media, and the page's own hook run, as the browser runs it before printing. */
async function printing(page) {
  await page.emulateMedia({ media: 'print' });
  await page.evaluate(() => dispatchEvent(new Event('beforeprint')));
  await settled(page);
}

/** Back on screen, as after the print dialog closes. */
async function printed(page) {
  await page.emulateMedia({ media: 'screen' });
  await page.evaluate(() => dispatchEvent(new Event('afterprint')));
  await settled(page);
}

/** Relative luminance of [r, g, b] bytes (WCAG 2). */
function luminance([r, g, b]) {
  const linear = (c) => (c <= 10.31475 ? c / 3294.6 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const WHITE = luminance([255, 255, 255]);

/**
 * The ink of the text drawn on `canvas` outside `skip` (the `data-*`
 * attributes of the heatmap overlay naming rectangles in CSS pixels: its
 * cells and colour bar, drawn in colour): the median [r, g, b] of its opaque
 * grey pixels (labels, ticks and weights are grey; curves and cells are
 * coloured), and how many there are.
 */
function canvasInk(page, canvas, skip = []) {
  return page.evaluate(([selector, skipped]) => {
    const canvas = document.querySelector(selector);
    const overlay = document.getElementById('heatmap-overlay');
    const ratio = window.devicePixelRatio || 1;
    const rects = skipped.map((name) => overlay.dataset[name].split(',').map(Number)).map(([x, y, w, h]) => [x - 2, y - 2, x + w + 2, y + h + 2].map((v) => v * ratio));
    const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const ink = [];
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const k = (y * width + x) * 4;
        const [r, g, b, a] = data.subarray(k, k + 4);
        if (a < 200 || Math.max(r, g, b) - Math.min(r, g, b) > 24) continue;
        if (rects.some(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1)) continue;
        ink.push([r, g, b]);
      }
    }
    ink.sort((p, q) => p[0] + p[1] + p[2] - (q[0] + q[1] + q[2]));
    return { count: ink.length, median: ink[ink.length >> 1] ?? null };
  }, [canvas, skip]);
}

/** The canvases' text as ink on white paper: its contrast, and enough of it to be the labels. */
async function assertDarkInk(page, label) {
  for (const [canvas, skip] of [['#heatmap', ['matrix', 'colorbar']], ['#arrows', []]]) {
    const { count, median } = await canvasInk(page, canvas, skip);
    assert.ok(count > 100, `${label}: ${canvas} has its labels (${count} ink pixels)`);
    const ratio = contrast(luminance(median), WHITE);
    assert.ok(ratio >= 4.5, `${label}: ${canvas} labels in rgb(${median}) on white paper: contrast ${ratio.toFixed(2)}`);
  }
}

/**
 * The text colour, the colour under it (the first ancestor's background
 * that is not transparent; the paper's white past the root) and the colour
 * scheme of each element `selectors` names.
 */
function colours(page, selectors) {
  return page.evaluate((list) => list.map((selector) => {
    const element = document.querySelector(selector);
    const rgb = (css) => css.match(/[\d.]+/g).map(Number);
    let under = [255, 255, 255];
    for (let node = element; node; node = node.parentElement) {
      const background = rgb(getComputedStyle(node).backgroundColor);
      if ((background[3] ?? 1) > 0.5) {
        under = background.slice(0, 3);
        break;
      }
    }
    const style = getComputedStyle(element);
    return { selector, text: rgb(style.color).slice(0, 3), under, scheme: style.colorScheme, shown: element.checkVisibility() };
  }), selectors);
}

/**
 * The middle half of element `selector` as a screenshot shows it (decoded by
 * the page's own canvas): its mean luminance, and the share of its pixels
 * that are dark (luminance under a half).
 */
async function middleOf(page, selector) {
  const png = (await page.locator(selector).first().screenshot()).toString('base64');
  const rgba = await page.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = Object.assign(document.createElement('canvas'), { width: image.width, height: image.height });
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    const [x, y, w, h] = [image.width / 4, image.height / 4, image.width / 2, image.height / 2].map(Math.round);
    return [...ctx.getImageData(x, y, Math.max(1, w), Math.max(1, h)).data];
  }, png);
  const pixels = rgba.length / 4;
  let sum = 0;
  let dark = 0;
  for (let k = 0; k < rgba.length; k += 4) {
    const l = luminance(rgba.slice(k, k + 3));
    sum += l;
    if (l < 0.5) dark++;
  }
  return { mean: sum / pixels, dark: dark / pixels };
}

const PRINTED_TEXT = ['h1', '.tagline', '#sentence', '#tokens .token.focused', 'label:has(#opt-causal)', '.explain h2', '#weights tbody td', '.heatmap-figure figcaption'];

/** Dark text on a light background, light form controls, and an unchecked box that does not read as checked. */
async function assertPrintedText(page, when) {
  for (const { selector, text, under, scheme, shown } of await colours(page, PRINTED_TEXT)) {
    assert.ok(shown, `${when}: ${selector} is printed`);
    assert.ok(luminance(under) > 0.8, `${when}: ${selector} is printed on a light background, not rgb(${under})`);
    const ratio = contrast(luminance(text), luminance(under));
    assert.ok(ratio >= 4.5, `${when}: ${selector} in rgb(${text}) on rgb(${under}), contrast ${ratio.toFixed(2)}`);
    assert.equal(scheme, 'light', `${when}: ${selector} has the light theme's form controls`);
  }
  const unchecked = await middleOf(page, '#opt-causal');
  const checked = await middleOf(page, '#opt-scale');
  assert.ok(unchecked.mean > 0.8, `${when}: the unchecked box prints light (luminance ${unchecked.mean.toFixed(2)})`);
  assert.ok(unchecked.mean - checked.mean > 0.2, `${when}: the checked box differs from the unchecked one (${checked.mean.toFixed(2)} vs ${unchecked.mean.toFixed(2)})`);
  // The sliders print their values in words, not their tracks; the menus of colours and theme (a dark theme on white paper) not at all.
  const shown = await page.$$eval('#opt-temperature, #temperature-value, #threshold, #threshold-value, #opt-palette, #opt-theme',
    (elements) => Object.fromEntries(elements.map((e) => [e.id, e.checkVisibility()])));
  assert.deepEqual(shown, { 'opt-temperature': false, 'temperature-value': true, threshold: false, 'threshold-value': true, 'opt-palette': false, 'opt-theme': false }, when);
}

for (const [name, link, colorScheme] of [
  ['a link asking for the dark theme', '&theme=dark', 'light'],
  ['a dark system setting', '', 'dark'],
]) {
  test(`printed from ${name}, the text is dark on white and the unchecked box reads as unchecked`, async () => {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, `&focus=3${link}`), { colorScheme });
    await ready(page);
    assert.equal(await page.textContent('.explain h2'), 'How on attends'); // "on" in quotes: a <q>
    // The style sheet alone (a page whose scripts stopped), then with the page's own print hook.
    await page.emulateMedia({ media: 'print' });
    await assertPrintedText(page, 'print media');
    await printing(page);
    await assertPrintedText(page, 'after beforeprint');
    await finish();
  });
}

test('printed from the dark theme, the canvases\' labels are dark on white; after printing the screen is dark again', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, '&focus=3&theme=dark'));
  await ready(page);
  await printing(page);
  await assertDarkInk(page, 'printed');
  await printed(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  const { median } = await canvasInk(page, '#heatmap', ['matrix', 'colorbar']);
  assert.ok(luminance(median) > 0.5, `on screen again, the heatmap's labels are the dark theme's pale rgb(${median})`);
  // Printing for real (the browser sends beforeprint and afterprint itself): what the page
  // drew for the paper (copied by a listener that runs after the page's own), then the screen as it was.
  await page.evaluate(() => addEventListener('beforeprint', () => {
    const heatmap = document.getElementById('heatmap');
    const copy = Object.assign(heatmap.cloneNode(), { id: 'printed-heatmap', hidden: true });
    copy.getContext('2d').drawImage(heatmap, 0, 0);
    document.body.append(copy);
  }, { once: true }));
  await page.pdf();
  await settled(page);
  const paper = await canvasInk(page, '#printed-heatmap', ['matrix', 'colorbar']);
  assert.ok(paper.count > 100 && contrast(luminance(paper.median), WHITE) >= 4.5, `the PDF's heatmap labels in rgb(${paper.median})`);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.ok(luminance((await canvasInk(page, '#heatmap', ['matrix', 'colorbar'])).median) > 0.5);
  await finish();
});

test('printed, the focus layer over a heatmap leaves the heatmap under it to be seen', async () => {
  // Chromium prints a canvas drawn again in beforeprint (as the page draws its light theme for
  // paper) on an opaque white ground: the main heatmap printed blank from a dark page (seen in
  // page.pdf's output). The layer over each heatmap is multiplied on paper, so white leaves the cells.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, '&focus=3&theme=dark&lab=play'));
  await ready(page);
  await page.waitForSelector('.teach-panel .canvas-stack > canvas + canvas');
  await printing(page);
  const layers = await page.$$eval('.canvas-stack > canvas + canvas', (canvases) => canvases.map((c) => `${c.id || c.className} ${getComputedStyle(c).mixBlendMode}`));
  assert.ok(layers.length >= 2, `the main heatmap's and the tab's layers (${layers})`);
  for (const layer of layers) assert.match(layer, / multiply$/);
  await printed(page);
  assert.equal(await page.$eval('#heatmap-overlay', (c) => getComputedStyle(c).mixBlendMode), 'normal', 'on screen, as drawn');
  await finish();
});

test('a long text prints the table\'s rows it holds, without the blank height of the others', async () => {
  const long = Array.from({ length: 300 }, (_, k) => ['the', 'cat', 'sat', 'on', 'a', 'mat'][k % 6]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(long, '&focus=5'));
  await ready(page);
  await printing(page);
  const printedTable = await page.evaluate(() => {
    const table = document.getElementById('weights');
    return { height: table.getBoundingClientRect().height, rows: [...table.querySelectorAll('tbody tr:not(.spacer)')].map((tr) => tr.querySelector('th').textContent) };
  });
  assert.ok(printedTable.rows.includes('mat'), printedTable.rows.join(' '));
  // Its rows and header: on screen the spacers keep the table 300 rows tall (7,774 px printed, 9 blank pages).
  assert.ok(printedTable.height < 40 * (printedTable.rows.length + 1), `${printedTable.height} px for ${printedTable.rows.length} rows`);
  const pdf = (await page.pdf({ format: 'A4' })).toString('latin1');
  const pages = pdf.match(/\/Type\s*\/Page\b/g).length;
  assert.ok(pages <= 5, `${pages} pages`); // the table's first 24 rows (weights-table.js PRINT_ROWS), where it printed the focused one alone
  await finish();
});

test('printed, the teaching tab\'s tables far below the screen are laid out whole, not skipped as off screen', async () => {
  const words = Array.from({ length: 40 }, (_, k) => ['the', 'cat', 'sat', 'on', 'a', 'mat'][k % 6]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(words, '&focus=2&lab=whatif'));
  await ready(page);
  await settled(page);
  const tables = () => page.$$eval('#lab-whatif table', (all) => all.map((table) => ({
    id: table.id || table.className, rows: table.rows.length, laidOut: table.checkVisibility({ contentVisibilityAuto: true }),
  })));
  // On screen, the ones 2,000 px and more below it are skipped by the browser (content-visibility).
  assert.ok((await tables()).some((t) => !t.laidOut), JSON.stringify(await tables()));
  await printing(page);
  const printedTables = await tables();
  assert.ok(printedTables.length >= 3, JSON.stringify(printedTables));
  for (const t of printedTables) assert.deepEqual(t, { ...t, laidOut: true });
  await printed(page);
  await finish();
});

/** Each table's box on paper 718 px wide (A4 less its margins), and what could cut it: a scroll box or a section skipped as off screen. */
async function printedTables(page, selectors) {
  await page.setViewportSize({ width: 718, height: 1000 });
  await settled(page);
  return page.evaluate((all) => Object.fromEntries(all.map((selector) => {
    const table = document.querySelector(selector);
    const cutBy = [];
    for (let box = table.parentElement; box; box = box.parentElement) {
      const style = getComputedStyle(box);
      if (style.overflowX !== 'visible' || style.contentVisibility !== 'visible') cutBy.push(`${box.className || box.tagName}: ${style.overflowX}, ${style.contentVisibility}`);
    }
    const keys = [...table.querySelectorAll('thead th[scope="col"]')].filter((th) => th.checkVisibility()).length;
    const row = table.querySelector('tbody tr:not(.spacer)');
    return [selector, {
      fits: table.getBoundingClientRect().right <= document.documentElement.clientWidth, cutBy, keys,
      cells: [...row.cells].filter((cell) => cell.checkVisibility()).length - 1, caption: table.caption.innerText,
    }];
  })), selectors);
}

test('printed, a table as wide as the paper prints whole; a wider one prints its first keys and says so, not how to scroll it', async () => {
  const words = (n) => Array.from({ length: n }, (_, k) => ['the', 'cat', 'sat', 'on', 'a', 'mat', 'kingdom'][k % 7]).join(' ');
  // 17 words: every key of the weights, the padding mask's and What-if's comparison on the paper.
  let { page, finish } = await openPage(site.browser, site.url + hashFor(words(17), '&focus=3&lab=whatif'));
  await ready(page);
  await printing(page);
  const tables = ['#weights', '#pad-weights', '#whatif-compare'];
  for (const [selector, table] of Object.entries(await printedTables(page, tables))) {
    assert.deepEqual(table, { ...table, fits: true, cutBy: [], keys: 17, cells: 17 }, selector);
    assert.doesNotMatch(table.caption, /Printed/, selector);
  }
  await finish();
  // 40: more than the paper takes. The weights table prints its first keys, with their cells, and its caption says so.
  ({ page, finish } = await openPage(site.browser, site.url + hashFor(words(40), '&focus=3&lab=whatif')));
  await ready(page);
  assert.ok(await page.isVisible('#weights-note'));
  await printing(page);
  const paper = await printedTables(page, tables);
  for (const [selector, table] of Object.entries(paper)) assert.deepEqual(table, { ...table, fits: true, cutBy: [] }, selector);
  assert.deepEqual([paper['#weights'].keys, paper['#weights'].cells], [18, 18]);
  assert.match(paper['#weights'].caption, /Printed here: the first 18 of its 40 keys.*; Download CSV has them all\.$/);
  assert.equal(paper['#whatif-compare'].keys, 24); // the 24 keys that either row weighs most (its caption says so)
  assert.equal(await page.isVisible('#weights-note'), false, 'no "scroll the table" on paper');
  await printed(page);
  assert.doesNotMatch(await page.textContent('#weights caption'), /Printed/);
  await finish();
});

test('the printed Steps table names each key, as plain text', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, '&focus=3'));
  await ready(page);
  const { header } = await readTable(page);
  await printing(page);
  const keys = await page.$$eval('.steps-table tbody th', (cells) => cells.map((th) => {
    const word = th.querySelector('button') ?? th;
    const style = getComputedStyle(word);
    return { text: th.innerText, shown: word.checkVisibility(), underline: style.textDecorationLine, sameColour: style.color === getComputedStyle(th).color };
  }));
  assert.deepEqual(keys.map((k) => k.text), header, 'every key word printed, in order');
  for (const key of keys) assert.deepEqual(key, { ...key, shown: true, underline: 'none', sameColour: true }, `'${key.text}' printed as the row's text`);
  await finish();
});

test('in forced colours the focused word, the selected tab, the focused row, masked weights and the bars still show', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, '&focus=3&causal=1'));
  await page.emulateMedia({ forcedColors: 'active' });
  await ready(page);
  await readTable(page);
  assert.equal(await page.getAttribute('#tokens .token.focused', 'aria-pressed'), 'true');
  // As drawn: the state's fill unlike the others', and its text readable on it (not on a backplate of the page's colour).
  for (const [what, state, other] of [['chip', '#tokens .token.focused', '#tokens .token:not(.focused)'], ['tab', '.tab[aria-selected="true"]', '.tab[aria-selected="false"]']]) {
    const [shown, rest] = [await middleOf(page, state), await middleOf(page, other)];
    assert.ok(Math.abs(shown.mean - rest.mean) > 0.2, `${what}: ${shown.mean.toFixed(2)} vs ${rest.mean.toFixed(2)}`);
    assert.ok(shown.dark > 0.1 && shown.dark < 0.9, `${what}: its text and its fill both show (${(shown.dark * 100).toFixed(0)} % dark)`);
  }
  // As computed: each colour as it shows over the page's (a transparent fill is the page's colour).
  const looks = await page.evaluate(() => {
    const rgba = (css) => css.match(/[\d.]+/g).map(Number);
    const page = rgba(getComputedStyle(document.documentElement).backgroundColor);
    const over = (css) => {
      const [r, g, b, a = 1] = rgba(css);
      return [r, g, b].map((c, k) => Math.round(c * a + page[k] * (1 - a))).join(',');
    };
    const look = (selector) => {
      const s = getComputedStyle(document.querySelector(selector));
      return [over(s.backgroundColor), over(s.color), over(s.borderTopColor)].join(' / ');
    };
    return {
      row: [look('#weights tr.focused td'), look('#weights tbody tr:not(.focused) td')],
      masked: [look('#weights td.masked'), look('#weights td:not(.masked)')],
      bar: [over(getComputedStyle(document.querySelector('.steps-table .bar')).backgroundColor), page.slice(0, 3).join(',')],
    };
  });
  for (const [what, [state, other]] of Object.entries(looks)) {
    assert.notEqual(state, other, `${what}: its state looks like the rest in forced colours (${state})`);
  }
  await finish();
});

test('in forced colours the canvases take the system\'s colours, whichever theme the link picked', async () => {
  // A light high-contrast theme under the page's dark, and a dark one under its light: dark labels on black were drawn.
  for (const [scheme, theme] of [['light', 'dark'], ['dark', 'light']]) {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, `&focus=3&theme=${theme}`));
    await ready(page);
    // Switched on with the page open: it follows, as it follows the system's dark mode.
    await page.emulateMedia({ forcedColors: 'active', colorScheme: scheme });
    await settled(page);
    const paper = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor.match(/\d+/g).slice(0, 3).map(Number));
    assert.equal(luminance(paper) > 0.5, scheme === 'light', `the page's own background is the system's (rgb(${paper}))`);
    for (const [canvas, skip] of [['#heatmap', ['matrix', 'colorbar']], ['#arrows', []]]) {
      const { count, median } = await canvasInk(page, canvas, skip);
      assert.ok(count > 100, `${scheme}: ${canvas} has its labels (${count} ink pixels)`);
      const ratio = contrast(luminance(median), luminance(paper));
      assert.ok(ratio >= 4.5, `${scheme} system, theme=${theme}: ${canvas} labels in rgb(${median}) on rgb(${paper}): contrast ${ratio.toFixed(2)}`);
    }
    await finish();
  }
});

test('a window moved to a screen of twice the pixel ratio has its canvases drawn again at that ratio', async () => {
  // 1,600 px wide, the page's column is at its widest: at 1,620 and a ratio of 2 no part of the page
  // changes size, so no resize observer calls; the canvases stayed 1× bitmaps, blurred.
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(SENTENCE, '&focus=3'), { viewport: { width: 1600, height: 900 } });
  await ready(page);
  await settled(page);
  const bitmaps = () => page.$$eval('#heatmap, #heatmap-overlay, #arrows', (canvases) => canvases.map((c) => c.width / c.clientWidth));
  assert.deepEqual(await bitmaps(), [1, 1, 1]);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1620, height: 900, deviceScaleFactor: 2, mobile: false });
  await page.waitForFunction(() => devicePixelRatio === 2);
  await settled(page);
  assert.deepEqual(await bitmaps(), [2, 2, 2], 'each canvas a bitmap of 2 device pixels a CSS pixel');
  await finish();
});

test('with no word to draw, the heatmap offers no zoom', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('zzzqqq xxyyzz'));
  await page.waitForSelector('#views.empty');
  await settled(page);
  const shown = await page.$$eval('#zoom-out, #zoom-in, #zoom-reset', (buttons) => buttons.map((b) => b.checkVisibility()));
  assert.deepEqual(shown, [false, false, false]);
  await finish();
});
