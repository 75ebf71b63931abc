/* Shared helpers of the pages: money, elements built from text (never from HTML), JSON calls. */
"use strict";

const AM = (() => {
  /** Cents as dollars: 1234 -> "$12.34". */
  function money(cents) {
    const n = Math.round(Number(cents) || 0);
    const abs = Math.abs(n);
    return (n < 0 ? "-$" : "$") + Math.floor(abs / 100) + "." + String(abs % 100).padStart(2, "0");
  }

  /** An element; string children become text nodes, so no text is ever read as HTML. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** Replace a node's children. */
  function fill(node, ...children) {
    node.replaceChildren();
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== false) {
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
  }

  /** The page token the dashboard embeds: sent with each call, so the service knows the call came
      from its own page and not from another site using the manager's cookie. */
  const pageToken = document.querySelector('meta[name="csrf-token"]')?.content;

  /** A JSON call: {ok, status, data}; a network failure throws (the caller may retry). */
  async function api(method, url, { body, token } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    if (pageToken) headers["X-CSRF-Token"] = pageToken;
    const response = await fetch(url, {
      method, headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data;
    try {
      data = await response.json();
    } catch (_) {
      data = { error: `the service answered ${response.status} without JSON`, status: response.status };
    }
    return { ok: response.ok, status: response.status, data };
  }

  /** A turn id: random, letters, digits and dashes (crypto.randomUUID where the page may use it). */
  function turnId() {
    if (window.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** An ISO time as the local short date and time. */
  function when(iso) {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? String(iso || "") :
      date.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  }

  return { money, el, fill, api, turnId, when };
})();
