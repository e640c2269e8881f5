// The board as an SVG the page draws itself from a session's Board JSON:
// squares (each a button named like "e1"), the restricted squares tinted in
// the colour that owns them, pieces, Khet 1.0's laser emitters, the selected
// piece and its targets, the last move, and the laser (laser.js). Silver's
// home row is at the bottom unless the view is flipped.
//
// playMove shows a move as it happens: the piece slides or turns, the laser
// fires, each hit piece goes when the beam reaches it, and the shot then
// stays for HOLD_MS at least before the next queued move starts;
// playMoveNow does the same at once. setBoard draws a position at once and
// drops whatever was queued.

import { t } from './language.js';
import { drawEmitter, drawPiece, svg } from './pieces.js';
import { drawShot, motionWanted } from './laser.js';
import { FILES, squareAt, squareName, squareOwner } from './squares.js';

const SLIDE_MS = 320;
const HOLD_MS = 1200;
const FADE_MS = 180;

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
  constructor(container, { onSquare }) {
    this.onSquare = onSquare;
    this.scheme = DEFAULT_SCHEME;
    this.flipped = false;
    this.board = null;
    this.shot = null;        // the LaserShot drawn, if any
    this.shotKey = null;     // and the key it was shown with
    this.selection = { from: null, targets: [] };
    this.hint = [];          // the squares of a suggested move
    this.lastMove = [];
    this.focusSquare = 'e1';
    this.queue = [];         // moves waiting to be shown: { board, notation, shot, ... }
    this.timer = null;       // the next queued move's start
    this.holdUntil = 0;      // performance.now() until which the last shot stays
    this.onSound = () => {};  // (kind, secondsFromNow) for the page's sounds

    this.svg = svg('svg', {
      viewBox: '-0.55 -0.3 11.1 9.05', class: 'board', role: 'group',
      'aria-label': t('board'), 'data-i18n-attr': 'aria-label:board',
    });
    this.layers = {};
    for (const name of ['squares', 'marks', 'emitters', 'pieces', 'laser', 'labels']) {
      this.layers[name] = svg('g', { class: `layer-${name}` });
      this.svg.append(this.layers[name]);
    }
    this.svg.addEventListener('keydown', (event) => this.onKey(event));
    container.replaceChildren(this.svg);
    this.applyColours();
    this.drawSquares();
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
  }

  // Shows a move as it happens after the moves queued before it: `before` is
  // the position it was played in (null: none known, the pieces then just
  // appear), `board` the one after, `shot` its laser, `removals` what the
  // shot took off (as MoveMade has them; else read from `before`). Without
  // motion (the reader asked for less) it is drawn at once.
  playMove({ before, board, notation, shot, removals, key }) {
    if (!motionWanted()) {
      this.drawMoveStill({ board, notation, shot, key });
      return;
    }
    this.queue.push({ before, board, notation, shot, removals, key });
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
    if (shot?.segments?.length) this.showShot(shot, key, { animate: false });
    else this.clearShot();
  }

  pump() {
    if (this.timer !== null || !this.queue.length) return;
    const wait = Math.max(0, this.holdUntil - performance.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      const next = this.queue.shift();
      if (next) this.animate(next);
      this.pump();
    }, wait);
  }

  animate({ before, board, notation, shot, removals, key }) {
    const move = parseMove(notation);
    const slides = move && before ? SLIDE_MS / 1000 : 0;
    this.place(board, notation);
    if (move && before) this.slide(move, before);
    this.onSound('move', 0);
    let timing = { end: slides, hitAt: new Map() };
    if (shot?.segments?.length) {
      this.shotKey = key;
      this.shot = shot;
      timing = drawShot(this.layers.laser, shot, this, { animate: true, delay: slides });
      this.onSound('laser', slides);
      for (const seconds of timing.hitAt.values()) this.onSound('hit', seconds);
    } else {
      this.clearShot();
    }
    this.takeOffOnHit(before, move, timing.hitAt, removals);
    this.holdUntil = performance.now() + Math.max(timing.end, slides) * 1000 + HOLD_MS;
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

  setSelection(from, targets = []) {
    this.selection = { from, targets };
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
    for (let file = 0; file < 10; ++file) {
      const { x } = this.corner(file, 0);
      labels.append(svg('text', { x: x + 0.5, y: 8.42, class: 'coordinate' }, FILES[file]));
    }
    for (let rank = 0; rank < 8; ++rank) {
      const { y } = this.corner(0, rank);
      labels.append(svg('text', { x: -0.27, y: y + 0.5, class: 'coordinate' }, String(rank + 1)));
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
        square.append(svg('title', {}, `${piece.square}: ${piece.description ?? piece.type}`));
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
    const { from, targets } = this.selection;
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

  // Arrow keys move the focus between squares; Enter and Space click.
  onKey(event) {
    const square = event.target.closest?.('.square');
    if (!square) return;
    const name = square.dataset.square;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.onSquare(name);
      return;
    }
    const steps = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
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
