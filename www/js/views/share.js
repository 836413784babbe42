// Share and export what is on screen. The link is the address (the state,
// whole); the embed snippets show one view of it (state.js VIEWS) in a blog
// post: an iframe with the few lines that size it, or one element and one
// classic script. Downloads take the picture chosen among the figures on
// screen (ctx.figures, registered by the views that draw them): PNG at twice
// the screen's resolution, SVG, CSV and JSON, each with the sentence and the
// settings that made it.

import { colorbarOf, colormap, cellsOf } from '../analysis.js';
import { attr, copyText, download, el, newCanvas, put } from '../dom.js';
import { arrowsSvgOf, csvParts, jsonParts, MIN_FIGURE_WIDTH, paintFocus, pictureCaption, svgOf, TITLE_LINES, withResolution } from '../figure.js';
import { arrowLabelWidth, arrowLayout, arrowLinks, hatchOf, heatmapLayout, labelWidth } from '../heatmap-view.js';
import { font, paintArrows, paintHeatmap } from '../paint.js';
import { siteFile } from '../site.js';
import { formatHash, VIEWS } from '../state.js';
import { clip, grouped, wrapLines } from '../text.js';
import { taskPauses } from '../vectors.js';

const VIEW_NAMES = {
  main: 'the heatmap and the arrows', heatmap: 'the heatmap', arrows: 'the arrows', steps: 'the steps of the focused word',
  whatif: 'what if: scaling on and off', play: 'the matrix playground', heads: 'multi-head attention',
  cross: 'cross-attention', meaning: 'context vectors', model: 'the trained model’s heads', head: 'the trained model’s open head',
};

/** The friendlier attribute names of <attention-viz> for some link keys (www/attention-viz.js reads both). */
const ATTRIBUTES = { t: 'temperature', pal: 'palette', th: 'threshold', mlayer: 'model-layer', mhead: 'model-head' };

/** A CSV or JSON text is made this long at most per task: a long text's million weights take about 30 tasks. */
const SLICE_MS = 20;

/** Links longer than this may be cut by the apps they are pasted into. */
const LONG_LINK = 2000;

/**
 * A file name's words from `text`: runs of letters and digits of any script
 * ('café', '東京') joined by '-', at most `max` characters, whole words (a
 * first word longer than that is cut), no '-' at either end. A combining
 * mark stays only inside a word, after the letter or digit it belongs to:
 * one after an emoji or a space (U+FE0F after '❤') would end the name in an
 * invisible character. Variation selectors go too: they only choose how a
 * character is drawn.
 */
function slug(text, max = 40) {
  const plain = text.normalize('NFC').toLowerCase().replace(/\p{Variation_Selector}/gu, '');
  const words = plain.match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? [];
  const whole = words.join('-');
  const kept = clip(whole, max);
  const cut = kept.lastIndexOf('-');
  const atWord = kept.length === whole.length || whole[kept.length] === '-' || cut < 1 ? kept : kept.slice(0, cut);
  return atWord.replace(/-+$/, '') || 'sentence';
}

/**
 * The name of a download: the title's words, then what the figure is when it
 * is not the main heatmap ('…-unscaled.csv', '…-minilm-layer-5-head-11.png'),
 * then the user's vectors file when they made it ('…-my-vectors-txt.csv'), so
 * that it does not take the name of the same sentence's GloVe figure.
 */
function fileName(figure, extension) {
  // What the figure is, whole: 'minilm-layer-5-head-11-arrows-it' (32) was cut to '…-arrows', the name of the arrows from every word.
  const parts = [slug(figure.title), figure.file && slug(figure.file, 50), figure.vectors && slug(figure.vectors, 30)];
  return `attention-${parts.filter(Boolean).join('-')}.${extension}`;
}

/** Escapes text for an HTML attribute value or text in a snippet the user copies. */
export function attribute(text) {
  return String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The view on screen, as an embed shows it: the open model head, the open tab, or the main views. */
export function viewOnScreen(state) {
  if (state.model) return 'head';
  return state.teach.lab !== 'steps' ? state.teach.lab : 'main';
}

/** The three things to copy for `state` shown as `view`, on the site at `base`. */
export function snippets(state, view, base) {
  const origin = new URL(base).origin;
  const shown = { ...state, view };
  const hash = formatHash(shown);
  const embed = new URL('embed.html', base).href + hash;
  const iframe = [
    '<script>',
    `addEventListener('message', function (e) {`,
    `  if (e.origin !== '${origin}' || !e.data) return;`,
    `  document.querySelectorAll('iframe').forEach(function (f) {`,
    `    if (f.contentWindow !== e.source) return;`,
    `    if (e.data.type === 'attention-explorer:ready') f.contentWindow.postMessage({ type: 'attention-explorer:resize' }, e.origin);`,
    `    if (e.data.type === 'attention-explorer:height') f.style.height = Math.min(e.data.height, 20000) + 'px';`,
    '  });',
    '});',
    '</script>',
    `<iframe src="${attribute(embed)}" title="Attention Explorer: ${attribute(VIEW_NAMES[view])}" style="width:100%;height:560px;border:0" loading="lazy"></iframe>`,
  ].join('\n');
  const attrs = [`sentence="${attribute(state.sentence)}"`];
  const params = new URLSearchParams(hash.slice(1));
  for (const [key, value] of params) {
    // The element's flags (attention-viz.js FLAGS) take no value: `special="0"` would read as `special`.
    const flag = { 'self=0': 'no-self', 'causal=1': 'causal', 'scale=0': 'no-scale', 'special=0': 'no-special', 'special=1': 'special' }[`${key}=${value}`];
    if (flag) attrs.push(flag);
    else if (!['s', 'self', 'causal', 'scale', 'model'].includes(key)) attrs.push(`${ATTRIBUTES[key] ?? key}="${attribute(value)}"`);
  }
  const fallback = `<a href="${attribute(new URL('index.html', base).href + formatHash(state))}">${attribute(clip(state.sentence, 80))} — in Attention Explorer</a>`;
  const element = [
    `<script src="${new URL('attention-viz.js', base).href}" defer></script>`,
    `<attention-viz ${attrs.join(' ')}>${fallback}</attention-viz>`,
  ].join('\n');
  return { link: new URL('index.html', base).href + formatHash(state), iframe, element };
}

export function mountShare(ctx) {
  return document.getElementById('copy-link') ? new ShareView(ctx) : { update() {} };
}

class ShareView {
  constructor(ctx) {
    this.ctx = ctx;
    this.store = ctx.store;
    const $ = (id) => document.getElementById(id);
    this.dom = { status: $('share-status'), open: $('share-open'), panel: $('share-panel'), view: $('share-view'), figure: $('export-figure'), longNote: $('share-long') };
    this.dom.view?.replaceChildren(...VIEWS.map((view) => Object.assign(el('option', VIEW_NAMES[view]), { value: view })));
    $('copy-link')?.addEventListener('click', async () => {
      // From the state, not the address, which url.js writes in a background task after a change.
      const link = new URL(formatHash(this.store.get()), location.href).href;
      const ok = await copyText(link);
      this.flash(ok ? 'Link copied: it opens this sentence, these options and this view.' : `Copy this link: ${link}`);
    });
    this.dom.open?.addEventListener('click', () => this.setOpen(this.dom.panel.hidden));
    // Escape closes the panel from its button or from within, and gives the button the focus.
    for (const where of [this.dom.open, this.dom.panel]) {
      where?.addEventListener('keydown', (event) => {
        if (event.key !== 'Escape' || this.dom.panel.hidden || event.defaultPrevented) return;
        event.preventDefault();
        this.setOpen(false);
        this.dom.open.focus();
      });
    }
    this.dom.view?.addEventListener('change', () => this.fill());
    for (const event of ['focus', 'pointerdown']) this.dom.figure?.addEventListener(event, () => this.listFigures());
    for (const button of document.querySelectorAll('[data-copy]')) {
      button.addEventListener('click', async () => {
        const ok = await copyText(document.getElementById(button.dataset.copy).value);
        this.flash(ok ? 'Copied.' : 'Select the text and copy it.');
      });
    }
    this.preparing = null; // the format of a CSV or JSON text being made (text())
    this.formats = { png: $('export-png'), svg: $('export-svg'), csv: $('export-csv'), json: $('export-json') };
    for (const [format, button] of Object.entries(this.formats)) {
      button?.addEventListener('click', () => this.exportWith(format, (figure) => this[format](figure)));
    }
    this.dom.figure?.addEventListener('change', () => this.markFormats());
  }

  flash(text) {
    put(this.dom.status, 'textContent', text);
  }

  setOpen(open) {
    this.dom.panel.hidden = !open;
    this.dom.open.setAttribute('aria-expanded', String(open));
    if (!open) return;
    put(this.dom.view, 'value', viewOnScreen(this.store.get()));
    this.fill();
    // The quiz builder inside waits, while closed, to be seen.
    this.ctx.refresh();
  }

  fill() {
    if (this.dom.panel?.hidden) return;
    const state = this.store.get();
    const texts = snippets(state, this.dom.view.value, new URL('.', location.href).href);
    for (const [id, text] of [['share-link', texts.link], ['share-iframe', texts.iframe], ['share-element', texts.element]]) put(document.getElementById(id), 'value', text);
    // Everything is in the link, so a long text makes a long link: say so where it matters.
    const long = texts.link.length > LONG_LINK;
    put(this.dom.longNote, 'hidden', !long);
    put(this.dom.longNote, 'textContent', long
      ? `This link is ${grouped(texts.link.length)} characters long because it carries the whole text (${grouped(state.sentence.length)} characters): browsers open it, but some chat apps and forms cut links after about ${grouped(LONG_LINK)} characters. The snippets carry the same text.`
      : '');
  }

  /** The figures on screen, for the download menu. */
  listFigures() {
    const select = this.dom.figure;
    if (!select) return;
    const shown = [...this.ctx.figures].filter(([, entry]) => entry.visible());
    // A name may change with what made the figure (your own vectors, not GloVe).
    const named = shown.map(([id, entry]) => [id, typeof entry.name === 'function' ? entry.name() : entry.name]);
    const key = JSON.stringify(named);
    if (select.dataset.key === key) return;
    const previous = select.value;
    select.dataset.key = key;
    select.replaceChildren(...named.map(([id, name]) => Object.assign(el('option', name), { value: id })));
    if (shown.some(([id]) => id === previous)) select.value = previous;
    this.markFormats();
  }

  /** The downloads the chosen figure has not (the context vectors have no picture) say so to assistive technology and look off; a click says why. */
  markFormats() {
    for (const [format, button] of Object.entries(this.formats)) attr(button, 'aria-disabled', !this.has(format));
  }

  /** Whether the chosen figure has downloads of `format`: its entry's `formats` (and `why` not the others), or all four. */
  has(format) {
    return this.chosen()?.formats?.includes(format) ?? true;
  }

  /** The entry in ctx.figures of the figure chosen in the menu (listFigures). */
  chosen() {
    return this.ctx.figures.get(this.dom.figure?.value ?? 'main');
  }

  exportWith(format, make) {
    // The quiz hides the weights until each is guessed (its downloads are hidden too).
    if (this.store.get().quiz) {
      this.flash('Downloads come back after the quiz: “See everything” ends it.');
      return;
    }
    this.listFigures();
    const entry = this.chosen();
    const figure = entry?.figure() ?? null;
    if (!figure) {
      this.flash('Nothing to download yet.');
      return;
    }
    if (!this.has(format)) {
      this.flash(`No ${format.toUpperCase()} is made of ${this.dom.figure.selectedOptions[0]?.textContent ?? 'this'}: ${entry.why}. Download the ${entry.formats.map((f) => f.toUpperCase()).join(' or ')}.`);
      return;
    }
    make(figure);
  }

  csv(figure) {
    return this.text(figure, csvParts(figure), 'CSV', 'text/csv');
  }

  json(figure) {
    return this.text(figure, jsonParts(figure), 'JSON', 'application/json');
  }

  /**
   * Downloads the text of `parts` (figure.js csvParts or jsonParts) as a file
   * of `format`. A long text's million weights are formatted SLICE_MS per
   * task, so that the page keeps answering; a second click meanwhile waits
   * for the first.
   */
  async text(figure, parts, format, type) {
    if (this.preparing) {
      this.flash(`Still preparing the ${this.preparing}…`);
      return;
    }
    this.preparing = format;
    try {
      const chunks = [];
      const pause = taskPauses(SLICE_MS);
      for (const part of parts) {
        chunks.push(new Blob([part])); // encoded now: 14 MB of text at once would be a long task
        await pause(() => this.flash(`Preparing the ${format} (${grouped(figure.rows)} rows)…`));
      }
      download(new Blob(chunks, { type }), fileName(figure, format.toLowerCase()));
      this.flash(`${format} downloaded.`);
    } finally {
      this.preparing = null;
    }
  }

  svg(figure) {
    const { ctx } = this;
    const cellsUrl = (f) => cellsOf(ctx.wasm, f, f.palette).toDataURL('image/png');
    const text = figure.arrows ? arrowsSvgOf(figure, arrowsDrawing(figure, ctx)) :
      svgOf(figure, { table: colormap(ctx.wasm, figure.palette), theme: ctx.theme, cellsUrl });
    download(new Blob([text], { type: 'image/svg+xml' }), fileName(figure, 'svg'));
    this.flash('SVG downloaded.');
  }

  async png(figure) {
    const blob = await encodePng(figure.arrows ? arrowsPictureOf(figure, this.ctx) : pictureOf(figure, this.ctx));
    if (blob) download(new Blob([withResolution(new Uint8Array(await blob.arrayBuffer()), pictureRatio())], { type: 'image/png' }), fileName(figure, 'png'));
    this.flash(blob ? 'PNG downloaded.' : 'The PNG could not be made.');
  }

  update() {
    this.listFigures();
    // The teaching views draw after the frame is painted: list their figures then too.
    this.ctx.afterPaint(() => this.ctx.afterPaint(() => this.listFigures()));
    this.fill();
  }
}

const PNG_WORKER_URL = siteFile('js/png-worker.js');
let pngWorkerFailed = false; // once the worker failed to load or to encode, the canvas makes every PNG

/**
 * `canvas` as a PNG Blob (null if it cannot be made), encoded in a worker of
 * its own (png-worker.js says why), which ends with it; where the worker cannot
 * run (it failed to load, or the browser has no OffscreenCanvas in workers),
 * by canvas.toBlob.
 */
function encodePng(canvas) {
  const byCanvas = () => new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (pngWorkerFailed || typeof OffscreenCanvas !== 'function' || typeof createImageBitmap !== 'function') return byCanvas();
  return new Promise((resolve) => {
    const worker = new Worker(PNG_WORKER_URL, { type: 'module', name: 'attention-explorer-png' });
    const done = (blob) => {
      worker.terminate();
      if (!blob) pngWorkerFailed = true;
      resolve(blob);
    };
    worker.addEventListener('error', () => done(null));
    worker.addEventListener('message', ({ data }) => done(data.blob ?? null));
    createImageBitmap(canvas).then((bitmap) => worker.postMessage({ bitmap }, [bitmap]), () => done(null));
  }).then((blob) => blob ?? byCanvas());
}

/** Pixels of a picture per CSS pixel: the screen's, and 2 at least (sharp on a projector, in print). */
function pictureRatio() {
  return Math.max(2, window.devicePixelRatio || 1);
}

/** The width of an arrows picture's drawing, in CSS pixels (as the view on a laptop). */
const ARROWS_WIDTH = 640;

/**
 * An arrows figure laid out and linked as the view does it, `ARROWS_WIDTH`
 * wide: { layout, links, focus, row, theme, measure } for paintArrows, on a
 * canvas or an SvgContext (figure.js arrowsSvgOf).
 */
function arrowsDrawing(figure, { theme, wasm }) {
  const measure = newCanvas(1, 1).getContext('2d');
  const n = figure.cols;
  const widest = arrowLabelWidth(measure, figure.colLabels, theme);
  const geometry = new wasm.ArrowGeometry(n, ARROWS_WIDTH, widest, theme.fontSize, 900);
  try {
    const { focus, share } = figure.arrows;
    const { row, links } = arrowLinks(geometry, { n, weights: figure.weights, scaleMax: figure.scaleMax, row: focus === null ? null : figure.weights }, focus, share);
    return { layout: arrowLayout(geometry), links, focus, row, theme, measure };
  } finally {
    geometry.free();
  }
}

/** An arrows figure drawn like the page draws it, titled and captioned (framedPicture). */
export function arrowsPictureOf(figure, ctx) {
  const { layout, links, focus, row, theme } = arrowsDrawing(figure, ctx);
  return framedPicture(figure, theme, layout, (draw) => paintArrows(draw, layout, figure.colLabels, links, focus, row, theme));
}

/**
 * The figure drawn like the page draws it, titled and captioned, at twice the
 * screen's resolution (at least): the heatmap, and over it the focus (if any)
 * on a layer of its own, as on screen (the overlay's painter clears its area).
 */
export function pictureOf(figure, ctx) {
  const { theme, wasm } = ctx;
  const labels = [...figure.rowLabels, ...figure.colLabels];
  const widest = labelWidth(newCanvas(1, 1).getContext('2d'), labels, theme);
  const geometry = new wasm.HeatmapGeometry(figure.rows, figure.cols, 760, widest, theme.fontSize);
  const layout = heatmapLayout(geometry);
  geometry.free();
  return framedPicture(figure, theme, layout, (draw) => {
    paintHeatmap(draw, {
      ...figure, n: figure.rows, labels: figure.rowLabels, layout, theme,
      cells: cellsOf(wasm, figure, figure.palette), table: colormap(wasm, figure.palette), bar: colorbarOf(wasm, figure.palette), ticks: Array.from(wasm.ticks(figure.scaleMax, 4)),
      hatch: draw.createPattern(hatchOf(theme), 'repeat') ?? theme.hatch, masked: figure.masked ?? new Uint8Array(figure.rows * figure.cols),
    });
    if (!figure.focus) return;
    const overlay = newCanvas(1, 1);
    paintFocus(scaledContext(overlay, layout.width, layout.height), figure, layout, theme);
    draw.drawImage(overlay, 0, 0, layout.width, layout.height);
  });
}

/** A 2D context on `canvas`, sized `width` × `height` CSS pixels at pictureRatio() pixels each. */
function scaledContext(canvas, width, height) {
  const ratio = pictureRatio();
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const draw = canvas.getContext('2d');
  draw.scale(ratio, ratio);
  return draw;
}

/**
 * A canvas of `figure`'s title and caption over what `paint(draw)` draws
 * in `layout`'s width and height, at pictureRatio() pixels a CSS pixel,
 * on the theme's background.
 */
function framedPicture(figure, theme, layout, paint) {
  const measure = newCanvas(1, 1).getContext('2d');
  const pad = 16;
  const width = Math.max(MIN_FIGURE_WIDTH, Math.ceil(layout.width) + pad * 2);
  // The title (two lines at most) and the caption, wrapped to the picture's width.
  const fits = (style) => (line) => {
    measure.font = style;
    return measure.measureText(line).width <= width - pad * 2;
  };
  const [titleFont, captionFont] = [font(theme, { size: 15, weight: 'bold' }), font(theme, { size: 11 })];
  const title = wrapLines(figure.title, fits(titleFont), TITLE_LINES);
  const caption = wrapLines(pictureCaption(figure), fits(captionFont));
  const head = 20 * title.length + 2 + 15 * caption.length + 19;
  const height = Math.ceil(layout.height) + pad * 2 + head;
  const canvas = newCanvas(1, 1);
  const draw = scaledContext(canvas, width, height);
  draw.textBaseline = 'top';
  draw.fillStyle = theme.fg;
  draw.font = titleFont;
  title.forEach((line, k) => draw.fillText(line, pad, pad + 20 * k));
  draw.fillStyle = theme.muted;
  draw.font = captionFont;
  caption.forEach((line, k) => draw.fillText(line, pad, pad + 20 * title.length + 2 + 15 * k));
  draw.translate(pad, pad + head);
  paint(draw);
  // The background goes under everything last: the painters clear their
  // area first (on screen they draw over an empty canvas), which left the
  // picture's matrix transparent, its labels unreadable on a dark slide.
  draw.setTransform(1, 0, 0, 1, 0, 0);
  draw.globalCompositeOperation = 'destination-over';
  draw.fillStyle = theme.bg;
  draw.fillRect(0, 0, canvas.width, canvas.height);
  return canvas;
}
