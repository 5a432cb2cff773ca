#!/usr/bin/env node
// Example Menagerie bot in Node.js.
//
// A gRPC client of menagerie.v1.GameService built at run time from the project's own
// proto files (../../proto/menagerie/v1, never copied) with @grpc/proto-loader. It
// joins one seat with its credential, answers every Turn and exits after GameOver.
//
// It reads the typed observation of Zooloretto Mini and plays it sensibly (see
// zooloretto.js); for every other game it picks a random legal action by index, which
// is all a generic bot needs.
//
// Usage: node bot.js --address HOST:PORT --credential SECRET [--seed N]
//        (or MENAGERIE_ADDRESS / MENAGERIE_CREDENTIAL in the environment)
//        node bot.js --lobby HOST:PORT --token TOKEN [--max-games N] [--games N]
//        (lobby mode, a remote ladder bot; or MENAGERIE_LOBBY / MENAGERIE_BOT_TOKEN)
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const zooloretto = require('./zooloretto');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');

function parseArgs(argv) {
  const args = {
    address: process.env.MENAGERIE_ADDRESS || '',
    credential: process.env.MENAGERIE_CREDENTIAL || '',
    lobby: process.env.MENAGERIE_LOBBY || '',
    token: process.env.MENAGERIE_BOT_TOKEN || '',
    max_games: 1,
    games: 0,
    seed: Date.now() % 2147483647,
  };
  const numeric = new Set(['--seed', '--max-games', '--games']);
  const known = new Set(['--address', '--credential', '--lobby', '--token', ...numeric]);
  for (let i = 0; i < argv.length; i++) {
    const [key, inline] = argv[i].split('=', 2);
    const value = inline !== undefined ? inline : argv[i + 1];
    if (known.has(key)) {
      args[key.slice(2).replace('-', '_')] = numeric.has(key) ? Number(value) : value;
      if (inline === undefined) i++;
    }
  }
  return args;
}

// mulberry32: a small seeded PRNG so a run is reproducible given --seed.
function makeRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadProto(file) {
  return grpc.loadPackageDefinition(
    protoLoader.loadSync(file, {
      includeDirs: [PROTO_ROOT],
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    }),
  ).menagerie.v1;
}

function loadService() {
  return loadProto('menagerie/v1/game_service.proto').GameService;
}

// choose returns the index of a legal action for this turn.
function choose(game, turn, rng) {
  const legal = turn.legal_actions;
  if (game === 'zooloretto_mini' && turn.observation && turn.observation.zooloretto_mini) {
    const index = zooloretto.choose(turn.observation.zooloretto_mini, legal, rng);
    if (index >= 0 && index < legal.length) return index;
  }
  return Math.floor(rng() * legal.length);
}

// playMatch plays one seat with its credential; done(ok) is called once, at the end.
function playMatch(address, credential, rng, done) {
  const GameService = loadService();
  const client = new GameService(address, grpc.credentials.createInsecure());
  const call = client.Play();
  let game = '';
  let seat = -1;
  let finished = false;
  let ended = false;
  const end = (ok) => {
    if (ended) return;
    ended = true;
    client.close();
    done(ok);
  };

  call.on('data', (response) => {
    switch (response.message) {
      case 'match_start':
        game = response.match_start.game;
        seat = response.match_start.seat;
        console.error(`node bot: seat ${seat} of ${game} (${response.match_start.match_id})`);
        break;
      case 'turn': {
        const turn = response.turn;
        const index = choose(game, turn, rng);
        call.write({ move: { sequence: turn.sequence, index } });
        break;
      }
      case 'error':
        console.error(`server: ${response.error.code}: ${response.error.message}`);
        break;
      case 'game_over': {
        finished = true;
        const over = response.game_over;
        const rank = over.standing_ranks.length ? over.standing_ranks[seat] : '-';
        console.error(`node bot: game over (${over.status}), scores ${over.scores.join(' ')}, rank ${rank}`);
        call.end();
        break;
      }
      default:
        break;
    }
  });
  call.on('error', (err) => {
    if (finished) return;
    console.error(`error: ${err.code}: ${err.details || err.message}`);
    end(false);
  });
  call.on('end', () => end(finished));
  call.write({ join: { credential, bot_name: 'node-example', bot_version: '1' } });
}

// Lobby mode (--lobby HOST:PORT --token T [--max-games N] [--games N]): wait for ladder
// matches and play each on its own Play stream, at most max_games at once. A broken
// lobby stream is reopened after an exponential back-off with jitter (0.5 s doubling up
// to 30 s, a random wait in [d/2, d]); UNAUTHENTICATED / INVALID_ARGUMENT / ABORTED end
// the bot (a revoked token, a bad request, another connection of the bot took over:
// retrying cannot help). --games N exits after N games.
const FATAL = new Set([grpc.status.UNAUTHENTICATED, grpc.status.INVALID_ARGUMENT, grpc.status.ABORTED]);

function lobby(args) {
  const rng = makeRng(args.seed);
  const LobbyService = loadProto('menagerie/v1/lobby_service.proto').LobbyService;
  let failures = 0;
  let played = 0;
  let assigned = 0;
  let running = 0;
  let stopping = false;
  let heartbeat = null;
  let client = null;

  const stop = (code) => {
    stopping = true;
    if (heartbeat) clearInterval(heartbeat);
    if (client) client.close();
    process.exit(code);
  };

  const connect = () => {
    client = new LobbyService(args.lobby, grpc.credentials.createInsecure());
    const call = client.Lobby();
    let welcomed = false;
    call.on('data', (response) => {
      switch (response.message) {
        case 'welcome': {
          welcomed = true;
          failures = 0;
          const w = response.welcome;
          console.error(`node bot: ${w.bot} online for ${w.ladders.join(', ')} (${w.max_games} at once)`);
          heartbeat = setInterval(
            () => call.write({ heartbeat: { sent_at_ms: String(Date.now()) } }),
            Math.max(50, w.heartbeat_interval_ms || 5000),
          );
          break;
        }
        case 'match_assigned': {
          const m = response.match_assigned;
          assigned++;
          if (args.games && assigned > args.games) break;
          running++;
          playMatch(m.address, m.credential, rng, () => {
            running--;
            played++;
            if (args.games && played >= args.games) stop(0);
          });
          break;
        }
        case 'error':
          console.error(`lobby: ${response.error.message}`);
          break;
        default:
          break;
      }
    });
    const retry = (err) => {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
      client.close();
      if (stopping) return;
      if (err && FATAL.has(err.code)) {
        const name = Object.keys(grpc.status).find((k) => grpc.status[k] === err.code);
        console.error(`error: ${name}: ${err.details || err.message}`);
        stop(1);
        return;
      }
      failures = welcomed ? 1 : failures + 1;
      if (failures > 12) {
        console.error(`error: no lobby at ${args.lobby} after ${failures} attempts`);
        stop(1);
        return;
      }
      const d = Math.min(30, 0.5 * 2 ** (failures - 1));
      const wait = d / 2 + (Math.random() * d) / 2;
      console.error(`lobby: ${err ? err.details || err.message : 'stream ended'}; reconnecting in ${wait.toFixed(1)} s`);
      setTimeout(connect, wait * 1000);
    };
    let done = false;
    call.on('error', (err) => { if (!done) { done = true; retry(err); } });
    call.on('end', () => { if (!done) { done = true; retry(null); } });
    call.write({
      hello: { token: args.token, max_games: args.max_games, bot_name: 'node-example', bot_version: '1' },
    });
  };
  connect();
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.lobby) {
    if (!args.token) {
      console.error('error: lobby mode needs --token (or MENAGERIE_BOT_TOKEN)');
      process.exit(2);
    }
    lobby(args);
    return;
  }
  if (!args.address || !args.credential) {
    console.error('error: --address and --credential (or MENAGERIE_ADDRESS/_CREDENTIAL) are needed');
    process.exit(2);
  }
  playMatch(args.address, args.credential, makeRng(args.seed), (ok) => process.exit(ok ? 0 : 1));
}

if (require.main === module) {
  main();
}

module.exports = { choose, makeRng, parseArgs, playMatch };
