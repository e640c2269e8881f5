// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Replaying a game on a BoardView: the board, the move and the laser of any
// ply (0 is the start position) from the positions route, and a status bar
// saying which ply is shown. With a live game (the board page) `ply` null
// means the live game is shown and the page draws it; without one (a game
// under review) some ply is always shown. Left and Right step through the
// game, Home and End jump to its ends.

import { t } from './language.js';
import { api } from './api.js';
import { h, pageError, show } from './dom.js';

export class Replay {
  // board: the BoardView drawn on; bar: the element the status goes into;
  // page: the page element whose keys it follows while shown; live: whether
  // there is a live game to go back to; side(color) names a side;
  // onChange(ply) hears of every change of the ply shown (null: back to the
  // live game).
  constructor(board, bar, page, { live, side, onChange }) {
    this.board = board;
    this.page = page;
    this.live = live;
    this.onChange = onChange;
    this.side = side;
    this.sessionId = null;
    this.gameId = null;
    this.moves = [];
    this.ply = null;
    this.drawnPly = null;    // the ply whose position the board shows, if any
    this.cache = new Map();  // ply -> GetPositionResponse of this game
    this.asked = 0;          // the latest position asked for wins
    this.failed = false;     // the last one could not be read (and said so)

    this.status = h('p', { class: 'replay-status', role: 'status', 'aria-live': 'polite' });
    this.previous = h('button', { type: 'button', class: 'secondary', 'aria-label': t('previousMove'),
                                  'data-i18n-attr': 'aria-label:previousMove',
                                  onclick: () => this.step(-1) }, '◀');
    this.next = h('button', { type: 'button', class: 'secondary', 'aria-label': t('nextMove'),
                              'data-i18n-attr': 'aria-label:nextMove',
                              onclick: () => this.step(1) }, '▶');
    this.back = live ? h('button', { type: 'button', class: 'back-to-live',
                                     'data-i18n': 'backToLive',
                                     onclick: () => this.show(null) }, t('backToLive'))
      : null;
    this.bar = bar;
    bar.classList.add('replay-bar');
    bar.replaceChildren(this.status, h('div', { class: 'controls' }, this.previous, this.next,
                                       this.back));
    document.addEventListener('keydown', (event) => this.onKey(event));
    this.draw();
  }

  get plies() {
    return this.moves.length;
  }

  get replaying() {
    return this.ply !== null;
  }

  // The game replayed and its moves (RecordedMove JSON). Another game goes
  // back to the live game, or to the last ply under review; more moves of
  // the same game leave the ply shown alone.
  setGame(sessionId, gameId, moves) {
    const same = sessionId === this.sessionId && gameId === this.gameId;
    this.moves = moves;
    if (same) {
      if (this.ply !== null && this.ply > this.plies) this.show(this.live ? null : this.plies);
      else this.draw();
      return;
    }
    this.sessionId = sessionId;
    this.gameId = gameId;
    this.cache.clear();
    this.ply = null;
    this.drawnPly = null;
    this.show(this.live ? null : this.plies);
  }

  // Shows ply `ply`; null, or the last ply while there is a live game, shows
  // the live game.
  async show(ply) {
    if (ply !== null && (this.live && ply >= this.plies)) ply = null;
    if (ply !== null) ply = Math.max(0, Math.min(this.plies, ply));
    const changed = ply !== this.ply;
    this.ply = ply;
    this.draw();
    if (changed) this.onChange(ply);
    if (ply === null) this.drawnPly = null;  // the page draws the live game
    if (ply === null || !this.gameId) return;
    const asked = ++this.asked;
    const game = this.gameId;
    let position = this.cache.get(ply);
    try {
      position ??= await api.position(this.sessionId, game, ply);
    } catch (error) {
      if (asked === this.asked) {
        this.failed = true;
        pageError({ message: t('moveNotShown', { error: error.message }) });
      }
      return;
    }
    if (game !== this.gameId) return;
    this.cache.set(ply, position);
    if (asked !== this.asked || this.ply !== ply) return;
    if (this.failed) pageError(null);
    this.failed = false;
    // One ply forward is played as it happened (the piece moves, hit pieces
    // fade); any other step is drawn at once, with its laser.
    const key = `replay|${game}|${ply}`;
    const previous = this.drawnPly === ply - 1 ? this.cache.get(ply - 1) : undefined;
    this.drawnPly = ply;
    if (previous && position.move) {
      this.board.playMoveNow({ before: previous.board, board: position.board,
                               notation: position.move.notation, shot: position.shot,
                               removals: position.removals, key });
    } else {
      this.board.setBoard(position.board, position.move?.notation);
      const shot = position.shot;
      if (shot?.segments?.length) this.board.showShot(shot, key, { animate: true });
      else this.board.clearShot();
    }
    this.board.svg.dataset.ply = ply;
  }

  step(delta) {
    const from = this.ply ?? this.plies;
    this.show(from + delta);
  }

  draw() {
    const ply = this.ply;
    show(this.bar, ply !== null || !this.live);
    if (ply === null) {
      this.status.textContent = '';
      delete this.board.svg.dataset.ply;
    } else if (ply === 0) {
      this.status.textContent = t(this.live ? 'replayStart' : 'reviewStart',
                                  { plies: this.plies });
    } else {
      const move = this.moves[ply - 1];
      this.status.textContent = t(this.live ? 'replayMove' : 'reviewMove', {
        ply, plies: this.plies, side: move?.mover ? this.side(move.mover) : '',
        move: move?.notation ?? '' });
    }
    this.previous.disabled = (ply ?? this.plies) === 0;
    this.next.disabled = ply === null || (!this.live && ply === this.plies);
  }

  onKey(event) {
    if (this.page.hidden || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    const target = event.target;
    if (target.closest?.('input, select, textarea, svg.board, [contenteditable]')) return;
    const go = {
      ArrowLeft: () => this.step(-1),
      ArrowRight: () => this.ply !== null && this.step(1),
      Home: () => this.show(0),
      End: () => this.show(this.live ? null : this.plies),
    }[event.key];
    if (!go || !this.plies) return;
    event.preventDefault();
    go();
  }
}
