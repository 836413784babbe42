// Screenshots of the page for the README (light and dark, desktop and a
// phone, the embed page, the trained model) and for the tour of the teaching
// tabs (docs/tour.md), made reproducibly by scripts/screenshots into docs/.
//
// A shot is the viewport, or one element (`element`) with a small margin, or
// the page's full width from the top of `element` (or of the page) to the
// bottom of `until`. The teaching tabs live in <section id="teach">: a link
// opens one with the `lab=` key (docs/share-links.md), and its shot is the
// whole section, the tab bar included, so the picture names the tab.
// `settled` is a condition of the page (a selector or a function) that holds
// once that shot's content has been computed and drawn; `act`, if given, then
// does what the picture needs (a click, a wait inside a widget's iframe); every
// shot then waits for the frames after it. A shot with `post` opens that page
// of a blog on a second origin (its own server and port, no CORS header, like
// tests/e2e/embed.test.mjs) instead of the site.
import path from 'node:path';
import { createServer } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { hashFor, KING, launch, ROOT, serveDist } from './helpers.mjs';

const CAT = 'The cat sat on the mat because it was tired';
const DESKTOP = { width: 1200, height: 1040 };
/** Narrower than the two-column layout (1,100 px): the tabs sit below the heatmap, at the page's full width. */
const TOUR = { width: 1000, height: 900 };

/** A dark blog post about attention, embedding the widget from the site at `site` (a classic script: no CORS needed). */
const darkPost = (site) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>What is a pronoun looking at?</title>
<meta name="color-scheme" content="dark">
<style>
  html { background: #111318; color: #e4e6eb; color-scheme: dark; }
  body { margin: 0; font: 17px/1.6 Georgia, 'DejaVu Serif', serif; }
  article { max-width: 760px; margin: 0 auto; padding: 28px 24px 20px; }
  h1 { font: 700 1.9rem/1.25 system-ui, 'DejaVu Sans', sans-serif; margin: 0 0 14px; color: #f3f4f6; }
  p { margin: 0 0 14px; color: #c9ccd3; }
  code { font-size: 0.9em; color: #f0c27b; }
</style>
<script src="${site}attention-viz.js" defer></script></head>
<body><article>
  <h1>Where does &ldquo;it&rdquo; look?</h1>
  <p>Attention lets every word of a sentence gather information from the others. Each word asks a question (its query),
  every word offers an answer (its key), and the softmax of their scaled dot products says how much of each word's value
  flows back: a row of weights that sums to one.</p>
  <p>Below, the word <code>it</code> is focused. With raw GloVe vectors as queries and keys, attention rewards words that
  are alike rather than the grammar that tells us <code>it</code> is the cat; a trained model learns heads that do better.</p>
  <attention-viz sentence="${CAT}" focus="7" theme="dark" view="heatmap"><a href="${site}#s=${encodeURIComponent(CAT)}&amp;focus=7">The cat sat on the mat… in Attention Explorer</a></attention-viz>
</article></body></html>`;

/** The blog's server on its own port: `pages` by path; resolves to { origin, close }. */
async function serveBlog(pages) {
  const server = createServer((request, response) => {
    const where = new URL(request.url, 'http://x').pathname;
    if (where === '/favicon.ico') {
      response.writeHead(204);
      response.end();
      return;
    }
    const body = pages[where];
    response.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(body ?? 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/** Every `.nearest-words` line (the Steps tab's) has been filled in. */
const nearestFilled = () => [...document.querySelectorAll('.nearest-words')].every((span) => span.textContent !== '…');

const SHOTS = [
  { file: 'screenshot-light.png', colorScheme: 'light', viewport: DESKTOP, hash: hashFor(KING, '&focus=1'), hover: [1, 3], settled: nearestFilled },
  { file: 'screenshot-dark.png', colorScheme: 'dark', viewport: DESKTOP, hash: hashFor(KING, '&focus=1'), hover: [1, 3], settled: nearestFilled },
  // The phone: from the top of the page to the end of the heatmap.
  { file: 'screenshot-phone.png', colorScheme: 'light', viewport: { width: 360, height: 900 }, hash: hashFor(CAT, '&focus=7'), until: '.heatmap-figure' },
  { file: 'screenshot-embed.png', colorScheme: 'light', viewport: { width: 760, height: 640 }, page: 'embed.html', hash: hashFor(CAT, '&causal=1&focus=7') },
  // The Steps tab (open by default) of 'king', with the cell king → queen opened term by term.
  {
    file: 'tour-steps.png', colorScheme: 'light', viewport: TOUR, hash: hashFor(KING, '&focus=1&cell=3'), element: '#teach',
    settled: () => document.querySelector('#lab-steps:not([hidden]) #explain .cell-steps') && [...document.querySelectorAll('#explain .nearest-words')].every((span) => span.textContent !== '…'),
  },
  // What if…: scaling on beside off for 'king', and the sentence padded to 10 positions.
  {
    file: 'tour-whatif.png', colorScheme: 'light', viewport: TOUR, hash: hashFor(KING, '&focus=1&lab=whatif&pad=10'), element: '#teach',
    settled: () => document.querySelector('#lab-whatif:not([hidden]) #whatif-compare tbody tr')
      && document.querySelectorAll('#pad-weights thead th').length === 11
      && document.querySelector('#lab-whatif .lab-steps .steps-table'),
  },
  // The matrix playground with the saturation example (scores 100 and 80, d_k = 100).
  {
    file: 'tour-playground.png', colorScheme: 'light', viewport: TOUR, hash: hashFor(KING, '&lab=play&pq=1&pk=100%3B%2080&pv=&pwq=&pwk=&pwv=&pn=x%20y&pdk=100'), element: '#teach',
    settled: () => document.querySelector('#lab-play:not([hidden]) #play-weights tbody td')?.textContent === '0.8808'
      && document.querySelector('#play-compare tbody tr') && document.querySelector('#play-steps .steps-table'),
  },
  // Multi-head: ten heads and their average, 'it' focused.
  {
    file: 'tour-heads.png', colorScheme: 'light', viewport: TOUR, hash: hashFor(CAT, '&lab=heads&h=10&lf=7'), element: '#teach',
    settled: () => !document.querySelector('#lab-heads').hidden && document.querySelector('#heads-title')?.textContent === 'The average of 10 heads'
      && document.querySelectorAll('#head-grid .head-tile').length === 11 && document.querySelector('#heads-weights tbody tr'),
  },
  // Cross-attention, in the dark: "Where is the Eiffel Tower?" over the default sentence B, 'tower' focused.
  {
    file: 'tour-cross.png', colorScheme: 'dark', viewport: TOUR, hash: hashFor('Where is the Eiffel Tower?', '&lab=cross&lf=4'), element: '#teach',
    settled: () => document.querySelector('#lab-cross:not([hidden]) #cross-weights tbody tr.focused') && document.querySelector('#lab-cross .lab-steps .steps-table'),
  },
  // Context vectors: the nearest words of each word's own vector and of its context vector.
  {
    file: 'tour-meaning.png', colorScheme: 'light', viewport: TOUR, hash: hashFor('The bank of the river flooded after the storm', '&lab=meaning'), element: '#teach',
    // Its rows, and their nearest words (searched after the rows are drawn).
    settled: () => document.querySelector('#lab-meaning:not([hidden]) #meaning-table tbody tr') &&
      !document.getElementById('teach').innerText.includes('Finding the nearest words…'),
  },
  // The trained model beside GloVe: from the model view's top to the end of its heatmap and arrows.
  {
    file: 'screenshot-model.png', colorScheme: 'light', viewport: { width: 1200, height: 1000 }, hash: hashFor(CAT, '&focus=7&model=1'),
    element: '#model-view', until: '#model-view .model-views', settled: '#model-view[data-state="ready"][data-head]', timeout: 90000,
    pause: 300, // the thumbnails are drawn a layer per task
  },
  // A dark blog post on another origin with the <attention-viz> element: 'it' focused, the heatmap alone.
  {
    file: 'screenshot-blog-dark.png', colorScheme: 'dark', viewport: { width: 900, height: 760 }, post: '/attention.html', element: 'article',
    // The element has taken the height its iframe reported, not the 560 px it starts with.
    settled: () => { const frame = document.querySelector('attention-viz iframe'); return frame && frame.style.height && frame.style.height !== '560px'; },
    timeout: 90000,
    act: async (page, timeout) => {
      const handle = await page.waitForSelector('attention-viz iframe', { timeout });
      const frame = await handle.contentFrame();
      await frame.waitForSelector('html[data-ready="1"]', { timeout });
      await frame.waitForSelector('#heatmap', { state: 'visible', timeout });
      await nextFrames(frame);
      // The element as tall as the drawn widget says (the height it reports once drawn).
      const until = Date.now() + timeout;
      for (;;) {
        const inner = await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height));
        const outer = (await handle.boundingBox()).height;
        if (Math.abs(outer - inner) <= 2) break;
        if (Date.now() > until) throw new Error(`the widget's iframe is ${outer}px, its content ${inner}px`);
        await page.waitForTimeout(100);
      }
      const text = await frame.locator('body').evaluate((e) => e.innerText);
      const unsettled = text.match(UNSETTLED);
      if (unsettled) throw new Error(`the widget still shows '${unsettled[0]}'`);
    },
  },
  // Head search in the trained model: every head ranked by the weight 'it' → 'cat'.
  {
    file: 'screenshot-head-search.png', colorScheme: 'light', viewport: { width: 1200, height: 1000 }, hash: hashFor(CAT, '&focus=7&model=1&mlayer=5&mhead=11&mq=8&mk=2'),
    element: '#model-search', timeout: 90000, pause: 300,
    settled: () => document.querySelector('#model-view[data-state="ready"][data-head]')
      && document.querySelector('#model-ranking')?.dataset.by === 'search' && document.querySelectorAll('#model-ranking li').length > 0,
  },
  // A quiz on the GloVe rows of 'it' and 'cat': the first question answered ('cat'), its answer revealed.
  {
    file: 'screenshot-quiz.png', colorScheme: 'light', viewport: { width: 1200, height: 900 }, hash: hashFor(CAT, '&quiz=g.7.1'), element: '#quiz',
    settled: '#quiz:not([hidden]) .quiz-choices button.token[data-key="1"]',
    act: async (page, timeout) => {
      await page.click('#quiz .quiz-choices button.token[data-key="1"]');
      await page.waitForSelector('#quiz[data-answered="1"] .quiz-reveal .quiz-why', { timeout });
    },
  },
];

/** Pixels of the page kept around an element's shot. */
const MARGIN = 8;

/** Text that only a half-loaded view shows. */
const UNSETTLED = /(Loading|Downloading the model|Starting|Running|Ranking|Computing|Waiting for the model|Finding the nearest words)…/;

/** Two frames and the tasks after them: what the page (or frame) defers with afterPaint, and a relayout from the ResizeObserver. */
async function nextFrames(page) {
  for (let k = 0; k < 2; k++) {
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)))));
  }
}

/**
 * Draws every view that waits far from the screen, as the page does for
 * printing (page.js): a full-page shot shows what is below the screen
 * without scrolling to it. In every frame: a blog's widgets too.
 */
async function drawAll(page) {
  for (const frame of page.frames()) await frame.evaluate(() => dispatchEvent(new Event('beforeprint')));
  await nextFrames(page);
}

const server = await serveDist();
const browser = await launch();
const out = path.join(ROOT, 'docs');
await mkdir(out, { recursive: true });
// ONLY=screenshot-model.png,… makes just those.
const only = process.env.ONLY ? process.env.ONLY.split(',') : null;
const shots = SHOTS.filter((s) => !only || only.includes(s.file));
// The blog, on a second origin, only when a shot needs it.
const blog = shots.some((s) => s.post) ? await serveBlog({ '/attention.html': darkPost(server.url) }) : null;
try {
  for (const shot of shots) {
    const context = await browser.newContext({ viewport: shot.viewport, colorScheme: shot.colorScheme, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    const timeout = shot.timeout ?? 30000;
    if (shot.post) await page.goto(blog.origin + shot.post);
    else {
      await page.goto(server.url + (shot.page ?? '') + shot.hash);
      await page.waitForSelector('html[data-ready="1"]', { timeout }); // helpers' ready(), with the shot's timeout
    }
    if (shot.hover) {
      const overlay = page.locator('#heatmap-overlay');
      const box = await overlay.boundingBox();
      const [x, y] = (await overlay.getAttribute('data-matrix')).split(',').map(Number);
      const cell = Number(await overlay.getAttribute('data-cell'));
      await page.mouse.move(box.x + x + (shot.hover[1] + 0.5) * cell, box.y + y + (shot.hover[0] + 0.5) * cell);
      await page.waitForSelector('#tooltip:not([hidden])');
    }
    if (typeof shot.settled === 'string') await page.waitForSelector(shot.settled, { timeout });
    else if (shot.settled) await page.waitForFunction(shot.settled, null, { timeout });
    if (shot.act) await shot.act(page, timeout);
    await page.evaluate(() => document.fonts.ready);
    await nextFrames(page);
    if (shot.pause) await page.waitForTimeout(shot.pause);
    const scope = shot.element ?? 'body';
    const text = await page.locator(scope).evaluate((e) => e.innerText);
    const unsettled = text.match(UNSETTLED);
    if (unsettled) throw new Error(`${shot.file}: ${scope} still shows '${unsettled[0]}'`);
    if (shot.until || shot.element) await drawAll(page);
    if (shot.until) {
      // The page's full width, from the top of `element` (or of the page) to the bottom of `until`.
      const top = shot.element ? await page.locator(shot.element).evaluate((e) => e.getBoundingClientRect().top + window.scrollY) - MARGIN : 0;
      const bottom = await page.locator(shot.until).evaluate((e) => e.getBoundingClientRect().bottom + window.scrollY) + MARGIN;
      await page.screenshot({ path: path.join(out, shot.file), fullPage: true, clip: { x: 0, y: top, width: shot.viewport.width, height: bottom - top } });
    } else if (shot.element) {
      // The element and a margin of the page around it.
      const box = await page.locator(shot.element).evaluate((e) => {
        const r = e.getBoundingClientRect();
        return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
      });
      const x = Math.max(0, box.x - MARGIN);
      const y = Math.max(0, box.y - MARGIN);
      await page.screenshot({ path: path.join(out, shot.file), fullPage: true, clip: { x, y, width: Math.min(shot.viewport.width - x, box.x + box.width + MARGIN - x), height: box.y + box.height + MARGIN - y } });
    } else await page.screenshot({ path: path.join(out, shot.file) });
    await context.close();
    if (errors.length) throw new Error(`${shot.file}: the page logged errors: ${errors.join('; ')}`);
    console.log(`wrote docs/${shot.file}`);
  }
} finally {
  await browser.close();
  await server.close();
  await blog?.close();
}
