// The page benchmark (not a test: it measures and writes, it never fails on a
// number). Run by scripts/bench-page, which writes docs/benchmarks-page.md.
//
// - bytes transferred before the first heatmap, and what gzip would make of them;
// - time from navigation to the first heatmap (headless Chromium, localhost);
// - repaint after a click on a cell (the overlay, the arrows, the step-by-step
//   panel, the table's focus) at 32, 256 and 1,024 tokens;
// - recompute + full redraw after an option change at the same sizes.
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { DIST, KING, launch, ROOT, serveDist } from './helpers.mjs';

const RUNS = Number(process.env.RUNS ?? 7);
const CLICKS = Number(process.env.CLICKS ?? 30);
const SIZES = [32, 256, 1024];
// Frequent words: every one is in the 20,000-word subset.
const WORDS = ('the king and queen ruled the kingdom while people of the city said that it was a good time ' +
  'for all who lived there because war had ended after many years and trade grew with other lands').split(' ');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;

function sentenceOf(n) {
  return Array.from({ length: n }, (_, k) => WORDS[k % WORDS.length]).join(' ');
}

async function firstLoad(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 30000 });
  const result = await page.evaluate(() => {
    const first = performance.getEntriesByName('first-heatmap')[0].startTime;
    const entries = [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
      .filter((e) => e.responseEnd <= first);
    return {
      first,
      bytes: entries.reduce((sum, e) => sum + e.transferSize, 0),
      body: entries.reduce((sum, e) => sum + e.encodedBodySize, 0),
      files: entries.map((e) => [new URL(e.name).pathname, e.encodedBodySize]),
    };
  });
  await context.close();
  return result;
}

async function interaction(browser, url, n) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('html[data-ready="1"]', { timeout: 60000 });
  return page.evaluate(async ({ n, clicks }) => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const overlay = document.getElementById('heatmap-overlay');
    const [mx, my] = overlay.dataset.matrix.split(',').map(Number);
    const cell = Number(overlay.dataset.cell);
    const handler = [];
    const toFrame = [];
    for (let k = 0; k < clicks; k++) {
      const row = (k * 7 + 3) % n;
      const col = (k * 5 + 1) % n;
      const box = overlay.getBoundingClientRect();
      const event = new MouseEvent('click', {
        bubbles: true,
        clientX: box.left + mx + (col + 0.5) * cell,
        clientY: box.top + my + (row + 0.5) * cell,
      });
      await frame();
      const t0 = performance.now();
      overlay.dispatchEvent(event);
      const t1 = performance.now();
      await frame();
      handler.push(t1 - t0);
      toFrame.push(performance.now() - t0);
    }
    const recompute = [];
    const box = document.getElementById('opt-self');
    for (let k = 0; k < 6; k++) {
      await frame();
      const t0 = performance.now();
      box.click();
      recompute.push(performance.now() - t0);
    }
    return { handler, toFrame, recompute, size: Number(document.querySelectorAll('#weights thead th').length - 1) };
  }, { n, clicks: CLICKS }).finally(() => context.close());
}

async function gzipOfDist() {
  const out = {};
  for (const file of ['index.html', 'style.css', 'js/boot.js', 'js/main.js', 'js/app.js', 'js/state.js', 'js/paint.js', 'pkg/attention_wasm.js', 'pkg/attention_wasm_bg.wasm', 'data/glove-6b-50d.aewv', 'examples.txt', 'favicon.svg']) {
    const bytes = await readFile(path.join(DIST, file));
    out[file] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  return out;
}

const server = await serveDist();
const browser = await launch();
try {
  const loads = [];
  for (let k = 0; k < RUNS; k++) loads.push(await firstLoad(browser, server.url + `#s=${encodeURIComponent(KING)}`));
  const gz = await gzipOfDist();
  const interactions = {};
  for (const n of SIZES) {
    const r = await interaction(browser, server.url + `#s=${encodeURIComponent(sentenceOf(n))}`, n);
    if (r.size !== Math.min(n, 1024)) throw new Error(`asked for ${n} tokens, the page shows ${r.size}`);
    interactions[n] = r;
  }
  const chromium = execFileSync(process.env.CHROMIUM ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const wasmBytes = gz['pkg/attention_wasm_bg.wasm'];
  const firstFiles = loads[0].files;
  const gzTotal = firstFiles.reduce((sum, [name, size]) => {
    const key = name.replace(/^\//, '') || 'index.html';
    return sum + (gz[key]?.gzip ?? size);
  }, 0);
  const lines = [
    '# Page benchmarks',
    '',
    'Measured by `scripts/bench-page` (it writes this file; the numbers are not tests). Headless',
    `Debian Chromium (${chromium}), the page served from localhost by the benchmark's own static`,
    `server without compression, ${os.cpus().length} CPU cores (${os.cpus()[0]?.model ?? 'unknown'}), shared with other work,`,
    `so timings vary by some tens of percent between runs. Medians; ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '## First heatmap',
    '',
    '| what | value | target |',
    '|---|---:|---:|',
    `| bytes transferred before the first heatmap (no compression) | ${Math.round(median(loads.map((l) => l.bytes))).toLocaleString('en-US')} B | |`,
    `| the same files gzip-compressed (as a static host sends text and wasm) | ${gzTotal.toLocaleString('en-US')} B | |`,
    `| time from navigation to the first heatmap (${RUNS} cold loads) | ${ms(median(loads.map((l) => l.first)))} | ≤ 300 ms |`,
    `| wasm module (after wasm-opt) | ${wasmBytes.raw.toLocaleString('en-US')} B (${wasmBytes.gzip.toLocaleString('en-US')} B gzip) | |`,
    '',
    'Files fetched before the first heatmap:',
    '',
    '| file | bytes | gzip |',
    '|---|---:|---:|',
    ...firstFiles.map(([name, size]) => {
      const key = name.replace(/^\//, '') || 'index.html';
      return `| ${name} | ${size.toLocaleString('en-US')} | ${gz[key] ? gz[key].gzip.toLocaleString('en-US') : ''} |`;
    }),
    '',
    '## Repaint after a click, and recompute',
    '',
    `A click on a heatmap cell focuses its row: the overlay, the arrows, the step-by-step panel and`,
    `the table's focus are redrawn; the cell bitmap and the labels are not. "Handler" is the`,
    `synchronous work of the click; "to next frame" adds the wait for the browser's next frame`,
    `(which includes its own paint and the ~16 ms frame cadence) and the teaching views below, which`,
    `redraw in a task of their own once that frame is painted. ${CLICKS} clicks per size.`,
    `"Recompute" is an option toggle: attention, the bitmap, the layout, the full redraw and the table.`,
    '',
    '| tokens | click: handler | click: to next frame | recompute + full redraw | targets |',
    '|---:|---:|---:|---:|---|',
    ...SIZES.map((n) => {
      const r = interactions[n];
      const target = n === 256 ? '≤ 16 ms per repaint' : n === 1024 ? 'drawn ≤ 100 ms, repaint ≤ 16 ms' : '';
      return `| ${n} | ${ms(median(r.handler))} | ${ms(median(r.toFrame))} | ${ms(median(r.recompute))} | ${target} |`;
    }),
    '',
  ];
  const target = path.join(ROOT, 'docs', 'benchmarks-page.md');
  await writeFile(target, lines.join('\n'));
  console.log(lines.join('\n'));
  console.log(`wrote ${path.relative(ROOT, target)}`);
} finally {
  await browser.close();
  await server.close();
}

