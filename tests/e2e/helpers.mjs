// Shared by the browser tests, the page benchmark and the screenshot script:
// a static server for dist/ on a free loopback port, Debian's Chromium driven
// by playwright-core, and a page wrapper that fails on any console error.
import { createServer } from 'node:http';
import { after, before } from 'node:test';
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built site the tests serve: dist/, or AE_DIST (a copy, for tests run beside a build). */
export const DIST = process.env.AE_DIST ? path.resolve(process.env.AE_DIST) : path.join(ROOT, 'dist');
export const KING = 'The king and queen ruled the kingdom';
export const KING_ROW = [0.0647, 0.4431, 0.0489, 0.1645, 0.0629, 0.0647, 0.1512];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.aewv': 'application/octet-stream',
  '.aews': 'application/octet-stream',
  '.json': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
};

const SOURCES = path.join(ROOT, 'www');

/** The response headers of the '/*' block of a Netlify-style `_headers` file (what scripts/serve sends). */
async function siteHeaders(root) {
  const file = path.join(root, '_headers');
  if (!existsSync(file)) return {};
  const headers = {};
  let inside = false;
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    if (!/^\s/.test(line)) inside = line.trim() === '/*';
    else if (inside) {
      const at = line.indexOf(':');
      headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
  }
  return headers;
}

/**
 * Serves dist/ on 127.0.0.1 at a free port, with the site's own headers
 * (CSP); resolves to { url, close }. `answers` (optional) maps a path (say
 * '/model/manifest.json') to `(bytes) => ({ status, body })`, what the server
 * answers instead of that file: a missing or lying file served by the server
 * itself, which a request from a Web Worker meets as surely as the page's
 * (Playwright's routes can miss a worker's first requests). The answer may be
 * a promise (one that never settles is a stalled link), and `null` serves the
 * file as usual; the key '*' answers for every path without its own. An
 * answer's `headers` are sent beside the site's (a host's X-Frame-Options).
 */
export async function serveDist(root = DIST, { answers = {} } = {}) {
  if (!existsSync(path.join(root, 'index.html'))) {
    throw new Error(`${root}/index.html is missing: run scripts/build first`);
  }
  const headers = await siteHeaders(root);
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url, 'http://localhost');
      // /src/…: the page's modules as written (www/), which the site serves
      // bundled: for a test that runs one of them in the page.
      const [base, name] = url.pathname.startsWith('/src/') ? [SOURCES, url.pathname.slice(4)] : [root, url.pathname];
      let file = path.normalize(path.join(base, decodeURIComponent(name)));
      if (!file.startsWith(base)) throw new Error('outside');
      const answer = answers[url.pathname] ?? answers['*'];
      const answered = answer && (await answer(await readFile(file).catch(() => null)));
      if (answered) {
        const { status, body, headers: more = {} } = answered;
        response.writeHead(status, { ...headers, 'Content-Type': TYPES[path.extname(file)] ?? 'text/plain', 'Cache-Control': 'no-store', ...more });
        response.end(body);
        return;
      }
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      const body = await readFile(file);
      response.writeHead(200, {
        ...headers,
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Content-Length': body.length,
        // No CORS header: a widget must work from any host, which most do not send one.
        'Cache-Control': 'no-store',
      });
      response.end(body);
    } catch {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/**
 * Debian's Chromium, headless. Playwright gives every launch a fresh
 * temporary profile (--user-data-dir) and removes it on close.
 */
export async function launch() {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: run scripts/setup`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
    ],
  });
}

/**
 * The site of one test file: registers `before` and `after` hooks that
 * serve `root` (default dist/) and launch Chromium, and returns an object
 * whose `url` and `browser` are set once the hooks have run. `check()`, if
 * given, runs first: a precondition that fails every test of the file.
 */
export function useSite({ root = DIST, check } = {}) {
  const site = { url: null, browser: null, server: null };
  before(async () => {
    check?.();
    site.server = await serveDist(root);
    site.url = site.server.url;
    site.browser = await launch();
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.close();
  });
  return site;
}

/** Milliseconds by which every animation frame is delayed (0: none); see scripts/test-browser. */
const SLOW_FRAMES = Number(process.env.AE_SLOW_FRAMES ?? 0);

/**
 * Opens a page and records every console error, uncaught exception and
 * preload left unread, and every request; `finish()` asserts there were none
 * (except messages matching `allow`) and no request left `origins` (default: the page's own):
 * the page works offline and loads nothing from third-party hosts.
 */
export async function openPage(browser, url, { allow = [], viewport = { width: 1200, height: 900 }, colorScheme = 'light', routes = [], origins = url ? [new URL(url).origin] : [], phone = false } = {}) {
  // The service worker controls a page soon after its first heatmap (sw.js), and a
  // route does not see the requests it makes: a test that routes blocks it.
  // `phone`: a touch screen and a phone's viewport rules (page.tap, page.touchscreen).
  const context = await browser.newContext({ viewport, colorScheme, serviceWorkers: routes.length ? 'block' : 'allow', hasTouch: phone, isMobile: phone });
  if (SLOW_FRAMES > 0) {
    // scripts/test-browser --slow-frames: every animation frame runs late, so a
    // test that reads the page before a deferred redraw has happened fails.
    await context.addInitScript((late) => {
      const frame = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback) => frame((time) => setTimeout(() => callback(time), late));
    }, SLOW_FRAMES);
  }
  for (const [pattern, handler] of routes) await context.route(pattern, handler);
  // A Content-Security-Policy violation anywhere (pages, widgets' frames) is an error of the test.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'} in ${event.sourceFile || location.href}`);
    });
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (allow.some((re) => re.test(message.text()))) return;
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
    // A file index.html preloads that the page never reads is a download for nothing (Chromium says so after a few seconds).
    else if (/preloaded using link preload but not used/.test(message.text())) problems.push(`console.warning: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  const foreign = [];
  context.on('request', (request) => {
    const { protocol, origin } = new URL(request.url());
    if ((protocol === 'http:' || protocol === 'https:') && !origins.includes(origin)) foreign.push(request.url());
  });
  if (url) await page.goto(url);
  return {
    page,
    context,
    problems,
    async finish() {
      await context.close();
      assert.deepEqual(problems, [], 'the page logged errors');
      assert.deepEqual(foreign, [], 'requests to other hosts');
    },
  };
}

/**
 * Waits until the service worker controls the page and keeps every shard the
 * page fetched (in its shards' cache), and the site's files `also` (paths
 * such as 'pkg-model/…', in any of its caches).
 */
export async function everythingKept(page, also = []) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20000 });
  const allKept = () => page.evaluate(async (files) => {
    const shards = performance.getEntriesByType('resource').map((e) => e.name).filter((name) => name.endsWith('.aews'));
    const cache = await caches.open('attention-explorer-shards-v1');
    const shardsKept = (await Promise.all(shards.map((url) => cache.match(url)))).every(Boolean);
    const kept = [];
    for (const name of await caches.keys()) kept.push(...(await (await caches.open(name)).keys()).map((request) => request.url));
    return shards.length > 0 && shardsKept && files.every((file) => kept.includes(new URL(file, location.href).href));
  }, also);
  for (const started = Date.now(); !(await allKept());) {
    assert.ok(Date.now() - started < 20000, 'the files of the first visit are kept within 20 s');
    await page.waitForTimeout(200);
  }
}

/** Waits until the first heatmap is drawn. */
export async function ready(page) {
  await page.waitForSelector('html[data-ready="1"]', { timeout: 15000 });
}

/**
 * In the page: the weights table as { header: [keys], rows: [{ query, cells:
 * [text], focused }] }, or null while it is aria-busy (a long one is drawn a
 * frame after the heatmap) or, if `whole`, while it lacks a row.
 */
function weightsOf(whole) {
  const table = document.getElementById('weights');
  if (!table || table.getAttribute('aria-busy') === 'true') return null;
  if (whole) {
    // Scrolled into view again at every poll: a view drawn later (a deferred
    // teaching tab) can grow the page and push the table out of view.
    table.closest('.table-scroll').scrollIntoView({ block: 'center' });
    if (table.tBodies[0]?.querySelectorAll('tr:not(.spacer)').length !== Number(table.getAttribute('aria-rowcount')) - 1) return null;
  }
  return {
    header: [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent),
    rows: [...table.querySelectorAll('tbody tr:not(.spacer)')].map((tr) => ({
      query: tr.querySelector('th').textContent,
      cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
      focused: tr.classList.contains('focused'),
    })),
  };
}

/** The weights table (see weightsOf), once it holds the current analysis. */
export async function readTable(page) {
  return (await page.waitForFunction(weightsOf, false, { polling: 100 })).jsonValue();
}

/**
 * The whole weights table, scrolled into view: past 16 tokens the table
 * renders the rows in view only (the focused one alone while off screen).
 * For a table of up to about 20 rows. Checked and read in one step: between
 * two, a view drawn later can push the table out of view, and it then holds
 * the focused row alone.
 */
export async function wholeTable(page) {
  return (await page.waitForFunction(weightsOf, true, { polling: 100 })).jsonValue();
}

/** The weights of query row `query` as numbers (the first row with that label). */
export async function rowOf(page, query) {
  const table = await readTable(page);
  const row = table.rows.find((r) => r.query === query);
  assert.ok(row, `no row '${query}' in ${JSON.stringify(table.rows.map((r) => r.query))}`);
  return row.cells.map(Number);
}

/** Asserts numbers equal within `tolerance` (default: printed with 4 decimals, equal to the reference rounded). */
export function assertClose(actual, expected, tolerance = 5.1e-5) {
  assert.equal(actual.length, expected.length, `${actual} vs ${expected}`);
  actual.forEach((value, k) => {
    assert.ok(Math.abs(value - expected[k]) <= tolerance, `entry ${k}: ${value} vs ${expected[k]} (all: ${actual})`);
  });
}

/** The page's address, once it holds the last change (url.js writes it in a background task). */
export async function linkOf(page) {
  return page.evaluate(() => new Promise((resolve) => {
    globalThis.scheduler.postTask(() => resolve(location.href), { priority: 'background' });
  }));
}

/** The page's hash as an object of its keys, once the address holds the last change (linkOf). */
export async function hashOf(page) {
  const link = await linkOf(page);
  return Object.fromEntries(new URLSearchParams(new URL(link).hash.slice(1)));
}

/** Centre of heatmap cell (row, col) in page coordinates. */
export async function cellPoint(page, row, col) {
  const overlay = page.locator('#heatmap-overlay');
  const [x0, y0] = (await overlay.getAttribute('data-matrix')).split(',').map(Number);
  const side = Number(await overlay.getAttribute('data-cell'));
  // Scroll the cell to the middle of the viewport, as a user would.
  await overlay.evaluate((canvas, offset) => {
    const top = canvas.getBoundingClientRect().top + window.scrollY + offset;
    window.scrollTo(0, Math.max(0, top - window.innerHeight / 2));
  }, y0 + (row + 0.5) * side);
  const box = await overlay.boundingBox();
  const [x, y] = (await overlay.getAttribute('data-matrix')).split(',').map(Number);
  const cell = Number(await overlay.getAttribute('data-cell'));
  return { x: box.x + x + (col + 0.5) * cell, y: box.y + y + (row + 0.5) * cell };
}

export function hashFor(sentence, extra = '') {
  return `#s=${encodeURIComponent(sentence)}${extra}`;
}
