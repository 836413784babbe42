// Zoom and pan of a square heatmap: which rows and columns are on screen.
// At 1,024 tokens a cell is half a pixel; zoomed to 24 tokens a side the
// labels are legible again. The window is plain numbers (`ZoomWindow`); the
// gestures (Ctrl/⌘ + wheel and trackpad pinch, two-finger pinch and pan, drag,
// + and − keys, buttons) only call its methods.

/** The fewest tokens a side the heatmap zooms in to. */
export const MIN_SPAN = 8;

export class ZoomWindow {
  constructor(n = 0) {
    this.reset(n);
  }

  /** The whole matrix of `n` tokens a side. */
  reset(n = this.n) {
    this.n = n;
    this.span = n;
    this.row0 = 0;
    this.col0 = 0;
  }

  get zoomed() {
    return this.span < this.n;
  }

  /** The window as the link writes it, { row, col, size }, or null for the whole matrix. */
  get link() {
    return this.zoomed ? { row: this.row0, col: this.col0, size: this.span } : null;
  }

  /** Shows what a link wrote (clamped to this matrix); returns whether anything changed. */
  setLink(link) {
    const before = [this.span, this.row0, this.col0].join();
    if (!link) {
      this.reset();
    } else {
      this.span = link.size;
      this.row0 = link.row;
      this.col0 = link.col;
      this.#clamp();
    }
    return before !== [this.span, this.row0, this.col0].join();
  }

  /** For the painters and the hit-testing: { row0, col0, rows, cols }, or null when the whole matrix shows. */
  get window() {
    return this.zoomed ? { row0: this.row0, col0: this.col0, rows: this.span, cols: this.span } : null;
  }

  #clamp() {
    this.span = Math.max(Math.min(MIN_SPAN, this.n), Math.min(this.n, Math.round(this.span)));
    this.row0 = Math.max(0, Math.min(this.n - this.span, Math.round(this.row0)));
    this.col0 = Math.max(0, Math.min(this.n - this.span, Math.round(this.col0)));
  }

  /** Zooms by `factor` (> 1 in), keeping matrix point (row, col) where it is on screen. Returns whether anything changed. */
  zoomAt(factor, row = this.row0 + this.span / 2, col = this.col0 + this.span / 2) {
    const before = [this.span, this.row0, this.col0].join();
    const span = this.span / factor;
    this.row0 = row - ((row - this.row0) * span) / this.span;
    this.col0 = col - ((col - this.col0) * span) / this.span;
    this.span = span;
    this.#clamp();
    return before !== [this.span, this.row0, this.col0].join();
  }

  /**
   * Zooms by `factor` around `cell` ({ row, col }: the focused query's, or the
   * keyboard cursor's), which stays where it is on screen and in view;
   * without one, around the window's centre.
   */
  zoomOn(factor, cell = null) {
    if (!cell) return this.zoomAt(factor);
    const changed = this.zoomAt(factor, cell.row + 0.5, cell.col + 0.5);
    return this.show(cell.row, cell.col) || changed;
  }

  /** Moves the window by whole rows and columns. */
  panBy(rows, cols) {
    const before = [this.row0, this.col0].join();
    this.row0 += rows;
    this.col0 += cols;
    this.#clamp();
    return before !== [this.row0, this.col0].join();
  }

  /** Moves the window as little as possible so that row `row` (and column `col`) show. */
  show(row, col = null) {
    if (!this.zoomed || row === null) return false;
    const before = [this.row0, this.col0].join();
    const into = (start, i) => (i < start ? i : i >= start + this.span ? i - this.span + 1 : start);
    this.row0 = into(this.row0, row);
    if (col !== null) this.col0 = into(this.col0, col);
    this.#clamp();
    return before !== [this.row0, this.col0].join();
  }
}

/** Wheel events or key presses this far apart are two gestures (two history entries), closer ones one. */
const GESTURE_PAUSE_MS = 400;

/**
 * Numbers the gestures of one heatmap: `start()` begins one (a touch's first
 * finger down), `step(time)` continues the last unless GESTURE_PAUSE_MS have
 * passed (a wheel event, a key, a button click); each returns its number.
 */
export function gestureCounter() {
  let gesture = 0;
  let at = -Infinity; // when the last step came
  return {
    start() {
      at = -Infinity;
      return ++gesture;
    },
    step(time) {
      if (time - at > GESTURE_PAUSE_MS) gesture += 1;
      at = time;
      return gesture;
    },
  };
}

/**
 * Wires the zoom gestures of `canvas` to `zoom`; `at(event)` gives the matrix
 * { row, col } under a pointer (fractional), `cellSize()` the side of a cell
 * in CSS pixels, `changed(gesture)` repaints (`gesture`: a number, the same
 * for every step of one gesture: a touch from its first finger down to its
 * last up, a run of wheel events or of keys), `anchor()` the cell the + and −
 * keys zoom around (ZoomWindow.zoomOn), `gestures` its gestureCounter(). Plain wheel scrolls the page as
 * usual; Ctrl/⌘ + wheel (a trackpad pinch sends that too) zooms.
 */
export function wireZoom(canvas, zoom, { at, cellSize, changed: changedIn, gestures, anchor = () => null }) {
  let gesture = 0;
  const changed = () => changedIn(gesture);
  const run = (event) => {
    gesture = gestures.step(event.timeStamp);
  };
  canvas.addEventListener('wheel', (event) => {
    if (!(event.ctrlKey || event.metaKey) && !(zoom.zoomed && event.shiftKey)) return;
    event.preventDefault();
    run(event);
    const point = at(event);
    if (event.ctrlKey || event.metaKey) {
      if (zoom.zoomAt(Math.exp(-event.deltaY / 300), point?.row, point?.col)) changed();
    } else if (zoom.panBy(0, Math.sign(event.deltaY || event.deltaX) * Math.max(1, zoom.span / 10))) {
      changed();
    }
  }, { passive: false });

  const pointers = new Map(); // id → { x, y }
  // At the start of a two-finger gesture: the fingers' distance and midpoint, the window, a
  // cell's side, and the matrix point under the midpoint (which stays under it as they move).
  let pinch = null;
  let drag = null; // { x, y, row0, col0 } at the start of a drag of a zoomed view
  const fingers = () => {
    const [a, b] = [...pointers.values()];
    return { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  };
  canvas.addEventListener('pointerdown', (event) => {
    if (pointers.size === 0) gesture = gestures.start();
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pointers.size === 2) {
      const start = fingers();
      const { span, row0, col0 } = zoom;
      pinch = { ...start, span, row0, col0, cell: cellSize() || 1, point: at({ clientX: start.x, clientY: start.y }) };
      drag = null;
    } else if (zoom.zoomed && event.pointerType !== 'mouse') {
      drag = { x: event.clientX, y: event.clientY, row0: zoom.row0, col0: zoom.col0 };
    }
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!pointers.has(event.pointerId)) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pinch && pointers.size === 2) {
      // Zoomed by the fingers' spread around the point under them, and panned as they move together.
      const now = fingers();
      const before = [zoom.span, zoom.row0, zoom.col0].join();
      Object.assign(zoom, { span: pinch.span, row0: pinch.row0, col0: pinch.col0 });
      zoom.zoomAt(now.distance / pinch.distance, pinch.point?.row, pinch.point?.col);
      const cell = (pinch.cell * pinch.span) / zoom.span;
      zoom.panBy(-(now.y - pinch.y) / cell, -(now.x - pinch.x) / cell);
      if ([zoom.span, zoom.row0, zoom.col0].join() !== before) changed();
    } else if (drag) {
      const cell = cellSize() || 1;
      zoom.row0 = drag.row0;
      zoom.col0 = drag.col0;
      if (zoom.panBy(-(event.clientY - drag.y) / cell, -(event.clientX - drag.x) / cell)) changed();
    }
  });
  const up = (event) => {
    pointers.delete(event.pointerId);
    if (pointers.size < 2) pinch = null;
    if (pointers.size === 0) drag = null;
  };
  canvas.addEventListener('pointerup', up);
  canvas.addEventListener('pointercancel', up);

  canvas.addEventListener('keydown', (event) => {
    const factor = { '+': 1.5, '=': 1.5, '-': 1 / 1.5, _: 1 / 1.5 }[event.key];
    if (factor || event.key === '0') run(event);
    if (factor) {
      event.preventDefault();
      if (zoom.zoomOn(factor, anchor())) changed();
    } else if (event.key === '0' && zoom.zoomed) {
      event.preventDefault();
      zoom.reset();
      changed();
    }
  });
}
