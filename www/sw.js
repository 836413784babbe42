// The service worker: after one visit the page opens with no network. It
// keeps the app (pages, scripts, styles, the wasm) and every word-vector
// shard the page has fetched, in the Cache API of this site:
// - shards and the nearest-word index live under a folder named by their
//   set's id (data/glove-6b-50d/<set>/…), so their content never changes:
//   served from the cache when there, else fetched and kept;
// - everything else (the app, the vectors' manifest) is fetched first, so a
//   new version is used at once, and the kept copy serves when offline.
// A word whose shard was never fetched stays unknown offline, and the page
// says it needs the network. The trained model keeps its own cache (its
// worker), and nothing of another origin is ever touched.

const APP = 'attention-explorer-app-v1';
const SHARDS = 'attention-explorer-shards-v1';
const SHELL = ['./', 'index.html', 'embed.html', 'style.css', 'favicon.png', 'examples.txt', 'pkg/attention_wasm.js', 'pkg/attention_wasm_bg.wasm'];

self.addEventListener('install', (event) => {
  // The shell is cached as the first visit fetches it; this only makes sure of the entry pages.
  event.waitUntil(caches.open(APP).then((cache) => cache.addAll(SHELL)).catch(() => {}));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(
    keys.filter((key) => key.startsWith('attention-explorer-') && key !== APP && key !== SHARDS && !key.includes('model'))
      .map((key) => caches.delete(key)),
  )));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.includes('/model/')) return;
  if (/\/data\/glove-6b-50d\/[0-9a-f]{16}\//.test(url.pathname)) event.respondWith(cacheFirst(request));
  else event.respondWith(networkFirst(request));
});

async function cacheFirst(request) {
  const cache = await caches.open(SHARDS);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) cache.put(request, response.clone()).catch(() => {});
  return response;
}

async function networkFirst(request) {
  const cache = await caches.open(APP);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') cache.put(request, response.clone()).catch(() => {});
    return response;
  } catch (error) {
    const kept = await cache.match(request, { ignoreSearch: true });
    if (kept) return kept;
    throw error;
  }
}
