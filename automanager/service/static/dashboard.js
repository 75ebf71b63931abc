/* The manager's dashboard: stock, the administrator chat, pending changes, versions, history, the
   open lanes and what customers said that was not understood. Live from /api/events (the cookie
   the dashboard set authenticates it); nothing polls. Every text is set as text, never as HTML. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { el, fill, api, money, when } = AM;

  const state = {
    out: [], foods: [], items: [], lanes: new Map(), unheard: [], pending: [], versions: [], latest: null, history: [],
  };
  const echoes = { event: new Map(), reply: new Map() };  // manager turns shown once, from whichever comes first

  /** A manager call; a lost token sends the page to the login page. */
  async function call(method, url, body) {
    let result;
    try {
      result = await api(method, url, { body });
    } catch (_) {
      return { ok: false, status: 0, data: { error: "the service cannot be reached; try again" } };
    }
    if (result.status === 401) window.location.assign("/dashboard");
    return result;
  }

  function status(id, text, bad = false) {
    const line = $(id);
    line.textContent = text || "";
    line.classList.toggle("bad", !!bad);
  }

  // -- the administrator's conversation (one, shared by every dashboard) ----------------------
  function chatLine(turn, from) {
    const chat = $("chat");
    const show = () => {
      chat.append(el("li", { class: "me" }, turn.text), el("li", { class: "bot" }, turn.reply));
      chat.scrollTop = chat.scrollHeight;
    };
    if (from === "local") return show();
    const key = turn.text + "\u0000" + turn.reply;
    const other = from === "event" ? echoes.reply : echoes.event;
    if ((other.get(key) || 0) > 0) {  // already shown from the other source
      other.set(key, other.get(key) - 1);
      return;
    }
    const mine = echoes[from];
    mine.set(key, (mine.get(key) || 0) + 1);
    show();
  }

  function question(turn) {
    $("question").hidden = !turn.asking;
    $("question-text").textContent = turn.asking ? turn.reply : "";
  }

  /** What every manager turn changes on the page: its chat line, the question, pending changes
      (and, after a save, the phrases it taught leave the list). */
  function managerTurn(turn, from) {
    chatLine(turn, from);
    question(turn);
    if (Array.isArray(turn.pending)) {
      state.pending = turn.pending;
      renderPending();
    }
    if (turn.menu_version === undefined) return;
    setVersion(turn.menu_version);
    if (turnVersion !== null && turn.menu_version !== turnVersion) loadUnheard();
    turnVersion = turn.menu_version;
  }
  let turnVersion = null;  // the menu version the last manager turn left

  async function tell(text) {
    const result = await call("POST", "/api/manager/turns", { text });
    if (!result.ok) {
      chatLine({ text, reply: "⚠ " + (result.data.error || `error ${result.status}`) }, "local");
      return null;
    }
    managerTurn(result.data, "reply");
    return result.data;
  }

  // -- stock ----------------------------------------------------------------------------------
  async function loadStock() {
    const result = await call("GET", "/api/stock");
    if (!result.ok) return;
    state.out = result.data.out;
    state.foods = result.data.foods;
    state.items = result.data.items;
    renderStock();
    renderUnheard();
  }

  async function setStock(name, out) {
    status("stock-status", `${out ? "Marking" : "Bringing back"} ${name}…`);
    const result = await call("POST", "/api/stock", { name, out });
    if (!result.ok) {
      status("stock-status", result.data.error || `error ${result.status}`, true);
      return;
    }
    managerTurn(result.data, "reply");
    status("stock-status", result.data.reply);
  }

  const PLURAL = { dish: "dishes", combo: "combos" };
  const count = (n, word) => `${n} ${n === 1 ? word : PLURAL[word]}`;

  /** What a runout takes off, counted as the administrator's chat counts it: dishes, then combos. */
  function takesOff(row) {
    const combos = row.takes_off.length - row.dishes_off;
    return [row.dishes_off ? count(row.dishes_off, "dish") : "", combos ? count(combos, "combo") : ""]
      .filter(Boolean).join(" and ");
  }

  function renderStock() {
    const outNames = new Set(state.out.map((row) => row.name));
    $("out-count").textContent = `${state.out.length} out`;
    $("nothing-out").hidden = state.out.length > 0;
    fill($("outs"), state.out.map((row) => el("li", { "data-out": row.name },
      el("div", { class: "head" },
        el("strong", {}, row.name),
        el("span", { class: "muted small" }, "since " + when(row.since)),
        el("button", { type: "button", class: "good", "aria-label": `Mark ${row.name} back`,
          onclick: () => setStock(row.name, false) }, "Back")),
      row.takes_off.length
        ? el("details", {}, el("summary", {}, "Takes off " + takesOff(row)),
          el("span", { class: "small" }, row.takes_off.join(" · ")))
        : el("span", { class: "muted small" }, "Takes no menu item off."))));

    // every food by its category, what is out first (the service sorts them so); the filter is kept
    // for the next visit, so a manager who works on the drinks finds them again
    const filter = $("food-filter").value.trim().toLowerCase();
    localStorage.setItem(FILTER_KEY, $("food-filter").value);
    const groups = new Map();
    for (const food of state.foods) {
      if (filter && !food.name.toLowerCase().includes(filter) && !food.category.toLowerCase().includes(filter)) continue;
      const group = outNames.has(food.name) ? "Out now" : (food.category || "other");
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(food.name);
    }
    fill($("foods"), [...groups].map(([group, names]) => el("li", { class: "food-group" },
      el("h3", {}, group.charAt(0).toUpperCase() + group.slice(1), el("span", { class: "count" }, String(names.length))),
      el("ul", {}, names.map((name) => {
        const out = outNames.has(name);
        return el("li", { class: out ? "is-out" : null, "data-food": name },
          el("span", {}, name),
          el("button", {
            type: "button", class: out ? "good" : "danger", "aria-label": `Mark ${name} ${out ? "back" : "out"}`,
            onclick: () => setStock(name, !out),
          }, out ? "Back" : "Out"));
      })))));
    $("no-food").hidden = groups.size > 0;
  }
  const FILTER_KEY = "automanager.dashboard.food-filter";

  // -- pending, versions, history -------------------------------------------------------------
  async function loadPending() {
    const result = await call("GET", "/api/pending");
    if (!result.ok) return;
    state.pending = result.data.pending;
    renderPending();
  }

  function renderPending() {
    fill($("pending"), state.pending.map((text) => el("li", {}, text)));
    $("pending-count").textContent = String(state.pending.length);
    $("no-pending").hidden = state.pending.length > 0;
    $("save").disabled = state.pending.length === 0;
  }

  function setVersion(version) {
    if (version !== null && version !== undefined) $("version").textContent = String(version);
  }

  /** A change as the service words it ("edit Bean Burrito: price $1.39 -> $1.59"). */
  const change = (row) => row.said;

  async function loadVersions() {
    const result = await call("GET", "/api/versions");
    if (!result.ok) return;
    state.latest = result.data.latest;
    state.versions = result.data.versions;
    setVersion(state.latest);
    fill($("versions"), state.versions.map((v) => el("li", {},
      el("strong", {}, `Version ${v.version}`), ` · ${v.changes.length} change${v.changes.length === 1 ? "" : "s"}`,
      v.changes.length ? el("span", { class: "muted small" }, " (" + when(v.changes[0].at) + "): " +
        v.changes.map(change).join("; ")) : null)));
    $("no-versions").hidden = state.versions.length > 0;
  }

  async function loadHistory() {
    const result = await call("GET", "/api/history?limit=50");
    if (!result.ok) return;
    state.history = result.data;
    fill($("history"), state.history.map((row) => el("tr", {},
      el("td", { class: "small" }, when(row.at)),
      el("td", {}, row.version === null || row.version === undefined ? "stock" : String(row.version)),
      el("td", {}, change(row)))));
    $("no-history").hidden = state.history.length > 0;
  }

  // -- lanes ------------------------------------------------------------------------------------
  async function loadLanes() {
    const result = await call("GET", "/api/lanes");
    if (!result.ok) return;
    state.lanes = new Map(result.data.map((lane) => [lane.lane, lane]));
    renderLanes();
  }

  function renderLanes() {
    const lanes = [...state.lanes.values()];
    $("lane-count").textContent = String(lanes.length);
    $("no-lanes").hidden = lanes.length > 0;
    fill($("lanes"), lanes.map((lane) => {
      const last = (lane.turns || [])[lane.turns.length - 1];
      return el("article", { class: "lane-card", "data-lane": lane.lane },
        el("h3", {}, el("span", {}, "Lane " + lane.lane), lane.ended ? el("span", { class: "badge" }, "done") : null),
        last ? el("p", { class: "said" }, "“" + last.user + "”") : el("p", { class: "said" }, "waiting for a car…"),
        el("table", {}, el("tbody", {}, (lane.lines || []).map((line) => el("tr", {},
          el("td", {}, `${line.quantity}×`),
          el("td", {}, line.item, line.modifiers ? el("span", { class: "mods" }, line.modifiers) : null),
          el("td", { class: "price" }, money(line.line_price)))))),
        el("div", { class: "sum" }, "Total " + money(lane.total)),
        el("button", { type: "button", class: "quiet close-lane", onclick: () => closeLane(lane.lane) }, "Close lane"));
    }));
  }

  /** Close a lane (a tab left open, a lane nobody uses); its sessions stay saved. */
  async function closeLane(id) {
    const result = await call("DELETE", "/api/manager/lanes/" + encodeURIComponent(id));
    if (result.ok || result.status === 404) {  // closed now, or already
      state.lanes.delete(id);
      renderLanes();
    }
  }

  // -- what customers said that was not understood ----------------------------------------------
  let unheardLoading = null;
  let unheardAgain = false;

  async function loadUnheard() {
    if (unheardLoading) {  // one request at a time; one more after it if lanes spoke meanwhile
      unheardAgain = true;
      return;
    }
    unheardLoading = call("GET", "/api/unheard?status=open");
    const result = await unheardLoading;
    unheardLoading = null;
    if (result.ok) {
      state.unheard = result.data;
      renderUnheard();
    }
    if (unheardAgain) {
      unheardAgain = false;
      loadUnheard();
    }
  }

  let answered = "stock-status";  // where the answer to the open question is told

  async function teach(phrase, item) {
    const result = await call("POST", "/api/unheard/teach", { phrase, item });
    if (!result.ok) {
      status("unheard-status", result.data.error || `error ${result.status}`, true);
      return;
    }
    if (item) {  // read back: the question asks for a yes before anything is staged
      managerTurn(result.data, "reply");
      answered = "unheard-status";
    }
    status("unheard-status", result.data.reply);
    loadUnheard();
  }

  function renderUnheard() {
    const open = state.unheard;
    $("unheard-count").textContent = String(open.length);
    $("no-unheard").hidden = open.length > 0;
    const focused = document.activeElement && document.activeElement.closest("#unheard") ? document.activeElement : null;
    const chosen = new Map([...$("unheard").querySelectorAll("li[data-phrase]")].map(
      (li) => [li.dataset.phrase, li.querySelector("select").value]));
    if (focused && focused.tagName === "SELECT") return;  // re-rendered later: not under the manager's hand
    fill($("unheard"), open.map((row) => {
      const select = el("select", { "aria-label": `Menu item for ${row.phrase}` },
        el("option", { value: "" }, "select a menu item…"),
        state.items.map((name) => el("option", { value: name }, name)));
      select.value = chosen.get(row.phrase) || "";
      const teachButton = el("button", {
        type: "button", "aria-label": `Teach ${row.phrase}`,
        onclick: () => select.value ? teach(row.phrase, select.value)
          : status("unheard-status", "Select the menu item it means first.", true),
      }, "Teach");
      return el("li", { "data-phrase": row.phrase },
        el("div", { class: "row" }, el("span", { class: "phrase" }, "“" + row.phrase + "”"),
          el("span", { class: "muted small" }, `${row.count}× · last ${when(row.last_at)}`)),
        el("div", { class: "row" }, el("span", { class: "small" }, "teach as alias of"), select, teachButton),
        el("div", { class: "row" }, el("button", {
          type: "button", class: "quiet", "aria-label": `We don't sell ${row.phrase}`,
          onclick: () => teach(row.phrase, null),
        }, "We don't sell that")));
    }));
  }

  // -- the day in numbers: figures, and charts the service draws --------------------------------
  async function loadReport() {
    const result = await call("GET", "/api/report");
    if (!result.ok) return;
    const r = result.data;
    $("figures").textContent = `${r.orders} order${r.orders === 1 ? "" : "s"} · sales ${money(r.sales)} · ` +
      `tax ${money(r.tax)} · average ticket ${money(r.average_ticket)} · ran out: ${money(r.lost_value)} refused`;
    const fresh = Date.now();  // the same address would show the picture cached before
    for (const name of ["hours", "items", "lost"]) $("chart-" + name).src = `/api/report/${name}.svg?t=${fresh}`;
  }

  // -- live -------------------------------------------------------------------------------------
  function listen() {
    const live = $("live");
    const source = new EventSource("/api/events");
    source.onopen = () => {
      live.dataset.state = "on";
      live.textContent = "live";
    };
    source.onerror = () => {
      live.dataset.state = "off";
      live.textContent = source.readyState === EventSource.CLOSED ? "offline" : "reconnecting…";
      if (source.readyState === EventSource.CLOSED) {  // the token may be gone: the page says so
        call("GET", "/api/pending");
      }
    };
    const on = (kind, handle) => source.addEventListener(kind, (message) => handle(JSON.parse(message.data)));
    on("stock", () => { loadStock(); loadHistory(); loadLanes(); });  // a runout takes items off open orders
    on("menu", (menu) => {  // a version may publish a phrase taught: it leaves the list
      setVersion(menu.version); loadVersions(); loadHistory(); loadPending(); loadStock(); loadUnheard();
    });
    on("lane", (lane) => { state.lanes.set(lane.lane, lane); renderLanes(); loadUnheard(); });
    on("lane_closed", (closed) => { state.lanes.delete(closed.lane); renderLanes(); });
    on("manager", (turn) => managerTurn(turn, "event"));
    on("tickets", () => loadReport());  // an order closed (or bumped): the day's numbers move
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("food-filter").value = localStorage.getItem(FILTER_KEY) || "";
    $("food-filter").addEventListener("input", renderStock);
    $("chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = $("chat-line");
      const text = input.value.trim();
      if (!text) return;
      input.value = "";
      tell(text);
    });
    $("save").addEventListener("click", async () => {
      const result = await call("POST", "/api/save");
      if (result.ok) managerTurn(result.data, "reply");
      else chatLine({ text: "save", reply: "⚠ " + (result.data.error || `error ${result.status}`) }, "local");
    });
    const answer = async (yes) => {
      $("question").hidden = true;
      const where = answered;  // the status line of what asked
      answered = "stock-status";
      const result = await call("POST", "/api/manager/answer", { yes });
      if (result.ok) {
        managerTurn(result.data, "reply");
        status(where, result.data.reply);
      } else {
        status(where, result.data.error || `error ${result.status}`, true);
      }
    };
    $("answer-yes").addEventListener("click", () => answer(true));
    $("answer-no").addEventListener("click", () => answer(false));
    listen();
    Promise.all([loadStock(), loadLanes(), loadPending(), loadVersions(), loadHistory(), loadUnheard(), loadReport()]);
  });
})();
