// Hostile input and failed loads: text from a link is shown as text and runs
// nothing; a missing file gets a message in the page, never a blank page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, hashFor, openPage, ready, useSite } from './helpers.mjs';

const site = useSite();

const HOSTILE = 'The king <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> queen';

for (const path of ['', 'embed.html']) {
  test(`a hostile sentence is shown as text and runs nothing (${path || 'page'})`, async () => {
    const { page, finish } = await openPage(site.browser, site.url + path + hashFor(HOSTILE));
    await ready(page);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.locator('img, main script, #tokens script').count(), 0, 'no element was created from the text');
    const tokens = await page.$$eval('#tokens .token', (chips) => chips.map((c) => c.textContent));
    // The tokenizer splits the markup into punctuation and words, each shown as text.
    const shown = tokens.join(' ');
    assert.ok(shown.includes('< img src = x onerror = " window'), shown);
    assert.ok(shown.includes('< script > window'), shown);
    assert.ok(shown.includes('< / script > queen'), shown);
    if (!path) assert.equal(await page.inputValue('#sentence'), HOSTILE);
    const header = await page.$$eval('#weights thead th', (ths) => ths.map((th) => th.textContent));
    assert.ok(header.includes('<'), `the '<' token is a column: ${header}`);
    // The hash still carries the sentence exactly.
    const back = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('s'));
    assert.equal(back, HOSTILE);
    await finish();
  });
}

test('a 404 on the word vectors shows a message in the page', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The king'), {
    allow: [/Failed to load resource.*404/],
    routes: [['**/glove-6b-50d/manifest.json', (route) => route.fulfill({ status: 404, body: 'not found' })]],
  });
  await page.waitForSelector('html[data-failed="1"]');
  const error = page.locator('#error');
  assert.ok(await error.isVisible());
  assert.match(await error.textContent(), /word vectors could not be loaded: \/data\/glove-6b-50d\/manifest\.json answered HTTP 404/);
  assert.match(await page.getAttribute('#views', 'data-message'), /could not load/);
  assert.equal(await page.textContent('#status'), '');
  await finish();
});

test('a missing WebAssembly module shows a message in the page', async () => {
  const { page, finish } = await openPage(site.browser, site.url, {
    allow: [/Failed to load resource.*404/, /WebAssembly/, /attention_wasm/],
    routes: [['**/attention_wasm_bg.wasm', (route) => route.fulfill({ status: 404, body: 'not found' })]],
  });
  await page.waitForSelector('html[data-failed="1"]');
  assert.match(await page.textContent('#error'), /WebAssembly module could not be loaded/);
  await finish();
});

test('a site whose Content-Security-Policy refuses WebAssembly is told what it must allow', async () => {
  // A host's own policy, sent beside the page's <meta> one: both apply.
  const strict = async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': "default-src 'self'" } });
  };
  const { page, finish } = await openPage(site.browser, site.url + 'index.html', {
    allow: [/CSP violation: (script-src|img-src)/, /Content Security Policy|WebAssembly/],
    routes: [['**/index.html', strict]],
  });
  await page.waitForSelector('html[data-failed="1"]');
  assert.equal(await page.textContent('#error'), 'The WebAssembly module could not be loaded: this site\'s Content-Security-Policy blocks it. The site must allow \'wasm-unsafe-eval\' in its script-src.');
  await finish();
});

for (const file of ['index.html', 'embed.html']) {
  test(`opened as a file (${file} double-clicked), the page says to serve it over HTTP`, async () => {
    // file:// pages have the origin 'null', as a sandboxed frame has: their modules are refused (CORS).
    const { page, finish } = await openPage(site.browser, pathToFileURL(path.join(DIST, file)).href, { allow: [/CORS|Failed to load/] });
    await page.waitForSelector('html[data-failed="1"]');
    assert.equal(await page.textContent('#error'), 'The page cannot run opened as a file (file://): the browser does not load its scripts from there. Serve its folder over HTTP: ./scripts/serve in the project, or any static web server.');
    await finish();
  });
}

test('a manifest that does not describe a shard set is reported, not a blank page', async () => {
  const { page, finish } = await openPage(site.browser, site.url, {
    routes: [['**/glove-6b-50d/manifest.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"format":"AEWS","version":1,"dim":50,"words":400000,"shards":16384,"set":"zz","files":"https://evil.example/{k}"}' })]],
  });
  await page.waitForSelector('html[data-failed="1"]');
  assert.match(await page.textContent('#error'), /word vectors could not be read: its manifest\.json does not describe a shard set/);
  await finish();
});

test('a sentence without a known word says so, and the page still works', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('zxqv blorft'));
  await page.waitForFunction(() => !document.querySelector('#error').hidden);
  assert.match(await page.textContent('#error'), /None of the words is in the vocabulary \('zxqv', 'blorft'\)/);
  assert.equal(await page.locator('#tokens .token.unknown').count(), 2);
  await page.fill('#sentence', 'The king');
  await ready(page);
  assert.ok(await page.locator('#error').isHidden());
  assert.equal(await page.locator('#weights tbody tr').count(), 2);
  await finish();
  // On a phone, a long unknown word wraps in the message: it does not widen the page (425 px in 360).
  const phone = await openPage(site.browser, site.url + hashFor('Donaudampfschifffahrtsgesellschaftskapitänsmütze'), { viewport: { width: 360, height: 740 }, phone: true });
  await phone.page.waitForFunction(() => !document.querySelector('#error').hidden);
  assert.deepEqual(await phone.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]), [360, 360]);
  // Its text fields are 16 px at least: iOS zooms the page into a smaller one when it gets the focus.
  const sizes = await phone.page.$$eval('textarea, input[type="text"], input[type="search"], input[type="number"], input:not([type])', (fields) => fields.map((f) => parseFloat(getComputedStyle(f).fontSize)));
  assert.ok(sizes.length >= 3 && sizes.every((size) => size >= 16), sizes.join(' '));
  await phone.finish();
});
