// Focus across the two tokenizations. The GloVe view's focus is a row of its
// known tokens, with UTF-16 spans; the model's tokens carry UTF-8 byte spans,
// converted to UTF-16 (model-spans.js) and matched by overlap. A focus chosen
// in the model view is kept in `state.model.focus` (it may be a piece or
// [CLS], which GloVe lacks) and moves the GloVe focus to the overlapping word.
// Pure functions of the state, the GloVe analysis and the model's run.

import { bestMatch, firstPiece } from '../../model-spans.js';

/** The GloVe token of row `row`, with its UTF-16 span, or null. */
export function gloveToken(glove, row) {
  if (!glove?.tokens || row === null || row === undefined) return null;
  return glove.tokens.find((t) => t.known && t.row === row) ?? null;
}

/** The GloVe row of model token `index`, or null. */
export function gloveRowOf(glove, run, index) {
  const token = run?.tokens[index];
  if (!glove?.tokens || !token || token.special) return null;
  const known = glove.tokens.filter((t) => t.known);
  const k = bestMatch(token, known);
  return k === null ? null : known[k].row;
}

/** The model token in focus: the view's own choice when it agrees with the GloVe focus, else the GloVe focus's first piece. */
export function modelFocus(state, glove, run) {
  if (!run || !state.model) return null;
  const own = state.model.focus;
  const gloveFocus = gloveToken(glove, state.focus);
  const valid = own !== null && own < run.n;
  if (!gloveFocus) return valid && (state.focus === null || gloveRowOf(glove, run, own) === null) ? own : null;
  if (valid && gloveRowOf(glove, run, own) === state.focus) return own;
  return firstPiece(gloveFocus, run.tokens.map((t) => (t.special ? { start: 0, end: 0 } : t)));
}
