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
// Messages in:
//   { type: 'load' }
//   { type: 'run', id, sentence, words, hideSpecial }   (only the latest waiting run is kept)
// Messages out:
//   { type: 'progress', file, received, total }         the core's download
//   { type: 'ready', layers, heads, shards, coreBytes, cached }
//   { type: 'result', id, sentence, words, hideSpecial, n, layers, heads,
//     tokens: [{ text, span: [start, end] (UTF-8 bytes), special }],
//     weights: Float32Array (layers, heads, n, n) (transferred),
//     fetched: { files, bytes }, runMs }
//   { type: 'error', id, message, file, status }       id is null for a load error

const MODEL_URL = new URL('../model/', import.meta.url);
const PKG_URL = new URL('../pkg-model/attention_model_wasm.js', import.meta.url);
const WASM_URL = new URL('../pkg-model/attention_model_wasm_bg.wasm', import.meta.url);
const CACHE_NAME = 'attention-explorer-model-v1';
/** At most this many progress messages a second. */
const PROGRESS_INTERVAL_MS = 50;

/** An error that names the file and, for an HTTP failure, the status. */
class ModelFileError extends Error {
  constructor(message, file, status = null) {
    super(message);
    this.file = file;
    this.status = status;
  }
}

let loading = null; // Promise of { session, manifest }
let waiting = null; // the latest run request not started yet
let running = false;

self.addEventListener('message', (event) => {
  const message = event.data;
  if (message?.type === 'load') {
    load().catch(() => {}); // reported by load itself
  } else if (message?.type === 'run') {
    waiting = message;
    if (!running) drain();
  }
});

function report(error, id = null) {
  const message = error instanceof Error ? error.message : String(error);
  self.postMessage({ type: 'error', id, message, file: error?.file ?? null, status: error?.status ?? null });
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
  let cached = false;
  const session = await useFile(manifest.core, (bytes, fromCache) => {
    cached = fromCache;
    try {
      return new wasm.ModelSession(bytes);
    } catch (error) {
      throw new ModelFileError(`The model file ${manifest.core.file} could not be read: ${error.message}.`, manifest.core.file);
    }
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

async function loadWasm() {
  try {
    const wasm = await import(PKG_URL.href);
    await wasm.default({ module_or_path: WASM_URL });
    return wasm;
  } catch (error) {
    throw new ModelFileError(`The model's WebAssembly module could not be loaded (${error.message}).`, 'pkg-model/attention_model_wasm_bg.wasm');
  }
}

/** The manifest, from the network (it is small and says what is current), else the kept copy. */
async function fetchManifest() {
  const file = 'manifest.json';
  const url = new URL(file, MODEL_URL).href;
  const cache = await openCache();
  let response;
  let fromNetwork = true;
  try {
    response = await fetch(url, { cache: 'no-cache' });
  } catch (error) {
    // Offline: the copy kept at the last visit still describes the kept files.
    response = await cache?.match(url);
    fromNetwork = false;
    if (!response) throw new ModelFileError(`The trained model could not be downloaded: model/${file} did not arrive (${error.message}). Check the connection and try again.`, file);
  }
  if (!response.ok) {
    const hint = response.status === 404
      ? ' This site has no trained model: build it with scripts/build-model, then scripts/build (see the README).'
      : '';
    throw new ModelFileError(`The trained model could not be loaded: model/${file} answered HTTP ${response.status}${response.statusText ? ' ' + response.statusText : ''}.${hint}`, file, response.status);
  }
  let manifest;
  try {
    manifest = await response.clone().json();
  } catch (error) {
    throw new ModelFileError(`The trained model's model/${file} is not valid JSON (${error.message}).`, file);
  }
  const entry = (e) => e && typeof e.file === 'string' && Number.isInteger(e.bytes) && typeof e.sha256 === 'string';
  if (!entry(manifest?.core) || !Array.isArray(manifest.shards) || !manifest.shards.every(entry)) {
    throw new ModelFileError(`The trained model's model/${file} does not list the core and the shards with their sizes and checksums.`, file);
  }
  if (fromNetwork) cache?.put(url, response).catch(() => {});
  return manifest;
}

function reportProgress(entry) {
  let last = 0;
  return (received, total, done) => {
    const now = performance.now();
    if (!done && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    self.postMessage({ type: 'progress', file: entry.file, received, total });
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
  const bytes = await download(url, entry, onProgress, cache !== null);
  if (!(await intact(bytes, entry))) {
    throw new ModelFileError(`The model file ${entry.file} arrived damaged: its SHA-256 does not match model/manifest.json (rebuild the model, or reload).`, entry.file);
  }
  const value = consume(bytes, false);
  cache?.put(url, new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } })).catch(() => {});
  return value;
}

async function download(url, entry, onProgress, bypassHttpCache) {
  let response;
  try {
    // The Cache API keeps the file; the HTTP cache would keep a second copy.
    response = await fetch(url, bypassHttpCache ? { cache: 'no-store' } : {});
  } catch (error) {
    throw new ModelFileError(`The model file ${entry.file} could not be downloaded: ${error.message}. Check the connection and try again.`, entry.file);
  }
  if (!response.ok) {
    throw new ModelFileError(`The model file ${entry.file} could not be downloaded: the server answered HTTP ${response.status}${response.statusText ? ' ' + response.statusText : ''}.`, entry.file, response.status);
  }
  if (!onProgress || !response.body) return new Uint8Array(await response.arrayBuffer());
  const bytes = new Uint8Array(entry.bytes);
  const reader = response.body.getReader();
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (received + value.length > bytes.length) {
      await reader.cancel();
      throw new ModelFileError(`The model file ${entry.file} is longer than model/manifest.json says (${entry.bytes} bytes): rebuild the model.`, entry.file);
    }
    bytes.set(value, received);
    received += value.length;
    onProgress(received, entry.bytes, false);
  }
  onProgress(received, entry.bytes, true);
  if (received !== entry.bytes) {
    throw new ModelFileError(`The model file ${entry.file} was cut off: ${received} of ${entry.bytes} bytes arrived.`, entry.file);
  }
  return bytes;
}

async function drain() {
  running = true;
  while (waiting) {
    const request = waiting;
    waiting = null;
    try {
      await run(request);
    } catch (error) {
      report(error, request.id);
    }
  }
  running = false;
}

async function run({ id, sentence, words, hideSpecial }) {
  const { session, manifest } = await load();
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
  const started = performance.now();
  const result = session.run(sentence, Boolean(words), Boolean(hideSpecial));
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
      fetched: { files: missing.length, bytes },
    };
  } finally {
    result.free();
  }
  message.runMs = performance.now() - started;
  self.postMessage(message, [message.weights.buffer]);
}
