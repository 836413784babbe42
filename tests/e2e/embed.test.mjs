// Embeds: the compact iframe page and the <attention-viz> custom element on
// a blog of another origin show the same numbers as the page.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { assertClose, hashFor, KING, KING_ROW, openPage, readTable, ready, rowOf, useSite } from './helpers.mjs';

const site = useSite();

const CAT = 'The cat sat on the mat because it was tired';

test('the embed page shows the same numbers without page chrome', async () => {
  const full = await openPage(site.browser, site.url + hashFor(CAT, '&self=0'));
  await ready(full.page);
  const expected = await readTable(full.page);
  await full.finish();

  const { page, finish } = await openPage(site.browser, site.url + 'embed.html' + hashFor(CAT, '&self=0'));
  await ready(page);
  assert.deepEqual(await readTable(page), expected);
  assert.equal(await page.locator('h1, header, footer, #sentence').count(), 0, 'no page chrome');
  assert.ok(!(await page.isChecked('#opt-self')));
  const open = await page.getAttribute('#open-full', 'href');
  assert.ok(open.startsWith(site.url + 'index.html#s=The%20cat'), open);
  assert.match(open, /self=0/);
  await finish();
});

test('the custom element on another origin renders the same numbers and sizes itself', async () => {
  // The blog is another origin (its own server and port) on the loopback too,
  // as Chromium's local-network rules want for a test.
  const html = `<!doctype html><html><head><meta charset="utf-8">
    <script type="module" src="${site.url}attention-viz.js"></script></head>
    <body><h1>My post</h1><p>Here is attention:</p>
    <attention-viz sentence="${KING}" focus="1"></attention-viz>
    <p>The end.</p></body></html>`;
  const blogServer = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise((resolve) => blogServer.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => { blogServer.closeAllConnections(); blogServer.close(resolve); }));
  const blog = `http://127.0.0.1:${blogServer.address().port}/post.html`;
  const { page, finish } = await openPage(site.browser, null, { origins: [new URL(blog).origin, new URL(site.url).origin] });
  await page.goto(blog);
  const frame = page.frameLocator('attention-viz iframe');
  await frame.locator('html[data-ready="1"]').waitFor({ timeout: 15000 });
  const rows = await frame.locator('#weights').evaluate((table) =>
    [...table.querySelectorAll('tbody tr')].map((tr) => ({ query: tr.firstChild.textContent, cells: [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)), focused: tr.classList.contains('focused') })));
  const king = rows.find((r) => r.query === 'king');
  assertClose(king.cells, KING_ROW);
  assert.ok(king.focused, 'the focus attribute is honoured');
  // The iframe grows to the height the embed page reports.
  const iframe = page.locator('attention-viz iframe');
  await page.waitForFunction(() => {
    const frameElement = document.querySelector('attention-viz').shadowRoot.querySelector('iframe');
    return frameElement.style.height && frameElement.style.height !== '560px';
  });
  const box = await iframe.boundingBox();
  const inner = await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height));
  assert.ok(Math.abs(box.height - inner) <= 2, `iframe ${box.height}px, content ${inner}px`);

  // Changing an attribute updates the widget.
  await page.evaluate(() => document.querySelector('attention-viz').setAttribute('no-self', ''));
  await frame.locator('#opt-self:not(:checked)').waitFor();
  await page.waitForFunction(() => true);
  const noSelf = await frame.locator('#weights tbody tr:nth-child(2) td:nth-of-type(2)').textContent();
  assert.equal(noSelf, '0.0000');
  await finish();
});

test('the full page offers embed code that reproduces the view', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(KING, '&causal=1&focus=2'));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url.slice(0, -1) });
  await ready(page);
  await page.click('#copy-embed');
  const code = await page.inputValue('#embed-code');
  assert.ok(code.includes(`<script type="module" src="${site.url}attention-viz.js"></script>`), code);
  assert.ok(code.includes(`<attention-viz sentence="${KING}" causal focus="2"></attention-viz>`), code);
  assert.ok(code.includes(`<iframe src="${site.url}embed.html#s=The%20king`), code);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
  assert.match(await page.textContent('#share-status'), /copied/i);
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
