// The web board's entry point: #/ shows the lobby, #/s/<session id> a board,
// #/s/<session id>/games/<game id> a past game under review.

import { GamePage } from './game.js';
import { LobbyPage } from './lobby.js';
import { ReviewPage } from './review.js';

const lobby = new LobbyPage();
const game = new GamePage();
const review = new ReviewPage();

function route() {
  const hash = window.location.hash;
  const board = hash.match(/^#\/s\/([^/?#]+)$/);
  const past = hash.match(/^#\/s\/([^/?#]+)\/games\/([^/?#]+)$/);
  if (!past) review.close();
  if (!board) game.close();
  if (board || past) lobby.close();
  if (board) game.open(decodeURIComponent(board[1]));
  else if (past) review.open(decodeURIComponent(past[1]), decodeURIComponent(past[2]));
  else lobby.open();
}

window.addEventListener('hashchange', route);
route();
