// The service worker: after one visit the page opens with no network. It
// keeps the app (pages, scripts, styles, the wasm) and every word-vector
// shard the page has fetched, in the Cache API of this site:
// - at install, every file of the app (BUILD.files, written by scripts/build),
//   in a cache named by their version, all or none; then it takes control of
//   the page at once, and that page names the shards (and the model's
//   WebAssembly) it fetched before (message 'keep');
// - shards and the nearest-word index live under a folder named by their
//   set's id (data/glove-6b-50d/<set>/…), so their content never changes:
//   served from the cache when there, else fetched and kept; those of an
//   older set are dropped, and never kept (a page of an older version still
//   open gets them from the network);
// - everything else (the app, the vectors' manifest) is fetched first, so a
//   new version is used at once, and the kept copy serves when offline;
// - only what the app needs offline is kept, once an address: its files, its
//   pages, the model's WebAssembly and the current set's shards, each under
//   its address without the query. Anything else of the site (the host's
//   _headers, source maps, this worker) just goes to the network: a page that
//   asked for ever-new addresses would otherwise grow the caches without bound;
// - only the app's own pages and files are answered at all: deployed at a
//   site's root beside other content (a blog at /blog/…), this worker's scope
//   covers that content too, whose requests go to the network untouched (a
//   blog's page kept here, or made to wait PATIENCE_MS, is none of the app's
//   business);
// - a page (a navigation) waits PATIENCE_MS for the network, then opens from
//   the kept copy: a link that connects but carries nothing ("lie-fi", a
//   train's wifi) left a blank tab until the browser gave up, minutes later.
//   Every file of a page opened so comes from the same copy (one version,
//   with no wait of its own).
// A word whose shard was never fetched stays unknown offline, and the page
// says it needs the network. The trained model's weights are kept in its
// own cache (by its worker), its WebAssembly here; nothing of another origin
// is ever touched.

// Written by scripts/build (scripts/offline-files.mjs): the app's files, a hash of them, the shard set's id.
const BUILD = { version: 'unbuilt', set: '', files: [] };

const APP = `attention-explorer-app-${BUILD.version}`;
const SHARDS = 'attention-explorer-shards-v1';
// The current set's folder, under this worker's, and the two kinds of file in it: the shards and the nearest-word index.
const SET_FOLDER = new URL(`data/glove-6b-50d/${BUILD.set}/`, self.location).pathname;
const SET_FILE = /^[0-9a-f]{4}\.aews$|^neighbors\.aewv$/;
// The trained model's WebAssembly and its glue: kept as the app's files are, once fetched under this worker
// or named by a page that fetched them before it (its worker started before this one took control).
const MODEL_WASM = new Set(['pkg-model/attention_model_wasm_bg.wasm', 'pkg-model/attention_model_wasm.js']
  .map((file) => new URL(file, self.location).href));
const PATIENCE_MS = 4000;
// The app's files by address (BUILD.files are relative to this worker's folder), with its pages
// under the addresses a host with "pretty URLs" (Cloudflare Pages, Netlify) redirects them to.
const APP_FILES = new Set([...BUILD.files, 'index', 'embed'].map((file) => new URL(file, self.location).href));
// The pages (client ids) opened from the kept copy while this worker runs.
const fromCopy = new Set();

self.addEventListener('install', (event) => {
  // Revalidated, not taken from the HTTP cache as they are: one version of every file.
  const files = BUILD.files.map((file) => new Request(file, { cache: 'no-cache' }));
  // All or nothing (addAll stores nothing unless every file arrived): a file
  // that fails (the network dropped, a deploy half copied) fails the install,
  // so that the worker in control keeps its complete copy, which activate
  // would delete, and the browser tries again at the next visit. An install
  // that went on with an empty copy left a page that could not open offline.
  event.waitUntil(caches.open(APP).then((cache) => cache.addAll(files)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const keys = await caches.keys();
    await Promise.all(keys.filter((key) => key.startsWith('attention-explorer-') && key !== APP && key !== SHARDS && !key.includes('model'))
      .map((key) => caches.delete(key)));
    // The data was built again: shards of the old set are never asked for;
    // nor are the copies an older worker kept under a query.
    const shards = await caches.open(SHARDS);
    for (const request of await shards.keys()) {
      const url = new URL(request.url);
      if (!isCurrentShard(url) || url.search) await shards.delete(request);
    }
    // The first visit's page too, from now on.
    await self.clients.claim();
  })());
});

// The page names what it fetched before this worker controlled it: { type: 'keep', urls }.
self.addEventListener('message', (event) => {
  if (event.data?.type === 'keep' && Array.isArray(event.data.urls)) event.waitUntil(keep(event.data.urls));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (isCurrentShard(url)) {
    event.respondWith(cacheFirst(request));
    return;
  }
  // Anything else not of the app (the model's files, kept by its worker; the site's other pages) is left alone.
  if (!ofTheApp(url.href)) return;
  if (request.mode === 'navigate') event.respondWith(navigate(event));
  else if (fromCopy.has(event.clientId)) event.respondWith(keptFirst(request));
  else event.respondWith(networkFirst(request));
});

async function keep(urls) {
  const cache = await caches.open(SHARDS);
  for (const href of urls) {
    let url;
    try {
      url = new URL(String(href));
    } catch {
      continue;
    }
    if (url.origin !== self.location.origin) continue;
    if (MODEL_WASM.has(withoutQuery(url.href))) {
      await fetchAndKeep(await caches.open(APP), new Request(url)).catch(() => {});
      continue;
    }
    if (!isCurrentShard(url)) continue;
    url.search = '';
    if (await cache.match(url)) continue;
    try {
      const response = await fetch(url);
      if (keepableShard(response)) await cache.put(url, response);
    } catch {
      // Offline already: the page fetches it again when it needs it.
    }
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(SHARDS);
  // A shard the page found damaged is asked for again past every cache (vectors.js), this one too.
  // One copy of a shard, whatever query it was asked with.
  const address = withoutQuery(request.url);
  const kept = request.cache === 'reload' ? null : await cache.match(address);
  if (kept) return kept;
  const response = await fetch(request);
  if (keepableShard(response)) cache.put(address, response.clone()).catch(() => {});
  return response;
}

async function networkFirst(request) {
  const cache = await caches.open(APP);
  try {
    return await fetchAndKeep(cache, request);
  } catch (error) {
    const kept = await cache.match(request, { ignoreSearch: true });
    if (kept) return kept;
    throw error;
  }
}

/** A page: from the network if it answers within PATIENCE_MS, else (offline, or a server error) from the kept copy. */
async function navigate(event) {
  const cache = await caches.open(APP);
  const network = fetchAndKeep(cache, event.request);
  const kept = await cache.match(event.request, { ignoreSearch: true });
  if (!kept) return network;
  // A late answer is still kept (the worker stays up for it), for the next visit.
  event.waitUntil(network.catch(() => {}));
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(resolve, PATIENCE_MS, null); });
  const answer = await Promise.race([network.catch(() => null), late]);
  clearTimeout(timer);
  // A server error (a host down for maintenance, a proxy's 502) is no better than no answer.
  if (answer && answer.status < 500) return answer;
  if (event.resultingClientId) fromCopy.add(event.resultingClientId);
  return kept;
}

/** A file of a page opened from the kept copy: the same copy, the network only for what it lacks. */
async function keptFirst(request) {
  const cache = await caches.open(APP);
  return (await cache.match(request, { ignoreSearch: true })) ?? fetch(request);
}

/** Fetches a file of the app (see ofTheApp), and keeps it for offline. */
async function fetchAndKeep(cache, request) {
  // Revalidated, not taken from the HTTP cache as it is: a host's max-age
  // (GitHub Pages: 10 minutes) gave a visit just after a deploy the old
  // version's files, and its views fetched later the new one's.
  const response = await fetch(request, { cache: ['reload', 'no-store'].includes(request.cache) ? request.cache : 'no-cache' });
  // Kept under its address without the query (read back with ignoreSearch):
  // links and probes with ever-new queries would otherwise each add a copy.
  if (keepable(response)) cache.put(withoutQuery(request.url), response.clone()).catch(() => {});
  return response;
}

/**
 * Whether this worker answers for an address, and keeps it: a page or file
 * of the app (APP_FILES) or the model's WebAssembly, whatever the query.
 */
function ofTheApp(href) {
  const address = withoutQuery(href);
  return APP_FILES.has(address) || MODEL_WASM.has(address);
}

/** A complete answer of this site (an error, a redirect or an opaque answer is never kept). */
function keepable(response) {
  return response.ok && (response.type === 'basic' || response.type === 'cors');
}

/**
 * A shard's answer, kept as `keepable` says, but never a page: a host that
 * answers a missing file with its index page and a 200 (a single-page app's
 * fallback) would have that page kept as a shard for as long as the set lasts.
 */
function keepableShard(response) {
  return keepable(response) && !response.headers.get('Content-Type')?.startsWith('text/html');
}

/**
 * A shard (or the nearest-word index) of the current set: the only ones kept.
 * Only in this worker's own data folder: a blog's page at
 * /blog/data/glove-6b-50d/<set>/post.html is none of its business.
 */
function isCurrentShard(url) {
  if (BUILD.set === '' || !url.pathname.startsWith(SET_FOLDER)) return false;
  return SET_FILE.test(url.pathname.slice(SET_FOLDER.length));
}

/** The address without its query, nor its fragment (a page's request carries the page's #s=…). */
function withoutQuery(href) {
  const url = new URL(href);
  url.search = '';
  url.hash = '';
  return url.href;
}
