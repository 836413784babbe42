// Embeds as a blogger uses them: a post on another origin, served (like the
// widget's own site) without any CORS header, with two <attention-viz>
// widgets (one dark) from a classic script and an iframe with the snippet's
// few lines; and the same iframe in a post with no script at all.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { DIST, hashFor, KING, openPage, readTable, ready, serveDist, useSite } from './helpers.mjs';

const site = useSite();
const CAT = 'The cat sat on the mat because it was tired';
const KING_PRINTED = ['0.0647', '0.4431', '0.0489', '0.1645', '0.0629', '0.0647', '0.1512'];

let server = null;
after(() => server && new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }));

/** A blog on another origin (its own server and port, no CORS header either): the posts of `pages`, by path. */
function blog(pages) {
  server = createServer((request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    const body = pages[path];
    if (path === '/favicon.ico') {
      response.writeHead(204);
      response.end();
      return;
    }
    response.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(body ?? 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)).then(() => `http://127.0.0.1:${server.address().port}`);
}

const widgets = (url) => `<!doctype html><html><head><meta charset="utf-8"><title>My post</title>
  <script src="${url}attention-viz.js" defer></script></head>
  <body><h1>My post</h1><p>Here is attention:</p>
  <attention-viz sentence="${KING}" focus="1"><a href="${url}#s=x">See it in Attention Explorer</a></attention-viz>
  <p>And in the dark:</p>
  <attention-viz sentence="${CAT}" no-self theme="dark" palette="cividis" temperature="hot"></attention-viz>
  <p>The end.</p></body></html>`;

/** Reads a widget's table through its iframe. */
async function widgetTable(frame) {
  await frame.locator('html[data-ready="1"]').waitFor({ timeout: 15000 });
  return frame.locator('#weights').evaluate((table) => ({
    header: [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
    rows: [...table.querySelectorAll('tbody tr:not(.spacer)')].map((tr) => ({ query: tr.querySelector('th').textContent, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent), focused: tr.classList.contains('focused') })),
  }));
}

let blogOrigin = null;
/** The blog's origin, its posts made once (the snippet is the one the page offers). */
async function theBlog() {
  blogOrigin ??= blog({
    '/widgets.html': widgets(site.url),
    '/iframe.html': `<!doctype html><meta charset="utf-8"><title>Post</title><p>Before.</p>${await snippetOf()}<p>After.</p>`,
    // The same post, laid out for phones.
    '/phone.html': `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Post</title><p>Before.</p>${await snippetOf()}<p>After.</p>`,
    '/bare.html': `<!doctype html><meta charset="utf-8"><title>Post</title><iframe src="${site.url}embed.html${hashFor(KING)}" style="width:100%;height:560px;border:0"></iframe>`,
    // The same iframe in a blog's narrow column, and a phone's; and one of the Steps tab.
    '/bare-narrow.html': `<!doctype html><meta charset="utf-8"><title>Post</title>${[500, 340].map((width) => `<iframe src="${site.url}embed.html${hashFor(CAT, '&focus=7')}" style="width:${width}px;height:560px;border:0"></iframe>`).join('')}`,
    '/bare-steps.html': `<!doctype html><meta charset="utf-8"><title>Post</title><iframe src="${site.url}embed.html${hashFor(CAT, '&focus=7&view=steps')}" style="width:640px;height:560px;border:0"></iframe>`,
    // A blog whose policy allows frames from itself only.
    '/strict.html': widgets(site.url).replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="frame-src 'self'">`),
    // A blog whose policy allows no inline styles, and the widget's site for scripts and frames.
    '/no-inline-styles.html': widgets(site.url).replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' ${new URL(site.url).origin}; frame-src ${new URL(site.url).origin}; style-src 'self'">`),
    '/sandboxed.html': `<!doctype html><meta charset="utf-8"><title>Post</title><iframe sandbox="allow-scripts allow-popups" src="${site.url}embed.html${hashFor(KING)}" style="width:100%;height:560px;border:0"></iframe>`,
    // A theme that makes every iframe a 16:9 video box.
    '/themed.html': widgets(site.url).replace('</head>', '<style>iframe { height: auto !important; aspect-ratio: 16 / 9; max-width: 400px }</style></head>'),
    // An author who wrote the sentence twice, as the friendly attribute and as the link's key.
    '/twice.html': `<!doctype html><meta charset="utf-8"><title>Post</title><script src="${site.url}attention-viz.js" defer></script>
      <attention-viz sentence="${CAT}" s="${KING}" no-self self="0"></attention-viz>`,
    // Attributes named like the properties every JavaScript object has.
    '/odd-names.html': `<!doctype html><meta charset="utf-8"><title>Post</title><script src="${site.url}attention-viz.js" defer></script>
      <attention-viz constructor __proto__="1" valueof="1" hasownproperty="x" tostring sentence="${KING}" focus="1"></attention-viz>`,
    // A sentence of 250,000 characters (2.25 MB in an address once encoded).
    '/huge.html': `<!doctype html><meta charset="utf-8"><title>Post</title><script src="${site.url}attention-viz.js" defer></script>
      <attention-viz sentence="${'猫が座った。'.repeat(41667)}"></attention-viz>`,
    // A post whose script moves its widget to another part of the page.
    '/moved.html': `<!doctype html><meta charset="utf-8"><title>Post</title><script src="${site.url}attention-viz.js" defer></script>
      <div id="top"><attention-viz id="widget" sentence="${KING}" focus="1"></attention-viz></div><p>The middle.</p><div id="bottom"></div>`,
  });
  return blogOrigin;
}

/** The iframe snippet the full page offers for the king sentence, copied from its Share panel. */
async function snippetOf() {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  await page.click('#share-open');
  const snippet = await page.inputValue('#share-iframe');
  await finish();
  return snippet;
}

test('two widgets on a blog of another origin, one dark: right numbers, own heights, own themes, no error in the post', async () => {
  const origin = await theBlog();
  const { page, context, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  const requests = [];
  context.on('request', (request) => {
    // What the pages fetch: the service worker's own copies for offline visits do not count.
    if (!request.serviceWorker()) requests.push(new URL(request.url()).pathname);
  });
  await page.goto(`${origin}/widgets.html`);
  const first = page.frameLocator('attention-viz >> nth=0 >> iframe');
  const second = page.frameLocator('attention-viz >> nth=1 >> iframe');
  const king = (await widgetTable(first)).rows.find((r) => r.query === 'king');
  assert.deepEqual(king.cells, KING_PRINTED);
  assert.ok(king.focused, 'focus="1" is honoured');
  const cat = await widgetTable(second);
  assert.deepEqual(cat.header, ['the', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'tired']);
  assert.equal(cat.rows[1].cells[1], '0.0000', 'no-self masks the diagonal');
  // The two widgets share one wasm instance and one cache of word vectors: each file came once.
  assert.equal(requests.filter((p) => p.endsWith('attention_wasm_bg.wasm')).length, 1, requests.join(' '));
  assert.equal(requests.filter((p) => p.endsWith('glove-6b-50d/manifest.json')).length, 1);
  const shards = requests.filter((p) => p.endsWith('.aews'));
  assert.equal(new Set(shards).size, shards.length, 'no shard twice');
  // Each iframe is as tall as its content says, not the 560 px it started with.
  for (const [index, frame] of [[0, first], [1, second]]) {
    await page.waitForFunction((k) => {
      const element = document.querySelectorAll('attention-viz')[k].querySelector('iframe');
      return element.style.height && element.style.height !== '560px';
    }, index);
    const box = await page.locator(`attention-viz >> nth=${index} >> iframe`).boundingBox();
    const inner = await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height));
    assert.ok(Math.abs(box.height - inner) <= 2, `widget ${index}: iframe ${box.height}px, content ${inner}px`);
  }
  // The dark widget is dark, the other follows the (light) system; the bad temperature is named.
  assert.equal(await second.locator('html').getAttribute('data-theme'), 'dark');
  assert.equal(await first.locator('html').getAttribute('data-theme'), null);
  const background = await second.locator('body').evaluate((body) => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
  assert.equal(background, '#16171b');
  // The widget's root is see-through (the post's background shows around the heatmap); the page's own is not.
  for (const frame of [first, second]) {
    assert.equal(await frame.locator('html').evaluate((html) => getComputedStyle(html).backgroundColor), 'rgba(0, 0, 0, 0)');
  }
  assert.match(await second.locator('#link-note').textContent(), /t=hot \(expected a decimal number from 0\.001 to 1000, such as 0\.5\)/);
  // An attribute change redraws the widget.
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('no-self', ''));
  await first.locator('#opt-self:not(:checked)').waitFor();
  await finish();
});

test('a widget keeps working when the widget that lent it its engine leaves the post', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/widgets.html`);
  const frames = [0, 1].map((k) => page.frameLocator(`attention-viz >> nth=${k} >> iframe`));
  for (const frame of frames) await widgetTable(frame);
  // One widget loaded the engine and lends it (engine.js); a blog that renders its post again removes it.
  const lends = await Promise.all(frames.map((frame) => frame.locator('html').evaluate(() => Boolean(window.attentionExplorerHub))));
  assert.deepEqual(lends.filter(Boolean).length, 1, 'one lender');
  const lender = lends.indexOf(true);
  await page.evaluate((k) => document.querySelectorAll('attention-viz')[k].remove(), lender);
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('sentence', 'Zebras gallop across savanna grasslands'));
  const left = page.frameLocator('attention-viz >> iframe');
  await left.locator('#weights thead th >> text=grasslands').waitFor({ timeout: 20000 });
  assert.equal(await left.locator('#tokens .token.failed').count(), 0, 'no word failed to load');
  assert.deepEqual((await widgetTable(left)).header, ['zebras', 'gallop', 'across', 'savanna', 'grasslands']);
  await finish();
});

test('a reader’s own file, read in a widget that borrowed its engine, keeps working when the lender leaves', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/widgets.html`);
  const frames = [0, 1].map((k) => page.frameLocator(`attention-viz >> nth=${k} >> iframe`));
  for (const frame of frames) await widgetTable(frame);
  const lends = await Promise.all(frames.map((frame) => frame.locator('html').evaluate(() => Boolean(window.attentionExplorerHub))));
  const borrower = frames[lends.indexOf(false)];
  // The file is read on the lender's wasm; then the post renders again without the lender.
  await borrower.locator('#vectors-file').setInputFiles({ name: 'own.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0\nking 0 1\nand 1 1\nqueen 1 0\ncat 0 1\nsat 1 1\non 1 0\nmat 0 1\n') });
  await borrower.locator('#vectors-note >> text=/your file own\.txt/').waitFor({ state: 'attached' });
  await page.evaluate((k) => document.querySelectorAll('attention-viz')[k].remove(), lends.indexOf(true));
  const left = page.frameLocator('attention-viz >> iframe');
  await left.locator('#opt-scale').click();
  await left.locator('html[data-ready="1"]').waitFor();
  const inked = () => left.locator('#arrows').evaluate((canvas) => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]) n++;
    return n;
  });
  for (const started = Date.now(); (await inked()) === 0;) {
    assert.ok(Date.now() - started < 10000, 'the arrows are drawn again');
    await page.waitForTimeout(200);
  }
  await finish();
});

test('the iframe snippet sizes its iframe, accepting only the widget’s own messages', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/iframe.html`);
  const frame = page.frameLocator('iframe');
  const table = await widgetTable(frame);
  assert.deepEqual(table.rows[1].cells, KING_PRINTED);
  await page.waitForFunction(() => document.querySelector('iframe').style.height !== '560px');
  const box = await page.locator('iframe').boundingBox();
  const inner = await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height));
  assert.ok(Math.abs(box.height - inner) <= 2, `iframe ${box.height}px, content ${inner}px`);
  // A message from the post itself (another origin than the widget's) is ignored.
  await page.evaluate(() => window.postMessage({ type: 'attention-explorer:height', height: 5 }, '*'));
  await page.waitForTimeout(100);
  assert.ok((await page.locator('iframe').boundingBox()).height > 100);
  await finish();
});

test('on a phone, the widget stacks its heatmap above its arrows and never scrolls sideways', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin], viewport: { width: 360, height: 740 }, phone: true });
  await page.goto(`${origin}/phone.html`);
  const frame = page.frameLocator('iframe');
  await widgetTable(frame);
  const layout = await frame.locator('html').evaluate(() => {
    const box = (selector) => document.querySelector(selector).getBoundingClientRect();
    return { scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth, heatmap: box('#heatmap-overlay').bottom, arrows: box('#arrows').top, right: box('#arrows').right };
  });
  assert.equal(layout.scroll, layout.width, 'no sideways scrolling (side by side, 419 px in 360)');
  assert.ok(layout.arrows >= layout.heatmap, `the arrows (top ${layout.arrows}) below the heatmap (bottom ${layout.heatmap})`);
  assert.ok(layout.right <= layout.width, `the arrows end at ${layout.right}, inside ${layout.width}`);
  await finish();
});

test('with no script in the post, the iframe shows the whole heatmap without a scroll bar', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/bare.html`);
  const frame = page.frameLocator('iframe');
  await widgetTable(frame);
  const fit = await frame.locator('html').evaluate(() => ({
    scroll: document.documentElement.scrollHeight,
    height: window.innerHeight,
    canvas: document.getElementById('heatmap').getBoundingClientRect().bottom,
  }));
  assert.ok(fit.scroll <= fit.height + 1, `the page is ${fit.scroll}px in a ${fit.height}px iframe`);
  assert.ok(fit.canvas <= fit.height, `the heatmap ends at ${fit.canvas}px of ${fit.height}px`);
  await finish();
});

test('with no script in a narrow post, the whole heatmap fits the iframe above the link, and the arrows scroll into view under it', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/bare-narrow.html`);
  for (const [k, width] of [[0, 500], [1, 340]]) {
    const frame = page.frameLocator('iframe').nth(k);
    await widgetTable(frame);
    const fit = await frame.locator('html').evaluate(async () => {
      const box = (selector) => document.querySelector(selector).getBoundingClientRect();
      const views = document.getElementById('views');
      // The heatmap is laid out again once the frame's size is known (a ResizeObserver): up to 10 s for it.
      for (const end = performance.now() + 10000; box('#heatmap').bottom > box('#views').bottom && performance.now() < end;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const before = { heatmap: box('#heatmap').bottom, views: box('#views').bottom, link: box('.embed-footer').top, page: document.documentElement.scrollHeight };
      // Scrolled to their end, again while the arrows come near and are laid out for the space left (observers, then a frame).
      for (const end = performance.now() + 10000; ;) {
        views.scrollTop = views.scrollHeight;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        if (box('#arrows').bottom <= box('#views').bottom + 1 || performance.now() > end) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { ...before, height: innerHeight, arrows: box('#arrows').bottom, scrolled: views.scrollTop };
    });
    // At 500 px the heatmap ended 110 px below the iframe, under the link; the arrows could not be reached.
    assert.ok(fit.heatmap <= fit.views && fit.views <= fit.link, `${width} px: the heatmap ends at ${fit.heatmap}, the views at ${fit.views}, the link starts at ${fit.link}`);
    assert.ok(fit.page <= fit.height + 1, `${width} px: the page is ${fit.page}px in a ${fit.height}px iframe`);
    assert.ok(fit.scrolled > 0 && fit.arrows <= fit.views + 1, `${width} px: the views scroll to the arrows' end (${fit.arrows}, views end at ${fit.views})`);
  }
  await finish();
});

test('with no script in the post, a teaching tab in a fixed-size iframe scrolls to its end', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/bare-steps.html`);
  const frame = page.frameLocator('iframe');
  await frame.locator('#explain .steps-table tbody tr').nth(9).waitFor({ timeout: 15000 });
  // It was cut at its fourth key, under the link, and the wheel scrolled nothing.
  const below = await frame.locator('html').evaluate(() => document.querySelectorAll('#explain .steps-table tbody tr')[9].getBoundingClientRect().bottom);
  await page.mouse.move(300, 300);
  await page.mouse.wheel(0, 2000);
  await frame.locator('html').evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  const last = await frame.locator('html').evaluate(() => ({
    height: innerHeight, scrolled: scrollY, after: document.querySelectorAll('#explain .steps-table tbody tr')[9].getBoundingClientRect().bottom,
  }));
  last.below = below;
  assert.ok(last.below > last.height, `the tenth key starts below the iframe (${last.below} of ${last.height})`);
  assert.ok(last.scrolled > 0 && last.after <= last.height, `scrolled ${last.scrolled}px, the tenth key ends at ${last.after} of ${last.height}`);
  await finish();
});

test('without JavaScript the widget shows its fallback content', async () => {
  const origin = await theBlog();
  const context = await site.browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${origin}/widgets.html`);
  assert.equal(await page.locator('attention-viz a').first().textContent(), 'See it in Attention Explorer');
  assert.ok(await page.locator('attention-viz a').first().isVisible());
  await context.close();
});

test('a widget copied with cloneNode shows one widget, with its own numbers', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/widgets.html`);
  await widgetTable(page.frameLocator('attention-viz >> nth=0 >> iframe'));
  // As a host that saves and restores a post's HTML (Turbo snapshots, editors): the copy holds the first one's iframe.
  await page.evaluate(() => document.body.append(document.querySelector('attention-viz').cloneNode(true)));
  assert.equal(await page.locator('attention-viz >> nth=2 >> iframe').count(), 1);
  const copy = await widgetTable(page.frameLocator('attention-viz >> nth=2 >> iframe'));
  assert.equal(copy.rows[1].cells[2], '0.0489');
  await finish();
});

test('two attributes that set the same thing differently: the later is used, and the author is told once', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  const warnings = [];
  page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
  await page.goto(`${origin}/twice.html`);
  const table = await widgetTable(page.frameLocator('attention-viz iframe'));
  assert.deepEqual(table.header, KING.toLowerCase().split(' '));
  // no-self and self="0" agree: nothing to tell. A change of another attribute does not tell it again.
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('focus', '2'));
  await page.frameLocator('attention-viz iframe').locator('#tokens button.token.focused', { hasText: /^and$/ }).waitFor();
  assert.deepEqual(warnings.filter((w) => w.startsWith('<attention-viz>')),
    ['<attention-viz>: the attributes sentence and s set the same thing differently; s, the later one, is used.']);
  await finish();
});

test('a post that changes a widget’s attributes leaves the reader’s Back button to the post', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/bare.html`);
  await page.goto(`${origin}/widgets.html`);
  const frame = page.frameLocator('attention-viz >> nth=0 >> iframe');
  await widgetTable(frame);
  const entries = await page.evaluate(() => history.length);
  // A post stepping through its sentence (each change made its own entry in the post's history, before).
  for (const focus of ['2', '3', '4']) {
    await page.evaluate((f) => document.querySelector('attention-viz').setAttribute('focus', f), focus);
    await frame.locator(`#weights tr.focused th`, { hasText: KING.toLowerCase().split(' ')[Number(focus)] }).waitFor();
  }
  assert.equal((await widgetTable(frame)).rows.find((r) => r.focused).query, 'ruled');
  // The reader moves the focus in the widget; the post sets focus="4" again (its "Show 'ruled'" button): 'ruled' again.
  await frame.locator('#heatmap-overlay').focus();
  await page.keyboard.press('ArrowDown');
  await frame.locator('#weights tr.focused th', { hasText: /^the$/ }).waitFor();
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('focus', '4'));
  await frame.locator('#weights tr.focused th', { hasText: 'ruled' }).waitFor();
  // Each widget's frame is named by its sentence; an author's aria-label names it instead.
  assert.deepEqual(await page.locator('attention-viz iframe').evaluateAll((frames) => frames.map((f) => f.title)),
    [`Attention Explorer: attention weights of “${KING}”`, `Attention Explorer: attention weights of “${CAT}”`]);
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('aria-label', 'The king example'));
  assert.equal(await page.locator('attention-viz iframe >> nth=0').getAttribute('title'), 'The king example');
  // causal is a link key as well as a flag: causal="0" is the link's causal=0.
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('causal', ''));
  await frame.locator('#opt-causal:checked').waitFor();
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('causal', '0'));
  await frame.locator('#opt-causal:not(:checked)').waitFor();
  // Every flag reads "0" and "false" as off: no-self="false" leaves a word attending to itself.
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('no-self', ''));
  await frame.locator('#opt-self:not(:checked)').waitFor();
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('no-self', 'false'));
  await frame.locator('#opt-self:checked').waitFor();
  assert.equal(await page.evaluate(() => history.length), entries);
  await page.goBack();
  assert.equal(new URL(page.url()).pathname, '/bare.html');
  await finish();
});

test('attributes named like the properties of every object are ignored like any unknown attribute', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/odd-names.html`);
  assert.equal(await page.locator('attention-viz iframe').count(), 1);
  const table = await widgetTable(page.frameLocator('attention-viz iframe'));
  assert.deepEqual(table.header, KING.toLowerCase().split(' '));
  assert.equal(table.rows.find((r) => r.focused).query, 'king');
  assert.deepEqual(table.rows[1].cells, KING_PRINTED);
  await finish();
});

test('a sentence too long for an address is cut before it goes to the frame, and the widget says where it cut it', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/huge.html`);
  const frame = page.frameLocator('attention-viz iframe');
  await frame.locator('html[data-ready="1"], html[data-failed="1"]').waitFor({ timeout: 20000 });
  assert.match(await frame.locator('#link-note').textContent(), /s=猫が座った。.*… \(expected at most 20,000 characters: the sentence was cut to its first 20,000 characters, before '座った。/);
  assert.equal(await page.locator('attention-viz p').count(), 0, 'no failure message in the post');
  await finish();
});

test('a widget moved, or removed and added again, after its attributes changed shows them, and leaves Back to the post', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/bare.html`);
  await page.goto(`${origin}/moved.html`);
  const frame = page.frameLocator('#widget iframe');
  await widgetTable(frame);
  const entries = await page.evaluate(() => history.length);
  await page.evaluate((s) => document.getElementById('widget').setAttribute('sentence', s), CAT);
  await frame.locator('#weights thead th', { hasText: 'tired' }).waitFor();
  await page.evaluate(() => document.getElementById('widget').setAttribute('focus', '7'));
  await frame.locator('#weights tr.focused th', { hasText: /^it$/ }).waitFor();
  const moves = {
    moved: () => document.getElementById('bottom').append(document.getElementById('widget')),
    'removed and added again': () => {
      const widget = document.getElementById('widget');
      widget.remove();
      document.getElementById('top').append(widget);
    },
  };
  for (const [how, move] of Object.entries(moves)) {
    await page.evaluate(move);
    const table = await widgetTable(frame);
    assert.deepEqual(table.header, CAT.toLowerCase().split(' '), `${how}: the sentence`);
    assert.equal(table.rows.find((r) => r.focused)?.query, 'it', `${how}: the focus`);
  }
  assert.equal(await page.evaluate(() => history.length), entries);
  await page.goBack();
  assert.equal(new URL(page.url()).pathname, '/bare.html');
  await finish();
});

test('the widget\'s table, for screen readers only, shows when the keyboard reaches it', async () => {
  const { page, finish } = await openPage(site.browser, `${site.url}embed.html${hashFor(KING, '&focus=1')}`);
  await ready(page);
  const box = () => page.locator('.table-scroll').boundingBox();
  assert.ok((await box()).width <= 2, 'hidden from the eye');
  let stops = 0;
  while (!(await page.evaluate(() => document.activeElement.classList.contains('table-scroll'))) && stops++ < 20) await page.keyboard.press('Tab');
  // Focused, it is on screen: a Tab stop that cannot be seen was where the focus went before.
  assert.ok((await box()).width > 300, JSON.stringify(await box()));
  assert.equal((await readTable(page)).rows.find((r) => r.focused).query, 'king');
  await page.keyboard.press('Tab');
  assert.ok((await box()).width <= 2, 'hidden again once the keyboard leaves');
  await finish();
});

test('a blog whose policy allows no inline styles gets the widget styled, and no report of a refused style', async () => {
  const origin = await theBlog();
  // finish() fails on any console error: a refused <style> in the element's shadow root was one, at every view.
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  const refused = [];
  await page.exposeFunction('refusedStyle', (directive) => refused.push(directive));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (event) => window.refusedStyle(event.effectiveDirective)));
  await page.goto(`${origin}/no-inline-styles.html`);
  const king = (await widgetTable(page.frameLocator('attention-viz >> nth=0 >> iframe'))).rows.find((r) => r.query === 'king');
  assert.deepEqual(king.cells, KING_PRINTED);
  const look = await page.locator('attention-viz >> nth=0').evaluate((element) => [getComputedStyle(element).display, getComputedStyle(element).marginTop]);
  assert.deepEqual(look, ['block', '16px'], 'the element\'s own styles (a block, 1em apart)');
  assert.deepEqual(refused, []);
  await finish();
});

test('a frame sandboxed without allow-same-origin says what the embedding site can do', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin], allow: [/CORS|Failed to load/] });
  await page.goto(`${origin}/sandboxed.html`);
  const error = page.frameLocator('iframe').locator('#error');
  await error.waitFor({ timeout: 10000 });
  assert.equal(await error.textContent(), 'The page cannot run in a frame sandboxed without "allow-same-origin": its scripts cannot load. The site embedding it can add allow-same-origin to the iframe\'s sandbox, or link to the page.');
  // Its way out names the author's sentence (it named the plain page, whose default sentence showed).
  const out = page.frameLocator('iframe').locator('#open-full');
  assert.ok((await out.getAttribute('href')).endsWith(`index.html${hashFor(KING)}`), await out.getAttribute('href'));
  // The tab it opens keeps the frame's sandbox (no allow-popups-to-escape-sandbox): it says what to do.
  const [tab] = await Promise.all([page.waitForEvent('popup'), out.click()]);
  await tab.locator('#error').waitFor({ timeout: 10000 });
  assert.ok(tab.url().endsWith(`index.html${hashFor(KING)}`), tab.url());
  assert.equal(await tab.textContent('#error'), 'The page cannot run here: this tab was opened from a sandboxed frame and keeps its sandbox, so its scripts cannot load. Copy the address into a new tab of your own.');
  await finish();
});

test('a theme’s styles for every iframe do not squeeze the widget', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin] });
  await page.goto(`${origin}/themed.html`);
  const frame = page.frameLocator('attention-viz >> nth=0 >> iframe');
  await widgetTable(frame);
  await page.waitForFunction(() => !['', '560px'].includes(document.querySelector('attention-viz iframe').style.height));
  const box = await page.locator('attention-viz >> nth=0 >> iframe').boundingBox();
  const element = await page.locator('attention-viz >> nth=0').boundingBox();
  const inner = await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height));
  assert.ok(Math.abs(box.height - inner) <= 2, `iframe ${box.height}px, content ${inner}px`);
  assert.equal(box.width, element.width);
  await finish();
});

test('a blog whose policy refuses the widget’s frame says so, and shows the link', async () => {
  const origin = await theBlog();
  const { page, finish } = await openPage(site.browser, null, { origins: [origin, new URL(site.url).origin], allow: [/Content Security Policy|CSP violation/] });
  await page.goto(`${origin}/strict.html`);
  const said = page.locator('attention-viz >> nth=0 >> p');
  await said.waitFor({ timeout: 10000 });
  assert.equal(await said.textContent(), `Attention Explorer could not start here: this page's Content-Security-Policy (frame-src) does not allow frames from ${new URL(site.url).origin}`);
  assert.ok(await page.locator('attention-viz a').first().isVisible(), 'the link to the full page shows');
  assert.equal(await page.locator('attention-viz iframe').count(), 0);
  await finish();
});

/**
 * The widget's site, with `answers` as serveDist takes them, and a post on
 * another origin (the same server called localhost) with one widget.
 */
async function widgetSite(answers) {
  const server = await serveDist(DIST, { answers: { '/post.html': () => ({ status: 200, body: widgetPost(server.url), headers: NO_POLICY }), ...answers } });
  return { server, post: `${server.url.replace('127.0.0.1', 'localhost')}post.html`, origins: [new URL(server.url).origin, `http://localhost:${new URL(server.url).port}`] };
}
// A header policy that leaves the site's out: a post of its own (its inline
// styles), an embed page with no frame-ancestors (which browsers obey over X-Frame-Options).
const NO_POLICY = { 'Content-Security-Policy': "object-src 'none'" };
const widgetPost = (url) => `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>Post</title><script src="${url}attention-viz.js" defer></script>
  <attention-viz sentence="${KING}"><a href="${url}index.html">See it in Attention Explorer</a></attention-viz>`;

test('a site that forbids framing its embed page (X-Frame-Options) gets the link, and a reason', async () => {
  const { server, post, origins } = await widgetSite({ '/embed.html': (body) => ({ status: 200, body, headers: { ...NO_POLICY, 'X-Frame-Options': 'SAMEORIGIN' } }) });
  try {
    const { page, finish } = await openPage(site.browser, post, { origins, allow: [/X-Frame-Options/] });
    const said = page.locator('attention-viz >> p');
    await said.waitFor({ timeout: 15000 });
    assert.equal(await said.textContent(), `Attention Explorer could not start here: its frame never started: the site ${origins[0]} may forbid framing its pages (X-Frame-Options or frame-ancestors), or this page's Cross-Origin-Embedder-Policy may refuse frames of other sites`);
    assert.ok(await page.locator('attention-viz a').isVisible(), 'the link to the full page shows');
    assert.equal(await page.locator('attention-viz iframe').count(), 0);
    await finish();
  } finally {
    await server.close();
  }
});

test('a post that is cross-origin isolated (COOP and COEP) gets a working widget', async () => {
  const isolated = { ...NO_POLICY, 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'credentialless' };
  const { server, post, origins } = await widgetSite({ '/post.html': () => ({ status: 200, body: widgetPost(server.url), headers: isolated }) });
  try {
    const { page, finish } = await openPage(site.browser, post, { origins });
    assert.equal(await page.evaluate(() => window.crossOriginIsolated), true);
    // Its frames of other sites must be credentialless: a plain one was refused, and the widget said the site forbids framing.
    const king = (await widgetTable(page.frameLocator('attention-viz iframe'))).rows.find((r) => r.query === 'king');
    assert.deepEqual(king.cells, KING_PRINTED);
    await finish();
  } finally {
    await server.close();
  }
});

test('a widget whose page is slow to arrive is not given up', async () => {
  // The page's modules come 7 s late: its load event, which waits for them, comes after it said it started.
  const { server, post, origins } = await widgetSite({ '/js/main.js': () => new Promise((resolve) => setTimeout(resolve, 7000, null)) });
  try {
    const { page, finish } = await openPage(site.browser, post, { origins });
    const frame = page.frameLocator('attention-viz iframe');
    assert.equal((await widgetTable(frame)).rows[1].cells[2], KING_PRINTED[2]);
    await page.waitForTimeout(6000); // past the time the element gives a silent frame after its load
    assert.equal(await page.locator('attention-viz p').count(), 0, 'a message instead of the widget');
    assert.equal(await page.locator('attention-viz iframe').count(), 1);
    await finish();
  } finally {
    await server.close();
  }
});

test('the embed page shows the view its link names, without page chrome', async () => {
  const full = await openPage(site.browser, site.url + hashFor(CAT, '&self=0'));
  await ready(full.page);
  const expected = await readTable(full.page);
  await full.finish();
  const { page, finish } = await openPage(site.browser, site.url + 'embed.html' + hashFor(CAT, '&self=0&view=heatmap'));
  await ready(page);
  assert.deepEqual(await readTable(page), expected);
  for (const chrome of ['#sentence', '.share', '.page-footer', '#arrows', '#vectors-note']) assert.ok(!(await page.isVisible(chrome)), `${chrome} is hidden`);
  // The title is unseen (clipped to nothing) but stays the frame's one h1 for screen readers.
  assert.deepEqual(await page.locator('h1').evaluate((h) => [h.textContent, h.checkVisibility(), h.getBoundingClientRect().width <= 1]), ['Attention Explorer', true, true]);
  assert.ok(await page.isVisible('#heatmap'));
  const open = await page.getAttribute('#open-full', 'href');
  assert.ok(open.startsWith(site.url + 'index.html#s=The%20cat'), open);
  assert.match(open, /self=0/);
  // Made with the author's own vectors: the embed says it shows GloVe's numbers instead.
  await page.goto(site.url + 'embed.html' + hashFor(CAT, '&vec=mine.vec&view=heatmap'));
  await page.waitForSelector('#vectors-note.asks');
  assert.ok(await page.isVisible('#vectors-note'));
  assert.match(await page.textContent('#vectors-note'), /made with the word vectors of the file 'mine\.vec'.*You see the default GloVe vectors/);
  // A teaching view alone: its panel, without the tabs.
  await page.goto(site.url + 'embed.html' + hashFor(KING, '&view=whatif'));
  await page.waitForSelector('#whatif-compare tbody tr');
  assert.ok(!(await page.isVisible('#heatmap')) && !(await page.isVisible('#tab-steps')));
  await finish();
});

test('copy link puts the current state in the clipboard', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.slice(0, -1) });
  await ready(page);
  await page.uncheck('#opt-scale');
  await page.click('#copy-link');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, site.url + '#s=The%20king%20and%20queen%20ruled%20the%20kingdom&self=1&causal=0&scale=0');
  await finish();
});

test('a blog that renders its widgets again does not keep the removed ones', async () => {
  // Same origin as the widgets, so that they share one heap and lend each other their engine.
  // (A text file as the host page: its favicon.ico is the one 404.)
  const { page, context, finish } = await openPage(site.browser, `${site.url}examples.txt`, { allow: [/status of 404/] });
  const cdp = await context.newCDPSession(page);
  const documents = async () => {
    for (let k = 0; k < 2; k++) await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Memory.getDOMCounters')).documents;
  };
  const widget = (sentence) => page.evaluate(([base, s]) => new Promise((resolve) => {
    const frame = Object.assign(document.createElement('iframe'), { src: `${base}embed.html#s=${encodeURIComponent(s)}&focus=1` });
    document.body.append(frame);
    const check = () => (frame.contentDocument?.documentElement.dataset.ready === '1' ? resolve() : setTimeout(check, 50));
    check();
  }), [site.url, sentence]);
  await widget(KING);
  await page.waitForTimeout(300);
  const start = await documents();
  // One widget stays; another comes and goes, then a re-render replaces the first (the new one borrows, then loads its own).
  for (let k = 0; k < 6; k++) {
    await widget(`The cat sat on the mat ${k}`);
    await page.evaluate((last) => document.querySelectorAll('iframe')[last ? 0 : 1].remove(), k % 2 === 1);
    await page.waitForTimeout(300);
  }
  const frames = await page.evaluate(() => document.querySelectorAll('iframe').length);
  assert.equal(frames, 1);
  assert.ok(await documents() <= start + 1, `documents: ${start} at the start, ${await documents()} after 6 widgets removed`);
  // The widget left draws as before.
  const left = page.frameLocator('iframe');
  assert.match(await left.locator('#status').textContent(), /tokens in the attention/);
  await finish();
});
