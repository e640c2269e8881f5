// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The board page's live board kept with the game: a move is played out on
// the BoardView (slide, laser, hits; board.js) as soon as its reply, its
// event or the session shows it, once, and not while an earlier move is
// replayed; a session more than one move ahead waits a little for the
// moves' events before it is drawn at once. Holds what the live board shows
// or is playing out, and the newest session version a move was shown for
// (older sessions are stale).

const CATCH_UP_MS = 1500;  // for move events, before a position is drawn without them

const shotKey = (board, shot) => `${board?.position}|${shot?.text}`;

export class LiveBoard {
  // board: the BoardView. replaying() answers whether an earlier move is
  // shown instead of the live game; deselect() lets a picked piece go;
  // render() draws the page again; myColor() answers the colour of the seat
  // this page holds (or undefined).
  constructor(board, { replaying, deselect, render, myColor }) {
    this.board = board;
    this.replaying = replaying;
    this.deselect = deselect;
    this.render = render;
    this.myColor = myColor;
    // What the live board shows or is playing out: the game, its moves'
    // count, the session's version, the position and shot (as shotKey) and
    // the Board; null: nothing yet, or drawn again from the next session.
    this.live = null;
    this.catchUp = null;  // a wait for the events of moves the session is ahead by
    this.newestVersion = 0;  // of the last move shown; older sessions are stale
  }

  // Another board's page: nothing shown yet.
  reset() {
    this.newestVersion = 0;
    this.live = null;
  }

  // The page closes: no more waiting for events.
  stop() {
    clearTimeout(this.catchUp);
  }

  // Whether a session of `version` is older than a move already shown.
  stale(version) {
    return version < this.newestVersion;
  }

  // The live board is drawn again from the next session (after a replay).
  forget() {
    this.live = null;
  }

  // An accepted takeback (the event of `version`): the board goes back to
  // `board`, the position it names.
  takeBack(version, board) {
    this.newestVersion = Math.max(this.newestVersion, Number(version));
    this.deselect();
    this.live = null;
    if (!this.replaying()) {
      this.board.setBoard(board);
      this.board.clearShot();
    }
  }

  // Plays out a move that follows the live board's position (from its
  // reply or its event): the piece moves, the laser fires, the hits go.
  showMove(version, board, notation, shot, removals) {
    if (!board) return;
    this.newestVersion = Math.max(this.newestVersion, Number(version ?? 0));
    const key = shotKey(board, shot);
    // The same move again (its event after the session showed it), or one
    // older than the board shows: a piece picked since stays picked.
    if (key === this.live?.key || Number(version) <= (this.live?.version ?? 0)) return;
    this.deselect();
    const before = this.live?.board ?? null;
    this.live = { gameId: this.live?.gameId, plies: (this.live?.plies ?? 0) + 1,
                  version: Number(version), key, board };
    if (this.replaying()) return;
    this.board.playMove({ before, board, notation, shot, removals, key,
                          own: this.isMine(before, shot) });
  }

  // Whether this page's player made the move played in `before` (whose
  // laser `shot` is).
  isMine(before, shot) {
    const mover = shot?.shooter ?? before?.sideToMove;
    return Boolean(mover) && mover === this.myColor();
  }

  // Brings the live board to the game (session `s`) at once when it is
  // still playing moves out or waiting for them; answers whether that
  // changed what the square `name` shows (a click there then did only this).
  syncBoard(name, s) {
    const shown = this.board.pieceOn(name);
    let changed = this.board.catchUp();
    const ahead = s && Number(s.version) > (this.live?.version ?? 0)
      && this.live?.key !== shotKey(s.board, s.lastShot);
    if (ahead && !this.replaying()) {
      if (this.live) this.live.waited = true;
      this.showSession(s);
      changed = true;
    }
    return changed && this.board.pieceOn(name) !== shown;
  }

  // Brings the live board to the session: played out when it is one move on
  // from what the board shows; when it is more, the moves' events are
  // waited for a little (they play each out); else drawn at once.
  showSession(s) {
    const moves = s.moves ?? [];
    const key = shotKey(s.board, s.lastShot);
    const drawn = this.live;
    clearTimeout(this.catchUp);
    if (drawn && key === drawn.key && drawn.gameId === s.gameId) return;
    const notation = moves[moves.length - 1];
    const version = Number(s.version);
    const sameGame = drawn && drawn.gameId === s.gameId && !this.replaying();
    if (sameGame && drawn.plies + 1 === moves.length) {
      this.live = { gameId: s.gameId, plies: moves.length, version, key, board: s.board };
      this.board.playMove({ before: drawn.board, board: s.board, notation, shot: s.lastShot,
                            key, own: this.isMine(drawn.board, s.lastShot) });
      return;
    }
    if (sameGame && drawn.plies + 1 < moves.length && !drawn.waited) {
      this.catchUp = setTimeout(() => {
        if (this.live === drawn) drawn.waited = true;
        this.render();
      }, CATCH_UP_MS);
      return;
    }
    this.live = { gameId: s.gameId, plies: moves.length, version, key, board: s.board };
    this.board.setBoard(s.board, notation);
    if (s.lastShot?.segments?.length) {
      this.board.showShot(s.lastShot, key, { animate: false });
    } else {
      this.board.clearShot();
    }
  }
}
