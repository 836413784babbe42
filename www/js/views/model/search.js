// Head search: every head ranked by the weight from one token to another
// ("which heads send 'it' to 'cat'?"), or by a behaviour measured on the
// sentence (previous token, next token, itself, [CLS]/[SEP], the same word
// elsewhere, one token everyone looks at). The ranking is the worker's
// (`searchHeads`, `rankHeads` of the model's wasm: the function that orders
// `attention heads` in the CLI). The list shows every head best first, with
// its thumbnail and its description measured on this sentence; the grid
// marks the best few. The query and key live in the link (`mq`, `mk`), the
// behaviour too (`mrank`): see model-state.js. A search that cannot run
// clears the list, the grid's marks and those keys, so that no earlier
// ranking passes for it.

import { attr, el } from '../../dom.js';
import { gloveToken } from './focus.js';
import { markRanked, paintThumb, thumbSize } from './grid.js';
import { firstPiece } from '../../model-spans.js';
import { isolate, quoted, weight } from '../../text.js';

/** Heads marked on the grid. */
const MARKED = 5;

/** The behaviours offered, as the buttons say them (model-state.js BEHAVIOURS). */
const BEHAVIOUR_NAMES = {
  previous: 'previous token',
  next: 'next token',
  self: 'itself',
  special: '[CLS]/[SEP]',
  'same-word': 'same word elsewhere',
  focus: 'one token for all',
};

/** What a ranking by each behaviour is by, as the status and the grid say it ("All 72 heads by …"). */
const RANKED_BY = {
  previous: 'attention to the previous token',
  next: 'attention to the next token',
  self: 'each token’s attention to itself',
  special: 'attention to [CLS] and [SEP]',
  'same-word': 'attention to the same word elsewhere',
  focus: 'attention to one token that the others all look at',
};

/**
 * The words of a run as a reader types them: in the piece view a word is a
 * piece and the `##` pieces after it; each with the index of its first token.
 */
function wordsOf(run, sentence) {
  const words = [];
  run.tokens.forEach((t, i) => {
    if (t.special) return;
    const last = words[words.length - 1];
    if (!run.words && t.text.startsWith('##') && last) last.end = t.end;
    else words.push({ index: i, start: t.start, end: t.end });
  });
  return words.map((w) => ({ index: w.index, text: sentence.slice(w.start, w.end).toLowerCase() }));
}

/**
 * The token index that `text` names in `run`, as `attention heads` reads
 * --from/--to: a word (case-insensitive, first occurrence; `it#2` for the
 * second) or a piece as the tokenizer writes it (`##s`, `[CLS]`); a word of
 * several pieces stands for its first piece. { index } or { error }.
 */
export function resolveToken(run, sentence, text) {
  const typed = text.trim();
  if (!typed) return { error: 'Type a word of the sentence.' };
  // 'is#2', 'is #2', 'is#0002': the second 'is'.
  const match = /^(.+?)\s*#(\d+)$/.exec(typed);
  const word = (match ? match[1] : typed).toLowerCase();
  const nth = match ? Number(match[2]) : 1;
  if (nth < 1) return { error: `Occurrences count from 1 (${word}#1 is the first).` };
  const words = wordsOf(run, sentence);
  let found = words.filter((w) => w.text === word).map((w) => w.index);
  if (!found.length) found = run.labels.flatMap((label, i) => (label.toLowerCase() === word ? [i] : []));
  if (!found.length) {
    const list = [...new Set(words.map((w) => w.text))].map(isolate).join(', ');
    return { error: `${quoted(typed)} is not in the sentence; its words are: ${list}.` };
  }
  if (nth > found.length) return { error: `${quoted(word)} occurs ${found.length} time${found.length === 1 ? '' : 's'} in the sentence.` };
  return { index: found[nth - 1] };
}

/**
 * For the first piece of a word of several, with pieces shown: what the
 * search ranks by, as `attention heads` says it ('' for any other token).
 */
function firstPieceNote(run, sentence, index) {
  if (run.words) return '';
  let last = index;
  while (run.tokens[last + 1]?.text.startsWith('##')) last++;
  if (last === index) return '';
  const word = sentence.slice(run.tokens[index].start, run.tokens[last].end);
  return `${quoted(word)} is ${last - index + 1} pieces: the search uses its first, ${quoted(run.labels[index])} (choose whole words to rank by the word).`;
}

/** How token `index` is typed back: its label, with `#k` when the label repeats. */
export function tokenText(run, index) {
  const label = run.labels[index];
  const same = run.labels.filter((l, i) => i <= index && l.toLowerCase() === label.toLowerCase()).length;
  const total = run.labels.filter((l) => l.toLowerCase() === label.toLowerCase()).length;
  return total > 1 ? `${label}#${same}` : label;
}

export class SearchView {
  /** box: the section to fill; view: the model view (state, run, glove, focus(), change(), client, colours); grid */
  constructor(box, { view, grid }) {
    this.box = box;
    this.view = view;
    this.grid = grid;
    this.asked = null; // key of the ranking asked for
    this.synced = null; // the (run, query, key) the inputs show
    this.build();
    this.wire();
  }

  build() {
    const { box } = this;
    box.append(el('h3', 'Find heads'));
    this.form = el('form', null, 'model-search-form');
    this.form.setAttribute('aria-label', 'Rank every head by the weight from a query word to a key word');
    this.query = field('model-search-query', 'Query word');
    this.key = field('model-search-key', 'Key word');
    this.words = el('datalist');
    this.words.id = 'model-search-words';
    const submit = el('button', 'Rank heads', 'small');
    submit.type = 'submit';
    this.form.append(this.query.label, el('span', '→', 'model-search-arrow'), this.key.label, submit, this.words);
    this.fromCell = button('model-search-cell');
    this.fromGlove = button('model-search-glove');
    const shortcuts = el('p', null, 'model-search-shortcuts');
    shortcuts.append(this.fromCell, ' ', this.fromGlove);
    this.behaviours = el('div', null, 'model-behaviours');
    this.behaviours.setAttribute('role', 'group');
    this.behaviours.setAttribute('aria-label', 'Or rank every head by what it does on this sentence');
    this.behaviours.append(el('span', 'Or rank by attention to: ', 'model-behaviours-label'));
    this.behaviourButtons = {};
    for (const [name, text] of Object.entries(BEHAVIOUR_NAMES)) {
      const toggle = button(`model-rank-${name}`, text);
      toggle.dataset.rank = name;
      toggle.setAttribute('aria-pressed', 'false');
      this.behaviourButtons[name] = toggle;
      this.behaviours.append(toggle, ' ');
    }
    this.why = el('span', '', 'model-behaviours-why');
    this.why.id = 'model-rank-why';
    this.behaviours.append(this.why);
    this.status = el('p', '', 'model-search-status');
    this.status.id = 'model-search-status';
    this.status.setAttribute('role', 'status');
    this.list = el('ol', null, 'model-ranking');
    this.list.id = 'model-ranking';
    this.list.setAttribute('aria-label', 'Heads ranked, best first');
    const scroll = el('div', null, 'model-ranking-scroll');
    scroll.append(this.list);
    box.append(this.form, shortcuts, this.behaviours, this.status, scroll);
  }

  wire() {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.searchTyped();
    });
    for (const shortcut of [this.fromCell, this.fromGlove]) {
      shortcut.addEventListener('click', () => shortcut.pair && this.search(...shortcut.pair));
    }
    this.behaviours.addEventListener('click', (event) => {
      const toggle = event.target.closest('button[data-rank]');
      if (!toggle || toggle.disabled) return;
      const { model } = this.view.state;
      this.view.change({ model: { ...model, rank: model.rank === toggle.dataset.rank ? null : toggle.dataset.rank } });
    });
    this.list.addEventListener('click', (event) => {
      const item = event.target.closest('button.model-hit');
      if (item) this.view.openHead(Number(item.dataset.layer), Number(item.dataset.head));
    });
    this.list.addEventListener('keydown', (event) => this.move(event));
  }

  /** Arrow keys, Home and End move between the ranked heads (one Tab stop for the list). */
  move(event) {
    const items = [...this.list.querySelectorAll('button.model-hit')];
    const at = items.indexOf(event.target.closest('button.model-hit'));
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
    if (at < 0 || to === undefined) return;
    event.preventDefault();
    const next = items[Math.max(0, Math.min(items.length - 1, to))];
    items[at].tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }

  searchTyped() {
    const { run, state } = this.view;
    if (!run) return;
    const query = resolveToken(run, state.sentence, this.query.field.value);
    const key = resolveToken(run, state.sentence, this.key.field.value);
    const problems = [query.error && `Query: ${query.error}`, key.error && `Key: ${key.error}`].filter(Boolean);
    if (problems.length) this.refuse(problems.join(' '));
    else this.search(query.index, key.index);
  }

  /**
   * A search that could not run: says why, and drops the previous ranking
   * from the list, the grid and the link, where it would pass for this one.
   * The inputs keep what was typed, to be corrected.
   */
  refuse(text, how = 'push') {
    const { run, state } = this.view;
    this.say(text, true);
    if (run) this.synced = `${run.id}:null:null`;
    this.view.change({ model: { ...state.model, query: null, key: null, rank: null } }, how);
  }

  search(query, key) {
    const { model } = this.view.state;
    this.synced = null;
    this.status.dataset.problem = '0';
    this.view.change({ model: { ...model, query, key, rank: null } });
  }

  say(text, problem = false) {
    this.status.textContent = text;
    this.status.classList.toggle('error', problem);
    this.status.dataset.problem = problem ? '1' : '0';
  }

  /** Follows the state and the run: the inputs, the shortcuts, the behaviours, and the ranking to ask for. */
  update() {
    const { run, state } = this.view;
    if (!run) return;
    const { query, key, rank } = state.model;
    this.syncInputs(run, query, key);
    this.syncShortcuts();
    const applies = run.behaviours?.sameWordApplies ?? true;
    for (const [name, toggle] of Object.entries(this.behaviourButtons)) {
      attr(toggle, 'aria-pressed', rank === name ? 'true' : 'false');
      toggle.disabled = name === 'same-word' && !applies;
    }
    this.why.textContent = applies ? '' : '(same word elsewhere: no word repeats in this sentence)';
    attr(this.behaviourButtons['same-word'], 'aria-describedby', applies ? null : 'model-rank-why');
    this.request(run, query, key, rank, applies);
    this.markOpen();
  }

  syncInputs(run, query, key) {
    if (this.words.dataset.run !== String(run.id)) {
      const words = [...new Set(run.labels.filter((l, i) => !run.tokens[i].special))];
      this.words.replaceChildren(...words.map((w) => Object.assign(el('option'), { value: w })));
      this.words.dataset.run = String(run.id);
    }
    const wanted = `${run.id}:${query}:${key}`;
    if (this.synced === wanted) return;
    this.synced = wanted;
    this.query.field.value = query !== null && query < run.n ? tokenText(run, query) : '';
    this.key.field.value = key !== null && key < run.n ? tokenText(run, key) : '';
  }

  /** The two shortcuts: the clicked cell of the open head, and the GloVe focus. */
  syncShortcuts() {
    const { run, state, glove } = this.view;
    const focus = this.view.focus();
    const cellToken = state.model.cell === null ? undefined : run.tokenOfPiece[state.model.cell];
    const pair = (p) => `'${isolate(run.labels[p[0]])}' → '${isolate(run.labels[p[1]])}'`;
    this.fromCell.pair = focus !== null && cellToken !== undefined ? [focus, cellToken] : null;
    this.fromCell.textContent = this.fromCell.pair ? `Use the clicked cell: ${pair(this.fromCell.pair)}` : 'Use the clicked cell (click a cell of the heatmap first)';
    this.fromCell.disabled = !this.fromCell.pair;
    this.fromGlove.pair = glovePair(state, glove, run);
    this.fromGlove.textContent = this.fromGlove.pair ? `From the GloVe focus: ${pair(this.fromGlove.pair)}` : 'From the GloVe focus (focus a word above first)';
    this.fromGlove.disabled = !this.fromGlove.pair;
  }

  /** Asks the worker for the ranking the state names, once per run; says why when there is none. */
  request(run, query, key, rank, applies) {
    let fields = null;
    if (rank && (rank !== 'same-word' || applies)) {
      fields = ['rank', { run: run.requestId, pattern: rank }];
    } else if (rank) {
      this.say("No word repeats in this sentence, so 'same word elsewhere' ranks nothing. Pick another behaviour, or type a sentence with a repeated word.", true);
    } else if (query !== null && key !== null) {
      const outside = [query, key].find((i) => i >= run.n);
      if (outside !== undefined) this.say(`Token ${outside} is not in this sentence: it has ${run.n} tokens (0 to ${run.n - 1}). Type a query and a key word.`, true);
      else fields = ['search', { run: run.requestId, query, key }];
    } else if (this.status.dataset.problem !== '1') {
      this.say('Type a query word and a key word (or click a cell of the heatmap, then use it), or rank by a behaviour.');
    }
    const wanted = fields ? JSON.stringify([run.id, ...fields]) : null;
    if (wanted === this.asked) return;
    this.asked = wanted;
    if (!fields) {
      this.view.client.forget('ranking');
      this.show(null);
      return;
    }
    this.say('Ranking…');
    this.view.client.ask(...fields);
  }

  /** A ranking from the worker (the latest asked for). */
  receive(message) {
    const { run } = this.view;
    if (!run) return;
    if (!message.applies) {
      this.say('This behaviour does not apply to this sentence.', true);
      this.show(null);
      return;
    }
    // Typed back as the fields take them: 'it#2' → 'it#1', not 'it' → 'it'.
    const what = message.pattern
      ? RANKED_BY[message.pattern]
      : `the weight '${isolate(tokenText(run, message.query))}' → '${isolate(tokenText(run, message.key))}'`;
    const notes = message.pattern ? [] : [message.query, message.key].map((i) => firstPieceNote(run, this.view.state.sentence, i));
    this.say([`All ${message.values.length} heads by ${what}, best first; the grid marks the best ${MARKED}.`, ...new Set(notes)].filter(Boolean).join(' '));
    this.show({ ...message, what });
  }

  /** Lists every head of `ranking` best first (null: none), and marks the best on the grid. */
  show(ranking) {
    markRanked(this.grid, ranking, MARKED, ranking?.what);
    this.list.dataset.count = String(ranking ? ranking.values.length : 0);
    this.list.dataset.by = ranking ? ranking.pattern ?? 'search' : '';
    if (!ranking) {
      this.list.replaceChildren();
      return;
    }
    const { run } = this.view;
    const size = thumbSize(run);
    const items = [];
    for (let r = 0; r < ranking.values.length; r++) {
      const [layer, head, value] = [ranking.layers[r], ranking.heads[r], ranking.values[r]];
      const k = layer * run.heads + head;
      const about = run.behaviours?.heads[k]?.description ?? '';
      const hit = el('button', null, 'model-hit');
      hit.type = 'button';
      hit.tabIndex = r === 0 ? 0 : -1;
      Object.assign(hit.dataset, { layer: String(layer), head: String(head), value: String(value) });
      // The name says what the button shows, in its order (a speech user says "click L5 H11"), then in words.
      hit.setAttribute('aria-label', `${r + 1} L${layer} H${head} ${weight(value)} ${about} (layer ${layer}, head ${head})`);
      const canvas = Object.assign(el('canvas'), { width: size, height: size });
      paintThumb(canvas.getContext('2d'), run, k, this.view.colours);
      // Spaces between the parts: a text read from the button (axe's, a speech tool's) keeps its words apart.
      hit.append(el('span', `${r + 1}`, 'model-hit-rank'), ' ', canvas, el('span', `L${layer} H${head}`, 'model-hit-name'), ' ',
        el('span', weight(value), 'model-hit-value'), ' ', el('span', about, 'model-hit-about'));
      const item = el('li');
      item.append(hit);
      items.push(item);
    }
    this.list.replaceChildren(...items);
    this.markOpen();
  }

  /** Marks the open head in the list. */
  markOpen() {
    const { layer, head } = this.view.state.model;
    for (const hit of this.list.querySelectorAll('button.model-hit')) {
      attr(hit, 'aria-current', hit.dataset.layer === String(layer) && hit.dataset.head === String(head) ? 'true' : null);
    }
  }

  fail(message) {
    this.show(null);
    this.refuse(`The heads could not be ranked: ${message.message}`, 'replace');
  }
}

function field(id, text) {
  const input = el('input');
  Object.assign(input, { id, type: 'text', autocomplete: 'off', spellcheck: false, size: 10 });
  input.setAttribute('list', 'model-search-words');
  const label = el('label', null, 'model-search-field');
  label.append(el('span', text), ' ', input);
  return { label, field: input };
}

function button(id, text = '') {
  const node = el('button', text, 'small');
  node.type = 'button';
  node.id = id;
  return node;
}

/** The GloVe focus as a (query, key) pair of model tokens: its clicked cell, else its strongest other word. */
function glovePair(state, glove, run) {
  const query = gloveToken(glove, state.focus);
  if (!query || !glove?.weights) return null;
  const n = glove.n;
  let keyRow = state.cell !== null && state.cell < n ? state.cell : null;
  if (keyRow === null) {
    const row = glove.weights.subarray(state.focus * n, (state.focus + 1) * n);
    for (let j = 0; j < n; j++) if (j !== state.focus && (keyRow === null || row[j] > row[keyRow])) keyRow = j;
  }
  const key = gloveToken(glove, keyRow);
  const plain = run.tokens.map((t) => (t.special ? { start: 0, end: 0 } : t));
  const q = firstPiece(query, plain);
  const k = key ? firstPiece(key, plain) : null;
  return q !== null && k !== null ? [q, k] : null;
}
