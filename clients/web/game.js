// One board's page: the game drawn and played, the seats, the player's and
// the owner's controls (hints, rematch, settings), the moves (with their
// replay, game_record.js) and the event log, in the session's language. The
// session is re-read after every change; a move is played out on the board
// (board.js: slide, laser, hits) as soon as its reply, event or the session
// shows it, unless an earlier move is being replayed. A click acts on the
// position drawn: one made while the board still plays moves out brings it
// to the game at once, and picks nothing if that changed the clicked square.
// A selected piece turns by its buttons on the board or below it, or by
// keys: r (or Shift+Right) clockwise, l (or Shift+Left) anticlockwise,
// Escape lets it go. A game that no move
// keeps alive says when the inactivity timeout will reset it. A player may
// ask to take a move back (the opponent answers on their page), and a seat
// held with a player id shows that player's rating.

// The colour of a session field that names one, or null when unset.
const colorOf = (value) => (value && value !== 'COLOR_UNSPECIFIED' ? value : null);

import { api } from './api.js';
import { BoardView } from './board.js';
import { ClockView } from './clocks.js';
import { catalog, editionName, schemeOptions, setupName, setupOptions, statusText }
  from './catalog.js';
import { $, errorText, fillSelect, h, pageError, show } from './dom.js';
import { EventFeed } from './events.js';
import { GameRecordPanel } from './game_record.js';
import { t } from './language.js';
import { pieceName } from './piece_words.js';
import { resultSentence } from './result_words.js';
import { observeServerTime, serverNow } from './server_clock.js';
import { sideName } from './sides.js';
import { sounds } from './sound.js';
import { tokens } from './tokens.js';

const IDLE_WARN_MS = 10 * 60 * 1000;  // the inactivity note turns into a warning
const HINT_TIMEOUT_MS = 4000;
const CATCH_UP_MS = 1500;  // for move events, before a position is drawn without them
const TWO_STATE = new Set(['SCARAB', 'EYE_OF_HORUS']);  // both turns are one move
const HISTORY_SHOWN = 20;  // earlier events shown in the log on opening
const LOG_LENGTH = 60;
const CONFIRM_MS = 4000;

const shotKey = (board, shot) => `${board?.position}|${shot?.text}`;

// The turn each key makes with a piece selected (Shift+arrows too).
const TURN_KEYS = { r: 'ROTATE_CLOCKWISE', l: 'ROTATE_ANTICLOCKWISE' };
const SHIFTED_TURN_KEYS = { ArrowRight: 'ROTATE_CLOCKWISE', ArrowLeft: 'ROTATE_ANTICLOCKWISE' };

// The side whose time ran out in a game that ended so, else null.
function flaggedSide(result) {
  if (result?.reason !== 'TIME_FORFEIT') return null;
  return { SILVER_WINS: 'RED', RED_WINS: 'SILVER' }[result.outcome] ?? null;
}

// "12 min" or "45 s", in the page's language.
function duration(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds >= 120 ? t('minutes', { count: Math.round(seconds / 60) })
    : t('seconds', { count: seconds });
}

export class GamePage {
  constructor() {
    this.board = new BoardView($('board'), { onSquare: (name) => this.onSquare(name),
                                             onRotate: (kind) => this.rotate(kind) });
    this.board.onSound = (kind, delay) => sounds.play(kind, delay);
    this.clocks = new ClockView($('clocks'));
    this.record = new GameRecordPanel($('moves-panel'), {
      board: this.board, bar: $('replay-bar'), page: $('game'), live: true,
      onReplay: (ply) => this.onReplay(ply),
    });
    this.recordKey = null;   // the game, its length and status the moves were read for
    // What the live board shows or is playing out: the game, its moves'
    // count, the session's version, the position and shot (as shotKey) and
    // the Board.
    this.live = null;
    this.catchUp = null;  // a wait for the events of moves the session is ahead by
    this.idleTimer = null;
    this.id = null;
    this.session = null;
    this.feed = null;
    this.selection = null;   // { from, piece, moves } while a piece is picked
    this.flipChoice = null;  // null: Red's player sees the board from Red's side
    this.loadedVersion = 0;
    this.newestVersion = 0;  // of the last move shown; older sessions are stale
    this.levels = [];
    this.setups = [];
    this.refreshing = false;
    this.refreshAgain = false;
    this.settingsDirty = false;
    this.troubled = false;
    this.ratings = new Map();  // player id -> { key, rating } (rating null: none yet)
    this.wire();
  }

  wire() {
    const click = (id, action) => $(id).addEventListener('click', action);
    click('rotate-clockwise', () => this.rotate('ROTATE_CLOCKWISE'));
    click('rotate-anticlockwise', () => this.rotate('ROTATE_ANTICLOCKWISE'));
    click('deselect', () => this.deselect());
    click('resign', (e) => this.confirmed(e.target, t('reallyResign'),
                                          () => api.resign(this.id, this.me().token)));
    click('offer-draw', () => this.act(() => api.offerDraw(this.id, this.me().token)));
    click('accept-draw', () => this.act(() => api.acceptDraw(this.id, this.me().token)));
    click('claim-draw', () => this.act(() => api.claimRepetitionDraw(this.id, this.me().token)));
    click('hint', () => this.hint());
    click('takeback', () => this.act(() => api.requestTakeback(this.id, this.me().token)));
    click('accept-takeback', () => this.act(() => api.acceptTakeback(this.id, this.me().token)));
    click('decline-takeback',
          () => this.act(() => api.declineTakeback(this.id, this.me().token)));
    click('rematch', () => this.act(() => api.rematch(this.id, this.actingToken())));
    click('leave', () => this.leave());
    click('flip', () => {
      this.flipChoice = !this.board.flipped;
      this.render();
    });
    $('sounds').checked = sounds.on;
    $('sounds').addEventListener('change', (event) => {
      sounds.on = event.target.checked;
      if (sounds.on) sounds.play('move');
    });
    click('reset', (e) => this.confirmed(e.target, t('reallyReset'),
                                         () => api.reset(this.id, tokens.owner(this.id))));
    click('delete', (e) => this.confirmed(e.target, t('reallyDelete'), () => this.remove()));
    $('settings-form').addEventListener('input', () => { this.settingsDirty = true; });
    $('settings-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.saveSettings();
    });
    $('setup-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const setupId = new FormData(event.target).get('setup');
      this.act(() => api.chooseSetup(this.id, this.actingToken(),
                                     { setupId, rules: this.session.rules }));
    });
    $('owner-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const field = event.target.elements.token;
      tokens.setOwner(this.id, field.value.trim());
      field.value = '';
      this.render();
    });
    $('player-name').addEventListener('change', (event) => {
      tokens.playerName = event.target.value.trim();
    });
    $('player-id').addEventListener('change', (event) => {
      tokens.playerId = event.target.value.trim();
    });
    document.addEventListener('keydown', (event) => this.onKey(event));
    // What stands above the board grows and shrinks (the turn, the clocks,
    // notes): the board follows.
    new ResizeObserver(() => this.fitBoard()).observe($('board').parentElement);
    window.addEventListener('resize', () => this.fitBoard());
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

  // The board as large as the window shows whole below what stands above it
  // (style.css reads --board-top), so that every square and the turn
  // buttons on it are in view without scrolling.
  fitBoard() {
    const frame = $('board');
    if (frame.offsetParent === null) return;
    const top = Math.round(frame.getBoundingClientRect().top + window.scrollY);
    if (frame.style.getPropertyValue('--board-top') !== `${top}px`) {
      frame.style.setProperty('--board-top', `${top}px`);
    }
  }

  async open(id) {
    if (this.id === id) return;
    this.close();
    this.id = id;
    this.session = null;
    this.newestVersion = 0;
    this.troubled = false;
    this.selection = null;
    this.flipChoice = null;
    this.settingsDirty = false;
    this.board.clearShot();
    this.board.setSelection(null);
    this.board.setHint([]);
    this.board.setBoard(null);
    this.recordKey = null;
    this.live = null;
    this.clocks.set(null);
    $('log').replaceChildren();
    $('game-title').textContent = t('loading');
    $('game-meta').textContent = '';
    $('player-name').value = tokens.playerName;
    $('player-id').value = tokens.playerId;
    this.say(null);
    show($('result'), false);
    show($('idle-warning'), false);
    show($('game-missing'), false);
    show($('game-layout'), true);
    show($('game'), true);
    try {
      const { setups, schemes, levels } = await catalog();
      this.setups = setups;
      this.levels = levels;
      this.schemes = schemes;
      fillSelect($('settings-form').elements.colorScheme, schemeOptions(schemes));
      fillSelect($('setup-form').elements.setup, setupOptions(setups));
      const session = await api.getSession(id);
      if (this.id !== id) return;
      pageError(null);
      this.loadedVersion = Number(session.version);
      this.apply(session);
      this.feed = new EventFeed(id, Math.max(0, this.loadedVersion - HISTORY_SHOWN),
                                (event) => this.onEvent(event),
                                (trouble) => this.trouble(trouble));
      this.idleTimer = setInterval(() => this.renderIdle(), 1000);
    } catch (error) {
      if (this.id !== id) return;
      if (error.code === 'NOT_FOUND') {
        // A bad or old link: no board, no seats to join, a way back.
        $('game-title').textContent = t('noSuchBoard');
        document.title = `${t('noSuchBoard')} · Khet`;
        show($('game-layout'), false);
        show($('game-missing'), true);
        return;
      }
      $('game-title').textContent = t('board');
      pageError(error);
    }
  }

  close() {
    this.feed?.close();
    this.feed = null;
    clearInterval(this.idleTimer);
    this.idleTimer = null;
    clearTimeout(this.catchUp);
    this.id = null;
    this.clocks.set(null);
    this.record.close();
    show($('game'), false);
  }

  // ---- State ----------------------------------------------------------

  // The seat this browser holds in the session ({token, color, name}), or
  // null. A stored seat that someone else now holds (after a reset or a
  // leave) is forgotten.
  // After a rematch the players have swapped colours, and so has the seat
  // the token holds.
  me() {
    const mine = tokens.player(this.id);
    if (!mine || !this.session) return mine;
    const person = (color) => {
      const seat = this.session.seats?.find((s) => s.color === color);
      return seat?.occupied && !seat.computer && seat.playerName === mine.name;
    };
    if (person(mine.color)) return mine;
    const other = mine.color === 'RED' ? 'SILVER' : 'RED';
    if (person(other) && this.session.status !== 'WAITING_FOR_PLAYERS') {
      const swapped = { ...mine, color: other };
      tokens.setPlayer(this.id, swapped);
      return swapped;
    }
    tokens.clearPlayer(this.id);
    return null;
  }

  // A side's name in the board's colour scheme ("Orange" on Nile).
  side(color) {
    return sideName(this.session?.settings?.colorScheme, color);
  }

  // A token that may seat the computer or choose the setup.
  actingToken() {
    return tokens.owner(this.id) ?? this.me()?.token ?? null;
  }

  apply(session) {
    if (!session || session.id !== this.id) return;
    const version = Number(session.version);
    if (version < this.newestVersion) return;
    if (this.session && version < Number(this.session.version)) return;
    const moved = this.session && this.session.board?.position !== session.board?.position;
    this.session = session;
    if (moved) {
      this.deselect();
      // What was said about the position before (a refusal, a hint) is stale;
      // trouble with the connection and the timeout's reset are not.
      if (!['connection', 'timeout'].includes($('message').dataset.kind)) this.say(null);
    }
    this.render();
    // The moves are read again when the game, its length or its status changed.
    const key = `${session.gameId}|${(session.moves ?? []).length}|${session.status}`;
    if (key !== this.recordKey) {
      if (this.recordKey === null) this.record.open(this.id, 'current');
      else this.record.refresh();
      this.recordKey = key;
    }
  }

  // Re-reads the session; calls made while one is in flight are coalesced.
  async refresh() {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    const id = this.id;
    try {
      do {
        this.refreshAgain = false;
        const session = await api.getSession(id);
        if (this.id === id) this.apply(session);
      } while (this.refreshAgain && this.id === id);
    } catch (error) {
      if (this.id === id) this.say(error);
    } finally {
      this.refreshing = false;
    }
  }

  onEvent(event) {
    this.log(event);
    if (Number(event.version) <= this.loadedVersion) return;  // before the page opened
    observeServerTime(event.time);
    // The clocks as they stood after the event, until the session is re-read.
    if (event.clocks && Number(event.version) >= Number(this.session?.version ?? 0)) {
      const result = event.gameOver?.result ?? event.moveMade?.result;
      this.clocks.set(event.clocks, flaggedSide(result));
    }
    const move = event.moveMade;
    if (move) {
      this.showMove(event.version, move.board, move.move?.notation, move.shot, move.removals);
    }
    // An accepted takeback: the board goes back to the position it names.
    const takeback = event.takebackAnswered;
    if (takeback?.accepted && takeback.board) {
      this.newestVersion = Math.max(this.newestVersion, Number(event.version));
      this.deselect();
      this.live = null;
      if (!this.record.replaying) {
        this.board.setBoard(takeback.board);
        this.board.clearShot();
      }
    }
    if (event.gameReset?.timedOut) {
      this.say(t('timedOutReset'));
      $('message').dataset.kind = 'timeout';
    }
    if (event.sessionDeleted) {
      tokens.forget(this.id);
      this.say(t('boardDeleted'));
      this.feed?.close();
      return;
    }
    this.refresh();
  }

  // The event feed failed (error) or is back (null): after trouble the
  // session is read again, in case the feed missed something.
  trouble(error) {
    if (error) {
      this.say(error);
      $('message').dataset.kind = 'connection';
      this.troubled = true;
    } else if (this.troubled) {
      this.troubled = false;
      if ($('message').dataset.kind === 'connection') this.say(null);
      this.refresh();
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
    if (this.record.replaying) return;
    this.board.playMove({ before, board, notation, shot, removals, key,
                          own: this.isMine(before, shot) });
  }

  // Whether this page's player made the move played in `before` (whose
  // laser `shot` is).
  isMine(before, shot) {
    const mover = shot?.shooter ?? before?.sideToMove;
    return Boolean(mover) && mover === this.me()?.color;
  }

  // Brings the live board to the game at once when it is still playing
  // moves out or waiting for them; answers whether that changed what the
  // square `name` shows (a click there then did only this).
  syncBoard(name) {
    const s = this.session;
    const shown = this.board.pieceOn(name);
    let changed = this.board.catchUp();
    const ahead = s && Number(s.version) > (this.live?.version ?? 0)
      && this.live?.key !== shotKey(s.board, s.lastShot);
    if (ahead && !this.record.replaying) {
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
    const sameGame = drawn && drawn.gameId === s.gameId && !this.record.replaying;
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

  // An earlier ply is shown (its number) or the live game again (null).
  onReplay(ply) {
    if (ply !== null) {
      this.deselect();
      this.say(null);
    }
    this.live = null;  // the live board is drawn again when the replay ends
    this.render();
  }

  // ---- Drawing ----------------------------------------------------------

  render() {
    const s = this.session;
    if (!s) return;
    const me = this.me();
    const owner = tokens.owner(this.id);
    const moves = s.moves ?? [];
    const running = s.status === 'IN_PROGRESS';
    const myTurn = running && me && s.board?.sideToMove === me.color;

    document.title = `${s.name || t('untitledBoard')} · Khet`;
    $('game-title').textContent = s.name || t('untitledBoard');
    $('game-meta').textContent = [
      setupName(this.setups, s.setupId), editionName(s.board?.edition), statusText(s.status),
      t(moves.length === 1 ? 'turnCountOne' : 'turnCountOther', { count: moves.length }),
    ].join(' · ');
    show($('rated-mark'), Boolean(s.gameRated));

    this.board.setScheme(s.colorScheme);
    this.record.setScheme(s.settings?.colorScheme);
    for (const side of ['silver', 'red']) {
      const hex = s.colorScheme?.[side]?.hex;
      if (hex) $('game').style.setProperty(`--${side}`, hex);
    }
    for (const clock of $('clocks').querySelectorAll('.clock')) {
      clock.querySelector('.side-name').textContent = this.side(clock.dataset.color);
    }
    this.board.setFlipped(this.flipChoice ?? me?.color === 'RED');
    const replaying = this.record.replaying;
    if (!replaying) this.showSession(s);
    $('board').classList.toggle('my-turn', Boolean(myTurn) && !replaying);
    $('board').classList.toggle('replaying', replaying);
    this.fitBoard();

    $('turn').textContent = this.turnText(s, me);
    const outcome = s.result?.outcome;
    const over = s.status === 'FINISHED' || (outcome && outcome !== 'ONGOING'
                                             && outcome !== 'OUTCOME_UNSPECIFIED');
    $('result').textContent = over
      ? resultSentence(s.result, (color) => this.side(color)) || t('gameIsOver') : '';
    $('result').className = `result outcome-${(outcome ?? '').toLowerCase()}`;
    show($('result'), Boolean(over));
    this.clocks.set(s.clocks, flaggedSide(s.result));

    this.renderSeats(s, me, owner);

    const bothSeated = (s.seats ?? []).every((seat) => seat.occupied);
    const canRematch = s.status === 'FINISHED' && bothSeated && Boolean(owner || me);
    show($('play-actions'), Boolean(me) || canRematch);
    const offeredBy = s.drawOfferedBy && s.drawOfferedBy !== 'COLOR_UNSPECIFIED'
      ? s.drawOfferedBy : null;
    for (const id of ['hint', 'resign', 'offer-draw', 'accept-draw']) {
      show($(id), running && Boolean(me));
    }
    // A repetition draw can be claimed only on the third occurrence.
    show($('claim-draw'), Boolean(myTurn) && s.repetitionCount >= 3);
    show($('leave'), Boolean(me));
    show($('rematch'), canRematch);
    $('offer-draw').disabled = offeredBy === me?.color;
    $('offer-draw').textContent = t(offeredBy === me?.color ? 'drawOffered' : 'offerDraw');
    $('accept-draw').disabled = !offeredBy || offeredBy === me?.color;
    this.renderHint(s, running && Boolean(me), myTurn);
    this.renderTakeback(s, running ? me : null);
    this.renderIdle();

    show($('owner-panel'), Boolean(owner));
    show($('owner-claim'), !owner);
    $('owner-token').textContent = owner ?? '';
    if (owner) this.fillSettings(s.settings);
    show($('setup-panel'), Boolean(owner || me) && !running);
    // With both seats taken a new setup starts its game at once.
    const restarts = bothSeated && s.status === 'FINISHED';
    $('setup-note').textContent = restarts ? t('setupRestarts') : '';
    $('choose-setup').textContent = t(restarts ? 'newGameWithSetup' : 'chooseSetup');
    if (!$('setup-form').contains(document.activeElement)) {
      $('setup-form').elements.setup.value = s.setupId;
    }
  }

  // The hint button follows the board's hint setting and the turn.
  renderHint(s, playing, myTurn) {
    const off = Boolean(s.settings?.hintsOff);
    $('hint').disabled = off || !myTurn;
    const note = off ? t('hintsOff') : '';
    $('hint-note').textContent = note;
    show($('hint-note'), playing && Boolean(note));
  }

  // The takeback button (disabled, saying why, when the board's takebacks
  // are off or the game is rated) and the prompt to answer the opponent's
  // request. `me` is null unless a game runs and this page holds a seat.
  renderTakeback(s, me) {
    const asker = colorOf(s.takebackRequestedBy);
    const reason = s.settings?.takebacksOff ? 'takebacksOff' : s.gameRated ? 'takebacksRated' : null;
    show($('takeback'), Boolean(me));
    $('takeback').disabled = Boolean(reason) || asker !== null || !(s.moves ?? []).length;
    $('takeback').textContent = t(asker && asker === me?.color ? 'takebackAsked' : 'takeback');
    $('takeback-note').textContent = reason ? t(reason) : '';
    show($('takeback-note'), Boolean(me) && Boolean(reason));
    const answering = Boolean(me) && asker !== null && asker !== me.color;
    $('takeback-question').textContent = answering
      ? t('takebackQuestion', { side: this.side(asker) }) : '';
    show($('takeback-prompt'), answering);
  }

  // The rating of a seat's player id, read once per game and status (so a
  // rated game's end shows the new one); null until known or while unrated.
  rating(playerId, s) {
    if (!playerId) return null;
    const key = `${s.gameId}|${s.status}`;
    const known = this.ratings.get(playerId);
    if (known?.key === key) return known.rating;
    this.ratings.set(playerId, { key, rating: known?.rating ?? null });
    api.getPlayer(playerId).then(
      (player) => ({ rating: Math.round(player.rating), games: player.games }),
      (error) => (error.code === 'NOT_FOUND' ? null : known?.rating ?? null),
    ).then((rating) => {
      if (this.ratings.get(playerId)?.key !== key) return;
      this.ratings.set(playerId, { key, rating });
      if (this.session) this.renderSeats(this.session, this.me(), tokens.owner(this.id));
    });
    return known?.rating ?? null;
  }

  // The inactivity timeout's countdown: a note while it is far, a warning
  // in its last minutes (or quarter).
  renderIdle() {
    const s = this.session;
    const element = $('idle-warning');
    const settings = s?.settings ?? {};
    const watched = s?.status === 'IN_PROGRESS' && settings.timeoutEnabled && !s.clocks
      && s.lastMoveAt;
    if (!watched) {
      show(element, false);
      return;
    }
    const limit = Number(settings.timeoutSeconds) * 1000;
    const left = Date.parse(s.lastMoveAt) + limit - serverNow();
    const close = left <= Math.min(IDLE_WARN_MS, limit / 4);
    element.textContent = t(close ? 'idleWarning' : 'idleNote', { time: duration(left) });
    element.classList.toggle('close', close);
    show(element, true);
  }

  // Asks the computer for a move for the player to move, and marks it.
  async hint() {
    const button = $('hint');
    button.disabled = true;
    const version = this.session?.version;
    try {
      const reply = await api.suggest(this.id, { level: 3 }, HINT_TIMEOUT_MS);
      if (this.session?.version !== version) return;
      const move = reply.move ?? {};
      this.board.setHint([move.from, move.to].filter(Boolean));
      this.say(t('hintSays', { move: move.notation }));
    } catch (error) {
      this.say(error);
    } finally {
      this.render();
    }
  }

  // Words made in code and not marked for localize() are written again in
  // the page's new language (the viewer's: the board's own language is for
  // its announcements).
  relabel() {
    this.record.relabel();
    fillSelect($('setup-form').elements.setup, setupOptions(this.setups));
    fillSelect($('settings-form').elements.colorScheme, schemeOptions(this.schemes ?? []));
    if (this.selection) {
      const { from, piece } = this.selection;
      $('selected-label').textContent = t('selected', { piece: this.pieceName(piece),
                                                        square: from });
    }
    this.render();
  }

  // A piece for people: "Silver Pyramid", its side named as the scheme paints it.
  pieceName(piece) {
    return pieceName(piece, this.session?.board?.edition, (color) => this.side(color));
  }

  turnText(s, me) {
    const offeredBy = s.drawOfferedBy && s.drawOfferedBy !== 'COLOR_UNSPECIFIED'
      ? s.drawOfferedBy : null;
    if (s.status === 'WAITING_FOR_PLAYERS') {
      const free = (s.seats ?? []).filter((seat) => !seat.occupied)
        .map((seat) => this.side(seat.color));
      if (free.length > 1) {
        return t('waitingMany', { free: t('listAnd', { list: free[0], last: free[1] }) });
      }
      return t('waitingOne', { free: free[0] });
    }
    if (s.status !== 'IN_PROGRESS') return t('gameOver');
    const side = this.side(s.board?.sideToMove);
    const parts = [me && s.board?.sideToMove === me.color ? t('yourMove', { side })
      : t('sideToMove', { side })];
    if (offeredBy) {
      parts.push(offeredBy === me?.color ? t('youOfferedDraw')
        : t('sideOffersDraw', { side: this.side(offeredBy) }));
    }
    const asker = colorOf(s.takebackRequestedBy);
    if (asker) {
      parts.push(asker === me?.color ? t('youAskedTakeback')
        : t('sideAsksTakeback', { side: this.side(asker) }));
    }
    if (s.repetitionCount >= 3) parts.push(t('repeatedThrice'));
    return parts.join(' ');
  }

  renderSeats(s, me, owner) {
    const canSeatComputer = Boolean(owner || me);
    const seated = Boolean(me) || (s.seats ?? []).every((seat) => seat.occupied);
    $('player-name-label').hidden = seated;
    $('player-id-field').hidden = seated;
    $('seats').replaceChildren(...(s.seats ?? []).map((seat) => {
      const color = seat.color;
      const name = this.side(color);
      const mine = me?.color === color;
      const player = seat.computer
        ? t('playerComputerLevel', { name: seat.playerName, level: seat.computerLevel })
        : seat.playerName;
      const who = !seat.occupied ? h('span', { class: 'free' }, t('free'))
        : h('span', { class: 'seat-player' }, mine ? t('playerYou', { name: player }) : player);
      const rated = seat.occupied && !seat.computer ? this.rating(seat.playerId, s) : null;
      const rating = rated ? h('span', {
        class: 'seat-rating', title: t('ratingGames', { count: rated.games }),
      }, t('seatRating', { rating: rated.rating })) : null;
      const actions = [];
      if (!seat.occupied && !me) {
        actions.push(h('button', { type: 'button', onclick: () => this.join(color) },
                       t('joinAs', { side: name })));
      }
      if (!seat.occupied && canSeatComputer) {
        const level = h('select', { 'aria-label': t('computerLevelFor', { side: name }) },
          ...this.levels.map((l) => h('option', { value: l.number, selected: l.number === 3 },
                                      `${l.number}: ${l.name}`)));
        actions.push(level, h('button', {
          type: 'button', class: 'secondary',
          onclick: () => this.act(() => api.seatComputer(this.id, this.actingToken(),
                                                        { color, level: Number(level.value) })),
        }, t('computerAs', { side: name })));
      }
      if (seat.computer && canSeatComputer) {
        actions.push(h('button', {
          type: 'button', class: 'secondary',
          onclick: () => this.act(() => api.leave(this.id, this.actingToken(), { color })),
        }, t('removeComputer')));
      }
      return h('div', { class: `seat seat-${color.toLowerCase()}`, 'data-color': color },
        h('div', { class: 'seat-who' },
          h('span', { class: `swatch ${color.toLowerCase()}`, 'aria-hidden': 'true' }),
          h('strong', {}, name), ' ', who, rating ? ' ' : null, rating),
        actions.length ? h('div', { class: 'controls' }, ...actions) : null);
    }));
  }

  fillSettings(settings = {}) {
    const form = $('settings-form');
    if (this.settingsDirty || form.contains(document.activeElement)) return;
    const fields = form.elements;
    fields.colorScheme.value = settings.colorScheme ?? 'classic';
    fields.language.value = settings.language || 'en';
    fields.hints.checked = !settings.hintsOff;
    fields.timeoutEnabled.checked = Boolean(settings.timeoutEnabled);
    fields.timeoutSeconds.value = settings.timeoutSeconds ?? '';
    fields.quiet.checked = Boolean(settings.quiet);
    fields.takebacks.checked = !settings.takebacksOff;
    fields.rated.checked = Boolean(settings.rated);
  }

  log(event) {
    const kind = Object.keys(event).find((k) => !['version', 'sessionId', 'time', 'clocks',
                                                  'announcement'].includes(k));
    const quiet = { seatChanged: 'eventSeat', setupChosen: 'eventSetup', gameStarted: 'eventStart',
                    moveMade: 'eventMove', gameOver: 'eventOver', gameReset: 'eventReset',
                    drawOffered: 'eventDraw', settingsChanged: 'eventSettings',
                    takebackRequested: 'eventTakeback', takebackAnswered: 'eventTakebackAnswer',
                    sessionDeleted: 'eventDeleted' }[kind];
    const text = event.announcement || (quiet ? t(quiet) : '');
    if (!text) return;
    const time = event.time ? new Date(event.time) : null;
    const item = h('li', { 'data-version': event.version, 'data-kind': kind },
      time && !Number.isNaN(time.getTime())
        ? h('time', { datetime: event.time }, time.toLocaleTimeString()) : null,
      ' ', text);
    const list = $('log');
    list.prepend(item);
    while (list.children.length > LOG_LENGTH) list.lastElementChild.remove();
  }

  // Shows a message (a string or an error) under the board; null hides it.
  say(message) {
    const element = $('message');
    delete element.dataset.kind;
    element.textContent = message == null ? '' : typeof message === 'string'
      ? message : errorText(message);
    element.classList.toggle('info', typeof message === 'string');
    show(element, message != null);
  }

  // ---- Actions ----------------------------------------------------------

  // Runs a call that answers with the Session, showing its error if any.
  async act(call) {
    try {
      const answer = await call();
      this.say(null);
      if (answer?.id) this.apply(answer);
      else this.refresh();
    } catch (error) {
      this.say(error);
      this.refresh();
    }
  }

  // A button that needs a second click within a few seconds.
  confirmed(button, question, call) {
    if (button.dataset.confirming) {
      delete button.dataset.confirming;
      button.textContent = button.dataset.label;
      this.act(call);
      return;
    }
    button.dataset.confirming = 'yes';
    button.dataset.label = button.textContent;
    button.textContent = question;
    setTimeout(() => {
      if (!button.dataset.confirming) return;
      delete button.dataset.confirming;
      button.textContent = button.dataset.label;
    }, CONFIRM_MS);
  }

  async join(color) {
    const name = $('player-name').value.trim();
    if (!name) {
      this.say(t('typeName'));
      $('player-name').focus();
      return;
    }
    try {
      const playerId = $('player-id').value.trim();
      const body = { color, playerName: name };
      if (playerId) body.playerId = playerId;
      const reply = await api.join(this.id, body);
      tokens.playerName = name;
      tokens.playerId = playerId;
      tokens.setPlayer(this.id, { token: reply.playerToken, color: reply.color, name });
      this.say(null);
      this.apply(reply.session);
    } catch (error) {
      this.say(error);
      this.refresh();
    }
  }

  async leave() {
    const me = this.me();
    if (!me) return;
    try {
      const session = await api.leave(this.id, me.token);
      tokens.clearPlayer(this.id);
      this.say(null);
      this.apply(session);
    } catch (error) {
      this.say(error);
    }
  }

  async remove() {
    await api.deleteSession(this.id, tokens.owner(this.id));
    tokens.forget(this.id);
    window.location.hash = '#/';
  }

  async saveSettings() {
    const fields = $('settings-form').elements;
    const settings = {
      colorScheme: fields.colorScheme.value,
      language: fields.language.value,
      hints: fields.hints.checked,
      timeoutEnabled: fields.timeoutEnabled.checked,
      quiet: fields.quiet.checked,
      takebacks: fields.takebacks.checked,
      rated: fields.rated.checked,
    };
    if (fields.timeoutSeconds.value !== '') settings.timeoutSeconds = fields.timeoutSeconds.value;
    this.settingsDirty = false;
    await this.act(() => api.updateSettings(this.id, tokens.owner(this.id), settings));
  }

  // ---- Moving -----------------------------------------------------------

  async onSquare(name) {
    const s = this.session;
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
    if (this.record.replaying) {
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
    const version = this.session.version;
    let moves;
    try {
      ({ moves = [] } = await api.legalMoves(this.id, square));
    } catch (error) {
      this.say(error);
      return;
    }
    if (this.session?.version !== version) return;  // the board changed meanwhile
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
    $('selected-label').textContent = t('selected', { piece: this.pieceName(piece), square });
    $('move-choice').replaceChildren();
    show($('move-controls'), true);
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

  async play(move) {
    const me = this.me();
    const version = this.session.version;
    this.deselect();
    try {
      const reply = await api.move(this.id, me.token, {
        move: { notation: move.notation }, expectedVersion: version,
      });
      this.say(null);
      this.showMove(reply.version, reply.board, reply.move?.notation, reply.shot,
                    reply.removals);
    } catch (error) {
      // ABORTED: the board changed between the click and the move (its
      // message names versions, which are not for people).
      this.say(error.code === 'ABORTED' ? t('boardChanged') : error);
    }
    this.refresh();
  }
}
