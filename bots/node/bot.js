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
    seed: Date.now() % 2147483647,
  };
  for (let i = 0; i < argv.length; i++) {
    const [key, inline] = argv[i].split('=', 2);
    const value = inline !== undefined ? inline : argv[i + 1];
    if (key === '--address' || key === '--credential' || key === '--seed') {
      args[key.slice(2)] = key === '--seed' ? Number(value) : value;
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

function loadService() {
  const definition = protoLoader.loadSync('menagerie/v1/game_service.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).menagerie.v1.GameService;
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

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!args.address || !args.credential) {
    console.error('error: --address and --credential (or MENAGERIE_ADDRESS/_CREDENTIAL) are needed');
    process.exit(2);
  }
  const rng = makeRng(args.seed);
  const GameService = loadService();
  const client = new GameService(args.address, grpc.credentials.createInsecure());
  const call = client.Play();
  let game = '';
  let seat = -1;
  let finished = false;

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
    process.exit(1);
  });
  call.on('end', () => {
    client.close();
    process.exit(finished ? 0 : 1);
  });
  call.write({ join: { credential: args.credential, bot_name: 'node-example', bot_version: '1' } });
}

if (require.main === module) {
  main();
}

module.exports = { choose, makeRng, parseArgs };
