// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// A game's moves as a list of buttons, numbered like the record ("1. j5L",
// "1... e5-f6"), each with what its laser hit and, once the computer has
// analysed the game, its judgement and the better move. The first entry is
// the start position (ply 0). Entries are kept, not redrawn, while the game
// grows, so that focus in the list survives; a new language or colour
// scheme redraws them. Sides are named in the board's colour scheme and hit
// notes said in the page's language.

import { t } from './language.js';
import { h } from './dom.js';
import { hitNote } from './piece_words.js';
import { sideName } from './sides.js';

// The record's marks for a judgement, and its name for people.
// Each judgement's mark, its class name and the keys of its words.
export const JUDGEMENT = {
  INACCURACY: { mark: '?!', name: 'inaccuracy', one: 'inaccuracyCountOne',
                other: 'inaccuracyCountOther' },
  MISTAKE: { mark: '?', name: 'mistake', one: 'mistakeCountOne', other: 'mistakeCountOther' },
  BLUNDER: { mark: '??', name: 'blunder', one: 'blunderCountOne', other: 'blunderCountOther' },
};

// "1." for Silver's first move, "1..." for Red's, as the record numbers
// them: a number is Silver's move and Red's reply (a game Red opens starts
// with "1...").
export function moveNumber(move, firstMover) {
  const offset = firstMover === 'RED' ? 1 : 0;
  const number = Math.floor((move.ply - 1 + offset) / 2) + 1;
  return move.mover === 'RED' ? `${number}...` : `${number}.`;
}

export class MoveList {
  // onPick(ply) is called when an entry is clicked.
  constructor(list, { onPick }) {
    this.list = list;
    this.onPick = onPick;
    this.moves = [];       // RecordedMove JSON, in order
    this.selected = null;  // the ply marked as shown
    this.scheme = null;    // the board's colour scheme id
    this.analysed = [];    // the analysed plies shown (setAnalysis)
    this.list.replaceChildren(this.entry({ ply: 0 }, t('startPosition')));
  }

  // A side's name in the board's colour scheme.
  side(color) {
    return sideName(this.scheme, color);
  }

  // Names the sides after colour scheme `scheme` (an id; null: Classic).
  setScheme(scheme) {
    if (scheme === this.scheme) return;
    this.scheme = scheme;
    this.relabel();
  }

  // Draws every entry again, in the page's language.
  relabel() {
    const moves = this.moves;
    this.moves = [];
    this.list.replaceChildren(this.entry({ ply: 0 }, t('startPosition')));
    this.setMoves(moves);
    this.setAnalysis(this.analysed);
  }

  get plies() {
    return this.moves.length;
  }

  // Shows a game's moves; only entries that changed are redrawn.
  setMoves(moves) {
    const firstMover = moves[0]?.mover;
    const same = (a, b) => a && b && a.notation === b.notation && (a.hit ?? '') === (b.hit ?? '')
      && a.mover === b.mover;
    const keep = this.moves.findIndex((m, i) => !same(m, moves[i]));
    const kept = keep < 0 ? Math.min(this.moves.length, moves.length) : keep;
    while (this.list.children.length > kept + 1) this.list.lastElementChild.remove();
    for (const move of moves.slice(kept)) {
      this.list.append(this.entry(move, `${moveNumber(move, firstMover)} ${move.notation}`));
    }
    this.moves = moves;
    this.select(this.selected);
  }

  entry(move, label) {
    const item = h('li', { 'data-ply': move.ply },
      h('button', { type: 'button', class: 'move', 'data-ply': move.ply,
                    onclick: () => this.onPick(move.ply) },
        h('span', { class: 'move-label' },
          move.ply && move.mover ? h('span', { class: 'sr-only' }, `${this.side(move.mover)} `)
            : null,
          label),
        move.hit ? h('span', { class: 'move-hit' },
          h('span', { 'aria-hidden': 'true' }, '✸ '), hitNote(move.hit, (c) => this.side(c)))
          : null));
    return item;
  }

  // Marks `ply` (null: none) as the one on the board.
  select(ply) {
    this.selected = ply;
    for (const button of this.list.querySelectorAll('button.move')) {
      if (Number(button.dataset.ply) === ply) button.setAttribute('aria-current', 'step');
      else button.removeAttribute('aria-current');
    }
    // Scrolls the list (positioned, style.css), never the page, to the entry.
    const current = this.button(ply);
    if (current) {
      const top = current.offsetTop;
      const bottom = top + current.offsetHeight;
      if (top < this.list.scrollTop) this.list.scrollTop = top;
      else if (bottom > this.list.scrollTop + this.list.clientHeight) {
        this.list.scrollTop = bottom - this.list.clientHeight;
      }
    }
  }

  button(ply) {
    return ply === null ? null : this.list.querySelector(`button.move[data-ply="${ply}"]`);
  }

  // Moves the focus to the selected entry if it was in the list.
  followFocus() {
    if (this.list.contains(document.activeElement)) this.button(this.selected)?.focus();
  }

  // Marks the analysed plies (PlyAnalysis JSON); an empty list clears them.
  setAnalysis(plies) {
    this.analysed = plies;
    for (const item of this.list.querySelectorAll('.move-judgement, .move-better')) item.remove();
    for (const ply of plies) {
      const judgement = JUDGEMENT[ply.judgement];
      const button = this.button(ply.ply ?? 0);
      if (!judgement || !button) continue;
      const better = ply.bestMove ? t('betterMove', { move: ply.bestMove }) : '';
      const name = t(judgement.name);
      button.querySelector('.move-label').append(
        h('span', { class: `move-judgement judgement-${judgement.name}`,
                    'data-judgement': ply.judgement,
                    title: [name, better].filter(Boolean).join(': ') },
          h('span', { 'aria-hidden': 'true' }, judgement.mark),
          h('span', { class: 'sr-only' }, ` (${name})`)));
      if (better) button.append(h('span', { class: 'move-better' }, better));
    }
  }
}
