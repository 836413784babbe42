// The page benchmark, before and after in one run (not a test: it measures
// and writes docs/benchmarks-page.md, it never fails on a number). Run by
// scripts/bench-page, which builds both pages and the kernel benchmark first.
//
// Sites: "after" is dist/ (this tree), "before" is BEFORE_DIST (the page at
// b5c6ec0, built by scripts/bench-page in target/bench-before/). Each is
// served by its own static server (no compression, no caching) and driven in
// headless Debian Chromium.
//
// "Settled" (the frame after the last view has drawn) is measured in the page
// by an init script that wraps requestAnimationFrame and short setTimeouts
// (≤ 20 ms; longer timers, such as the 150 ms typing pause, are waits): after
// a change, made after the page has rested IDLE ms as a user's change finds
// it, the harness waits frame by frame (rAF, then a task posted from
// it, which runs once that frame is painted) until no page callback is
// pending and none ran after that frame began; the figure is the end of the
// first frame painted after the last callback that took 0.3 ms or more.
// Long tasks come from a buffered PerformanceObserver ('longtask'); a CPU
// profile and a trace (DevTools protocol) say where the time goes.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { DIST, KING, launch, ROOT, serveDist } from './helpers.mjs';

const RUNS = Number(process.env.RUNS ?? 11); // cold loads per URL and page
const CHANGES = Number(process.env.CHANGES ?? Math.min(RUNS, 5)); // changes, keystrokes, paragraphs per figure
/**
 * The second series of cold loads goes through a real network's limits, not
 * localhost's: Lighthouse's desktop profile (40 ms of latency a request,
 * 10 Mbit/s), by DevTools' network emulation.
 */
const NETWORK = { latency: 40, throughput: (10 * 1024 * 1024) / 8 };
const HOVERS = Number(process.env.HOVERS ?? 20); // pointer moves at 1,024 tokens
const CLICKS = Number(process.env.CLICKS ?? 6); // clicks at 1,024 tokens
const SIZES = (process.env.SIZES ?? '32,128,256,512,1024').split(',').map(Number);
const VIEWPORT = { width: 1200, height: 900 };
// The rest before each measured change, in ms (IDLE=0: changes one right after the other's frame).
const IDLE = Number(process.env.IDLE ?? 100);
const SHARD = /\/data\/glove-6b-50d\/[^/]+\/[^/]+\.aews$/;

// Frequent words (all in the old page's 20,003-word subset), one token each.
const WORDS = ('the king and queen ruled the kingdom while people of the city said that it was a good time ' +
  'for all who lived there because war had ended after many years and trade grew with other lands').split(' ');

// 100 words, 67 of them outside the old 20,003-word subset: technical
// vocabulary, names, accented words. Every one is in GloVe 6B.
export const PARAGRAPH = 'Ornithologists catalogued ptarmigan, kittiwakes, shearwaters, guillemots and fulmars near ' +
  'Reykjavík; glaciologists mapped moraines, crevasses, nunataks and drumlins. A sommelier in Bordeaux paired ' +
  'gewürztraminer with jalapeño quesadillas, brioche, croissants and profiteroles for a doppelgänger of Dostoevsky. ' +
  'Epidemiologists studied zoonoses, spirochetes, prions and mycoplasma; cryptographers debated elliptic curves, ' +
  'ciphertexts and hashes. A taxidermist from Ljubljana admired narwhals, axolotls, pangolins, okapis and tapirs. ' +
  'Linguists compared diphthongs, fricatives, glottal stops and clitics in Tagalog, Xhosa, Quechua and Amharic. ' +
  'Luthiers varnished mandolins, bouzouki and zithers; cartographers drew isobars, fjords and atolls; astrophysicists ' +
  'catalogued quasars, magnetars, pulsars, nebulae and exoplanets, naïve about résumés, façades and piñatas.';

// BertViz head view (1 head) and CircuitsVis, as issue 10 quotes them: not measured here.
const BERTVIZ = { 32: 73, 128: 565, 256: 2378, 512: 9067, 1024: 29092 };

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const max = (xs) => (xs.length ? Math.max(...xs) : 0);
const sentenceOf = (n, shift = 0) => Array.from({ length: n }, (_, k) => WORDS[(k + shift) % WORDS.length]).join(' ');
const hashOf = (sentence, extra = '') => `#s=${encodeURIComponent(sentence)}${extra}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs in the page before its scripts: wraps requestAnimationFrame and short
 * setTimeouts to count the page's pending callbacks and time them, and
 * records long tasks, in `window.__bench`.
 */
function wrapCallbacks() {
  const raf = window.requestAnimationFrame.bind(window);
  const caf = window.cancelAnimationFrame.bind(window);
  const timeout = window.setTimeout.bind(window);
  const clear = window.clearTimeout.bind(window);
  const rafs = new Set();
  const timers = new Set();
  // The originals stay for the probes, whose own callbacks are not the page's.
  const B = { busy: 0, lastTaskEnd: 0, calls: [], longtasks: [], raf, timeout, rafs, timers };
  window.__bench = B;
  // Each page callback: { task (a timer) or not (a frame callback), end, ms, frame (rAF time) }.
  const timed = (callback, args, task, frame) => {
    const start = performance.now();
    try {
      callback(...args);
    } finally {
      const end = performance.now();
      B.busy += end - start;
      if (task) B.lastTaskEnd = end;
      if (B.calls.length < 100000) B.calls.push({ task, end, ms: end - start, frame });
    }
  };
  window.requestAnimationFrame = (callback) => {
    const id = raf((time) => {
      rafs.delete(id);
      timed(callback, [time], false, time);
    });
    rafs.add(id);
    return id;
  };
  window.cancelAnimationFrame = (id) => {
    rafs.delete(id);
    caf(id);
  };
  window.setTimeout = (callback, ms = 0, ...args) => {
    if (typeof callback !== 'function' || ms > 20) return timeout(callback, ms, ...args);
    const id = timeout(() => {
      timers.delete(id);
      timed(callback, args, true, null);
    }, ms);
    timers.add(id);
    return id;
  };
  window.clearTimeout = (id) => {
    timers.delete(id);
    clear(id);
  };
  const observe = (type, keep) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(keep)).observe({ type, buffered: true });
    } catch {
      // Not supported by this browser: the figure stays empty.
    }
  };
  observe('longtask', (e) => B.longtasks.push([e.startTime, e.duration]));
  // The start of the address events, before the page's own listeners run (see B.change).
  for (const type of ['popstate', 'hashchange']) window.addEventListener(type, () => { B[type] = performance.now(); }, true);
}

/** Runs in the page after wrapCallbacks: `settle(t0)`, `change(kind, arg)`, `arm(type)`, `longest`, `heatmapChange`. */
function addProbes(IDLE) {
  const B = window.__bench;
  const { raf, timeout, rafs, timers } = B;
  /**
   * Waits frame by frame until the page has nothing pending (20 s at most), then resolves
   * { ms, first, work, end, t0 }: `end` is when the first frame was painted after
   * which no callback of 0.3 ms or more ran (shorter ones, such as a rAF that
   * only posts a task, draw nothing); `work`, the page callbacks' time.
   */
  B.settle = (t0, gate = null) => new Promise((resolve) => {
    let open = !gate;
    gate?.then(() => { open = true; });
    const busy = B.busy;
    const from = B.calls.length;
    const frames = [];
    const finish = () => {
      const calls = B.calls.slice(from).filter((c) => c.ms >= 0.3);
      const done = frames.find((f) => calls.every((c) => (c.task ? c.end <= f.at : c.frame <= f.time))) ?? frames.at(-1);
      // first: the first frame painted after the change (what Interaction to Next Paint counts).
      resolve({ ms: done.painted - t0, first: frames[0].painted - t0, work: B.busy - busy, end: done.painted, t0 });
    };
    const frame = () => raf((time) => {
      const at = performance.now();
      timeout(() => {
        const painted = performance.now();
        frames.push({ time, at, painted });
        if ((open && rafs.size === 0 && timers.size === 0 && B.lastTaskEnd <= at) || painted - t0 > 20000) finish(); // a page that never settles: 20 s at most
        else frame();
      }, 0);
    });
    frame();
  });
  /** The next `type` event (capture, on window) starts a settle from its timeStamp; `B.armed` resolves with it. */
  B.arm = (type) => {
    B.armed = new Promise((resolve) => {
      window.addEventListener(type, (event) => resolve(B.settle(event.timeStamp)), { capture: true, once: true });
    });
  };
  /**
   * Makes one change (toggle a checkbox, set the hash, set the textarea) and settles. A user's
   * change comes to a page at rest, so the page first rests IDLE ms: a change made just after a
   * frame waits for the browser's next frame tick (up to 16.7 ms), which a change at rest does not.
   */
  B.change = async (kind, arg) => {
    await new Promise((resolve) => timeout(resolve, IDLE));
    const t0 = performance.now();
    // Work the harness sees start and end (the change's own handlers) counts as a task of the page's.
    const task = (start) => {
      const end = performance.now();
      B.busy += end - start;
      B.calls.push({ task: true, end, ms: end - start, frame: null });
      B.lastTaskEnd = Math.max(B.lastTaskEnd, end);
    };
    // The page draws at popstate, and a page may draw again at hashchange, a task later: the
    // settle ends after hashchange's listeners have run, each event's listeners a task (from the
    // capture listener of wrapCallbacks to this one, added after the page's).
    const listened = (type) => new Promise((resolve) => window.addEventListener(type, () => resolve(task(B[type])), { once: true }));
    const gate = kind === 'hash' ? Promise.all([listened('popstate'), listened('hashchange')]) : null;
    // The frames are watched from t0: a page at rest may paint before hashchange.
    const settling = B.settle(t0, gate);
    if (kind === 'hash') {
      location.hash = arg;
    } else if (kind === 'toggle') {
      document.getElementById(arg).click();
    } else {
      const box = document.getElementById('sentence');
      box.value = arg;
      box.dispatchEvent(new Event('input', { bubbles: true }));
    }
    if (kind !== 'hash') task(t0); // a click's and an input's handlers run within it
    const settled = await settling;
    return { ...settled, longest: B.longest(t0, settled.end) };
  };
  /** The longest task overlapping [from, to], in ms (0: none over 50 ms). */
  B.longest = (from, to) => Math.max(0, ...B.longtasks.filter(([s, d]) => s + d >= from && s <= to).map(([, d]) => d));
  /** Resolves at the frame after `#heatmap-overlay`'s label first differs from `before`: { ms, label }. */
  B.heatmapChange = (t0, before) => new Promise((resolve) => {
    const overlay = document.getElementById('heatmap-overlay');
    const done = () => raf(() => timeout(() => resolve({ ms: performance.now() - t0, label: overlay.getAttribute('aria-label') }), 0));
    if (overlay.getAttribute('aria-label') !== before) return done();
    const watch = new MutationObserver(() => {
      if (overlay.getAttribute('aria-label') === before) return;
      watch.disconnect();
      done();
    });
    watch.observe(overlay, { attributes: true, attributeFilter: ['aria-label'] });
  });
}

/** A fresh context (empty cache) whose pages are instrumented (wrapCallbacks, addProbes) unless `plain`. */
async function newContext(browser, plain = false) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  if (!plain) await context.addInitScript({ content: `(${wrapCallbacks})();\n(${addProbes})(${IDLE});` });
  return context;
}

/** A fresh context (empty cache, no service worker) and page at `url`, ready; instrumented unless `plain`. */
async function openPage(browser, url, { plain = false, timeout = 60000, network = null } = {}) {
  const context = await newContext(browser, plain);
  const page = await context.newPage();
  // The DevTools session of a slowed network, and of a plain page's wait.
  const cdp = network || plain ? await context.newCDPSession(page) : null;
  if (network) {
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false, latency: network.latency, downloadThroughput: network.throughput, uploadThroughput: network.throughput,
    });
  }
  await page.goto(url);
  if (plain) {
    // A cold load is timed: wait in the page's own world, without the
    // selector engine Playwright injects for waitForSelector (about 30 ms of
    // main thread here, which would land in the middle of the load).
    const { result } = await cdp.send('Runtime.evaluate', { expression: readyWithin(timeout), awaitPromise: true });
    if (result.value !== true) throw new Error(`the page at ${url} was not ready within ${timeout} ms`);
  } else {
    await page.waitForSelector('html[data-ready="1"]', { timeout });
  }
  return { page, context };
}

/** A page expression: a promise of true once <html data-ready="1">, or of false after `ms`. */
function readyWithin(ms) {
  return `new Promise((resolve) => {
    const html = document.documentElement;
    if (html.dataset.ready === '1') return resolve(true);
    const watch = new MutationObserver(() => {
      if (html.dataset.ready !== '1') return;
      watch.disconnect();
      resolve(true);
    });
    watch.observe(html, { attributes: true, attributeFilter: ['data-ready'] });
    setTimeout(() => resolve(false), ${Number(ms)});
  })`;
}

/** Waits until the page has nothing left to draw, then `extra` ms (idle work: warm-ups, prefetches). */
async function quiet(page, extra = 300) {
  await page.evaluate(() => window.__bench.settle(performance.now()));
  await sleep(extra);
  await page.evaluate(() => window.__bench.settle(performance.now()));
}

/** The token count the heatmap says it shows. */
async function tokenCount(page) {
  const label = await page.locator('#heatmap-overlay').getAttribute('aria-label');
  return Number(label?.match(/of ([\d,]+) tokens?/)?.[1].replaceAll(',', '') ?? NaN);
}

/** One cold load: bytes and files before the first heatmap, and the time to it. */
async function coldLoad(browser, url, network = null) {
  const { page, context } = await openPage(browser, url, { plain: true, network });
  const result = await page.evaluate(() => {
    const first = performance.getEntriesByName('first-heatmap')[0].startTime;
    const entries = [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
      .filter((e) => e.responseEnd <= first);
    return {
      first,
      bytes: entries.reduce((sum, e) => sum + e.transferSize, 0),
      files: entries.map((e) => ({ path: new URL(e.name).pathname, transfer: e.transferSize, body: e.encodedBodySize })),
    };
  });
  await context.close();
  return result;
}

/** What gzip -6 makes of each file fetched (as a static host compresses text and wasm). */
async function gzipOf(dist, files) {
  const out = {};
  for (const { path: name } of files) {
    const file = path.join(dist, decodeURIComponent(name).replace(/\/$/, '/index.html'));
    out[name] = existsSync(file) ? gzipSync(await readFile(file), { level: 6 }).length : NaN;
  }
  return out;
}

/**
 * Issue 9: RUNS cold loads of the default page and of the king sentence on
 * each site, the sites taking turns load by load: the machine's load drifts
 * over a run, and a series of one site's loads, then the other's, measured
 * the drift as much as the pages (257 then 299 ms for the same page).
 */
async function firstLoads(sites, results) {
  for (const site of sites) results[site.name].load = {};
  for (const [name, hash] of [['default', ''], ['king', hashOf(KING)]]) {
    const loads = new Map(sites.map((site) => [site, { fast: [], slow: [] }]));
    for (let k = 0; k < RUNS; k++) {
      for (const site of sites) loads.get(site).fast.push(await coldLoad(site.browser, site.url + hash));
      for (const site of sites) loads.get(site).slow.push(await coldLoad(site.browser, site.url + hash, NETWORK));
    }
    for (const site of sites) {
      const { fast, slow } = loads.get(site);
      const files = fast[0].files;
      const gz = await gzipOf(site.dist, files);
      results[site.name].load[name] = {
        ms: median(fast.map((l) => l.first)),
        slowMs: median(slow.map((l) => l.first)),
        bytes: median(fast.map((l) => l.bytes)),
        gzip: files.reduce((sum, f) => sum + (Number.isFinite(gz[f.path]) ? gz[f.path] : f.body), 0),
        files: files.map((f) => ({ ...f, gzip: gz[f.path] })),
        requests: files.length,
      };
    }
  }
}

/** Issue 9: the paragraph of rare words set as the hash of a loaded default page, in a fresh page each run. */
async function rareParagraph(site) {
  const runs = [];
  for (let k = 0; k < CHANGES; k++) {
    const { page, context } = await openPage(site.browser, site.url);
    await quiet(page);
    runs.push(await page.evaluate(async (hash) => {
      const B = window.__bench;
      const before = document.getElementById('heatmap-overlay').getAttribute('aria-label');
      const t0 = performance.now();
      location.hash = hash;
      const drawn = await B.heatmapChange(t0, before);
      await B.settle(performance.now());
      const after = performance.getEntriesByType('resource').filter((e) => e.startTime >= t0);
      const shards = after.filter((e) => /\/data\/glove-6b-50d\/[^/]+\/[^/]+\.aews$/.test(new URL(e.name).pathname));
      const status = document.getElementById('status')?.textContent ?? '';
      return {
        ms: drawn.ms,
        tokens: Number(drawn.label?.match(/of ([\d,]+) tokens?/)?.[1].replaceAll(',', '') ?? NaN),
        shardRequests: shards.length,
        shardBytes: shards.reduce((sum, e) => sum + e.transferSize, 0),
        otherRequests: after.length - shards.length,
        otherBytes: after.filter((e) => !shards.includes(e)).reduce((sum, e) => sum + e.transferSize, 0),
        unknown: Number(status.match(/(\d+) unknown/)?.[1] ?? document.querySelectorAll('#tokens .token.unknown').length),
        longest: B.longest(t0, performance.now()),
      };
    }, hashOf(PARAGRAPH)));
    await context.close();
  }
  const pick = (key) => median(runs.map((r) => r[key]));
  return Object.fromEntries(Object.keys(runs[0]).map((key) => [key, key === 'longest' ? max(runs.map((r) => r.longest)) : pick(key)]));
}

/**
 * This machine's floor under the 32-token figure: a page holding nothing but
 * the Steps tab's table as it stands at 32 tokens (24 rows of a key, six
 * numbers and a bar; the page's style sheet, none of its scripts). A change
 * writes new numbers in every cell, as a new sentence does; an empty change
 * writes nothing, which is the cost of a frame alone. Both settle as the page does.
 */
async function floor(sites, results) {
  const site = sites.at(-1);
  const context = await newContext(site.browser);
  const page = await context.newPage();
  const rows = Array.from({ length: 24 }, () => `<tr><th>word</th>${'<td>0.000</td>'.repeat(6)}<td class="bar-cell"><span class="bar"></span></td></tr>`);
  await page.route('**/bench-floor.html', (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><link rel="stylesheet" href="/style.css"><main><div class="steps-scroll"><table class="steps-table">
      <thead><tr><th>key</th><th>q·k</th><th>s</th><th>exp(s)</th><th>weight</th><th>exp(s − max)</th><th>cos</th><td></td></tr></thead>
      <tbody>${rows.join('')}</tbody></table></div></main>`,
  }));
  await page.goto(`${site.url}/bench-floor.html`);
  await page.evaluate(() => document.fonts.ready);
  const change = (write) => page.evaluate(async ([write, idle]) => {
    await new Promise((resolve) => window.__bench.timeout(resolve, idle)); // at rest, as B.change
    const t0 = performance.now();
    if (write) {
      // Numbers of the widths the tab shows, new each time (a seeded sequence).
      let seed = (window.__floorSeed = (window.__floorSeed ?? 7) + 1);
      const next = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
      for (const tr of document.querySelectorAll('tbody tr')) {
        const [key, ...cells] = tr.children;
        key.textContent = ['king', 'queen', 'the', 'kingdom', 'ruled', 'and'][Math.floor(next() * 6)];
        cells.slice(0, 6).forEach((td, c) => { td.textContent = (next() * (c === 2 ? 400 : 20) - (c < 2 ? 10 : 0)).toFixed(c === 1 ? 3 : 4); });
        cells[6].firstChild.style.width = `${(next() * 100).toFixed(1)}%`;
      }
    }
    return (await window.__bench.settle(t0)).ms;
  }, [write, IDLE]);
  for (let k = 0; k < 3; k++) await change(true);
  const written = [];
  const empty = [];
  for (let k = 0; k < Math.max(CHANGES, 9); k++) {
    written.push(await change(true));
    empty.push(await change(false));
  }
  await context.close();
  results.floor = { table: median(written), frame: median(empty) };
}

/** Issue 10: option toggle and new sentence → settled frame at `n` tokens, with `lab` open (null: the default tab). */
async function changes(site, n, lab) {
  const extra = `&focus=1${lab ? `&lab=${lab}` : ''}`;
  const { page, context } = await openPage(site.browser, site.url + hashOf(sentenceOf(n), extra));
  const shown = await tokenCount(page);
  await quiet(page);
  const change = (kind, arg) => page.evaluate(([k, a]) => window.__bench.change(k, a), [kind, arg]);
  // Once unmeasured: a tab's code is fetched when it first renders.
  await change('toggle', 'opt-scale');
  await change('hash', hashOf(sentenceOf(n, 1), extra));
  const toggles = [];
  const sentences = [];
  // Fewer at 512 and 1,024 tokens, where one change takes a second on a busy machine.
  const runs = n >= 512 ? Math.max(2, Math.ceil(CHANGES / 2)) : CHANGES;
  for (let k = 0; k < runs; k++) {
    toggles.push(await change('toggle', 'opt-scale'));
    sentences.push(await change('hash', hashOf(sentenceOf(n, k % 2 ? 1 : 0), extra)));
  }
  await context.close();
  const all = [...toggles, ...sentences];
  return {
    shown,
    toggle: median(toggles.map((r) => r.ms)),
    sentence: median(sentences.map((r) => r.ms)),
    work: median(all.map((r) => r.work)),
    longest: max(all.map((r) => r.longest)),
  };
}

/**
 * Issue 10: one character typed at the end of a 256-token text (the last
 * word becomes "kingdoms", whose shard the new page fetches after the typing
 * pause), and a Backspace (a known word: recomputed at once). Fresh page per run.
 */
async function keystrokes(site) {
  const runs = [];
  for (let k = 0; k < CHANGES; k++) {
    const { page, context } = await openPage(site.browser, site.url + hashOf(`${sentenceOf(255)} kingdom`));
    await quiet(page);
    await page.locator('#sentence').evaluate((box) => {
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    });
    const drawn = page.evaluate(() => new Promise((resolve) => {
      const B = window.__bench;
      window.addEventListener('keydown', (event) => {
        const table = document.getElementById('weights');
        const done = () => B.settle(event.timeStamp).then(resolve);
        const last = () => [...table.querySelectorAll('thead th')].at(-1)?.textContent;
        if (last() === 'kingdoms') return done();
        const watch = new MutationObserver(() => {
          if (last() !== 'kingdoms') return;
          watch.disconnect();
          done();
        });
        watch.observe(table, { subtree: true, childList: true, characterData: true });
      }, { capture: true, once: true });
    }));
    await page.evaluate(() => window.__bench.arm('keydown'));
    await page.keyboard.type('s');
    const frame = await page.evaluate(() => window.__bench.armed);
    const word = await drawn;
    await quiet(page, 100);
    await page.evaluate(() => window.__bench.arm('keydown'));
    await page.keyboard.press('Backspace');
    const known = await page.evaluate(() => window.__bench.armed);
    const longest = await page.evaluate(([a, b]) => window.__bench.longest(a, b), [frame.t0, known.end]);
    runs.push({ frame: frame.ms, word: word.ms, known: known.ms, longest });
    await context.close();
  }
  return {
    frame: median(runs.map((r) => r.frame)),
    word: median(runs.map((r) => r.word)),
    known: median(runs.map((r) => r.known)),
    longest: max(runs.map((r) => r.longest)),
  };
}

/**
 * Issue 10, the kernel on the page's own path: a fresh page opened on a
 * 1,024-token link, its first analysis job (after the page's start-up
 * warm-up), then three new texts of the same length; the time computing each
 * job, from the page's "analysis-job" measure. Null for a page without it.
 */
async function firstJob(site) {
  const firsts = [];
  const laters = [];
  for (let k = 0; k < CHANGES; k++) {
    const { page, context } = await openPage(site.browser, site.url + hashOf(sentenceOf(1024)));
    // The page keeps the measure of its last job: { start, ms } or null.
    const job = () => page.evaluate(() => {
      const entry = performance.getEntriesByName('analysis-job')[0];
      return entry ? { start: entry.startTime, ms: entry.detail.ms } : null;
    });
    await quiet(page);
    const first = await job();
    if (!first) {
      await context.close();
      return null; // a page from before the measure
    }
    firsts.push(first.ms);
    let last = first;
    for (let j = 1; j <= 3; j++) {
      await page.evaluate((hash) => { location.hash = hash; }, hashOf(sentenceOf(1024, j)));
      await page.waitForFunction((start) => performance.getEntriesByName('analysis-job')[0]?.startTime > start, last.start, { timeout: 60000 });
      last = await job();
      laters.push(last.ms);
      await quiet(page, 100);
    }
    await context.close();
  }
  return { first: median(firsts), later: median(laters) };
}

/** Page coordinates of the centre of cell (row, col) of the whole matrix. */
async function cellAt(page, row, col) {
  return page.locator('#heatmap-overlay').evaluate((overlay, [r, c]) => {
    const [x, y] = overlay.dataset.matrix.split(',').map(Number);
    const side = Number(overlay.dataset.cell);
    const box = overlay.getBoundingClientRect();
    return { x: box.left + x + (c + 0.5) * side, y: box.top + y + (r + 0.5) * side };
  }, [row, col]);
}

/** Issue 10: pointer moves and clicks over the 1,024-token heatmap (the whole matrix), each to its frame. */
async function pointer(site, n = 1024) {
  const { page, context } = await openPage(site.browser, site.url + hashOf(sentenceOf(n), '&focus=1'));
  const shown = await tokenCount(page);
  await page.locator('#heatmap-overlay').evaluate((overlay) => overlay.scrollIntoView({ block: 'center' }));
  await quiet(page);
  const measure = async (type, act) => {
    await page.evaluate((t) => window.__bench.arm(t), type);
    await act();
    return page.evaluate(() => window.__bench.armed);
  };
  const hovers = [];
  const clicks = [];
  for (let k = 0; k < HOVERS; k++) {
    const { x, y } = await cellAt(page, (k * 97 + 13) % shown, (k * 61 + 7) % shown);
    hovers.push(await measure('pointermove', () => page.mouse.move(x, y)));
  }
  for (let k = 0; k < CLICKS; k++) {
    const { x, y } = await cellAt(page, (k * 131 + 5) % shown, (k * 43 + 11) % shown);
    // Clicks apart, as one click is made: within 100 ms of the one before,
    // the page takes them for a run and draws its other views at its end.
    await sleep(200);
    await page.mouse.move(x, y);
    clicks.push(await measure('click', () => page.mouse.click(x, y)));
  }
  const longest = await page.evaluate(([a, b]) => window.__bench.longest(a, b), [hovers[0].t0, clicks.at(-1).end]);
  await context.close();
  return {
    shown,
    hover: median(hovers.map((r) => r.ms)),
    click: median(clicks.map((r) => r.ms)),
    clickFirst: median(clicks.map((r) => r.first)),
    longest,
  };
}

/** Runs `act` and returns the longest task from its start until the page has settled (and `extra` ms more). */
async function longestDuring(page, act, extra = 300) {
  const t0 = await page.evaluate(() => performance.now());
  const detail = await act();
  await quiet(page, extra);
  const t1 = await page.evaluate(() => performance.now());
  return { longest: await page.evaluate(([a, b]) => window.__bench.longest(a, b), [t0, t1]), ms: t1 - t0 - extra, ...detail };
}

/** Issue 10: the longest main-thread task while typing, pasting 1,024 words, switching tabs, opening the model view. */
async function longTasks(site) {
  const result = {};
  const { page, context } = await openPage(site.browser, site.url);
  await quiet(page);
  result.typing = await longestDuring(page, async () => {
    await page.locator('#sentence').fill('');
    await page.locator('#sentence').pressSequentially('The cat sat on the mat because it was tired', { delay: 80 });
    await sleep(500); // the typing pause, then the shards of the last words
  });
  const words = PARAGRAPH.split(/\s+/);
  const paste = Array.from({ length: 1024 }, (_, k) => words[k % words.length]).join(' ');
  const before = await page.locator('#heatmap-overlay').getAttribute('aria-label');
  result.paste = await longestDuring(page, async () => {
    const drawn = await page.evaluate(async ([text, label]) => {
      const t0 = performance.now();
      const box = document.getElementById('sentence');
      box.value = text;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      return window.__bench.heatmapChange(t0, label);
    }, [paste, before]);
    return { drawn: drawn.ms, tokens: Number(drawn.label?.match(/of ([\d,]+) tokens?/)?.[1].replaceAll(',', '') ?? NaN) };
  });
  result.tabs = await switchTabs(page);
  await context.close();
  result.meaning = await meaningChange(site).catch((error) => ({ skipped: error.message.split('\n')[0] }));
  result.model = await openModel(site);
  return result;
}

/**
 * A new 64-word sentence with the Context-vectors tab open: the longest task
 * until the tab's 64 rows (two nearest-word searches each) show it.
 */
async function meaningChange(site) {
  const extra = '&lab=meaning';
  const { page, context } = await openPage(site.browser, site.url + hashOf(sentenceOf(64), extra));
  const filled = (first) => page.waitForFunction((word) => {
    const table = document.getElementById('meaning-table');
    return table && !table.hasAttribute('aria-busy') && table.tBodies[0]?.rows.length === 64 && table.tBodies[0].rows[0].cells[0].textContent === word;
  }, first, { timeout: 60000 });
  try {
    await filled(WORDS[0]);
    await quiet(page);
    return await longestDuring(page, async () => {
      const t0 = await page.evaluate(() => performance.now());
      await page.evaluate((hash) => { location.hash = hash; }, hashOf(sentenceOf(64, 1), extra));
      await filled(WORDS[1]);
      return { filled: (await page.evaluate(() => performance.now())) - t0 };
    });
  } finally {
    await context.close();
  }
}

/**
 * Opens every teaching tab in turn (on the pasted 1,024-word text), then the
 * first again, the teaching panel scrolled to the top of the window, as a
 * reader who clicks its tabs sees it: what a tab draws is on screen.
 */
async function switchTabs(page) {
  await page.evaluate(() => document.getElementById('teach').scrollIntoView());
  const tabs = await page.locator('#teach [role="tab"]').evaluateAll((nodes) => nodes.map((n) => n.id));
  // The tabs' modules fetched first (the page's dynamic imports then find
  // them loaded): a first visit's settle would end while its module is on
  // the network, no frame or timer of the page pending, and miss its drawing.
  await page.evaluate((names) => Promise.allSettled(names.map((name) => import(new URL(`js/${name}.js`, document.baseURI).href))),
    tabs.map((id) => id.replace(/^tab-/, '')));
  await quiet(page);
  const each = {};
  for (const id of [...tabs.slice(1), tabs[0]]) {
    // The longest task of the visit and the 500 ms after it: a late one counts too.
    const visit = await longestDuring(page, async () => ({ run: await page.evaluate((tab) => window.__bench.change('toggle', tab), id) }), 500);
    each[id.replace(/^tab-/, '')] = { ...visit.run, longest: Math.max(visit.run.longest, visit.longest) };
  }
  const runs = Object.values(each);
  return {
    longest: max(runs.map((r) => r.longest)),
    ms: max(runs.map((r) => r.ms)),
    slowest: Object.entries(each).sort((a, b) => b[1].ms - a[1].ms)[0]?.[0],
    each: Object.fromEntries(Object.entries(each).map(([k, r]) => [k, Math.round(r.ms)])),
  };
}

/** Opens the trained-model view on the default sentence: the longest task until its first head is drawn. */
async function openModel(site) {
  if (!existsSync(path.join(site.dist, 'model', 'manifest.json'))) return { skipped: 'no dist/model (scripts/build-model)' };
  const { page, context } = await openPage(site.browser, site.url);
  await quiet(page);
  const result = await longestDuring(page, async () => {
    const t0 = await page.evaluate(() => performance.now());
    await page.locator('#model-open').click();
    await page.waitForFunction(() => performance.getEntriesByName('model-first-head').length > 0, null, { timeout: 60000 });
    return { firstHead: await page.evaluate((t) => performance.getEntriesByName('model-first-head')[0].startTime - t, t0) };
  }, 500);
  await context.close();
  return result;
}

/** CPU profile and trace of CHANGES option toggles and sentence changes at 1,024 tokens, What-if open: where the time goes. */
async function profile(site) {
  const extra = '&focus=1&lab=whatif';
  const { page, context } = await openPage(site.browser, site.url + hashOf(sentenceOf(1024), extra));
  await quiet(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await cdp.send('Tracing.start', { categories: 'devtools.timeline', transferMode: 'ReturnAsStream' });
  await cdp.send('Profiler.start');
  const count = 2 * Math.max(1, Math.min(CHANGES, 3));
  for (let k = 0; k < count; k++) {
    const [kind, arg] = k % 2 ? ['hash', hashOf(sentenceOf(1024, (k >> 1) % 2 ? 0 : 1), extra)] : ['toggle', 'opt-scale'];
    await page.evaluate(([a, b]) => window.__bench.change(a, b), [kind, arg]);
  }
  const { profile: cpu } = await cdp.send('Profiler.stop');
  const traced = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await traced;
  let text = '';
  for (let chunk = await cdp.send('IO.read', { handle: stream }); ; chunk = await cdp.send('IO.read', { handle: stream })) {
    text += chunk.data;
    if (chunk.eof) break;
  }
  await context.close();
  const parsed = JSON.parse(text);
  return { count, functions: selfTimes(cpu, count), phases: phaseTimes(parsed.traceEvents ?? parsed, count) };
}

/** The functions with the most self time in a CPU profile, per change: [[name file:line, ms]]. */
function selfTimes(cpu, count) {
  const nodes = new Map(cpu.nodes.map((node) => [node.id, node.callFrame]));
  const times = new Map();
  cpu.samples.forEach((id, k) => {
    const f = nodes.get(id);
    const key = f.url ? `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*?\/\/[^/]+\//, '')}:${f.lineNumber + 1}` : f.functionName;
    times.set(key, (times.get(key) ?? 0) + (cpu.timeDeltas[k] ?? 0) / 1000 / count);
  });
  return [...times].filter(([key]) => !['(idle)', '(program)', '(root)'].includes(key)).sort((a, b) => b[1] - a[1]).slice(0, 8);
}

/** Main-thread time by trace phase (style, layout, paint, …), per change. */
function phaseTimes(events, count) {
  const names = { UpdateLayoutTree: 'style', Layout: 'layout', PrePaint: 'pre-paint', Paint: 'paint', Layerize: 'layerize', MajorGC: 'GC', MinorGC: 'GC', 'V8.GC_MC_BACKGROUND_MARKING': null };
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const totals = {};
  for (const e of events) {
    const phase = names[e.name];
    if (!phase || e.ph !== 'X' || (main && (e.pid !== main.pid || e.tid !== main.tid))) continue;
    totals[phase] = (totals[phase] ?? 0) + e.dur / 1000 / count;
  }
  return totals;
}

/** Every measurement as [name, (site, result) => Promise], run in turn for each site (so both see the same load). */
function steps() {
  const list = [
    // A step of the sites together (`sites`, `results`): their loads take turns.
    ['first loads', firstLoads, { together: true }],
    ['rare paragraph', async (site, r) => { r.rare = await rareParagraph(site); }],
    ['floor', floor, { together: true }],
  ];
  for (const lab of [null, 'whatif']) {
    for (const n of SIZES) {
      list.push([`changes at ${n} tokens, ${lab ?? 'default'} tab`, async (site, r) => {
        r.changes ??= {};
        r.changes[`${lab ?? 'default'} ${n}`] = await changes(site, n, lab);
      }]);
    }
  }
  list.push(
    ['keystrokes', async (site, r) => { r.keys = await keystrokes(site); }],
    ['hover and click', async (site, r) => { r.pointer = await pointer(site); }],
    ['first analysis job', async (site, r) => { r.job = await firstJob(site); }],
    ['long tasks', async (site, r) => { r.long = await longTasks(site); }],
    ['profile', async (site, r) => { r.profile = await profile(site); }],
  );
  return list;
}

/** The machine: CPU, cores, Chromium, load average (sampled through the run). */
function machine() {
  const run = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  const lscpu = run('lscpu', []);
  return {
    cpu: lscpu.match(/Model name:\s*(.+)/)?.[1] ?? os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    nproc: Number(run('nproc', [])),
    chromium: run(process.env.CHROMIUM ?? '/usr/bin/chromium', ['--version']),
    node: process.version,
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    loads: [],
  };
}

/** The figures of one scripts/bench-kernel output (its text), or null. */
function parseKernel(text) {
  const warm = text?.match(/^\s+1024: wasm ([\d.]+) \/ [\d.]+ \/ ([\d.]+) ms; native ([\d.]+) \/ [\d.]+ \/ ([\d.]+) ms; wasm\/native ×([\d.]+) \/ ×[\d.]+ \/ ×([\d.]+)/m);
  if (!warm) return null;
  // "node first call, warm-up SPEC: 32: … ms, 256: … ms, 1024: X ms": SPEC none, then the page-like warm-up.
  const firsts = [...text.matchAll(/node first call, warm-up (\S+): .*?1024: ([\d.]+) ms/g)].map((m) => ({ spec: m[1], ms: Number(m[2]) }));
  const warmed = firsts.find((f) => f.spec !== 'none');
  const size = text.match(/kernel wasm (\d+) bytes, (\d+) gzipped/);
  const sliced = text.match(/node page's path at 1024 .*?first ([\d.]+) ms, warm ([\d.]+) ms/);
  return {
    wasm: Number(warm[1]), wasmCpu: Number(warm[2]), native: Number(warm[3]), nativeCpu: Number(warm[4]),
    ratio: Number(warm[5]), ratioCpu: Number(warm[6]),
    firstCold: firsts.find((f) => f.spec === 'none')?.ms ?? NaN,
    firstWarmed: warmed?.ms ?? NaN, warmup: warmed?.spec ?? '?',
    bytes: size ? Number(size[1]) : NaN, gzip: size ? Number(size[2]) : NaN,
    // The page's path (a block of rows per call from JS, weights only); NaN for a core without jobs.
    pathFirst: sliced ? Number(sliced[1]) : NaN, pathWarm: sliced ? Number(sliced[2]) : NaN,
  };
}

/** scripts/bench-kernel's outputs, as scripts/bench-page saved them in `dir`. */
async function kernelFigures(dir) {
  const read = async (name) => (existsSync(path.join(dir, name)) ? readFile(path.join(dir, name), 'utf8') : null);
  return {
    after: parseKernel(await read('kernel-after.txt')),
    before: parseKernel(await read('kernel-before.txt')),
    variant: (await read('kernel-after.variant'))?.trim() ?? '?',
  };
}

const fmtMs = (x) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US')} ms` : '–');
const fmtB = (x) => (Number.isFinite(x) ? `${Math.round(x).toLocaleString('en-US')} B` : '–');
const fmtN = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');
const fmtTask = (x) => (!Number.isFinite(x) ? '–' : x > 0 ? fmtMs(x) : 'none > 50 ms');
/** A figure of the before page, or '–' when it was not measured. */
const of = (site, pick, format) => {
  if (!site) return '–';
  try {
    const value = pick(site);
    return typeof value === 'string' ? value : format(value);
  } catch {
    return '–';
  }
};
const row = (cells) => `| ${cells.join(' | ')} |`;

function methodSection(m) {
  const loads = m.loads.map((l) => l.toFixed(2));
  const high = Math.max(...m.loads) >= 0.75 * m.nproc;
  return [
    '# Page benchmarks',
    '',
    'Written by `scripts/bench-page` (`tests/e2e/bench-page.mjs`); a benchmark, not a test. **Before** is the',
    'page at commit b5c6ec0 (one 2.2 MB q16 vector file, `app.js`), built once in a git worktree under',
    '`target/bench-before/`; **after** is this tree. Both are served from localhost by the benchmark\'s own',
    'static server (no compression, `no-store`) and driven in headless Debian Chromium, in one run.',
    '',
    '- *First load*: a fresh browser context per load (empty cache, no service worker); bytes are the',
    '  `transferSize` of the navigation and of every resource whose `responseEnd` ≤ the `first-heatmap`',
    '  mark; "gzip" is what `gzip -6` makes of the same files. Medians of ' + RUNS + ' cold loads, the two pages\' loads',
    '  taking turns (the machine\'s load drifts over a run); a second',
    '  series goes through Lighthouse\'s desktop network profile (40 ms of latency a request, 10 Mbit/s,',
    '  by DevTools\' network emulation; files uncompressed, as this server sends them): on localhost,',
    '  neither the bytes nor the requests made one after another cost much.',
    '- *Settled*: from the change (a click on `#opt-scale`, or `location.hash` set to another sentence of',
    '  the same words, every vector already loaded), made after the page has rested ' + IDLE + ' ms as a user\'s change',
    '  finds it (a change made just after a frame waits for the browser\'s next frame tick, up to 16.7 ms;',
    '  `IDLE=0` measures that way), to the end of the first frame painted after the',
    '  last view has drawn, deferred teaching tab included. An init script counts the page\'s pending',
    '  `requestAnimationFrame` and short `setTimeout` (≤ 20 ms) callbacks; the figure ends when the first',
    '  frame after the last callback of 0.3 ms or more is painted (when a task posted from its rAF runs;',
    '  shorter callbacks draw nothing). The address is written in a background `scheduler.postTask` task',
    '  (`url.js`), which draws nothing and is not counted. So every "→ frame" figure includes the browser\'s',
    '  rendering of that frame (style, layout, paint, commit; headless Chromium begins one soon after a change',
    '  made by script, while input events wait for the frame that dispatches them: see the pointer move).',
    '  "Work" is the main-thread time of the change itself plus those callbacks. Focus on',
    '  row 1, so the Steps tab has content. Medians of ' + CHANGES + ' option toggles and ' + CHANGES + ' sentence changes (' + Math.max(2, Math.ceil(CHANGES / 2)) + ' each at 512 and 1,024 tokens).',
    '- *Keystroke* and *pointer*: from the input event\'s `timeStamp` (real input through the DevTools',
    '  protocol) to the frame, as above. Long tasks: `PerformanceObserver` `longtask` (only tasks over',
    '  50 ms exist for it); "none > 50 ms" means none was reported.',
    '',
    '## Machine',
    '',
    `${m.cpu}, ${m.cores} cores (\`nproc\` ${m.nproc}), ${m.chromium}, Node ${m.node}; ${m.date} UTC.`,
    `Load average (1 min) at the start, the highest sampled during the run, and at the end: ${loads.join(', ')}.` +
      (high ? ` **The machine was busy (load ≥ ${(0.75 * m.nproc).toFixed(1)} on ${m.nproc} cores): timings are inflated and noisy; compare before and after within this run only.**` : ''),
    '',
  ];
}

function firstLoadSection(before, after) {
  const lines = ['## First load (issue 9)', '', row(['', 'before', 'after', 'target']), row(['---', '---:', '---:', '---:'])];
  for (const [key, label] of [['default', 'default page'], ['king', `\`#s=${KING}\``]]) {
    lines.push(
      row([`${label}: bytes transferred before the first heatmap`, of(before, (s) => s.load[key].bytes, fmtB), fmtB(after.load[key].bytes), '≤ 1,000,000 B (aim: half)']),
      row([`${label}: the same files gzip-compressed`, of(before, (s) => s.load[key].gzip, fmtB), fmtB(after.load[key].gzip), '']),
      row([`${label}: requests`, of(before, (s) => s.load[key].requests, fmtN), fmtN(after.load[key].requests), '']),
      row([`${label}: navigation → first heatmap (median of ${RUNS})`, of(before, (s) => s.load[key].ms, fmtMs), fmtMs(after.load[key].ms), '≤ 150 ms']),
      row([`${label}: the same over 10 Mbit/s with 40 ms a request`, of(before, (s) => s.load[key].slowMs, fmtMs), fmtMs(after.load[key].slowMs), '']),
    );
  }
  for (const [name, site] of [['after', after], ['before', before]]) {
    if (!site) continue;
    lines.push('', `Files before the first heatmap of the default page, ${name}:`, '', row(['file', 'transferred', 'gzip -6']), row(['---', '---:', '---:']));
    const shards = site.load.default.files.filter((f) => SHARD.test(f.path));
    for (const f of site.load.default.files.filter((file) => !SHARD.test(file.path))) lines.push(row([`\`${f.path}\``, fmtN(f.transfer), fmtN(f.gzip)]));
    if (shards.length) {
      const sum = (key) => shards.reduce((s, f) => s + f[key], 0);
      lines.push(row([`${shards.length} shard files \`/data/glove-6b-50d/<set>/*.aews\``, fmtN(sum('transfer')), fmtN(sum('gzip'))]));
    }
  }
  return [...lines, ''];
}

function rareSection(before, after) {
  return [
    '## A paragraph of 100 rare words (issue 9)',
    '',
    'From a loaded default page, the hash set to this paragraph (67 of its 100 words are outside the old',
    '20,003-word subset): fresh page per run, medians of ' + CHANGES + '.',
    '',
    `> ${PARAGRAPH}`,
    '',
    row(['', 'before', 'after', 'target']),
    row(['---', '---:', '---:', '---']),
    row(['shard requests', of(before, () => 'none (one file)', fmtN), fmtN(after.rare.shardRequests), 'a few small requests']),
    row(['shard bytes transferred', of(before, () => '0 (all in the 2.2 MB file)', fmtB), fmtB(after.rare.shardBytes), '']),
    row(['other requests after the change', of(before, (s) => s.rare.otherRequests, fmtN), fmtN(after.rare.otherRequests), '']),
    row(['unknown words (left out)', of(before, (s) => s.rare.unknown, fmtN), fmtN(after.rare.unknown), '0']),
    row(['tokens in the heatmap', of(before, (s) => s.rare.tokens, fmtN), fmtN(after.rare.tokens), '']),
    row(['hash set → its heatmap drawn', of(before, (s) => s.rare.ms, fmtMs), fmtMs(after.rare.ms), '']),
    row(['longest task', of(before, (s) => s.rare.longest, fmtTask), fmtTask(after.rare.longest), '≤ 50 ms']),
    '',
  ];
}

const CHANGE_TARGET = { 32: '≤ 16 ms', 128: '≤ 30 ms', 1024: '≤ 100 ms' };

/** `floor`: the figures of `floor()` (absent in a report of an older run). */
function changeSection(before, after, floor) {
  const lines = [
    '## Sentence change → settled frame (issue 10)',
    '',
    'Option = a click on "Divide scores by √d"; sentence = a new sentence of as many words (vectors loaded).',
    'BertViz figures are quoted from issue 10 (head view, 1 head, measured earlier on this kind of machine),',
    'not measured here; CircuitsVis took 65 s at 1,024 tokens (quoted likewise).',
  ];
  for (const [lab, title] of [['default', 'the default teaching tab (before: What if, its default; after: Steps)'], ['whatif', 'the What-if tab open (`lab=whatif`: a second analysis)']]) {
    lines.push('', `With ${title}:`, '',
      row(['tokens', 'before: option', 'before: sentence', 'after: option', 'after: sentence', 'work before / after', 'longest task before / after', 'target', 'BertViz (quoted)']),
      row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const n of SIZES) {
      const key = `${lab} ${n}`;
      const a = after.changes[key];
      const shown = a.shown !== n ? ` (${a.shown} shown)` : '';
      lines.push(row([`${n.toLocaleString('en-US')}${shown}`,
        of(before, (s) => s.changes[key].toggle, fmtMs), of(before, (s) => s.changes[key].sentence, fmtMs),
        fmtMs(a.toggle), fmtMs(a.sentence), `${of(before, (s) => s.changes[key].work, fmtMs)} / ${fmtMs(a.work)}`,
        `${of(before, (s) => s.changes[key].longest, fmtTask)} / ${fmtTask(a.longest)}`,
        CHANGE_TARGET[n] ?? '', BERTVIZ[n] ? fmtMs(BERTVIZ[n]) : '']));
    }
  }
  if (floor) {
    lines.push('', `This machine's floor under the 32-token figure, with none of the page's code: a page holding only the`,
      `Steps tab's table as it stands at 32 tokens (24 rows of a key, six numbers and a bar, the page's style sheet)`,
      `takes ${fmtMs(floor.table)} from writing new numbers in every cell, as a new sentence does, to its settled frame;`,
      `a frame with nothing to draw takes ${fmtMs(floor.frame)} (medians of ${Math.max(CHANGES, 9)}).`);
  }
  return [...lines, ''];
}

function interactionSection(before, after) {
  const k = (pick, format = fmtMs) => [of(before, (s) => pick(s.keys), format), format(pick(after.keys))];
  const p = (pick, format = fmtMs) => [of(before, (s) => pick(s.pointer), format), format(pick(after.pointer))];
  return [
    '## Keystroke, hover and click (issue 10)',
    '',
    `A 256-token text ending in "kingdom", focused at its end; one "s" typed (the new word "kingdoms": the`,
    `new page fetches its shard after the 150 ms typing pause, the old one has it in memory), then`,
    `Backspace (a known word: recomputed at once). Fresh page per run, medians of ${CHANGES}. Pointer: ${HOVERS}`,
    `moves and ${CLICKS} clicks (200 ms apart) over cells spread over the whole 1,024-token matrix (no zoom), focus on row 1.`,
    'A click\'s first frame is the one Interaction to Next Paint counts: the heatmap\'s focus band and tooltip;',
    'the settled frame has every view drawn (the Steps tab, the chips, the table, the status).',
    '',
    row(['', 'before', 'after', 'target']),
    row(['---', '---:', '---:', '---:']),
    row(['keystroke "s" → its frame (256 tokens)', ...k((s) => s.frame), '≤ 16 ms']),
    row(['keystroke "s" → "kingdoms" drawn in the heatmap and table', ...k((s) => s.word), '']),
    row(['Backspace → its frame, recomputed (256 tokens)', ...k((s) => s.known), '≤ 16 ms']),
    row(['longest task while typing these', ...k((s) => s.longest, fmtTask), '≤ 50 ms']),
    row(['pointer move → frame (1,024 tokens)', ...p((s) => s.hover), '≤ 16 ms']),
    row(['click on a cell → its first frame, the focus drawn (1,024 tokens)', ...p((s) => s.clickFirst ?? NaN), '≤ 16 ms']),
    row(['click on a cell → settled frame, every view drawn (1,024 tokens)', ...p((s) => s.click), '']),
    row(['longest task while hovering and clicking', ...p((s) => s.longest, fmtTask), '≤ 50 ms']),
    '',
  ];
}

function longTaskSection(before, after) {
  const l = (pick, format = fmtTask) => [of(before, (s) => pick(s.long), format), format(pick(after.long))];
  const model = (s) => (s.long.model.skipped ? `skipped: ${s.long.model.skipped}` : fmtTask(s.long.model.longest));
  return [
    '## Longest main-thread task (issue 10)',
    '',
    'Typing "The cat sat on the mat because it was tired" into an emptied box (80 ms a key); then pasting',
    '1,024 words (the rare paragraph repeated: the textarea set, one input event; new shards for the new',
    'page); then, on that text, every teaching tab in turn (the teaching panel scrolled to the top of the window, the tabs\' modules',
    'fetched first; a tab\'s longest task is taken over its visit and the 500 ms after it); on a page at a 64-word sentence with the',
    'Context-vectors tab open, another 64-word sentence (in the link) until the tab has found the nearest',
    'words of all 64; and, on a fresh default page, opening the trained-model view until its first head',
    'is drawn.',
    '',
    row(['while', 'before', 'after', 'target']),
    row(['---', '---:', '---:', '---:']),
    row(['typing a sentence', ...l((s) => s.typing.longest), '≤ 50 ms']),
    row(['pasting 1,024 words', ...l((s) => s.paste.longest), '≤ 50 ms']),
    row(['… paste → its heatmap drawn', ...l((s) => s.paste.drawn, fmtMs), '']),
    row(['… tokens in that heatmap', ...l((s) => s.paste.tokens, fmtN), '']),
    row(['switching teaching tabs (1,024 tokens)', ...l((s) => s.tabs.longest), '≤ 50 ms']),
    row(['… slowest tab → settled frame', ...l((s) => `${s.tabs.slowest} ${fmtMs(s.tabs.ms)}`, String), '']),
    row(['a new sentence, Context vectors tab open (64 words)', ...l((s) => s.meaning?.longest ?? NaN), '≤ 50 ms']),
    row(['… its 64 rows of nearest words filled', ...l((s) => s.meaning?.filled ?? NaN, fmtMs), '']),
    row(['opening the model view', of(before, model, String), model(after), '≤ 50 ms']),
    row(['… click → first head drawn', ...l((s) => s.model.firstHead, fmtMs), '']),
    '',
    `Each tab, after (ms to its settled frame): ${Object.entries(after.long.tabs.each).map(([t, v]) => `${t} ${v}`).join(', ')}.` +
      (before ? ` Before: ${Object.entries(before.long.tabs.each).map(([t, v]) => `${t} ${v}`).join(', ')}.` : ''),
    ...(after.long.tabs.ms > 10000 ? ['', `**After: a tab took ${fmtMs(after.long.tabs.ms)} to settle** (the benchmark waits 20 s at most): the page kept scheduling renders (in`,
      'development runs: the same shards fetched again about once a second, each arrival re-rendering every token).'] : []),
    '',
  ];
}

/** `pages`: the sites' results ({ before, after }), for the page's own first job. */
function kernelSection(kernel, pages) {
  const { after: a, before: b } = kernel;
  const lines = ['## The wasm kernel (issue 10)', ''];
  if (!a) {
    return [...lines, 'Not measured in this run: see `scripts/bench-kernel` (run it, or `KERNEL=1 scripts/bench-page`).', ''];
  }
  const x = (k, pick, format) => (k ? format(pick(k)) : '–');
  const ratio = (v) => `×${v.toFixed(2)}`;
  return [
    ...lines,
    `From \`scripts/bench-kernel\` (Node, same V8 as Chromium; native runs alternate with wasm): \`self_attention\``,
    `at 1,024 tokens, d = 50, seeded GloVe-like vectors. After = variant \`${kernel.variant}\` of today's core;`,
    'before = b5c6ec0\'s core at opt-level "s" (the page\'s build then). Native is today\'s core (release) in both.',
    '',
    row(['', 'before', 'after', 'target']),
    row(['---', '---:', '---:', '---:']),
    row(['wasm, warm (median)', x(b, (k) => k.wasm, fmtMs), x(a, (k) => k.wasm, fmtMs), '']),
    row(['native, warm (median)', x(b, (k) => k.native, fmtMs), x(a, (k) => k.native, fmtMs), '']),
    row(['wasm / native (wall; on-CPU)', x(b, (k) => `${ratio(k.ratio)}; ${ratio(k.ratioCpu)}`, String), x(a, (k) => `${ratio(k.ratio)}; ${ratio(k.ratioCpu)}`, String), '≤ ×1.3']),
    row(['first call after instantiation', x(b, (k) => k.firstCold, fmtMs), x(a, (k) => k.firstCold, fmtMs), '']),
    row(['first call / warm', x(b, (k) => ratio(k.firstCold / k.wasm), String), x(a, (k) => ratio(k.firstCold / k.wasm), String), '≤ ×2']),
    row([`first call after a start-up warm-up (\`${a.warmup}\`, see scripts/bench-kernel) / warm`, x(b, (k) => ratio(k.firstWarmed / k.wasm), String), x(a, (k) => ratio(k.firstWarmed / k.wasm), String), '≤ ×2']),
    row(['the page\'s path (weights only, a block of 32 rows per call from JS), no warm-up: first job / warm job',
      x(b, (k) => (Number.isNaN(k.pathFirst) ? 'no jobs' : `${fmtMs(k.pathFirst)} / ${fmtMs(k.pathWarm)}`), String),
      x(a, (k) => `${fmtMs(k.pathFirst)} / ${fmtMs(k.pathWarm)} = ${ratio(k.pathFirst / k.pathWarm)}`, String), '≤ ×2']),
    row(['the page itself: its first 1,024-token analysis (after its start-up warm-up) / later ones, computing time',
      of(pages.before, (p) => `${fmtMs(p.job.first)} / ${fmtMs(p.job.later)} = ${ratio(p.job.first / p.job.later)}`, String),
      of(pages.after, (p) => `${fmtMs(p.job.first)} / ${fmtMs(p.job.later)} = ${ratio(p.job.first / p.job.later)}`, String), '≤ ×2']),
    row(['kernel wasm size (gzip)', x(b, (k) => `${fmtN(k.bytes)} (${fmtN(k.gzip)})`, String), x(a, (k) => `${fmtN(k.bytes)} (${fmtN(k.gzip)})`, String), '']),
    '',
  ];
}

function profileSection(before, after) {
  const lines = ['## Where the time goes at 1,024 tokens', '',
    `A CPU profile (sampling) and a trace of ${after.profile.count} changes (option toggles and sentence changes, What-if open),`,
    'per change: the functions with the most self time (wasm functions are unnamed in the optimized build), and',
    'the browser\'s own phases on the main thread.', ''];
  for (const site of [after, before].filter(Boolean)) {
    const { functions, phases } = site.profile;
    lines.push(`- ${site.name}, functions: ${functions.map(([name, ms]) => `\`${name}\` ${fmtMs(ms)}`).join('; ')}`,
      `- ${site.name}, phases: ${Object.entries(phases).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${fmtMs(ms)}`).join(', ')}`);
  }
  return [...lines, ''];
}

/** A few lines for the terminal. */
function summary({ before, after, floor }, kernel, m) {
  const pair = (pick, format = fmtMs) => `${of(before, pick, format)} → ${of(after, pick, format)}`;
  const at = (lab) => SIZES.map((n) => `${n}: ${pair((s) => s.changes[`${lab} ${n}`].sentence)}`).join(', ');
  return [
    `bench-page (before → after; load ${m.loads.map((l) => l.toFixed(2)).join(', ')} on ${m.nproc} cores)`,
    `  first load, default: ${pair((s) => s.load.default.bytes, fmtB)}, ${pair((s) => s.load.default.ms)} (target ≤ 1,000,000 B, ≤ 150 ms)`,
    `  first load, king:    ${pair((s) => s.load.king.bytes, fmtB)}, ${pair((s) => s.load.king.ms)}`,
    `  first load over 10 Mbit/s with 40 ms a request, default / king: ${pair((s) => s.load.default.slowMs)} / ${pair((s) => s.load.king.slowMs)}`,
    `  rare paragraph: ${fmtN(after.rare.shardRequests)} shard requests, ${fmtB(after.rare.shardBytes)}, drawn in ${pair((s) => s.rare.ms)}; unknown words ${pair((s) => s.rare.unknown, fmtN)}`,
    `  sentence change → settled, default tab: ${at('default')}`,
    `  floor: the Steps table of 32 tokens alone, new numbers → settled ${fmtMs(floor?.table)}; an empty frame ${fmtMs(floor?.frame)}`,
    `  sentence change → settled, What-if tab: ${at('whatif')}`,
    `  keystroke at 256: ${pair((s) => s.keys.frame)} (new word drawn ${pair((s) => s.keys.word)}; Backspace ${pair((s) => s.keys.known)})`,
    `  hover / click at 1,024: ${pair((s) => s.pointer.hover)} / ${pair((s) => s.pointer.clickFirst ?? NaN)} (settled ${pair((s) => s.pointer.click)})`,
    `  longest task: typing ${pair((s) => s.long.typing.longest, fmtTask)}; paste ${pair((s) => s.long.paste.longest, fmtTask)}; tabs ${pair((s) => s.long.tabs.longest, fmtTask)}; Context vectors ${pair((s) => s.long.meaning?.longest ?? NaN, fmtTask)}; model ${pair((s) => s.long.model.longest ?? NaN, fmtTask)}`,
    kernel.after ? `  kernel at 1,024: wasm/native ×${kernel.before?.ratio ?? '–'} → ×${kernel.after.ratio}; first/warm ×${kernel.before ? (kernel.before.firstCold / kernel.before.wasm).toFixed(2) : '–'} → ×${(kernel.after.firstCold / kernel.after.wasm).toFixed(2)}` : '  kernel: not measured (see scripts/bench-kernel)',
  ];
}

/** Measures every step on both sites, in turn; resolves to { machine, results }. */
async function measure() {
  const m = machine();
  m.loads.push(os.loadavg()[0]);
  const started = Date.now();
  const log = (text) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s, load ${os.loadavg()[0].toFixed(2)}] ${text}`);
  const sites = [{ name: 'after', dist: DIST }];
  const beforeDist = process.env.BEFORE_DIST;
  if (beforeDist && existsSync(path.join(beforeDist, 'index.html'))) sites.unshift({ name: 'before', dist: beforeDist });
  else log('no before page (BEFORE_DIST): the before column stays empty');
  const browser = await launch();
  const results = {};
  try {
    for (const site of sites) Object.assign(site, { browser, server: await serveDist(site.dist) });
    for (const site of sites) site.url = site.server.url;
    const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
    for (const site of sites) results[site.name] = { name: site.name };
    for (const [name, step, { together = false } = {}] of steps().filter(([name]) => !only || only.test(name))) {
      if (together) {
        log(`${sites.map((site) => site.name).join(' and ')}, in turn: ${name}`);
        await step(sites, results);
      } else {
        for (const site of sites) {
          log(`${site.name}: ${name}`);
          await step(site, results[site.name]);
        }
      }
      m.loads.push(os.loadavg()[0]);
    }
  } finally {
    await browser.close();
    for (const site of sites) await site.server?.close();
  }
  m.loads.push(os.loadavg()[0]);
  // Start, the highest sampled during the run, end.
  m.loads = [m.loads[0], Math.max(...m.loads.slice(1, -1)), m.loads.at(-1)];
  log('measured');
  return { machine: m, results };
}

/** Writes docs/benchmarks-page.md and the raw figures (results.json), and prints the summary. */
async function report({ machine: m, results }, out) {
  const kernel = await kernelFigures(out);
  const { before, after } = results;
  const lines = [
    ...methodSection(m), ...firstLoadSection(before, after), ...rareSection(before, after),
    ...changeSection(before, after, results.floor), ...interactionSection(before, after), ...longTaskSection(before, after),
    ...kernelSection(kernel, results), ...profileSection(before, after),
  ];
  const target = path.join(ROOT, 'docs', 'benchmarks-page.md');
  await writeFile(target, lines.join('\n'));
  await writeFile(path.join(out, 'results.json'), JSON.stringify({ machine: m, results }, null, 1));
  console.log(summary(results, kernel, m).join('\n'));
  console.log(`wrote ${path.relative(ROOT, target)}`);
}

// REPORT_ONLY=1: write the report again from the last run's figures (and the kernel's latest output).
const out = process.env.KERNEL_OUT ?? path.join(ROOT, 'target', 'bench-page');
await mkdir(out, { recursive: true });
if (process.env.ONLY) {
  // A few steps, while working on them: printed, the report and results.json left as they are.
  console.log(JSON.stringify((await measure()).results, null, 1));
} else {
  await report(process.env.REPORT_ONLY === '1' ? JSON.parse(await readFile(path.join(out, 'results.json'), 'utf8')) : await measure(), out);
}
