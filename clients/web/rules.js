// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The rules page: how a turn goes and what the laser does, every piece
// drawn as on the board with what it does, and a one-minute tutorial: a
// position where one turn of a Pyramid wins, shown on a board, and a button
// that opens it as a real game against the weakest computer.

import { BoardView } from './board.js';
import { startComputerGame } from './computer_game.js';
import { $, errorText, h, show } from './dom.js';
import { t } from './language.js';
import { drawPiece, svg } from './pieces.js';
import { tokens } from './tokens.js';

// Silver to move: turning the Pyramid on j5 anticlockwise (j5L) sends
// Silver's beam west along rank 5 into Red's Pharaoh on c5.
const TUTORIAL_POSITION = 'xs9/10/10/2k6Pnw/10/10/10/4K4Xn s 2';
const TUTORIAL_BOARD = {
  edition: 'KHET_2',
  sideToMove: 'SILVER',
  pieces: [
    { square: 'a8', color: 'RED', type: 'SPHINX', orientation: 'S', token: 'xs' },
    { square: 'c5', color: 'RED', type: 'PHARAOH', token: 'k' },
    { square: 'j5', color: 'SILVER', type: 'PYRAMID', orientation: 'NW', token: 'Pnw' },
    { square: 'e1', color: 'SILVER', type: 'PHARAOH', token: 'K' },
    { square: 'j1', color: 'SILVER', type: 'SPHINX', orientation: 'N', token: 'Xn' },
  ],
};

// Each piece as drawn, with the keys of its name and what it does.
const PIECES = [
  ['PHARAOH', '', 'piecePharaoh', 'piecePharaohText'],
  ['PYRAMID', 'NE', 'piecePyramid', 'piecePyramidText'],
  ['SCARAB', '/', 'pieceScarab', 'pieceScarabText'],
  ['ANUBIS', 'N', 'pieceAnubis', 'pieceAnubisText'],
  ['SPHINX', 'N', 'pieceSphinx', 'pieceSphinxText'],
  ['EYE_OF_HORUS', '/', 'pieceEye', 'pieceEyeText'],
  ['OBELISK', '', 'pieceObelisk', 'pieceObeliskText'],
];

export class RulesPage {
  constructor() {
    this.page = $('rules');
  }

  open() {
    document.title = `${t('rulesLink')} · Khet`;
    const message = h('p', { class: 'error', role: 'alert', hidden: true });
    const boardFrame = h('div', { class: 'board-frame tutorial-board' });
    const tryIt = h('button', { type: 'button', id: 'tutorial-play' }, t('tutorialPlay'));
    tryIt.addEventListener('click', async () => {
      tryIt.disabled = true;
      try {
        const id = await startComputerGame({ playerName: tokens.playerName, level: 1,
                                             position: TUTORIAL_POSITION,
                                             boardName: t('tutorialBoardName') });
        window.location.hash = `#/s/${encodeURIComponent(id)}`;
      } catch (error) {
        message.textContent = errorText(error);
        show(message, true);
      } finally {
        tryIt.disabled = false;
      }
    });
    this.page.replaceChildren(
      h('div', { class: 'game-head' },
        h('a', { href: '#/', class: 'back' }, '\u2190 ', t('allBoards')),
        h('h2', {}, t('rulesLink'))),
      h('section', { class: 'panel' },
        h('h3', {}, t('rulesHowHeading')),
        h('ul', { class: 'tutorial-steps' },
          ...['rulesGoal', 'rulesTurn', 'rulesLaser', 'rulesSquares']
            .map((key) => h('li', {}, t(key))))),
      h('section', { class: 'panel' },
        h('h3', {}, t('piecesHeading')),
        h('ul', { class: 'rules-pieces' }, ...PIECES.map(([type, orientation, name, text]) => {
          const picture = svg('svg', { viewBox: '-0.5 -0.5 1 1', 'aria-hidden': 'true' },
            drawPiece({ type, orientation, height: 1 }, '#c0c0c0', false));
          return h('li', { 'data-piece': type }, picture,
                   h('div', {}, h('strong', {}, t(name)), h('br'), t(text)));
        }))),
      h('section', { class: 'panel' },
        h('h3', {}, t('tutorialHeading')),
        h('ol', { class: 'tutorial-steps' },
          ...['tutorialStep1', 'tutorialStep2', 'tutorialStep3'].map((key) => h('li', {}, t(key)))),
        boardFrame,
        h('p', { class: 'controls' }, tryIt),
        message));
    const board = new BoardView(boardFrame, { onSquare: () => {} });
    board.setBoard(TUTORIAL_BOARD, '');
    board.setHint(['j5']);
    show(this.page, true);
  }

  // The page drawn again in the page's new language.
  relabel() {
    if (!this.page.hidden) this.open();
  }

  close() {
    show(this.page, false);
  }
}
