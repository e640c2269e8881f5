// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// One board's page: the game drawn and played, the seats, the player's and
// the owner's controls (hints, rematch, settings), the moves (with their
// replay, game_record.js) and the event log, in the session's language. The
// session is re-read after every change; the live board follows it and the
// moves' replies and events (live_board.js), the player picks moves on it
// (move_picker.js), the seats are seats_panel.js's and the words about the
// turn game_words.js's. A game that no move keeps alive says when the
// inactivity timeout will reset it. A player may ask to take a move back
// (the opponent answers on their page), and a seat held with a player id
// shows that player's rating.

import { api } from './api.js';
import { BoardView } from './board.js';
import { ClockView } from './clocks.js';
import { catalog, editionName, schemeOptions, setupName, setupOptions, statusText }
  from './catalog.js';
import { $, errorText, fillSelect, h, pageError, show } from './dom.js';
import { EventFeed } from './events.js';
import { GameRecordPanel } from './game_record.js';
import { colorOf, duration, flaggedSide, turnText } from './game_words.js';
import { t } from './language.js';
import { LiveBoard } from './live_board.js';
import { MovePicker } from './move_picker.js';
import { pieceName } from './piece_words.js';
import { resultSentence } from './result_words.js';
import { SeatsPanel } from './seats_panel.js';
import { observeServerTime, serverNow } from './server_clock.js';
import { sideName } from './sides.js';
import { sounds } from './sound.js';
import { tokens } from './tokens.js';

const IDLE_WARN_MS = 10 * 60 * 1000;  // the inactivity note turns into a warning
const HINT_TIMEOUT_MS = 4000;
const HISTORY_SHOWN = 20;  // earlier events shown in the log on opening
const LOG_LENGTH = 60;
const CONFIRM_MS = 4000;

export class GamePage {
  constructor() {
    this.board = new BoardView($('board'), { onSquare: (name) => this.picker.onSquare(name),
                                             onRotate: (kind) => this.picker.rotate(kind) });
    this.board.onSound = (kind, delay) => sounds.play(kind, delay);
    this.clocks = new ClockView($('clocks'));
    this.record = new GameRecordPanel($('moves-panel'), {
      board: this.board, bar: $('replay-bar'), page: $('game'), live: true,
      onReplay: (ply) => this.onReplay(ply),
    });
    this.recordKey = null;   // the game, its length and status the moves were read for
    this.live = new LiveBoard(this.board, {
      replaying: () => this.record.replaying,
      deselect: () => this.picker.deselect(),
      render: () => this.render(),
      myColor: () => this.me()?.color,
    });
    this.picker = new MovePicker(this.board, {
      session: () => this.session,
      me: () => this.me(),
      replaying: () => this.record.replaying,
      say: (message) => this.say(message),
      side: (color) => this.side(color),
      pieceName: (piece) => this.pieceName(piece),
      syncBoard: (name) => this.live.syncBoard(name, this.session),
      legalMoves: (square) => api.legalMoves(this.id, square),
      play: (move) => this.play(move),
    });
    this.seats = new SeatsPanel({
      side: (color) => this.side(color),
      levels: () => this.levels,
      join: (color) => this.join(color),
      seatComputer: (color, level) => this.act(
        () => api.seatComputer(this.id, this.actingToken(), { color, level })),
      removeComputer: (color) => this.act(
        () => api.leave(this.id, this.actingToken(), { color })),
      rated: () => {
        if (this.session) this.seats.render(this.session, this.me(), tokens.owner(this.id));
      },
    });
    this.idleTimer = null;
    this.id = null;
    this.session = null;
    this.feed = null;
    this.flipChoice = null;  // null: Red's player sees the board from Red's side
    this.loadedVersion = 0;
    this.levels = [];
    this.setups = [];
    this.refreshing = false;
    this.refreshAgain = false;
    this.settingsDirty = false;
    this.troubled = false;
    this.wire();
  }

  wire() {
    const click = (id, action) => $(id).addEventListener('click', action);
    click('rotate-clockwise', () => this.picker.rotate('ROTATE_CLOCKWISE'));
    click('rotate-anticlockwise', () => this.picker.rotate('ROTATE_ANTICLOCKWISE'));
    click('deselect', () => this.picker.deselect());
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
    document.addEventListener('keydown', (event) => this.picker.onKey(event));
    // What stands above the board grows and shrinks (the turn, the clocks,
    // notes): the board follows.
    new ResizeObserver(() => this.fitBoard()).observe($('board').parentElement);
    window.addEventListener('resize', () => this.fitBoard());
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
    this.live.reset();
    this.troubled = false;
    this.picker.selection = null;
    this.flipChoice = null;
    this.settingsDirty = false;
    this.board.clearShot();
    this.board.setSelection(null);
    this.board.setHint([]);
    this.board.setBoard(null);
    this.recordKey = null;
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
    this.live.stop();
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
    if (this.live.stale(version)) return;
    if (this.session && version < Number(this.session.version)) return;
    const moved = this.session && this.session.board?.position !== session.board?.position;
    this.session = session;
    if (moved) {
      this.picker.deselect();
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
      this.live.showMove(event.version, move.board, move.move?.notation, move.shot,
                         move.removals);
    }
    // An accepted takeback: the board goes back to the position it names.
    const takeback = event.takebackAnswered;
    if (takeback?.accepted && takeback.board) this.live.takeBack(event.version, takeback.board);
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

  // An earlier ply is shown (its number) or the live game again (null).
  onReplay(ply) {
    if (ply !== null) {
      this.picker.deselect();
      this.say(null);
    }
    this.live.forget();  // the live board is drawn again when the replay ends
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
    if (!replaying) this.live.showSession(s);
    $('board').classList.toggle('my-turn', Boolean(myTurn) && !replaying);
    $('board').classList.toggle('replaying', replaying);
    this.fitBoard();

    $('turn').textContent = turnText(s, me, (color) => this.side(color));
    const outcome = s.result?.outcome;
    const over = s.status === 'FINISHED' || (outcome && outcome !== 'ONGOING'
                                             && outcome !== 'OUTCOME_UNSPECIFIED');
    $('result').textContent = over
      ? resultSentence(s.result, (color) => this.side(color)) || t('gameIsOver') : '';
    $('result').className = `result outcome-${(outcome ?? '').toLowerCase()}`;
    show($('result'), Boolean(over));
    this.clocks.set(s.clocks, flaggedSide(s.result));

    this.seats.render(s, me, owner);

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
    this.picker.relabel();
    this.render();
  }

  // A piece for people: "Silver Pyramid", its side named as the scheme paints it.
  pieceName(piece) {
    return pieceName(piece, this.session?.board?.edition, (color) => this.side(color));
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

  // Plays a move picked on the board (move_picker.js).
  async play(move) {
    const me = this.me();
    const version = this.session.version;
    this.picker.deselect();
    try {
      const reply = await api.move(this.id, me.token, {
        move: { notation: move.notation }, expectedVersion: version,
      });
      this.say(null);
      this.live.showMove(reply.version, reply.board, reply.move?.notation, reply.shot,
                         reply.removals);
    } catch (error) {
      // ABORTED: the board changed between the click and the move (its
      // message names versions, which are not for people).
      this.say(error.code === 'ABORTED' ? t('boardChanged') : error);
    }
    this.refresh();
  }
}
