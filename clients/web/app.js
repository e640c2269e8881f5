// The web board's entry point: #/ shows the lobby, #/rules the rules and
// tutorial, #/s/<session id> a board, #/s/<session id>/games/<game id> a
// past game under review, #/players the players by rating. Pages other than a board speak the browser's
// language; a board speaks its own (game.js).

import { GamePage } from './game.js';
import { languageFor } from './i18n.js';
import { localize, setLanguage } from './language.js';
import { LobbyPage } from './lobby.js';
import { PlayersPage } from './players.js';
import { ReviewPage } from './review.js';
import { RulesPage } from './rules.js';

const lobby = new LobbyPage();
const game = new GamePage();
const review = new ReviewPage();
const rules = new RulesPage();
const players = new PlayersPage();

function route() {
  const hash = window.location.hash;
  const board = hash.match(/^#\/s\/([^/?#]+)$/);
  const past = hash.match(/^#\/s\/([^/?#]+)\/games\/([^/?#]+)$/);
  const reading = hash === '#/rules';
  const ranking = hash === '#/players';
  if (!board) {
    game.close();
    if (!setLanguage(languageFor(navigator.languages))) localize(document);
  }
  if (!past) review.close();
  if (!reading) rules.close();
  if (!ranking) players.close();
  if (board || past || reading || ranking) lobby.close();
  if (board) game.open(decodeURIComponent(board[1]));
  else if (past) review.open(decodeURIComponent(past[1]), decodeURIComponent(past[2]));
  else if (reading) rules.open();
  else if (ranking) players.open();
  else lobby.open();
}

window.addEventListener('hashchange', route);
route();
