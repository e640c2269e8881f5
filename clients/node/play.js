#!/usr/bin/env node
// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// An example: plays Silver against the server's computer opponent. Silver's
// moves are the computer's own suggestions at --hint-level; after --moves
// Silver moves without a result, Silver resigns. Prints every announcement.
//
//   node play.js [--server 127.0.0.1:50051] [--level 1] [--hint-level 1]
//                [--setup classic-2] [--moves 20]
'use strict';

const {KhetClient} = require('./khet');

// Events of one Watch stream, awaited one at a time.
class EventQueue {
  constructor(client, sessionId) {
    this.events = [];
    this.waiters = [];
    this.failure = null;
    this.call = client.watch(sessionId, 0, (event) => {
      this.events.push(event);
      this.wake();
    }, (error) => {
      this.failure = error;
      this.wake();
    });
  }

  wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  // The next event for which predicate(event) is true; earlier ones are
  // dropped. Rejects after timeoutMs or if the stream broke off.
  async next(predicate, timeoutMs) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      while (this.events.length) {
        const event = this.events.shift();
        if (predicate(event)) return event;
      }
      if (this.failure) throw this.failure;
      const left = end - Date.now();
      if (left <= 0) throw new Error(`no such event within ${timeoutMs} ms`);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close() {
    this.call.cancel();
  }
}

// Plays one game as Silver against the computer at `level`; resolves to the
// finished session. `log` receives each announcement.
async function playAgainstComputer(client, {
  level = 1, hintLevel = 1, setup = 'classic-2', moves = 20,
  log = console.log,
} = {}) {
  const {session, owner_token: ownerToken} = await client.call(
      'CreateSession', {name: 'node example', setup_id: setup});
  const id = session.id;
  const events = new EventQueue(client, id);
  try {
    const me = await client.call(
        'JoinSeat', {session_id: id, color: 'SILVER', player_name: 'node'});
    await client.call('SeatComputer', {session_id: id, color: 'RED', level},
                      ownerToken);
    for (let played = 0; ; played++) {
      const now = await client.call('GetSession', {session_id: id});
      if (now.status === 'FINISHED') return now;
      if (played === moves) {
        const resigned = await client.call('Resign', {session_id: id},
                                           me.player_token);
        log(resigned.result.text);
        return resigned;
      }
      const hint = await client.call('SuggestMove',
                                     {session_id: id, level: hintLevel});
      const answer = await client.call('MakeMove', {
        session_id: id,
        move: {notation: hint.move.notation},
        expected_version: now.version,
      }, me.player_token);
      log(answer.announcement);
      if (answer.result.outcome !== 'ONGOING') continue;
      const reply = await events.next(
          (e) => e.kind === 'move_made' && e.move_made.mover === 'RED', 30000);
      log(reply.announcement);
    }
  } finally {
    events.close();
  }
}

function parseFlags(argv) {
  const flags = {server: '127.0.0.1:50051', level: 1, hintLevel: 1,
                 setup: 'classic-2', moves: 20};
  const names = {'--server': 'server', '--level': 'level',
                 '--hint-level': 'hintLevel', '--setup': 'setup',
                 '--moves': 'moves'};
  for (let i = 0; i < argv.length; i += 2) {
    const name = names[argv[i]];
    if (!name || argv[i + 1] === undefined) {
      throw new Error(`unknown flag or missing value: ${argv[i]}`);
    }
    flags[name] = typeof flags[name] === 'number' ? Number(argv[i + 1])
                                                  : argv[i + 1];
    if (Number.isNaN(flags[name])) {
      throw new Error(`${argv[i]} needs a number, got "${argv[i + 1]}"`);
    }
  }
  return flags;
}

async function main() {
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (error) {
    console.error(`play.js: ${error.message}`);
    console.error('usage: node play.js [--server HOST:PORT] [--level 1-5] ' +
                  '[--hint-level 1-5] [--setup ID] [--moves N]');
    process.exit(2);
  }
  const client = new KhetClient(flags.server);
  try {
    const finished = await playAgainstComputer(client, flags);
    console.log(`${finished.result.text} after ${finished.moves.length} moves`);
  } catch (error) {
    console.error(`play.js: ${error.message}`);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

if (require.main === module) main();

module.exports = {EventQueue, playAgainstComputer};
