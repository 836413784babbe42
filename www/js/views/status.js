// The status line under the options, the error box, and the message the
// views show when there is nothing to draw. The line shows every state
// (loading, computing, the result) but is not a live region: a screen
// reader hears the result alone (with the words left out, and why), once,
// through #status-said.

import { announcer, el, put } from '../dom.js';
import { describeProblems } from '../params.js';
import { formatTemperature } from '../state.js';
import { counted, grouped } from '../text.js';
import { noteOf, stillLoading } from './tokens.js';

export function mountStatus(ctx) {
  const status = document.getElementById('status');
  const say = announcer(ctx, document.getElementById('status-said'));
  const error = document.getElementById('error');
  const views = document.getElementById('views');
  const show = (text) => {
    put(error, 'textContent', text || '');
    put(error, 'hidden', !text);
  };
  const empty = (message) => {
    views?.classList.toggle('empty', Boolean(message));
    if (views && message) views.dataset.message = message;
  };
  put(status, 'textContent', 'Loading…');
  // What a link (or a widget's attributes) asked for that the page could not use.
  const linkNote = document.getElementById('link-note');
  const problems = (ctx.linkProblems ??= []);
  const writeNote = () => {
    const text = describeProblems(problems);
    put(linkNote, 'textContent', text);
    put(linkNote, 'hidden', !text);
  };
  /**
   * Adds what a view found unusable once the sentence was known (a tab's row
   * past its end: `found`, { key, value, expected } or null each), beside
   * what the link's parser found; a key already named is not named twice.
   * `anew`: an address read later (Back, an edit) replaces what was named
   * (`found` is then what its parser could not use). `again`: the link's
   * values are judged again (its file was picked: other vectors), so what the
   * views found goes, what the address itself could not use stays.
   */
  let parsed = [...problems]; // what the address's parser could not use
  /** Counts the judgments of the link: a view that checks the link once may check it again when this changes. */
  ctx.linkRound = 0;
  ctx.noteLink = (found, { anew = false, again = false } = {}) => {
    if (anew || again) ctx.linkRound += 1;
    if (anew) problems.length = 0;
    if (again) problems.splice(0, problems.length, ...parsed);
    const fresh = found.filter((p) => p && !problems.some((q) => q.key === p.key));
    problems.push(...fresh);
    if (anew) parsed = [...fresh];
    if (anew || again || fresh.length) writeNote();
  };
  writeNote();
  return {
    update(state, analysis) {
      if (!ctx.engine) return;
      // Busy: shown, not said; a result still waiting for typing to pause is dropped.
      if (analysis.computing) {
        say(null);
        put(status, 'textContent', `Computing the attention of ${grouped(analysis.computing.size)} tokens…`);
        return;
      }
      if (analysis.pending) {
        say(null);
        const words = new Set(analysis.tokens.filter((t) => loading(t, ctx.engine.vectors)).map((t) => t.text)).size;
        put(status, 'textContent', `Loading the vectors of ${counted(words, 'word')}…`);
        return;
      }
      show(analysis.error ?? '');
      if (analysis.error) {
        // The error box (role="alert") says it; the next result is said even if it is the last one again.
        say('');
        put(status, 'textContent', '');
        empty(`Nothing to draw: ${analysis.error}`);
        return;
      }
      empty(null);
      const { dim } = analysis;
      const counts = tokenCounts(analysis, ctx.engine.vectors);
      putParts(status, [...counts, `${state.scale ? `scores × 1/√${dim}` : 'unscaled scores'}${state.temperature !== 1 ? ` ÷ ${formatTemperature(state.temperature)}` : ''}`]);
      // The options are left out of what is said: the checkbox or slider that changed them says them.
      const note = noteOf(analysis, ctx.engine.vectors);
      say([`${counts.join(' · ')}.`, note.unknown, note.failure.trim()].filter(Boolean).join(' '));
    },
    failed(message) {
      say('');
      put(status, 'textContent', '');
      show(message);
      empty('Nothing to draw: the page could not load what it needs (see the message above).');
    },
  };
}

/** The tokens of an analysis, counted, and the dimension, as the status's parts: ["7 tokens in the attention, 1 left out", "d = 50"]. */
function tokenCounts(analysis, vectors) {
  const waiting = analysis.tokens.filter((t) => loading(t, vectors)).length;
  const left = analysis.tokens.filter((t) => !t.known).length - waiting;
  const more = [left && `${grouped(left)} left out`, waiting && `${grouped(waiting)} still loading`].filter(Boolean);
  return [`${counted(analysis.n, 'token')} in the attention${more.map((part) => `, ${part}`).join('')}`, `d = ${analysis.dim}`];
}

/** Whether token `t`'s vector is on its way. */
function loading(t, vectors) {
  return t.pending && stillLoading(t.text, vectors);
}

/**
 * Writes `parts` into `status` joined by ' · ', each after the first kept
 * on one line (style.css: a phone broke '1/√50' after its '/'); nothing is
 * written when the text is already there.
 */
function putParts(status, parts) {
  if (status.textContent === parts.join(' · ')) return;
  status.replaceChildren(...parts.flatMap((part, k) => [...(k ? [' · '] : []), el('span', part, 'status-part')]));
}
