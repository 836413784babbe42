// The DOM of the trained-model view, built once when it first opens: the
// head and loading lines, the controls and the open head's measured
// description, the grid of heads beside the comparison, the head search, the
// open head's heatmap and arrows, its step panel beside its queries and keys,
// its weights table, and the section across layers. Every element that the
// other modules of this view use is returned by name; the search, the step
// panel, the projection and the rollout fill their own boxes.

import { el, scrolling } from '../../dom.js';
import { siteFile } from '../../site.js';

export const MODEL_NAME = 'all-MiniLM-L6-v2';

export function buildSkeleton(root) {
  const dom = {};
  const head = el('div', null, 'model-head');
  dom.close = el('button', 'Close', 'small');
  dom.close.type = 'button';
  head.append(el('h2', `A trained transformer: ${MODEL_NAME}`), dom.close);
  dom.intro = el('p', 'The same sentence through MiniLM (6 layers × 12 heads, trained on a billion sentence pairs), computed on this page. Each head has learned its own query and key projections, so it can look at words for other reasons than similarity. What this view says about a head is measured on the sentence on screen: change the sentence and it may say something else. The model reads the sentence as WordPiece pieces (“tokenization” is token + ##ization) between two tokens of its own, [CLS] at the start and [SEP] at the end; many heads send most of their attention there when they have nothing to do, so a large weight on [CLS] or [SEP] is mostly parked attention, not meaning.', 'model-intro');
  loading(dom);
  const body = el('div', null, 'model-body');
  // Token indices of the link that the sentence turned out not to have (view.js dropPastEnd).
  dom.dropped = el('p', '', 'note model-dropped');
  dom.dropped.id = 'model-dropped';
  dom.dropped.hidden = true;
  dom.headAbout = el('p', '', 'model-head-about');
  dom.headAbout.id = 'model-head-about';
  dom.summary = el('p', '', 'model-summary');
  dom.summary.id = 'model-summary';
  dom.search = el('section', null, 'model-search');
  dom.search.id = 'model-search';
  dom.search.setAttribute('aria-label', 'Find heads');
  dom.flow = el('section', null, 'model-flow-section');
  dom.flow.setAttribute('aria-label', 'Across layers');
  body.append(controls(dom), dom.dropped, dom.headAbout, dom.summary, top(dom), dom.search, views(dom), inside(dom), tableSection(dom), dom.flow);
  const footer = el('p', null, 'model-footer');
  footer.append('Model: all-MiniLM-L6-v2 (Apache-2.0; ', Object.assign(el('a', 'model card'), { href: siteFile('model/MODEL-CARD.md').href }), '), weights stored as 16-bit floats, kept by your browser after the first visit. Nothing is sent anywhere.');
  dom.body = body;
  root.replaceChildren(head, dom.intro, dom.loading, dom.error, dom.retry, body, footer);
  return dom;
}

function loading(dom) {
  dom.loading = el('div', null, 'model-loading');
  dom.progress = el('progress');
  dom.progress.max = 1;
  dom.progress.value = 0;
  dom.progress.setAttribute('aria-label', 'Model download');
  dom.status = el('span', 'Starting…', 'model-status');
  // Said apart, once typing pauses (view.js): the line itself changed twice at every key.
  dom.statusSaid = Object.assign(el('span', '', 'visually-hidden'), { id: 'model-status-said' });
  dom.statusSaid.setAttribute('role', 'status');
  dom.loading.append(dom.progress, dom.status, dom.statusSaid);
  dom.error = el('p', null, 'error model-error');
  dom.error.setAttribute('role', 'alert');
  dom.error.hidden = true;
  dom.retry = el('button', 'Try again', 'small');
  dom.retry.type = 'button';
  dom.retry.hidden = true;
}

function controls(dom) {
  const bar = el('div', null, 'controls compact model-controls');
  const units = el('fieldset', null, 'model-units');
  units.append(el('legend', 'Tokens'));
  dom.units = {};
  for (const [value, text] of [['pieces', 'Word pieces'], ['words', 'Whole words']]) {
    const label = el('label');
    const input = el('input');
    input.type = 'radio';
    input.name = 'model-units';
    input.value = value;
    dom.units[value] = input;
    label.append(input, ` ${text}`);
    units.append(label);
  }
  const special = el('label');
  dom.special = el('input');
  dom.special.type = 'checkbox';
  dom.special.id = 'model-special';
  special.append(dom.special, ' Show [CLS] and [SEP]');
  dom.headName = el('span', '', 'model-head-name');
  bar.append(units, special, dom.headName);
  return bar;
}

function top(dom) {
  const box = el('div', null, 'model-top');
  const gridFigure = el('figure', null, 'view model-grid-figure');
  gridFigure.append(el('figcaption', 'Every head: a row per layer (0 is the first), a column per head. Each thumbnail is that head’s heatmap; click one to open it below.'));
  dom.grid = el('div', null, 'model-grid');
  dom.grid.id = 'model-grid';
  dom.grid.setAttribute('role', 'group');
  dom.grid.setAttribute('aria-label', 'Attention heads by layer and head');
  gridFigure.append(dom.grid);
  const compareFigure = el('figure', null, 'view model-compare-figure');
  compareFigure.append(el('figcaption', 'The focused word, side by side: where it looks with the page’s raw word vectors (GloVe, or your own file), and in the open head of the trained model.'));
  dom.compare = el('div', null, 'model-compare');
  dom.compare.id = 'model-compare';
  compareFigure.append(dom.compare);
  box.append(gridFigure, compareFigure);
  return box;
}

function views(dom) {
  const box = el('div', null, 'views model-views');
  const heat = el('figure', null, 'view');
  dom.heatCaption = el('figcaption', 'Heatmap of the open head: each row is a query token, each column a key token. Click a row or a cell to focus that query.');
  dom.heatBox = el('div', null, 'canvas-stack');
  dom.heatmap = Object.assign(el('canvas'), { id: 'model-heatmap' });
  dom.heatmap.setAttribute('aria-hidden', 'true');
  dom.overlay = Object.assign(el('canvas', null, 'overlay'), { id: 'model-heatmap-overlay', tabIndex: 0 });
  dom.overlay.setAttribute('role', 'img');
  dom.overlay.setAttribute('aria-label', 'Heatmap of the open head');
  dom.tooltip = Object.assign(el('div', null, 'tooltip'), { id: 'model-tooltip', hidden: true });
  dom.tooltip.setAttribute('role', 'tooltip');
  dom.heatBox.append(dom.heatmap, dom.overlay, dom.tooltip);
  dom.announce = Object.assign(el('p', '', 'visually-hidden'), { id: 'model-announce' });
  dom.announce.setAttribute('aria-live', 'polite');
  heat.append(dom.heatCaption, dom.heatBox, dom.announce);
  const arrows = el('figure', null, 'view');
  arrows.append(el('figcaption', 'Arrows of the open head: curves from the focused query to every key, thicker and darker for larger weights.'));
  const threshold = el('label', null, 'threshold');
  dom.threshold = Object.assign(el('input'), { type: 'range', id: 'model-threshold', min: '0', max: '0.9', step: '0.01', value: '0.1' });
  dom.thresholdValue = el('output', '10 %');
  threshold.append('Hide links weaker than ', dom.threshold, ' ', dom.thresholdValue, ' of the strongest');
  dom.arrowsBox = el('div', null, 'canvas-box');
  dom.arrows = Object.assign(el('canvas'), { id: 'model-arrows' });
  dom.arrows.setAttribute('aria-hidden', 'true');
  dom.arrowsBox.append(dom.arrows);
  arrows.append(threshold, dom.arrowsBox);
  box.append(heat, arrows);
  return box;
}

function inside(dom) {
  const box = el('div', null, 'model-inside');
  box.id = 'model-inside';
  dom.inside = el('div', null, 'model-inside-steps');
  dom.projection = el('div', null, 'model-inside-projection');
  box.append(dom.inside, dom.projection);
  return box;
}

function tableSection(dom) {
  const section = el('section', null, 'weights-section model-weights-section');
  dom.tableTitle = el('h3', 'Weights of the open head');
  dom.tableNote = el('p', null, 'note');
  dom.table = el('table', null, 'weights-table');
  dom.table.id = 'model-weights';
  section.append(dom.tableTitle, dom.tableNote, scrolling(dom.table, 'table-scroll', 'Weights of the open head, scrollable'));
  return section;
}
