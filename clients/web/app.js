// The web board's entry point: #/ shows the lobby, #/s/<session id> a board.

import { GamePage } from './game.js';
import { LobbyPage } from './lobby.js';

const lobby = new LobbyPage();
const game = new GamePage();

function route() {
  const match = window.location.hash.match(/^#\/s\/([^/?#]+)$/);
  if (match) {
    lobby.close();
    game.open(decodeURIComponent(match[1]));
  } else {
    game.close();
    lobby.open();
  }
}

window.addEventListener('hashchange', route);
route();
