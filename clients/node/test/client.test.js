// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The Node.js client against a real khetd, which the test starts on a free
// loopback port (the KHETD environment variable names the binary).
'use strict';

const assert = require('node:assert/strict');
const {execFileSync, spawn} = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {after, before, test} = require('node:test');

const {KhetClient} = require('../khet');
const {EventQueue, playAgainstComputer} = require('../play');

// A whole Classic 2 game that Silver wins on its 9th move: Silver's laser runs
// up file j and along rank 8 into Red's Pharaoh on f8. (khet-engine play
// --setup classic-2 --seed 287.)
const PHARAOH_HIT_GAME = [
  'j5-j6', 'h4-i3', 'f1-e2', 'e5-d4', 'f4-e3', 'd4=c4', 'c1-b2', 'c4=c5',
  'j6L', 'a5-a6', 'j6-j7', 'h8R', 'j7-j8', 'a6-a7', 'd4-d5', 'a4-b4',
  'h2-g3',
];

let khetd;
let client;

function startKhetd(flags = []) {
  const binary = process.env.KHETD;
  assert.ok(binary, 'set KHETD to the khetd binary');
  const child = spawn(binary, ['--listen', '127.0.0.1:0', '--http_listen=', '--store', 'memory',
                               ...flags],
                      {stdio: ['ignore', 'pipe', 'ignore']});
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('khetd did not say where it listens within 20 s'));
    }, 20000);
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = /khetd listening on (\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({child, target: match[1]});
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`khetd exited with ${code} before listening`));
    });
  });
}

before(async () => {
  khetd = await startKhetd();
  client = new KhetClient(khetd.target);
});

after(() => {
  if (client) client.close();
  if (khetd) khetd.child.kill('SIGKILL');
});

async function newGame() {
  const created = await client.call('CreateSession',
                                    {name: 'node test', setup_id: 'classic-2'});
  const id = created.session.id;
  const alice = await client.call('JoinSeat',
                                  {session_id: id, player_name: 'alice'});
  const bob = await client.call('JoinSeat',
                                {session_id: id, player_name: 'bob'});
  assert.equal(alice.color, 'SILVER');
  assert.equal(bob.color, 'RED');
  return {id, owner: created.owner_token, silver: alice.player_token,
          red: bob.player_token};
}

test('a whole game as both sides, to a Pharaoh hit seen by a watcher',
     async () => {
       const game = await newGame();
       const events = new EventQueue(client, game.id);
       try {
         let answer;
         for (const [ply, notation] of PHARAOH_HIT_GAME.entries()) {
           answer = await client.call(
               'MakeMove', {session_id: game.id, move: {notation}},
               ply % 2 === 0 ? game.silver : game.red);
           assert.equal(answer.move.notation, notation);
         }
         assert.equal(answer.result.outcome, 'SILVER_WINS');
         assert.equal(answer.result.reason, 'PHARAOH_HIT');
         assert.deepEqual(answer.shot.hit_squares, ['f8']);
         assert.match(answer.shot.text, /hit Red Pharaoh on f8/);

         const seen = [];
         const over = await events.next((e) => {
           if (e.kind === 'move_made') seen.push(e.move_made.move.notation);
           return e.kind === 'game_over';
         }, 10000);
         assert.deepEqual(seen, PHARAOH_HIT_GAME);
         assert.equal(over.game_over.result.outcome, 'SILVER_WINS');

         const board = await client.call('RenderBoard', {session_id: game.id});
         assert.match(board.text, /k\*/);  // the hit Pharaoh, marked
       } finally {
         events.close();
       }
     });

test('a takeback declined, then accepted; refused once turned off',
     async () => {
       const game = await newGame();
       const move = (notation, token) => client.call(
           'MakeMove', {session_id: game.id, move: {notation}}, token);
       await assert.rejects(client.requestTakeback(game.id, game.silver),
                            {code: 'FAILED_PRECONDITION'});
       await move('j5-j6', game.silver);
       await move('h4-i3', game.red);
       const asked = await client.requestTakeback(game.id, game.red);
       assert.equal(asked.takeback_requested_by, 'RED');
       const declined = await client.declineTakeback(game.id, game.silver);
       assert.equal(declined.takeback_requested_by, 'COLOR_UNSPECIFIED');
       assert.deepEqual(declined.moves, ['j5-j6', 'h4-i3']);
       await client.requestTakeback(game.id, game.red);
       const taken = await client.acceptTakeback(game.id, game.silver);
       assert.deepEqual(taken.moves, ['j5-j6']);
       await client.call('UpdateSettings', {session_id: game.id,
                                            settings: {takebacks: false}},
                         game.owner);
       await assert.rejects(client.requestTakeback(game.id, game.silver),
                            {code: 'FAILED_PRECONDITION'});
     });

test('a rated game rates both player ids', async () => {
  const created = await client.call('CreateSession', {
    name: 'node rated', setup_id: 'classic-2', settings: {rated: true}});
  const id = created.session.id;
  const winner = `node:winner-${id}`;
  const loser = `node:loser-${id}`;
  await assert.rejects(client.getPlayer(winner), {code: 'NOT_FOUND'});
  const silver = await client.join(id, 'alice', {color: 'SILVER', playerId: winner});
  const red = await client.join(id, 'bob', {playerId: loser});
  assert.equal(red.color, 'RED');
  assert.equal(red.session.seats[1].player_id, loser);
  await client.call('MakeMove', {session_id: id, move: {notation: 'j5-j6'}},
                    silver.player_token);
  const session = await client.call('GetSession', {session_id: id});
  assert.equal(session.game_rated, true);
  await client.call('Resign', {session_id: id}, red.player_token);
  const rated = await client.getPlayer(winner);
  assert.ok(rated.rating > 1500, `rating ${rated.rating}`);
  assert.equal(rated.wins, 1);
  assert.equal((await client.getPlayer(loser)).losses, 1);
  const ids = [];
  for await (const player of client.listPlayers({pageSize: 1})) {
    ids.push(player.player_id);
  }
  assert.ok(ids.indexOf(winner) >= 0 && ids.indexOf(winner) < ids.indexOf(loser),
            ids.join(' '));
});

test('refusals carry the gRPC code and the server\'s reason', async () => {
  const game = await newGame();
  const move = (notation, token, extra = {}) => client.call(
      'MakeMove', {session_id: game.id, move: {notation}, ...extra}, token);
  await assert.rejects(move('e4-e6', game.silver),
                       {code: 'INVALID_ARGUMENT', details: /e6/});
  await assert.rejects(move('e3-e2', game.silver),
                       {code: 'INVALID_ARGUMENT', details: /e3/});
  await assert.rejects(move('h4-i3', game.red), {code: 'FAILED_PRECONDITION'});
  await assert.rejects(move('j5-j6', 'not-a-token'),
                       {code: 'UNAUTHENTICATED', details: /malformed/});
  await assert.rejects(move('j5-j6', 'x'.repeat(43)),
                       {code: 'PERMISSION_DENIED'});
  await assert.rejects(move('j5-j6', ''), {code: 'UNAUTHENTICATED'});
  const {version} = await client.call('GetSession', {session_id: game.id});
  await assert.rejects(move('j5-j6', game.silver,
                            {expected_version: version - 1}),
                       {code: 'ABORTED'});
  await assert.rejects(client.call('GetSession', {session_id: 'nope'}),
                       {code: 'NOT_FOUND', details: /nope/});
  const unchanged = await client.call('GetSession', {session_id: game.id});
  assert.equal(unchanged.version, version);
  assert.deepEqual(unchanged.moves, []);
});

test('the example plays the computer and resigns', async () => {
  const said = [];
  const finished = await playAgainstComputer(
      client, {level: 1, moves: 3, log: (line) => said.push(line)});
  // Both sides' choices are the computer's, which are the same for the same
  // position: three moves each, then Silver resigns.
  assert.equal(finished.status, 'FINISHED');
  assert.equal(finished.result.reason, 'RESIGNATION');
  assert.equal(finished.result.outcome, 'RED_WINS');
  assert.equal(finished.moves.length, 6);
  assert.ok(said.some((line) => /^Silver \(node\) plays /.test(line)), said);
  assert.ok(said.some((line) => /^Red \(computer, level 1\) plays /.test(line)),
            said);
});

test('over TLS with a CA file; plaintext is refused', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'khet-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-days', '1',
    '-keyout', key, '-out', cert,
  ], {stdio: 'ignore'});
  const tls = await startKhetd([`--tls_cert=${cert}`, `--tls_key=${key}`]);
  const secure = new KhetClient(tls.target, {caCert: cert});
  const named = new KhetClient(tls.target, {caCert: cert, serverName: 'localhost'});
  const plain = new KhetClient(tls.target, {timeoutMs: 3000});
  try {
    const created = await secure.call('CreateSession', {name: 'over tls'});
    const got = await named.call('GetSession', {session_id: created.session.id});
    assert.equal(got.name, 'over tls');
    await assert.rejects(plain.call('ListSetups', {}), {code: 'UNAVAILABLE'});
  } finally {
    for (const c of [secure, named, plain]) c.close();
    tls.child.kill('SIGKILL');
    fs.rmSync(dir, {recursive: true, force: true});
  }
});

test('archived games: listing, the record, a position and an import',
     async () => {
       const game = await newGame();
       await client.call('MakeMove', {session_id: game.id,
                                      move: {notation: PHARAOH_HIT_GAME[0]}},
                         game.silver);
       await client.call('ResetGame', {session_id: game.id}, game.owner);
       const gameId = `${game.id}-g1`;
       const listed = [];
       for await (const g of client.games({session_id: game.id})) {
         listed.push(g.id);
       }
       assert.deepEqual(listed, [gameId]);
       const text = await client.record(game.id, gameId);
       assert.match(text, /1\. j5-j6/);
       const at = await client.call(
           'GetPosition', {session_id: game.id, game_id: gameId, ply: 1});
       assert.equal(at.move.notation, 'j5-j6');
       await assert.rejects(
           client.call('GetPosition',
                       {session_id: game.id, game_id: gameId, ply: 2}),
           (error) => error.code === 'INVALID_ARGUMENT');
       const imported = await client.call(
           'CreateSession', {name: 'imported', record: text});
       assert.deepEqual(imported.session.moves, ['j5-j6']);
       await assert.rejects(
           client.call('CreateSession',
                       {name: 'bad', record: '[Setup "classic-2"]\n\n1. a1-a9 *\n'}),
           (error) => error.code === 'INVALID_ARGUMENT' &&
               error.details.includes('line 3'));
     });

test('the computer analyses a finished game', async () => {
  const game = await newGame();
  const play = (ply) => client.call(
      'MakeMove',
      {session_id: game.id, move: {notation: PHARAOH_HIT_GAME[ply]}},
      ply % 2 === 0 ? game.silver : game.red);
  await play(0);
  await assert.rejects(client.analyzeGame(game.id),
                       {code: 'FAILED_PRECONDITION'});
  for (let ply = 1; ply < PHARAOH_HIT_GAME.length; ++ply) await play(ply);
  const {game_id: gameId} =
      await client.call('GetSession', {session_id: game.id});

  const first = await client.analyzeGame(game.id, 'current', 20);
  assert.equal(first.game_id, gameId);
  assert.equal(first.plies, PHARAOH_HIT_GAME.length);
  const analysis = await client.waitForAnalysis(game.id, 'current', 20,
                                                {timeoutMs: 50000});
  assert.equal(analysis.state, 'DONE');
  assert.equal(analysis.game_id, gameId);
  assert.equal(analysis.plies_analyzed, PHARAOH_HIT_GAME.length);
  assert.deepEqual(analysis.moves.map((m) => m.ply),
                   PHARAOH_HIT_GAME.map((_, index) => index + 1));
  assert.deepEqual(analysis.moves.map((m) => m.played), PHARAOH_HIT_GAME);
  assert.deepEqual(analysis.moves.map((m) => m.mover),
                   PHARAOH_HIT_GAME.map((_, i) => (i % 2 ? 'RED' : 'SILVER')));
  for (const move of analysis.moves) {
    assert.equal(move.loss, Math.max(0, move.best_score - move.played_score));
    assert.notEqual(move.judgement, 'MOVE_JUDGEMENT_UNSPECIFIED');
  }
  // After Red's a6-a7 Silver hits the Pharaoh in three plies, whatever Red
  // does: the search sees that loss, and a move that avoids it.
  const allowed = analysis.moves[13];
  assert.equal(allowed.played, 'a6-a7');
  assert.equal(allowed.judgement, 'BLUNDER');
  assert.ok(allowed.played_score < -29800, allowed);
  assert.ok(allowed.best_move);
  assert.notEqual(allowed.best_move, allowed.played);
  const before = await client.call(
      'GetPosition', {session_id: game.id, game_id: gameId, ply: 13});
  assert.ok(before.legal_moves.some((m) => m.notation === allowed.best_move));
  // The winning shot itself gave nothing away.
  assert.equal(analysis.moves[16].judgement, 'GOOD');
  await assert.rejects(client.waitForAnalysis(game.id, 'current', 20,
                                              {timeoutMs: 0}),
                       RangeError);
});
