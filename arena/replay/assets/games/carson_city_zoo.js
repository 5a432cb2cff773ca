/* Carson City Zoo: the 5 x 5 board (stacks of zoo cards with their visible face value,
   characters standing on them, mutated ones marked) and each team's hand, capture
   piles and score. Card backs of cards still on the board are never shown (hidden). */
(function () {
  "use strict";
  const S = window.MenagerieSVG;
  const TEAM = { Y: "#e0a800", B: "#2f6fd6", G: "#2f9e44", R: "#d94841" };
  const CELL = 100;

  function zooCard(x, y, value, attrs) {
    const known = value !== undefined && value !== null && value >= 0;
    return S.at(x, y, [
      S.rect(0, 0, 50, 66, { rx: 5, fill: known ? "#fffaf0" : "#7a6a55", stroke: "#4b3b2a", "stroke-width": 1.5 }),
      known ? S.text(25, 44, String(value), { "text-anchor": "middle", "font-size": 30, "font-weight": 700, fill: "#4b3b2a" })
        : S.path("M8,8 L42,58 M42,8 L8,58", { stroke: "#a8957a", "stroke-width": 2 }),
      known ? S.text(6, 14, "zoo", { "font-size": 9, fill: "#8b7355" }) : null,
    ], attrs);
  }

  function character(x, y, id, mutated, r) {
    const team = (id || "?")[0];
    const value = (id || "").slice(1);
    const colour = TEAM[team] || "#999";
    const kids = [];
    if (mutated) {
      const spikes = [];
      for (let i = 0; i < 16; i++) {
        const a = (i * Math.PI) / 8, rr = i % 2 ? r : r + 6;
        spikes.push([rr * Math.cos(a), rr * Math.sin(a)]);
      }
      kids.push(S.poly(spikes, { fill: "#5b8c2a", stroke: "#1f3a0c", "stroke-width": 2 }));
      kids.push(S.circle(0, 0, r - 5, { fill: colour, stroke: "#1f3a0c", "stroke-width": 2 }));
    } else {
      kids.push(S.circle(0, 0, r, { fill: colour, stroke: "#222", "stroke-width": 2 }));
    }
    kids.push(S.text(0, 6, value, { "text-anchor": "middle", "font-size": r * 0.9, "font-weight": 700, fill: "#fff" }));
    if (mutated) kids.push(S.text(0, r + 16, "mutant", { "text-anchor": "middle", "font-size": 10, fill: "#1f3a0c", "font-weight": 700 }));
    kids.push(S.title(`${id}${mutated ? " (mutated)" : ""}`));
    return S.at(x, y, kids, { class: "character", "data-card": id });
  }

  function space(sp) {
    const kids = [S.rect(2, 2, CELL - 4, CELL - 4, { rx: 6, fill: "#efe3c8", stroke: "#b8a27a" })];
    kids.push(S.text(8, 16, String(sp.space), { "font-size": 10, fill: "#8b7355" }));
    const n = sp.cards || 0;
    if (n === 0) {
      kids.push(S.rect(25, 17, 50, 66, { rx: 5, fill: "none", stroke: "#c4b08a", "stroke-dasharray": "4 3" }));
    } else {
      if (n >= 2) kids.push(zooCard(31, 12, -1));
      kids.push(zooCard(25, 17, sp.top_value));
    }
    if (sp.occupant) kids.push(character(70, 70, sp.occupant, sp.mutated, 17));
    return S.at((sp.col || 0) * CELL, (sp.row || 0) * CELL, kids, { class: "space", "data-space": sp.space });
  }

  function player(p, x, y, ctx) {
    const colour = TEAM[p.team] || "#999";
    const kids = [S.rect(0, 0, 430, 118, { rx: 8, fill: "#faf7f0", stroke: colour, "stroke-width": 2 })];
    kids.push(S.playerHeading(8, 22, p.seat, ctx.names[p.seat] || `seat ${p.seat}`,
      `team ${p.team} · ${p.zoo_cards} + ${p.captured_characters} + ${p.surviving_characters} = ${p.total}`, ctx, colour));
    kids.push(S.text(12, 46, "hand", { "font-size": 11, fill: "#555" }));
    (p.hand || []).forEach((id, i) => kids.push(character(64 + i * 40, 44, id, false, 15)));
    kids.push(S.text(230, 46, "on board", { "font-size": 11, fill: "#555" }));
    (p.on_board || []).forEach((id, i) => kids.push(character(300 + i * 36, 44, id, false, 12)));
    const zoo = p.zoo_pile || [];
    kids.push(S.text(12, 86, `zoo pile ${zoo.length}`, { "font-size": 11, fill: "#555" }));
    zoo.slice(0, 17).forEach((c, i) => {
      kids.push(S.at(80 + i * 15, 72, [
        S.rect(0, 0, 14, 20, { rx: 2, fill: c.mutant ? "#5b8c2a" : "#fffaf0", stroke: "#4b3b2a" }),
        S.text(7, 14, String(c.value), { "text-anchor": "middle", "font-size": 11, fill: c.mutant ? "#fff" : "#4b3b2a" }),
        S.title(`${c.id}: ${c.value}${c.mutant ? " (mutant back)" : ""}`),
      ]));
    });
    const caps = p.character_pile || [];
    kids.push(S.text(12, 110, `captured ${caps.length}`, { "font-size": 11, fill: "#555" }));
    caps.forEach((c, i) => kids.push(character(92 + i * 28, 104, c.id, c.mutated, 10)));
    return S.at(x, y, kids, { class: "player", "data-seat": p.seat });
  }

  function draw(obs, ctx) {
    const kids = [];
    const found = (obs.mutant_found || []).map((f, v) => `${v}:${f ? "found" : "hidden"}`).join("  ");
    kids.push(S.text(10, 20, `phase ${obs.phase} · ${obs.cards_dealt} cards dealt · mutants ${found}`, { "font-size": 15, "font-weight": 600 }));
    const board = (obs.spaces || []).map(space);
    kids.push(S.at(10, 36, [S.rect(-4, -4, 5 * CELL + 8, 5 * CELL + 8, { rx: 8, fill: "#d8c7a0" })].concat(board), { class: "board" }));
    const players = obs.players || [];
    players.forEach((p, i) => kids.push(player(p, 530, 36 + i * 128, ctx)));
    return S.svg(970, Math.max(5 * CELL + 50, 46 + players.length * 128), kids);
  }

  window.MenagerieGames.carson_city_zoo = { draw: draw };
})();
