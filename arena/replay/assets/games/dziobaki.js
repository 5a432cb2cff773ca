/* Dziobaki: each player's 3 x 4 board of meadows. A placed tile shows its river arms
   (from the centre to the edge midpoints, turned by its rotation) and its animals in
   their quadrants; the board's printed animals stand in the margin. The revealed tile
   and, in a seat's own view, that seat's secret commitment are shown too. */
(function () {
  "use strict";
  const S = window.MenagerieSVG;
  const SPECIES_COLOUR = ["#7b4a24", "#8d939c", "#d9822b", "#7e57c2"];
  const LETTER = ["P", "K", "R", "G"];
  const SEAT = ["#d94841", "#e0a800", "#2f9e44", "#2f6fd6"];
  const SP = 62; /* space size */
  const QUAD = [[0, 0], [1, 0], [1, 1], [0, 1]]; /* NW NE SE SW as (dx, dy) halves */
  const ARM_END = [[0.5, 0], [1, 0.5], [0.5, 1], [0, 0.5]]; /* N E S W edge midpoints */

  function animal(x, y, sp, r) {
    return S.g({}, [
      S.circle(x, y, r, { fill: SPECIES_COLOUR[sp] || "#999", stroke: "#fff", "stroke-width": 1.5 }),
      S.text(x, y + r * 0.45, LETTER[sp] || "?", { "text-anchor": "middle", "font-size": r * 1.2, "font-weight": 700, fill: "#fff" }),
    ]);
  }

  /* A tile of size s at rotation rot (quarter turns clockwise). */
  function tile(id, rot, s, comp, attrs) {
    const data = ((comp.tiles || {})[id]) || null;
    const kids = [S.rect(0, 0, s, s, { fill: "#a6d785", stroke: "#4d7c2f", "stroke-width": 1.5 })];
    if (!data) {
      kids.push(S.text(s / 2, s / 2, id, { "text-anchor": "middle" }));
    } else {
      for (const arm of data.arms) {
        const [ex, ey] = ARM_END[(arm + rot) % 4];
        kids.push(S.line(s / 2, s / 2, ex * s, ey * s, { stroke: "#2b7bd1", "stroke-width": s * 0.12, "stroke-linecap": "round" }));
      }
      if (data.arms.length >= 2) kids.push(S.circle(s / 2, s / 2, s * 0.07, { fill: "#2b7bd1" }));
      for (const [sp, q] of data.animals) {
        const [dx, dy] = QUAD[(q + rot) % 4];
        kids.push(animal((dx + 0.5) * s / 2, (dy + 0.5) * s / 2, sp, s * 0.13));
      }
    }
    kids.push(S.text(s - 3, s - 3, id, { "text-anchor": "end", "font-size": s * 0.14, fill: "#2d4a1d" }));
    kids.push(S.title(`${id} rotation ${rot}`));
    return S.g(Object.assign({ class: "tile", "data-tile": id }, attrs || {}), kids);
  }

  function board(b, obs, ctx, x, y) {
    const comp = ctx.comp;
    const pad = 26;
    const kids = [S.rect(0, 0, 4 * SP + 2 * pad, 3 * SP + 2 * pad + 40, { rx: 8, fill: "#f1f5e9", stroke: SEAT[b.seat % 4], "stroke-width": 2 })];
    const sc = b.score || {};
    const committed = (obs.committed || [])[b.seat];
    kids.push(S.playerHeading(6, 20, b.seat, ctx.names[b.seat] || `seat ${b.seat}`,
      `${sc.total ?? 0} pts${committed ? " · committed" : ""}`, ctx, SEAT[b.seat % 4]));
    kids.push(S.text(12, 40, `P ${sc.meadows_platypus ?? 0} · K ${sc.meadows_koala ?? 0} · R ${sc.meadows_kangaroo ?? 0} · G ${sc.meadows_glider ?? 0} · bonus ${sc.all_together_bonus ?? 0} · max P/meadow ${sc.max_platypus_in_meadow ?? 0}`, { "font-size": 11, fill: "#555" }));
    const grid = [];
    (b.spaces || []).forEach((spc) => {
      const r = Math.floor(spc.space / 4), c = spc.space % 4;
      if (spc.tile) {
        grid.push(S.at(c * SP, r * SP, [tile(spc.tile, spc.rotation, SP, comp)]));
      } else {
        grid.push(S.at(c * SP, r * SP, [
          S.rect(0, 0, SP, SP, { fill: "#dfe9d3", stroke: "#b9c9a8", "stroke-dasharray": "4 3" }),
          S.text(SP / 2, SP / 2 + 5, String(spc.space), { "text-anchor": "middle", fill: "#9aae87" }),
        ]));
      }
    });
    const mine = obs.my_commitment || {};
    if (ctx.view === b.seat && mine.space >= 0 && obs.revealed_tile) {
      const r = Math.floor(mine.space / 4), c = mine.space % 4;
      grid.push(S.at(c * SP, r * SP, [tile(obs.revealed_tile, mine.rotation, SP, comp, { opacity: 0.55 }),
        S.rect(1, 1, SP - 2, SP - 2, { fill: "none", stroke: "#111", "stroke-width": 2, "stroke-dasharray": "5 3" })]));
    }
    const side = obs.board_side || "A";
    for (const pa of ((comp.printed || {})[side] || [])) {
      const [fr, fc] = pa.cell;
      let px = (fc + 0.5) * SP / 2, py = (fr + 0.5) * SP / 2;
      if (pa.margin === "left") px = -pad / 2;
      if (pa.margin === "right") px = 4 * SP + pad / 2;
      if (pa.margin === "top") py = -pad / 2;
      if (pa.margin === "bottom") py = 3 * SP + pad / 2;
      grid.push(animal(px, py, pa.species, 9));
    }
    kids.push(S.at(pad, pad + 36, grid));
    return S.at(x, y, kids, { class: "board", "data-seat": b.seat });
  }

  function draw(obs, ctx) {
    const kids = [];
    kids.push(S.text(10, 22, `round ${obs.round}/12 · phase ${obs.phase} · side ${obs.board_side}${obs.all_together ? " · all together" : ""} · ${obs.stack_size} tiles in the stack`, { "font-size": 15, "font-weight": 600 }));
    const cur = [S.text(0, 0, "revealed tile", { "font-size": 12 })];
    if (obs.revealed_tile) cur.push(S.at(0, 8, [tile(obs.revealed_tile, 0, 70, ctx.comp)]));
    else cur.push(S.rect(0, 8, 70, 70, { fill: "none", stroke: "#aaa", "stroke-dasharray": "4 3" }));
    kids.push(S.at(10, 52, cur));
    const legend = LETTER.map((l, i) => S.at(100 + i * 100, 60, [animal(0, 0, i, 9), S.text(14, 4, ["platypus", "koala", "kangaroo", "glider"][i], { "font-size": 12 })]));
    kids.push(S.g({}, legend));
    const seen = obs.revealed || [];
    kids.push(S.text(100, 92, `revealed so far: ${seen.join(" ")}`, { "font-size": 11, fill: "#555" }));
    const boards = obs.boards || [];
    const bw = 4 * SP + 52 + 14, bh = 3 * SP + 52 + 40 + 14;
    boards.forEach((b, i) => kids.push(board(b, obs, ctx, 10 + (i % 3) * bw, 140 + Math.floor(i / 3) * bh)));
    return S.svg(Math.max(640, 20 + Math.min(boards.length, 3) * bw), 150 + Math.ceil(boards.length / 3) * bh, kids);
  }

  window.MenagerieGames.dziobaki = { draw: draw };
})();
