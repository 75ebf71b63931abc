/* The drive-through screen: one lane, its conversation and its order board, live from the lane's
   event stream. Customer text is only ever set as text (AM.el / textContent). */
"use strict";

(() => {
  const KEY = "automanager.lane";  // {lane, token} of this tab's lane: a reload resumes it
  const $ = (id) => document.getElementById(id);
  const { el, fill, api, money } = AM;

  let lane = null;          // {lane, token}
  let view = null;          // {session, greeting, turns, lines, total, ended, menu_version}
  let waiting = [];         // lines sent, not answered yet
  let unavailable = {};     // food out -> the menu items it takes off
  let queue = Promise.resolve();
  let source = null;

  function laneUrl(suffix = "") {
    return "/api/lanes/" + encodeURIComponent(lane.lane) + suffix;
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  function notice(kind, text) {
    const item = el("div", { class: "notice " + kind, role: "status" },
      el("span", { class: "notice-text" }, text),
      el("button", { type: "button", class: "quiet", "aria-label": "Dismiss", onclick: () => item.remove() }, "×"));
    $("notices").prepend(item);
    while ($("notices").children.length > 4) $("notices").lastElementChild.remove();
  }

  function offItems() {
    return new Set(Object.values(unavailable).flat());
  }

  function render() {
    if (!view) return;
    const turns = view.turns || [];
    const rows = [];
    if (view.greeting) rows.push(el("li", { class: "bot" }, view.greeting));
    for (const turn of turns) {
      rows.push(el("li", { class: "customer" }, turn.user));
      rows.push(el("li", { class: "bot" }, turn.bot));
    }
    for (const text of waiting) {
      rows.push(el("li", { class: "customer waiting" }, text));
      rows.push(el("li", { class: "bot typing", "aria-label": "The assistant is answering" }, "…"));
    }
    const list = $("conversation");
    fill(list, rows);
    list.scrollTop = list.scrollHeight;

    const off = offItems();
    fill($("order-lines"), (view.lines || []).map((line) => el("tr", { class: off.has(line.item) ? "off" : null },
      el("td", { class: "qty" }, String(line.quantity)),
      el("td", { class: "item" },
        el("span", { class: "name" }, line.item),
        line.modifiers ? el("span", { class: "mods" }, line.modifiers) : null,
        off.has(line.item) ? el("span", { class: "tag" }, "just ran out") : null),
      el("td", { class: "price" }, money(line.line_price)))));
    $("empty").hidden = (view.lines || []).length > 0;
    $("total").textContent = money(view.total);

    const farewell = $("farewell");
    farewell.hidden = !view.ended;
    const placed = view.placed;
    fill(farewell, view.ended ? [
      `Order complete: ${money(placed ? placed.paid : view.total)}. `,
      placed ? el("span", { id: "sent" }, `Sent to the kitchen: ticket #${placed.ticket}.`) : null,
      placed ? el("a", { id: "receipt", href: placed.receipt, target: "_blank", rel: "noopener" }, "Receipt") : null,
      " Thank you! Next car, just start talking."] : []);
    $("line").placeholder = view.ended ? "Next car: say what you'd like…" : "Say what you'd like…";
  }

  /** The lane as the service shows it now (a GET, the open answer or a lane event). */
  function show(state) {
    // a car's greeting is the one it was greeted with: the lane's greeting of a session with turns
    // is a resumed session's "welcome back", so the first one seen is kept (a new car shows none)
    const said = "automanager.greeting." + state.session;
    if (!(state.turns || []).length && state.greeting) sessionStorage.setItem(said, state.greeting);
    view = {
      session: state.session, greeting: sessionStorage.getItem(said) || "", turns: state.turns || [],
      lines: state.lines || [], total: state.total || 0, ended: !!state.ended, menu_version: state.menu_version,
      placed: state.placed || null,
    };
    $("lane-id").textContent = "Lane " + state.lane;
    render();
  }

  /** A turn's answer: its line and reply join the conversation unless the lane event brought them. */
  async function answered(reply) {
    if (!view || reply.session !== view.session) {
      const now = await api("GET", laneUrl(), { token: lane.token });  // a new car: its greeting and turns
      if (now.ok) show(now.data);
      return;
    }
    const last = view.turns[view.turns.length - 1];
    if (!reply.repeated && !(last && last.user === reply.text && last.bot === reply.reply)) {
      view.turns.push({ user: reply.text, bot: reply.reply });
    }
    Object.assign(view, { lines: reply.lines, total: reply.total, ended: reply.ended, menu_version: reply.menu_version,
                          placed: reply.placed || null });
    render();
  }

  async function send(text) {
    const body = { text, turn_id: AM.turnId() };  // the same id on a retry: the turn is taken once
    const post = () => api("POST", laneUrl("/turns"), { body, token: lane.token });
    let result;
    try {
      try {
        result = await post();
      } catch (_) {
        result = await post();  // a lost answer or a dropped connection: once more, same turn id
      }
    } catch (_) {
      waiting.shift();
      render();
      showError("The service cannot be reached; nothing was ordered from that line. Please say it again.");
      return;
    }
    waiting.shift();
    if (!result.ok) {
      render();
      showError(result.data.error || `The service answered ${result.status}.`);
      if (result.status === 404 || result.status === 403) await start(true);
      return;
    }
    showError("");
    await answered(result.data);
  }

  function say(event) {
    event.preventDefault();
    const input = $("line");
    const text = input.value.trim();
    if (!text || !lane) return;
    input.value = "";
    waiting.push(text);
    render();
    queue = queue.then(() => send(text));
  }

  // -- push to talk: hold the button (or the space bar); the recording is sent on release ---------
  let recorder = null;

  async function startTalking() {
    if (recorder || !lane) return;
    try {
      const stream = await navigator.mediaDevices.getUserMedia({  // the recognizer hears best unprocessed
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
      const chunks = [];
      recorder = new MediaRecorder(stream);
      recorder.addEventListener("dataavailable", (event) => chunks.push(event.data));
      recorder.addEventListener("stop", () => {
        stream.getTracks().forEach((track) => track.stop());
        const audio = new Blob(chunks, { type: recorder.mimeType || "audio/webm" });
        recorder = null;
        $("talk").classList.remove("on");
        queue = queue.then(() => sendSpeech(audio));
      });
      recorder.start();
      $("talk").classList.add("on");
    } catch (_) {
      recorder = null;
      showError("The microphone cannot be used here; type the line instead.");
    }
  }

  function stopTalking() {
    if (recorder && recorder.state === "recording") recorder.stop();
  }

  async function sendSpeech(audio) {
    const turnId = AM.turnId();
    waiting.push("…");
    render();
    let response;
    try {
      response = await fetch(laneUrl("/speech?turn_id=" + turnId), {
        method: "POST", body: audio, cache: "no-store",
        headers: { Authorization: "Bearer " + lane.token, "Content-Type": audio.type || "application/octet-stream" },
      });
    } catch (_) {
      waiting.shift();
      render();
      return showError("The service cannot be reached; nothing was ordered. Please say it again.");
    }
    waiting.shift();
    const data = await response.json();
    if (!response.ok) {
      render();
      return showError(data.error || `The service answered ${response.status}.`);
    }
    showError("");
    await answered(data);  // the words heard are the customer's line, as they were read
    const player = $("reply-audio");
    player.src = data.audio + "?token=" + encodeURIComponent(lane.token);
    player.play().catch(() => {});  // a page not yet interacted with may not play: the text is there
  }

  function listen() {
    if (source) source.close();
    const live = $("live");
    source = new EventSource(laneUrl("/events?token=" + encodeURIComponent(lane.token)));
    source.onopen = () => { live.dataset.state = "on"; live.textContent = "live"; };
    source.onerror = () => {
      live.dataset.state = "off";
      live.textContent = source.readyState === EventSource.CLOSED ? "offline" : "reconnecting…";
    };
    source.addEventListener("lane", (message) => {
      const state = JSON.parse(message.data);
      if (!view || state.session !== view.session || (state.turns || []).length >= view.turns.length) show(state);
    });
    source.addEventListener("lane_closed", () => {  // the manager closed it: this screen gets a new lane
      notice("menu", "This lane was closed; a new one is open.");
      start(true);
    });
    source.addEventListener("stock", (message) => {
      const stock = JSON.parse(message.data);
      unavailable = stock.dishes_out || {};
      const ordered = new Set((view ? view.lines : []).map((line) => line.item));
      for (const food of stock.ran_out || []) {
        const off = unavailable[food] || [];
        const mine = off.filter((item) => ordered.has(item));
        notice("out", `Sorry, ${food} just ran out` +
          (mine.length ? `: your ${mine.join(", ")} can't be made right now.` :
            off.length ? `: some menu items can't be made right now.` : "."));
      }
      for (const food of stock.back || []) notice("back", `${food} is back in stock.`);
      render();
      // the order as the service prices it now: what ran out is off the board and the total
      api("GET", laneUrl(), { token: lane.token }).then((now) => { if (now.ok) show(now.data); });
    });
    source.addEventListener("menu", (message) => {
      const menu = JSON.parse(message.data);
      if (view && menu.version !== view.menu_version && menu.version !== null) {
        notice("menu", `The menu was updated (version ${menu.version}).`);
      }
    });
  }

  /** Resume this tab's lane, or open one. */
  async function start(fresh = false) {
    if (!fresh) {
      const stored = JSON.parse(sessionStorage.getItem(KEY) || "null");
      if (stored && stored.lane && stored.token) {
        lane = stored;
        let now;
        try {
          now = await api("GET", laneUrl(), { token: lane.token });
        } catch (_) {
          showError("The service cannot be reached; trying again…");
          setTimeout(() => start(), 3000);
          return;
        }
        if (now.ok) {
          showError("");
          show(now.data);
          listen();
          return;
        }
      }
    }
    sessionStorage.removeItem(KEY);
    let opened;
    try {
      opened = await api("POST", "/api/lanes");
    } catch (_) {
      showError("The service cannot be reached; trying again…");
      setTimeout(() => start(true), 3000);
      return;
    }
    if (!opened.ok) {
      showError(opened.data.error || `The service answered ${opened.status}.`);
      return;
    }
    lane = { lane: opened.data.lane, token: opened.data.token };
    sessionStorage.setItem(KEY, JSON.stringify(lane));
    showError("");
    show(opened.data);
    listen();
  }

  async function closeLane() {
    if (source) source.close();  // first: its lane_closed event would open a second lane
    if (lane) {
      try { await api("DELETE", laneUrl(), { token: lane.token }); } catch (_) { /* a new lane opens anyway */ }
    }
    fill($("notices"));
    waiting = [];
    await start(true);
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("say").addEventListener("submit", say);
    $("close-lane").addEventListener("click", closeLane);
    const talk = $("talk");
    if (talk) {  // present when the service has the voice extra
      talk.addEventListener("pointerdown", startTalking);
      talk.addEventListener("pointerup", stopTalking);
      talk.addEventListener("pointerleave", stopTalking);
      document.addEventListener("keydown", (event) => {
        if (event.code === "Space" && !event.repeat && document.activeElement !== $("line")) {
          event.preventDefault();
          startTalking();
        }
      });
      document.addEventListener("keyup", (event) => {
        if (event.code === "Space" && document.activeElement !== $("line")) stopTalking();
      });
    }
    // a tab closed (or a reload) says so: the lane closes in a few seconds unless this page comes back
    window.addEventListener("pagehide", () => {
      if (lane) navigator.sendBeacon(laneUrl("/left"), new URLSearchParams({ token: lane.token }));
    });
    start();
  });
})();
