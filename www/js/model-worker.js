// The trained model's module Web Worker: it downloads, checks and keeps the
// model files, and runs MiniLM, so that the page never waits for either.
//
// Files (written by scripts/build-model, listed with sizes and SHA-256 in
// model/manifest.json): the core (minilm-core.aebm, 22 MB) once, then per
// sentence only the word-embedding shards it lacks (embeddings/NNNN.aeemb,
// 24.6 KB each), fetched in parallel. Every file is checked against the
// manifest's SHA-256 and kept in the Cache API for the next visit; a kept
// copy that fails its checksum, or that the model refuses, is dropped and
// fetched again.
//
// The last run is kept (its ModelRun, in wasm memory) for the questions about
// it: head search, ranking by behaviour, rollout. A question names the run it
// is about (`run`, the id of that run's request); a question about an older
// run gets no answer (the page asks again when the new run arrives). Of each
// kind of request only the latest waiting one is kept; runs go first.
//
// A download that receives nothing for STALL_MS is given up; one that broke
// off keeps what arrived (`partial`), and the next attempt asks the server
// for the rest with a Range request, or starts again from zero when the
// server ignores it. The SHA-256 is checked on the whole file either way.
//
// Messages in:
//   { type: 'load', stallMs }    stallMs (optional): a shorter stall bound, for tests only
//   { type: 'run', id, sentence, words, hideSpecial }
//   { type: 'search', id, run, query, key }       every head by the weight query → key
//   { type: 'rank', id, run, pattern }            every head by a behaviour (model-state.js BEHAVIOURS)
//   { type: 'rollout', id, run }                  rollout and head average of every layer
//   { type: 'details', id, sentence, layer, head, query, key }
//       one head opened for query *piece* `query` ([CLS] = 0); `key`: the
//       piece whose dot product is listed term by term (null: the strongest)
//   { type: 'project', id, sentence, layer, head }  the head's q and k in 2-D (PCA)
// Messages out:
//   { type: 'progress', file, received, total }         the core's download
//   { type: 'ready', layers, heads, shards, coreBytes, cached }
//   { type: 'result', id, sentence, words, hideSpecial, n, layers, heads,
//     tokens: [{ text, span: [start, end] (UTF-8 bytes), special, pieces: [start, end] }],
//     weights: Float32Array (layers, heads, n, n) (transferred),
//     behaviours: { sameWordApplies, heads: [{ layer, head, previous, next,
//       itself, special, sameWord, focus, peak, pattern, description }] },
//     fetched: { files, bytes }, runMs }
//   { type: 'ranking', id, query, key, pattern, applies, layers, heads, values }
//       best first (Uint32Array, Uint32Array, Float32Array); applies = false
//       when the behaviour does not apply to the sentence (no repeated word)
//   { type: 'rollout', id, layers, n, rollout, average }   (layers, n, n) each
//   { type: 'details', id, layer, head, query, n, dim, tokens, queries, keys,
//     values ((n, dim) each), steps, cell }
//       steps: { query, factor, dots, scaled, max, exps, sumOfExps,
//       shiftedExps, shiftedSum, weights, context, cosines } and cell: { key,
//       terms: [{ dimension, query, key, product }] largest |product| first,
//       dot, factor, scaled, weight, cosine }: the shapes of the GloVe step
//       panel (teach-steps.js), from the head's own q, k, v and weights
//   { type: 'projection', id, layer, head, n, tokens, points ((2n, 2): queries
//     then keys), explained: [share of axis 1, share of axis 2] }
//   { type: 'error', id, channel, message, file, status, network }
//       channel: the request's type ('run' for a load or run error; id null for a load error);
//       network: true when the connection failed (no answer, a stall, a drop), which coming
//       back online may cure

import { MODEL_WASM_FILES, siteFile } from './site.js';
import { counted, megabytes } from './text.js';

const MODEL_URL = siteFile('model/');
const PKG_URL = siteFile(MODEL_WASM_FILES.glue);
const WASM_URL = siteFile(MODEL_WASM_FILES.wasm);
const CACHE_NAME = 'attention-explorer-model-v1';
/** At most this many progress messages a second. */
const PROGRESS_INTERVAL_MS = 50;
/**
 * How long a download may receive nothing before it is given up. The
 * browser hands the body over as it arrives, so even a poor mobile link
 * (2G, about 25 KB/s) delivers something every second or so; 20 s without a
 * single byte means the server or the connection has stopped, and is about
 * as long as anyone watches a frozen progress bar before thinking the page
 * broken.
 */
const STALL_MS = 20000;
let stallMs = STALL_MS;

/**
 * An error that names the file and, for an HTTP failure, the status;
 * `network`: the connection failed (see the 'error' message).
 */
class ModelFileError extends Error {
  constructor(message, file, status = null, network = false) {
    super(message);
    this.file = file;
    this.status = status;
    this.network = network;
  }
}

/** What arrived of a download that broke off, for the next attempt: url → { bytes, received, validator }. */
const partial = new Map();

let loading = null; // Promise of { session, manifest }
/** The latest waiting request of each kind, served in this order (a run first). */
const waiting = { run: null, search: null, rank: null, details: null, project: null, rollout: null };
let running = false;
let current = null; // { id, run }: the last ModelRun, kept for questions about it

self.addEventListener('message', (event) => {
  const message = event.data;
  if (message?.type === 'load') {
    // Tests shorten the stall bound so as not to wait 20 s; it never grows.
    if (Number.isFinite(message.stallMs)) stallMs = Math.min(STALL_MS, Math.max(100, message.stallMs));
    load().catch(() => {}); // reported by load itself
  } else if (message && Object.hasOwn(waiting, message.type)) {
    waiting[message.type] = message;
    if (!running) drain();
  }
});

function report(error, id = null, channel = 'run') {
  const message = error instanceof Error ? error.message : String(error);
  self.postMessage({ type: 'error', id, channel, message, file: error?.file ?? null, status: error?.status ?? null, network: Boolean(error?.network) });
}

function load() {
  if (!loading) {
    loading = loadModel();
    loading.catch((error) => {
      report(error);
      loading = null; // a later 'load' tries again
    });
  }
  return loading;
}

async function loadModel() {
  const [wasm, manifest] = await Promise.all([loadWasm(), fetchManifest()]);
  // Every size the manifest gives is checked before a byte is downloaded or allocated for it.
  try {
    wasm.checkManifestListing(manifest);
  } catch (error) {
    throw new ModelFileError(`The trained model's model/manifest.json was refused: ${error.message}.`, 'manifest.json');
  }
  let cached = false;
  const session = await useFile(manifest.core, (bytes, fromCache) => {
    cached = fromCache;
    let session;
    try {
      session = new wasm.ModelSession(bytes);
      // …and against the core: the number of shards and each one's exact length.
      session.checkManifest(manifest);
    } catch (error) {
      session?.free();
      throw new ModelFileError(`The model file ${manifest.core.file} could not be read: ${error.message}.`, manifest.core.file);
    }
    return session;
  }, reportProgress(manifest.core));
  self.postMessage({
    type: 'ready',
    layers: session.layers(),
    heads: session.heads(),
    shards: session.embeddingShards(),
    coreBytes: manifest.core.bytes,
    cached,
  });
  return { session, manifest };
}

/**
 * The model's wasm and its glue module, with the stall bound as a whole (as
 * the manifest has): nothing else would end a server that stops sending it.
 */
async function loadWasm() {
  const file = MODEL_WASM_FILES.wasm;
  const watch = stallWatch();
  const stalled = new Promise((resolve, reject) => {
    watch.signal.addEventListener('abort', () => reject(watch.signal.reason), { once: true });
  });
  try {
    const wasm = await Promise.race([import(PKG_URL.href), stalled]);
    await Promise.race([wasm.default({ module_or_path: fetch(WASM_URL, { signal: watch.signal }) }), stalled]);
    return wasm;
  } catch (error) {
    throw new ModelFileError(`The model's WebAssembly module could not be loaded (${watch.reason(error)}).${watch.stalled ? ' Check the connection and try again.' : ''}`, file, null, watch.stalled);
  } finally {
    watch.stop();
  }
}

/** The manifest, from the network (it is small and says what is current), else the kept copy. */
async function fetchManifest() {
  const file = 'manifest.json';
  const url = new URL(file, MODEL_URL).href;
  const cache = await openCache();
  let response;
  let fromNetwork = true;
  // The manifest (130 KB) gets the stall bound as a whole: 6 KB/s is enough.
  const watch = stallWatch();
  try {
    response = await fetch(url, { cache: 'no-cache', signal: watch.signal });
  } catch (error) {
    watch.stop();
    // Offline, or no answer: the copy kept at the last visit still describes the kept files.
    response = await cache?.match(url);
    fromNetwork = false;
    const why = watch.reason(error);
    if (!response) throw new ModelFileError(`The trained model could not be downloaded: model/${file} did not arrive (${why}). Check the connection and try again.`, file, null, true);
  }
  if (!response.ok) {
    watch.stop();
    const hint = response.status === 404
      ? ' This site has no trained model: build it with scripts/build-model, then scripts/build (see the README).'
      : '';
    throw new ModelFileError(`The trained model could not be loaded: model/${file} answered HTTP ${response.status}${response.statusText ? ' ' + response.statusText : ''}.${hint}`, file, response.status);
  }
  let manifest;
  try {
    manifest = await response.clone().json();
  } catch (error) {
    if (watch.stalled) throw new ModelFileError(`The trained model could not be downloaded: model/${file} stopped arriving (${watch.reason(error)}). Check the connection and try again.`, file, null, true);
    throw new ModelFileError(`The trained model's model/${file} is not valid JSON (${error.message}).`, file);
  } finally {
    watch.stop();
  }
  const entry = (e) => e && typeof e.file === 'string' && Number.isInteger(e.bytes) && typeof e.sha256 === 'string';
  if (!entry(manifest?.core) || !Array.isArray(manifest.shards) || !manifest.shards.every(entry)) {
    throw new ModelFileError(`The trained model's model/${file} does not list the core and the shards with their sizes and checksums.`, file);
  }
  if (fromNetwork) cache?.put(url, response).catch(() => {});
  return manifest;
}

function reportProgress(entry) {
  let last = -Infinity;
  let trailing = 0;
  const post = (received, total) => {
    last = performance.now();
    self.postMessage({ type: 'progress', file: entry.file, received, total });
  };
  return (received, total, done) => {
    clearTimeout(trailing);
    const wait = last + PROGRESS_INTERVAL_MS - performance.now();
    if (done || wait <= 0) post(received, total);
    // The count before a pause is shown too: a stalled download's bar stops where its bytes did.
    else trailing = setTimeout(() => post(received, total), wait);
  };
}

async function openCache() {
  try {
    return self.caches ? await self.caches.open(CACHE_NAME) : null;
  } catch {
    return null; // no Cache API here (an insecure origin, a private mode): download every visit
  }
}

async function sha256(bytes) {
  if (!self.crypto?.subtle) return null; // insecure origin: the model's own checks still apply
  const digest = new Uint8Array(await self.crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function intact(bytes, entry) {
  if (bytes.length !== entry.bytes) return false;
  const sum = await sha256(bytes);
  return sum === null || sum === entry.sha256;
}

/**
 * Gets one file of the manifest and hands its bytes to `consume`, which
 * returns what the caller wants or throws. A kept copy that fails its
 * checksum, or that `consume` refuses, is dropped and downloaded again.
 */
async function useFile(entry, consume, onProgress = null) {
  const url = new URL(entry.file, MODEL_URL).href;
  const cache = await openCache();
  const kept = await cache?.match(url);
  if (kept) {
    const bytes = new Uint8Array(await kept.arrayBuffer());
    if (await intact(bytes, entry)) {
      try {
        onProgress?.(bytes.length, entry.bytes, true);
        return consume(bytes, true);
      } catch {
        // Fall through: drop it and download a fresh copy.
      }
    }
    await cache.delete(url);
  }
  let { bytes, resumed } = await download(url, entry, onProgress, cache !== null);
  let whole = await intact(bytes, entry);
  // A file that changed on the server between the two parts of a resumed
  // download (and a server that ignored If-Range) fails its checksum: once
  // more from zero, then the check stands.
  if (!whole && resumed) {
    ({ bytes } = await download(url, entry, onProgress, cache !== null));
    whole = await intact(bytes, entry);
  }
  if (!whole) {
    throw new ModelFileError(`The model file ${entry.file} arrived damaged: its SHA-256 does not match model/manifest.json (rebuild the model, or reload).`, entry.file);
  }
  const value = consume(bytes, false);
  cache?.put(url, new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } })).catch(() => {});
  return value;
}

function seconds(ms) {
  return counted(Math.round(ms / 1000), 'second');
}

/**
 * An AbortSignal that fires when nothing arrives for `stallMs`: `alive()`
 * restarts the count (a chunk came), `stop()` ends it; `stalled` says
 * whether it fired (an abort's own error says nothing of why), `reason(error)`
 * says it in words.
 */
function stallWatch() {
  const controller = new AbortController();
  let timer = 0;
  const watch = {
    signal: controller.signal,
    stalled: false,
    alive() {
      clearTimeout(timer);
      timer = setTimeout(() => {
        watch.stalled = true;
        controller.abort();
      }, stallMs);
    },
    stop: () => clearTimeout(timer),
    /** What ended a request: the stall, or `error`'s own message. */
    reason: (error) => (watch.stalled ? `nothing came for ${seconds(stallMs)}` : error.message),
  };
  watch.alive();
  return watch;
}

/**
 * Downloads one file of the manifest into `entry.bytes` bytes; returns {
 * bytes, resumed }, resumed when part of it came from an earlier attempt
 * (the file is not yet checked). A download that breaks off or stalls
 * keeps what arrived in `partial` for the next attempt.
 */
async function download(url, entry, onProgress, bypassHttpCache) {
  let part = partial.get(url) ?? null;
  const watch = stallWatch();
  try {
    let response = await request(url, entry, part, bypassHttpCache, watch);
    if (part && !resumes(response, part, entry)) {
      part = null;
      // A Range the server answered otherwise than asked: the whole file, without one.
      if (response.status === 206 || response.status === 416) {
        response.body?.cancel().catch(() => {});
        response = await request(url, entry, null, bypassHttpCache, watch);
      }
    }
    const resumed = part !== null;
    // Until a good answer comes, what arrived stays for the attempt after this one.
    if (response.ok) partial.delete(url);
    if (!response.ok) {
      throw new ModelFileError(`The model file ${entry.file} could not be downloaded: the server answered HTTP ${response.status}${response.statusText ? ' ' + response.statusText : ''}.`, entry.file, response.status);
    }
    part ??= { bytes: new Uint8Array(entry.bytes), received: 0, validator: validatorOf(response) };
    try {
      await receive(response, entry, part, onProgress, watch);
    } catch (error) {
      if (error.network && part.received > 0) partial.set(url, part);
      throw error;
    }
    return { bytes: part.bytes, resumed };
  } finally {
    watch.stop();
  }
}

/** The response to a download, asking for the rest of `part` when there is one. */
async function request(url, entry, part, bypassHttpCache, watch) {
  const headers = {};
  if (part) {
    headers.Range = `bytes=${part.received}-`;
    // A file changed since the first part came is sent whole (200), not as the rest of the new one.
    if (part.validator) headers['If-Range'] = part.validator;
  }
  try {
    // The Cache API keeps the file; the HTTP cache would keep a second copy.
    return await fetch(url, { cache: bypassHttpCache ? 'no-store' : 'default', headers, signal: watch.signal });
  } catch (error) {
    const why = watch.stalled ? `the server sent no answer for ${seconds(stallMs)}` : error.message;
    throw new ModelFileError(`The model file ${entry.file} could not be downloaded: ${why}. Check the connection and try again.`, entry.file, null, true);
  }
}

/** True when `response` is the rest of `part`: a 206 from where it stopped to the end. */
function resumes(response, part, entry) {
  if (response.status !== 206) return false;
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('Content-Range') ?? '');
  return range !== null && Number(range[1]) === part.received && Number(range[2]) === entry.bytes - 1 && Number(range[3]) === entry.bytes;
}

/** What If-Range needs to ask for the same file again: a strong ETag, else the Last-Modified date. */
function validatorOf(response) {
  const etag = response.headers.get('ETag');
  return etag && !etag.startsWith('W/') ? etag : response.headers.get('Last-Modified');
}

/** Reads the body of `response` into `part`, from `part.received` on; throws a ModelFileError saying what went wrong. */
async function receive(response, entry, part, onProgress, watch) {
  const start = part.received;
  const reader = response.body?.getReader();
  const type = response.headers.get('Content-Type') ?? '';
  const arrived = () => `${megabytes(part.received)} of ${megabytes(entry.bytes)}`;
  try {
    for (;;) {
      const { done, value } = reader ? await reader.read() : { done: true };
      watch.alive();
      if (done) break;
      if (part.received + value.length > part.bytes.length) {
        await reader.cancel();
        if (looksLikeHtml(part.bytes.subarray(start, part.received), type)) throw webPageError(entry, part.received - start);
        throw new ModelFileError(`The model file ${entry.file} is longer than model/manifest.json says (${entry.bytes} bytes): rebuild the model.`, entry.file);
      }
      part.bytes.set(value, part.received);
      part.received += value.length;
      onProgress?.(part.received, entry.bytes, false);
    }
  } catch (error) {
    if (error instanceof ModelFileError) throw error;
    const why = watch.stalled ? `nothing came for ${seconds(stallMs)}` : `the connection broke (${error.message})`;
    throw new ModelFileError(`The model file ${entry.file} stopped arriving after ${arrived()}: ${why}. Check the connection and try again.`, entry.file, null, true);
  }
  onProgress?.(part.received, entry.bytes, true);
  if (part.received !== entry.bytes) {
    if (looksLikeHtml(part.bytes.subarray(start, part.received), type)) throw webPageError(entry, part.received - start);
    throw new ModelFileError(`The model file ${entry.file} was cut off: ${part.received} of ${entry.bytes} bytes arrived. Check the connection and try again.`, entry.file, null, true);
  }
}

/** True for a body labelled as HTML, or one that opens like a web page (the model's files open with their magic). */
function looksLikeHtml(bytes, type) {
  if (/^\s*text\/html/i.test(type)) return true;
  const opening = new TextDecoder().decode(bytes.subarray(0, 256)).replace(/^\uFEFF?\s*/, '').toLowerCase();
  return /^<(!doctype html|html|head|body|!--)/.test(opening);
}

/** An HTML page where a model file was expected: a missing file behind a catch-all page, a sign-in page, an error page. */
function webPageError(entry, received) {
  return new ModelFileError(`The server sent a web page (${received} bytes of HTML) instead of the model file ${entry.file}, which is ${megabytes(entry.bytes)}: the site may lack the file, or a sign-in or error page answered. Try again later, or ask whoever runs the site to check its model/ folder.`, entry.file);
}

async function drain() {
  running = true;
  for (;;) {
    const kind = Object.keys(waiting).find((k) => waiting[k] !== null);
    if (!kind) break;
    const request = waiting[kind];
    waiting[kind] = null;
    try {
      await ANSWER[kind](request);
    } catch (error) {
      report(error, request.id, kind);
    }
  }
  running = false;
}

/** Fetches and adds the embedding shards `sentence` lacks; returns { files, bytes } downloaded. */
async function ensureShards(session, manifest, sentence) {
  const missing = Array.from(session.missingShards(sentence));
  let bytes = 0;
  await Promise.all(missing.map((k) => {
    const entry = manifest.shards[k];
    if (!entry) throw new ModelFileError(`model/manifest.json lists no embedding shard ${k}.`, 'manifest.json');
    return useFile(entry, (shard, fromCache) => {
      try {
        session.addShard(shard);
      } catch (error) {
        throw new ModelFileError(`The model file ${entry.file} was refused: ${error.message}.`, entry.file);
      }
      if (!fromCache) bytes += shard.length;
    });
  }));
  return { files: missing.length, bytes };
}

async function run({ id, sentence, words, hideSpecial }) {
  const { session, manifest } = await load();
  const fetched = await ensureShards(session, manifest, sentence);
  const started = performance.now();
  const result = session.run(sentence, Boolean(words), Boolean(hideSpecial));
  const runMs = performance.now() - started;
  let message;
  try {
    message = {
      type: 'result',
      id,
      sentence,
      words: Boolean(words),
      hideSpecial: Boolean(hideSpecial),
      n: result.size(),
      layers: result.layers(),
      heads: result.heads(),
      tokens: result.tokens(),
      weights: result.weights(),
      behaviours: result.headBehaviours(),
      fetched,
      runMs,
    };
  } catch (error) {
    result.free();
    throw error;
  }
  current?.run.free();
  current = { id, run: result };
  self.postMessage(message, [message.weights.buffer]);
}

/** The kept run that `request` is about, or null when a newer run replaced it (no answer then). */
function runOf(request) {
  return current && current.id === request.run ? current.run : null;
}

/** A HeadRanking as a message (its wasm object freed). */
function rankingMessage(request, ranking, extra) {
  if (!ranking) return { type: 'ranking', id: request.id, ...extra, applies: false, layers: new Uint32Array(0), heads: new Uint32Array(0), values: new Float32Array(0) };
  try {
    return { type: 'ranking', id: request.id, ...extra, applies: true, layers: ranking.layers(), heads: ranking.heads(), values: ranking.values() };
  } finally {
    ranking.free();
  }
}

const ANSWER = {
  run,
  async search(request) {
    const kept = runOf(request);
    if (!kept) return;
    const message = rankingMessage(request, kept.searchHeads(request.query, request.key), { query: request.query, key: request.key, pattern: null });
    self.postMessage(message, [message.values.buffer]);
  },
  async rank(request) {
    const kept = runOf(request);
    if (!kept) return;
    const message = rankingMessage(request, kept.rankHeads(request.pattern), { query: null, key: null, pattern: request.pattern });
    self.postMessage(message, [message.values.buffer]);
  },
  async rollout(request) {
    const kept = runOf(request);
    if (!kept) return;
    const flow = kept.rollout();
    let message;
    try {
      message = { type: 'rollout', id: request.id, layers: flow.layers(), n: flow.size(), rollout: flow.rollout(), average: flow.average() };
    } finally {
      flow.free();
    }
    self.postMessage(message, [message.rollout.buffer, message.average.buffer]);
  },
  async details({ id, sentence, layer, head, query, key }) {
    const { session, manifest } = await load();
    await ensureShards(session, manifest, sentence);
    const inside = session.headDetails(sentence, layer, head, query);
    let message;
    try {
      const n = inside.size();
      const dim = inside.dim();
      const [queries, keys, values] = [inside.queries(), inside.keys(), inside.values()];
      const steps = stepsOf(inside, queries, keys, n, dim);
      const picked = Number.isInteger(key) && key >= 0 && key < n ? key : strongest(steps.weights);
      message = {
        type: 'details', id, layer, head, query, n, dim, tokens: inside.tokens(), queries, keys, values, steps,
        cell: cellOf(steps, queries, keys, dim, picked), picked: key === picked,
      };
    } finally {
      inside.free();
    }
    self.postMessage(message);
  },
  async project({ id, sentence, layer, head }) {
    const { session, manifest } = await load();
    await ensureShards(session, manifest, sentence);
    const picture = session.projectHead(sentence, layer, head);
    let message;
    try {
      message = { type: 'projection', id, layer, head, n: picture.size(), tokens: picture.tokens(), points: picture.points(), explained: Array.from(picture.explained()) };
    } finally {
      picture.free();
    }
    self.postMessage(message, [message.points.buffer]);
  },
};

function strongest(weights) {
  let best = 0;
  for (let j = 1; j < weights.length; j++) if (weights[j] > weights[best]) best = j;
  return best;
}

function cosine(a, ia, b, ib, dim) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let t = 0; t < dim; t++) {
    const x = a[ia * dim + t];
    const y = b[ib * dim + t];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * The steps of the GloVe panel (teach-steps.js) for one head's query row:
 * q·k, the scale and the weights are the head's own (the numbers the heatmap
 * draws); exp(s) and the sums are what the softmax does with them.
 */
function stepsOf(inside, queries, keys, n, dim) {
  const query = inside.query();
  const scaled = Array.from(inside.scaled());
  const max = scaled.reduce((m, s) => Math.max(m, s), -Infinity);
  // As the tutorials print it: null where exp overflows (the panel says so).
  const exps = scaled.map((s) => (Number.isFinite(Math.exp(s)) ? Math.exp(s) : null));
  const shiftedExps = scaled.map((s) => Math.exp(s - max));
  const cosines = [];
  for (let j = 0; j < n; j++) cosines.push(cosine(queries, query, keys, j, dim));
  return {
    query,
    factor: inside.scale(),
    dots: Array.from(inside.scores()),
    scaled,
    max,
    exps,
    sumOfExps: exps.includes(null) ? null : exps.reduce((a, b) => a + b, 0),
    shiftedExps,
    shiftedSum: shiftedExps.reduce((a, b) => a + b, 0),
    weights: Array.from(inside.weights()),
    context: Array.from(inside.context()),
    cosines,
  };
}

/** q·k of the query and key piece `key`, term by term, largest |product| first. */
function cellOf(steps, queries, keys, dim, key) {
  const terms = [];
  for (let t = 0; t < dim; t++) {
    const q = queries[steps.query * dim + t];
    const k = keys[key * dim + t];
    terms.push({ dimension: t, query: q, key: k, product: q * k });
  }
  terms.sort((a, b) => Math.abs(b.product) - Math.abs(a.product));
  return {
    query: steps.query, key, terms, dot: steps.dots[key], factor: steps.factor, scaled: steps.scaled[key],
    weight: steps.weights[key], cosine: steps.cosines[key],
  };
}
