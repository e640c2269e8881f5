// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// khet.js: khetd's contract (proto/khet/v1) loaded at run time with
// @grpc/proto-loader, and a small promise-based client over @grpc/grpc-js.
//
//   const { KhetClient } = require('./khet');
//   const client = new KhetClient('127.0.0.1:50051');
//   const secure = new KhetClient('khet.example:50051', {caCert: 'ca.pem'});
//   const { session, owner_token } = await client.call('CreateSession', { name: 'x' });
//   await client.call('MakeMove', { session_id, move: { notation: 'j4-j3' } }, token);
//   const text = await client.record(session_id);  // the game as a record
//   for await (const game of client.games({player: 'alice'})) { ... }
//   const analysis = await client.waitForAnalysis(session_id);  // DONE
//   const seat = await client.join(session_id, 'alice', {playerId: 'web:alice'});
//   await client.requestTakeback(session_id, seat.player_token);
//   const player = await client.getPlayer('web:alice');  // rating, games...
//   for await (const p of client.listPlayers()) { ... }  // best first
//
// Messages are plain objects with the proto's field names (snake_case); enums
// are their names ('SILVER'), 64-bit integers are numbers. A refused call
// rejects with a KhetError carrying the gRPC code name and the server's
// message.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// The repository's proto/ folder; KHET_PROTO_DIR overrides it.
const PROTO_DIR = process.env.KHET_PROTO_DIR ||
    path.resolve(__dirname, '..', '..', 'proto');

function loadService() {
  const definition = protoLoader.loadSync('khet/v1/khet_service.proto', {
    includeDirs: [PROTO_DIR],
    keepCase: true,  // session_id, not sessionId
    enums: String,
    longs: Number,
    defaults: true,  // unset fields read as their zero values
    oneofs: true,    // event.kind names the oneof member that is set
  });
  return grpc.loadPackageDefinition(definition).khet.v1.KhetService;
}

const codeNames = Object.fromEntries(
    Object.entries(grpc.status).map(([name, code]) => [code, name]));

// A call the server refused: `code` is the gRPC code's name
// ('INVALID_ARGUMENT', 'FAILED_PRECONDITION', ...), `details` its reason.
class KhetError extends Error {
  constructor(serviceError) {
    const code = codeNames[serviceError.code] || 'UNKNOWN';
    super(`${code}: ${serviceError.details}`);
    this.name = 'KhetError';
    this.code = code;
    this.details = serviceError.details;
  }
}

// Plaintext credentials, or TLS (khetd with --tls_cert and --tls_key) when
// `tls` or `caCert` is given: khetd's certificate is checked against the
// system's CAs, or against the PEM file `caCert` (a self-signed certificate,
// say). `serverName` is the name the certificate must carry when `target`
// names khetd otherwise (an IP address).
function channelFor({tls = false, caCert, serverName}) {
  if (!tls && !caCert && !serverName) {
    return {credentials: grpc.credentials.createInsecure(), options: {}};
  }
  const roots = caCert ? fs.readFileSync(caCert) : null;
  const options = serverName ?
      {'grpc.ssl_target_name_override': serverName,
       'grpc.default_authority': serverName} :
      {};
  return {credentials: grpc.credentials.createSsl(roots), options};
}

class KhetClient {
  // `target` is 'host:port'; every unary call gets `timeoutMs` as deadline.
  // `tls`, `caCert` and `serverName` connect over TLS (see channelFor).
  constructor(target, {timeoutMs = 10000, tls, caCert, serverName} = {}) {
    const KhetService = loadService();
    const {credentials, options} = channelFor({tls, caCert, serverName});
    this.stub = new KhetService(target, credentials, options);
    this.timeoutMs = timeoutMs;
  }

  close() {
    this.stub.close();
  }

  // Calls the unary method `method` (its proto name, e.g. 'MakeMove') with
  // `request`, acting for `token` if given. Resolves to the response.
  call(method, request, token) {
    const deadline = new Date(Date.now() + this.timeoutMs);
    return new Promise((resolve, reject) => {
      this.stub[method](request, metadataFor(token), {deadline},
                        (error, response) => {
                          if (error) reject(new KhetError(error));
                          else resolve(response);
                        });
    });
  }

  // Takes a seat: JoinSeatResponse (session, color, player_token).
  // `color` is 'SILVER', 'RED' or absent for any free seat; `playerId` the
  // stable identity the caller vouches for (1-128 letters, digits and
  // - _ . : @ / +; never a secret), which rated games rate.
  join(sessionId, playerName, {color, playerId = ''} = {}) {
    const request = {session_id: sessionId, player_name: playerName,
                     player_id: playerId};
    if (color) request.color = color;
    return this.call('JoinSeat', request);
  }

  // Takebacks: the player of `token` asks to take back their last move (two
  // plies when the opponent has replied); the opponent accepts or declines
  // (a computer grants it at once). Each resolves to the Session;
  // FAILED_PRECONDITION when the board's takebacks are off, the game is
  // rated or there is nothing to take back.
  requestTakeback(sessionId, token) {
    return this.call('RequestTakeback', {session_id: sessionId}, token);
  }

  acceptTakeback(sessionId, token) {
    return this.call('AcceptTakeback', {session_id: sessionId}, token);
  }

  declineTakeback(sessionId, token) {
    return this.call('DeclineTakeback', {session_id: sessionId}, token);
  }

  // A rated player's rating and record (Player); NOT_FOUND before the
  // player's first rated game.
  getPlayer(playerId) {
    return this.call('GetPlayer', {player_id: playerId});
  }

  // Rated players (Player), best rating first, fetched a page at a time.
  async *listPlayers({pageSize = 100} = {}) {
    const request = {page_size: pageSize, page_token: ''};
    while (true) {
      const page = await this.call('ListPlayers', request);
      yield* page.players;
      if (!page.next_page_token) return;
      request.page_token = page.next_page_token;
    }
  }

  // A game's record as text, ready to save as a .khet file: the session's
  // current game, or `gameId` ('<session id>-g<N>') of its archive.
  async record(sessionId, gameId = 'current') {
    const response = await this.call(
        'GetGameRecord', {session_id: sessionId, game_id: gameId});
    return response.text;
  }

  // Archived games (GameSummary), newest first, fetched a page at a time:
  // `filter` holds ListGamesRequest's session_id, player, setup_id, result
  // (each optional; no session_id: every session's games).
  async *games(filter = {}) {
    const request = {page_size: 100, ...filter, page_token: ''};
    while (true) {
      const page = await this.call('ListGames', request);
      yield* page.games;
      if (!page.next_page_token) return;
      request.page_token = page.next_page_token;
    }
  }

  // One AnalyzeGame call on a finished game (GameAnalysis): the first
  // starts the computer's analysis in the background and answers state
  // 'RUNNING', later ones its progress (plies_analyzed of plies), then 'DONE'
  // with every ply judged. `msPerPly` is the search's budget per ply, 0 for
  // the server's default.
  analyzeGame(sessionId, gameId = 'current', msPerPly = 0) {
    return this.call('AnalyzeGame', {session_id: sessionId, game_id: gameId,
                                     ms_per_ply: msPerPly});
  }

  // Calls analyzeGame every `pollMs` until the analysis is DONE and resolves
  // to it; after the first answer it asks for the game that answer names.
  // Rejects with an Error if it is not DONE within `timeoutMs`.
  async waitForAnalysis(sessionId, gameId = 'current', msPerPly = 0,
                        {timeoutMs = 120000, pollMs = 250} = {}) {
    if (!(timeoutMs > 0) || !(pollMs > 0)) {
      throw new RangeError(`timeoutMs and pollMs must be above 0, got ` +
                           `${timeoutMs} and ${pollMs}`);
    }
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const analysis = await this.analyzeGame(sessionId, gameId, msPerPly);
      if (analysis.state === 'DONE') return analysis;
      gameId = analysis.game_id || gameId;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`the analysis of game ${gameId} was not done within ` +
                        `${timeoutMs} ms (${analysis.plies_analyzed} of ` +
                        `${analysis.plies} plies analysed)`);
      }
      await new Promise(
          (resolve) => setTimeout(resolve, Math.min(pollMs, left)));
    }
  }

  // The session's events after `afterVersion`, then live ones: calls
  // onEvent(event) for each; returns the call (call.cancel() ends it). A
  // stream the server broke off calls onError(KhetError); cancel() does not.
  // The server keeps a bounded history: after a version it no longer keeps,
  // the stream begins at the oldest it does.
  watch(sessionId, afterVersion, onEvent, onError = () => {}) {
    const call = this.stub.Watch(
        {session_id: sessionId, after_version: afterVersion});
    call.on('data', onEvent);
    call.on('error', (error) => {
      if (error.code !== grpc.status.CANCELLED) onError(new KhetError(error));
    });
    return call;
  }
}

function metadataFor(token) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

module.exports = {KhetClient, KhetError, PROTO_DIR};
