// The trained-model benchmark (not a test: it measures and writes, it never
// fails on a number). Run by scripts/bench-model, which writes
// docs/benchmarks-model.md.
//
// - bytes downloaded when the model view opens on the cat sentence (model
//   files, the model's wasm and its modules), and what gzip would make of them;
// - time from the click on the view's button to the first head drawn: cold (a
//   fresh browser profile) and cached (the same profile again: Cache API);
// - the worker's forward pass (all 72 heads) for 12 and 128 pieces;
// - the longest main-thread task (Long Tasks API) from the click until the
//   runs are done, and while sentences are re-run.
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { DIST, launch, ROOT, serveDist } from './helpers.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const SENTENCE_RUNS = Number(process.env.SENTENCE_RUNS ?? 7);
const CAT = 'The cat sat on the mat because it was tired';
const PARAGRAPH = (await readFile(path.join(ROOT, 'crates/attention-model/testdata/paragraph.txt'), 'utf8')).trim();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;
const mb = (x) => `${(x / 1e6).toFixed(2)} MB`;
const int = (x) => Math.round(x).toLocaleString('en-US');

/** Records long tasks from the start of every page of the context. */
async function newContext(browser) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
  });
  return context;
}

/** Clicks the view's button; resolves when the first head is drawn: { clickToHead, runMs, longest }. */
async function openAndTime(page) {
  return page.evaluate(() => new Promise((resolve) => {
    const t0 = performance.now();
    document.getElementById('model-open').click();
    const check = () => {
      const mark = performance.getEntriesByName('model-first-head')[0];
      if (!mark) {
        setTimeout(check, 5);
        return;
      }
      const root = document.getElementById('model-view');
      // Let the frame after the first head finish, so its task is counted.
      requestAnimationFrame(() => setTimeout(() => {
        const tasks = window.__longTasks.filter(([start]) => start >= t0);
        resolve({
          clickToHead: mark.startTime - t0,
          runMs: Number(root.dataset.runMs),
          longest: tasks.reduce((m, [, d]) => Math.max(m, d), 0),
          status: root.querySelector('.model-status').textContent,
        });
      }, 50));
    };
    check();
  }));
}

/** Puts `sentence` in the box and waits for the model's result: { n, runMs }. */
async function runSentence(page, sentence) {
  return page.evaluate((text) => new Promise((resolve) => {
    const root = document.getElementById('model-view');
    const before = root.querySelector('.model-status').textContent;
    const box = document.getElementById('sentence');
    box.value = text;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    const check = () => {
      const status = root.querySelector('.model-status').textContent;
      if (root.dataset.state === 'ready' && status !== before) resolve({ n: Number(root.dataset.n), runMs: Number(root.dataset.runMs) });
      else setTimeout(check, 5);
    };
    check();
  }), sentence);
}

/** Switches the model view between pieces and words; waits for the new result. */
async function toggleUnits(page) {
  return page.evaluate(() => new Promise((resolve) => {
    const root = document.getElementById('model-view');
    const before = root.querySelector('.model-status').textContent;
    const next = root.querySelector('input[name="model-units"]:not(:checked)');
    next.click();
    const check = () => {
      const status = root.querySelector('.model-status').textContent;
      if (root.dataset.state === 'ready' && status !== before) requestAnimationFrame(() => setTimeout(resolve, 20));
      else setTimeout(check, 5);
    };
    check();
  }));
}

const server = await serveDist();
const browser = await launch();
const hash = `#s=${encodeURIComponent(CAT)}&focus=7`;
const cold = [];
const cached = [];
const catRuns = [];
const paragraphRuns = [];
let files = [];
let longestWhileRunning = 0;
let longestWhileTyping = 0;
let longestOnOpen = 0;
let version = '';
try {
  version = browser.version();
  for (let r = 0; r < RUNS; r++) {
    const context = await newContext(browser);
    const sizes = new Map();
    context.on('response', async (response) => {
      const { pathname } = new URL(response.url());
      const length = Number(response.headers()['content-length'] ?? 0);
      sizes.set(pathname, length);
    });
    const page = await context.newPage();
    await page.goto(server.url + hash);
    await page.waitForSelector('html[data-ready="1"]', { timeout: 30000 });
    sizes.clear();
    const first = await openAndTime(page);
    cold.push(first.clickToHead);
    longestOnOpen = Math.max(longestOnOpen, first.longest);
    if (r === 0) files = [...sizes].sort((a, b) => b[1] - a[1]);

    // The same profile again: the model comes from the Cache API.
    const again = await context.newPage();
    await page.close();
    await again.goto(server.url + hash);
    await again.waitForSelector('html[data-ready="1"]', { timeout: 30000 });
    const second = await openAndTime(again);
    cached.push(second.clickToHead);
    longestOnOpen = Math.max(longestOnOpen, second.longest);

    if (r === 0) {
      // Sentences after load: alternate so that every run is a new forward pass.
      const typed = await again.evaluate(() => performance.now());
      for (let k = 0; k < SENTENCE_RUNS; k++) {
        paragraphRuns.push(await runSentence(again, PARAGRAPH + (k % 2 ? ' ' : '')));
        catRuns.push(await runSentence(again, CAT + (k % 2 ? ' ' : '')));
      }
      longestWhileTyping = await again.evaluate((start) => window.__longTasks.filter(([s]) => s >= start).reduce((m, [, d]) => Math.max(m, d), 0), typed);
      // The model's own main-thread work (receiving a result, the grid, the
      // head, the table), without the GloVe views': switch pieces ↔ words,
      // which re-runs the model only.
      for (const sentence of [PARAGRAPH, CAT]) {
        await runSentence(again, sentence + '  ');
        const t0 = await again.evaluate(() => performance.now());
        for (let k = 0; k < 4; k++) await toggleUnits(again);
        longestWhileRunning = Math.max(longestWhileRunning, await again.evaluate((start) => window.__longTasks.filter(([s]) => s >= start).reduce((m, [, d]) => Math.max(m, d), 0), t0));
      }
    }
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}

// What gzip makes of the same files (a static host compresses wasm and text).
let total = 0;
let gzipTotal = 0;
const rows = [];
for (const [file, bytes] of files) {
  let gz = bytes;
  try {
    gz = gzipSync(await readFile(path.join(DIST, decodeURIComponent(file)))).length;
  } catch {
    // not a file of dist/
  }
  total += bytes;
  gzipTotal += gz;
  rows.push([file, bytes, gz]);
}
const shardRows = rows.filter(([f]) => f.startsWith('/model/embeddings/'));
const otherRows = rows.filter(([f]) => !f.startsWith('/model/embeddings/'));
const shardBytes = shardRows.reduce((s, [, b]) => s + b, 0);
const shardGzip = shardRows.reduce((s, [, , g]) => s + g, 0);

const cpu = os.cpus()[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
let simd = 'no';
try {
  const wasm = await readFile(path.join(DIST, 'pkg-model/attention_model_wasm_bg.wasm'));
  simd = execFileSync(path.join(ROOT, 'tests/node_modules/.bin/wasm-dis'), [path.join(DIST, 'pkg-model/attention_model_wasm_bg.wasm')], { maxBuffer: 1 << 28 })
    .toString().includes('f32x4') ? 'yes (simd128)' : 'no';
  void wasm;
} catch {
  simd = 'unknown';
}
const wasmBytes = (await readFile(path.join(DIST, 'pkg-model/attention_model_wasm_bg.wasm'))).length;
const catMedian = median(catRuns.map((r) => r.runMs));
const paragraphMedian = median(paragraphRuns.map((r) => r.runMs));
const date = new Date().toISOString().slice(0, 10);

const md = `# Trained-model benchmarks

Measured by \`scripts/bench-model\` (it writes this file; the numbers are not tests). Headless
Debian Chromium ${version}, the page served from localhost by the benchmark's own static server
without compression, ${os.cpus().length} CPU cores (${cpu}), shared with other work, so
timings vary by some tens of percent between runs. Medians; ${date}. Model wasm: ${int(wasmBytes)} B,
SIMD: ${simd}.

## Summary

| what | value | target |
|---|---:|---:|
| bytes downloaded when the view opens on the cat sentence | ${mb(total)} (${mb(gzipTotal)} gzipped) | ≤ 25 MB |
| click → first head drawn, cold (fresh profile, ${RUNS} runs) | ${ms(median(cold))} | |
| click → first head drawn, cached (Cache API, ${RUNS} runs) | ${ms(median(cached))} | |
| forward pass, all 72 heads, ${catRuns[0]?.n ?? 12} pieces (the worker's run, ${catRuns.length} runs) | ${ms(catMedian)} | ≤ 100 ms |
| forward pass, all 72 heads, ${paragraphRuns[0]?.n ?? 128} pieces (${paragraphRuns.length} runs) | ${ms(paragraphMedian)} | |
| longest main-thread task, from the click to the first head (all runs) | ${ms(longestOnOpen)} | ≤ 50 ms |
| longest main-thread task while the model re-runs (pieces ↔ words, 12 and ${paragraphRuns[0]?.n ?? 128} pieces) | ${ms(longestWhileRunning)} | ≤ 50 ms |
| longest main-thread task while the sentence changes (the GloVe and teaching views recompute too) | ${ms(longestWhileTyping)} | |

"Forward pass" is the worker's \`session.run\`: embeddings, 6 layers, and the copy of every
head's \`(n, n)\` weights. "Click → first head" adds the download (cold), reading the 22 MB
core (checksum, parse), the shards, the run, and drawing the grid, the head and its table.
Long tasks are the main thread's (Long Tasks API, > 50 ms; 0 means none); the worker's own work is not one.
Changing the sentence also recomputes the GloVe views on the main thread (docs/benchmarks-page.md);
the last row switches pieces ↔ words, which re-runs only the model, to show the model view's own share.

## Files fetched when the view opens (cat sentence, cold)

| file | bytes | gzip |
|---|---:|---:|
${otherRows.map(([f, b, g]) => `| ${f} | ${int(b)} | ${int(g)} |`).join('\n')}
| ${shardRows.length} embedding shards (/model/embeddings/…) | ${int(shardBytes)} | ${int(shardGzip)} |
| **total** | **${int(total)}** | **${int(gzipTotal)}** |
`;
await writeFile(path.join(ROOT, 'docs', 'benchmarks-model.md'), md);
console.log(md);
