/* Zooloretto Mini: the delivery trucks with their tiles, the drawn tile, the offspring
   supply, and each player's zoo (three enclosures of six spaces and the barn). Animal
   tiles are coloured by species (offspring are round), landscape tiles drawn as
   pond / shrub / rock; paired animals carry a heart. */
(function () {
  "use strict";
  const S = window.MenagerieSVG;
  const SPECIES = {
    S1: ["#c98b4b", "impala"], S2: ["#8d939c", "rhino"], S3: ["#e4cf9f", "llama"],
    S4: ["#6fae5a", "S4"], S5: ["#cf5c75", "S5"], S6: ["#5b90d3", "S6"], S7: ["#9a6cc4", "S7"],
  };
  const T = 40; /* tile size */

  function tile(id, x, y, paired, size) {
    const t = size || T;
    const kids = [S.title(id)];
    let m = /^S(\d)([MFNK])(\d+)$/.exec(id || "");
    if (m) {
      const [colour, name] = SPECIES["S" + m[1]] || ["#bbb", "S" + m[1]];
      const kind = m[2];
      if (kind === "K") {
        kids.push(S.circle(t / 2, t / 2, t * 0.42, { fill: colour, stroke: "#333", "stroke-width": 1.5 }));
        kids.push(S.text(t / 2, t * 0.56, "baby", { "text-anchor": "middle", "font-size": t * 0.24, fill: "#111" }));
      } else {
        kids.push(S.rect(1, 1, t - 2, t - 2, { rx: 5, fill: colour, stroke: "#333", "stroke-width": 1.5 }));
        kids.push(S.text(t / 2, t * 0.45, name.slice(0, 6), { "text-anchor": "middle", "font-size": t * 0.24, "font-weight": 700 }));
        const sex = kind === "M" ? "♂" : kind === "F" ? "♀" : "";
        if (sex) kids.push(S.text(t / 2, t * 0.85, sex, { "text-anchor": "middle", "font-size": t * 0.36, "font-weight": 700, fill: kind === "M" ? "#1d4ed8" : "#be185d" }));
      }
    } else if ((m = /^L([PSR])(\d+)$/.exec(id || ""))) {
      const kind = m[1];
      kids.push(S.rect(1, 1, t - 2, t - 2, { rx: 5, fill: "#e9f0d8", stroke: "#333", "stroke-width": 1.5 }));
      if (kind === "P") kids.push(S.ellipse(t / 2, t / 2, t * 0.34, t * 0.22, { fill: "#4aa3df", stroke: "#1f6fa8" }));
      if (kind === "S") {
        kids.push(S.circle(t * 0.36, t * 0.52, t * 0.2, { fill: "#3f8f3f" }));
        kids.push(S.circle(t * 0.62, t * 0.45, t * 0.22, { fill: "#2f7a2f" }));
      }
      if (kind === "R") kids.push(S.poly([[t * 0.2, t * 0.75], [t * 0.35, t * 0.3], [t * 0.6, t * 0.22], [t * 0.8, t * 0.75]], { fill: "#9a9a9a", stroke: "#555" }));
      kids.push(S.text(t / 2, t * 0.95, { P: "pond", S: "shrub", R: "rock" }[kind], { "text-anchor": "middle", "font-size": t * 0.2 }));
    } else {
      kids.push(S.rect(1, 1, t - 2, t - 2, { rx: 5, fill: "#ddd", stroke: "#333" }));
      kids.push(S.text(t / 2, t / 2, id || "?", { "text-anchor": "middle", "font-size": 10 }));
    }
    if (paired) kids.push(S.text(t - 8, 12, "♥", { "text-anchor": "middle", "font-size": 12, fill: "#e11d48" }));
    return S.at(x, y, kids, { class: "tile", "data-tile": id });
  }

  function slot(x, y) {
    return S.rect(x + 1, y + 1, T - 2, T - 2, { rx: 5, fill: "none", stroke: "#b5a98a", "stroke-dasharray": "4 3" });
  }

  function truck(tr, x, y, ctx) {
    const w = tr.capacity * (T + 4) + 50;
    const taken = tr.taken_by >= 0;
    const kids = [
      S.rect(0, 0, w, T + 14, { rx: 6, fill: taken ? "#e5e7eb" : "#fff7e6", stroke: "#8b5a2b", "stroke-width": 2 }),
      S.rect(w - 38, 6, 32, T + 2, { rx: 4, fill: taken ? "#d1d5db" : "#f4b860", stroke: "#8b5a2b" }),
      S.text(w - 22, T / 2 + 12, tr.id, { "text-anchor": "middle", "font-weight": 700 }),
      S.circle(16, T + 16, 6, { fill: "#333" }), S.circle(w - 22, T + 16, 6, { fill: "#333" }),
    ];
    for (let i = 0; i < tr.capacity; i++) {
      const id = tr.tiles[i];
      kids.push(id ? tile(id, 6 + i * (T + 4), 7) : slot(6 + i * (T + 4), 7));
    }
    if (taken) kids.push(S.fitText(0, T + 36, `taken by ${ctx.names[tr.taken_by]}`, w + 10, 12, { fill: "#555", class: "taken-by" }));
    return S.at(x, y, kids, { class: "truck", "data-truck": tr.id });
  }

  function zoo(p, x, y, ctx) {
    const sc = p.score || {};
    const kids = [S.rect(0, 0, 470, 250, { rx: 8, fill: "#f3efe0", stroke: "#b5a98a" })];
    const status = p.active ? "in the round" : `out (took ${p.truck || "a truck"})`;
    kids.push(S.playerHeading(8, 22, p.seat, ctx.names[p.seat] || `seat ${p.seat}`, `${sc.total ?? 0} points · ${status}`, ctx));
    (p.enclosures || []).forEach((en, i) => {
      const ex = 10 + i * 152, ey = 36;
      const paired = new Set(en.paired || []);
      const g = [S.rect(0, 0, 144, 2 * (T + 4) + 30, { rx: 8, fill: "#d9ead3", stroke: "#6a8f5a", "stroke-width": 2 }),
        S.text(6, 15, `${en.id}${en.species ? " · " + ((SPECIES[en.species] || [])[1] || en.species) : ""}`, { "font-weight": 700, "font-size": 12 }),
        S.text(138, 15, `${sc["enclosure_" + (i + 1)] ?? ""}`, { "text-anchor": "end", "font-size": 12, fill: "#444" })];
      for (let j = 0; j < 6; j++) {
        const tx = 6 + (j % 3) * (T + 6), ty = 22 + Math.floor(j / 3) * (T + 4);
        const id = (en.tiles || [])[j];
        g.push(id ? tile(id, tx, ty, paired.has(id)) : slot(tx, ty));
      }
      kids.push(S.at(ex, ey, g, { class: "enclosure" }));
    });
    const barn = p.barn || [];
    const bg = [S.rect(0, 0, 450, 90, { rx: 8, fill: "#ead7c3", stroke: "#8b5a2b", "stroke-width": 2 }),
      S.text(6, 15, `barn (${barn.length}) ${sc.barn ?? ""}`, { "font-weight": 700, "font-size": 12 })];
    const bt = barn.length > 20 ? 26 : 32;
    barn.forEach((id, j) => bg.push(tile(id, 6 + (j % 13) * (bt + 2), 20 + Math.floor(j / 13) * (bt + 2), false, bt)));
    kids.push(S.at(10, 150, bg));
    return S.at(x, y, kids, { class: "zoo", "data-seat": p.seat });
  }

  function draw(obs, ctx) {
    const kids = [];
    const info = `round ${obs.round} · phase ${obs.phase}${obs.last_round ? " · LAST ROUND" : ""} · bag ${obs.bag_count} · end stack ${obs.end_count}`;
    kids.push(S.text(10, 20, info, { "font-size": 15, "font-weight": 600 }));
    /* bag and end stack */
    kids.push(S.at(10, 34, [
      S.path("M10,60 Q0,20 20,12 L40,12 Q60,20 50,60 Z", { fill: "#b08a5a", stroke: "#5b4426" }),
      S.text(30, 44, String(obs.bag_count), { "text-anchor": "middle", fill: "#fff", "font-weight": 700 }),
      S.text(30, 76, "bag", { "text-anchor": "middle", "font-size": 11 }),
      S.rect(70, 18, 44, 42, { rx: 4, fill: "#c9b48a", stroke: "#5b4426" }),
      S.text(92, 44, String(obs.end_count), { "text-anchor": "middle", "font-weight": 700 }),
      S.text(92, 76, "end stack", { "text-anchor": "middle", "font-size": 11 }),
    ]));
    kids.push(S.at(140, 34, [
      S.text(0, 12, "drawn tile", { "font-size": 11 }),
      obs.drawn_tile ? tile(obs.drawn_tile, 0, 18) : slot(0, 18),
    ]));
    let tx = 200;
    (obs.trucks || []).forEach((tr) => {
      kids.push(truck(tr, tx, 40, ctx));
      tx += tr.capacity * (T + 4) + 64;
    });
    const sup = obs.offspring_supply || [];
    const supply = [S.text(0, 12, `offspring supply (${sup.length})`, { "font-size": 11 })];
    sup.forEach((id, i) => supply.push(tile(id, i * 28, 18, false, 26)));
    kids.push(S.at(10, 120, supply));
    const out = obs.out_of_play || [];
    const oop = [S.text(0, 12, `out of play (${out.length})`, { "font-size": 11 })];
    out.slice(0, 16).forEach((id, i) => oop.push(tile(id, i * 28, 18, false, 26)));
    kids.push(S.at(500, 120, oop));
    const players = obs.players || [];
    players.forEach((p, i) => kids.push(zoo(p, 10 + (i % 2) * 485, 180 + Math.floor(i / 2) * 262, ctx)));
    const height = 180 + Math.ceil(players.length / 2) * 262;
    return S.svg(970, height, kids);
  }

  window.MenagerieGames.zooloretto_mini = { draw: draw };
})();
