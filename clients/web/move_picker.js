// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Picking a move on the board page: a click on one of the player's pieces
// selects it (its legal moves from khetd mark their squares), a click on a
// marked square moves there (asking which move when several reach it: an
// Obelisk stack or its top), and a selected piece turns by its buttons on
// the board or below it, or by keys: r (or Shift+Right) clockwise, l (or
// Shift+Left) anticlockwise; Escape lets it go. A click acts on the
// position drawn: one made while the board still plays moves out brings it
// to the game at once, and picks nothing if that changed the clicked square.

import { $, h, show } from './dom.js';
import { t } from './language.js';

const TWO_STATE = new Set(['SCARAB', 'EYE_OF_HORUS']);  // both turns are one move

// The turn each key makes with a piece selected (Shift+arrows too).
const TURN_KEYS = { r: 'ROTATE_CLOCKWISE', l: 'ROTATE_ANTICLOCKWISE' };
const SHIFTED_TURN_KEYS = { ArrowRight: 'ROTATE_CLOCKWISE', ArrowLeft: 'ROTATE_ANTICLOCKWISE' };

export class MovePicker {
  // board: the BoardView. session() answers the session shown, me() the
  // seat this page holds (or null), replaying() whether an earlier move is
  // shown; say(message) shows a message under the board (null hides it);
  // side(color) and pieceName(piece) name a side and a piece for people;
  // syncBoard(square) brings the live board to the game, answering whether
  // that changed the square; legalMoves(square) asks khetd for a square's
  // moves; play(move) plays the move picked.
  constructor(board, hooks) {
    const { session, me, replaying, say, side, pieceName, syncBoard, legalMoves, play } = hooks;
    this.board = board;
    Object.assign(this, { session, me, replaying, say, side, pieceName, syncBoard, legalMoves,
                          play });
    this.selection = null;  // { from, piece, moves, turns } while a piece is picked
  }

  // r, l, Shift+arrows and Escape while a piece is selected (not while
  // typing in a field).
  onKey(event) {
    if ($('game').hidden || !this.selection || event.altKey || event.ctrlKey
        || event.metaKey || event.target.closest?.('input, select, textarea, [contenteditable]')) {
      return;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      this.deselect();
      return;
    }
    const kind = event.shiftKey ? SHIFTED_TURN_KEYS[event.key]
      : TURN_KEYS[event.key?.toLowerCase()];
    if (!kind || !this.selection.turns.includes(kind)) return;
    event.preventDefault();
    this.rotate(kind);
  }

  async onSquare(name) {
    const s = this.session();
    const me = this.me();
    if (!s) return;
    if (!me) {
      if (s.status === 'IN_PROGRESS') this.say(t('takeSeat'));
      return;
    }
    if (s.status !== 'IN_PROGRESS') {
      this.say(t(s.status === 'FINISHED' ? 'gameIsOver' : 'notStarted'));
      return;
    }
    if (this.replaying()) {
      this.say(t('lookingBack'));
      return;
    }
    if (this.syncBoard(name)) return;
    if (s.board.sideToMove !== me.color) {
      this.say(t('othersMove', { side: this.side(s.board.sideToMove) }));
      return;
    }
    const selection = this.selection;
    if (selection) {
      const choices = selection.moves.filter((m) => m.to === name);
      if (choices.length === 1) return this.play(choices[0]);
      if (choices.length > 1) return this.offerChoice(choices);
      if (name === selection.from) return this.deselect();
    }
    const piece = s.board.pieces?.find((p) => p.square === name);
    if (piece?.color === me.color) return this.select(name, piece);
    this.deselect();
  }

  async select(square, piece) {
    const version = this.session().version;
    let moves;
    try {
      ({ moves = [] } = await this.legalMoves(square));
    } catch (error) {
      this.say(error);
      return;
    }
    if (this.session()?.version !== version) return;  // the board changed meanwhile
    if (!moves.length) {
      this.deselect();
      this.say(t('noLegalMove', { piece: this.pieceName(piece) }));
      return;
    }
    this.say(null);
    const targets = [...new Set(moves.filter((m) => m.to).map((m) => m.to))];
    const kinds = new Set(moves.filter((m) => !m.to).map((m) => m.kind));
    const twoState = TWO_STATE.has(piece.type) && kinds.size > 0;
    const turns = ['ROTATE_ANTICLOCKWISE', 'ROTATE_CLOCKWISE']
      .filter((kind) => twoState || kinds.has(kind));
    this.selection = { from: square, piece, moves, turns };
    this.board.setSelection(square, targets, turns);
    show($('rotate-clockwise'), turns.includes('ROTATE_CLOCKWISE'));
    show($('rotate-anticlockwise'), turns.includes('ROTATE_ANTICLOCKWISE'));
    this.relabel();
    $('move-choice').replaceChildren();
    show($('move-controls'), true);
  }

  // The selected piece's label, in the page's language.
  relabel() {
    if (!this.selection) return;
    const { from, piece } = this.selection;
    $('selected-label').textContent = t('selected', { piece: this.pieceName(piece),
                                                      square: from });
  }

  deselect() {
    this.selection = null;
    this.board.setSelection(null);
    this.board.setHint([]);
    $('move-choice').replaceChildren();
    show($('move-controls'), false);
  }

  rotate(kind) {
    const moves = this.selection?.moves ?? [];
    const move = moves.find((m) => m.kind === kind) ?? moves.find((m) => !m.to);
    if (move) this.play(move);
  }

  // Several moves reach the same square (an Obelisk stack or its top).
  offerChoice(choices) {
    const whole = this.selection?.piece?.height > 1 ? 'moveWholeStack' : 'moveWholePiece';
    const label = (m) => t(m.kind === 'MOVE_TOP' ? 'moveTopOnly'
      : m.swap ? 'moveBySwapping' : whole, { move: m.notation });
    $('move-choice').replaceChildren(...choices.map((m) =>
      h('button', { type: 'button', onclick: () => this.play(m) }, label(m))));
  }
}
