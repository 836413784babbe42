// The attention kernel in WebAssembly (not a test: it measures, it never fails
// on a number). Run by scripts/bench-kernel, which builds the variants:
//
//   node tests/e2e/bench-kernel.mjs NAME=PKG_DIR ...
//
// NATIVE_BIN (the native bench, examples/bench.rs) is run between the wasm
// runs, so that the wasm/native ratio compares times taken under the same load.
// For each wasm build (a wasm-bindgen --target web folder holding
// kernel_bench.js), in Node (same V8 family as Chromium), and in headless
// Chromium with BROWSER=1:
// - its size, raw and gzipped;
// - warm calls: the median of many `self_attention` runs at 32, 256 and
//   1,024 tokens, after the engine has optimized the code;
// - the first call after instantiation, each in a fresh process (or page), as
//   is, and after what a page can do at start-up (WARMUP, default
//   "none,64x1+100+r32": one run at 64 tokens, 100 ms for the engine to
//   optimize in the background, 32 MB of wasm memory grown in advance);
// - the page's path at 1,024 tokens (a job, weights only, a block of rows per
//   call from JS, as www/js/analysis.js runs a long text): its first job in a
//   fresh process against a warm one. One long call runs to its end on the
//   engine's baseline tier; calls from JS pick up the optimized code as soon
//   as it is compiled;
// - whether its outputs equal the native build's bit for bit (NATIVE_DUMP).
// NODE=0 skips the Node runs (with BROWSER=1: Chromium only).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile, mkdir, cp } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const SIZES = [32, 256, 1024];
const FIRST_RUNS = Number(process.env.FIRST_RUNS ?? 9);
const WARMUPS = (process.env.WARMUP ?? 'none,64x1+100+r32').split(',');
const SEED = 42n;
const WARM_REPEATS = Number(process.env.WARM_REPEATS ?? 5);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** Time this thread has spent on a CPU, in ms (Linux's schedstat, updated at each tick: read it around many runs). */
const cpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Loads a wasm-bindgen `--target web` build in Node; resolves to its module. */
async function load(dir) {
  const glue = await import(pathToFileURL(path.resolve(dir, 'kernel_bench.js')).href);
  const bytes = await readFile(path.resolve(dir, 'kernel_bench_bg.wasm'));
  const t0 = performance.now();
  await glue.default({ module_or_path: bytes });
  return { glue, instantiateMs: performance.now() - t0 };
}

/**
 * "none", or "NxK[+W][+rM]": K runs at N tokens, then W ms (default one
 * macrotask), then M MB of wasm memory grown and touched (`reserve`).
 */
async function warmUp(glue, spec) {
  if (spec === 'none') return;
  const [, n, k, wait, megabytes] = spec.match(/^(\d+)x(\d+)(?:\+(\d+))?(?:\+r(\d+))?$/) ?? [];
  if (!n) throw new Error(`bad warm-up '${spec}'`);
  const kernel = new glue.Kernel(Number(n), SEED);
  for (let i = 0; i < Number(k); i++) kernel.run();
  kernel.free();
  if (megabytes) glue.reserve?.(Number(megabytes)); // builds from before reserve() skip it
  await sleep(Number(wait ?? 0));
}

/** Child: the first call at `n` tokens in this fresh process, in ms. */
async function first(dir, n, spec) {
  const { glue, instantiateMs } = await load(dir);
  const t0 = performance.now();
  await warmUp(glue, spec);
  const warmupMs = performance.now() - t0;
  const kernel = new glue.Kernel(n, SEED);
  const t1 = performance.now();
  kernel.run();
  return { ms: performance.now() - t1, warmupMs, instantiateMs };
}

/** One job the page's way (analysis.js): a block of 32 query rows per call from JS, weights only. */
function runSliced(kernel) {
  const job = kernel.job();
  while (!job.advance(1));
  return job.sum();
}

/**
 * Child: the page's path at `n` tokens in this fresh process: the first job
 * after instantiation, then the median of warm jobs, in ms; null for a build
 * without jobs (a core from before AttentionJob).
 */
async function sliced(dir, n) {
  const { glue } = await load(dir);
  const kernel = new glue.Kernel(n, SEED);
  if (typeof kernel.job !== 'function') return null;
  const t0 = performance.now();
  runSliced(kernel);
  const first = performance.now() - t0;
  return { first, warm: (await timeWarm(() => runSliced(kernel), 21)).median };
}

/**
 * `run` timed once the engine has optimized it: a few calls, 20 ms for the
 * optimized code to land, then `runs` timed calls; { median, min, cpu } in ms
 * (cpu: the mean time on a CPU per call).
 */
async function timeWarm(run, runs) {
  for (let i = 0; i < Math.min(runs, 20); i++) run();
  await sleep(20);
  const times = [];
  const c0 = cpuMs();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  return { median: median(times), min: Math.min(...times), cpu: (cpuMs() - c0) / runs };
}

/** Child: medians of warm calls at every size, in ms. */
async function warm(dir) {
  const { glue } = await load(dir);
  const result = {};
  for (const n of SIZES) {
    const kernel = new glue.Kernel(n, SEED);
    const timed = await timeWarm(() => kernel.run(), n >= 1024 ? 31 : n >= 256 ? 101 : 5001);
    result[n] = timed.median;
    result[`min ${n}`] = timed.min;
    result[`cpu ${n}`] = timed.cpu;
  }
  return result;
}

/** Child: how many outputs differ from the native build's (scores, scaled, weights, context). */
async function check(dir, dump) {
  const { glue } = await load(dir);
  const native = new Float32Array((await readFile(dump)).buffer.slice(0));
  const n = 256;
  const kernel = new glue.Kernel(n, SEED);
  const parts = [[n * n, 'scores'], [n * n, 'scaled'], [n * n, 'weights'], [n * 50, 'context']];
  const result = {};
  let at = 0;
  for (const [self, causal] of [[true, false], [false, true]]) {
    const got = kernel.outputs(self, causal);
    let offset = 0;
    for (const [len, name] of parts) {
      let differ = 0;
      for (let i = 0; i < len; i++) if (!Object.is(got[offset + i], native[at + i])) differ++;
      result[name] = (result[name] ?? 0) + differ;
      offset += len;
      at += len;
    }
  }
  return result;
}

/** Medians printed by the native bench (examples/bench.rs), by size. */
function nativeMedians(bin) {
  const out = execFileSync(bin, SIZES.map(String), { encoding: 'utf8' });
  return Object.fromEntries([...out.matchAll(/(\d+) tokens: median ([\d.]+) ms, on CPU ([\d.]+) ms, min ([\d.]+) ms/g)]
    .flatMap((m) => [[m[1], Number(m[2])], [`cpu ${m[1]}`, Number(m[3])], [`min ${m[1]}`, Number(m[4])]]));
}

function child(...args) {
  return JSON.parse(execFileSync(process.execPath, [SELF, '--child', ...args], { encoding: 'utf8' }));
}

/** Headless Chromium: the same measurements in fresh pages (streaming instantiation, as the page). */
async function browserRuns(variants) {
  const { launch, serveDist } = await import('./helpers.mjs');
  const site = path.resolve('target/kernel-bench/site');
  await mkdir(site, { recursive: true });
  for (const [name, dir] of variants) await cp(dir, path.join(site, name), { recursive: true });
  await writeFile(path.join(site, 'index.html'), '<!doctype html><title>kernel bench</title>');
  const server = await serveDist(site);
  const browser = await launch();
  const results = {};
  try {
    const inPage = async (body, arg) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(server.url);
      const value = await page.evaluate(body, arg);
      await context.close();
      return value;
    };
    for (const [name] of variants) {
      results[name] = { warm: {}, first: {} };
      results[name].warm = await inPage(async ({ name, sizes }) => {
        const glue = await import(`./${name}/kernel_bench.js`);
        await glue.default();
        const out = {};
        for (const n of sizes) {
          const kernel = new glue.Kernel(n, 42n);
          const runs = n >= 1024 ? 31 : n >= 256 ? 101 : 5001;
          for (let i = 0; i < Math.min(runs, 20); i++) kernel.run();
          await new Promise((r) => setTimeout(r, 20));
          const times = [];
          for (let i = 0; i < runs; i++) {
            const t0 = performance.now();
            kernel.run();
            times.push(performance.now() - t0);
          }
          times.sort((a, b) => a - b);
          out[n] = times[(times.length - 1) >> 1];
        }
        return out;
      }, { name, sizes: SIZES });
      for (const spec of WARMUPS) {
        for (const n of SIZES) {
          const times = [];
          for (let r = 0; r < FIRST_RUNS; r++) {
            times.push(await inPage(async ({ name, spec, n }) => {
              const glue = await import(`./${name}/kernel_bench.js`);
              await glue.default();
              const m = spec.match(/^(\d+)x(\d+)(?:\+(\d+))?(?:\+r(\d+))?$/);
              if (m) {
                const kernel = new glue.Kernel(Number(m[1]), 42n);
                for (let i = 0; i < Number(m[2]); i++) kernel.run();
                kernel.free();
                if (m[4]) glue.reserve?.(Number(m[4]));
                await new Promise((r) => setTimeout(r, Number(m[3] ?? 0)));
              }
              const kernel = new glue.Kernel(Number(n), 42n);
              const t0 = performance.now();
              kernel.run();
              return performance.now() - t0;
            }, { name, spec, n }));
          }
          results[name].first[`${spec} ${n}`] = median(times);
        }
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return results;
}

async function main() {
  const variants = process.argv.slice(2).map((arg) => arg.split('='));
  const fmt = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  for (const [name, dir] of process.env.NODE === '0' ? [] : variants) {
    const wasm = await readFile(path.join(dir, 'kernel_bench_bg.wasm'));
    console.log(`\n== ${name}: kernel wasm ${wasm.length} bytes, ${gzipSync(wasm, { level: 9 }).length} gzipped`);
    if (process.env.NATIVE_DUMP) console.log(`  differs from native at 256 tokens: ${JSON.stringify(child('check', dir, process.env.NATIVE_DUMP))}`);
    // Native and wasm alternate, so that both see the same load on a shared machine.
    const warmRuns = [];
    const nativeRuns = [];
    for (let r = 0; r < WARM_REPEATS; r++) {
      if (process.env.NATIVE_BIN) nativeRuns.push(nativeMedians(process.env.NATIVE_BIN));
      warmRuns.push(child('warm', dir));
    }
    const at = (runs, n) => median(runs.map((r) => r[n]));
    console.log(`  node warm (${WARM_REPEATS} processes${nativeRuns.length ? ', native alternating' : ''}): wall median / fastest run / on-CPU mean`);
    for (const n of SIZES) {
      const show = (runs) => ['', 'min ', 'cpu '].map((kind) => fmt(at(runs, kind + n))).join(' / ');
      const ratio = (kind) => (at(warmRuns, kind + n) / at(nativeRuns, kind + n)).toFixed(2);
      console.log(`    ${n}: wasm ${show(warmRuns)} ms` + (nativeRuns.length
        ? `; native ${show(nativeRuns)} ms; wasm/native ×${ratio('')} / ×${ratio('min ')} / ×${ratio('cpu ')}` : ''));
    }
    for (const spec of WARMUPS) {
      const line = [];
      for (const n of SIZES) {
        const runs = Array.from({ length: FIRST_RUNS }, () => child('first', dir, String(n), spec));
        line.push(`${n}: ${fmt(median(runs.map((r) => r.ms)))} ms`);
        if (n === SIZES.at(-1)) line.push(`(warm-up itself ${fmt(median(runs.map((r) => r.warmupMs)))} ms, instantiate ${fmt(median(runs.map((r) => r.instantiateMs)))} ms)`);
      }
      console.log(`  node first call, warm-up ${spec}: ${line.join(', ')}`);
    }
    const n = SIZES.at(-1);
    const paths = Array.from({ length: FIRST_RUNS }, () => child('sliced', dir, String(n)));
    if (paths[0]) {
      const [first, warmJob] = [median(paths.map((p) => p.first)), median(paths.map((p) => p.warm))];
      console.log(`  node page's path at ${n} (weights only, a block of 32 rows per call from JS), no warm-up: `
        + `first ${fmt(first)} ms, warm ${fmt(warmJob)} ms, first/warm ×${(first / warmJob).toFixed(2)}`);
    }
  }
  if (process.env.BROWSER === '1') {
    const results = await browserRuns(variants);
    for (const [name, r] of Object.entries(results)) {
      console.log(`\n== ${name} in Chromium: warm ${SIZES.map((n) => `${n}: ${fmt(r.warm[n])} ms`).join(', ')}`);
      for (const spec of WARMUPS) {
        console.log(`  first call, warm-up ${spec}: ${SIZES.map((n) => `${n}: ${fmt(r.first[`${spec} ${n}`])} ms`).join(', ')}`);
      }
    }
  }
}

if (process.argv[2] === '--child') {
  const [mode, dir, ...rest] = process.argv.slice(3);
  const result = mode === 'first' ? await first(dir, Number(rest[0]), rest[1])
    : mode === 'sliced' ? await sliced(dir, Number(rest[0]))
    : mode === 'warm' ? await warm(dir)
      : await check(dir, rest[0]);
  process.stdout.write(JSON.stringify(result));
} else {
  await main();
}
