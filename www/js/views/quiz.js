// Predict, then reveal: a quiz in a link. A teacher picks up to ten words of
// the sentence on screen (in the attention of the page's word vectors, or in
// the trained model's open head) and shares the link; a student opens it
// with every weight hidden, guesses for each word which word it attends to
// most, and only then sees the answer, the row of weights and why. The
// answers are computed on the student's page from the same numbers; the
// score stays on their device (and is forgotten when the vectors change).

import { copyText, el, keepingFocus, put } from '../dom.js';
import { formatHash, MAX_QUESTIONS } from '../state.js';
import { num, repeatsOf } from '../teach-steps.js';
import { counted, quoted, scoring, weight } from '../text.js';

export function mountQuiz(ctx) {
  const panel = document.getElementById('quiz');
  return panel ? new QuizView(ctx, panel) : { update() {} };
}

/** The question `index` of `quiz` with what is needed to answer it, or { pending } or { invalid }. */
function question(quiz, index, { analysis, model }) {
  const row = quiz.rows[index];
  if (quiz.source === 'model') {
    if (!model) return { pending: 'the trained model is loading…' };
    if (model.absent) return { invalid: `layer ${quiz.layer}, head ${quiz.head} is not a head of the trained model` };
    if (model.problem) return { invalid: `the trained model could not run (${model.problem.replace(/\.$/, '')})` };
    if (row >= model.rows) return { invalid: `token ${row} does not exist: the model sees ${counted(model.rows, 'token')} here` };
    return { row, word: model.rowLabels[row], keys: model.colLabels, weights: model.weights.subarray(row * model.cols, (row + 1) * model.cols), where: model.caption, why: model.description };
  }
  if (!analysis || analysis.pending) return { pending: 'the word vectors are loading…' };
  if (analysis.error || row >= analysis.n) return { invalid: `row ${row} does not exist: the sentence has ${counted(analysis.n || 0, 'known word')}` };
  const { n, labels, weights, masked } = analysis;
  const keep = [...Array(n).keys()].filter((j) => !masked[row * n + j]);
  // The first word with the causal mask and no attention to itself: nothing to choose from.
  if (!keep.length) return { invalid: `every key of ${quoted(labels[row])} is masked (the causal mask, and no attention to itself): it attends to no word` };
  const where = `${vectorsName(analysis.engine, analysis.dim)}, raw vectors as queries and keys`;
  return { row, word: labels[row], keys: labels, keep, weights: weights.subarray(row * n, (row + 1) * n), steps: () => analysis.steps(row), scoring: scoring(analysis.state), where };
}

/** The word vectors `engine` computes with, in words: the user's own file, or GloVe. */
function vectorsName(engine, dim = engine?.explorer?.dim ?? 50) {
  const source = engine?.source;
  return source ? `your own vectors (${source.name}, ${dim}d)` : `GloVe 6B ${dim}d`;
}

/** Which vectors a quiz's answers come from, as kept beside its guesses: the user's file (name and size) or GloVe. */
function vectorsKey(engine) {
  const source = engine?.source;
  return source ? `file:${source.name}:${source.words}:${source.dim}` : 'glove';
}

// A student's guesses stay in this tab's session storage (never in the link,
// never sent anywhere), so that a reload keeps the score. Storage that is
// blocked (a widget on a site that forbids it) only costs that.
const KEPT = 'attention-explorer:quiz:';

/**
 * The guesses kept for quiz `key`: { guesses: Map(question → guessed key),
 * vectors: the vectorsKey they were made on (null if not known), engine:
 * the engine they were made on in this page (null until seen) }.
 */
function kept(key) {
  const entry = { guesses: new Map(), vectors: null, engine: null };
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEPT + key) ?? '[]');
    // An array: guesses kept before the vectors were kept beside them.
    const pairs = Array.isArray(saved) ? saved : saved?.pairs;
    if (Array.isArray(pairs)) entry.guesses = new Map(pairs.filter((p) => Array.isArray(p) && p.length === 2 && p.every(Number.isInteger)));
    if (typeof saved?.vectors === 'string') entry.vectors = saved.vectors;
  } catch {
    // Unreadable: no guesses.
  }
  return entry;
}

function keep(key, entry) {
  try {
    sessionStorage.setItem(KEPT + key, JSON.stringify({ vectors: entry.vectors, pairs: [...entry.guesses] }));
  } catch {
    // Blocked or full: the guesses last as long as the page.
  }
}

class QuizView {
  constructor(ctx, panel) {
    this.ctx = ctx;
    this.store = ctx.store;
    this.panel = panel;
    this.guesses = new Map(); // quiz key → kept(): the guesses and the vectors they were made on
    this.cleared = null; // { key, text }: why the guesses of quiz `key` were just forgotten
    this.current = 0;
    this.builder = new QuizBuilder(ctx, document.getElementById('quiz-builder'));
  }

  key(state) {
    return formatHash({ ...state, focus: null, cell: null });
  }

  /**
   * The model's open head as a figure (views/model/head.js registers it),
   * when it is the quiz's head; { absent } when the model has no such head
   * (its view opened its default head instead); else null (still loading).
   */
  modelFigure(quiz, state) {
    const entry = this.ctx.figures.get('model-head');
    const problem = entry?.problem?.();
    if (problem) return { problem };
    const figure = entry?.figure();
    if (!figure) return null;
    if (figure.layer === quiz.layer && figure.head === quiz.head) return figure;
    const { model } = state;
    return model && (model.layer !== quiz.layer || model.head !== quiz.head) ? { absent: true } : null;
  }

  update(state, analysis) {
    this.builder.update(state, analysis);
    const { quiz } = state;
    put(document.body.dataset, 'quiz', quiz ? 'on' : 'off');
    put(this.panel, 'hidden', !quiz);
    if (!quiz) return;
    const key = this.key(state);
    const entry = this.guesses.get(key) ?? kept(key);
    this.guesses.set(key, entry);
    if (quiz.source !== 'model' && analysis?.engine && !analysis.pending) this.checkVectors(key, entry, analysis.engine);
    const { guesses } = entry;
    if (this.cleared && (this.cleared.key !== key || guesses.size)) this.cleared = null;
    const sources = { analysis, model: quiz.source === 'model' ? this.modelFigure(quiz, state) : null };
    const questions = quiz.rows.map((_, i) => question(quiz, i, sources));
    this.current = Math.min(this.current, quiz.rows.length - 1);
    // Made with a file of vectors not picked here: GloVe may not know the same words, and a row may be another word.
    const file = quiz.source !== 'model' && state.vectors && analysis?.engine && analysis.engine.source?.name !== state.vectors ? state.vectors : null;
    this.draw(quiz, questions, guesses, file);
  }

  /**
   * Forgets the guesses of quiz `key` made on other vectors than `engine`'s
   * (a file picked, or another file of the same name): the same question may
   * have another answer now, and an old guess would be marked by it.
   */
  checkVectors(key, entry, engine) {
    const vectors = vectorsKey(engine);
    const other = entry.engine ? entry.engine !== engine : entry.vectors !== null && entry.vectors !== vectors;
    entry.engine = engine;
    entry.vectors = vectors;
    if (!other || !entry.guesses.size) return;
    entry.guesses.clear();
    keep(key, entry);
    this.current = 0;
    this.cleared = { key, text: `Your guesses were cleared: the quiz now runs on ${vectorsName(engine)}, and its answers may differ from those of the vectors you guessed with.` };
  }

  draw(quiz, questions, guesses, file = null) {
    const valid = questions.filter((q) => !q.invalid && !q.pending).length;
    const notes = questions.map((q, i) => (q.invalid ? `Question ${i + 1}: ${q.invalid}, so it is left out.` : null)).filter(Boolean);
    const right = [...guesses].filter(([i, j]) => questions[i] && isRight(questions[i], j)).length;
    const head = el('div', null, 'quiz-head');
    head.append(el('h2', 'Quiz: where does each word look?'), el('span', `${guesses.size} of ${valid} answered · ${right} right`, 'quiz-score'));
    const made = file && `This quiz was made with the word vectors of the file ${quoted(file)}. Until that file is picked (“Use your own vectors”), it runs on GloVe, which may not know the same words: a question may then be about another word than the one chosen.`;
    const note = (text, id) => Object.assign(el('p', text, 'note'), { id });
    const nodes = [head, ...(this.cleared ? [note(this.cleared.text, 'quiz-cleared')] : []), ...(made ? [note(made, 'quiz-file')] : []), ...notes.map((n) => el('p', n, 'note'))];
    const q = questions[this.current];
    if (q?.pending) nodes.push(el('p', `Getting the question ready: ${q.pending}`, 'hint'));
    else if (q && !q.invalid) nodes.push(this.questionNode(q, guesses));
    nodes.push(this.navigation(quiz, questions, guesses));
    // The panel is drawn anew: a guess or a step gives the keyboard focus to
    // the question's heading (a screen reader says the answer or the next
    // question), another button to its new self.
    const id = this.panel.contains(document.activeElement) ? document.activeElement.id : '';
    const moved = !id || ['quiz-next', 'quiz-previous', 'quiz-again'].includes(id);
    keepingFocus(this.panel, () => this.panel.replaceChildren(...nodes), () => {
      const same = moved ? null : document.getElementById(id);
      return same ?? this.panel.querySelector('.quiz-question h3') ?? this.panel.querySelector('.quiz-nav button:not(:disabled)');
    });
    this.panel.dataset.answered = String(guesses.size);
  }

  /** One question: the guess buttons, or after a guess, the answer, the weights and why. */
  questionNode(q, guesses) {
    const box = el('section', null, 'quiz-question');
    const title = el('h3');
    title.tabIndex = -1; // the keyboard focus comes here after a guess or a step (draw)
    title.append(`Question ${this.current + 1}: which word does `, el('q', q.word), ' attend to most?');
    box.append(title, el('p', q.where, 'note'));
    const guess = guesses.get(this.current);
    const entry = this.guesses.get(this.key(this.store.get()));
    if (guess === undefined) {
      const choices = el('div', null, 'quiz-choices');
      choices.setAttribute('role', 'group');
      choices.setAttribute('aria-label', 'Your guess');
      for (const j of q.keep ?? q.keys.keys()) {
        const button = el('button', q.keys[j], 'token');
        button.type = 'button';
        button.dataset.key = String(j);
        button.addEventListener('click', () => {
          guesses.set(this.current, j);
          keep(this.key(this.store.get()), entry);
          this.ctx.refresh();
        });
        choices.append(button);
      }
      box.append(choices);
      return box;
    }
    box.append(reveal(q, guess));
    return box;
  }

  navigation(quiz, questions, guesses) {
    const nav = el('div', null, 'quiz-nav');
    const go = (index) => {
      this.current = index;
      this.ctx.refresh();
    };
    const previous = el('button', 'Previous', 'small');
    previous.type = 'button';
    previous.id = 'quiz-previous';
    previous.disabled = this.current === 0;
    previous.addEventListener('click', () => go(this.current - 1));
    const next = el('button', 'Next question', 'small');
    next.type = 'button';
    next.id = 'quiz-next';
    next.disabled = this.current >= quiz.rows.length - 1;
    next.addEventListener('click', () => go(this.current + 1));
    const all = el('button', 'See everything', 'small');
    all.type = 'button';
    all.id = 'quiz-end';
    all.title = 'Leave the quiz: the heatmap, the arrows and every number';
    all.addEventListener('click', () => {
      this.store.update({ quiz: null }, 'push');
      // The quiz hides with the focused button in it: the focus goes to the heatmap it revealed.
      document.getElementById('heatmap-overlay')?.focus({ preventScroll: true });
    });
    nav.append(previous, next, all);
    if (guesses.size) {
      const again = el('button', 'Start over', 'small');
      again.type = 'button';
      again.id = 'quiz-again';
      again.title = 'Forget every guess of this quiz, on this device';
      again.addEventListener('click', () => {
        guesses.clear();
        keep(this.key(this.store.get()), this.guesses.get(this.key(this.store.get())));
        go(0);
      });
      nav.append(again);
    }
    return nav;
  }
}

/** Whether key `j` is an answer: the largest weight of the row (a tie counts). */
function isRight(q, j) {
  if (q.invalid || q.pending) return false;
  return q.weights[j] >= Math.max(...(q.keep ?? q.keys.keys()).map((k) => q.weights[k])) - 1e-7;
}

/** The answer, right or not, the row's strongest weights, and why. */
function reveal(q, guess) {
  const box = el('div', null, 'quiz-reveal');
  const order = [...(q.keep ?? q.keys.keys())].sort((a, b) => q.weights[b] - q.weights[a]);
  const best = order[0];
  const right = isRight(q, guess);
  // Each word isolated (`quoted`): a right-to-left one would take the weight after it into its run.
  const [chosen, most] = [quoted(q.keys[guess]), quoted(q.keys[best])];
  box.append(el('p', right ? `Right: ${chosen} (${weight(q.weights[guess])}).` : `Not quite: you chose ${chosen} (${weight(q.weights[guess])}); the most is ${most} (${weight(q.weights[best])}).`, right ? 'quiz-right' : 'quiz-wrong'));
  const list = el('ol', null, 'compare-list');
  for (const j of order.slice(0, 6)) {
    const item = el('li', null, j === guess ? 'self' : '');
    const bar = el('span', null, 'bar');
    bar.style.width = `${((q.weights[j] / q.weights[best]) * 100).toFixed(1)}%`;
    const cell = el('span', null, 'bar-cell');
    cell.append(bar);
    item.append(el('span', q.keys[j], 'compare-key'), cell, el('span', weight(q.weights[j]), 'compare-value'));
    list.append(item);
  }
  box.append(list, el('p', why(q, guess, best), 'quiz-why'));
  return box;
}

/** Why the answer wins, from the numbers: the dot products (GloVe) or the head's measured behaviour (model). */
function why(q, guess, best) {
  if (!q.steps) return q.why ? `What this head does on this sentence: ${q.why}.` : 'The weights are the softmax of this head’s scaled q·k scores.';
  const steps = q.steps();
  const how = q.scoring;
  const dot = (j) => `q·k = ${num(steps.dots[j])}${how === 'not scaled' ? ' (not scaled)' : `, ${how} ${num(steps.scaled[j])}`}`;
  const compare = guess === best ? '' : ` For ${quoted(q.keys[guess])}: ${dot(guess)}.`;
  return `The softmax gives the most weight to the largest ${how === 'scaled' ? 'scaled ' : ''}score: for ${quoted(q.keys[best])}, ${dot(best)}.${compare} Raw vectors score high on words that are alike (and on the word itself), not on grammar.`;
}

/** Making a quiz from what is on screen: pick the words, copy the link. */
class QuizBuilder {
  constructor(ctx, box) {
    this.ctx = ctx;
    this.box = box;
    this.picked = new Set();
    this.key = null;
    if (!box) return;
    this.source = el('select');
    this.source.id = 'quiz-source';
    this.source.setAttribute('aria-label', 'Ask about');
    this.words = el('div', null, 'quiz-words');
    this.words.setAttribute('role', 'group');
    this.words.setAttribute('aria-label', 'The words to ask about');
    this.copy = el('button', 'Copy the quiz link', 'small');
    this.copy.type = 'button';
    this.copy.id = 'quiz-copy';
    this.link = el('textarea');
    this.link.id = 'quiz-link';
    this.link.readOnly = true;
    this.link.rows = 2;
    this.link.setAttribute('aria-label', 'Quiz link');
    this.copy.addEventListener('click', async () => {
      this.link.value = this.linkOf();
      const ok = await copyText(this.link.value);
      this.copy.textContent = ok ? 'Quiz link copied' : 'Copy the link below';
    });
    this.source.addEventListener('change', () => {
      this.picked.clear();
      this.key = null;
      this.ctx.refresh();
    });
    box.append(el('h3', 'Make a quiz'), el('p', `Pick up to ${MAX_QUESTIONS} words: whoever opens the link guesses where each looks before seeing any weight.`, 'note'), this.source, this.words, this.copy, this.link);
  }

  linkOf() {
    const state = this.ctx.store.get();
    const rows = [...this.picked].sort((a, b) => a - b).slice(0, MAX_QUESTIONS);
    const model = this.source.value === 'model' ? this.ctx.figures.get('model-head')?.figure() : null;
    const quiz = model ? { source: 'model', layer: model.layer, head: model.head, rows } : { source: 'glove', rows };
    // Nothing that points at an answer: the focus, a clicked cell, the model's head search and step-panel key.
    const open = state.model && { ...state.model, focus: null, cell: null, query: null, key: null };
    return new URL('index.html', location.href).href + formatHash({ ...state, model: open, quiz: rows.length ? quiz : null, focus: null, cell: null });
  }

  update(state, analysis) {
    // Closed (in the Share panel), it does no work: a long text would make a checkbox per token.
    if (!this.box || this.box.closest('[hidden]')) return;
    const entry = state.model ? this.ctx.figures.get('model-head') : null;
    const model = entry?.figure() ?? null;
    // A new sentence (or the model's run of it) on its way: the words picked were the last one's.
    if (analysis.pending || (this.source.value === 'model' && entry && !model && !entry.problem?.())) {
      this.wait();
      return;
    }
    // 'glove' (g. in the link) is the attention of the page's word vectors: GloVe's or the user's own.
    const source = this.ctx.engine?.source;
    const options = [['glove', source ? `the attention of your own vectors (${source.name})` : 'the GloVe attention'], ...(model ? [['model', `the model’s layer ${model.layer}, head ${model.head}`]] : [])];
    const wanted = options.some(([v]) => v === this.source.value) ? this.source.value : 'glove';
    const texts = [...this.source.options].map((o) => o.textContent);
    if (texts.join('\u0000') !== options.map(([, text]) => text).join('\u0000')) this.source.replaceChildren(...options.map(([value, text]) => Object.assign(el('option', text), { value })));
    this.source.value = wanted;
    const labels = wanted === 'model' ? model.rowLabels : analysis.labels ?? [];
    const key = `${wanted}\u0000${labels.join('\u0001')}`;
    if (key === this.key) return;
    this.key = key;
    this.picked.clear();
    // A word the text holds twice is named with its place, as the chips name it.
    const repeated = repeatsOf(labels);
    this.words.replaceChildren(...labels.map((_, i) => {
      const box = Object.assign(el('input'), { type: 'checkbox', value: String(i) });
      box.addEventListener('change', () => {
        if (box.checked && this.picked.size >= MAX_QUESTIONS) box.checked = false;
        else if (box.checked) this.picked.add(i);
        else this.picked.delete(i);
        put(this.copy, 'disabled', this.picked.size === 0);
      });
      const label = el('label', null, 'quiz-word');
      label.append(box, ` ${labels[i]}`);
      if (repeated.has(labels[i])) box.setAttribute('aria-label', `${labels[i]} (word ${i + 1})`);
      return label;
    }));
    put(this.copy, 'disabled', true);
  }

  /** No word to pick until the new sentence is computed: a link copied meanwhile would ask about another word. */
  wait() {
    if (this.key === null) return;
    this.key = null;
    this.picked.clear();
    this.words.replaceChildren(el('p', 'The words come once the new sentence is computed.', 'hint'));
    put(this.copy, 'disabled', true);
  }
}
