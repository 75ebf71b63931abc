/* The kitchen display: the open tickets, oldest first, live from /api/kitchen/events; each shows
   its lines as the kitchen reads them ("no ..." stands out) and how long ago it was sent, its
   colour turning as it ages; Bump takes it off, Recall brings back the last one bumped. */
"use strict";

(() => {
  const { el, fill, api } = AM;
  const $ = (id) => document.getElementById(id);
  const AGING = [[300, "late"], [180, "aging"]];  // seconds since sent: the colour a ticket turns
  let tickets = [];

  function age(placedAt) {
    const sent = new Date(placedAt).getTime();
    return Number.isNaN(sent) ? 0 : Math.max(0, Math.floor((Date.now() - sent) / 1000));
  }

  function since(seconds) {
    const m = Math.floor(seconds / 60);
    return m ? `${m}m ${String(seconds % 60).padStart(2, "0")}s` : `${seconds}s`;
  }

  /** The modifiers as the kitchen reads them: each part its own chip, a "no" one stands out. */
  function modifiers(text) {
    return text ? el("span", { class: "mods" }, text.split(", ").map((part) =>
      el("span", { class: part.startsWith("no ") ? "mod no" : "mod" }, part))) : null;
  }

  function render() {
    fill($("tickets"), tickets.map((t) => {
      const seconds = age(t.placed_at);
      const tone = (AGING.find(([limit]) => seconds >= limit) || [0, "fresh"])[1];
      return el("li", { class: `ticket ${tone}`, "data-ticket": t.ticket },
        el("header", {},
          el("strong", { class: "number" }, `#${t.ticket}`),
          el("span", { class: "source" }, t.source),
          el("span", { class: "age" }, since(seconds))),
        el("ul", { class: "lines" }, t.lines.map((line) => el("li", {},
          el("span", { class: "qty" }, String(line.quantity)),
          el("span", { class: "item" }, line.item),
          modifiers(line.modifiers)))),
        el("button", { type: "button", class: "bump", onclick: () => bump(t) }, "Bump"));
    }));
    $("none").hidden = tickets.length > 0;
  }

  function problem(text) {
    $("error").hidden = !text;
    $("error").textContent = text || "";
  }

  async function bump(ticket) {
    const result = await api("POST", `/api/kitchen/tickets/${ticket.id}/bump`);
    if (!result.ok) return problem(result.data.error);
    problem("");
    tickets = tickets.filter((t) => t.id !== ticket.id);  // the event brings the same; no wait for it
    render();
  }

  async function recall() {
    const result = await api("POST", "/api/kitchen/recall");
    problem(result.ok ? "" : result.data.error);
  }

  function listen() {
    const live = $("live");
    const source = new EventSource("/api/kitchen/events");
    source.addEventListener("open", () => { live.dataset.state = "on"; live.textContent = "live"; });
    source.addEventListener("error", () => {
      live.dataset.state = "off";
      live.textContent = source.readyState === EventSource.CLOSED ? "offline" : "reconnecting…";
    });
    source.addEventListener("tickets", (message) => {
      tickets = JSON.parse(message.data).tickets;
      render();
    });
  }

  $("recall").addEventListener("click", recall);
  listen();
  setInterval(render, 1000);  // the ages tick
})();
