/* Panorama: the central tile with its stacks, balloons and the sun/moon token; each
   player's panorama strip drawn cell by cell (terrain colours, flowers, animals, crows,
   clouds, waterfalls). Tile contents come from ctx.comp.tiles (the engine's table). */
(function () {
  "use strict";
  const S = window.MenagerieSVG;
  const TERRAIN = { S: "#cfe6fb", M: "#e4e2ea", F: "#d9a441", H: "#7cc36a", P: "#f1da6e", W: "#3f8ad6" };
  const TERRAIN_NAME = { S: "sky", M: "mountains", F: "forest", H: "hills", P: "plains", W: "river" };
  const ANIMAL = { M: "#5b4a3a", F: "#c0541c", H: "#8a5a2b", P: "#9c7b54" };
  const START = ["SSS", "SSS", "MMM", "FFF", "HHH", "PPP", "PPP"];

  function tileData(id, comp) {
    if (id && id.startsWith("ST_")) return { terrain: START, items: START.map(() => "...") };
    return (comp.tiles || {})[id] || null;
  }

  function item(code, terrain, x, y, c) {
    const m = c / 2;
    switch (code) {
      case "1": return S.circle(x + m, y + m, c * 0.16, { fill: "#e63946", stroke: "#fff", "stroke-width": c * 0.05 });
      case "2": return S.g({}, [
        S.circle(x + m - c * 0.18, y + m, c * 0.15, { fill: "#e63946", stroke: "#fff", "stroke-width": c * 0.05 }),
        S.circle(x + m + c * 0.18, y + m, c * 0.15, { fill: "#e63946", stroke: "#fff", "stroke-width": c * 0.05 }),
      ]);
      case "a": return S.g({}, [
        S.ellipse(x + m, y + m + c * 0.05, c * 0.3, c * 0.2, { fill: ANIMAL[terrain] || "#6b4f2a" }),
        S.circle(x + m + c * 0.25, y + m - c * 0.12, c * 0.12, { fill: ANIMAL[terrain] || "#6b4f2a" }),
      ]);
      case "c": return S.path(
        `M${x + c * 0.15},${y + m} L${x + m},${y + c * 0.3} L${x + c * 0.85},${y + m} L${x + m},${y + c * 0.55} Z`,
        { fill: "#111" });
      case "o": return S.g({}, [
        S.ellipse(x + m, y + m + c * 0.06, c * 0.38, c * 0.2, { fill: "#fff", stroke: "#9bb", "stroke-width": c * 0.04 }),
        S.circle(x + m - c * 0.08, y + m - c * 0.08, c * 0.18, { fill: "#fff" }),
      ]);
      case "w": return S.path(
        `M${x + c * 0.3},${y + c * 0.1} q${c * 0.15},${c * 0.2} 0,${c * 0.4} q${-c * 0.15},${c * 0.2} 0,${c * 0.4}` +
        ` M${x + c * 0.65},${y + c * 0.1} q${c * 0.15},${c * 0.2} 0,${c * 0.4} q${-c * 0.15},${c * 0.2} 0,${c * 0.4}`,
        { stroke: "#fff", "stroke-width": c * 0.1, fill: "none" });
      default: return null;
    }
  }

  /* One tile, 3 x 7 cells of size c, top-left at (x, y). */
  function tile(id, x, y, c, comp, attrs) {
    const data = tileData(id, comp);
    const w = 3 * c, h = 7 * c;
    const kids = [];
    if (!data) {
      kids.push(S.rect(0, 0, w, h, { fill: "#ddd", stroke: "#555" }), S.text(w / 2, h / 2, id || "?", { "text-anchor": "middle" }));
    } else {
      for (let r = 0; r < 7; r++) {
        for (let col = 0; col < 3; col++) {
          const t = data.terrain[r][col];
          kids.push(S.rect(col * c, r * c, c, c, { fill: TERRAIN[t] || "#ccc" }));
          const it = item(data.items[r][col], t, col * c, r * c, c);
          if (it) kids.push(it);
        }
      }
      kids.push(S.rect(0, 0, w, h, { fill: "none", stroke: "#4b5563", "stroke-width": 1 }));
    }
    kids.push(S.title(id));
    return S.at(x, y, kids, Object.assign({ class: "tile", "data-tile": id }, attrs || {}));
  }

  function sun(x, y, face) {
    if (face === "moon") {
      return S.g({}, [
        S.circle(x, y, 13, { fill: "#f4f1c9", stroke: "#777" }),
        S.circle(x + 6, y - 4, 11, { fill: "#fff" }),
        S.text(x, y + 28, "moon", { "text-anchor": "middle", "font-size": 11 }),
      ]);
    }
    const rays = [];
    for (let i = 0; i < 8; i++) {
      const a = (i * Math.PI) / 4;
      rays.push(S.line(x + 15 * Math.cos(a), y + 15 * Math.sin(a), x + 21 * Math.cos(a), y + 21 * Math.sin(a), { stroke: "#f59e0b", "stroke-width": 3 }));
    }
    return S.g({}, rays.concat([
      S.circle(x, y, 12, { fill: "#fbbf24", stroke: "#d97706" }),
      S.text(x, y + 34, "sun", { "text-anchor": "middle", "font-size": 11 }),
    ]));
  }

  function balloon(x, y, colour, state) {
    const fill = S.COLOURS[colour] || "#999";
    if (state === "deflated") {
      return S.g({}, [S.ellipse(x, y + 8, 12, 5, { fill: fill, opacity: 0.6, stroke: "#333" })]);
    }
    return S.g({}, [
      S.ellipse(x, y - 6, 10, 12, { fill: fill, stroke: "#333" }),
      S.line(x - 4, y + 5, x - 3, y + 11, { stroke: "#333" }),
      S.line(x + 4, y + 5, x + 3, y + 11, { stroke: "#333" }),
      S.rect(x - 4, y + 11, 8, 5, { fill: "#8b5a2b" }),
    ]);
  }

  function draw(obs, ctx) {
    const comp = ctx.comp;
    const players = obs.players || [];
    const n = obs.num_spaces || (obs.spaces || []).length;
    const width = 1000;
    const kids = [];
    /* central tile */
    const cx = 260, cy = 250, R = 110;
    const pts = [];
    for (let i = 0; i < n; i++) {
      const a = -Math.PI / 2 + ((i + 0.5) * 2 * Math.PI) / n - Math.PI / n;
      pts.push([cx + R * Math.cos(a), cy + R * Math.sin(a)]);
    }
    kids.push(S.poly(pts, { fill: "#fdf6e3", stroke: "#8b7355", "stroke-width": 3 }));
    kids.push(S.text(cx, cy - 4, `${obs.unrevealed_tiles ?? "?"} tiles`, { "text-anchor": "middle", "font-size": 13 }));
    kids.push(S.text(cx, cy + 12, "not revealed yet", { "text-anchor": "middle", "font-size": 11, fill: "#666" }));
    (obs.spaces || []).forEach((sp) => {
      const a = -Math.PI / 2 + (sp.space * 2 * Math.PI) / n;
      const sx = cx + (R + 80) * Math.cos(a), sy = cy + (R + 80) * Math.sin(a);
      const c = 10;
      const g = [];
      if (sp.count > 0 && sp.top) {
        for (let d = Math.min(sp.count, 4) - 1; d > 0; d--) {
          g.push(S.rect(-15 + 3 * d, -35 - 3 * d, 30, 70, { fill: "#e8e2d0", stroke: "#8b7355" }));
        }
        g.push(tile(sp.top, -15, -35, c, comp));
      } else {
        g.push(S.rect(-15, -35, 30, 70, { fill: "none", stroke: "#aaa", "stroke-dasharray": "3 3" }));
      }
      g.push(S.text(0, 50, `space ${sp.space}: ${sp.count} tile${sp.count === 1 ? "" : "s"}`, { "text-anchor": "middle", "font-size": 11 }));
      if (sp.balloon_seat >= 0 && players[sp.balloon_seat]) {
        const p = players[sp.balloon_seat];
        g.push(balloon(32, -14, p.colour, p.balloon));
      }
      if (obs.token_space === sp.space) g.push(sun(-40, -14, obs.token_face));
      kids.push(S.at(sx, sy, g, { class: "space", "data-space": sp.space }));
    });
    /* info: goals, phase, held tile */
    const goals = (obs.goals || []).map((gid) => `${gid}: ${(comp.goals || {})[gid] || ""}`);
    const info = [
      S.text(0, 0, `phase ${obs.phase}` + (obs.active_player >= 0 ? ` · active: ${ctx.names[obs.active_player]}` : ""), { "font-size": 15, "font-weight": 600 }),
      S.text(0, 22, "Goals", { "font-size": 13, "font-weight": 700 }),
    ];
    goals.forEach((t, i) => info.push(S.text(0, 40 + 17 * i, t, { "font-size": 13 })));
    if (obs.held_tile) {
      info.push(S.text(0, 110, `held tile ${obs.held_tile}:`, { "font-size": 13 }));
      info.push(tile(obs.held_tile, 0, 118, 16, comp, { class: "tile held" }));
    }
    kids.push(S.at(540, 40, info));
    /* legend */
    const legend = Object.entries(TERRAIN).map(([code, col], i) => S.at(540 + i * 76, 400, [
      S.rect(0, -10, 12, 12, { fill: col, stroke: "#555" }), S.text(16, 0, TERRAIN_NAME[code], { "font-size": 11 })]));
    kids.push(S.g({}, legend));
    /* panoramas */
    let y = 535;
    const c = 14;
    players.forEach((p) => {
      const pts = p.points || {};
      const extra = `${pts.total ?? 0} pts (plains ${pts.plains ?? 0}, hills ${pts.hills ?? 0}, forest ${pts.forest ?? 0}, mountains ${pts.mountains ?? 0}; goals ${pts.goal_sky ?? 0}/${pts.goal_river ?? 0}/${pts.goal_terrain ?? 0}) · balloon ${p.balloon}`;
      kids.push(S.playerHeading(10, y, p.seat, ctx.names[p.seat] || p.colour, extra, ctx, S.COLOURS[p.colour]));
      const strip = [];
      const tiles = p.panorama || [];
      tiles.forEach((tid, i) => {
        strip.push(tile(tid, i * (3 * c + 2), 0, c, comp));
        if (i === p.start_index) {
          strip.push(S.rect(i * (3 * c + 2) - 2, -2, 3 * c + 4, 7 * c + 4, { fill: "none", stroke: "#b8860b", "stroke-width": 3 }));
        }
      });
      kids.push(S.at(20, y + 12, strip, { class: "panorama", "data-seat": p.seat }));
      y += 7 * c + 50;
    });
    return S.svg(width, y, kids);
  }

  window.MenagerieGames.panorama = { draw: draw };
})();
