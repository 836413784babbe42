// The word vectors as a user meets them: the first load, rare words, words
// still loading, shards that fail or arrive damaged and a retry, the
// fallback, a file of the user's own, and a visit with no network.
import { mock, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { VectorStore } from '../../www/js/vectors.js';
import { DIST, everythingKept, hashFor, hashOf, KING, KING_ROW, openPage, readTable, ready, rowOf, serveDist, useSite } from './helpers.mjs';

const site = useSite();
const SHARD = '**/data/glove-6b-50d/*/*.aews';

/** Whether the site serves the small fallback instead of the whole vocabulary. */
async function isFallback(page) {
  return page.evaluate(async () => (await (await fetch('data/glove-6b-50d/manifest.json')).json()).fallback === true);
}

/**
 * Routes the shard that holds `word` through `handle(route, body)`; other
 * shards pass. A request still in flight when the test closes its page (the
 * nearest words of a focused row fetch shards after the page is drawn) is
 * dropped with the page.
 */
function routeWordShard(word, handle) {
  return [SHARD, async (route) => {
    try {
      const response = await route.fetch();
      const body = await response.body();
      if (body.includes(Buffer.from(`\n${word}\n`)) || body.subarray(48).toString('utf8').startsWith(`${word}\n`)) await handle(route, body, response);
      else await route.fulfill({ response });
    } catch (error) {
      if (!/disposed|closed/i.test(error.message)) throw error;
    }
  }];
}

test('the first load transfers less than 1,000,000 bytes and prints the tutorial figure 0.0489', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const bytes = await page.evaluate(() => {
    const end = performance.getEntriesByName('first-heatmap')[0].startTime;
    const navigation = performance.getEntriesByType('navigation')[0].transferSize;
    return navigation + performance.getEntriesByType('resource').filter((r) => r.responseEnd <= end).reduce((sum, r) => sum + r.transferSize, 0);
  });
  assert.ok(bytes > 100000 && bytes < 1000000, `${bytes} bytes before the first heatmap`);
  const king = (await readTable(page)).rows[1];
  assert.equal(king.query, 'king');
  assert.equal(king.cells[2], '0.0489', "'king' → 'and', exactly as the float32 reference rounds");
  await finish();
});

test('rare words, accents and words about attention itself are known', async () => {
  const sentence = 'The query vectors and tokens turn into probabilities via embeddings: jalapeño, doppelgänger, café, naïve, résumé.';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(sentence));
  await ready(page);
  if (await isFallback(page)) {
    // Offline build: the page says that the fallback costs these words.
    assert.match(await page.textContent('#unknown-note'), /fallback vocabulary .*'query'.*scripts\/build-data/s);
  } else {
    assert.equal(await page.locator('#tokens .token.unknown').count(), 0, await page.textContent('#unknown-note'));
    const header = (await readTable(page)).header;
    for (const word of ['query', 'vectors', 'tokens', 'probabilities', 'embeddings', 'jalapeño', 'doppelgänger', 'café', 'naïve', 'résumé']) {
      assert.ok(header.includes(word), `${word} in ${header}`);
    }
  }
  await finish();
});

test('accents written apart from their letters (as macOS and PDFs write them) are the same words', async () => {
  // "Café" and "naïve" with U+0301 and U+0308 after their letters: GloVe spells them composed.
  const sentence = 'The Cafe\u0301 was nai\u0308ve';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(sentence));
  await ready(page);
  if (!(await isFallback(page))) {
    assert.equal(await page.locator('#tokens .token.unknown').count(), 0, await page.textContent('#unknown-note'));
    assert.deepEqual((await readTable(page)).header, ['the', 'café', 'was', 'naïve']);
    // The chip shows what was typed; the find box takes either spelling.
    assert.equal(await page.textContent('#tokens button.token[data-row="1"]'), 'Cafe\u0301');
    await page.fill('#token-find', 'cafe\u0301');
    await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('focus') === '1');
    assert.equal(await page.textContent('#token-find-status'), '1 of 1');
  }
  await finish();
});

test('a word typed letter by letter costs at most one request for its shard', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor('The king and queen'));
  await ready(page);
  const shards = [];
  // The page's requests (the service worker's own, once it is in control, repeat them or keep a file).
  context.on('request', (request) => {
    if (request.url().endsWith('.aews') && !request.serviceWorker()) shards.push(new URL(request.url()).pathname);
  });
  await page.focus('#sentence');
  await page.keyboard.press('End');
  await page.keyboard.type(' ruled', { delay: 40 });
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].some((th) => th.textContent === 'ruled'));
  assert.ok(shards.length <= 1, `shards fetched while typing ' ruled': ${shards}`);
  await finish();
});

/**
 * Opens `hash` with js/main.js (the page's main module, which start.js
 * does not wait for) held back until `release()`: the page cannot start meanwhile.
 * `shards` lists every shard request, in order.
 */
async function openHeld(hash) {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const opened = await openPage(site.browser, null, {
    origins: [new URL(site.url).origin],
    routes: [['**/js/main.js', async (route) => { await held; await route.continue(); }]],
  });
  const shards = [];
  opened.context.on('request', (request) => {
    if (request.url().endsWith('.aews')) shards.push(new URL(request.url()).pathname);
  });
  await opened.page.goto(site.url + hash, { waitUntil: 'commit' });
  return { ...opened, shards, release };
}

/** The paths of the shard files index.html preloads (the default text's). */
const preloaded = (page) => page.evaluate(() => [...document.querySelectorAll('link[rel="preload"][data-shard]')].map((link) => new URL(link.href).pathname));

test("a link's word vectors load while the page's modules still arrive, each shard once", async () => {
  const { page, shards, release, finish } = await openHeld(hashFor('Zebras graze near the river'));
  const first = await preloaded(page);
  await page.waitForFunction((count) => performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.aews')).length > count, first.length);
  await page.waitForTimeout(300);
  const early = shards.filter((shard) => !first.includes(shard)).length;
  assert.ok(early >= 1, "none of the link's own shards requested before the page started");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), undefined, 'the page started with a module held');
  release();
  await ready(page);
  assert.deepEqual((await readTable(page)).header, ['zebras', 'graze', 'near', 'the', 'river']);
  assert.deepEqual(shards, [...new Set(shards)], 'a shard fetched twice');
  await finish();
});

test("the default text's shards are preloaded by index.html, and read once each whatever the link's text", async () => {
  // The default page needs no shard but those, and asks for each once.
  const plain = await openPage(site.browser, null, { origins: [new URL(site.url).origin] });
  const requested = [];
  plain.context.on('request', (request) => {
    if (request.url().endsWith('.aews')) requested.push(new URL(request.url()).pathname);
  });
  await plain.page.goto(site.url);
  await ready(plain.page);
  const first = await preloaded(plain.page);
  assert.ok(first.length >= 1, 'index.html preloads no shard');
  assert.deepEqual([...requested].sort(), [...first].sort(), 'the default page asked for other shards, or for one twice');
  assert.deepEqual((await readTable(plain.page)).header, KING.toLowerCase().split(' '));
  await plain.finish();
  // A link of other words reads them too: Chromium warns of a preload left
  // unread about 3 s after the load (openPage counts the warning as an error).
  const other = await openPage(site.browser, site.url + hashFor('Zebras graze near a river'));
  await ready(other.page);
  await other.page.waitForTimeout(4000);
  const read = await other.page.evaluate(() => performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.aews')).map((r) => new URL(r.name).pathname));
  for (const shard of first) assert.equal(read.filter((r) => r === shard).length, 1, `${shard} read ${read.filter((r) => r === shard).length} times`);
  assert.deepEqual((await readTable(other.page)).header, ['zebras', 'graze', 'near', 'a', 'river']);
  await other.finish();
});

test('a link beyond the limit fetches no shard before the page has cut it', async () => {
  const { page, shards, release, finish } = await openHeld(hashFor('the cat '.repeat(2000).trim()));
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('/manifest.json')));
  await page.waitForTimeout(600);
  const first = await preloaded(page);
  assert.deepEqual(shards.filter((shard) => !first.includes(shard)), [], '4,000 words: shards fetched before the cut');
  release();
  await page.waitForSelector('#sentence-note:not([hidden])', { timeout: 20000 });
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 1025, null, { timeout: 20000 });
  assert.match(await page.textContent('#sentence-note'), /cut after its first 1,024 known words/);
  await finish();
});

test('words still loading are marked, and drawn once their vectors arrive', async () => {
  // The shard of 'kingdom' is held until the note has been read: a shard held for a fixed
  // time could arrive, on a busy machine, before the note's half second had passed.
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    routes: [routeWordShard('kingdom', async (route, body, response) => {
      await held;
      await route.fulfill({ response, body });
    })],
  });
  // The other words arrive; 'kingdom' waits, and after half a second the note names it.
  await page.waitForFunction(() => [...document.querySelectorAll('#tokens .token.pending')].map((c) => c.textContent).join() === 'kingdom');
  await page.waitForSelector('#unknown-note:not([hidden])');
  assert.match(await page.textContent('#unknown-note'), /Loading the vectors of .*'kingdom'/);
  release();
  await page.waitForFunction(() => document.querySelector('#weights thead')?.textContent.includes('kingdom'));
  assert.deepEqual((await readTable(page)).header, ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  assert.ok(await page.locator('#unknown-note').isHidden());
  await finish();
});

test('until the engine is in, the text\'s words wait as chips, so that the strip has its height from the first paint', async () => {
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  const { page, finish } = await openPage(site.browser, site.url + hashFor("The cat didn't sit."), {
    routes: [['**/attention_wasm_bg.wasm', async (route) => {
      await held;
      await route.continue().catch(() => {});
    }]],
  });
  await page.waitForSelector('#tokens .token');
  assert.equal(await page.textContent('#status'), 'Loading…');
  const waiting = await page.locator('#tokens .token').evaluateAll((chips) => chips.map((c) => [c.tagName, c.className, c.textContent]));
  assert.deepEqual(waiting, ['The', 'cat', "didn't", 'sit', '.'].map((word) => ['SPAN', 'token pending', word]));
  assert.equal(await page.getAttribute('#tokens .token', 'title'), "'the': loading its vector…");
  const before = (await page.locator('#tokens').boundingBox()).height;
  release();
  await ready(page);
  // The tokenizer cuts "didn't" in two; the chips are buttons now, on as many lines.
  assert.deepEqual(await page.locator('#tokens .token').evaluateAll((chips) => chips.map((c) => c.textContent)), ['The', 'cat', 'did', "n't", 'sit', '.']);
  assert.equal(await page.locator('#tokens button.token').count(), 6);
  assert.equal((await page.locator('#tokens').boundingBox()).height, before);
  await finish();
});

test('typing words whose vectors are not in yet does not move the page, on a laptop or a phone: the note under the tokens waits for the keys to pause', async () => {
  for (const viewport of [{ width: 1200, height: 900 }, { width: 360, height: 740 }]) {
    // Shards asked for once the keys have come are held until `release`.
    let held = null;
    let release;
    const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat'), {
      viewport,
      routes: [[SHARD, async (route) => {
        await held;
        await route.continue().catch((error) => {
          if (!/disposed|closed/i.test(error.message)) throw error;
        });
      }]],
    });
    await ready(page);
    held = new Promise((resolve) => {
      release = resolve;
    });
    // At every frame while the keys come: the note's state, and where the views under the status line are.
    await page.evaluate(() => {
      window.looks = [];
      const note = document.getElementById('unknown-note');
      const views = document.getElementById('views');
      const look = () => {
        if (window.stopLooking) return;
        window.looks.push({ note: note.hidden ? '' : note.textContent, top: views.getBoundingClientRect().top });
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await page.focus('#sentence');
    await page.keyboard.press('End');
    // The word is pending while it is typed, 'q' to 'quarrels' (its shard is fetched once the keys pause).
    await page.keyboard.type(' quarrels', { delay: 60 });
    const frames = await page.evaluate(() => {
      window.stopLooking = true;
      return window.looks;
    });
    const at = `${viewport.width} px`;
    // About one a frame (a few with scripts/test-browser --slow-frames).
    assert.ok(frames.length >= 2, `${at}: ${frames.length} frames`);
    assert.deepEqual(frames.filter((f) => f.note), [], `${at}: the note stays hidden while the keys come`);
    // On a phone the result took two lines of the status, "Loading the vectors of 1 word…" one.
    assert.deepEqual([...new Set(frames.map((f) => f.top))], [frames[0].top], `${at}: the views stay where they are`);
    assert.ok(await page.locator('#tokens .token.pending').count() > 0);
    // Still on their way half a second after the keys paused: the note names them.
    await page.waitForSelector('#unknown-note:not([hidden])');
    assert.equal(await page.textContent('#unknown-note'), "Loading the vectors of 'quarrels'…");
    release();
    await page.waitForFunction(() => document.querySelector('#weights thead')?.textContent.includes('quarrels'));
    assert.deepEqual((await readTable(page)).header, ['the', 'cat', 'quarrels']);
    assert.ok(await page.locator('#unknown-note').isHidden());
    await finish();
  }
});

test('a shard that hangs holds up the rest of the text for 1.5 s at most; its word joins once it arrives', async () => {
  let release;
  const arrives = new Promise((resolve) => {
    release = resolve;
  });
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'), {
    routes: [routeWordShard('kingdom', async (route, body, response) => {
      await arrives;
      await route.fulfill({ response, body });
    })],
  });
  await ready(page);
  assert.deepEqual((await readTable(page)).header, ['the', 'king', 'and', 'queen', 'ruled', 'the']);
  assert.match(await page.textContent('#status'), /^6 tokens in the attention, 1 still loading · d = 50/);
  assert.equal(await page.textContent('#unknown-note'), "Loading the vectors of 'kingdom'…");
  assert.equal((await readTable(page)).rows.find((r) => r.focused)?.query, 'king');
  release();
  await page.waitForFunction(() => document.querySelector('#weights thead')?.textContent.includes('kingdom'));
  assert.deepEqual(await rowOf(page, 'king'), KING_ROW);
  assert.match(await page.textContent('#status'), /^7 tokens in the attention · d = 50/);
  await finish();
});

test('a word left out more than once is named once, with how many times', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('xqzzy cat xqzzy dog'));
  await ready(page);
  assert.match(await page.textContent('#status'), /^2 tokens in the attention, 2 left out · /);
  assert.match(await page.textContent('#unknown-note'), /^Not in the 400,000-word vocabulary: 'xqzzy' \(2 times\)\. It has no vector/);
  await finish();
});

test('while a typed word loads, the other chips stay buttons that focus their rows', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    routes: [routeWordShard('zebra', async (route, body, response) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.fulfill({ response, body });
    })],
  });
  await ready(page);
  await page.locator('#sentence').evaluate((box) => { box.focus(); box.setSelectionRange(box.value.length, box.value.length); });
  await page.keyboard.type(' zebra');
  await page.waitForFunction(() => [...document.querySelectorAll('#tokens .token.pending')].map((c) => c.textContent).join() === 'zebra');
  assert.deepEqual(await page.locator('#tokens button.token').evaluateAll((chips) => chips.map((c) => `${c.textContent} ${c.dataset.row}`)),
    ['The 0', 'king 1', 'and 2', 'queen 3', 'ruled 4', 'the 5', 'kingdom 6']);
  await page.click('#tokens button.token[data-row="3"]');
  assert.equal((await hashOf(page)).focus, '3');
  await page.waitForFunction(() => !document.querySelector('#tokens .token.pending'));
  const focused = (await readTable(page)).rows.find((r) => r.focused);
  assert.equal(focused.query, 'queen');
  assert.equal(await page.textContent('#tokens button.token[data-row="7"]'), 'zebra');
  await finish();
});

test('a link whose words cannot arrive keeps its focus for when they do', async () => {
  let failing = true;
  const { page, finish } = await openPage(site.browser, site.url + hashFor('Zebras gallop', '&focus=1'), {
    allow: [/status of 404/],
    // Every shard fails at first, as offline: neither word arrives.
    routes: [[SHARD, (route) => (failing ? route.fulfill({ status: 404, body: 'not found' }) : route.fallback())]],
  });
  await page.waitForSelector('#vectors-retry:not([hidden])', { timeout: 20000 });
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
  assert.equal((await hashOf(page)).focus, '1', 'the link keeps focus=1');
  failing = false;
  await page.click('#vectors-retry');
  await page.waitForFunction(() => document.querySelector('#weights tr.focused th')?.textContent === 'gallop', null, { timeout: 20000 });
  await finish();
});

test('a shard that fails marks its words with the reason, the rest is drawn, and a retry works', async () => {
  let failing = true;
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    allow: [/status of 404/],
    routes: [routeWordShard('queen', async (route, body, response) => {
      if (failing) await route.fulfill({ status: 404, body: 'not found' });
      else await route.fulfill({ response, body });
    })],
  });
  await ready(page);
  assert.deepEqual((await readTable(page)).header, ['the', 'king', 'and', 'ruled', 'the', 'kingdom']);
  assert.match(await page.textContent('#unknown-note'), /'queen' could not be loaded \(the server answered HTTP 404 for [0-9a-f]{16}\/[0-9a-f]{4}\.aews\)/);
  assert.match(await page.getAttribute('#tokens .token.pending.failed', 'title'), /HTTP 404/);
  failing = false;
  await page.click('#vectors-retry');
  await page.waitForFunction(() => document.querySelectorAll('#weights thead th').length === 8);
  assert.deepEqual((await readTable(page)).header, ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  assert.ok(await page.locator('#unknown-note').isHidden());
  await finish();
});

test('the nearest words fetch each candidate shard once, even when it fails, and then the page rests', async () => {
  const requested = [];
  let failing = false;
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1&lab=steps'), {
    allow: [/status of 404/],
    routes: [[SHARD, async (route) => {
      requested.push(new URL(route.request().url()).pathname);
      if (failing) await route.fulfill({ status: 404, body: 'not found' });
      else await route.fallback();
    }]],
  });
  await ready(page);
  // From now on every shard fails: the candidates of the nearest-word search.
  failing = true;
  const before = requested.length;
  await page.waitForFunction(() => [...document.querySelectorAll('#explain .nearest-words')].every((s) => s.textContent !== '…'));
  const candidates = requested.slice(before);
  await page.waitForTimeout(1500);
  assert.deepEqual(requested.slice(before), candidates, 'no shard is asked for again while the page rests');
  assert.equal(new Set(requested).size, requested.length, `a shard fetched twice: ${requested}`);
  assert.match(await page.textContent('#explain .nearest-words'), /king/);
  await finish();
});

test('a damaged shard is refused and named, not used', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    routes: [routeWordShard('ruled', async (route, body) => {
      const damaged = Buffer.from(body);
      damaged[damaged.length - 1] ^= 0x55;
      await route.fulfill({ status: 200, body: damaged });
    })],
  });
  await ready(page);
  assert.ok(!(await readTable(page)).header.includes('ruled'));
  assert.match(await page.textContent('#unknown-note'), /'ruled' could not be loaded \([0-9a-f/]+\.aews is damaged: invalid word-vector file: shard \d+ is corrupt: its checksum does not match\)/);
  await finish();
});

test('shards queued behind slow ones are not given up while others still arrive; a stalled one is', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    // Shard 1 comes after 10 s, shard 2 (queued behind it, as HTTP/1.1 sends six at a time) after 20 s;
    // shard 3, asked for at 8 s, never: 15 s after shard 2, nothing has come (and it has waited 27 s, not 30).
    const arrives = { 1: 10000, 2: 20000 };
    const fetch = (url, { signal }) => new Promise((resolve, reject) => {
      const k = parseInt(url.pathname.match(/([0-9a-f]{4})\.aews$/)[1], 16);
      signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      if (arrives[k]) setTimeout(() => resolve(new Response(new Uint8Array([k]))), arrives[k]);
    });
    const added = [];
    const explorer = { hasShard: () => false, addShard: (bytes, k) => added.push(k) };
    const manifest = { files: 'set/{k}.aews', set: '0123456789abcdef' };
    const store = new VectorStore({ explorer, manifest, base: new URL('http://site/data/manifest.json'), fetch });
    const loads = [1, 2].map((k) => store.load(k));
    const advance = async (ms) => {
      mock.timers.tick(ms);
      for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve));
    };
    for (let t = 0; t < 40; t++) {
      if (t === 8) loads.push(store.load(3));
      await advance(1000);
      if (t === 33) assert.ok(!store.failed.has(3), 'at 34 s shard 3 is still waited for');
    }
    await Promise.all(loads);
    assert.deepEqual(added, [1, 2], 'shard 2 came at 20 s, 5 s past the limit, while shard 1 had come at 10 s');
    assert.deepEqual([...store.failed], [[3, 'nothing of set/0003.aews arrived for 15 s']]);
  } finally {
    mock.timers.reset();
  }
});

test('a stalled shard is given up after 30 s though the words typed meanwhile keep arriving', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    // Shard 0 never comes; shards 1 to 9 are asked for one every 5 s (a word typed), each arriving at once.
    const fetch = (url, { signal }) => new Promise((resolve, reject) => {
      const k = parseInt(url.pathname.match(/([0-9a-f]{4})\.aews$/)[1], 16);
      signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      if (k > 0) resolve(new Response(new Uint8Array([k])));
    });
    const explorer = { hasShard: () => false, addShard: () => {} };
    const manifest = { files: 'set/{k}.aews', set: '0123456789abcdef' };
    const store = new VectorStore({ explorer, manifest, base: new URL('http://site/data/manifest.json'), fetch });
    const stalled = store.load(0);
    const advance = async (ms) => {
      mock.timers.tick(ms);
      for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve));
    };
    for (let t = 1; t <= 9; t++) {
      await advance(5000);
      await store.load(t);
      assert.equal(store.failed.has(0), t * 5000 >= 30000, `at ${t * 5} s`);
    }
    await stalled;
    assert.deepEqual([...store.failed], [[0, 'set/0000.aews did not arrive in 30 s']]);
  } finally {
    mock.timers.reset();
  }
});

test('a text of two thousand shards asks for at most 64 at once, and gets them all', async () => {
  // As a browser that refuses requests past its limit (Chromium: ERR_INSUFFICIENT_RESOURCES).
  let out = 0;
  let most = 0;
  const fetch = async (url) => {
    out += 1;
    most = Math.max(most, out);
    try {
      if (out > 100) throw new TypeError('Failed to fetch');
      await new Promise((resolve) => setTimeout(resolve, 1));
      return new Response(new Uint8Array([1]));
    } finally {
      out -= 1;
    }
  };
  const added = [];
  const explorer = { hasShard: () => false, addShard: (bytes, k) => added.push(k) };
  const manifest = { files: 'set/{k}.aews', set: '0123456789abcdef' };
  const store = new VectorStore({ explorer, manifest, base: new URL('http://site/data/manifest.json'), fetch });
  await Promise.all(Array.from({ length: 2000 }, (_, k) => store.load(k)));
  assert.equal(added.length, 2000);
  assert.deepEqual([...store.failed], []);
  assert.equal(most, 64);
});

test('a shard spoilt once on the way is fetched again past the caches, and used', async () => {
  const asked = [];
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    routes: [routeWordShard('ruled', async (route, body, response) => {
      asked.push(route.request().url());
      // A captive portal's page, sent with 200 in place of the file; the next answer is the file.
      if (asked.length === 1) await route.fulfill({ status: 200, contentType: 'text/html', body: '<html><body>Sign in to the Wi-Fi</body></html>' });
      else await route.fulfill({ response, body });
    })],
  });
  await ready(page);
  assert.ok((await readTable(page)).header.includes('ruled'));
  assert.equal(await page.locator('#tokens .token.failed').count(), 0);
  assert.equal(asked.length, 2, 'asked once more, then used');
  await finish();
});

test('a shard gone because the site was updated says to reload the page', async () => {
  let manifests = 0;
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    allow: [/404/],
    routes: [
      ['**/glove-6b-50d/manifest.json', async (route) => {
        const response = await route.fetch();
        const manifest = await response.json();
        // Read again after the deploy: vectors built anew, another set.
        if ((manifests += 1) > 1) manifest.set = 'ffffffffffffffff';
        await route.fulfill({ response, body: JSON.stringify(manifest) });
      }],
      routeWordShard('ruled', (route) => route.fulfill({ status: 404, body: 'not found' })),
    ],
  });
  await ready(page);
  assert.match(await page.textContent('#unknown-note'), /'ruled' could not be loaded \(this site was updated since the page was opened \(its word vectors changed\): reload the page\)/);
  await finish();
});

test('a page whose files stop coming says so, and what to do', async () => {
  const { page, finish } = await openPage(site.browser, null, {
    origins: [new URL(site.url).origin],
    routes: [['**/glove-6b-50d/manifest.json', () => {}]], // never answered
  });
  await page.addInitScript(() => { window.aeStalledS = 1; });
  await page.goto(site.url + hashFor(KING));
  await page.waitForFunction(() => /^Still loading/.test(document.getElementById('status').textContent), null, { timeout: 10000 });
  assert.equal(await page.textContent('#status'), 'Still loading after 1 s: the connection may be slow or stalled. Reload the page to try again.');
  assert.equal(await page.textContent('#status-said'), await page.textContent('#status'), 'said, not only shown');
  await finish();
});

test('a shard served under another shard\'s name is refused as damaged, and not asked for again and again', async () => {
  let asked = 0;
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), {
    routes: [routeWordShard('ruled', async (route) => {
      asked += 1;
      // The file of the next shard, as a mirror serving the wrong file would send it.
      const manifest = new URL('../manifest.json', route.request().url()).href;
      const count = (await (await route.fetch({ url: manifest })).json()).shards;
      const other = route.request().url().replace(/([0-9a-f]{4})\.aews$/, (_, k) => `${((parseInt(k, 16) + 1) % count).toString(16).padStart(4, '0')}.aews`);
      await route.fulfill({ response: await route.fetch({ url: other }) });
    })],
  });
  await ready(page);
  assert.ok(!(await readTable(page)).header.includes('ruled'));
  assert.match(await page.textContent('#unknown-note'), /'ruled' could not be loaded \([0-9a-f/]+\.aews is damaged: invalid word-vector file: it holds shard [0-9a-f]{4}, not [0-9a-f]{4}\)/);
  await page.waitForTimeout(500);
  assert.equal(asked, 2, 'the shard of ruled was asked for once, and once more past the caches');
  await finish();
});

test('on the fallback the page says which words that costs', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The zorblax sat'), {
    routes: [['**/glove-6b-50d/manifest.json', async (route) => {
      const response = await route.fetch();
      const manifest = { ...(await response.json()), fallback: true };
      await route.fulfill({ response, body: JSON.stringify(manifest) });
    }]],
  });
  await ready(page);
  assert.match(await page.textContent('#unknown-note'), /Not in the fallback vocabulary of [\d,]+ words: 'zorblax'.*scripts\/build-data/s);
  assert.match(await page.textContent('#vectors-note'), /fallback/);
  await finish();
});

test('a link made with a file keeps its focus on a word GloVe does not know until the file is picked', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the zzqxv cat sat', '&vec=tiny.vec&focus=3'));
  await ready(page);
  // With GloVe 'zzqxv' has no vector: three rows, and the link's fourth word waits for the file.
  assert.deepEqual((await readTable(page)).rows.map((r) => r.query), ['the', 'cat', 'sat']);
  await page.setInputFiles('#vectors-file', { name: 'tiny.vec', mimeType: 'text/plain', buffer: Buffer.from('4 3\nthe 1 0 0\nzzqxv 0 1 0\ncat 0 0 1\nsat 1 1 0\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'));
  await page.waitForFunction(() => document.querySelector('#weights tbody tr.focused th')?.textContent === 'sat');
  assert.equal((await hashOf(page)).focus, '3');
  assert.doesNotMatch(await page.textContent('#link-note'), /focus/, 'the focus is no longer named as a problem');
  await finish();
});

test('a download made with your own vectors names their file, beside the same sentence\'s GloVe download', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the cat sat'));
  await ready(page);
  const csv = async () => {
    await page.click('#share-open');
    await page.selectOption('#export-figure', 'main');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    await page.click('#share-open');
    return download.suggestedFilename();
  };
  assert.equal(await csv(), 'attention-the-cat-sat.csv');
  await page.setInputFiles('#vectors-file', { name: 'my vectors.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\ncat 0 1 0\nsat 0 0 1\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'));
  assert.equal(await csv(), 'attention-the-cat-sat-my-vectors-txt.csv');
  // Back to GloVe hides its button: the keyboard goes to the file picker beside it, not to the page's start.
  await page.focus('#vectors-default');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 50'));
  assert.equal(await page.evaluate(() => document.activeElement.id), 'vectors-file');
  await page.setInputFiles('#vectors-file', { name: 'my vectors.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\ncat 0 1 0\nsat 0 0 1\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'));
  // A sentence the file knows none of: the message names the file, not English.
  await page.fill('#sentence', 'dogs ran');
  await page.waitForFunction(() => document.querySelector('#error')?.textContent.startsWith('None of the words'));
  assert.equal(await page.textContent('#error'), "None of the words is in your file 'my vectors.txt' ('dogs', 'ran').");
  await finish();
});

test('your own vectors: read in a worker, used by every view, named in the link', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the cat sat'));
  await ready(page);
  const file = { name: 'tiny.vec', mimeType: 'text/plain', buffer: Buffer.from('4 3\nthe 1 0 0\ncat 0 1 0\nsat 0 0 1\nmat 1 1 0\n') };
  await page.setInputFiles('#vectors-file', file);
  await page.waitForFunction(() => /your file tiny\.vec, 4 words of 3 dimensions/.test(document.querySelector('#vectors-note').textContent));
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'));
  // Unit vectors, unscaled: e¹ / (e¹ + 2e⁰) = 0.5761 on the diagonal.
  await page.uncheck('#opt-scale');
  assert.deepEqual((await rowOf(page, 'the')).map((w) => w.toFixed(4)), ['0.5761', '0.2119', '0.2119']);
  assert.equal((await hashOf(page)).vec, 'tiny.vec');
  const link = await page.evaluate(() => location.href);
  // Whoever opens the link is told which file it expects, and sees the default vectors.
  const other = await openPage(site.browser, link);
  await ready(other.page);
  assert.match(await other.page.textContent('#vectors-note'), /made with the word vectors of the file 'tiny\.vec'.*You see the default GloVe vectors/s);
  assert.match(await other.page.textContent('#status'), /d = 50/);
  await other.finish();
  // Back to GloVe drops the file from the link.
  await page.click('#vectors-default');
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 50'));
  assert.equal((await hashOf(page)).vec, undefined);
  // A file saved with a byte-order mark (as Windows editors save UTF-8) reads the same: 'the' is its first word.
  await page.setInputFiles('#vectors-file', { ...file, name: 'bom.txt', buffer: Buffer.from('\uFEFFthe 1 0 0\ncat 0 1 0\nsat 0 0 1\n') });
  await page.waitForFunction(() => /your file bom\.txt, 3 words of 3 dimensions/.test(document.querySelector('#vectors-note').textContent));
  await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('3 tokens in the attention ·'));
  assert.deepEqual((await rowOf(page, 'the')).map((w) => w.toFixed(4)), ['0.5761', '0.2119', '0.2119']);
  await finish();
});

test('a word with spaces, or a line in another encoding, is left out of a vectors file, and a file cut short is read, not refused', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the cat sat'));
  await ready(page);
  // As GloVe 840B writes '. . .', and as a Latin-1 editor writes 'café'.
  const content = Buffer.concat([Buffer.from('the 1 0 0\n. . . 1 1 1\ncat 0 1 0\n'), Buffer.from('café 1 1 0\n', 'latin1'), Buffer.from('sat 0 0 1\n')]);
  await page.setInputFiles('#vectors-file', { name: 'mixed.txt', mimeType: 'text/plain', buffer: content });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'));
  assert.match(await page.textContent('#vectors-note'),
    /your file mixed\.txt, 3 words of 3 dimensions\. 2 lines left out \(line 2 first\): a word with spaces, which no word of a sentence can be, or a line that is not UTF-8 text\./);
  assert.deepEqual((await readTable(page)).rows.map((r) => r.query), ['the', 'cat', 'sat']);
  // A word2vec file cut with head: its header promises more words than it holds.
  await page.setInputFiles('#vectors-file', { name: 'cut.vec', mimeType: 'text/plain', buffer: Buffer.from('2000000 2\nthe 1 0\ncat 0 1\nsat 1 1\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 2'));
  assert.match(await page.textContent('#vectors-note'), /your file cut\.vec, 3 words of 2 dimensions\. Its header says 2,000,000 words, it holds 3: cut short \(by head, say\), it is read as it is\./);
  await finish();
});

test('a bad vectors file gets a message naming the line, and the page keeps its vectors', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const before = await readTable(page);
  for (const [content, expected] of [
    ['the 1 2 3\ncat 1 2\n', /line 2: 'cat' has 2 numbers, earlier lines have 3/],
    ['1 3\nthe 1 2 3\ncat 1 2 3\n', /the header says 1 word, the file holds 2/],
    ['the 1 2 3\ncat 1 two 3\n', /line 2: component 1 of 'cat' is not a number: 'two'/],
    ['\x89PNG\r\n\x1a\n\x00\x00\xff\xfe', /line 1 is not UTF-8 text|holds a word and no number/],
    // A file that holds no vectors (picked by mistake, or as a link told): what is wrong, not what it says.
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n', /^bad\.txt could not be read: invalid word-vector file: line 1: component 0 is not a number \(each line of a word-vector text file is a word, then its numbers\)\. The page/],
    // Files of a known other kind say what to do.
    [gzipSync('the 1 2 3\n').toString('latin1'), /this is a gzip-compressed file: decompress it first \(gunzip\), then use the text file/],
    ['2 3\nthe \x00\x00\x80\x3f\xff\xfe\x00\x40\n', /line 2 is not UTF-8 text: this looks like a word2vec binary file .* save_word2vec_format\(path, binary=False\)/],
  ]) {
    await page.setInputFiles('#vectors-file', { name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from(content, 'latin1') });
    await page.waitForSelector('#vectors-error:not([hidden])');
    assert.match(await page.textContent('#vectors-error'), expected);
    assert.match(await page.textContent('#vectors-error'), /bad\.txt could not be read: .*The page keeps the vectors it had\./s);
    assert.ok(!(await page.textContent('#vectors-error')).includes('OPENSSH'), 'the file\'s text repeated');
    assert.deepEqual(await readTable(page), before);
  }
  await finish();
});

test('after one visit the page opens with no network, and says which words need it', async () => {
  const { page, context, finish } = await openPage(site.browser, site.url + hashFor(KING), { allow: [/ERR_INTERNET_DISCONNECTED|Failed to load resource/] });
  await ready(page);
  // The service worker takes control of this first visit, keeps every file of
  // the app, and the shards this visit fetched before it was in control.
  await everythingKept(page);
  // Addresses with ever-new queries (links, probes) are kept once each, not once a query.
  const appFiles = () => page.evaluate(async () => {
    const names = (await caches.keys()).filter((name) => name.startsWith('attention-explorer-app'));
    return (await Promise.all(names.map(async (name) => (await (await caches.open(name)).keys()).length))).reduce((a, b) => a + b, 0);
  });
  const before = await appFiles();
  await page.evaluate(() => Promise.all(['js/start.js?a=1', 'js/start.js?b=2', 'index.html?c=3'].map((path) => fetch(path))));
  await page.waitForTimeout(500); // the worker stores a copy after it has answered
  assert.equal(await appFiles(), before);
  const errors = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await context.setOffline(true);
  await page.reload();
  await ready(page);
  assert.equal((await readTable(page)).rows[1].cells[2], '0.0489');
  // Nothing failed to load before a word the page lacks.
  await page.waitForTimeout(500);
  assert.deepEqual(errors, []);
  await page.fill('#sentence', 'The king and queen ruled the kingdom with wisdom');
  await page.waitForSelector('#tokens .token.pending.failed');
  assert.match(await page.textContent('#unknown-note'), /'wisdom' could not be loaded \(.*could not be downloaded \(offline\?\)\)/);
  // Back online, the word comes without a click.
  await context.setOffline(false);
  await page.waitForFunction(() => [...document.querySelectorAll('#weights thead th')].some((th) => th.textContent === 'wisdom'), null, { timeout: 10000 });
  assert.equal(await page.locator('#tokens .token.failed').count(), 0);
  await finish();
});

/** The addresses of every entry in the caches named `prefix…`, as the page's browser holds them. */
function cacheKeys(page, prefix) {
  return page.evaluate(async (prefix) => {
    const keys = [];
    for (const name of (await caches.keys()).filter((key) => key.startsWith(prefix))) {
      keys.push(...(await (await caches.open(name)).keys()).map((request) => request.url));
    }
    return keys;
  }, prefix);
}

test('the offline copy holds the app\'s files and no other file of the site', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  await everythingKept(page);
  // Files of the site that are not the app's: the static host's header file,
  // the worker itself, a source map. A page (or a script in it) asking for
  // them must not grow the copy.
  await page.evaluate(() => Promise.all(['_headers', 'sw.js', 'js/main.js.map', 'index.html?c=3'].map((file) => fetch(file))));
  await page.waitForTimeout(500); // the worker stores a copy after it has answered
  const { files } = JSON.parse(readFileSync(`${DIST}/sw.js`, 'utf8').match(/^const BUILD = (.*);$/m)[1]);
  const app = new Set(files.map((file) => new URL(file, site.url).href));
  const kept = await cacheKeys(page, 'attention-explorer-app');
  assert.deepEqual(kept.filter((url) => !app.has(url)), [], 'kept beside the app\'s files');
  assert.deepEqual([...app].filter((url) => !kept.includes(url)), [], 'the app\'s files not kept');
  await finish();
});

test('the shards kept offline are those of the current set, each under its address without a query', async () => {
  // A shard of another set (an older build still on the host) answers too.
  const OTHER = '0123456789abcdef';
  const server = await serveDist(DIST, { answers: { [`/data/glove-6b-50d/${OTHER}/0000.aews`]: () => ({ status: 200, body: 'another set' }) } });
  try {
    const { page, finish } = await openPage(site.browser, server.url + hashFor(KING));
    await ready(page);
    await everythingKept(page);
    const set = await page.evaluate(async () => (await (await fetch('data/glove-6b-50d/manifest.json')).json()).set);
    const statuses = await page.evaluate((paths) => Promise.all(paths.map(async (file) => (await fetch(file)).status)),
      [`data/glove-6b-50d/${set}/0000.aews?a=1`, `data/glove-6b-50d/${set}/0000.aews?a=2`, `data/glove-6b-50d/${OTHER}/0000.aews`]);
    assert.deepEqual(statuses, [200, 200, 200], 'each is served');
    await page.waitForTimeout(500);
    const kept = await cacheKeys(page, 'attention-explorer-shards');
    assert.deepEqual(kept.filter((url) => new URL(url).search !== '' || !url.includes(`/data/glove-6b-50d/${set}/`)), [], 'kept with a query, or of another set');
    assert.ok(kept.includes(`${server.url}data/glove-6b-50d/${set}/0000.aews`), 'the shard asked for with a query is kept under its address');
    await finish();
  } finally {
    await server.close();
  }
});

test('a new version whose install fails keeps the offline copy of the last one', async () => {
  // A server of its own: after the first visit, a new sw.js (a new version)
  // is deployed, and one of its files fails while it installs.
  let deployed = false;
  let failures = 0;
  const server = await serveDist(DIST, {
    answers: {
      '/sw.js': (body) => ({ status: 200, body: deployed ? body.toString('utf8').replace(/"version":"[0-9a-f]+"/, '"version":"0000000000000002"') : body }),
      '/embed.html': (body) => (deployed && (failures += 1) === 1 ? { status: 503, body: 'busy' } : { status: 200, body }),
    },
  });
  try {
    const { page, context, finish } = await openPage(site.browser, server.url + hashFor(KING), { allow: [/ERR_INTERNET_DISCONNECTED|Failed to load resource|503/] });
    await ready(page);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20000 });
    deployed = true;
    // The page looks for a new worker at each visit: this one finds the new version, whose install is refused a file.
    await page.reload();
    await ready(page);
    for (const started = Date.now(); failures === 0;) {
      assert.ok(Date.now() - started < 20000, 'the new version is installed within 20 s');
      await page.waitForTimeout(200);
    }
    await page.waitForFunction(() => navigator.serviceWorker.getRegistration().then((r) => !r.installing && !r.waiting), null, { timeout: 20000, polling: 200 });
    await context.setOffline(true);
    await page.reload();
    await ready(page);
    assert.equal((await readTable(page)).rows[1].cells[2], '0.0489', 'the last version opens offline');
    await context.setOffline(false);
    await finish();
  } finally {
    await server.close();
  }
});

test('a link that connects but carries nothing, or a server down, opens the page from the offline copy', async () => {
  // After one visit every request stalls (the server takes it and never
  // answers), then every request gets a 503.
  let link = 'good';
  const answers = { stalled: () => new Promise(() => {}), down: () => ({ status: 503, body: 'down for maintenance' }) };
  const server = await serveDist(DIST, { answers: { '*': () => answers[link]?.() ?? null } });
  try {
    const { page, finish } = await openPage(site.browser, server.url + hashFor(KING), { allow: [/503/] });
    await ready(page);
    await everythingKept(page);
    for (link of ['stalled', 'down']) {
      // The page waits 4 s for the network, then opens from the copy, and so
      // do its files: each of them would wait for ever for this link.
      await page.reload({ timeout: 20000 });
      await ready(page);
      assert.equal((await readTable(page)).rows[1].cells[2], '0.0489', link);
    }
    await finish();
  } finally {
    await server.close();
  }
});

test('a visit just after a deploy gets the new version, though the host lets browsers keep files 10 minutes', async () => {
  let deployed = false;
  const server = await serveDist(DIST, {
    answers: {
      '*': (body) => body && ({ status: 200, body, headers: { 'Cache-Control': 'max-age=600' } }),
      '/index.html': (body) => ({ status: 200, body: deployed ? body.toString('utf8').replace('<title>Attention Explorer</title>', '<title>Deployed</title>') : body, headers: { 'Cache-Control': 'max-age=600' } }),
    },
  });
  try {
    const { page, context, finish } = await openPage(site.browser, `${server.url}index.html${hashFor(KING)}`);
    await ready(page);
    await everythingKept(page);
    deployed = true;
    // A new visit, through the worker, which asks the network first.
    const visit = await context.newPage();
    await visit.goto(`${server.url}index.html${hashFor(KING)}`);
    await ready(visit);
    assert.equal(await visit.title(), 'Deployed');
    await finish();
  } finally {
    await server.close();
  }
});

/** A site that serves the app at its root, with a blog beside it (`blog`: more of its files, by path). */
function withBlog(blog = {}) {
  // The data: icon keeps Chromium from asking for /favicon.ico (a 404 in the console).
  const post = '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>A post</title><script src="/blog/register.js"></script><h1>A post</h1>';
  const files = { '/blog/post.html': post, '/blog/register.js': '', ...blog };
  return serveDist(DIST, { answers: Object.fromEntries(Object.entries(files).map(([file, body]) => [file, () => ({ status: 200, body })])) });
}

test('deployed at a site\'s root, the worker leaves the site\'s other pages to the network, and keeps none', async () => {
  const server = await withBlog();
  try {
    const { page, finish } = await openPage(site.browser, server.url + hashFor(KING));
    await ready(page);
    await everythingKept(page);
    // The blog's page is under the worker's scope, but not one of the app's.
    const response = await page.goto(`${server.url}blog/post.html`);
    assert.equal(await page.textContent('h1'), 'A post');
    assert.equal(response.fromServiceWorker(), false, 'the blog\'s page answered by the app\'s worker');
    await page.waitForTimeout(500); // the worker stores a copy after it has answered
    assert.deepEqual((await cacheKeys(page, 'attention-explorer')).filter((url) => url.includes('/blog/')), [], 'the blog\'s page kept');
    await finish();
  } finally {
    await server.close();
  }
});

test('the worker keeps only its own set\'s files: not a blog\'s page under a folder of the same name, nor a host\'s index page given for a missing shard', async () => {
  const { set } = JSON.parse(readFileSync(`${DIST}/data/glove-6b-50d/manifest.json`, 'utf8'));
  const page200 = (text) => () => ({ status: 200, body: `<!doctype html><link rel="icon" href="data:,"><h1>${text}</h1>`, headers: { 'Content-Type': 'text/html' } });
  const server = await serveDist(DIST, {
    answers: {
      [`/blog/data/glove-6b-50d/${set}/post.html`]: page200('A post'),
      // A single-page app's host answers a missing file with its index page, and a 200.
      [`/data/glove-6b-50d/${set}/ffff.aews`]: page200('Fallback'),
    },
  });
  try {
    const { page, finish } = await openPage(site.browser, server.url + hashFor(KING));
    await ready(page);
    await everythingKept(page);
    const post = await page.goto(`${server.url}blog/data/glove-6b-50d/${set}/post.html`);
    assert.equal(await page.textContent('h1'), 'A post');
    assert.equal(post.fromServiceWorker(), false, 'the blog\'s page answered by the app\'s worker');
    const fallback = await page.goto(`${server.url}data/glove-6b-50d/${set}/ffff.aews`);
    assert.equal(await page.textContent('h1'), 'Fallback');
    assert.equal(fallback.fromServiceWorker(), true, 'a shard address is the worker\'s to answer');
    await page.waitForTimeout(500); // the worker stores a copy after it has answered
    const kept = await cacheKeys(page, 'attention-explorer');
    assert.deepEqual(kept.filter((url) => url.includes('/blog/') || url.endsWith('/ffff.aews')), [], 'a page kept as the app\'s');
    assert.ok(kept.some((url) => url.endsWith('/neighbors.aewv') || /\/[0-9a-f]{4}\.aews$/.test(url)), 'the real shards are still kept');
    await finish();
  } finally {
    await server.close();
  }
});

test('a site whose own worker holds the app\'s scope keeps it: the page works online, and does not replace it', async () => {
  const server = await withBlog({
    '/host-sw.js': "self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));",
    '/blog/register.js': "navigator.serviceWorker.register('/host-sw.js', { scope: '/' });",
  });
  const scripts = (page) => page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration('/');
    return [registration?.installing, registration?.waiting, registration?.active].filter(Boolean).map((worker) => new URL(worker.scriptURL).pathname);
  });
  try {
    const { page, finish } = await openPage(site.browser, `${server.url}blog/post.html`);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.goto(server.url + hashFor(KING));
    await ready(page);
    assert.equal((await readTable(page)).rows[1].cells[2], '0.0489');
    // The page registers its worker 4 s after the last input, at an idle moment (page.js keepOffline).
    await page.waitForTimeout(8000);
    assert.deepEqual(await scripts(page), ['/host-sw.js']);
    await finish();
  } finally {
    await server.close();
  }
});

/** A small GloVe-style file of four words in 3 dimensions ('cat' is not in it). */
const FILE_A = { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\nking 0 1 0\nand 0 0 1\nqueen 1 1 0\n') };

/** Waits until the status line says the analysis has `dim` dimensions. */
async function waitDim(page, dim) {
  await page.waitForFunction((d) => document.querySelector('#status').textContent.includes(` d = ${d} `), dim);
}

test('Back and Forward keep the vectors computed with and the link in step', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat and the king'));
  await ready(page);
  await page.setInputFiles('#vectors-file', FILE_A);
  await waitDim(page, 3);
  assert.equal((await hashOf(page)).vec, 'a.txt');
  // Back to before the file: GloVe, and a link without it.
  await page.goBack();
  await waitDim(page, 50);
  assert.equal((await hashOf(page)).vec, undefined);
  assert.match(await page.textContent('#vectors-note'), /Word vectors: (the fallback of )?GloVe/);
  // Forward: the file read in this tab computes again.
  await page.goForward();
  await waitDim(page, 3);
  assert.equal((await hashOf(page)).vec, 'a.txt');
  assert.match(await page.textContent('#vectors-note'), /your file a\.txt, 4 words of 3 dimensions/);
  // Back to GloVe, then Back: the file again, not a link's request for it.
  await page.click('#vectors-default');
  await waitDim(page, 50);
  // The link drops the file (written in a background task after the frame: Back waits for it, as a reader's would).
  assert.equal((await hashOf(page)).vec, undefined);
  await page.goBack();
  await waitDim(page, 3);
  assert.equal((await hashOf(page)).vec, 'a.txt');
  assert.match(await page.textContent('#vectors-note'), /your file a\.txt/);
  assert.doesNotMatch(await page.textContent('#vectors-note'), /author's computer/);
  // Another file, then Back to the first one's page: the tab keeps the last file only, and says so to its author.
  await page.setInputFiles('#vectors-file', { ...FILE_A, name: 'b.txt', buffer: Buffer.from('the 1 0\nking 0 1\n') });
  await waitDim(page, 2);
  await page.waitForFunction(() => !location.hash.includes('vec=a.txt'));
  await page.goBack();
  await waitDim(page, 50);
  assert.equal((await hashOf(page)).vec, 'a.txt');
  assert.equal(await page.textContent('#vectors-note'),
    "This page was computed with your file 'a.txt'; this tab keeps only the last file picked ('b.txt'). You see the default GloVe vectors; pick 'a.txt' again to see the same numbers.");
  await finish();
});

test('picking the file a link names keeps its focus, and judges its values again', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat and the king', '&vec=a.txt&focus=1&lab=heads&h=3'));
  await ready(page);
  // With GloVe (d = 50), 3 heads do not divide the vectors: the note says so.
  await page.waitForSelector('#link-note:not([hidden])');
  assert.match(await page.textContent('#link-note'), /h=3/);
  assert.equal((await readTable(page)).rows.find((r) => r.focused).query, 'cat');
  await page.setInputFiles('#vectors-file', FILE_A);
  await waitDim(page, 3);
  // Row 1 of the file's analysis ('cat' is not in it) is 'and'.
  await page.waitForFunction(() => document.querySelector('#weights tr.focused th')?.textContent === 'and');
  assert.equal((await hashOf(page)).focus, '1');
  assert.equal((await hashOf(page)).vec, 'a.txt');
  // With 3 dimensions, 3 heads are fine: nothing is left to say about the link.
  assert.ok(await page.locator('#link-note').isHidden(), await page.textContent('#link-note'));
  await finish();
});

test('picking the file a link names drops a focus past its analysis, and says so', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The cat and the king', '&vec=a.txt&focus=4'));
  await ready(page);
  assert.ok(await page.locator('#link-note').isHidden());
  await page.setInputFiles('#vectors-file', FILE_A);
  await waitDim(page, 3);
  await page.waitForSelector('#link-note:not([hidden])');
  assert.match(await page.textContent('#link-note'), /focus=4 \(expected a word from 0 to 3\)/);
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('focus'));
  await finish();
});

test('a cased vectors file is read as sentences are looked up: lowercased, the lowercase spelling kept, else the first', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('The King and the queen'));
  await ready(page);
  // As fastText and word2vec write them: a header counting every line, 'King' and 'The' too.
  // 'The' comes first, but the sentence's 'the' is looked up as 'the': that line's numbers.
  // No newline ends the last line: 'queen' is a word of the file, counted in the note.
  const file = { name: 'cased.vec', mimeType: 'text/plain', buffer: Buffer.from('5 2\nThe -1 0\nking 1 0\nthe 1 1\nKing 0 1\nqueen 0 1') };
  await page.setInputFiles('#vectors-file', file);
  await page.waitForFunction(() => /your file cased\.vec, 3 words of 2 dimensions\. 2 words left out: spelled as another word of the file once lowercased/.test(document.querySelector('#vectors-note').textContent));
  const table = await readTable(page);
  assert.deepEqual(table.header, ['the', 'king', 'the', 'queen']);
  // the = (1, 1), king = (1, 0), queen = (0, 1), ÷ √2: 'the' weighs 'the' 0.3349 and the others 0.1651 (with 'The''s (−1, 0): 0.3655, 0.0889, 0.3655, 0.1802).
  assert.deepEqual(table.rows[0].cells, ['0.3349', '0.1651', '0.3349', '0.1651']);
  await finish();
});
