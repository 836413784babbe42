// Export of what is on screen: a *figure* is a matrix of weights with its
// labels and a caption of the settings that made it (GloVe or the model's
// head, scaled or not, temperature, masks), drawn the way the page draws it.
// Every view that can be exported registers a figure in `ctx.figures`;
// Share reads the one on screen. Pure functions of the figure, except the
// PNG, which draws on a canvas it is given.
//
// figure: { kind, title, caption, rows, cols, rowLabels, colLabels,
//           weights: Float32Array (rows, cols), masked: Uint8Array | null,
//           scaleMax, palette, and optionally: file (what the file name adds
//           to the title's words), unknown (the words left out), inputs (what
//           the playground computed from), arrows ({ focus, share }: drawn as
//           the arrows view draws it, from the colLabels' words; the rows
//           are the focused query's when there is one), focus ({ row, unit }:
//           the query row focused on screen, in the whole matrix, and what its
//           caption counts rows in, 'word', 'token' or 'row'; see withFocus),
//           part ({ row0, col0, labels }: a zoomed part's place in the
//           whole matrix, whose row labels `labels` are) }
// A figure of other numbers than weights (the context vectors) names them:
// axes ([row, column] for the CSV's corner), jsonKeys ([rows, columns,
// values]), and rowValues(i) in place of `weights` (a row computed when its
// line is written). Its entry in `ctx.figures` names the downloads it has
// (`formats`: ['csv', 'json']) when not all four.

import { paintArrows, paintOverlay } from './paint.js';
import { formatTemperature } from './state.js';
import { xml, SvgContext } from './svg-canvas.js';
import { quoted, wrapLines } from './text.js';

/** A figure is at least this wide (CSS pixels), so that its caption has room beside a small matrix. */
export const MIN_FIGURE_WIDTH = 560;
/** Lines of the title at most (a long text's title ends in '…'). */
export const TITLE_LINES = 2;

/**
 * The caption of an analysis's settings, in words; `source`: the user's own
 * vectors that made it (engine.js), if so. A teaching panel's own figure
 * passes what it computed with: `vectors` (whether word vectors went in: not
 * the playground), `scaled` by √`scaleDim` (a head's d_k, What-if's flipped
 * side), `masks` (whether the self and causal switches applied: not across
 * sentences).
 */
export function settingsCaption(state, dim = 50, source = null, { vectors = true, scaled = state.scale, scaleDim = dim, masks = true } = {}) {
  const parts = [];
  if (vectors) parts.push(source ? `your own vectors (${source.name}, ${dim}d)` : `GloVe 6B ${dim}d`);
  parts.push(scaled ? `scores ÷ √${scaleDim}` : 'unscaled scores');
  if (state.temperature !== 1) parts.push(`temperature ${formatTemperature(state.temperature)}`);
  if (masks) parts.push(state.self ? 'a word may attend to itself' : 'no attention to itself', state.causal ? 'causal mask' : 'no causal mask');
  return parts.join(' · ');
}

/**
 * The page's analysis as a figure (the main heatmap's): the whole text as
 * its title; the caption and the JSON say which of its words the matrix
 * leaves out. While a new text's words arrive, the screen (and so the file)
 * still shows the last analysis: its own text and settings.
 */
export function analysisFigure(analysis, palette) {
  const { state, engine } = analysis;
  const unknown = analysis.tokens.filter((t) => !t.known).map((t) => t.text);
  const shown = unknown.slice(0, 10).map((word) => quoted(word)).join(', ');
  const leftOut = unknown.length ? ` · left out (no vector): ${shown}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''}` : '';
  return {
    kind: 'glove', title: state.sentence, caption: settingsCaption(state, analysis.dim, engine.source) + leftOut, vectors: engine.source?.name ?? null, rows: analysis.n, cols: analysis.n,
    rowLabels: analysis.labels, colLabels: analysis.labels, weights: analysis.weights, masked: analysis.masked,
    scaleMax: analysis.scaleMax, palette, unknown,
  };
}

/**
 * The context vectors of an analysis (the Context-vectors tab's figure): a
 * row a word, a column a dimension, each row its Σ weight × v as the kernel
 * sums it (the Steps tab's output), computed as its line is written. No
 * picture: its numbers are negative and positive, and the heatmap's colours
 * run from 0 up.
 */
export function contextFigure(analysis) {
  const whole = analysisFigure(analysis, null);
  return {
    ...whole, kind: 'context-vectors', caption: `${whole.caption} · context vectors, Σ weight × v`, file: 'context vectors',
    cols: analysis.dim, colLabels: Array.from({ length: analysis.dim }, (_, k) => `d${k + 1}`),
    axes: ['word', 'dimension'], jsonKeys: ['words', 'dimensions', 'vectors'],
    weights: null, masked: null, rowValues: (i) => analysis.contextOf(i),
  };
}

/**
 * A square figure as its arrows view draws it: the links from query `focus`
 * (its row of weights; every row's when null), those under `share` of the
 * strongest hidden. `arrows`: { focus, share } for the painter.
 */
export function asArrows(whole, focused, share) {
  const n = whole.cols;
  const focus = focused !== null && focused < n ? focused : null;
  const from = focus === null ? 'every word' : `${quoted(whole.rowLabels[focus])} (word ${focus + 1})`;
  const figure = {
    ...whole, caption: `${whole.caption} · arrows from ${from}, links under ${Math.round(share * 100)} % of the strongest hidden`,
    file: [whole.file, 'arrows', focus === null ? '' : whole.rowLabels[focus]].filter(Boolean).join(' '), arrows: { focus, share },
  };
  if (focus === null) return figure;
  const part = (values) => values?.slice(focus * n, (focus + 1) * n) ?? null;
  return { ...figure, rows: 1, rowLabels: [whole.rowLabels[focus]], weights: part(whole.weights), masked: part(whole.masked) };
}

/**
 * `figure` with the query row `focus` (a row of the whole matrix, or null)
 * that the screen shows focused, so that its picture shows it too: its band
 * and outline, and its word in the caption, its place counted in `unit`s.
 * A focus outside the figure's rows (a zoomed part's) is not shown there.
 */
export function withFocus(figure, focus, unit = 'word') {
  const row0 = figure?.part?.row0 ?? 0;
  if (!figure || !Number.isInteger(focus) || focus < row0 || focus >= row0 + figure.rows) return figure;
  return { ...figure, focus: { row: focus, unit } };
}

/**
 * The caption drawn on a picture: the figure's, and its focused query, named
 * as the arrows name theirs. The data's (CSV, JSON) caption stays what made
 * the weights: a click changes no number.
 */
export function pictureCaption(figure) {
  if (!figure.focus) return figure.caption;
  const { row, unit } = figure.focus;
  const labels = figure.part?.labels ?? figure.rowLabels;
  return `${figure.caption} · focused query ${quoted(labels[row])} (${unit} ${row + 1})`;
}

/**
 * Paints the focus of `figure` (withFocus) on `draw` as the screen's overlay
 * does (paint.js paintOverlay: the focused row's band and outline, the hover
 * left out), over cells laid out in `layout`; a zoomed part's as the zoomed
 * view paints it.
 */
export function paintFocus(draw, figure, layout, theme) {
  if (!figure.focus) return;
  const { row0 = 0, col0 = 0, labels = figure.rowLabels } = figure.part ?? {};
  const window = { row0, col0, rows: figure.rows, cols: figure.cols };
  paintOverlay(draw, { layout, theme, labels, colLabels: figure.colLabels, window }, figure.focus.row, null);
}

/** A CSV field: quoted, and a leading =, +, − or @ defused, so that a spreadsheet never runs a token as a formula. */
function field(text) {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

/**
 * Weight `w` (a float32) in the fewest digits that read back as the same
 * float32, as the CLI's JSON writes it: 1e-8 stays 1e-8 (six decimals made
 * it 0, and a ratio of two such weights infinite). A float32 holds about 7.2
 * digits, so its 6-digit rounding is already the shortest form when one of
 * 6 digits or fewer reads back; the search starts there (a normal number).
 */
export function weightText(w) {
  // Below float32's smallest normal number fewer digits are kept: search from one.
  for (let digits = Math.abs(w) < 1.1754944e-38 ? 1 : 6; digits < 9; digits++) {
    const text = String(Number(w.toPrecision(digits)));
    if (Math.fround(Number(text)) === w) return text;
  }
  return String(Number(w.toPrecision(9)));
}

/** Query rows per part of a CSV or JSON text: a few milliseconds of formatting at 1,024 columns. */
const ROWS_PER_PART = 32;

/** A row's numbers as texts (weightText), `empty` where masked (or not a number). */
function rowTexts(figure, i, empty) {
  const texts = new Array(figure.cols);
  const first = i * figure.cols;
  const row = figure.rowValues?.(i);
  for (let j = 0; j < figure.cols; j++) {
    const w = row ? row[j] : figure.weights[first + j];
    texts[j] = figure.masked?.[first + j] || !Number.isFinite(w) ? empty : weightText(w);
  }
  return texts;
}

/**
 * The weights as CSV (RFC 4180), in parts of ROWS_PER_PART lines: a header
 * `query \ key` (the figure's axes) and the keys, then a line per query;
 * masked cells empty.
 */
export function* csvParts(figure) {
  const [rows, cols] = figure.axes ?? ['query', 'key'];
  yield `${[`${rows} \\ ${cols}`, ...figure.colLabels].map(field).join(',')}\r\n`;
  for (let first = 0; first < figure.rows; first += ROWS_PER_PART) {
    const lines = [];
    for (let i = first; i < Math.min(figure.rows, first + ROWS_PER_PART); i++) {
      lines.push(`${field(figure.rowLabels[i])},${rowTexts(figure, i, '').join(',')}\r\n`);
    }
    yield lines.join('');
  }
}

/** The whole CSV of `figure` (csvParts). */
export function csvOf(figure) {
  return [...csvParts(figure)].join('');
}

/**
 * The figure as JSON, in parts of ROWS_PER_PART rows: what it shows, its
 * settings and its weights (row i = query i; null where masked), a row a
 * line; `queries`, `keys` and `weights` are named by the figure's jsonKeys.
 */
export function* jsonParts(figure) {
  const { kind, title, caption, unknown, inputs } = figure;
  const [rows, cols, values] = figure.jsonKeys ?? ['queries', 'keys', 'weights'];
  const head = JSON.stringify({ kind, title, caption, unknown, inputs, [rows]: figure.rowLabels, [cols]: figure.colLabels }, null, 1);
  // The object without its closing brace, then the numbers as its last member.
  yield `${head.slice(0, -2)},\n ${JSON.stringify(values)}: [`;
  for (let first = 0; first < figure.rows; first += ROWS_PER_PART) {
    const lines = [];
    for (let i = first; i < Math.min(figure.rows, first + ROWS_PER_PART); i++) {
      lines.push(`${i ? ',' : ''}\n  [${rowTexts(figure, i, 'null').join(',')}]`);
    }
    yield lines.join('');
  }
  yield `${figure.rows ? '\n ' : ''}]\n}\n`;
}

/** The whole JSON of `figure` (jsonParts). */
export function jsonOf(figure) {
  return [...jsonParts(figure)].join('');
}

/** Above this many cells the SVG carries the cells as one embedded bitmap instead of a rectangle each. */
export const SVG_RECT_LIMIT = 128 * 128;

/**
 * The figure as an SVG document: title, caption, labels, one <rect> per cell
 * (`data-weight` holds its weight), the focus as the screen's overlay draws
 * it (paintFocus) and a colour legend. `table`: the palette's
 * 256 r, g, b triples; `cellsUrl(figure)`: a PNG data URL of the cells, used
 * for matrices beyond SVG_RECT_LIMIT cells.
 */
export function svgOf(figure, { table, theme, cellsUrl }) {
  const cell = Math.max(4, Math.min(36, Math.floor(640 / Math.max(figure.rows, figure.cols))));
  // Labels of 11 px, or as tall as a cell below 11 px (past 58 tokens): too
  // small to read at 100 %, but an SVG is read zoomed in.
  const font = Math.min(11, cell);
  const longest = Math.max(...figure.rowLabels.map((l) => l.length), ...figure.colLabels.map((l) => l.length), 1);
  const label = Math.ceil((Math.min(160, 8 + 7 * longest) * font) / 11);
  const x0 = label + 16;
  const width = Math.max(MIN_FIGURE_WIDTH, x0 + figure.cols * cell + 90);
  const heading = svgHeading(figure, width, theme);
  const y0 = heading.bottom + label;
  const height = y0 + figure.rows * cell + 24;
  const colour = (w) => {
    const t = Math.max(0, Math.min(255, Math.round((w / (figure.scaleMax || 1)) * 255))) * 3;
    return `rgb(${table[t]},${table[t + 1]},${table[t + 2]})`;
  };
  const out = [
    ...svgOpening(figure, width, height, theme),
    ...heading.parts,
    `<g class="labels" fill="${xml(theme.fg)}"${font < 11 ? ` font-size="${font}"` : ''}>`,
    ...figure.rowLabels.map((l, i) => `<text x="${x0 - 6}" y="${y0 + (i + 0.5) * cell}" text-anchor="end" dominant-baseline="middle">${xml(l)}</text>`),
    ...figure.colLabels.map((l, j) => `<text transform="translate(${x0 + (j + 0.5) * cell},${y0 - 6}) rotate(-90)" dominant-baseline="middle">${xml(l)}</text>`),
    '</g>',
  ];
  if (figure.rows * figure.cols <= SVG_RECT_LIMIT) {
    out.push('<g class="cells">');
    for (let i = 0; i < figure.rows; i++) {
      for (let j = 0; j < figure.cols; j++) {
        const k = i * figure.cols + j;
        const masked = figure.masked?.[k];
        out.push(`<rect x="${x0 + j * cell}" y="${y0 + i * cell}" width="${cell}" height="${cell}" fill="${masked ? 'none' : colour(figure.weights[k])}" data-weight="${masked ? 'masked' : figure.weights[k].toFixed(4)}"${masked ? ` stroke="${xml(theme.hatch)}"` : ''}/>`);
      }
    }
    out.push('</g>');
  } else {
    out.push(`<image x="${x0}" y="${y0}" width="${figure.cols * cell}" height="${figure.rows * cell}" preserveAspectRatio="none" style="image-rendering:pixelated" href="${cellsUrl(figure)}"/>`);
  }
  if (figure.focus) {
    // Every label is drawn here, so the overlay names nothing and measures no text.
    const draw = new SvgContext(null);
    const matrix = [x0, y0, figure.cols * cell, figure.rows * cell];
    paintFocus(draw, figure, { cell, matrix, labelsShown: true, width, height }, theme);
    out.push('<g class="focus">', ...draw.parts, '</g>');
  }
  // The gradient's id names its palette: two figures put inline in one page may share it, never swap it.
  const gradient = `attention-explorer-${String(figure.palette).replace(/[^a-z]/g, '')}`;
  out.push(legendSvg(x0 + figure.cols * cell + 16, y0, Math.max(60, figure.rows * cell), figure.scaleMax, table, theme, gradient), '</svg>');
  return `${out.join('\n')}\n`;
}

/** The opening of an SVG figure `width` × `height`: its title and caption for a reader, and the background. */
function svgOpening(figure, width, height, theme) {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<title>${xml(figure.title)}</title>`,
    `<desc>${xml(pictureCaption(figure))}</desc>`,
    `<rect width="${width}" height="${height}" fill="${xml(theme.bg)}"/>`,
  ];
}

/**
 * The title and caption drawn at the top of an SVG figure `width` wide:
 * { parts, bottom }, `bottom` the y where what they head can start.
 */
function svgHeading(figure, width, theme) {
  // No text is measured here: about 8.6 px a character of the 15 px bold
  // title, 6.2 px of the 11 px caption (a little more than the average of a
  // sans-serif, so that a line rarely runs past the edge).
  const room = width - 32;
  const title = wrapLines(figure.title, (line) => Array.from(line).length * 8.6 <= room, TITLE_LINES);
  const caption = wrapLines(pictureCaption(figure), (line) => Array.from(line).length * 6.2 <= room);
  const captionTop = 24 + 20 * title.length;
  return {
    bottom: captionTop + 15 * (caption.length - 1) + 26,
    parts: [
      ...title.map((line, k) => `<text x="16" y="${24 + 20 * k}" font-size="15" font-weight="bold" fill="${xml(theme.fg)}">${xml(line)}</text>`),
      ...caption.map((line, k) => `<text x="16" y="${captionTop + 15 * k}" class="caption" fill="${xml(theme.muted)}">${xml(line)}</text>`),
    ],
  };
}

/**
 * An arrows figure (asArrows) as an SVG document, drawn by the arrows' own
 * painter (paint.js paintArrows) on an SvgContext: `layout` (heatmap-view.js
 * arrowLayout), `links` (ArrowGeometry's), the `focus` and its `row` of
 * weights (or nulls), `measure` a canvas context to measure labels with. The curves are <path>s, a path for
 * the links of one width and opacity; the words are <text>.
 */
export function arrowsSvgOf(figure, { layout, links, focus, row, theme, measure }) {
  const width = Math.max(MIN_FIGURE_WIDTH, Math.ceil(layout.width) + 32);
  const heading = svgHeading(figure, width, theme);
  const height = Math.ceil(heading.bottom + layout.height + 16);
  const draw = new SvgContext(measure, theme.fontFamily);
  paintArrows(draw, layout, figure.colLabels, links, focus, row, theme);
  return `${[
    ...svgOpening(figure, width, height, theme),
    ...heading.parts,
    `<g class="arrows" transform="translate(16,${heading.bottom})" font-family="${xml(theme.fontFamily)}">`,
    ...draw.parts,
    '</g>',
    '</svg>',
  ].join('\n')}\n`;
}

function legendSvg(x, y, height, max, table, theme, gradient) {
  const stops = [];
  for (let s = 0; s <= 8; s++) {
    const t = Math.round((s / 8) * 255) * 3;
    stops.push(`<stop offset="${(1 - s / 8).toFixed(3)}" stop-color="rgb(${table[t]},${table[t + 1]},${table[t + 2]})"/>`);
  }
  return [
    `<defs><linearGradient id="${gradient}" x1="0" y1="0" x2="0" y2="1">${stops.reverse().join('')}</linearGradient></defs>`,
    `<g class="legend"><rect x="${x}" y="${y}" width="12" height="${height}" fill="url(#${gradient})" stroke="${xml(theme.muted)}"/>`,
    `<text x="${x + 16}" y="${y + 8}" fill="${xml(theme.fg)}">${max.toFixed(2)}</text>`,
    `<text x="${x + 16}" y="${y + height}" fill="${xml(theme.fg)}">0</text>`,
    `<text x="${x}" y="${y - 6}" fill="${xml(theme.muted)}">weight</text></g>`,
  ].join('');
}

let crcTable = null;
/** The CRC-32 of `bytes` (ISO 3309, as PNG's chunks carry it). */
function crc32(bytes) {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * PNG `bytes` (as a canvas writes them: no pHYs chunk) with a pHYs chunk of
 * `ratio` pixels per CSS pixel (96 a inch), so that a document or a slide
 * places the picture at the size it had on screen: untagged, Word and
 * Keynote took its 2× pixels for twice the size.
 */
export function withResolution(bytes, ratio) {
  const perMetre = Math.round((ratio * 96) / 0.0254);
  const chunk = new Uint8Array(21);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, 9);
  chunk.set([0x70, 0x48, 0x59, 0x73], 4); // "pHYs"
  view.setUint32(8, perMetre);
  view.setUint32(12, perMetre);
  chunk[16] = 1; // the unit: the metre
  view.setUint32(17, crc32(chunk.subarray(4, 17)));
  // After the signature (8 bytes) and the IHDR chunk (25), which must come first.
  const at = 33;
  const out = new Uint8Array(bytes.length + chunk.length);
  out.set(bytes.subarray(0, at));
  out.set(chunk, at);
  out.set(bytes.subarray(at), at + chunk.length);
  return out;
}
