/* Manatee Sanctuary: each player's sanctuary grid (cards placed for their bottom half,
   turned by their rotation, with walls and red/green/purple half-flowers on their
   edges), the housed manatees, food, flowers and space; the round, phase, deck and bag.
   A seat's own view also shows its hand and draft stacks (the spectator sees sizes). */
(function () {
  "use strict";
  const S = window.MenagerieSVG;
  const EDGE = { red: "#e0524d", green: "#3aa655", purple: "#8e5cc2" };
  const MANATEE = { grey: "#8a8f98", pink: "#ec6fa4", yellow: "#f2c200" };
  const PANEL_W = 470, PANEL_H = 330;

  function cardData(id, comp) {
    const cards = comp.cards || {};
    if (cards[id]) return cards[id];
    if (/^M\d\d$/.test(id || "")) return cards["S" + id.slice(1)] || null; /* Mnn = copy of Snn */
    return null;
  }

  /* A placed card: square of size c whose compass side d shows edges[(d - k) mod 4]. */
  function placed(id, rot, c, comp) {
    const data = cardData(id, comp);
    const k = ((rot || 0) / 90) % 4;
    const start = id === "START";
    const kids = [S.rect(0, 0, c, c, { fill: start ? "#fff3c4" : data && data.endgame ? "#e8e0f5" : "#cfe9f5", stroke: "#4b6b7a", "stroke-width": 1 })];
    if (data) {
      const sides = [[c / 2, 0, 0, 0, c, 0], [c, c / 2, c, 0, c, c], [c / 2, c, 0, c, c, c], [0, c / 2, 0, 0, 0, c]];
      for (let d = 0; d < 4; d++) {
        const edge = data.edges[(d - k + 4) % 4];
        const [mx, my, x1, y1, x2, y2] = sides[d];
        if (edge === "wall") {
          kids.push(S.line(x1, y1, x2, y2, { stroke: "#5b4426", "stroke-width": Math.max(3, c * 0.09) }));
        } else if (EDGE[edge]) {
          const r = c * 0.2;
          const sweep = d === 0 || d === 3 ? 0 : 1;
          let dpath;
          if (d === 0 || d === 2) dpath = `M${mx - r},${my} A${r},${r} 0 0,${d === 0 ? 0 : 1} ${mx + r},${my} Z`;
          else dpath = `M${mx},${my - r} A${r},${r} 0 0,${sweep === 1 ? 0 : 1} ${mx},${my + r} Z`;
          kids.push(S.path(dpath, { fill: EDGE[edge], stroke: "#333", "stroke-width": 0.6 }));
        }
      }
      const label = start ? "START" : id;
      kids.push(S.text(c / 2, c / 2 - 1, label, { "text-anchor": "middle", "font-size": c * 0.2, "font-weight": 700, fill: "#23404d" }));
      if (data.endgame) {
        kids.push(S.text(c / 2, c / 2 + c * 0.22, "★ " + data.endgame.replace(/^per_/, "").replace(/_/g, " "), { "text-anchor": "middle", "font-size": c * 0.13, fill: "#5b2a86" }));
      } else {
        kids.push(S.text(c / 2, c / 2 + c * 0.22, `⌂${data.habitat}`, { "text-anchor": "middle", "font-size": c * 0.18, fill: "#23404d" }));
      }
    } else {
      kids.push(S.text(c / 2, c / 2, id, { "text-anchor": "middle", "font-size": c * 0.2 }));
    }
    kids.push(S.title(`${id} rot ${rot}`));
    return S.g({ class: "card", "data-card": id }, kids);
  }

  function chip(id, x, y, comp) {
    const data = cardData(id, comp);
    const top = data ? data.top : "";
    return S.at(x, y, [
      S.rect(0, 0, 44, 30, { rx: 3, fill: "#fff", stroke: "#4b6b7a" }),
      S.text(22, 12, id, { "text-anchor": "middle", "font-size": 10, "font-weight": 700 }),
      S.text(22, 25, top + (data ? ` ${"•".repeat(data.dots)}` : ""), { "text-anchor": "middle", "font-size": 10, fill: "#555" }),
      S.title(id),
    ]);
  }

  function manatees(x, y, p) {
    const kids = [];
    let cx = 0;
    for (const colour of ["grey", "pink", "yellow"]) {
      const n = p["housed_" + colour] || 0;
      kids.push(S.ellipse(cx + 9, 0, 9, 6, { fill: MANATEE[colour], stroke: "#333", "stroke-width": 0.8 }));
      kids.push(S.text(cx + 21, 4, `×${n}`, { "font-size": 12 }));
      cx += 48;
    }
    return S.at(x, y, kids);
  }

  function sanctuary(p, comp, w, h) {
    const cells = [{ card: "START", x: 0, y: 0, rot: 0 }].concat(p.sanctuary || []);
    let minX = 0, maxX = 0, minY = 0, maxY = 0;
    cells.forEach((c) => { minX = Math.min(minX, c.x); maxX = Math.max(maxX, c.x); minY = Math.min(minY, c.y); maxY = Math.max(maxY, c.y); });
    const cols = maxX - minX + 1, rows = maxY - minY + 1;
    const c = Math.min(58, Math.floor(w / cols), Math.floor(h / rows));
    const ox = (w - cols * c) / 2, oy = (h - rows * c) / 2;
    return S.g({ class: "sanctuary" }, cells.map((cell) =>
      S.at(ox + (cell.x - minX) * c, oy + (maxY - cell.y) * c, [placed(cell.card, cell.rot, c, comp)])));
  }

  function panel(p, obs, ctx, x, y) {
    const comp = ctx.comp;
    const kids = [S.rect(0, 0, PANEL_W, PANEL_H, { rx: 8, fill: "#eef7fb", stroke: S.SEAT[p.seat % S.SEAT.length], "stroke-width": 2 })];
    kids.push(S.playerHeading(8, 22, p.seat, ctx.names[p.seat] || `seat ${p.seat}`, `${p.score} pts`, ctx));
    kids.push(S.text(12, 44, `food ${p.food} · flowers ${p.flowers} (`, { "font-size": 12 }));
    const fl = [["red", p.flowers_red], ["green", p.flowers_green], ["purple", p.flowers_purple]];
    fl.forEach(([col, n], i) => {
      kids.push(S.circle(150 + i * 34, 40, 5, { fill: EDGE[col] }));
      kids.push(S.text(158 + i * 34, 44, String(n ?? 0), { "font-size": 12 }));
    });
    kids.push(S.text(252, 44, `) · space ${p.usage}/${p.capacity}`, { "font-size": 12 }));
    kids.push(manatees(14, 62, p));
    const handIds = ctx.view === p.seat ? (obs.hand || []) : [];
    const known = p.known_cards || [];
    let handText = `hand ${p.hand_size}`;
    if (ctx.view !== p.seat && known.length) handText += ` (known: ${known.join(" ")})`;
    kids.push(S.text(170, 66, handText + ` · action pile ${(p.action_pile || []).length}`, { "font-size": 12 }));
    handIds.forEach((id, i) => kids.push(chip(id, 12 + i * 48, 76, comp)));
    const top = handIds.length ? 112 : 78;
    kids.push(S.at(6, top, [sanctuary(p, comp, PANEL_W - 12, PANEL_H - top - 6)]));
    return S.at(x, y, kids, { class: "player", "data-seat": p.seat });
  }

  function draw(obs, ctx) {
    const kids = [];
    const bag = obs.bag || {};
    kids.push(S.text(10, 22, `round ${obs.round} · ${obs.phase} / ${obs.step} · passing ${obs.direction} · deck ${obs.deck_size} · ${obs.mode}`, { "font-size": 15, "font-weight": 600 }));
    const bagKids = [S.text(0, 4, "bag", { "font-size": 12 })];
    ["grey", "pink", "yellow"].forEach((col, i) => {
      bagKids.push(S.ellipse(40 + i * 70, 0, 10, 7, { fill: MANATEE[col], stroke: "#333", "stroke-width": 0.8 }));
      bagKids.push(S.text(54 + i * 70, 4, String(bag[col] ?? 0), { "font-size": 12 }));
    });
    kids.push(S.at(10, 46, bagKids));
    const res = obs.resolving || {};
    if (res.seat >= 0) {
      kids.push(S.text(260, 50, `resolving ${res.card} for ${ctx.names[res.seat]}: ${res.draws_left} draws left, new ${res.new_grey}/${res.new_pink}/${res.new_yellow}`, { "font-size": 12 }));
    }
    const mine = [];
    if (obs.mode === "solo") {
      kids.push(S.text(560, 50, `solo token ${obs.solo_token} · challenge ${obs.solo_challenge}${obs.challenge_lost ? " (lost)" : ""} · discards ${(obs.solo_discards || []).length}`, { "font-size": 12 }));
    }
    const groups = [["solo offer", obs.solo_offer]];
    if (ctx.view !== null && ctx.view !== undefined) {
      groups.push(["dealt", obs.dealt], ["my split", obs.my_split], ["received small", obs.received_small], ["received large", obs.received_large]);
    }
    let gx = 0;
    groups.forEach(([label, ids]) => {
      if (!ids || !ids.length) return;
      mine.push(S.text(gx, 0, label, { "font-size": 11 }));
      ids.forEach((id, i) => mine.push(chip(id, gx + i * 48, 6, ctx.comp)));
      gx += Math.max(ids.length * 48, 80) + 16;
    });
    if (mine.length) kids.push(S.at(10, 72, mine));
    const top = mine.length ? 120 : 70;
    const players = obs.players || [];
    players.forEach((p, i) => kids.push(panel(p, obs, ctx, 10 + (i % 2) * (PANEL_W + 12), top + Math.floor(i / 2) * (PANEL_H + 12))));
    return S.svg(2 * PANEL_W + 32, top + Math.ceil(players.length / 2) * (PANEL_H + 12), kids);
  }

  window.MenagerieGames.manatee_sanctuary = { draw: draw };
})();
