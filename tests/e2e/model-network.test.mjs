// The trained-model view on a bad network, in Chromium: a download that
// stalls, a connection that drops mid-file, a web page served instead of the
// model, and an embedding shard that fails once the model is in. Each test
// checks what a learner sees: the message, the Try again button, and the
// head drawn once the files arrive.
//
// The files come from a server of this file's own (`faultyServer`), which
// can stall or cut a body half-way and answers Range requests: Playwright's
// routes can do neither mid-body. The worker's 20 s stall bound is shortened
// through its test hook (`globalThis.aeModelStallMs`, model-client.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DIST, hashFor, KING, launch, openPage, ready } from './helpers.mjs';

const CORE = /\/model\/minilm-core\.aebm$/;
const SHARD = /\/model\/embeddings\/\d{4}\.aeemb$/;
const MODEL_LOAD_MS = 90000;
/** The stall bound the tests give the worker; the page rounds it to "2 seconds". */
const STALL_MS = 1500;
/** Chromium logs every failed request as a console error; the page's own message is what is checked. */
const ALLOW = [/Failed to load resource/];
/** A new sentence whose rare words need shards the first one did not. */
const RARE = 'The zeppelins and xylophones ruled the kingdom';
/** One of its pieces, which the table's header shows once the model has run it. */
const WORD = 'zeppelin';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
};
const WEB_PAGE = '<!doctype html><html><head><title>Page not found</title></head><body><h1>404</h1><p>Sorry, this page does not exist.</p></body></html>';

test.before(() => assert.ok(existsSync(path.join(DIST, 'model', 'manifest.json')), 'dist/model/ is missing: run scripts/build-model, then scripts/build'));

/**
 * Serves `root` with `faults` applied: `fault(re, action)` spoils the next
 * request whose path matches `re` (once, unless `times` says more):
 * 'stall' sends 40% of the body and then nothing, keeping the connection
 * open; 'drop' sends 40% and closes it; 'reset' closes it before any answer;
 * 'webpage' answers 200 with an HTML page; 'garble' sends the body with
 * one byte changed (a file changed between two requests, which a server
 * that ignores If-Range sends as the rest of the old one). Range requests (`bytes=N-`) get
 * 206 unless `ranges` is false. `log` lists { path, range, status, sent }.
 */
async function faultyServer(root, { ranges = true } = {}) {
  const faults = [];
  const log = [];
  const server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url, 'http://localhost');
    const entry = { path: pathname, range: request.headers.range ?? null, status: 0, sent: 0 };
    log.push(entry);
    const fault = faults.find((f) => f.re.test(pathname) && f.times > 0);
    if (fault) fault.times -= 1;
    if (fault?.action === 'reset') return request.socket.destroy();
    if (fault?.action === 'webpage') {
      entry.status = 200;
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      return response.end(WEB_PAGE);
    }
    const file = path.join(root, decodeURIComponent(pathname), pathname.endsWith('/') ? 'index.html' : '');
    const body = await readFile(file).catch(() => null);
    if (!body || !file.startsWith(root)) {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      return response.end('not found');
    }
    const etag = `"${body.length}"`;
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
    const partial = ranges && range && Number(range[1]) < body.length && (request.headers['if-range'] ?? etag) === etag;
    const start = partial ? Number(range[1]) : 0;
    const rest = body.subarray(start);
    entry.status = partial ? 206 : 200;
    response.writeHead(entry.status, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': rest.length,
      'Cache-Control': 'no-store',
      ETag: etag,
      ...(partial ? { 'Content-Range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (fault?.action === 'stall' || fault?.action === 'drop') {
      entry.sent = Math.floor(rest.length * 0.4);
      response.write(rest.subarray(0, entry.sent));
      if (fault.action === 'drop') setTimeout(() => request.socket.destroy(), 200);
      return;
    }
    entry.sent = rest.length;
    if (fault?.action === 'garble') {
      const changed = Buffer.from(rest);
      changed[changed.length >> 1] ^= 0xff;
      return response.end(changed);
    }
    response.end(rest);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    log,
    fault: (re, action, times = 1) => faults.push({ re, action, times }),
    heal: () => faults.splice(0),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/** A server and a browser for one test, closed after it; the page gets the short stall bound. */
async function setUp(t, options) {
  const server = await faultyServer(DIST, options);
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const opened = await openPage(browser, null, { allow: ALLOW, origins: [new URL(server.url).origin] });
  await opened.context.addInitScript((ms) => { globalThis.aeModelStallMs = ms; }, STALL_MS);
  return { server, ...opened };
}

/** The model view's error as shown, once it shows; asserts the Try again button beside it unless `retry` is false. */
async function shownError(page, { retry = true, timeout = 20000 } = {}) {
  const error = page.locator('#model-view .model-error');
  await error.waitFor({ state: 'visible', timeout });
  assert.equal(await page.locator('#model-view').getAttribute('data-state'), 'error');
  if (retry) assert.equal(await page.locator('#model-view button', { hasText: 'Try again' }).isVisible(), true, 'Try again is offered');
  return error.textContent();
}

/** Asserts the view shows a run with `word` among its tokens, its head 5:11 drawn in the table, and no error. */
async function drawn(page, word, timeout = MODEL_LOAD_MS) {
  await page.waitForSelector('#model-view[data-state="ready"][data-head="5:11"] .model-body:not([hidden])', { timeout });
  await page.waitForSelector('table#weights.model-table[data-layer="5"][data-head="11"]');
  assert.equal(await page.locator('#model-view .model-error').isVisible(), false);
  assert.equal(await page.locator('#model-view button', { hasText: 'Try again' }).isVisible(), false);
  const header = await page.$$eval('table#weights thead th', (cells) => cells.map((c) => c.textContent));
  assert.ok(header.includes(word), `the table is the sentence's: ${header}`);
}

const coreRequests = (server) => server.log.filter((e) => CORE.test(e.path));

test('a download that stalls is given up with a message naming the file, and reopening the view resumes it', async (t) => {
  const { server, page, finish } = await setUp(t);
  server.fault(CORE, 'stall');
  await page.goto(server.url + hashFor(KING, '&model=1'));
  await ready(page);
  assert.match(await shownError(page),
    /^The model file minilm-core\.aebm stopped arriving after \d+\.\d MB of 21\.9 MB: nothing came for 2 seconds\. Check the connection and try again\.$/);
  // Closed and opened again, the view starts again by itself, from where the bytes stopped.
  await page.click('#model-open');
  await page.click('#model-open');
  await drawn(page, 'queen');
  const [first, second] = coreRequests(server);
  assert.ok(second, 'the core was asked for again');
  assert.equal(second.range, `bytes=${first.sent}-`);
  assert.equal(second.status, 206);
  await finish();
});

test("the model's WebAssembly module stalling is given up too, and Try again loads the model", async (t) => {
  const { server, page, finish } = await setUp(t);
  server.fault(/\/pkg-model\/attention_model_wasm_bg\.wasm$/, 'stall');
  await page.goto(server.url + hashFor(KING, '&model=1'));
  await ready(page);
  assert.equal(await shownError(page),
    "The model's WebAssembly module could not be loaded (nothing came for 2 seconds). Check the connection and try again.");
  await page.click('#model-view button:has-text("Try again")');
  await drawn(page, 'queen');
  await finish();
});

for (const ranges of [true, false]) {
  test(`a connection dropped mid-download is named with the file, and Try again fetches ${ranges ? 'only the rest' : 'all of it again from a server that ignores Range'}`, async (t) => {
    const { server, page, finish } = await setUp(t, { ranges });
    server.fault(CORE, 'drop');
    await page.goto(server.url + hashFor(KING, '&model=1'));
    await ready(page);
    assert.match(await shownError(page),
      /^The model file minilm-core\.aebm stopped arriving after \d+\.\d MB of 21\.9 MB: the connection broke \(.+\)\. Check the connection and try again\.$/);
    await page.click('#model-view button:has-text("Try again")');
    await drawn(page, 'queen');
    const [first, second] = coreRequests(server);
    assert.match(second.range ?? '', /^bytes=\d+-$/, 'the retry asks for the rest');
    assert.ok(Number(second.range.slice(6, -1)) <= first.sent);
    assert.equal(second.status, ranges ? 206 : 200, ranges ? 'only the rest came' : 'the whole file came again');
    await finish();
  });
}

test('a resumed download whose rest does not match its checksum is downloaded whole again', async (t) => {
  const { server, page, finish } = await setUp(t);
  server.fault(CORE, 'drop');
  server.fault(CORE, 'garble');
  await page.goto(server.url + hashFor(KING, '&model=1'));
  await ready(page);
  await shownError(page);
  await page.click('#model-view button:has-text("Try again")');
  await drawn(page, 'queen');
  // The SHA-256 of model/manifest.json still has the last word: a whole copy replaced the spoilt one.
  assert.deepEqual(coreRequests(server).map((e) => [e.status, e.range === null]), [[200, true], [206, false], [200, true]]);
  await finish();
});

test('a web page served instead of the model is called one, and Try again loads the model', async (t) => {
  const { server, page, finish } = await setUp(t);
  server.fault(CORE, 'webpage');
  await page.goto(server.url + hashFor(KING, '&model=1'));
  await ready(page);
  assert.match(await shownError(page),
    /^The server sent a web page \(\d+ bytes of HTML\) instead of the model file minilm-core\.aebm, which is 21\.9 MB/);
  await page.click('#model-view button:has-text("Try again")');
  await drawn(page, 'queen');
  assert.equal(coreRequests(server)[1].range, null, 'the web page is not kept as part of the file');
  await finish();
});

test('a shard that fails once the model is in can be tried again, and the new sentence is drawn', async (t) => {
  const { server, page, finish } = await setUp(t);
  await page.goto(server.url + hashFor(KING, '&model=1'));
  await ready(page);
  await drawn(page, 'queen');
  server.fault(SHARD, 'reset', 1000);
  await page.fill('#sentence', RARE);
  assert.match(await shownError(page),
    /^The model file embeddings\/\d{4}\.aeemb could not be downloaded: .+\. Check the connection and try again\. The previous results are hidden until the model can run this sentence\.$/);
  server.heal();
  await page.click('#model-view button:has-text("Try again")');
  await drawn(page, WORD);
  await finish();
});

test('back online, a shard that failed offline is fetched by itself and the sentence drawn', async (t) => {
  const { server, page, context, finish } = await setUp(t);
  await page.goto(server.url + hashFor(KING, '&model=1'));
  await ready(page);
  await drawn(page, 'queen');
  await context.setOffline(true);
  await page.fill('#sentence', RARE);
  // The button is the other test's; this one waits for the page to notice the connection is back.
  assert.match(await shownError(page, { retry: false }), /^The model file embeddings\/\d{4}\.aeemb could not be downloaded/);
  await context.setOffline(false);
  await drawn(page, WORD, 15000);
  await finish();
});
