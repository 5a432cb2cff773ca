// Zooloretto Mini for the Node example bot, on the typed ZoolorettoMiniObservation.
//
// A tile is worth putting where its species already lives (or a landscape where there is
// room), an empty enclosure opens a new species, the barn costs -2 per new kind. A truck
// is taken when it is full or its tiles fit the zoo well; a drawn tile is loaded on the
// truck it fits best for this player; bonuses take a fitting tile from a rival's barn or
// discard a lone barn tile.
'use strict';

const kindOf = (tile) => (tile.startsWith('L') ? tile[1] : tile.slice(0, 2));
const isLandscape = (tile) => tile.startsWith('L');

function myZoo(obs) {
  return obs.players[obs.current_player];
}

// placeValue: how good it is to put `tile` into destination `to` of `player`'s zoo.
function placeValue(player, tile, to) {
  const barnKinds = new Set(player.barn.map(kindOf));
  if (to === 'barn') return barnKinds.has(kindOf(tile)) ? 0 : -2;
  const enc = player.enclosures.find((e) => e.id === to);
  if (!enc || enc.tiles.length >= 6) return -10;
  if (isLandscape(tile)) {
    const kinds = new Set();
    player.enclosures.forEach((e) => e.tiles.filter(isLandscape).forEach((t) => kinds.add(t[1])));
    return kinds.has(tile[1]) ? 0.5 : 2;
  }
  if (enc.species === kindOf(tile)) {
    const animals = enc.tiles.filter((t) => !isLandscape(t)).length;
    return animals >= 3 ? 4 : 2.5; // the 5th and 6th animals are worth 4 points each
  }
  if (enc.species === '') {
    const elsewhere = player.enclosures.some((e) => e.species === kindOf(tile));
    return elsewhere ? 0.5 : 1.5;
  }
  return -10; // another species lives there (not legal anyway)
}

// truckValue: the best total placement value of a truck's tiles for `player`.
function truckValue(player, tiles) {
  let total = 0;
  for (const tile of tiles) {
    const options = ['E1', 'E2', 'E3', 'barn'].map((to) => placeValue(player, tile, to));
    total += Math.max(...options);
  }
  return total;
}

function choose(obs, legal, rng) {
  const me = myZoo(obs);
  const actions = legal.map((la) => la.action.zooloretto_mini);
  const scored = actions.map((a, i) => {
    switch (a.kind) {
      case 'place':
        return [placeValue(me, a.place.tile, a.place.to), i];
      case 'draw':
        return [0.5, i];
      case 'take_truck': {
        const truck = obs.trucks.find((t) => t.id === a.take_truck.truck);
        const full = truck.tiles.length >= truck.capacity;
        return [truckValue(me, truck.tiles) + (full ? 1 : -1.5), i];
      }
      case 'load': {
        const truck = obs.trucks.find((t) => t.id === a.load.truck);
        return [truckValue(me, truck.tiles.concat([obs.drawn_tile])) - truckValue(me, truck.tiles), i];
      }
      case 'bonus_take':
        return [placeValue(me, a.bonus_take.tile, a.bonus_take.to), i];
      case 'bonus_discard': {
        const same = me.barn.filter((t) => kindOf(t) === kindOf(a.bonus_discard.tile)).length;
        return [same === 1 ? 2 : 0.1, i];
      }
      default:
        return [0, i];
    }
  });
  let best = -Infinity;
  let ties = [];
  for (const [value, i] of scored) {
    if (value > best + 1e-9) {
      best = value;
      ties = [i];
    } else if (Math.abs(value - best) <= 1e-9) {
      ties.push(i);
    }
  }
  return ties[Math.floor(rng() * ties.length)];
}

module.exports = { choose, placeValue, truckValue };
