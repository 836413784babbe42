// The sentence box and the examples menu. Typing recomputes at most once per
// frame however fast the keys come, as one history entry per typing session.
// A text longer than MAX_SENTENCE_LENGTH is cut here, after its last whole
// word, and the note says so (the box has no maxlength, which would cut a
// paste silently, mid-word, before any script sees it).

import { copyText, el, put } from '../dom.js';
import { siteFile } from '../site.js';
import { MAX_SENTENCE_LENGTH } from '../state.js';
import { chunkEnd, cut, grouped, quoted, wholeChunks } from '../text.js';

const EXAMPLES_URL = siteFile('examples.txt');

export function mountSentence(ctx) {
  const { store } = ctx;
  const box = document.getElementById('sentence');
  const examples = document.getElementById('examples');
  const note = document.getElementById('sentence-note');
  if (!box) return { update() {} };
  // The sentence the note is about: undefined for no note, null while the cut sentence is on its way.
  let cutSentence;
  // The sentence and tokens of the last analysis drawn (not one waiting for vectors).
  let drawn = null;
  // `removed`: what a cut left out, which the note's button copies.
  const say = (text, sentence, removed = null) => {
    cutSentence = sentence;
    put(note, 'textContent', text);
    put(note, 'hidden', !text);
    if (removed !== null) note.append(' ', copyButton(removed));
  };
  let cutting = false; // while the box is cut to its limit (cutBox)
  // `whole`: the box's text, or the text a paste would have made (with the caret after it: `pasted`).
  const typed = (whole = box.value, caret = box.selectionEnd, pasted = false) => {
    let sentence = cut(whole, MAX_SENTENCE_LENGTH);
    if (whole.length > MAX_SENTENCE_LENGTH) {
      cutting = true; // the cut's own input event: this call draws it, with its note
      try {
        sentence = cutBox(box, whole, caret, pasted);
      } finally {
        cutting = false;
      }
      ctx.lastCut = { sentence, removed: whole.slice(sentence.length), max: null, said: true };
      say(cutMessage(sentence), sentence, ctx.lastCut.removed);
    }
    const { sentence: before, focus } = store.get();
    if (sentence !== before) store.update({ sentence, focus: keptFocus(drawn, focus, sentence), cell: null }, 'push', 'typing');
  };
  const holding = watchEdits(box, ctx, typed, () => cutting);
  cutPastes(box, ctx, typed);
  examples?.addEventListener('change', () => {
    if (examples.value) store.update({ sentence: examples.value, focus: null, cell: null }, 'push');
  });
  // The menu fills in after the first heatmap, never before it; a widget has none.
  (ctx.embed ? Promise.resolve([]) : ctx.firstHeatmap.then(loadExamples)).then((sentences) => {
    if (!examples || sentences.length === 0) return;
    const options = [el('option', 'Examples…')];
    options[0].value = '';
    for (const sentence of sentences) {
      const option = el('option', sentence);
      option.value = sentence;
      options.push(option);
    }
    examples.replaceChildren(...options);
    syncExample(store.get().sentence);
  });

  function syncExample(sentence) {
    if (!examples) return;
    const match = [...examples.options].find((o) => o.value === sentence);
    put(examples, 'value', match ? match.value : '');
  }

  return {
    update(state, analysis) {
      if (!analysis.pending && !analysis.error && analysis.state) drawn = { sentence: analysis.state.sentence, tokens: analysis.tokens };
      if (ctx.lastCut && !ctx.lastCut.said) {
        const { max, sentence, removed } = ctx.lastCut;
        ctx.lastCut.said = true;
        say(limitMessage(max, sentence, removed), null, removed);
      } else if (cutSentence === null) {
        cutSentence = state.sentence;
      } else if (cutSentence !== undefined && cutSentence !== state.sentence) {
        say('', undefined);
      }
      // The box keeps what is typed into it: it follows the state only when
      // they differ in substance, and never while typed text waits for its
      // frame (a shard arriving then would undo the keystrokes) or is being composed.
      if (!holding() && cut(box.value, MAX_SENTENCE_LENGTH) !== state.sentence) box.value = state.sentence;
      syncExample(state.sentence);
    },
  };
}

/**
 * Calls `typed()` for the box's edits. The first keystroke of a frame is
 * drawn at once, in its own event, so that its frame shows it; keys that come
 * before that frame is painted wait for it and are drawn together in it.
 * Text being composed with an input method (a dead key's '´' before 'é', a
 * Japanese word before its kanji are chosen) is not the text yet: it is drawn
 * once composed. `cutting()`: the box is being cut to its limit (its own input
 * event). Returns `holding()`: true while typed text waits for its frame or is
 * being composed, when a redraw must leave the box alone (setting its value
 * would undo the keys, or end the composition).
 */
function watchEdits(box, ctx, typed, cutting) {
  let frame = 0;
  let pending = false;
  let composing = false;
  const edited = () => {
    ctx.keystroke = performance.now();
    if (frame) {
      pending = true;
      return;
    }
    frame = requestAnimationFrame(() => {
      frame = 0;
      if (!pending) return;
      pending = false;
      typed();
    });
    typed();
  };
  box.addEventListener('compositionstart', () => {
    composing = true;
  });
  box.addEventListener('compositionend', () => {
    composing = false;
    edited();
  });
  box.addEventListener('input', (event) => {
    if (event.isComposing) return;
    // An edit outside a composition: none is going on (one that the page's
    // own cut of a paste ended, by setting the box, fired no compositionend).
    composing = false;
    if (!cutting()) edited();
  });
  ctx.inputPending = () => pending;
  return () => pending || composing;
}

/**
 * The focused row, if an edit to `next` leaves its token where it was in
 * `drawn` ({ sentence, tokens } of the analysis last drawn): that text is
 * unchanged up to the end of the token's chunk (the next whitespace, where
 * the tokenizer cuts), so that chunk and every one before it tokenize as
 * before, and the rows up to the focused one stay. Words added after it keep
 * the focus; an edit before it, or in its own chunk, clears it (null).
 */
function keptFocus(drawn, focus, next) {
  const token = focus === null ? null : drawn?.tokens.find((t) => t.row === focus);
  if (!token) return null;
  const end = chunkEnd(drawn.sentence, token.end);
  return next.startsWith(drawn.sentence.slice(0, end)) && chunkEnd(next, end) === end ? focus : null;
}

/**
 * A paste or a drop that would take `box` past its limit is cut before the
 * browser inserts it: inserting a 100,000-word paste (600 KB) cost the
 * browser 80 ms of layout, only for the box to keep its first 20,000
 * characters. `typed(whole, caret)` cuts and draws the text the insertion
 * would have made.
 */
function cutPastes(box, ctx, typed) {
  // Text inserted at [start, end) of the box: cut here if the box would go past its limit.
  const insert = (event, text, start, end) => {
    const { value } = box;
    if (value.length - (end - start) + text.length <= MAX_SENTENCE_LENGTH) return;
    event.preventDefault();
    // Drawn at once, whatever keys wait for the next frame: they are in the box already.
    ctx.keystroke = performance.now();
    typed(value.slice(0, start) + text + value.slice(end), start + text.length, true);
  };
  box.addEventListener('paste', (event) => {
    insert(event, event.clipboardData?.getData('text/plain') ?? '', box.selectionStart, box.selectionEnd);
  });
  // A drag inside the box moves its own text: the length stays.
  let moving = false;
  box.addEventListener('dragstart', () => { moving = true; });
  box.addEventListener('dragend', () => { moving = false; });
  box.addEventListener('drop', (event) => {
    const text = event.dataTransfer?.getData('text/plain') ?? '';
    if (moving || !text) return; // a file is the vectors' (source.js)
    // Where it is dropped, where the browser says; else at the end.
    const point = document.caretPositionFromPoint?.(event.clientX, event.clientY);
    const at = point?.offsetNode === box ? Math.min(point.offset, box.value.length) : box.value.length;
    insert(event, text, at, at);
  });
}

/**
 * Puts `whole` into `box` cut to at most MAX_SENTENCE_LENGTH UTF-16 units,
 * after its last whole word (text.js wholeChunks); the caret goes to `caret`
 * if that is kept, else to the end. Returns the text kept.
 */
function cutBox(box, whole, caret, pasted) {
  const sentence = wholeChunks(whole, MAX_SENTENCE_LENGTH);
  const at = Math.min(caret, sentence.length);
  // A paste (never inserted) goes in as an edit of the box, so that Ctrl+Z
  // brings back the text before it (a value set by script empties the undo
  // history). Text the browser inserted is replaced: undone, it would only
  // be cut again.
  if (pasted && document.activeElement === box) box.select();
  if (!pasted || document.activeElement !== box || !document.execCommand('insertText', false, sentence)) box.value = sentence;
  box.setSelectionRange(at, at);
  return sentence;
}

/**
 * What the note says of a text cut to `sentence` at the limit of `max` known
 * words, `removed` left out: where it stopped, how much is gone, and why.
 */
function limitMessage(max, sentence, removed) {
  const last = sentence.slice(-30).replace(/^\S*\s+/, '');
  const gone = removed.trim();
  return `The text was cut after its first ${grouped(max)} known words, after ${quoted(last)}: the ${grouped(gone.length)} characters after it (${Math.round((100 * removed.length) / (sentence.length + removed.length))} % of the text) are out of the box. ` +
    'Attention compares every word with every other, so its cost grows with the square of the length.';
}

/** A button that copies `text` (what a cut left out) to the clipboard. */
function copyButton(text) {
  const button = el('button', 'Copy the text left out', 'small');
  button.type = 'button';
  button.addEventListener('click', async () => {
    button.textContent = (await copyText(text.trim())) ? 'Copied' : 'The browser refused to copy';
  });
  return button;
}

/** What the note says of a text cut to `sentence`: how much is kept, and why, as for the limit of tokens (limitMessage). */
function cutMessage(sentence) {
  const words = sentence.match(/\S+/g)?.length ?? 0;
  const limit = `the box holds at most ${grouped(MAX_SENTENCE_LENGTH)} characters`;
  return words > 1
    ? `The text was cut after its first ${grouped(words)} words (${grouped(sentence.length)} characters): ${limit}.`
    : `The text was cut to its first ${grouped(sentence.length)} characters: ${limit}.`;
}

async function loadExamples() {
  try {
    const response = await fetch(EXAMPLES_URL);
    if (!response.ok) return [];
    return (await response.text()).split('\n').map((line) => line.trim()).filter(Boolean);
  } catch {
    return [];
  }
}
