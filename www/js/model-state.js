// The trained-model view's part of the share format (www/js/state.js reads
// and writes it; pure functions, no DOM):
//
//   #s=…&focus=7&model=1&mlayer=5&mhead=11&units=pieces&special=1&mfocus=8
//
// - model: 1 = the trained-model view is open. Absent or anything else = closed,
//   and then no other key below is written (parseHash leaves `state.model` out).
// - mlayer, mhead: the open head, 0-based (default layer 5, head 11: the head
//   that sends 'it' to 'cat'). Values the model does not have fall back to the
//   default once the model's size is known.
// - units: 'pieces' (WordPiece pieces, default) or 'words' (whole words).
// - special: 1 = show [CLS] and [SEP] (default), 0 = hide them.
// - mfocus: 0-based index of the focused token in the model's token list (of
//   the current units and special setting), when it was chosen in the model
//   view. Absent = follow the GloVe focus (`focus`).
//
// ('head' and 'hide' are the teaching views' keys, hence the prefixed names.)
// Keys are never renamed once links are shared; unknown keys are ignored and
// a bad value falls back to its default.

export const DEFAULT_LAYER = 5;
export const DEFAULT_HEAD = 11;

/** The model part of a state when the view opens. */
export function defaultModel() {
  return { layer: DEFAULT_LAYER, head: DEFAULT_HEAD, units: 'pieces', special: true, focus: null };
}

function index(params, key, fallback) {
  const value = params.get(key);
  return value !== null && /^\d{1,6}$/.test(value) ? Number(value) : fallback;
}

/** Reads the model keys of URLSearchParams; `null` when the view is closed. */
export function parseModel(params) {
  if (params.get('model') !== '1') return null;
  const model = defaultModel();
  model.layer = index(params, 'mlayer', model.layer);
  model.head = index(params, 'mhead', model.head);
  const units = params.get('units');
  if (units === 'words' || units === 'pieces') model.units = units;
  const special = params.get('special');
  if (special === '0' || special === '1') model.special = special === '1';
  model.focus = index(params, 'mfocus', null);
  return model;
}

/** The hash parts (`key=value`) of a model state; none when it is closed. */
export function formatModel(model) {
  if (!model) return [];
  const parts = ['model=1', `mlayer=${model.layer}`, `mhead=${model.head}`, `units=${model.units}`, `special=${model.special ? 1 : 0}`];
  if (Number.isInteger(model.focus) && model.focus >= 0) parts.push(`mfocus=${model.focus}`);
  return parts;
}

export function sameModel(a, b) {
  if (!a || !b) return !a && !b;
  return a.layer === b.layer && a.head === b.head && a.units === b.units && a.special === b.special &&
    (a.focus ?? null) === (b.focus ?? null);
}
