// One board's page: the game drawn and played, the seats, the player's and
// the owner's controls, the moves (with their replay, game_record.js) and
// the event log. The session is re-read after every change; moves are shown
// (and their laser animated) as soon as the move's reply or event arrives,
// unless an earlier move is being replayed.

import { api } from './api.js';
import { BoardView } from './board.js';
import { ClockView } from './clocks.js';
import { catalog, editionName, schemeOptions, setupName, setupOptions, statusText }
  from './catalog.js';
import { $, errorText, fillSelect, h, pageError, show } from './dom.js';
import { EventFeed } from './events.js';
import { GameRecordPanel } from './game_record.js';
import { observeServerTime } from './server_clock.js';
import { tokens } from './tokens.js';

const SIDE = { SILVER: 'Silver', RED: 'Red' };
const TWO_STATE = new Set(['SCARAB', 'EYE_OF_HORUS']);  // both turns are one move
const HISTORY_SHOWN = 20;  // earlier events shown in the log on opening
const LOG_LENGTH = 60;
const CONFIRM_MS = 4000;

const shotKey = (board, shot) => `${board?.position}|${shot?.text}`;

// The side whose time ran out in a game that ended so, else null.
function flaggedSide(result) {
  if (result?.reason !== 'TIME_FORFEIT') return null;
  return { SILVER_WINS: 'RED', RED_WINS: 'SILVER' }[result.outcome] ?? null;
}

export class GamePage {
  constructor() {
    this.board = new BoardView($('board'), { onSquare: (name) => this.onSquare(name) });
    this.clocks = new ClockView($('clocks'));
    this.record = new GameRecordPanel($('moves-panel'), {
      board: this.board, bar: $('replay-bar'), page: $('game'), live: true,
      onReplay: (ply) => this.onReplay(ply),
    });
    this.recordKey = null;   // the game, its length and status the moves were read for
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
    this.wire();
  }

  wire() {
    const click = (id, action) => $(id).addEventListener('click', action);
    click('rotate-clockwise', () => this.rotate('ROTATE_CLOCKWISE'));
    click('rotate-anticlockwise', () => this.rotate('ROTATE_ANTICLOCKWISE'));
    click('deselect', () => this.deselect());
    click('resign', (e) => this.confirmed(e.target, 'Really resign?',
                                          () => api.resign(this.id, this.me().token)));
    click('offer-draw', () => this.act(() => api.offerDraw(this.id, this.me().token)));
    click('accept-draw', () => this.act(() => api.acceptDraw(this.id, this.me().token)));
    click('claim-draw', () => this.act(() => api.claimRepetitionDraw(this.id, this.me().token)));
    click('leave', () => this.leave());
    click('flip', () => {
      this.flipChoice = !this.board.flipped;
      this.render();
    });
    click('reset', (e) => this.confirmed(e.target, 'Really reset?',
                                         () => api.reset(this.id, tokens.owner(this.id))));
    click('delete', (e) => this.confirmed(e.target, 'Really delete?', () => this.remove()));
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
    this.board.setBoard(null);
    this.recordKey = null;
    this.clocks.set(null);
    $('log').replaceChildren();
    $('game-title').textContent = 'Loading…';
    $('game-meta').textContent = '';
    $('player-name').value = tokens.playerName;
    $('svg-link').href = `/v1/sessions/${encodeURIComponent(id)}/board.svg?laser=true`;
    this.say(null);
    show($('result'), false);
    show($('game'), true);
    try {
      const { setups, schemes, levels } = await catalog();
      this.setups = setups;
      this.levels = levels;
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
    } catch (error) {
      if (this.id !== id) return;
      $('game-title').textContent = error.code === 'NOT_FOUND' ? 'No such board' : 'Board';
      pageError(error);
    }
  }

  close() {
    this.feed?.close();
    this.feed = null;
    this.id = null;
    this.clocks.set(null);
    this.record.close();
    show($('game'), false);
  }

  // ---- State ----------------------------------------------------------

  // The seat this browser holds in the session ({token, color, name}), or
  // null. A stored seat that someone else now holds (after a reset or a
  // leave) is forgotten.
  me() {
    const mine = tokens.player(this.id);
    if (!mine || !this.session) return mine;
    const seat = this.session.seats?.find((s) => s.color === mine.color);
    if (seat?.occupied && !seat.computer && seat.playerName === mine.name) return mine;
    tokens.clearPlayer(this.id);
    return null;
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
    if (moved) this.deselect();
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
    if (move) this.showMove(event.version, move.board, move.move?.notation, move.shot);
    if (event.sessionDeleted) {
      tokens.forget(this.id);
      this.say('This board has been deleted.');
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

  // Shows a move at once: the position after it and its laser, animated.
  showMove(version, board, notation, shot) {
    if (!board) return;
    this.newestVersion = Math.max(this.newestVersion, Number(version ?? 0));
    this.deselect();
    if (this.record.replaying) return;
    this.board.setBoard(board, notation);
    if (shot?.segments?.length) this.board.showShot(shot, shotKey(board, shot), { animate: true });
  }

  // An earlier ply is shown (its number) or the live game again (null).
  onReplay(ply) {
    if (ply !== null) {
      this.deselect();
      this.say(null);
    }
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

    document.title = `${s.name || 'Untitled board'} · Khet`;
    $('game-title').textContent = s.name || 'Untitled board';
    $('game-meta').textContent = [
      setupName(this.setups, s.setupId), editionName(s.board?.edition), statusText(s.status),
      `${moves.length} move${moves.length === 1 ? '' : 's'}`,
    ].join(' · ');

    this.board.setScheme(s.colorScheme);
    for (const side of ['silver', 'red']) {
      const hex = s.colorScheme?.[side]?.hex;
      if (hex) $('game').style.setProperty(`--${side}`, hex);
    }
    this.board.setFlipped(this.flipChoice ?? me?.color === 'RED');
    const replaying = this.record.replaying;
    if (!replaying) {
      this.board.setBoard(s.board, moves[moves.length - 1]);
      if (s.lastShot?.segments?.length) {
        this.board.showShot(s.lastShot, shotKey(s.board, s.lastShot), { animate: false });
      } else {
        this.board.clearShot();
      }
    }
    $('board').classList.toggle('my-turn', Boolean(myTurn) && !replaying);
    $('board').classList.toggle('replaying', replaying);

    $('turn').textContent = this.turnText(s, me);
    const outcome = s.result?.outcome;
    const over = s.status === 'FINISHED' || (outcome && outcome !== 'ONGOING'
                                             && outcome !== 'OUTCOME_UNSPECIFIED');
    $('result').textContent = over ? (s.result?.text || 'The game is over.') : '';
    $('result').className = `result outcome-${(outcome ?? '').toLowerCase()}`;
    show($('result'), Boolean(over));
    this.clocks.set(s.clocks, flaggedSide(s.result));

    this.renderSeats(s, me, owner);

    show($('play-actions'), Boolean(me));
    const offeredBy = s.drawOfferedBy && s.drawOfferedBy !== 'COLOR_UNSPECIFIED'
      ? s.drawOfferedBy : null;
    for (const id of ['resign', 'offer-draw', 'accept-draw', 'claim-draw']) {
      show($(id), running);
    }
    $('offer-draw').disabled = offeredBy === me?.color;
    $('offer-draw').textContent = offeredBy === me?.color ? 'Draw offered' : 'Offer draw';
    $('accept-draw').disabled = !offeredBy || offeredBy === me?.color;
    $('claim-draw').disabled = !myTurn;

    show($('owner-panel'), Boolean(owner));
    show($('owner-claim'), !owner);
    $('owner-token').textContent = owner ?? '';
    if (owner) this.fillSettings(s.settings);
    show($('setup-panel'), Boolean(owner || me) && !running);
    if (!$('setup-form').contains(document.activeElement)) {
      $('setup-form').elements.setup.value = s.setupId;
    }
  }

  turnText(s, me) {
    const offeredBy = s.drawOfferedBy && s.drawOfferedBy !== 'COLOR_UNSPECIFIED'
      ? s.drawOfferedBy : null;
    if (s.status === 'WAITING_FOR_PLAYERS') {
      const free = (s.seats ?? []).filter((seat) => !seat.occupied).map((seat) => SIDE[seat.color]);
      return `Waiting for players: ${free.join(' and ')} ${free.length > 1 ? 'are' : 'is'} free.`;
    }
    if (s.status !== 'IN_PROGRESS') return 'Game over.';
    const side = s.board?.sideToMove;
    let text = me && side === me.color ? `Your move (${SIDE[side]}).` : `${SIDE[side]} to move.`;
    if (offeredBy) {
      text += offeredBy === me?.color ? ' You offered a draw.'
        : ` ${SIDE[offeredBy]} offers a draw.`;
    }
    if (s.repetitionCount >= 3) text += ' The position has occurred three times.';
    return text;
  }

  renderSeats(s, me, owner) {
    const canSeatComputer = Boolean(owner || me);
    $('player-name-label').hidden = Boolean(me) || (s.seats ?? []).every((seat) => seat.occupied);
    $('seats').replaceChildren(...(s.seats ?? []).map((seat) => {
      const color = seat.color;
      const name = SIDE[color];
      const mine = me?.color === color;
      const who = !seat.occupied ? h('span', { class: 'free' }, 'free')
        : h('span', { class: 'seat-player' }, seat.playerName,
            seat.computer ? ` (computer, level ${seat.computerLevel})` : '',
            mine ? ' (you)' : '');
      const actions = [];
      if (!seat.occupied && !me) {
        actions.push(h('button', { type: 'button', onclick: () => this.join(color) },
                       `Join as ${name}`));
      }
      if (!seat.occupied && canSeatComputer) {
        const level = h('select', { 'aria-label': `Computer level for ${name}` },
          ...this.levels.map((l) => h('option', { value: l.number, selected: l.number === 3 },
                                      `${l.number}: ${l.name}`)));
        actions.push(level, h('button', {
          type: 'button', class: 'secondary',
          onclick: () => this.act(() => api.seatComputer(this.id, this.actingToken(),
                                                        { color, level: Number(level.value) })),
        }, `Computer as ${name}`));
      }
      if (seat.computer && canSeatComputer) {
        actions.push(h('button', {
          type: 'button', class: 'secondary',
          onclick: () => this.act(() => api.leave(this.id, this.actingToken(), { color })),
        }, `Remove computer`));
      }
      return h('div', { class: `seat seat-${color.toLowerCase()}`, 'data-color': color },
        h('div', { class: 'seat-who' },
          h('span', { class: `swatch ${color.toLowerCase()}`, 'aria-hidden': 'true' }),
          h('strong', {}, name), ' ', who),
        actions.length ? h('div', { class: 'controls' }, ...actions) : null);
    }));
  }

  fillSettings(settings = {}) {
    const form = $('settings-form');
    if (this.settingsDirty || form.contains(document.activeElement)) return;
    const fields = form.elements;
    fields.colorScheme.value = settings.colorScheme ?? 'classic';
    fields.timeoutEnabled.checked = Boolean(settings.timeoutEnabled);
    fields.timeoutSeconds.value = settings.timeoutSeconds ?? '';
    fields.quiet.checked = Boolean(settings.quiet);
    fields.scaleMeters.value = settings.scaleMeters ?? '';
  }

  log(event) {
    const kind = Object.keys(event).find((k) => !['version', 'sessionId', 'time',
                                                  'announcement'].includes(k)) ?? 'event';
    const text = event.announcement || kind.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
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
      this.say('Type your name first.');
      $('player-name').focus();
      return;
    }
    try {
      const reply = await api.join(this.id, { color, playerName: name });
      tokens.playerName = name;
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
      timeoutEnabled: fields.timeoutEnabled.checked,
      quiet: fields.quiet.checked,
    };
    if (fields.timeoutSeconds.value !== '') settings.timeoutSeconds = fields.timeoutSeconds.value;
    if (fields.scaleMeters.value !== '') settings.scaleMeters = Number(fields.scaleMeters.value);
    this.settingsDirty = false;
    await this.act(() => api.updateSettings(this.id, tokens.owner(this.id), settings));
  }

  // ---- Moving -----------------------------------------------------------

  async onSquare(name) {
    const s = this.session;
    const me = this.me();
    if (!s) return;
    if (!me) {
      if (s.status === 'IN_PROGRESS') this.say('Take a seat to play.');
      return;
    }
    if (s.status !== 'IN_PROGRESS') {
      this.say(s.status === 'FINISHED' ? 'The game is over.' : 'The game has not started yet.');
      return;
    }
    if (this.record.replaying) {
      this.say('You are looking at an earlier move: go back to the live game to play.');
      return;
    }
    if (s.board.sideToMove !== me.color) {
      this.say(`It is ${SIDE[s.board.sideToMove]}'s move.`);
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
      this.say(`${piece.description ?? square} has no legal move.`);
      return;
    }
    this.say(null);
    this.selection = { from: square, piece, moves };
    const targets = [...new Set(moves.filter((m) => m.to).map((m) => m.to))];
    this.board.setSelection(square, targets);
    const turns = new Set(moves.filter((m) => !m.to).map((m) => m.kind));
    const twoState = TWO_STATE.has(piece.type) && turns.size > 0;
    show($('rotate-clockwise'), twoState || turns.has('ROTATE_CLOCKWISE'));
    show($('rotate-anticlockwise'), twoState || turns.has('ROTATE_ANTICLOCKWISE'));
    $('selected-label').textContent = `${piece.description ?? piece.type} on ${square}:`;
    $('move-choice').replaceChildren();
    show($('move-controls'), true);
  }

  deselect() {
    this.selection = null;
    this.board.setSelection(null);
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
    const whole = this.selection?.piece?.height > 1 ? 'the whole stack' : 'the whole piece';
    const label = (m) => (m.kind === 'MOVE_TOP' ? `Move the top only (${m.notation})`
      : `Move ${m.swap ? 'by swapping' : whole} (${m.notation})`);
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
      this.showMove(reply.version, reply.board, reply.move?.notation, reply.shot);
    } catch (error) {
      this.say(error);
    }
    this.refresh();
  }
}
