// Export: the CSV holds the matrix; the PNG is an image of the view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { assertClose, hashFor, KING, KING_ROW, openPage, ready, useSite } from './helpers.mjs';

const site = useSite();

test('Download CSV gives the weights matrix with token headers', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING));
  await ready(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  assert.equal(download.suggestedFilename(), 'attention-the-king-and-queen-ruled-the-kingdom.csv');
  const lines = (await readFile(await download.path(), 'utf8')).trim().split('\r\n');
  assert.equal(lines.length, 8);
  assert.equal(lines[0], '"query \\ key","the","king","and","queen","ruled","the","kingdom"');
  const king = lines[2].split(',');
  assert.equal(king[0], '"king"');
  assertClose(king.slice(1).map(Number), KING_ROW);
  await finish();
});

test('Download PNG gives an image of the heatmap and the arrows', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=1'));
  await ready(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  assert.equal(download.suggestedFilename(), 'attention-the-king-and-queen-ruled-the-kingdom.png');
  const png = await readFile(await download.path());
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const heatmap = await page.locator('#heatmap').boundingBox();
  const arrows = await page.locator('#arrows').boundingBox();
  assert.ok(width >= heatmap.width + arrows.width, `PNG ${width}px wide`);
  assert.ok(height >= heatmap.height, `PNG ${height}px high`);
  await finish();
});
