// The trained-model view's part of the share format (www/js/state.js reads
// and writes it; pure functions, no DOM):
//
//   #s=…&focus=7&model=1&mlayer=5&mhead=11&units=pieces&special=1&mfocus=8&mq=8&mk=2
//
// - model: 1 = the trained-model view is open. Absent or 0 = closed (anything
//   else too, noted), and then no other key below is read or written
//   (parseHash leaves `state.model` out).
// - mlayer, mhead: the open head, 0-based (default layer 5, head 11: on the
//   cat sentence, the head with the largest 'it' → 'cat' weight; it sends most
//   words there, see the page's measured description). Values beyond
//   MiniLM's 6 layers and 12 heads fall back to the default (noted); the view
//   checks again against the size of the model it loads.
// - units: 'pieces' (WordPiece pieces, default) or 'words' (whole words).
// - special: 1 = show [CLS] and [SEP] (default), 0 = hide them.
// - mfocus: 0-based index of the focused token in the model's token list (of
//   the current units and special setting), when it was chosen in the model
//   view. Absent = follow the GloVe focus (`focus`).
// - mq, mk: head search: every head ranked by the weight from token `mq` (the
//   query) to token `mk` (the key), 0-based indices into the model's token
//   list like `mfocus`. Absent = no search; one without the other is
//   dropped (noted).
// - mrank: rank every head by a behaviour measured on the sentence instead:
//   `previous`, `next`, `self`, `special` ([CLS]/[SEP]), `same-word` (other
//   occurrences of the same word) or `focus` (one token the others look at).
//   The page writes either mrank or mq and mk; a link with both ranks by mrank.
// - mcell: the key whose dot product the open head's step panel lists term by
//   term, as a 0-based *piece* index with [CLS] = 0 (the panel computes over
//   pieces whatever the units). Absent = the focused query's strongest key.
// - mflow: the "across layers" section is open, showing `rollout` (attention
//   rollout) or `average` (each layer's heads averaged). Absent = closed.
//
// ('head' and 'hide' are the teaching views' keys, hence the prefixed names.)
// Keys are never renamed once links are shared; unknown keys are ignored. A
// bad value falls back to its default and is noted (params.js), so that the
// page can say which settings it did not understand; a token index past the
// end of the sentence is only known once the model has tokenized it, and the
// view drops it then, saying so (views/model/view.js).

import { flag, index, oneOf } from './params.js';

export const DEFAULT_LAYER = 5;
export const DEFAULT_HEAD = 11;
/** all-MiniLM-L6-v2's size: a link's layer and head are checked against it (the view checks again against the model it loads). */
export const MODEL_LAYERS = 6;
export const MODEL_HEADS = 12;
/** What `mrank` may name, in the order the page offers them. */
export const BEHAVIOURS = ['previous', 'next', 'self', 'special', 'same-word', 'focus'];
/** What `mflow` may name. */
export const FLOWS = ['rollout', 'average'];
const UNITS = ['pieces', 'words'];

/** The model part of a state when the view opens. */
export function defaultModel() {
  return {
    layer: DEFAULT_LAYER, head: DEFAULT_HEAD, units: 'pieces', special: true, focus: null,
    query: null, key: null, rank: null, cell: null, flow: null,
  };
}

const TOKEN = 'a token index';

/**
 * Reads the model keys of a LinkParams (params.js), noting each bad value
 * there; `null` when the view is closed (`model` absent or 0).
 */
export function parseModel(params) {
  if (!params.read('model', flag, '0 or 1')) return null;
  const model = defaultModel();
  model.layer = params.read('mlayer', index(MODEL_LAYERS - 1), `a layer from 0 to ${MODEL_LAYERS - 1}`) ?? model.layer;
  model.head = params.read('mhead', index(MODEL_HEADS - 1), `a head from 0 to ${MODEL_HEADS - 1}`) ?? model.head;
  model.units = params.read('units', oneOf(UNITS), UNITS.join(' or ')) ?? model.units;
  model.special = params.read('special', flag, '0 or 1') ?? model.special;
  model.focus = params.read('mfocus', index(), TOKEN);
  model.query = params.read('mq', index(), TOKEN);
  model.key = params.read('mk', index(), TOKEN);
  halfSearch(params, model);
  model.rank = params.read('mrank', oneOf(BEHAVIOURS), BEHAVIOURS.join(', '));
  model.cell = params.read('mcell', index(), 'a piece index');
  model.flow = params.read('mflow', oneOf(FLOWS), FLOWS.join(' or '));
  return model;
}

/**
 * A query without its key, or a key without its query, is no search: it is
 * dropped and noted like a bad value, rather than kept in the link unused.
 */
function halfSearch(params, model) {
  if ((model.query === null) === (model.key === null)) return;
  const [key, other] = model.query === null ? ['mk', 'mq'] : ['mq', 'mk'];
  params.problems.push({ key, value: params.get(key), expected: `${other} with it: a head search needs a query and a key` });
  model.query = null;
  model.key = null;
}

const isIndex = (value) => Number.isInteger(value) && value >= 0;

/** The hash parts (`key=value`) of a model state; none when it is closed. */
export function formatModel(model) {
  if (!model) return [];
  const parts = ['model=1', `mlayer=${model.layer}`, `mhead=${model.head}`, `units=${model.units}`, `special=${model.special ? 1 : 0}`];
  if (isIndex(model.focus)) parts.push(`mfocus=${model.focus}`);
  if (isIndex(model.query)) parts.push(`mq=${model.query}`);
  if (isIndex(model.key)) parts.push(`mk=${model.key}`);
  if (BEHAVIOURS.includes(model.rank)) parts.push(`mrank=${model.rank}`);
  if (isIndex(model.cell)) parts.push(`mcell=${model.cell}`);
  if (FLOWS.includes(model.flow)) parts.push(`mflow=${model.flow}`);
  return parts;
}

const same = (a, b) => (a ?? null) === (b ?? null);

export function sameModel(a, b) {
  if (!a || !b) return !a && !b;
  return a.layer === b.layer && a.head === b.head && a.units === b.units && a.special === b.special &&
    same(a.focus, b.focus) && same(a.query, b.query) && same(a.key, b.key) && same(a.rank, b.rank) &&
    same(a.cell, b.cell) && same(a.flow, b.flow);
}
