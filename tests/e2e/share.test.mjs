// Share and export as a user does it: every control into a link and back in
// a fresh browser, the snippets for the view on screen, a long text's link,
// and the downloads (SVG, PNG, CSV, JSON) of the figure on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { assertClose, hashFor, hashOf, KING, KING_ROW, linkOf, openPage, readTable, ready, useSite, wholeTable } from './helpers.mjs';

const site = useSite();

/** Everything a user can set outside the teaching tabs, as the page shows it. */
async function controls(page) {
  return page.evaluate(() => ({
    scale: document.getElementById('opt-scale').checked,
    self: document.getElementById('opt-self').checked,
    causal: document.getElementById('opt-causal').checked,
    temperature: document.getElementById('temperature-value').textContent,
    palette: document.getElementById('opt-palette').value,
    theme: document.getElementById('opt-theme').value,
    threshold: document.getElementById('threshold').value,
    dark: document.documentElement.dataset.theme ?? null,
    zoom: document.getElementById('heatmap-overlay').getAttribute('aria-label').match(/zoomed to [^:]+/)?.[0] ?? null,
    tab: document.querySelector('[role="tab"][aria-selected="true"]').id,
  }));
}

test('every control goes into the link, and a fresh browser opens exactly the same page', async () => {
  const text = 'The king and queen ruled the kingdom while the prince and princess studied history in the castle library';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text));
  await ready(page);
  await page.uncheck('#opt-self');
  await page.check('#opt-causal');
  await page.locator('#opt-temperature').fill('0.301');
  await page.selectOption('#opt-palette', 'cividis');
  await page.selectOption('#opt-theme', 'dark');
  await page.locator('#threshold').fill('0.3');
  await page.click('#zoom-in');
  await page.click('#zoom-in');
  await page.click('#tokens button.token >> nth=3');
  await page.click('#tab-whatif');
  const before = { controls: await controls(page), table: await wholeTable(page) };
  assert.equal(before.controls.dark, 'dark');
  assert.ok(before.controls.zoom, 'zoomed in');
  const link = await linkOf(page);
  await finish();
  const fresh = await openPage(site.browser, link);
  await ready(fresh.page);
  assert.deepEqual(await controls(fresh.page), before.controls);
  assert.deepEqual(await wholeTable(fresh.page), before.table);
  assert.equal(before.table.rows.length, 18, 'every row, in the same order');
  assert.deepEqual(Object.keys(await hashOf(fresh.page)), ['s', 'self', 'causal', 'scale', 't', 'focus', 'th', 'pal', 'theme', 'zoom', 'lab']);
  await fresh.finish();
});

test('the Share panel offers the link and both snippets for the view on screen', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=heads&h=10'));
  await ready(page);
  // The tab draws after the first paint, and moves what is below it: click
  // the Share button where a user sees it, once the tab is drawn.
  await page.waitForSelector('#heads-weights tbody tr');
  await page.click('#share-open');
  await page.waitForSelector('#share-panel:not([hidden])');
  assert.equal(await page.inputValue('#share-view'), 'heads', 'the open tab is what is on screen');
  const iframe = await page.inputValue('#share-iframe');
  const src = iframe.match(/<iframe src="([^"]+)"/)[1].replace(/&amp;/g, '&');
  assert.ok(src.startsWith(`${site.url}embed.html#s=The%20king`), src);
  const keys = new URLSearchParams(src.split('#')[1]);
  assert.deepEqual([keys.get('view'), keys.get('h'), keys.get('focus')], ['heads', '10', '1']);
  assert.match(iframe, new RegExp(`e\\.origin !== '${new URL(site.url).origin}'`), 'the lines accept the widget’s own origin only');
  const element = await page.inputValue('#share-element');
  assert.match(element, new RegExp(`<script src="${site.url}attention-viz\\.js" defer></script>`));
  const tag = element.match(/<attention-viz ([^>]*)>/)[1];
  assert.equal(tag, 'sentence="The king and queen ruled the kingdom" focus="1" view="heads" lab="heads" h="10"', 'only what differs from the defaults');
  assert.match(element, /<a href="[^"]+">The king and queen ruled the kingdom — in Attention Explorer<\/a><\/attention-viz>/, 'fallback content');
  assert.equal(await page.inputValue('#share-link'), await page.evaluate(() => location.href.replace(/\/(#|$)/, '/index.html$1')));
  await page.selectOption('#share-view', 'arrows');
  assert.match(await page.inputValue('#share-iframe'), /view=arrows/);
  // Escape from within closes the panel and gives its button the focus; the tab stays.
  await page.focus('#share-iframe');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#share-panel[hidden]', { state: 'attached' });
  assert.equal(await page.getAttribute('#share-open', 'aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'share-open');
  assert.equal(await page.getAttribute('#tab-heads', 'aria-selected'), 'true');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#share-panel:not([hidden])');
  assert.equal(await page.inputValue('#share-view'), 'heads', 'opened again: the view on screen');
  await finish();
});

test('a long text makes a long link, and the panel says why', async () => {
  const long = Array.from({ length: 400 }, (_, i) => ['king', 'queen', 'ruled', 'kingdom', 'castle'][i % 5]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(long));
  await ready(page);
  await page.click('#share-open');
  const note = await page.textContent('#share-long');
  assert.match(note, /This link is [\d,]+ characters long because it carries the whole text/);
  assert.ok(!(await page.isHidden('#share-long')));
  await finish();
});

test('the embed snippet’s link text never ends in half an emoji, nor in part of one', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(`${'a'.repeat(79)}😀 king and queen`));
  await ready(page);
  await page.click('#share-open');
  await page.waitForSelector('#share-panel:not([hidden])');
  const element = await page.inputValue('#share-element');
  assert.equal(element.match(/">([^<]*) — in Attention Explorer<\/a><\/attention-viz>/)?.[1], 'a'.repeat(79), 'the emoji left out whole');
  // A skin tone and a family joined by U+200D are one character each: kept whole or left out.
  const fallbacks = await page.evaluate(async (sentences) => {
    const { snippets } = await import('./src/js/views/share.js');
    const { parseHash } = await import('./src/js/state.js');
    return sentences.map((s) => snippets({ ...parseHash(''), sentence: s }, 'main', location.href).element.match(/">([^<]*) — in/)[1]);
  }, [`${'a'.repeat(78)}👍🏽 king`, `${'a'.repeat(76)}👩‍👩‍👧 king`, `${'a'.repeat(76)}👍🏽 king`]);
  assert.deepEqual(fallbacks, ['a'.repeat(78), 'a'.repeat(76), `${'a'.repeat(76)}👍🏽`]);
  await finish();
});

/** Downloads what `button` makes for the figure `figure`; returns its bytes. */
async function downloaded(page, figure, button) {
  await page.selectOption('#export-figure', figure);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

test('downloads: the SVG holds one cell per weight and the caption; PNG, CSV and JSON hold the same', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&scale=0&t=2'));
  await ready(page);
  const table = await readTable(page);
  const svg = await downloaded(page, 'main', '#export-svg');
  assert.equal(svg.name, 'attention-the-king-and-queen-ruled-the-kingdom.svg');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      cells: [...doc.querySelectorAll('g.cells rect')].map((r) => r.getAttribute('data-weight')),
      title: doc.querySelector('title').textContent,
      caption: doc.querySelector('desc').textContent,
      gradient: [doc.querySelector('linearGradient').id, doc.querySelector('g.legend rect').getAttribute('fill')],
    };
  }, svg.bytes.toString('utf8'));
  assert.equal(parsed.error, null);
  assert.deepEqual(parsed.gradient, ['attention-explorer-viridis', 'url(#attention-explorer-viridis)'], 'an id that two inline figures cannot confuse');
  assert.equal(parsed.cells.length, 49, 'one cell per weight');
  assert.deepEqual(parsed.cells.slice(7, 14), table.rows[1].cells, "the 'king' row");
  assert.equal(parsed.title, KING);
  assert.match(parsed.caption, /GloVe 6B 50d · unscaled scores · temperature 2 · a word may attend to itself · no causal mask/);
  const png = await downloaded(page, 'main', '#export-png');
  assert.deepEqual([...png.bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join(''), 'PNG');
  const width = png.bytes.readUInt32BE(16);
  assert.ok(width >= 900, `drawn at twice the screen's resolution: ${width} px wide`);
  // Tagged as such (192 pixels an inch: 7,559 a metre), with its checksum, so that a slide places it at its size on screen.
  const chunks = [];
  for (let at = 8; at < png.bytes.length;) {
    const length = png.bytes.readUInt32BE(at);
    const chunk = png.bytes.subarray(at + 4, at + 8 + length);
    assert.equal(png.bytes.readUInt32BE(at + 8 + length), crc32(chunk), 'every chunk’s checksum holds');
    chunks.push([chunk.subarray(0, 4).toString(), chunk.subarray(4)]);
    at += 12 + length;
  }
  assert.deepEqual([chunks[0][0], chunks[1][0], chunks.at(-1)[0]], ['IHDR', 'pHYs', 'IEND']);
  const phys = chunks[1][1];
  assert.deepEqual([phys.readUInt32BE(0), phys.readUInt32BE(4), phys[8]], [7559, 7559, 1]);
  const csv = (await downloaded(page, 'main', '#export-csv')).bytes.toString('utf8').trim().split('\r\n');
  assert.equal(csv[0], '"query \\ key","the","king","and","queen","ruled","the","kingdom"');
  assert.deepEqual(csv[2].split(',').slice(1).map((v) => Number(v).toFixed(4)), table.rows[1].cells);
  const json = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.deepEqual(json.weights[1].map((w) => w.toFixed(4)), table.rows[1].cells);
  assert.match(json.caption, /unscaled scores/);
  await finish();
});

test('the arrows download as drawn: the focused word’s curves, labels and weights in SVG, PNG, CSV and JSON', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  await page.focus('#export-figure');
  assert.equal(await page.textContent('#export-figure option[value="arrows"]'), 'the arrows from “king”');
  const svg = await downloaded(page, 'arrows', '#export-svg');
  assert.equal(svg.name, 'attention-the-king-and-queen-ruled-the-kingdom-arrows-king.svg');
  const drawn = (text) => page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    const texts = (side) => [...doc.querySelectorAll(`g.arrows text${side}`)].map((t) => t.textContent.replace(/[\u2066-\u2069]/g, ''));
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      title: doc.querySelector('title').textContent,
      caption: doc.querySelector('desc').textContent,
      queries: texts('[text-anchor="end"]'),
      keys: texts(':not([text-anchor])'),
      bold: [...doc.querySelectorAll('g.arrows text[font-weight="bold"]')].map((t) => t.textContent),
      curves: [...doc.querySelectorAll('g.arrows path')].map((p) => p.getAttribute('d').split('M').length - 1).reduce((a, b) => a + b, 0),
    };
  }, text);
  const parsed = await drawn(svg.bytes.toString('utf8'));
  assert.equal(parsed.error, null);
  assert.equal(parsed.title, KING);
  assert.match(parsed.caption, /^GloVe 6B 50d · scores ÷ √50 · .* · arrows from 'king' \(word 2\), links under 10 % of the strongest hidden$/);
  assert.deepEqual(parsed.queries, ['query', 'the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  // Every key with its weight, the widest too (its column once cut it to 'kingd… 0.15').
  assert.deepEqual(parsed.keys, ['key', 'the 0.06', 'king 0.44', 'and 0.05', 'queen 0.16', 'ruled 0.06', 'the 0.06', 'kingdom 0.15']);
  assert.deepEqual(parsed.bold, ['king']);
  assert.equal(parsed.curves, 7, "every weight of 'king' is above 10 % of its strongest (0.0489 ≥ 0.0443)");
  const png = await downloaded(page, 'arrows', '#export-png');
  assert.equal(png.name, 'attention-the-king-and-queen-ruled-the-kingdom-arrows-king.png');
  assert.equal(png.bytes.subarray(1, 4).toString(), 'PNG');
  assert.ok(png.bytes.readUInt32BE(16) >= 1200, `drawn at twice the screen's resolution: ${png.bytes.readUInt32BE(16)} px wide`);
  const csv = (await downloaded(page, 'arrows', '#export-csv')).bytes.toString('utf8').trim().split('\r\n');
  assert.equal(csv.length, 2, 'the header and the focused query');
  assert.deepEqual(csv[1].split(',').slice(1).map((v) => Number(v).toFixed(4)), KING_ROW.map((w) => w.toFixed(4)));
  const json = JSON.parse((await downloaded(page, 'arrows', '#export-json')).bytes.toString('utf8'));
  assert.deepEqual(json.queries, ['king']);
  assert.equal(json.weights[0][2].toFixed(4), '0.0489', 'the tutorial’s king → and');
  // No focus: every word's links above 10 % of the strongest weight, and every row in the CSV.
  await page.keyboard.press('Escape');
  await page.locator('#heatmap-overlay').press('Escape');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  await page.focus('#export-figure');
  assert.equal(await page.textContent('#export-figure option[value="arrows"]'), 'the arrows (every word)');
  const every = await drawn((await downloaded(page, 'arrows', '#export-svg')).bytes.toString('utf8'));
  assert.match(every.caption, /arrows from every word, links under 10 % of the strongest hidden$/);
  assert.deepEqual(every.bold, []);
  assert.ok(every.curves > 7, `${every.curves} curves`);
  assert.equal((await downloaded(page, 'arrows', '#export-csv')).bytes.toString('utf8').trim().split('\r\n').length, 8);
  await finish();
});

/**
 * In the page: an SVG download's focus as drawn, { outlines (rects stroked
 * in `accent`, outside the cells and the legend), cells (the cell rects'
 * x, y, width), desc }.
 */
function svgFocus(page, text, accent) {
  return page.evaluate(([source, colour]) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    const box = (r) => ['x', 'y', 'width', 'height'].map((name) => Number(r.getAttribute(name)));
    const outside = [...doc.querySelectorAll('rect')].filter((r) => !r.closest('g.cells, g.legend'));
    return {
      outlines: outside.filter((r) => r.getAttribute('stroke')?.toLowerCase() === colour).map(box),
      cells: [...doc.querySelectorAll('g.cells rect')].map(box),
      desc: doc.querySelector('desc').textContent,
      caption: [...doc.querySelectorAll('text.caption')].map((t) => t.textContent).join(' '),
    };
  }, [text, accent]);
}

/** The pixels of PNG `bytes`, decoded by the page: { width, height, data (RGBA bytes) }. */
async function pngPixels(page, bytes) {
  const { width, height, base64 } = await page.evaluate(async (png) => {
    // From its bytes, not a data: address, which the page's content policy does not fetch.
    const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(png), (c) => c.charCodeAt(0))]));
    const draw = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d');
    draw.drawImage(bitmap, 0, 0);
    const data = draw.getImageData(0, 0, bitmap.width, bitmap.height).data;
    let binary = '';
    for (let k = 0; k < data.length; k += 0x8000) binary += String.fromCharCode(...data.subarray(k, k + 0x8000));
    return { width: bitmap.width, height: bitmap.height, base64: btoa(binary) };
  }, bytes.toString('base64'));
  return { width, height, data: Buffer.from(base64, 'base64') };
}

test('a PNG is encoded in a worker at once, and by the page when the worker cannot load: the same pixels either way', async () => {
  const pictures = [];
  for (const worker of ['there', 'missing']) {
    const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=2'), {
      allow: [/status of 404/],
      routes: worker === 'missing' ? [['**/png-worker.js', (route) => route.fulfill({ status: 404, body: 'not found' })]] : [],
    });
    await ready(page);
    const asked = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    const png = (await downloaded(page, 'main', '#export-png')).bytes;
    // The pixel density written into it (a pHYs chunk): 2 pixels a CSS pixel, 192 dpi.
    assert.ok(png.includes(Buffer.from('pHYs')), 'the PNG says its resolution');
    assert.deepEqual(asked.filter((file) => file.endsWith('worker.js')), ['/js/png-worker.js'], 'the worker was asked for, once');
    // A second picture, after the worker's failure, is made by the page at once.
    if (worker === 'missing') assert.deepEqual(await pngPixels(page, (await downloaded(page, 'main', '#export-png')).bytes), await pngPixels(page, png));
    pictures.push(await pngPixels(page, png));
    await finish();
  }
  assert.ok(pictures[0].width > 300, `${pictures[0].width} px wide`);
  assert.deepEqual([pictures[1].width, pictures[1].height], [pictures[0].width, pictures[0].height]);
  assert.ok(pictures[0].data.equals(pictures[1].data), 'the same pixels from the worker and from the canvas');
});

test('the heatmap’s picture shows the focused row as the screen does: its band and outline in SVG and PNG, its word in the caption', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&causal=1&focus=1'));
  await ready(page);
  const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim().toLowerCase());
  const svg = await svgFocus(page, (await downloaded(page, 'main', '#export-svg')).bytes.toString('utf8'), accent);
  assert.equal(svg.cells.length, 49);
  // The 'king' row: cells 7 to 13, outlined around them, a pixel out, as on screen.
  const [x, y, cell] = svg.cells[7];
  assert.equal(svg.outlines.length, 1, 'one outline, the focused row’s');
  const [ox, oy, ow, oh] = svg.outlines[0];
  // A pixel out around the row: from the first key to the last, one row tall.
  assertClose([ox, oy, ow, oh], [x - 1, y - 1, 7 * cell + 2, cell + 2], 0.01);
  assert.match(svg.desc, /causal mask · focused query 'king' \(word 2\)$/);
  assert.match(svg.caption, /focused query 'king' \(word 2\)$/, 'the caption drawn names it too');
  const json = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.doesNotMatch(json.caption, /focus/, 'the data’s caption says what made the weights, as before');
  const focused = await pngPixels(page, (await downloaded(page, 'main', '#export-png')).bytes);
  // The outline in the PNG: pixels of the accent colour, around one row of the matrix.
  const rgb = accent.match(/[0-9a-f]{2}/g).map((h) => parseInt(h, 16));
  const isAccent = (data, k) => rgb.every((c, m) => Math.abs(data[k + m] - c) <= 3);
  let [top, bottom, left, right] = [Infinity, -1, Infinity, -1];
  for (let k = 0; k < focused.data.length; k += 4) {
    if (!isAccent(focused.data, k)) continue;
    const [px, py] = [(k / 4) % focused.width, Math.floor(k / 4 / focused.width)];
    [top, bottom, left, right] = [Math.min(top, py), Math.max(bottom, py), Math.min(left, px), Math.max(right, px)];
  }
  assert.ok(bottom > 0, 'the PNG has the outline colour');
  // Square cells: seven columns across the outline make a row as tall as one of them.
  const rowHeight = (right - left) / 7;
  assert.ok(Math.abs(bottom - top - rowHeight) < 0.1 * rowHeight, `outlined ${bottom - top} px tall, a row is ${rowHeight.toFixed(1)}`);
  // Above the outline, inside the first column: one row of cells ('the'), then the background.
  const pixel = (image, px, py) => image.data.slice((py * image.width + px) * 4, (py * image.width + px) * 4 + 3).join();
  const background = pixel(focused, 2, 2);
  let above = top - 1;
  while (above > 0 && pixel(focused, left + 10, above) !== background) above--;
  assert.ok(Math.abs(top - above - rowHeight) < 0.15 * rowHeight, `the outline is on the second row: ${top - above} px below the matrix's top, a row is ${rowHeight.toFixed(1)}`);
  // Without the focus, the same picture has no band nor outline there.
  await page.locator('#heatmap-overlay').press('Escape');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  const plain = await pngPixels(page, (await downloaded(page, 'main', '#export-png')).bytes);
  const fromBottom = plain.height - focused.height; // the caption may take another line; the matrix sits at the bottom
  let differ = 0;
  for (let py = top; py <= bottom; py++) if (pixel(plain, left + 10, py + fromBottom) !== pixel(focused, left + 10, py)) differ++;
  assert.ok(differ > 0, 'the focused row differs from the same export without focus');
  let accents = 0;
  for (let k = 0; k < plain.data.length; k += 4) if (isAccent(plain.data, k)) accents++;
  assert.equal(accents, 0, 'no outline without focus');
  const none = await svgFocus(page, (await downloaded(page, 'main', '#export-svg')).bytes.toString('utf8'), accent);
  assert.deepEqual(none.outlines, []);
  assert.doesNotMatch(none.desc, /focus/);
  await finish();
});

test('a teaching view’s picture is downloaded on the colour scale it is drawn with', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=whatif'));
  await ready(page);
  await page.waitForSelector('#whatif-compare tbody tr');
  await page.focus('#export-figure');
  const options = await page.$$eval('#export-figure option', (list) => list.map((o) => o.value));
  assert.ok(options.includes('main') && options.includes('panel-Scaled') && options.includes('panel-Unscaled'), options.join());
  const json = JSON.parse((await downloaded(page, 'panel-Unscaled', '#export-json')).bytes.toString('utf8'));
  assert.match(json.caption, /^Unscaled: .*the same colour scale/);
  assert.ok(json.weights[1][1] > 0.99, 'unscaled, king looks at itself');
  await finish();
});

test('the context vectors download as CSV and JSON, a row a word and a column a dimension; a picture of them is refused, and said why', async () => {
  // Causal: the first word attends only to itself (weight 1), so its context vector is its own GloVe vector.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&causal=1&lab=meaning'));
  await ready(page);
  await page.waitForSelector('#meaning-table:not([aria-busy]) tbody tr');
  await page.focus('#export-figure');
  const options = await page.$$eval('#export-figure option', (list) => list.map((o) => [o.value, o.textContent]));
  assert.ok(options.some(([id, name]) => id === 'meaning' && name === 'the context vectors'), JSON.stringify(options));
  const csv = await downloaded(page, 'meaning', '#export-csv');
  assert.equal(csv.name, 'attention-the-king-and-queen-ruled-the-kingdom-context-vectors.csv');
  const lines = csv.bytes.toString('utf8').split('\r\n').filter(Boolean).map((line) => line.split(','));
  assert.deepEqual(lines[0], ['"word \\ dimension"', ...Array.from({ length: 50 }, (_, k) => `"d${k + 1}"`)]);
  assert.deepEqual(lines.slice(1).map((line) => line[0]), ['"the"', '"king"', '"and"', '"queen"', '"ruled"', '"the"', '"kingdom"']);
  assert.deepEqual(lines[1].slice(1, 6), ['0.418', '0.24968', '-0.41242', '0.1217', '0.34527'], 'GloVe’s vector of "the"');
  // "king" mixes "The" and itself by its row of weights: GloVe's king starts 0.50451, 0.68607.
  const weights = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8')).weights[1];
  const json = JSON.parse((await downloaded(page, 'meaning', '#export-json')).bytes.toString('utf8'));
  assert.deepEqual(Object.keys(json), ['kind', 'title', 'caption', 'unknown', 'words', 'dimensions', 'vectors']);
  assert.match(json.caption, /causal mask · context vectors, Σ weight × v$/);
  assert.equal(json.vectors.length, 7);
  assertClose(json.vectors[1].slice(0, 2), [weights[0] * 0.418 + weights[1] * 0.50451, weights[0] * 0.24968 + weights[1] * 0.68607], 1e-5);
  // No picture: the buttons say so, and a click says why.
  assert.equal(await page.getAttribute('#export-png', 'aria-disabled'), 'true');
  assert.equal(await page.getAttribute('#export-svg', 'aria-disabled'), 'true');
  assert.equal(await page.getAttribute('#export-csv', 'aria-disabled'), null);
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.click('#export-png', { force: true }); // aria-disabled: Playwright waits for it to be enabled, a user can click
  await page.waitForFunction(() => document.getElementById('share-status').textContent.startsWith('No PNG'));
  assert.equal(await page.textContent('#share-status'), 'No PNG is made of the context vectors: its numbers are negative and positive, and the heatmap’s colours run from 0 up. Download the CSV or JSON.');
  await page.selectOption('#export-figure', 'main');
  assert.equal(await page.getAttribute('#export-png', 'aria-disabled'), null);
  assert.equal(downloads, 0);
  await finish();
});

test('with a trained-model head open, the download holds the model’s weights, not GloVe’s', async () => {
  const cat = 'The cat sat on the mat because it was tired';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(cat, '&model=1&mlayer=5&mhead=11'));
  await ready(page);
  await page.waitForSelector('#model-view[data-state="ready"][data-head="5:11"]', { timeout: 90000 });
  await page.focus('#export-figure');
  const json = JSON.parse((await downloaded(page, 'model-head', '#export-json')).bytes.toString('utf8'));
  assert.equal(json.kind, 'model');
  assert.match(json.caption, /all-MiniLM-L6-v2 · layer 5, head 11 · word pieces · with \[CLS\] and \[SEP\]/);
  assert.deepEqual(json.queries.slice(0, 3), ['[CLS]', 'the', 'cat']);
  assert.equal(json.weights[8][2].toFixed(4), '0.6825', "'it' → 'cat' in layer 5, head 11");
  const glove = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.equal(glove.kind, 'glove');
  assert.equal(glove.queries[0], 'the');
  // The open head's arrows, from every piece (nothing focused): the model's rows, its pieces on the SVG.
  const arrows = JSON.parse((await downloaded(page, 'model-arrows', '#export-json')).bytes.toString('utf8'));
  assert.match(arrows.caption, /layer 5, head 11 .* · arrows from every word, links under 10 % of the strongest hidden$/);
  assert.equal(arrows.weights[8][2].toFixed(4), '0.6825');
  const svg = await downloaded(page, 'model-arrows', '#export-svg');
  assert.equal(svg.name, 'attention-the-cat-sat-on-the-mat-because-it-was-minilm-layer-5-head-11-arrows.svg');
  const words = await page.evaluate((text) => [...new DOMParser().parseFromString(text, 'image/svg+xml').querySelectorAll('g.arrows text[text-anchor="end"]')].map((t) => t.textContent), svg.bytes.toString('utf8'));
  assert.deepEqual(words.slice(0, 4), ['query', '[CLS]', 'the', 'cat']);
  // From 'it' (piece 8), the name says so, as the GloVe arrows' name does ('…-arrows-king.svg').
  await page.evaluate((hash) => { location.hash = hash; }, hashFor(cat, '&model=1&mlayer=5&mhead=11&mfocus=8'));
  await page.waitForSelector('#model-view[data-state="ready"][data-head="5:11"]');
  const fromIt = await downloaded(page, 'model-arrows', '#export-svg');
  assert.equal(fromIt.name, 'attention-the-cat-sat-on-the-mat-because-it-was-minilm-layer-5-head-11-arrows-it.svg');
  await finish();
});

test('the element snippet opens the same link as the iframe snippet, each flag and its opposite', async () => {
  // The element is made for other sites' pages: its inline style is refused by this page's own policy, which matters not here.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), { allow: [/Content Security Policy|CSP violation: style-src/] });
  await ready(page);
  const pairs = await page.evaluate(async (hashes) => {
    const { snippets } = await import('./src/js/views/share.js');
    const { parseHash } = await import('./src/js/state.js');
    await new Promise((resolve, reject) => document.head.append(Object.assign(document.createElement('script'), { src: 'attention-viz.js', onload: resolve, onerror: reject })));
    const holder = Object.assign(document.createElement('div'), { hidden: true }); // its iframes never load
    document.body.append(holder);
    return hashes.map((hash) => {
      const state = parseHash(hash);
      const { iframe, element } = snippets(state, state.model ? 'head' : 'main', new URL('.', location.href).href);
      holder.replaceChildren(document.createRange().createContextualFragment(element.split('\n')[1]));
      const fromElement = new URL(holder.querySelector('attention-viz iframe').src).hash;
      const fromIframe = new URL(iframe.match(/<iframe src="([^"]+)"/)[1].replace(/&amp;/g, '&')).hash;
      return [JSON.stringify(parseHash(fromElement)), JSON.stringify(parseHash(fromIframe))];
    });
  }, [
    '#s=a%20b&self=0&causal=1&scale=0&t=2&pal=greys',
    '#s=a%20b&model=1&mlayer=3&mhead=2&units=words&special=0',
    '#s=a%20b&model=1&special=1',
  ]);
  for (const [element, iframe] of pairs) assert.equal(element, iframe);
  assert.match(pairs[1][0], /"special":false/);
  await finish();
});

test('a download is what is drawn: its text and settings while new words load, a control character, letters of any script, your own vectors', async () => {
  let release = null; // holds back the shards of the next text while set
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king%01 and queen'.replace('%01', '\u0001')), {
    routes: [['**/*.aews', async (route) => { await release?.promise; await route.continue(); }]],
  });
  await ready(page);
  const svg = await downloaded(page, 'main', '#export-svg');
  assert.equal(svg.name, 'attention-the-king-and-queen.svg');
  assert.equal(await page.evaluate((text) => new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('parsererror')?.textContent ?? null, svg.bytes.toString('utf8')), null, 'the SVG is well-formed XML');
  assert.match(svg.bytes.toString('utf8'), /<title>The king\uFFFD and queen<\/title>/);
  // New words on their way, and the causal mask ticked: the screen still shows the last analysis.
  release = {};
  release.promise = new Promise((resolve) => { release.resolve = resolve; });
  await page.fill('#sentence', 'Zebras gallop across savanna grasslands');
  await page.check('#opt-causal');
  await page.waitForSelector('#tokens .token.pending');
  const json = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.equal(json.title, 'The king\u0001 and queen');
  assert.deepEqual(json.queries, ['the', 'king', 'and', 'queen']);
  assert.match(json.caption, /no causal mask/);
  release.resolve();
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].some((th) => th.textContent === 'zebras'));
  const drawn = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.equal(drawn.title, 'Zebras gallop across savanna grasslands');
  assert.match(drawn.caption, /· causal mask/);
  assert.equal(drawn.weights[0][1], null, 'masked above the diagonal');
  release = null;
  await page.fill('#sentence', 'Le café est chaud');
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].some((th) => th.textContent === 'café'));
  assert.equal((await downloaded(page, 'main', '#export-csv')).name, 'attention-le-café-est-chaud.csv');
  await page.setInputFiles('#vectors-file', { name: 'tiny.vec', mimeType: 'text/plain', buffer: Buffer.from('3 3\nle 1 0 0\ncafé 0 1 0\nest 0 0 1\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'));
  const own = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.match(own.caption, /^your own vectors \(tiny\.vec, 3d\) · scores ÷ √3/);
  await page.focus('#export-figure');
  assert.equal(await page.textContent('#export-figure option[value="main"]'), 'the heatmap (your own vectors)');
  await finish();
});

test('a picture’s title is cut between characters, never in an emoji', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(`${'a'.repeat(119)}😀 king`));
  await ready(page);
  const { svgOf } = await import('../../www/js/figure.js');
  const theme = { bg: '#fff', fg: '#000', muted: '#666', hatch: '#999' };
  const table = Array.from({ length: 768 }, (_, k) => k % 256);
  const titleOf = (svg) => [...svg.matchAll(/<text[^>]*font-weight="bold"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  // Wherever the line ends, an emoji (two UTF-16 units, or several joined) is drawn whole or not at all.
  for (let k = 55; k < 66; k++) {
    const title = `${'a'.repeat(k)}😀👩‍👩‍👧🇫🇷 ${'b'.repeat(70)} king`;
    const lines = titleOf(svgOf({ kind: 'glove', title, caption: 'c', rows: 1, cols: 1, rowLabels: ['king'], colLabels: ['king'], weights: new Float32Array([1]), masked: null, scaleMax: 1, palette: 'viridis' }, { table, theme, cellsUrl: () => '' }));
    assert.equal(lines.length, 2, 'two lines at most');
    assert.ok(lines.every((line) => !line.includes('\uFFFD')), lines.join(' / '));
    assert.ok(title.startsWith(lines.join('').replace(/…$/, '').replace(/ /g, '')) || title.replace(/ /g, '').startsWith(lines.join('').replace(/…$/, '')), lines.join(' / '));
  }
  // The page's own download: the title in the same lines.
  const svg = await downloaded(page, 'main', '#export-svg');
  const lines = titleOf(svg.bytes.toString('utf8'));
  assert.equal(lines[0], 'a'.repeat(lines[0].length), 'the long word cut to the line');
  assert.ok(lines.every((line) => !line.includes('\uFFFD')));
  await finish();
});

/** The lines of text of an SVG figure: its title, its caption, and its width. */
function svgText(bytes) {
  const svg = bytes.toString('utf8');
  return {
    width: Number(svg.match(/<svg [^>]*width="(\d+)"/)[1]),
    title: [...svg.matchAll(/<text[^>]*font-weight="bold"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]),
    caption: [...svg.matchAll(/<text[^>]*class="caption"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]),
    desc: svg.match(/<desc>([^<]*)<\/desc>/)[1],
  };
}

test('a download says what it is: its caption whole on the picture, the words left out, a file name for each figure', async () => {
  const text = 'The zzqxv cat sat on the mat because it was tired of the long day';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text, '&self=0&causal=1&t=0.5&theme=dark&lab=whatif'));
  await ready(page);
  await page.waitForSelector('#whatif-compare tbody tr');
  await page.focus('#export-figure');
  // The caption, wrapped to the figure's width, is all there: the causal mask too.
  const svg = await downloaded(page, 'main', '#export-svg');
  assert.equal(svg.name, 'attention-the-zzqxv-cat-sat-on-the-mat-because-it.svg', 'cut after a whole word');
  const drawn = svgText(svg.bytes);
  assert.ok(drawn.caption.length > 1, `wrapped: ${drawn.caption.join(' / ')}`);
  assert.equal(drawn.caption.join(' · '), drawn.desc.replace(/&apos;|&#39;/g, "'"));
  assert.match(drawn.desc, /temperature 0\.5 · no attention to itself · causal mask · left out \(no vector\): 'zzqxv'$/);
  const json = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  assert.deepEqual(json.unknown, ['zzqxv']);
  assert.equal(json.queries.length, 14, 'the 15 words but the unknown one');
  // Each figure of the tab has its own name: the unscaled matrix does not overwrite the scaled one.
  const names = [];
  for (const figure of ['main', 'panel-Scaled', 'panel-Unscaled']) names.push((await downloaded(page, figure, '#export-csv')).name);
  assert.deepEqual(names, [
    'attention-the-zzqxv-cat-sat-on-the-mat-because-it.csv',
    'attention-the-zzqxv-cat-sat-on-the-mat-because-it-scaled.csv',
    'attention-the-zzqxv-cat-sat-on-the-mat-because-it-unscaled.csv',
  ]);
  // The dark picture is dark under its matrix too (it was transparent there, its pale labels unreadable on white).
  const png = await downloaded(page, 'main', '#export-png');
  const pixels = await page.evaluate(async (base64) => {
    const image = Object.assign(new Image(), { src: `data:image/png;base64,${base64}` }); // the page's policy allows data: images, not fetches
    await image.decode();
    const canvas = new OffscreenCanvas(image.width, image.height);
    const draw = canvas.getContext('2d');
    draw.drawImage(image, 0, 0);
    const data = draw.getImageData(0, 0, image.width, image.height).data;
    let transparent = 0;
    for (let k = 3; k < data.length; k += 4) if (data[k] < 255) transparent += 1;
    return { transparent, corner: [...draw.getImageData(image.width - 2, image.height - 2, 1, 1).data] };
  }, png.bytes.toString('base64'));
  assert.equal(pixels.transparent, 0, 'every pixel opaque');
  assert.ok(pixels.corner.slice(0, 3).every((c) => c < 80), `a dark background: ${pixels.corner}`);
  await finish();
});

test('zoomed in, the part on screen is a figure of its own, beside the whole matrix', async () => {
  const words = ['the', 'king', 'and', 'queen', 'ruled', 'kingdom', 'while', 'people', 'of', 'city'];
  const text = Array.from({ length: 200 }, (_, k) => words[k % words.length]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(text, '&zoom=10,20,12'));
  await ready(page);
  await page.focus('#export-figure');
  assert.equal(await page.textContent('#export-figure option[value="main-zoomed"]'), 'the heatmap’s zoomed part (rows 11–22, columns 21–32 of 200)');
  const whole = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  const file = await downloaded(page, 'main-zoomed', '#export-json');
  assert.equal(file.name, 'attention-the-king-and-queen-ruled-kingdom-while-rows-11-22-columns-21-32.json');
  const part = JSON.parse(file.bytes.toString('utf8'));
  assert.deepEqual([part.queries.length, part.keys.length], [12, 12]);
  assert.deepEqual(part.queries, whole.queries.slice(10, 22));
  assert.deepEqual(part.weights[3], whole.weights[13].slice(20, 32), 'row 14, columns 21 to 32');
  assert.match(part.caption, / · rows 11–22, columns 21–32 of 200$/);
  await finish();
});

test('CSV and JSON keep tiny weights, in the digits the CLI writes them', async () => {
  // Unscaled at temperature 0.1 most weights are far below 1e-6: six decimals made them 0.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&scale=0&t=0.1'));
  await ready(page);
  const json = JSON.parse((await downloaded(page, 'main', '#export-json')).bytes.toString('utf8'));
  // attention --no-scale --temperature 0.1 --json "The king and queen ruled the kingdom", rows 'the' and 'king'.
  assert.deepEqual(json.weights.slice(0, 2), [
    [0.5, 7.413e-42, 2.1248327e-24, 0, 1.22e-43, 0.5, 1.9786933e-37],
    [0, 1, 0, 3.6865438e-31, 0, 0, 9.604892e-34],
  ]);
  const csv = (await downloaded(page, 'main', '#export-csv')).bytes.toString('utf8').split('\r\n');
  assert.equal(csv[1], '"the",0.5,7.413e-42,2.1248327e-24,0,1.22e-43,0.5,1.9786933e-37');
  await finish();
});

test('the playground’s download is titled and filled with its own matrices, not the sentence', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&lab=play&pq=1%200%3B0%201&pk=1%200%3B0%201&pv=2%203%3B4%205&pn=x%20y'));
  await ready(page);
  await page.waitForSelector('#play-weights tbody tr');
  await page.focus('#export-figure');
  const file = await downloaded(page, 'panel-play-weights', '#export-json');
  assert.equal(file.name, 'attention-matrix-playground-q-k-and-v-as-typed-playground.json');
  const json = JSON.parse(file.bytes.toString('utf8'));
  assert.equal(json.title, 'Matrix playground: Q, K and V as typed');
  assert.deepEqual([json.inputs.q, json.inputs.k, json.inputs.v, json.inputs.names], ['1 0;0 1', '1 0;0 1', '2 3;4 5', 'x y']);
  assert.deepEqual(json.queries, ['x', 'y']);
  await finish();
});

test('a file name ends in a letter, not in an emoji’s invisible part', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('👩‍👩‍👧 king and 🇫🇷 queen ❤️'));
  await ready(page);
  assert.equal((await downloaded(page, 'main', '#export-csv')).name, 'attention-king-and-queen.csv', 'no U+FE0F, no "-" at the end');
  await finish();
});

test('printed, the page keeps its figures and numbers within the paper and leaves out its controls', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  await page.emulateMedia({ media: 'print' });
  const printed = await page.evaluate(() => ({
    controls: ['#copy-link', '#share-open', '#export-png', '#token-find'].filter((s) => document.querySelector(s).checkVisibility()),
    canvases: [...document.querySelectorAll('#heatmap, #heatmap-overlay, #arrows')].map((c) => getComputedStyle(c).maxWidth),
    table: getComputedStyle(document.querySelector('.weights-section .table-scroll')).maxHeight,
    chips: document.querySelector('#tokens .token').checkVisibility(),
  }));
  assert.deepEqual(printed, { controls: [], canvases: ['100%', '100%', '100%'], table: 'none', chips: true });
  const pdf = await page.pdf({ format: 'A4' });
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  await finish();
});

test('an SVG of a long text keeps its labels, as tall as its cells, to be read zoomed in', async () => {
  const { svgOf } = await import('../../www/js/figure.js');
  const theme = { bg: '#fff', fg: '#000', muted: '#666', hatch: '#999' };
  const table = Array.from({ length: 768 }, (_, k) => k % 256);
  const svgFor = (n) => {
    const labels = Array.from({ length: n }, (_, k) => `word${k}`);
    return svgOf({
      kind: 'glove', title: 't', caption: 'c', rows: n, cols: n, rowLabels: labels, colLabels: labels,
      weights: new Float32Array(n * n).fill(1 / n), masked: null, scaleMax: 1, palette: 'viridis',
    }, { table, theme, cellsUrl: () => 'data:image/png;base64,' });
  };
  const labelsOf = (svg) => {
    const group = svg.match(/<g class="labels"[^>]*>([\s\S]*?)<\/g>/);
    return { attributes: group[0].slice(0, group[0].indexOf('>')), texts: [...group[1].matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]) };
  };
  const long = labelsOf(svgFor(1024));
  assert.equal(long.texts.length, 2048, 'a row and a column label for each of the 1,024 tokens');
  assert.deepEqual([long.texts[0], long.texts[1023], long.texts[1024]], ['word0', 'word1023', 'word0']);
  assert.match(long.attributes, /font-size="4"/, 'as tall as the 4 px cells');
  const short = labelsOf(svgFor(7));
  assert.equal(short.texts.length, 14);
  assert.doesNotMatch(short.attributes, /font-size/, 'the figure\'s 11 px where cells are larger');
});
