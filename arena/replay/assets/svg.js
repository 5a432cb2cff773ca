/* Menagerie viewer: tiny SVG helpers shared by the per-game drawings (no dependencies). */
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, children) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
    }
    for (const child of [].concat(children || [])) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  const S = {
    el: el,
    svg(width, height, children) {
      return el("svg", {
        xmlns: NS, viewBox: `0 0 ${width} ${height}`, width: width, height: height,
        "font-family": "system-ui, 'DejaVu Sans', sans-serif", role: "img",
      }, children);
    },
    g(attrs, children) { return el("g", attrs, children); },
    at(x, y, children, attrs) {
      return el("g", Object.assign({ transform: `translate(${x},${y})` }, attrs || {}), children);
    },
    rect(x, y, w, h, attrs) { return el("rect", Object.assign({ x, y, width: w, height: h }, attrs || {})); },
    circle(cx, cy, r, attrs) { return el("circle", Object.assign({ cx, cy, r }, attrs || {})); },
    ellipse(cx, cy, rx, ry, attrs) { return el("ellipse", Object.assign({ cx, cy, rx, ry }, attrs || {})); },
    line(x1, y1, x2, y2, attrs) { return el("line", Object.assign({ x1, y1, x2, y2 }, attrs || {})); },
    path(d, attrs) { return el("path", Object.assign({ d }, attrs || {})); },
    poly(points, attrs) {
      return el("polygon", Object.assign({ points: points.map((p) => p.join(",")).join(" ") }, attrs || {}));
    },
    text(x, y, str, attrs) {
      return el("text", Object.assign({ x, y, "font-size": 12, fill: "#1f2328" }, attrs || {}), [String(str)]);
    },
    title(str) { return el("title", {}, [String(str)]); },
    /* `str` cut with an ellipsis to fit `width` px at `fontSize` (SVG text does not wrap or
       clip: a long bot name would run into the next drawing); the full text is its tooltip. */
    fitText(x, y, str, width, fontSize, attrs) {
      const s = String(str);
      const max = Math.max(1, Math.floor(width / (fontSize * 0.6)));
      const shown = s.length > max ? s.slice(0, Math.max(1, max - 1)) + "\u2026" : s;
      const node = S.text(x, y, shown, Object.assign({ "font-size": fontSize }, attrs || {}));
      if (shown !== s) node.appendChild(S.title(s));
      return node;
    },
    /* Seat colours: the games' own colours first (red, yellow, green, blue), then more. */
    SEAT: ["#d94841", "#e0a800", "#2f9e44", "#2f6fd6", "#8e44ad", "#e67e22",
      "#16a085", "#c2185b", "#7f8c8d", "#6d4c41", "#00838f", "#5d4037"],
    COLOURS: { red: "#d94841", yellow: "#e0a800", green: "#2f9e44", blue: "#2f6fd6",
      purple: "#8e44ad", grey: "#8a8f98", pink: "#ec6fa4" },
    /* A player's heading: colour chip, name, extra text; highlighted when it is their move. */
    playerHeading(x, y, seat, name, extra, ctx, colour) {
      const c = colour || S.SEAT[seat % S.SEAT.length];
      const toMove = ctx && ctx.toMove === seat;
      const you = ctx && ctx.view === seat;
      const label = el("text", { x: 28, y: 0, "font-size": 15, fill: "#1f2328" }, [
        el("tspan", { "font-weight": 700 }, [`${name}${you ? " (you)" : ""}`]),
        el("tspan", { "font-size": 13, fill: "#444", dx: 10 }, [extra || ""]),
      ]);
      return S.at(x, y, [
        toMove ? S.rect(-4, -15, 12, 20, { fill: "#2563eb", rx: 2 }) : null,
        toMove ? S.title("to move") : null,
        S.circle(16, -5, 7, { fill: c, stroke: "#333", "stroke-width": 1 }),
        label,
      ], { class: "player-heading", "data-seat": seat });
    },
  };
  window.MenagerieSVG = S;
  window.MenagerieGames = window.MenagerieGames || {};
})();
