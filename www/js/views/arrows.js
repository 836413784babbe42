// The arrows view: query tokens on the left, keys on the right, a curve from
// the focused query to every key (from every query when nothing is focused),
// thicker for larger weights; links weaker than a share of the strongest
// (state.threshold, in the link) are hidden. Downloaded as drawn (figure.js
// asArrows), as PNG, SVG, CSV or JSON.

import { attr, put } from '../dom.js';
import { analysisFigure, asArrows } from '../figure.js';
import { arrowLabelWidth, arrowLayout, paintFocusArrows, sizeCanvas, wireArrowClicks } from '../heatmap-view.js';

export function mountArrows(ctx) {
  const { store } = ctx;
  const box = document.getElementById('arrows-box');
  const canvas = document.getElementById('arrows');
  const slider = document.getElementById('threshold');
  const shown = document.getElementById('threshold-value');
  const above = slider?.closest('.threshold'); // the slider's line, above the curves
  if (!box || !canvas) return { update() {} };
  const views = box.closest('.views') ?? box; // what a fixed-size iframe's height is given to
  let analysis = null;
  let geometry = null;
  let layout = null;
  let laidOut = null; // { analysis, width, theme }
  let state = null;
  let drawn = null; // { focus, threshold } painted last, with laidOut
  // Far from the screen (below the fold while typing at the top of the
  // page, say), the arrows wait: their curves cost 5–10 ms to rasterize.
  const lazy = ctx.drawWhenNear(canvas, () => draw());

  // Waiting, its geometry is the last text's: no click lands.
  wireArrowClicks(canvas, () => (lazy.stale ? null : geometry), (row) => ctx.focusFromView({ focus: row, cell: null }, 'push'));
  slider?.addEventListener('input', () => store.update({ threshold: Number(slider.value) }, 'push', 'threshold'));
  ctx.observe(box, () => draw());
  if (ctx.embed) {
    ctx.observe(views, () => draw());
    if (above) ctx.observe(above, () => draw());
  }
  // The figure of the analysis and settings drawn (state), not of a change still on its way.
  const focusOf = () => (state && analysis && state.focus !== null && state.focus < analysis.n ? state.focus : null);
  ctx.figures.set('arrows', {
    name: () => (focusOf() === null ? 'the arrows (every word)' : `the arrows from “${analysis.labels[focusOf()]}”`),
    visible: () => Boolean(analysis && state) && ctx.shows('arrows', store.get()),
    figure: () => (analysis && state ? asArrows(analysisFigure(analysis, store.get().palette), state.focus, state.threshold) : null),
  });

  function draw() {
    if (!analysis || !state) return;
    const width = Math.max(200, ctx.widthOf(box) || box.clientWidth);
    // In a fixed-size iframe, the views' height less the slider's line above the curves.
    const left = document.documentElement.dataset.fit ? ctx.heightOf(views) - (above ? ctx.heightOf(above) : 0) : 0;
    const fresh = laidOut?.analysis === analysis && laidOut.width === width && laidOut.theme === ctx.theme && laidOut.left === left;
    // A render that changes none of what it shows (a shard of another word arriving) leaves it.
    if (fresh && !lazy.stale && drawn?.focus === state.focus && drawn.threshold === state.threshold) return;
    // Far from the screen it is laid out (its size, so that painting it as it
    // comes near moves nothing below it), not painted.
    const waits = lazy.waits();
    if (!fresh) {
      laidOut = { analysis, width, theme: ctx.theme, left };
      geometry?.free();
      const measure = canvas.getContext('2d');
      const widest = arrowLabelWidth(measure, analysis.labels, ctx.theme);
      // As tall as the heatmap beside it, at least 480 px; in a fixed-size iframe, what is left.
      const maxHeight = left > 0 ? Math.max(160, left - 12) : Math.max(480, Math.min(width * 1.2, 900));
      // The analysis's own module: a file's vectors read on a module lent by another widget stay on it.
      geometry = new analysis.wasm.ArrowGeometry(analysis.n, width, widest, ctx.theme.fontSize, maxHeight);
      layout = arrowLayout(geometry);
      sizeCanvas(canvas, layout.width, layout.height);
    }
    if (waits) {
      put(shown, 'textContent', percent(state.threshold));
      return;
    }
    drawn = { focus: state.focus, threshold: state.threshold };
    const view = { n: analysis.n, weights: analysis.weights, labels: analysis.labels, scaleMax: analysis.scaleMax, arrows: layout, source: analysis.data.source };
    paintFocusArrows(canvas, geometry, view, state.focus, state.threshold, ctx.theme, shown);
    lazy.drawn();
  }

  return {
    focusFirst: true, // a click on a curve's end is drawn in the click's frame (page.js)
    visible: (state) => ctx.shows('arrows', state),
    update(next, nextAnalysis) {
      // The slider follows the state (a link, Back) even while the analysis is on its way.
      if (slider && Math.abs(Number(slider.value) - next.threshold) > 1e-9) slider.value = String(next.threshold);
      // A screen reader says the share as the page shows it, not the slider's fraction ("0.1").
      attr(slider, 'aria-valuetext', `${percent(next.threshold)} of the strongest`);
      if (nextAnalysis.pending) return;
      state = next;
      if (nextAnalysis.error) {
        analysis = null;
        laidOut = null;
        drawn = null;
        Object.assign(canvas, { width: 0, height: 0 }).style.height = '0px';
        put(shown, 'textContent', percent(next.threshold));
        return;
      }
      analysis = nextAnalysis;
      draw();
    },
    relayout: () => draw(),
  };
}

/** A share of the strongest weight as the page shows it: "10 %". */
const percent = (share) => `${Math.round(share * 100)} %`;
