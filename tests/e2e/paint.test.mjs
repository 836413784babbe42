// The painters (www/js/paint.js) against a recording fake 2D context: what
// they draw, where, and what they leave out, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellValue, formatTick, paintArrows, paintHeatmap, paintOverlay, strongestKeys } from '../../www/js/paint.js';
import { heaviestKeys } from '../../www/js/teach-steps.js';
import { labelPlaces } from '../../www/js/views/model/projection.js';
import { arrowLabelWidth } from '../../www/js/heatmap-view.js';

/** A 2D context that records method calls and property writes. */
function recorder() {
  const calls = [];
  const state = {};
  return new Proxy(state, {
    get(target, key) {
      if (key === 'calls') return calls;
      if (key in target) return target[key];
      // Text 7 px a character, whatever the font.
      if (key === 'measureText') return (text) => ({ width: 7 * [...text].length });
      return (...args) => calls.push([key, ...args]);
    },
    set(target, key, value) {
      target[key] = value;
      calls.push([`${String(key)}=`, value]);
      return true;
    },
  });
}
const of = (ctx, name) => ctx.calls.filter((c) => c[0] === name);

const theme = { fg: '#111', muted: '#666', bg: '#fff', accent: '#c40', focusBand: 'rgba(0,0,0,.1)', hatch: '#999', link: '#c40', fontFamily: 'sans-serif', fontSize: 12 };
const table = new Uint8Array(256 * 3).map((_, k) => k % 256);
const labels = ['the', 'king', 'ruled'];
const weights = new Float32Array([0.5, 0.3, 0.2, 0, 0.6, 0.4, 0.1, 0.1, 0.8]);
const masked = new Uint8Array([0, 0, 0, 1, 0, 0, 0, 0, 0]);
function view(layout) {
  return {
    n: 3, labels, weights, masked, theme, table, scaleMax: 0.8, ticks: [0, 0.2, 0.4, 0.6, 0.8],
    cells: { bitmap: true }, hatch: 'hatch-pattern',
    layout: { cell: 40, matrix: [50, 50, 120, 120], colorbar: [182, 50, 12, 120], labelsShown: true, valuesShown: true, width: 240, height: 180, ...layout },
  };
}

test('the heatmap draws the cell bitmap once, unsmoothed, over the hatching', () => {
  const ctx = recorder();
  paintHeatmap(ctx, view());
  const images = of(ctx, 'drawImage');
  assert.deepEqual(images, [['drawImage', { bitmap: true }, 50, 50, 120, 120]]);
  const smoothing = ctx.calls.findIndex((c) => c[0] === 'imageSmoothingEnabled=' && c[1] === false);
  const hatch = ctx.calls.findIndex((c) => c[0] === 'fillStyle=' && c[1] === 'hatch-pattern');
  const draw = ctx.calls.findIndex((c) => c[0] === 'drawImage');
  assert.ok(hatch >= 0 && hatch < draw && smoothing < draw, 'hatching first, smoothing off before the bitmap');
});

test('the matrix and the colour bar are framed in the muted colour, the matrix\'s frame just outside its cells', () => {
  const ctx = recorder();
  paintHeatmap(ctx, view());
  const frames = ctx.calls.flatMap((c, k) => (c[0] === 'strokeRect' ? [[ctx.calls.slice(0, k).findLast((d) => d[0] === 'strokeStyle=')[1], ...c.slice(1)]] : []));
  assert.deepEqual(frames, [['#666', 49.5, 49.5, 121, 121], ['#666', 182, 50, 12, 120]]);
});

test('the colour bar: one stretched image when given one, else a band per colour of the table, the top of the scale on top', () => {
  const ctx = recorder();
  paintHeatmap(ctx, { ...view(), bar: { colorbar: true } });
  assert.deepEqual(of(ctx, 'drawImage').at(-1), ['drawImage', { colorbar: true }, 182, 50, 12, 120]);
  assert.equal(of(ctx, 'fillStyle=').filter((c) => String(c[1]).startsWith('rgb(')).length, 0);
  const bands = recorder();
  paintHeatmap(bands, view());
  const colours = of(bands, 'fillStyle=').map((c) => c[1]).filter((c) => String(c).startsWith('rgb('));
  assert.equal(colours.length, 256);
  assert.equal(colours[0], 'rgb(253, 254, 255)');
  assert.equal(colours.at(-1), 'rgb(0, 1, 2)');
});

test('values are printed in unmasked cells only, and labels on both axes', () => {
  const ctx = recorder();
  paintHeatmap(ctx, view());
  const texts = of(ctx, 'fillText').map((c) => c[1]);
  const values = texts.filter((t) => /^\d\.\d\d$/.test(t));
  assert.deepEqual(values, ['0.50', '0.30', '0.20', '0.60', '0.40', '0.10', '0.10', '0.80'], 'the masked cell gets no number');
  assert.equal(texts.filter((t) => t === 'king').length, 2, 'row and column label');
  assert.deepEqual(texts.filter((t) => /^0\.\d$|^0$/.test(t) || t === '0.0'), ['0.0', '0.2', '0.4', '0.6', '0.8'], 'colorbar ticks');
  const none = recorder();
  paintHeatmap(none, view({ labelsShown: false, valuesShown: false }));
  assert.deepEqual(of(none, 'fillText').map((c) => c[1]), ['0.0', '0.2', '0.4', '0.6', '0.8', 'weight']);
});

test('a cell prints a small weight in 3 decimals when the whole matrix is small, and one that rounds to 0 but is not as "<"', () => {
  assert.deepEqual([0.5, 0.004999, 0.005, 1e-30, 0, 0.996].map((w) => cellValue(w, 1)), ['0.50', '<.01', '0.01', '<.01', '0.00', '1.00']);
  // A long text's matrix, its largest weight 0.0102: '.004' is as wide as '0.00'.
  assert.deepEqual([0.0102, 0.0041, 0.00049, 0.0005, 0].map((w) => cellValue(w, 0.0102)), ['.010', '.004', '<.001', '.001', '.000']);
  const ctx = recorder();
  paintHeatmap(ctx, { ...view(), weights: new Float32Array([0.001, 0.5, 0.499, 0, 0.6, 0.4, 0.1, 0.1, 0.8]) });
  assert.deepEqual(of(ctx, 'fillText').map((c) => c[1]).slice(0, 3), ['<.01', '0.50', '0.50']);
});

test('the overlay outlines the focused row and the hovered cell', () => {
  const ctx = recorder();
  paintOverlay(ctx, view(), 1, { row: 2, col: 0 });
  const outlines = of(ctx, 'strokeRect').map((c) => c.slice(1));
  assert.deepEqual(outlines, [[49, 89, 122, 42], [50, 130, 40, 40]]);
  const empty = recorder();
  paintOverlay(empty, view(), null, null);
  assert.deepEqual(empty.calls.map((c) => c[0]), ['clearRect'], 'nothing focused, nothing drawn');
});

test('too small for labels, the heatmap and the arrows name the focus and the key as words counted from 1, as the chips do', () => {
  const ctx = recorder();
  paintOverlay(ctx, view({ labelsShown: false }), 1, { row: 2, col: 2 });
  assert.deepEqual(of(ctx, 'fillText').map((c) => c[1]), ['query 2: king  ·  key 3: ruled']);
  const arrows = recorder();
  const layout = { rowHeight: 2, top: 20, queryX: 120, keyX: 240, keyLabelX: 260, labelsShown: false, width: 300, height: 60 };
  paintArrows(arrows, layout, labels, new Float32Array(0), 1, weights.subarray(3, 6), theme);
  const named = (ctx) => of(ctx, 'fillText').filter((c) => c[2] === layout.queryX - 6 && c[1] !== 'query').map((c) => [c[1], c[3]]);
  // The word, and below it its place in the text: a column sized for words cut 'king (word 2)' to 'k… (word 2)'.
  assert.deepEqual(named(arrows), [['king', 23], ['word 2', 23 + theme.fontSize + 2]]);
  // On the last rows, its place goes above it, inside the canvas.
  const last = recorder();
  paintArrows(last, { ...layout, height: 30 }, labels, new Float32Array(0), 2, weights.subarray(6, 9), theme);
  assert.deepEqual(named(last), [['ruled', 25], ['word 3', 25 - theme.fontSize - 2]]);
});

test('rows too thin for labels: the strongest keys named in text order, apart and inside the canvas, each joined to its curve, drawn in the accent colour', () => {
  const n = 200;
  const row = new Float32Array(n).fill(0.001);
  // Seven strong keys, the last three at the very end; key 190 is the seventh.
  for (const [j, w] of [[10, 0.1], [11, 0.09], [12, 0.08], [190, 0.02], [197, 0.05], [198, 0.06], [199, 0.07]]) row[j] = w;
  const labels = Array.from({ length: n }, (_, j) => `w${j}`);
  const arrows = { rowHeight: 1, top: 20, queryX: 60, keyX: 240, keyLabelX: 260, labelsShown: false, width: 340, height: 226 };
  // The links drawn: every key of query 5 but key 11 (as if under the threshold).
  const links = new Float32Array(9 * (n - 1));
  let k = 0;
  for (let j = 0; j < n; j++) {
    if (j === 11) continue;
    links.set([5, j, row[j], 60, 25.5, 240, 20.5 + j, 1, 1], 9 * k++);
  }
  const ctx = recorder();
  paintArrows(ctx, arrows, labels, links, 5, row, theme);
  const names = of(ctx, 'fillText').filter((c) => c[2] === arrows.keyLabelX && c[1] !== 'key');
  // Key 11 has no curve drawn: the sixth name is key 190's.
  assert.deepEqual(names.map((c) => c[1]), ['w10 0.100', 'w12 0.080', 'w190 0.020', 'w197 0.050', 'w198 0.060', 'w199 0.070']);
  const ys = names.map((c) => c[3]);
  for (let i = 1; i < ys.length; i++) assert.ok(ys[i] - ys[i - 1] >= theme.fontSize + 2, `names ${i - 1} and ${i} apart: ${ys}`);
  assert.ok(ys.at(-1) <= arrows.height - (theme.fontSize + 2) / 2, `the last name inside the canvas: ${ys}`);
  assert.equal(ys[0], 20 + 10.5, 'a name with room stays at its key');
  // A leader from each named key's curve end to its name.
  const leaders = of(ctx, 'lineTo').map((c) => c.slice(1));
  assert.deepEqual(leaders, ys.map((y) => [arrows.keyLabelX - 3, y]));
  const starts = of(ctx, 'moveTo').filter((c) => c[1] === arrows.keyX).map((c) => c[2]);
  assert.deepEqual(starts, [10, 12, 190, 197, 198, 199].map((j) => 20.5 + j));
  // The named keys' curves again, over the others (the last stroke before the leaders'), in the accent colour.
  const leaderStroke = ctx.calls.findIndex((c) => c[0] === 'strokeStyle=' && c[1] === theme.muted);
  const accent = ctx.calls.slice(0, leaderStroke).findLastIndex((c) => c[0] === 'strokeStyle=');
  assert.equal(ctx.calls[accent][1], theme.accent);
  const after = ctx.calls.slice(accent).filter((c) => c[0] === 'bezierCurveTo').slice(0, 6);
  assert.deepEqual(after.map((c) => c[6]), [10, 12, 190, 197, 198, 199].map((j) => 20.5 + j));
});

test('a label wider than its side of the arrows, or the heatmap\'s margin, is cut with "…" inside the canvas', () => {
  const long = ['the', 'supercalifragilisticexpialidocious', 'ruled'];
  const ctx = recorder();
  const arrows = { rowHeight: 20, top: 20, queryX: 60, keyX: 240, keyLabelX: 246, labelsShown: true, width: 400, height: 90 };
  paintArrows(ctx, arrows, long, new Float32Array(0), 1, weights.subarray(3, 6), theme);
  const texts = of(ctx, 'fillText').map((c) => c[1]);
  // Query side: 52 px, 7 characters at 7 px; key side: 152 px less ' 0.60'.
  assert.ok(texts.includes('superc…'), texts.join('|'));
  assert.ok(texts.includes('supercalifragil… 0.60'), texts.join('|'));
  assert.ok(texts.includes('the 0.00') && texts.includes('ruled'), 'short labels whole');
  const map = recorder();
  paintHeatmap(map, { ...view(), labels: long });
  const drawn = of(map, 'fillText').map((c) => c[1]);
  // Rows: 42 px left of the matrix (6 characters); columns, upwards: 42 px above it.
  assert.equal(drawn.filter((t) => t === 'super…').length, 2, drawn.join('|'));
});

test('the arrows draw one curve per link with its width and opacity', () => {
  const ctx = recorder();
  const arrows = { rowHeight: 20, top: 20, queryX: 60, keyX: 240, keyLabelX: 246, labelsShown: true, width: 400, height: 90 };
  const links = new Float32Array([1, 0, 0.1, 60, 50, 240, 30, 1, 0.3, 1, 1, 0.6, 60, 50, 240, 50, 6, 1]);
  paintArrows(ctx, arrows, labels, links, 1, weights.subarray(3, 6), theme);
  const curves = of(ctx, 'bezierCurveTo');
  assert.deepEqual(curves.map((c) => c.slice(1)), [[150, 50, 150, 30, 240, 30], [150, 50, 150, 50, 240, 50]]);
  const widths = ctx.calls.filter((c) => c[0] === 'lineWidth=').map((c) => c[1]);
  assert.deepEqual(widths, [1, 6]);
  const texts = of(ctx, 'fillText').map((c) => c[1]);
  assert.ok(texts.includes('king 0.60') && texts.includes('the 0.00'), texts.join('|'));
  // Links of one width and opacity share a stroke; weaker groups first.
  const many = recorder();
  const three = new Float32Array([...links.subarray(0, 9), ...links.subarray(0, 9), ...links.subarray(9)]);
  three[9 + 6] = 70; // the second weak link ends elsewhere
  paintArrows(many, arrows, labels, three, 1, weights.subarray(3, 6), theme);
  assert.equal(of(many, 'bezierCurveTo').length, 3);
  assert.equal(of(many, 'stroke').length, 2);
  assert.deepEqual(many.calls.filter((c) => c[0] === 'globalAlpha=').map((c) => c[1]), [0.3125, 1, 1]);
});

test('tick labels use the decimals of their step', () => {
  assert.equal(formatTick(0.2, 0.2), '0.2');
  assert.equal(formatTick(0.04, 0.02), '0.04');
  assert.equal(formatTick(1, 0.5), '1.0');
  assert.equal(formatTick(0.005, 0.005), '0.005');
});

test('the strongest keys: largest first, the earlier on a tie, masked keys left out', () => {
  const row = new Float32Array([0.1, 0.4, 0.2, 0.4, 0.05, 0.3]);
  assert.deepEqual(strongestKeys(row, 3), [1, 3, 5]);
  assert.deepEqual(strongestKeys(row, 3, new Uint8Array([0, 1, 0, 0, 0, 0])), [3, 5, 2]);
  assert.deepEqual(strongestKeys(row, 10), [1, 3, 5, 2, 0, 4]);
  assert.deepEqual(strongestKeys(new Float32Array(0), 3), []);
});

test("heaviestKeys: the Steps tab's heaviest keys with a weight, heaviest first, and how many have one", () => {
  const weights = new Float32Array([0.1, 0, 0.4, 0.1, 0, 0.4]);
  // Ties keep the earlier key first; keys of weight 0 (masked) are neither listed nor counted.
  assert.deepEqual(heaviestKeys(weights, 3), { keys: [2, 5, 0], total: 4 });
  assert.deepEqual(heaviestKeys(weights, 8), { keys: [2, 5, 0, 3], total: 4 });
  assert.deepEqual(heaviestKeys(new Float32Array(3), 4), { keys: [], total: 0 });
});

test('the projection places each label beside its mark where it hides no other label or mark, the lit one always', () => {
  // Four points in a cluster (queries 0-1, keys 2-3 of two pieces), as the trained model's heads bunch them.
  const layout = { count: 4, width: 300, height: 200, x: [100, 110, 104, 250], y: [100, 100, 112, 100] };
  const picture = { layout, n: 2, labels: ['the', 'because'], theme };
  const lit = new Set([1]);
  const places = labelPlaces(recorder(), picture, [1, 0, 2, 3], (p) => lit.has(p));
  const box = (p) => {
    const w = 7 * picture.labels[p % 2].length; // the recorder's text is 7 px a character
    const { x, y, align } = places[p];
    const left = align === 'left' ? x : align === 'right' ? x - w : x - w / 2;
    return [left, y - 6.5, w, 13];
  };
  const hit = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
  const placed = [0, 1, 2, 3].filter((p) => places[p]);
  assert.ok(places[1], 'the lit point is labelled');
  assert.ok(placed.length >= 3, JSON.stringify(places));
  for (const p of placed) {
    const b = box(p);
    assert.ok(b[0] >= 0 && b[0] + b[2] <= 300 && b[1] >= 0 && b[1] + b[3] <= 200, `label ${p} inside`);
    for (const q of placed) if (q !== p) assert.ok(!hit(b, box(q)), `labels ${p} and ${q} apart`);
    for (let q = 0; q < 4; q++) if (q !== p) assert.ok(!hit(b, [layout.x[q] - 4.5, layout.y[q] - 4.5, 9, 9]), `label ${p} off mark ${q}`);
  }
  // Alone at the right edge, a label goes left of its mark.
  assert.equal(places[3].align, 'right');
});

test('the arrows leave room for any value a key label carries: "because <.01" is not cut', () => {
  const measure = { font: '', measureText: (text) => ({ width: 7 * [...text].length }) };
  const room = arrowLabelWidth(measure, ['the', 'because'], theme);
  for (const [w, max] of [[0.45, 0.9], [1, 1], [0.004, 0.5], [0.0123, 0.05], [0.0004, 0.05]]) {
    const text = `because ${cellValue(w, max)}`;
    assert.ok(measure.measureText(text).width <= room, `${text}: ${measure.measureText(text).width} > ${room}`);
  }
});
