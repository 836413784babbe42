// The word vectors, fetched a shard at a time: the whole GloVe vocabulary is
// split into static shard files (data/glove-6b-50d/, see data/README.md and
// attention_core::shards), and a sentence costs only the few shards of its
// candidate tokens. The wasm store says which shards a text needs
// (`explorer.missingShards`); this module fetches them, once each, and keeps
// the state of every shard for the page: loading, or failed with a reason.
//
// A failed shard (HTTP error, timeout, a truncated, corrupt or foreign file,
// twice) stays failed until `retry()`: its words are marked with the reason
// and the rest of the sentence is drawn. Nothing here touches the DOM.

const TIMEOUT_MS = 15000;
/**
 * The longest a shard request may take while others keep arriving (one
 * stalled request, as the user types words whose shards come at once).
 * A paste's 64 requests out at once take about 8 s over 1 Mbit/s.
 */
const LONGEST_MS = 2 * TIMEOUT_MS;
/** Rounds of "fetch what is missing": a known word can reveal one more round. */
const MAX_ROUNDS = 8;
/** Shard requests started in one task (ensure). */
const REQUESTS_PER_TASK = 16;
/**
 * Shard requests out at once. A list of 2,500 different words needs about
 * 2,000 shards, and Chromium refused a tenth of them when all were asked at
 * once (ERR_INSUFFICIENT_RESOURCES), which read as "offline?"; the browser
 * sends six at a time over HTTP/1.1, and about a hundred over HTTP/2.
 */
const MAX_IN_FLIGHT = 64;

/** The manifest of a shard set, checked: what every later request relies on. */
export function checkManifest(json) {
  const ok = json && json.format === 'AEWS' && json.version === 1 &&
    Number.isInteger(json.dim) && json.dim >= 1 && json.dim <= 4096 &&
    Number.isInteger(json.words) && json.words >= 0 && json.words <= 4e6 &&
    Number.isInteger(json.shards) && json.shards >= 1 && json.shards <= 65536 && (json.shards & (json.shards - 1)) === 0 &&
    typeof json.set === 'string' && /^[0-9a-f]{16}$/.test(json.set) &&
    typeof json.files === 'string' && json.files.includes('{k}') && !/^[a-z]+:|^\/|\.\./i.test(json.files);
  if (!ok) throw new Error('its manifest.json does not describe a shard set this page can read');
  return json;
}

export class VectorStore {
  /**
   * explorer: the wasm Explorer (sharded); manifest: its checked manifest;
   * base: the URL of the manifest's folder; fetch: the fetch function.
   */
  constructor({ explorer, manifest, base, fetch = globalThis.fetch.bind(globalThis) }) {
    this.explorer = explorer;
    this.manifest = manifest;
    this.base = base;
    this.fetch = fetch;
    this.listeners = new Set(); // hear every shard that arrives or fails (several pages may share this store)
    this.loading = new Map(); // shard → Promise
    this.failed = new Map(); // shard → reason
    this.bytes = 0; // shard bytes received
    this.requests = 0;
    this.reloads = new Set(); // shards to fetch past the HTTP cache (retried after a bad file)
    this.version = 0; // changes whenever a shard arrives or the failures are forgotten
    this.needed = null; // { text, version, shards }: the last text's shards not in yet (missing)
    this.arrived = new Set(); // URLs of the files read whole (the service worker keeps them: page.js)
    this.lastArrival = -Infinity; // Date.now() when the last shard came in
    this.updateCheck = null; // Promise of whether the site's shard set changed (#updated)
    this.inFlight = 0; // requests out (at most MAX_IN_FLIGHT)
    this.queue = []; // the requests waiting for one of them to end, first come first served
  }

  /** Whether the set is the small committed fallback, not the whole vocabulary. */
  get fallback() {
    return this.manifest.fallback === true;
  }

  shardUrl(k) {
    return new URL(this.manifest.files.replace('{k}', k.toString(16).padStart(4, '0')), this.base);
  }

  /** The shards `text` still needs that have not failed (some may be loading). */
  missing(text) {
    // The wasm tokenizes the whole text for it (about 6 ms for 1,024 words on
    // a slow machine), and the page asks twice per text (ready, then ensure):
    // kept until a shard arrives or the failures are forgotten (version).
    const needed = this.needed;
    if (needed?.text !== text || needed.version !== this.version) {
      this.needed = { text, version: this.version, shards: Array.from(this.explorer.missingShards(text)) };
    }
    return this.needed.shards.filter((k) => !this.failed.has(k));
  }

  /** Whether every shard `text` needs is in (or failed). */
  ready(text) {
    return this.missing(text).length === 0;
  }

  /**
   * Fetches, round after round, every shard `text` needs to be tokenized as
   * with the whole vocabulary in memory. Resolves when nothing more can be
   * done (failed shards are left failed); never rejects.
   */
  async ensure(text) {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const missing = this.missing(text);
      if (missing.length === 0) return;
      // A pasted page of rare words needs a hundred shards: the requests go
      // out a batch per task, since starting a fetch costs the main thread
      // 0.5-1 ms (the browser queues most of them anyway). With more than one
      // batch, the first waits for a task of its own too: the caller's task
      // (a new text drawn) is long enough.
      const loads = [];
      for (let at = 0; at < missing.length; at += REQUESTS_PER_TASK) {
        if (at > 0 || missing.length > REQUESTS_PER_TASK) await nextTask();
        loads.push(...missing.slice(at, at + REQUESTS_PER_TASK).map((k) => this.load(k)));
      }
      await Promise.all(loads);
    }
  }

  /**
   * Loads shard `k` once; concurrent callers share one request. A shard
   * already in, or failed (until `retry()`), is not fetched again.
   */
  load(k) {
    if (this.explorer.hasShard(k) || this.failed.has(k)) return Promise.resolve();
    if (!this.loading.has(k)) {
      const done = this.#limited(() => this.#fetch(k)).finally(() => {
        this.loading.delete(k);
        this.changed();
      });
      this.loading.set(k, done);
    }
    return this.loading.get(k);
  }

  /** Runs `request` when fewer than MAX_IN_FLIGHT are out (its timeout starts then). */
  async #limited(request) {
    if (this.inFlight < MAX_IN_FLIGHT) this.inFlight += 1;
    else await new Promise((resolve) => this.queue.push(resolve));
    try {
      return await request();
    } finally {
      // The slot goes to the next in the queue, or is freed.
      const next = this.queue.shift();
      if (next) next();
      else this.inFlight -= 1;
    }
  }

  async #fetch(k) {
    const url = this.shardUrl(k);
    const name = url.pathname.split('/').slice(-2).join('/');
    const abort = new AbortController();
    const started = Date.now();
    const stop = this.#timeout(abort, started);
    this.requests += 1;
    let answered = false;
    try {
      const response = await this.fetch(url, { signal: abort.signal, ...(this.reloads.has(k) ? { cache: 'reload' } : {}) });
      if (response.status === 404 && await this.#updated()) throw new Error(`this site was updated since the page was opened (its word vectors changed): reload the page`);
      if (!response.ok) throw new Error(`the server answered HTTP ${response.status} for ${name}`);
      answered = true;
      const bytes = new Uint8Array(await response.arrayBuffer());
      this.bytes += bytes.length;
      this.lastArrival = Date.now();
      try {
        this.explorer.addShard(bytes, k);
        this.version += 1;
        this.arrived.add(url.href);
      } catch (error) {
        // A copy spoilt on the way or by a cache (a captive portal's page,
        // a body cut short) is fetched again at once, past every cache;
        // only a second bad copy fails.
        if (!this.reloads.has(k)) {
          this.reloads.add(k);
          stop();
          return this.#fetch(k);
        }
        throw new Error(`${name} is damaged: ${error.message}`, { cause: error });
      }
    } catch (error) {
      const reason = abort.signal.aborted ? (abort.signal.reason === LONGEST_MS ? `${name} did not arrive in ${LONGEST_MS / 1000} s` : `nothing of ${name} arrived for ${TIMEOUT_MS / 1000} s`) :
        !(error instanceof TypeError) ? error.message :
          answered ? `${name} was cut off on the way` : `${name} could not be downloaded (offline?)`;
      this.failed.set(k, reason);
    } finally {
      stop();
    }
  }

  /**
   * Aborts a request after TIMEOUT_MS, unless other shards arrived
   * meanwhile: a long paste's requests wait their turn in the browser (six
   * at a time over HTTP/1.1), and a slow but working connection must not
   * fail them. LONGEST_MS after `started`, it is aborted anyway. Returns the
   * function that stops the count.
   */
  #timeout(abort, started) {
    let timer = 0;
    const check = () => {
      const now = Date.now();
      const quiet = now - this.lastArrival;
      if (quiet >= TIMEOUT_MS) abort.abort(TIMEOUT_MS);
      else if (now - started >= LONGEST_MS) abort.abort(LONGEST_MS);
      else timer = setTimeout(check, Math.min(TIMEOUT_MS - quiet, started + LONGEST_MS - now));
    };
    timer = setTimeout(check, TIMEOUT_MS);
    return () => clearTimeout(timer);
  }

  /**
   * Whether the site now serves another shard set than this page's (a
   * deploy of vectors built again: the page's shards are gone). Asked once,
   * at the first shard that is not found.
   */
  #updated() {
    this.updateCheck ??= fetchManifest(new URL('manifest.json', this.base), this.fetch)
      .then((manifest) => manifest.set !== this.manifest.set, () => false);
    return this.updateCheck;
  }

  /** What is left to know about `word` (lowercased): null when nothing, else 'loading' or the failure's reason. */
  statusOf(word) {
    const k = this.explorer.shardOf(word);
    if (this.failed.has(k)) return this.failed.get(k);
    return this.loading.has(k) ? 'loading' : null;
  }

  /** Whether any shard failed. */
  get anyFailed() {
    return this.failed.size > 0;
  }

  /** Forgets every failure, so that the next `ensure` fetches those shards again. */
  retry() {
    this.failed.clear();
    this.version += 1;
    this.changed();
  }

  /** Calls `listener()` whenever a shard arrives or fails; returns the function that stops it. */
  listen(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener of a page that has gone (a removed widget) must not stop the others.
      }
    }
  }
}

/** Fetches and checks the manifest at `url`; errors say what failed, for the page. */
export async function fetchManifest(url, fetch = globalThis.fetch.bind(globalThis)) {
  let response;
  try {
    response = await fetch(url, { cache: 'no-cache' });
  } catch (error) {
    throw new Error(`The word vectors could not be downloaded (${url.pathname}: ${error.message}). Check the connection and reload.`, { cause: error });
  }
  if (!response.ok) {
    throw new Error(`The word vectors could not be loaded: ${url.pathname} answered HTTP ${response.status}${response.statusText ? ' ' + response.statusText : ''}.`);
  }
  try {
    return checkManifest(await response.json());
  } catch (error) {
    throw new Error(`The word vectors could not be read: ${error instanceof SyntaxError ? 'manifest.json is not JSON' : error.message}.`, { cause: error });
  }
}

/** Runs `task` when the main thread is idle, or after `timeout` ms at most (in the next task where there are no idle callbacks: a worker, Safari). */
export function whenIdle(task, timeout) {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(task, { timeout });
  else setTimeout(task, 0);
}

/** Resolves in a task of its own: the page can handle input and paint before the work goes on. */
export function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The pauses of a loop that works `ms` a task: `await pause()` goes on at
 * once until `ms` have passed since the task began, then runs `onYield()`
 * (if given) and resolves in a task of its own, to true.
 */
export function taskPauses(ms) {
  let start = performance.now();
  return async (onYield) => {
    if (performance.now() - start < ms) return false;
    onYield?.();
    await nextTask();
    start = performance.now();
    return true;
  };
}
