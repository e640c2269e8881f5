// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The web board's entry point: #/ shows the lobby, #/rules the rules and
// tutorial, #/s/<session id> a board, #/s/<session id>/games/<game id> a
// past game under review, #/players the players by rating. Every page
// speaks the viewer's language (language.js), chosen in the page header;
// on a change the page shown writes its words made in code again. The pages
// are made once the words of that language are loaded.

import { $, pageError } from './dom.js';
import { GamePage } from './game.js';
import { chooseLanguage, language, localize, onLanguageChange, setLanguage, viewerLanguage }
  from './language.js';
import { LobbyPage } from './lobby.js';
import { PlayersPage } from './players.js';
import { ReviewPage } from './review.js';
import { RulesPage } from './rules.js';

try {
  if (!(await setLanguage(viewerLanguage()))) localize(document);
} catch (error) {
  // Not even English's words could be read: no page can be made.
  pageError(error);
  throw error;
}

const lobby = new LobbyPage();
const game = new GamePage();
const review = new ReviewPage();
const rules = new RulesPage();
const players = new PlayersPage();
let shown = lobby;  // the page on screen

const chooser = $('page-language');
chooser.value = language();
chooser.addEventListener('change', () => chooseLanguage(chooser.value));
onLanguageChange((code) => {
  chooser.value = code;
  shown.relabel();
});

function route() {
  const hash = window.location.hash;
  const board = hash.match(/^#\/s\/([^/?#]+)$/);
  const past = hash.match(/^#\/s\/([^/?#]+)\/games\/([^/?#]+)$/);
  const reading = hash === '#/rules';
  const ranking = hash === '#/players';
  if (!board) game.close();
  if (!past) review.close();
  if (!reading) rules.close();
  if (!ranking) players.close();
  if (board || past || reading || ranking) lobby.close();
  if (board) {
    shown = game;
    game.open(decodeURIComponent(board[1]));
  } else if (past) {
    shown = review;
    review.open(decodeURIComponent(past[1]), decodeURIComponent(past[2]));
  } else if (reading) {
    shown = rules;
    rules.open();
  } else if (ranking) {
    shown = players;
    players.open();
  } else {
    shown = lobby;
    lobby.open();
  }
}

window.addEventListener('hashchange', route);
route();
