// Predict, then reveal: a quiz link opens with every weight hidden; a guess
// reveals the answer, the weights and why; the teacher makes the link in the
// Share panel; a bad question is left out with a note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DIST, hashFor, hashOf, KING, openPage, ready, useSite } from './helpers.mjs';

const site = useSite();

async function hidden(page) {
  return page.evaluate(() => ['#views', '#teach', '.weights-section', '.model-section', '.share .export'].every((s) => getComputedStyle(document.querySelector(s)).display === 'none'));
}

test('a quiz link hides every weight until each question is answered', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.1.3'));
  await ready(page).catch(() => {}); // the heatmap is drawn, hidden
  await page.waitForSelector('#quiz .quiz-choices button');
  assert.ok(await hidden(page), 'no heatmap, arrows, table or tab while the quiz runs');
  assert.match(await page.textContent('#quiz h3'), /Question 1: which word does king attend to most\?/);
  assert.deepEqual(await page.$$eval('#quiz .quiz-choices button', (bs) => bs.map((b) => b.textContent)), ['the', 'king', 'and', 'queen', 'ruled', 'the', 'kingdom']);
  assert.equal(await page.locator('#quiz .compare-value').count(), 0, 'no number before the guess');
  // A word focused in the strip is not announced with its strongest keys, as outside a quiz.
  await page.click('#tokens .token >> nth=1');
  await page.waitForFunction(() => location.hash.includes('focus=1'));
  assert.equal(await page.textContent('#announce'), '', 'no weight for a screen reader either');
  await page.click('#quiz .quiz-choices button >> text=queen');
  await page.waitForSelector('#quiz .quiz-reveal');
  assert.match(await page.textContent('#quiz .quiz-wrong'), /you chose 'queen' \(0\.1645\); the most is 'king' \(0\.4431\)/);
  assert.match(await page.textContent('#quiz .quiz-why'), /largest scaled score: for 'king', q·k = [\d.]+, scaled [\d.]+\. For 'queen': q·k = /);
  assert.match(await page.textContent('#quiz .quiz-score'), /1 of 2 answered · 0 right/);
  // Scaling off, the answer does not call q·k "scaled".
  const off = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.1&scale=0'));
  await off.page.waitForSelector('#quiz .quiz-choices button');
  await off.page.click('#quiz .quiz-choices button >> text=queen');
  assert.match(await off.page.textContent('#quiz .quiz-why'), /^The softmax gives the most weight to the largest score: for 'king', q·k = [\d.]+ \(not scaled\)\. For 'queen': q·k = [\d.]+ \(not scaled\)\. /);
  await off.finish();
  await page.click('#quiz-next');
  await page.click('#quiz .quiz-choices button >> text=queen');
  await page.waitForSelector('#quiz .quiz-right');
  assert.match(await page.textContent('#quiz .quiz-score'), /2 of 2 answered · 1 right/);
  assert.equal((await hashOf(page)).quiz, 'g.1.3', 'the score stays on this device, not in the link');
  // A reload keeps the guesses (this tab's storage); Start over forgets them.
  await page.reload();
  await page.waitForSelector('#quiz .quiz-reveal');
  assert.match(await page.textContent('#quiz .quiz-score'), /2 of 2 answered · 1 right/);
  await page.click('#quiz-again');
  await page.waitForSelector('#quiz .quiz-choices button');
  assert.match(await page.textContent('#quiz .quiz-score'), /0 of 2 answered · 0 right/);
  assert.match(await page.textContent('#quiz h3'), /Question 1: which word does king/);
  await page.click('#quiz .quiz-choices button >> text=king');
  await page.waitForSelector('#quiz .quiz-right');
  await page.click('#quiz-end');
  assert.equal((await hashOf(page)).quiz, undefined);
  assert.ok(!(await hidden(page)));
  assert.ok(await page.isVisible('#heatmap'));
  await finish();
});

test('the teacher picks the words in the Share panel and gets the quiz link', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&focus=2'));
  await ready(page);
  await page.click('#share-open');
  // Each control has a name of its own: the three Copy buttons, the two 'the' of the sentence.
  await page.locator('#quiz-builder .quiz-word input').nth(6).waitFor();
  assert.deepEqual(await page.locator('[data-copy]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label'))), ['Copy the link', 'Copy the iframe', 'Copy the element']);
  assert.deepEqual(await page.locator('#quiz-builder .quiz-word input').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-label'))), ['the (word 1)', null, null, null, null, 'the (word 6)', null]);
  await page.check('#quiz-builder .quiz-word:nth-child(2) input');
  await page.check('#quiz-builder .quiz-word:nth-child(7) input');
  await page.click('#quiz-copy');
  const link = await page.inputValue('#quiz-link');
  const params = new URLSearchParams(link.split('#')[1]);
  assert.equal(params.get('quiz'), 'g.1.6');
  assert.equal(params.get('focus'), null, 'the quiz link does not give an answer away');
  const student = await openPage(site.browser, link);
  await student.page.waitForSelector('#quiz .quiz-choices button');
  assert.match(await student.page.textContent('#quiz h3'), /which word does king attend/);
  await student.finish();
  await finish();
});

test('a new sentence clears the words picked for the last one at once, even while its vectors download', async () => {
  // The new sentence's shards are held until the test has looked: its analysis waits for them.
  let held = null;
  let release;
  const holding = async (route) => { await held; await route.continue(); };
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING), { routes: [['**/*.aews', holding]] });
  await ready(page);
  held = new Promise((resolve) => {
    release = resolve;
  });
  await page.click('#share-open');
  await page.check('#quiz-builder .quiz-word:nth-child(4) input');
  assert.ok(await page.isEnabled('#quiz-copy'));
  await page.fill('#sentence', 'Zebras graze quietly near rivers at dawn');
  // Before the new words come, nothing can be copied (a link would have asked about 'near', the fourth of the new sentence).
  assert.equal(await page.evaluate(() => document.querySelector('#quiz-copy').disabled), true);
  assert.equal(await page.textContent('#quiz-builder .quiz-words'), 'The words come once the new sentence is computed.');
  release();
  await page.waitForSelector('#quiz-builder .quiz-word', { timeout: 20000 });
  assert.match(await page.textContent('#quiz-builder .quiz-words'), /^ zebras/);
  assert.equal(await page.locator('#quiz-builder .quiz-word input:checked').count(), 0);
  await finish();
});

test('a quiz made with a file of vectors says so while it runs on GloVe, which may ask about another word', async () => {
  // GloVe lacks 'zzqxv': its row 2 is 'sat', the file's is 'cat'.
  const { page, finish } = await openPage(site.browser, site.url + hashFor('the zzqxv cat sat on the mat', '&quiz=g.2&vec=mine.txt'));
  await page.waitForSelector('#quiz .quiz-choices button');
  assert.match(await page.textContent('#quiz h3'), /which word does sat attend to most/);
  assert.equal(await page.textContent('#quiz-file'), 'This quiz was made with the word vectors of the file \'mine.txt\'. Until that file is picked (“Use your own vectors”), it runs on GloVe, which may not know the same words: a question may then be about another word than the one chosen.');
  await page.setInputFiles('#vectors-file', { name: 'mine.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0\nzzqxv 0 1\ncat 1 1\nsat 0 2\non 2 0\nmat 1 2\n') });
  await page.waitForFunction(() => /which word does cat attend/.test(document.querySelector('#quiz h3')?.textContent), null, { timeout: 20000 });
  assert.equal(await page.locator('#quiz-file').count(), 0);
  await finish();
});

test('guesses made on other vectors are cleared, with why, and the quiz names the vectors it runs on', async () => {
  // A link made with a file: the page computes with GloVe until the file is picked.
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.1.3&vec=a.txt'));
  await page.waitForSelector('#quiz .quiz-choices button');
  assert.match(await page.textContent('#quiz .quiz-question .note'), /^GloVe 6B/);
  await page.click('#quiz .quiz-choices button >> text=queen');
  await page.waitForSelector('#quiz .quiz-wrong');
  await page.setInputFiles('#vectors-file', { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\nking 0 1 0\nand 0 0 1\nqueen 1 1 0\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'), null, { timeout: 20000 });
  await page.waitForSelector('#quiz .quiz-question');
  // The old guess is neither kept nor marked by the new answer.
  assert.equal(await page.locator('#quiz .quiz-reveal').count(), 0, 'the guess made on GloVe is gone');
  assert.match(await page.textContent('#quiz .quiz-score'), /^0 of 2 answered · 0 right$/);
  assert.match(await page.textContent('#quiz .quiz-question .note'), /^your own vectors \(a\.txt, 3d\), raw vectors as queries and keys$/);
  assert.match(await page.textContent('#quiz-cleared'), /Your guesses were cleared: the quiz now runs on your own vectors \(a\.txt, 3d\)/);
  // A guess on these vectors is kept, and the note goes.
  await page.click('#quiz .quiz-choices button >> text=king');
  await page.waitForSelector('#quiz .quiz-reveal');
  assert.equal(await page.locator('#quiz-cleared').count(), 0);
  // A reload computes with GloVe again (the file must be picked): the guess made on the file goes too.
  await page.reload();
  await page.waitForSelector('#quiz .quiz-choices button');
  assert.match(await page.textContent('#quiz .quiz-score'), /^0 of 2 answered/);
  await page.click('#quiz-end');
  // The teacher's quiz asks about the attention of the vectors in use.
  await page.setInputFiles('#vectors-file', { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('the 1 0 0\nking 0 1 0\nand 0 0 1\nqueen 1 1 0\n') });
  await page.waitForFunction(() => document.querySelector('#status').textContent.includes('d = 3'), null, { timeout: 20000 });
  await page.click('#share-open');
  await page.waitForFunction(() => document.querySelector('#quiz-source option')?.textContent === 'the attention of your own vectors (a.txt)', null, { timeout: 10000 });
  await finish();
});

test('a bad question is left out with a note, and nothing runs as HTML', async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor('<b>The</b> cat sat', '&quiz=g.1.99'));
  await page.waitForSelector('#quiz .quiz-choices button');
  assert.match(await page.textContent('#quiz'), /Question 2: row 99 does not exist: the sentence has \d+ known words, so it is left out\./);
  assert.equal(await page.locator('#quiz b').count(), 0);
  // The first word with the causal mask and no attention to itself has nothing to choose from.
  const masked = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.0.1&causal=1&self=0'));
  await masked.page.waitForSelector('#quiz .quiz-score');
  assert.match(await masked.page.textContent('#quiz'), /0 of 1 answered .*Question 1: every key of 'the' is masked \(the causal mask, and no attention to itself\): it attends to no word, so it is left out\./);
  await masked.finish();
  const broken = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.<img>'));
  await ready(broken.page);
  assert.match(await broken.page.textContent('#link-note'), /quiz=g\.<img> \(expected g\.ROW\.ROW… or m\.LAYER\.HEAD\.TOKEN…/);
  assert.ok(await broken.page.isHidden('#quiz'));
  await broken.finish();
  // Eleven entries, four rows: a teacher's repeats are asked once (the link was refused as too long).
  const repeated = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.1.2.3.0.1.2.3.0.1.2.3'));
  await repeated.page.waitForSelector('#quiz .quiz-score');
  assert.match(await repeated.page.textContent('#quiz .quiz-score'), /^0 of 4 answered/);
  assert.equal(new URLSearchParams((await repeated.page.evaluate(() => location.hash)).slice(1)).get('quiz'), 'g.1.2.3.0');
  const eleven = await openPage(site.browser, site.url + hashFor(KING, '&quiz=g.0.1.2.3.4.5.6.7.8.9.10'));
  await ready(eleven.page);
  assert.match(await eleven.page.textContent('#link-note'), /quiz=g\.0\.1\.2\.3\.4\.5\.6\.7\.8\.9\.10 \(expected .*at most 10\)/);
  await eleven.finish();
  await repeated.finish();
  await finish();
});

test('a quiz link about a model head leaves out the head search and the step panel\'s key, which name the answer', { skip: process.env.AE_REQUIRE_MODEL !== '1' && !existsSync(path.join(DIST, 'model', 'manifest.json')) && 'no built model' }, async () => {
  const cat = 'The cat sat on the mat because it was tired';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(cat, '&focus=7&model=1&units=words&special=0&mfocus=7&mq=7&mk=1&mcell=2'));
  await page.waitForSelector('#model-view[data-state="ready"][data-head]', { timeout: 90000 });
  await page.click('#share-open');
  await page.waitForFunction(() => [...document.querySelectorAll('#quiz-source option')].some((o) => o.value === 'model'));
  await page.selectOption('#quiz-source', 'model');
  await page.check('#quiz-builder .quiz-word:nth-child(8) input');
  await page.click('#quiz-copy');
  const params = new URLSearchParams((await page.inputValue('#quiz-link')).split('#')[1]);
  assert.equal(params.get('quiz'), 'm.5.11.7');
  assert.deepEqual(['focus', 'mfocus', 'mq', 'mk', 'mcell'].map((k) => params.get(k)), [null, null, null, null, null]);
  assert.equal(params.get('units'), 'words');
  await finish();
});

test('a quiz about a model head asks where the model looks, and says what the head does', { skip: process.env.AE_REQUIRE_MODEL !== '1' && !existsSync(path.join(DIST, 'model', 'manifest.json')) && 'no built model' }, async () => {
  const cat = 'The cat sat on the mat because it was tired';
  const { page, finish } = await openPage(site.browser, site.url + hashFor(cat, '&quiz=m.5.11.8'));
  await page.waitForSelector('#quiz .quiz-choices button', { timeout: 90000 });
  assert.ok(await hidden(page));
  assert.match(await page.textContent('#quiz h3'), /which word does it attend to most/);
  assert.match(await page.textContent('#quiz .note'), /layer 5, head 11/);
  await page.click('#quiz .quiz-choices button >> text=cat');
  await page.waitForSelector('#quiz .quiz-right');
  assert.match(await page.textContent('#quiz .quiz-right'), /Right: 'cat' \(0\.6825\)/);
  assert.match(await page.textContent('#quiz .quiz-why'), /What this head does on this sentence: .*'cat'/);
  await finish();
});

test('a quiz about a head the model does not have says so, and leaves the question out', { skip: process.env.AE_REQUIRE_MODEL !== '1' && !existsSync(path.join(DIST, 'model', 'manifest.json')) && 'no built model' }, async () => {
  const { page, finish } = await openPage(site.browser, site.url + hashFor(KING, '&quiz=m.9.9.1'));
  await page.waitForSelector('#quiz .note >> text=left out', { timeout: 90000 });
  assert.match(await page.textContent('#quiz'), /Question 1: layer 9, head 9 is not a head of the trained model, so it is left out\./);
  assert.doesNotMatch(await page.textContent('#quiz'), /Getting the question ready/);
  assert.match(await page.textContent('#quiz .quiz-score'), /0 of 0 answered/);
  await finish();
});

test('a model quiz on a sentence the model cannot run says why, and leaves the question out', { skip: process.env.AE_REQUIRE_MODEL !== '1' && !existsSync(path.join(DIST, 'model', 'manifest.json')) && 'no built model' }, async () => {
  const long = Array.from({ length: 600 }, (_, k) => ['the', 'king', 'ruled', 'wisely'][k % 4]).join(' ');
  const { page, finish } = await openPage(site.browser, site.url + hashFor(long, '&quiz=m.5.11.1'));
  await page.waitForSelector('#quiz .note >> text=left out', { timeout: 90000 });
  assert.match(await page.textContent('#quiz'), /Question 1: the trained model could not run \(The sentence has [\d,]+ pieces[^)]*\), so it is left out\./);
  assert.doesNotMatch(await page.textContent('#quiz'), /Getting the question ready/);
  await finish();
});
