// The board as an SVG the page draws itself from a session's Board JSON:
// squares (each a button named like "e1"), the restricted squares tinted in
// the colour that owns them, pieces, the selected piece and its targets, the
// last move, and the laser (laser.js). Silver's home row is at the bottom
// unless the view is flipped.

import { drawPiece, svg } from './pieces.js';
import { drawShot } from './laser.js';
import { FILES, squareAt, squareName, squareOwner } from './squares.js';

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
    this.lastMove = [];
    this.focusSquare = 'e1';

    this.svg = svg('svg', {
      viewBox: '-0.42 -0.08 10.5 8.5', class: 'board', role: 'group',
      'aria-label': 'Board',
    });
    this.layers = {};
    for (const name of ['squares', 'marks', 'pieces', 'laser', 'labels']) {
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
    this.redrawShot();
  }

  // The scheme's colours as CSS properties (style.css uses them).
  applyColours() {
    this.svg.style.setProperty('--silver', this.scheme.silver.hex);
    this.svg.style.setProperty('--red', this.scheme.red.hex);
    this.svg.style.setProperty('--beam', this.scheme.beam.hex);
  }

  setFlipped(flipped) {
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.drawSquares();
    this.drawPieces();
    this.redrawShot();
  }

  setBoard(board, lastMoveNotation) {
    this.board = board;
    this.lastMove = (lastMoveNotation ?? '').match(/[a-j][1-8]/g) ?? [];
    this.drawPieces();
    this.drawMarks();
  }

  setSelection(from, targets = []) {
    this.selection = { from, targets };
    this.drawMarks();
  }

  // Draws a laser shot (LaserShot JSON); `key` names it so that the same shot
  // shown again does not restart its animation.
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
      labels.append(svg('text', { x: x + 0.5, y: 8.3, class: 'coordinate' }, FILES[file]));
    }
    for (let rank = 0; rank < 8; ++rank) {
      const { y } = this.corner(0, rank);
      labels.append(svg('text', { x: -0.2, y: y + 0.6, class: 'coordinate' }, String(rank + 1)));
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
      const { file, rank } = squareAt(piece.square);
      const { x, y } = this.corner(file, rank);
      const fill = piece.color === 'RED' ? this.scheme.red.hex : this.scheme.silver.hex;
      const drawn = drawPiece(piece, fill, this.flipped);
      drawn.setAttribute('transform', `translate(${x + 0.5} ${y + 0.5})`);
      drawn.dataset.color = piece.color;
      layer.append(drawn);
      const square = this.svg.querySelector(`[data-square="${piece.square}"]`);
      if (square) {
        square.dataset.piece = piece.token ?? piece.type;
        square.append(svg('title', {}, `${piece.square}: ${piece.description ?? piece.type}`));
      }
    }
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
      square?.setAttribute('aria-description', 'a legal move goes here');
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
