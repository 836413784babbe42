// The parameters of a link, read key by key: every parser of the share
// format (state.js, teach-state.js, model-state.js) reads through this, so a
// key that is present but bad falls back to its default *and* is noted, and
// the page (or a widget) can say which settings it did not understand.

import { escapeHidden, excerpt, isolate, wellFormed } from './text.js';

/** The characters of a link's value that its note shows, then '…'. */
const SHOWN_VALUE = 40;

export class LinkParams {
  /** `text`: a URL hash or query (with or without its leading '#' or '?'). */
  constructor(text) {
    try {
      this.params = new URLSearchParams(wellFormed(text).replace(/^[#?]/, ''));
    } catch {
      this.params = new URLSearchParams();
    }
    // Bytes that are not UTF-8 (%ED%A0%80, a character cut in half) decode
    // to U+FFFD; one written as such in the link is its own.
    this.replaced = !/\uFFFD|%EF%BF%BD/i.test(text);
    this.problems = []; // { key, value, expected }
    this.asked = new Set(); // the keys the parsers asked for
  }

  /**
   * Notes what the parsers could not see (once they have read the link): a
   * key given twice (the first is used), and a key that is one of theirs
   * written with capitals ('S=': keys are lower case). Other keys are left
   * alone: a newer page's keys, or another tool's.
   */
  noteUnread() {
    for (const key of new Set(this.params.keys())) {
      const values = this.params.getAll(key);
      if (this.asked.has(key) && values.length > 1) {
        this.problems.push({ key, value: excerpt(values[1], SHOWN_VALUE), expected: `${key} once: the first, ${excerpt(values[0], SHOWN_VALUE)}, is used` });
      } else if (!this.asked.has(key) && this.asked.has(key.toLowerCase())) {
        this.problems.push({ key, value: excerpt(values[0], SHOWN_VALUE), expected: `${key.toLowerCase()}: keys are written in lower case` });
      }
    }
  }

  /** Whether `key`'s value holds U+FFFD that stands for bytes of the link that are not UTF-8. */
  notText(key) {
    return this.replaced && Boolean(this.params.get(key)?.includes('\uFFFD'));
  }

  has(key) {
    this.asked.add(key);
    return this.params.has(key);
  }

  /** The raw text of `key`, or null. */
  get(key) {
    this.asked.add(key);
    return this.params.get(key);
  }

  /** `parse(text)` of `key`, or null when absent; a present value that `parse` refuses (null) is noted with `expected`. */
  read(key, parse, expected) {
    const text = this.get(key);
    if (text === null) return null;
    const value = parse(text);
    if (value === null || value === undefined) {
      this.problems.push({ key, value: excerpt(text, SHOWN_VALUE), expected });
      return null;
    }
    return value;
  }
}

// Parsers for `read`, shared by the three parsers of the share format: each
// gives the value of a text, or null for one it refuses.

/** A 0-based index of at most six digits, up to `max`. */
export const index = (max = 999999) => (text) => (/^\d{1,6}$/.test(text) && Number(text) <= max ? Number(text) : null);

/** One of `list`, as written. */
export const oneOf = (list) => (text) => (list.includes(text) ? text : null);

/** On or off: 1 or 0 (true or false too). */
export function flag(text) {
  if (text === '1' || text === 'true') return true;
  return text === '0' || text === 'false' ? false : null;
}

/**
 * A value of a link as the note shows it after its key: at most
 * SHOWN_VALUE characters (a view's own check may pass a whole list: a
 * 10,000-head `hide`), its hidden characters escaped (`escapeHidden`) and
 * the rest isolated (`isolate`), so that neither an override nor a
 * right-to-left word in the link can turn the note around. Plain ASCII is
 * left as it is: after `key=`, not even a leading digit (focus=99) can join
 * another word's run.
 */
function shownValue(value) {
  const shown = escapeHidden(excerpt(value, SHOWN_VALUE));
  return /^[\x20-\x7E]*$/.test(shown) ? shown : isolate(shown);
}

/** A short sentence for the page about the settings a link got wrong, or ''. */
export function describeProblems(problems) {
  if (!problems.length) return '';
  const list = problems.slice(0, 4).map((p) => `${p.key}=${shownValue(p.value)} (expected ${p.expected})`).join('; ');
  return `Some settings of the link could not be used as written: ${list}${problems.length > 4 ? '; …' : ''}.`;
}

/**
 * A view's check of the link's values against its first computed result:
 * later changes (a shorter sentence typed) are the user's, not the link's.
 * Returns `check(problems)`, which notes them the first time of each round
 * of the link note (`ctx.linkRound`: a new address, or the file a link
 * names picked, judges the link again).
 */
export function linkCheck(ctx) {
  let round = null;
  return (problems) => {
    if (round === (ctx.linkRound ?? 0)) return;
    round = ctx.linkRound ?? 0;
    ctx.noteLink?.(problems);
  };
}

/** The problem of a row or column index `index` of the lab's link (`key`) past `count`, or null. */
export function indexProblem(key, index, count, what) {
  return index !== null && index >= count ? { key, value: String(index), expected: `a ${what} from 0 to ${count - 1}` } : null;
}
