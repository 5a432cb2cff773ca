/* Menagerie replay viewer: timeline, seat views, step log, final score; the board is drawn
   by window.MenagerieGames[game].draw(observation, ctx), which returns an SVG element. */
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("menagerie-data").textContent);
  const S = window.MenagerieSVG;
  const drawer = (window.MenagerieGames || {})[data.game] || null;
  const last = data.frames.length - 1;
  const $ = (id) => document.getElementById(id);
  const names = data.players.map((p) => p.name);
  let k = 0;
  let view = 0; /* index into data.views (the full viewer: 0 = spectator, 1 + s = seat s; a
                   one-seat viewer holds that seat's view only); st.texts[view] is a step's
                   text as that view may read it */
  let timer = null;

  /* The pool is hash-consed JSON (see arena/replay/viewer.py): a stored list is [-1, c...], a
     stored object [keyset, c...]; a child c is a pool index, or a string/boolean/null. */
  const memo = new Array(data.pool.length);
  function node(i) {
    if (memo[i] !== undefined) return memo[i];
    const e = data.pool[i];
    let out = e;
    if (Array.isArray(e)) {
      if (e[0] === -1) {
        out = e.slice(1).map(child);
      } else {
        out = {};
        const keys = data.keysets[e[0]];
        for (let j = 0; j < keys.length; j++) out[keys[j]] = child(e[j + 1]);
      }
    }
    memo[i] = out;
    return out;
  }
  function child(c) { return typeof c === "number" ? node(c) : c; }
  function observation(step, v) { return child(data.frames[step][v]); }

  function who(seat) {
    if (seat === null || seat === undefined) return "spectator";
    if (seat === -1) return "chance";
    if (seat === -2) return "nobody (game over)";
    return `seat ${seat} (${names[seat]})`;
  }

  function eventNode(ev) {
    const kind = String(ev.kind || "event");
    const cls = ["timeout", "illegal", "crash", "forfeit"].includes(kind) ? kind : "other";
    const div = document.createElement("div");
    div.className = "event " + cls;
    div.textContent = `⚠ ${kind} (seat ${ev.seat}${ev.seat >= 0 ? " " + names[ev.seat] : ""}): ${ev.reason || ""}`;
    return div;
  }

  function fmt(v) {
    return typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2).replace(/\.?0+$/, "") : String(v);
  }

  function buildFinal() {
    const r = data.result;
    const table = document.createElement("table");
    const head = table.insertRow();
    const th0 = document.createElement("th");
    th0.textContent = "";
    head.appendChild(th0);
    names.forEach((n, s) => {
      const th = document.createElement("th");
      th.textContent = `${s} ${n}${data.forfeited.includes(s) ? " ✗" : ""}`;
      head.appendChild(th);
    });
    const cats = [];
    r.breakdown.forEach((bd) => Object.keys(bd).forEach((c) => { if (c !== "total" && !cats.includes(c)) cats.push(c); }));
    cats.forEach((c) => {
      const row = table.insertRow();
      row.insertCell().textContent = c;
      r.breakdown.forEach((bd) => { row.insertCell().textContent = c in bd ? fmt(bd[c]) : ""; });
    });
    const total = table.insertRow();
    total.className = "total";
    total.insertCell().textContent = "score";
    r.scores.forEach((sc, s) => {
      const cell = total.insertCell();
      cell.textContent = fmt(sc);
      cell.className = "final-score";
      cell.dataset.seat = s;
      cell.dataset.score = sc;
    });
    const rank = table.insertRow();
    rank.className = "rank";
    rank.insertCell().textContent = "rank";
    data.ranks.forEach((rk) => { rank.insertCell().textContent = String(rk); });
    const box = $("final");
    box.replaceChildren(table);
    (data.stray_events || []).forEach((ev) => box.appendChild(eventNode(ev)));
  }

  function buildLog() {
    const ol = $("log");
    ol.replaceChildren();
    data.steps.forEach((st) => {
      const li = document.createElement("li");
      li.value = st.k;
      li.dataset.k = st.k;
      const actor = st.seat === -1 ? "chance" : `${names[st.seat]}`;
      li.textContent = `${actor}: ${st.texts[view]}` + (st.events.length ? "  ⚠ " + st.events.map((e) => e.kind).join(", ") : "");
      if (st.seat === -1) li.classList.add("chance");
      if (st.events.length) li.classList.add("has-event");
      li.addEventListener("click", () => go(st.k));
      ol.appendChild(li);
    });
  }

  function drawBoard(obs, seatView) {
    const board = $("board");
    const ctx = {
      view: seatView, names: names, numPlayers: data.num_players, comp: data.components || {},
      k: k, last: last, toMove: data.to_move[k], step: k > 0 ? data.steps[k - 1] : null,
      result: data.result, S: S,
    };
    let node = null;
    if (drawer) {
      try {
        node = drawer.draw(obs, ctx);
      } catch (err) {
        node = document.createElement("pre");
        node.textContent = `(could not draw this step: ${err})\n` + JSON.stringify(obs, null, 1);
      }
    } else {
      node = document.createElement("pre");
      node.textContent = JSON.stringify(obs, null, 1);
    }
    if (node.setAttribute) node.setAttribute("data-k", String(k));
    board.replaceChildren(node);
  }

  function render() {
    const seatView = data.views[view];
    $("counter").textContent = `step ${k} / ${last}`;
    $("slider").value = String(k);
    const info = $("step-info");
    info.replaceChildren();
    const st = k > 0 ? data.steps[k - 1] : null;
    if (!st) {
      info.textContent = "initial state";
    } else {
      const span = document.createElement("span");
      span.className = st.seat === -1 ? "who chance" : "who";
      span.textContent = `step ${k}: ${who(st.seat)}: `;
      info.appendChild(span);
      info.appendChild(document.createTextNode(st.texts[view]));
      if (st.ms !== null && st.ms !== undefined) {
        const ms = document.createElement("span");
        ms.className = "ms";
        ms.textContent = `  (${fmt(st.ms)} ms)`;
        info.appendChild(ms);
      }
    }
    const next = data.to_move[k];
    const tm = document.createElement("div");
    tm.className = "note";
    tm.textContent = k === last ? "game over" : `to move: ${who(next)}`;
    info.appendChild(tm);
    const events = $("events");
    events.replaceChildren();
    if (st) st.events.forEach((ev) => events.appendChild(eventNode(ev)));
    drawBoard(observation(k, view), seatView);
    document.querySelectorAll("#log li.current").forEach((li) => li.classList.remove("current"));
    const li = document.querySelector(`#log li[data-k="${k}"]`);
    if (li) {
      li.classList.add("current");
      const log = $("log");
      if (li.offsetTop < log.scrollTop || li.offsetTop > log.scrollTop + log.clientHeight - 20) {
        log.scrollTop = li.offsetTop - log.clientHeight / 2;
      }
    }
    const finalPanel = $("final-panel");
    finalPanel.classList.toggle("pending", k !== last);
    $("final").style.display = k === last ? "" : "none";
    $("final-note").style.display = k === last ? "none" : "";
  }

  function go(step) {
    k = Math.max(0, Math.min(last, step | 0));
    render();
  }

  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    const btn = $("btn-play");
    if (on) {
      if (k >= last) go(0);
      timer = setInterval(() => {
        if (k >= last) { play(false); return; }
        go(k + 1);
      }, Number($("speed").value));
    }
    btn.classList.toggle("playing", !!timer);
    btn.innerHTML = timer ? "&#10074;&#10074; pause" : "&#9654; play";
  }

  function init() {
    document.title = `${data.game_name}: game ${data.game_id || "-"}`;
    $("title").textContent = `${data.game_name} — game ${data.game_id || "-"}`;
    const meta = [
      data.players.map((p, s) => `${s}: ${p.name}`).join(" · "),
      data.tournament_id ? `tournament ${data.tournament_id}` : null,
      data.seed === null ? null : `seed ${data.seed}`, `${last} steps`, "record verified ✓",
    ].filter(Boolean);
    $("meta").textContent = meta.join("  |  ");
    const sel = $("seat");
    data.views.forEach((v, i) => {
      const opt = document.createElement("option");
      opt.value = String(i);
      opt.textContent = v === null ? "spectator" : `seat ${v}: ${names[v]}`;
      sel.appendChild(opt);
    });
    sel.addEventListener("change", () => { view = Number(sel.value); buildLog(); render(); });
    const slider = $("slider");
    slider.max = String(last);
    slider.addEventListener("input", () => go(Number(slider.value)));
    $("btn-first").addEventListener("click", () => { play(false); go(0); });
    $("btn-prev").addEventListener("click", () => { play(false); go(k - 1); });
    $("btn-next").addEventListener("click", () => { play(false); go(k + 1); });
    $("btn-last").addEventListener("click", () => { play(false); go(last); });
    $("btn-play").addEventListener("click", () => play(!timer));
    $("speed").addEventListener("change", () => { if (timer) play(true); });
    document.addEventListener("keydown", (e) => {
      if (e.target && e.target.tagName === "SELECT") return;
      if (e.key === "ArrowRight") { play(false); go(k + 1); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { play(false); go(k - 1); e.preventDefault(); }
      else if (e.key === "Home") { play(false); go(0); e.preventDefault(); }
      else if (e.key === "End") { play(false); go(last); e.preventDefault(); }
      else if (e.key === " ") { play(!timer); e.preventDefault(); }
    });
    const note = document.createElement("div");
    note.id = "final-note";
    note.className = "note";
    note.textContent = "shown at the last step";
    $("final-panel").appendChild(note);
    buildFinal();
    buildLog();
    $("footer").textContent =
      `${data.format} · ${data.game} v${data.game_version} · digest ${String(data.digest || "").slice(0, 16)}… · ` +
      "self-contained file: no network";
    const hash = /k=(-?\d+)/.exec(location.hash);
    const hv = /view=(\d+)/.exec(location.hash);
    if (hv && Number(hv[1]) < data.views.length) { view = Number(hv[1]); sel.value = hv[1]; buildLog(); }
    go(hash ? (Number(hash[1]) < 0 ? last + 1 + Number(hash[1]) : Number(hash[1])) : 0);
  }

  window.menagerieViewer = {
    go: go,
    get k() { return k; },
    get last() { return last; },
    setView(v) { view = v; $("seat").value = String(v); render(); },
    data: data,
  };
  init();
})();
