// Screenshots of the page for the README (light and dark, desktop and a
// phone) and for the tour of the teaching views (docs/tour.md; `element`
// shots capture one part of the page), made reproducibly by
// scripts/screenshots into docs/.
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { hashFor, KING, launch, ROOT, serveDist } from './helpers.mjs';

const SHOTS = [
  { file: 'screenshot-light.png', colorScheme: 'light', viewport: { width: 1200, height: 1040 }, hash: hashFor(KING, '&focus=1'), hover: [1, 3] },
  { file: 'screenshot-dark.png', colorScheme: 'dark', viewport: { width: 1200, height: 1040 }, hash: hashFor(KING, '&focus=1'), hover: [1, 3] },
  { file: 'screenshot-phone.png', colorScheme: 'light', viewport: { width: 360, height: 900 }, hash: hashFor('The cat sat on the mat because it was tired', '&focus=7') },
  { file: 'screenshot-embed.png', colorScheme: 'light', viewport: { width: 760, height: 640 }, page: 'embed.html', hash: hashFor('The cat sat on the mat because it was tired', '&causal=1&focus=7') },
  { file: 'tour-steps.png', colorScheme: 'light', viewport: { width: 1000, height: 900 }, hash: hashFor(KING, '&focus=1&cell=3'), element: '#explain' },
  { file: 'tour-whatif.png', colorScheme: 'light', viewport: { width: 1000, height: 900 }, hash: hashFor(KING, '&focus=1&pad=10'), element: '#lab-whatif' },
  { file: 'tour-playground.png', colorScheme: 'light', viewport: { width: 1000, height: 900 }, hash: hashFor(KING, '&lab=play&pq=1&pk=100%3B%2080&pv=&pwq=&pwk=&pwv=&pn=x%20y&pdk=100'), element: '#lab-play' },
  { file: 'tour-heads.png', colorScheme: 'light', viewport: { width: 1000, height: 900 }, hash: hashFor('The cat sat on the mat because it was tired', '&lab=heads&h=10&lf=7'), element: '#lab-heads' },
  { file: 'tour-cross.png', colorScheme: 'dark', viewport: { width: 1000, height: 900 }, hash: hashFor('Where is the Eiffel Tower?', '&lab=cross&lf=4'), element: '#lab-cross' },
  // The trained model beside GloVe: from the model view's top to the end of its heatmap and arrows.
  { file: 'screenshot-model.png', colorScheme: 'light', viewport: { width: 1200, height: 1000 }, hash: hashFor('The cat sat on the mat because it was tired', '&focus=7&model=1'), element: '#model-view', until: '#model-view .model-views', waitFor: '#model-view[data-state="ready"][data-head]' },
  { file: 'tour-meaning.png', colorScheme: 'light', viewport: { width: 1000, height: 900 }, hash: hashFor('The bank of the river flooded after the storm', '&lab=meaning'), element: '#lab-meaning' },
];

const server = await serveDist();
const browser = await launch();
const out = path.join(ROOT, 'docs');
await mkdir(out, { recursive: true });
// ONLY=screenshot-model.png,… makes just those.
const only = process.env.ONLY ? process.env.ONLY.split(',') : null;
try {
  for (const shot of SHOTS.filter((s) => !only || only.includes(s.file))) {
    const context = await browser.newContext({ viewport: shot.viewport, colorScheme: shot.colorScheme, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url + (shot.page ?? '') + shot.hash);
    await page.waitForSelector('html[data-ready="1"]');
    if (shot.hover) {
      const overlay = page.locator('#heatmap-overlay');
      const box = await overlay.boundingBox();
      const [x, y] = (await overlay.getAttribute('data-matrix')).split(',').map(Number);
      const cell = Number(await overlay.getAttribute('data-cell'));
      await page.mouse.move(box.x + x + (shot.hover[1] + 0.5) * cell, box.y + y + (shot.hover[0] + 0.5) * cell);
    }
    // Let the deferred nearest-words line fill in.
    await page.waitForFunction(() => !document.querySelector('.nearest-words') || document.querySelector('.nearest-words').textContent !== '…');
    if (shot.waitFor) {
      await page.waitForSelector(shot.waitFor, { timeout: 90000 });
      await page.waitForTimeout(300); // the thumbnails are drawn a layer per task
    }
    if (shot.until) {
      // From the top of `element` to the bottom of `until`, the page's full width.
      await page.locator(shot.element).scrollIntoViewIfNeeded();
      const top = await page.locator(shot.element).evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
      const bottom = await page.locator(shot.until).evaluate((e) => e.getBoundingClientRect().bottom + window.scrollY);
      await page.screenshot({ path: path.join(out, shot.file), fullPage: true, clip: { x: 0, y: top - 8, width: shot.viewport.width, height: bottom - top + 16 } });
    } else if (shot.element) await page.locator(shot.element).screenshot({ path: path.join(out, shot.file) });
    else await page.screenshot({ path: path.join(out, shot.file) });
    await context.close();
    if (errors.length) throw new Error(`${shot.file}: the page logged errors: ${errors.join('; ')}`);
    console.log(`wrote docs/${shot.file}`);
  }
} finally {
  await browser.close();
  await server.close();
}
