// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The board as an SVG the page draws itself from a session's Board JSON:
// squares (each a button named like "e1"), the restricted squares tinted in
// the colour that owns them, pieces, Khet 1.0's laser emitters, the selected
// piece and its targets, the last move, and the laser (laser.js). Silver's
// home row is at the bottom unless the view is flipped.
//
// playMove shows a move as it happens: the piece slides or turns, the laser
// fires, each hit piece goes when the beam reaches it. The board never falls
// more than one move behind: a move arriving while another plays waits for
// that one's shot to be whole and seen for HOLD_MS, but no longer than
// SHOWN_MS from its start, and a move arriving while one already waits
// replaces it (the move list has the one jumped over). The player's own
// shot stays at least OWN_SHOT_MS, its hits HITS_SEEN_MS, before the next
// move replaces it. With reduced motion every move is drawn still and held
// just as long. catchUp draws the last move queued at once; playMoveNow
// shows one move at once, dropping the queue; setBoard draws a position at
// once and drops whatever was queued.
//
// On narrow portrait screens the board is drawn turned a quarter clockwise
// (files down the side, eight squares across), so that a square stays a
// touch target of at least 44 px; the pieces and the laser turn with it.
// While a piece that can turn is selected, two round buttons on its
// square's upper corners turn it (onRotate).

import { t } from './language.js';
import { pieceName } from './piece_words.js';
import { drawEmitter, drawPiece, svg } from './pieces.js';
import { drawShot, motionWanted } from './laser.js';
import { sideName } from './sides.js';
import { FILES, squareAt, squareName, squareOwner } from './squares.js';

const SLIDE_MS = 320;
const HOLD_MS = 400;         // a whole shot is shown this long before a waiting move
const SHOWN_MS = 700;        // but a move waits no longer than this after the shown one began
const OWN_SHOT_MS = 2500;    // the player's own beam stays at least this long
const HITS_SEEN_MS = 1500;   // and its hits this long after the beam reaches them
const FRAME_MS = 20;         // a shot drawn shows at the next frame: held that much more
const FADE_MS = 180;

// The views' coordinates: the board's squares span 0-10 across and 0-8 down
// in landscape; portrait turns that picture a quarter clockwise.
const LANDSCAPE_VIEW = '-0.55 -0.3 11.1 9.05';
const PORTRAIT_VIEW = '-0.4 -0.5 8.62 10.6';
const PORTRAIT_TURN = 'translate(8 0) rotate(90)';
const PORTRAIT_QUERY = '(max-width: 560px) and (orientation: portrait)';

// The squares a move's notation names and how it moves: "e4-e5" (or "e4=e5"
// for a swap, "d1^d2" for the top of a stack) and "e4L" / "e4R".
function parseMove(notation) {
  const step = /^([a-j][1-8])([-=^])([a-j][1-8])/.exec(notation ?? '');
  if (step) return { from: step[1], to: step[3], swap: step[2] === '=' };
  const turn = /^([a-j][1-8])([LR])/.exec(notation ?? '');
  if (turn) return { from: turn[1], turn: turn[2] === 'L' ? -90 : 90 };
  return null;
}

// A colour darkened towards black by `amount` (0-1).
function shade(hex, amount) {
  if (!/^#[0-9a-f]{6}$/i.test(hex ?? '')) return hex;
  const part = (i) => Math.round(parseInt(hex.slice(i, i + 2), 16) * (1 - amount));
  return `rgb(${part(1)} ${part(3)} ${part(5)})`;
}

const DEFAULT_SCHEME = {
  silver: { hex: '#c0c0c0' }, red: { hex: '#a4161a' }, beam: { hex: '#ff2a2a' },
};

export class BoardView {
  // onSquare(name) is called when a square is clicked or activated by key.
  // onRotate(kind) when an on-board turn button is used (ROTATE_CLOCKWISE or
  // ROTATE_ANTICLOCKWISE).
  constructor(container, { onSquare, onRotate = () => {} }) {
    this.onSquare = onSquare;
    this.onRotate = onRotate;
    this.container = container;
    this.scheme = DEFAULT_SCHEME;
    this.flipped = false;
    this.board = null;
    this.shot = null;        // the LaserShot drawn, if any
    this.shotKey = null;     // and the key it was shown with
    this.selection = { from: null, targets: [], turns: [] };
    this.hint = [];          // the squares of a suggested move
    this.lastMove = [];
    this.focusSquare = 'e1';
    this.queue = [];         // moves waiting to be shown: { board, notation, shot, ... }
    this.timer = null;       // the next queued move's start
    this.holdUntil = 0;      // performance.now() until which the last shot stays
    this.onSound = () => {};  // (kind, secondsFromNow) for the page's sounds

    this.svg = svg('svg', {
      viewBox: LANDSCAPE_VIEW, class: 'board', role: 'group',
      'aria-label': t('board'), 'data-i18n-attr': 'aria-label:board',
    });
    this.view = svg('g', { class: 'view' });
    this.svg.append(this.view);
    this.layers = {};
    for (const name of ['squares', 'marks', 'emitters', 'pieces', 'laser', 'controls',
                        'labels']) {
      this.layers[name] = svg('g', { class: `layer-${name}` });
      this.view.append(this.layers[name]);
    }
    this.svg.addEventListener('keydown', (event) => this.onKey(event));
    container.replaceChildren(this.svg);
    this.portraitQuery = window.matchMedia?.(PORTRAIT_QUERY);
    this.portrait = false;
    this.applyColours();
    this.applyShape();
    this.drawSquares();
    this.portraitQuery?.addEventListener?.('change', () => {
      this.applyShape();
      this.drawSquares();
      this.drawPieces();
      this.drawEmitters();
      this.drawMarks();
    });
  }

  // Landscape or portrait, as the screen asks.
  applyShape() {
    this.portrait = Boolean(this.portraitQuery?.matches);
    this.svg.setAttribute('viewBox', this.portrait ? PORTRAIT_VIEW : LANDSCAPE_VIEW);
    if (this.portrait) this.view.setAttribute('transform', PORTRAIT_TURN);
    else this.view.removeAttribute('transform');
    this.svg.classList.toggle('portrait', this.portrait);
    this.container.classList.toggle('portrait', this.portrait);
  }

  // Top-left corner of a square in view coordinates.
  corner(file, rank) {
    return this.flipped ? { x: 9 - file, y: rank } : { x: file, y: 7 - rank };
  }

  // Centre of a beam point; points one step off the board are drawn at its
  // edge.
  centre(file, rank) {
    const c = this.corner(file, rank);
    return { x: Math.min(10, Math.max(0, c.x + 0.5)), y: Math.min(8, Math.max(0, c.y + 0.5)) };
  }

  setScheme(scheme) {
    const next = scheme?.silver ? scheme : DEFAULT_SCHEME;
    const colours = (s) => [s.silver.hex, s.red.hex, s.beam.hex].join();
    if (colours(next) === colours(this.scheme)) return;
    this.scheme = next;
    this.applyColours();
    this.drawSquares();
    this.drawPieces();
    this.drawEmitters();
    this.redrawShot();
  }

  // The scheme's colours as CSS properties (style.css uses them).
  applyColours() {
    this.svg.style.setProperty('--silver', this.scheme.silver.hex);
    this.svg.style.setProperty('--red', this.scheme.red.hex);
    this.svg.style.setProperty('--beam', this.scheme.beam.hex);
    // The tinted squares' dashed edges, dark enough to show on the sand.
    this.svg.style.setProperty('--silver-edge', shade(this.scheme.silver.hex, 0.35));
    this.svg.style.setProperty('--red-edge', shade(this.scheme.red.hex, 0.35));
  }

  setFlipped(flipped) {
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.drawSquares();
    this.drawPieces();
    this.drawEmitters();
    this.redrawShot();
  }

  // Draws `board` at once, dropping the moves queued.
  setBoard(board, lastMoveNotation) {
    this.stopQueue();
    this.place(board, lastMoveNotation);
  }

  place(board, lastMoveNotation) {
    this.board = board;
    this.lastMove = (lastMoveNotation ?? '').match(/[a-j][1-8]/g) ?? [];
    this.drawPieces();
    this.drawEmitters();
    this.drawMarks();
  }

  stopQueue() {
    clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.holdUntil = 0;
  }

  // Draws the last move queued at once, still (its shot and hits shown);
  // answers whether there was one.
  catchUp() {
    const last = this.queue[this.queue.length - 1];
    if (!last) return false;
    this.drawMoveStill(last);
    return true;
  }

  // What the square `name` shows: its piece's token, or null.
  pieceOn(name) {
    return this.svg.querySelector(`.square[data-square="${name}"]`)?.dataset.piece ?? null;
  }

  // Shows a move after the one being shown: `before` is the position it was
  // played in (null: none known, the pieces then just appear), `board` the
  // one after, `shot` its laser, `removals` what the shot took off (as
  // MoveMade has them; else read from `before`), `own` whether this page's
  // player made it. A move still waiting is jumped over.
  playMove({ before, board, notation, shot, removals, key, own = false }) {
    // A waiting move is jumped over, unless it is the player's own and this
    // the reply to it: the player sees their shot, then the answer.
    const waiting = this.queue[this.queue.length - 1];
    this.queue = waiting?.own && !own ? [waiting] : [];
    this.queue.push({ before, board, notation, shot, removals, key, own });
    this.pump();
  }

  // Shows a move as playMove does but at once, dropping the moves queued:
  // a replay stepping forward one ply.
  playMoveNow(move) {
    this.stopQueue();
    if (motionWanted()) this.animate(move);
    else this.drawMoveStill(move);
  }

  drawMoveStill({ board, notation, shot, key }) {
    this.setBoard(board, notation);
    this.shotKey = null;
    if (shot?.segments?.length) this.showShot(shot, key, { animate: false });
    else this.clearShot();
  }

  // Starts the next move now if the last shot has been shown long enough,
  // else when it has.
  pump() {
    if (this.timer !== null || !this.queue.length) return;
    const wait = this.holdUntil - performance.now();
    if (wait <= 0) {
      this.animate(this.queue.shift());
      this.pump();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, wait);
  }

  // Plays one move out (or draws it still, without motion) and sets how
  // long its shot stays before the next move may start.
  animate({ before, board, notation, shot, removals, key, own }) {
    const moving = motionWanted();
    const move = parseMove(notation);
    const slides = moving && move && before ? SLIDE_MS / 1000 : 0;
    this.place(board, notation);
    if (slides) this.slide(move, before);
    this.onSound('move', 0);
    let timing = { end: slides, hitAt: new Map() };
    if (shot?.segments?.length) {
      this.shotKey = key;
      this.shot = shot;
      timing = drawShot(this.layers.laser, shot, this, { animate: moving, delay: slides });
      this.onSound('laser', slides);
      for (const seconds of timing.hitAt.values()) this.onSound('hit', seconds);
    } else {
      this.clearShot();
    }
    if (moving) this.takeOffOnHit(before, move, timing.hitAt, removals);
    const whole = Math.max(timing.end, slides) * 1000;
    const lastHit = Math.max(0, ...timing.hitAt.values()) * 1000;
    const beamFrom = slides * 1000 + FRAME_MS;
    this.holdUntil = performance.now() + (own
      ? Math.max(beamFrom + OWN_SHOT_MS, lastHit + FRAME_MS + HITS_SEEN_MS)
      : Math.min(whole + HOLD_MS, SHOWN_MS));
  }

  // The moved pieces glide from where they stood, or turn in place.
  slide(move, before) {
    const drawnAt = (square) => this.layers.pieces.querySelector(`[data-square="${square}"]`);
    const pixels = (square) => {
      const { file, rank } = squareAt(square);
      const { x, y } = this.corner(file, rank);
      return `translate(${x + 0.5}px, ${y + 0.5}px)`;
    };
    const glide = (element, from, to) => element?.animate(
      [{ transform: pixels(from) }, { transform: pixels(to) }],
      { duration: SLIDE_MS, easing: 'ease-in-out' });
    if (move.turn) {
      const body = drawnAt(move.from)?.querySelector('.piece-body');
      const turn = Number(body?.dataset.turn ?? 0);
      body?.animate([{ transform: `rotate(${turn - move.turn}deg)` },
                     { transform: `rotate(${turn}deg)` }],
                    { duration: SLIDE_MS, easing: 'ease-in-out' });
      return;
    }
    glide(drawnAt(move.to), move.from, move.to);
    if (move.swap) glide(drawnAt(move.from), move.to, move.from);
  }

  // Each hit square shows the piece that stood there until the beam
  // reaches it, then what is left (the bottom of a hit Obelisk stack).
  takeOffOnHit(before, move, hitAt, removals) {
    const stood = (square) => before?.pieces?.find((p) => p.square === square);
    for (const [square, seconds] of hitAt) {
      const removal = removals?.find((r) => r.square === square);
      // A piece hit where it just moved to stood on the move's first square.
      const moved = move?.to === square && !stood(square) && stood(move.from);
      const gone = removal?.before ?? (moved ? { ...moved, square } : stood(square));
      const left = this.layers.pieces.querySelector(`[data-square="${square}"]`);
      left?.animate([{ opacity: 0 }, { opacity: 0 }],
                    { duration: seconds * 1000, fill: 'backwards' });
      if (!gone) continue;
      const ghost = this.pieceAt(gone);
      ghost.classList.add('hit-piece');
      this.layers.pieces.append(ghost);
      ghost.animate([{ opacity: 1 }, { opacity: 0 }],
                    { duration: FADE_MS, delay: seconds * 1000, fill: 'forwards' })
        .finished.then(() => ghost.remove(), () => {});
    }
  }

  // Marks `from` as selected and its targets; `turns` lists the turns it
  // may make (ROTATE_CLOCKWISE, ROTATE_ANTICLOCKWISE), each drawn as a
  // button on the board.
  setSelection(from, targets = [], turns = []) {
    this.selection = { from, targets, turns };
    this.drawMarks();
  }

  // Draws a laser shot (LaserShot JSON) over the position drawn; `key` names
  // it so that the same shot shown again does not restart its animation.
  showShot(shot, key, { animate }) {
    if (key === this.shotKey) return;
    this.shotKey = key;
    this.shot = shot;
    drawShot(this.layers.laser, shot, this, { animate });
  }

  clearShot() {
    this.shotKey = null;
    this.shot = null;
    this.layers.laser.replaceChildren();
  }

  redrawShot() {
    if (this.shot) drawShot(this.layers.laser, this.shot, this, { animate: false });
  }

  drawSquares() {
    const hadFocus = this.svg.contains(document.activeElement);
    const squares = this.layers.squares;
    const labels = this.layers.labels;
    squares.replaceChildren();
    labels.replaceChildren();
    for (let rank = 7; rank >= 0; --rank) {
      for (let file = 0; file < 10; ++file) {
        const name = squareName(file, rank);
        const { x, y } = this.corner(file, rank);
        const owner = squareOwner(file, rank);
        const group = svg('g', {
          class: `square${owner ? ` restricted-${owner.toLowerCase()}` : ''}`,
          role: 'button', tabindex: name === this.focusSquare ? 0 : -1,
          'aria-label': name, 'data-square': name,
        });
        group.append(svg('rect', {
          x, y, width: 1, height: 1, class: (file + rank) % 2 ? 'light' : 'dark',
        }));
        if (owner) {
          group.append(svg('rect', {
            x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, rx: 0.06, class: 'tint',
          }));
        }
        group.addEventListener('click', () => {
          this.moveFocus(name, false);
          this.onSquare(name);
        });
        squares.append(group);
      }
    }
    if (hadFocus) this.svg.querySelector(`[data-square="${this.focusSquare}"]`)?.focus();
    // The letters below the board (beside it in portrait, nearer), the
    // numbers to its left (above it); upright either way.
    const label = (x, y, text) => labels.append(svg('text', {
      x, y, class: 'coordinate', transform: this.portrait ? `rotate(-90 ${x} ${y})` : '',
    }, text));
    for (let file = 0; file < 10; ++file) {
      const { x } = this.corner(file, 0);
      label(x + 0.5, this.portrait ? 8.24 : 8.42, FILES[file]);
    }
    for (let rank = 0; rank < 8; ++rank) {
      const { y } = this.corner(0, rank);
      label(this.portrait ? -0.25 : -0.27, y + 0.5, String(rank + 1));
    }
  }

  // Khet 1.0's lasers stand off the board: Silver's below j1, Red's above a8.
  drawEmitters() {
    const layer = this.layers.emitters;
    layer.replaceChildren();
    if (this.board?.edition !== 'KHET_1') return;
    for (const [file, rank, side, colour] of [[9, 0, 1, this.scheme.silver.hex],
                                               [0, 7, -1, this.scheme.red.hex]]) {
      const { x, y } = this.centre(file, rank);
      // Outward from the board: down for Silver's (unflipped), up for Red's.
      const down = (side > 0) !== this.flipped;
      const emitter = drawEmitter(colour);
      emitter.setAttribute('transform', `translate(${x} ${y + (down ? 0.5 : -0.5)})` +
                                        (down ? '' : ' rotate(180)'));
      emitter.dataset.color = side > 0 ? 'SILVER' : 'RED';
      layer.append(emitter);
    }
  }

  drawPieces() {
    const layer = this.layers.pieces;
    layer.replaceChildren();
    for (const square of this.svg.querySelectorAll('.square')) {
      square.querySelector('title')?.remove();
      square.removeAttribute('data-piece');
    }
    for (const piece of this.board?.pieces ?? []) {
      layer.append(this.pieceAt(piece));
      const square = this.svg.querySelector(`[data-square="${piece.square}"]`);
      if (square) {
        square.dataset.piece = piece.token ?? piece.type;
        // "j5: Silver Pyramid", in the page's words and the scheme's colours.
        const side = (color) => sideName(this.scheme.id, color);
        square.append(svg('title', {},
                          `${piece.square}: ${pieceName(piece, this.board.edition, side)}`));
      }
    }
  }

  // A piece drawn on its square.
  pieceAt(piece) {
    const { file, rank } = squareAt(piece.square);
    const { x, y } = this.corner(file, rank);
    const fill = piece.color === 'RED' ? this.scheme.red.hex : this.scheme.silver.hex;
    const drawn = drawPiece(piece, fill, this.flipped);
    drawn.setAttribute('transform', `translate(${x + 0.5} ${y + 0.5})`);
    drawn.dataset.color = piece.color;
    drawn.dataset.square = piece.square;
    if (this.portrait) {
      for (const text of drawn.querySelectorAll('text')) {
        text.setAttribute('transform', 'rotate(-90 0 0.04)');
      }
    }
    return drawn;
  }

  // Marks a suggested move's squares ([] clears them).
  setHint(squares) {
    this.hint = squares;
    this.drawMarks();
  }

  drawMarks() {
    const layer = this.layers.marks;
    layer.replaceChildren();
    for (const square of this.svg.querySelectorAll('.square')) {
      square.classList.remove('selected', 'target');
      square.removeAttribute('aria-pressed');
      square.removeAttribute('aria-description');
    }
    const at = (name) => {
      const { file, rank } = squareAt(name);
      return this.corner(file, rank);
    };
    for (const name of this.lastMove) {
      const { x, y } = at(name);
      layer.append(svg('rect', { x, y, width: 1, height: 1, class: 'last-move' }));
    }
    for (const name of this.hint) {
      const { x, y } = at(name);
      layer.append(svg('rect', { x: x + 0.08, y: y + 0.08, width: 0.84, height: 0.84, rx: 0.12,
                                 class: 'hint-mark', 'data-square': name }));
    }
    const { from, targets, turns } = this.selection;
    this.drawTurnButtons(from, turns);
    if (from) {
      const { x, y } = at(from);
      layer.append(svg('rect', { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92,
                                 class: 'selected-mark' }));
      const square = this.svg.querySelector(`[data-square="${from}"]`);
      square?.classList.add('selected');
      square?.setAttribute('aria-pressed', 'true');
    }
    for (const name of targets) {
      const { x, y } = at(name);
      layer.append(svg('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.16, class: 'target-mark' }));
      const square = this.svg.querySelector(`[data-square="${name}"]`);
      square?.classList.add('target');
      square?.setAttribute('aria-description', t('legalMoveHere'));
    }
  }

  // The selected piece's turns as round buttons on its square's upper
  // corners: anticlockwise on the left, clockwise on the right.
  drawTurnButtons(from, turns) {
    const layer = this.layers.controls;
    layer.replaceChildren();
    if (!from || !turns?.length) return;
    const { file, rank } = squareAt(from);
    const { x, y } = this.corner(file, rank);
    for (const kind of turns) {
      const clockwise = kind === 'ROTATE_CLOCKWISE';
      const name = `${t(clockwise ? 'rotateClockwise' : 'rotateAnticlockwise')} ` +
        `(${clockwise ? 'r' : 'l'})`;
      // In portrait the view is turned: its upper corners are the square's
      // left ones there.
      const cx = this.portrait ? x : x + (clockwise ? 1 : 0);
      const cy = this.portrait ? y + (clockwise ? 0 : 1) : y;
      const button = svg('g', {
        class: 'turn-button', role: 'button', tabindex: 0, 'data-kind': kind,
        'aria-label': name, 'aria-keyshortcuts': clockwise ? 'r' : 'l',
        transform: `translate(${cx} ${cy})${this.portrait ? ' rotate(-90)' : ''}`,
      }, svg('circle', { r: 0.26, class: 'turn-disc' }), turnArrow(clockwise),
      svg('title', {}, name));
      const act = (event) => {
        event.preventDefault();
        event.stopPropagation();
        this.onRotate(kind);
      };
      button.addEventListener('click', act);
      button.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') act(event);
      });
      layer.append(button);
    }
  }

  // Arrow keys move the focus between squares (as drawn: turned in
  // portrait); Enter and Space click. Shifted arrows are left to the page.
  onKey(event) {
    const square = event.target.closest?.('.square');
    if (!square || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return;
    const name = square.dataset.square;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.onSquare(name);
      return;
    }
    const steps = this.portrait
      ? { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }
      : { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    const step = steps[event.key];
    if (!step) return;
    event.preventDefault();
    const sign = this.flipped ? -1 : 1;
    const at = squareAt(name);
    const file = Math.min(9, Math.max(0, at.file + sign * step[0]));
    const rank = Math.min(7, Math.max(0, at.rank + sign * step[1]));
    this.moveFocus(squareName(file, rank), true);
  }

  // Makes `name` the square the Tab key reaches (one at a time), and focuses
  // it if asked.
  moveFocus(name, focus) {
    this.svg.querySelector(`[data-square="${this.focusSquare}"]`)?.setAttribute('tabindex', -1);
    this.focusSquare = name;
    const square = this.svg.querySelector(`[data-square="${name}"]`);
    square?.setAttribute('tabindex', 0);
    if (focus) square?.focus();
  }
}

// A round arrow around (0, 0), three quarters of a circle, its head at the
// end it turns towards.
function turnArrow(clockwise) {
  const r = 0.14;
  const d = clockwise
    ? `M${-r} 0 A${r} ${r} 0 1 1 0 ${r}`
    : `M${r} 0 A${r} ${r} 0 1 0 0 ${r}`;
  const head = clockwise
    ? `M-0.08 ${r} L0.03 ${r - 0.09} L0.03 ${r + 0.09} Z`
    : `M0.08 ${r} L-0.03 ${r - 0.09} L-0.03 ${r + 0.09} Z`;
  return svg('g', { class: 'turn-arrow' },
    svg('path', { d, fill: 'none' }), svg('path', { d: head, class: 'turn-head' }));
}
