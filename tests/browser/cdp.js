// A small DevTools-protocol client for Debian's headless chromium (node-ws): start the
// browser with no network, open a page, evaluate, send input events, record requests.
"use strict";
const {spawn} = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const WebSocket = require("ws");

async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "attn-walk-chromium-"));
  const proc = spawn("chromium", [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,900",
    "--remote-debugging-port=0", "--user-data-dir=" + profile, "about:blank"],
    {stdio: ["ignore", "ignore", "pipe"]});
  const url = await new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error("chromium did not start: " + err)), 30000);
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.on("exit", (code) => reject(new Error("chromium exited with " + code + ": " + err)));
  });
  const ws = new WebSocket(url, {perMessageDeflate: false});
  await new Promise((resolve, reject) => { ws.on("open", resolve); ws.on("error", reject); });
  const browser = new Session(ws, null);
  browser.close = () => {
    try { ws.close(); } catch (e) { /* gone already */ }
    proc.kill("SIGKILL");
    // Chromium's helper processes may still write into the profile for a moment after the
    // browser is killed (ENOTEMPTY): retry, and never fail a test over a temporary folder.
    try {
      fs.rmSync(profile, {recursive: true, force: true, maxRetries: 20, retryDelay: 100});
    } catch (e) {
      console.error(`note: could not remove ${profile}: ${e.message}`);
    }
  };
  return browser;
}

class Session {
  constructor(ws, sessionId) {
    this.ws = ws;
    this.sessionId = sessionId;
    this.next = 1;
    this.pending = new Map();
    this.listeners = [];
    ws.on("message", (raw) => {
      const msg = JSON.parse(raw);
      if ((msg.sessionId || null) !== this.sessionId) return;
      if (msg.id && this.pending.has(msg.id)) {
        const {resolve, reject} = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) reject(new Error(JSON.stringify(msg.error)));
        else resolve(msg.result);
      } else if (msg.method) {
        for (const l of this.listeners) l(msg.method, msg.params);
      }
    });
  }
  send(method, params = {}) {
    const id = this.next++;
    const msg = {id, method, params};
    if (this.sessionId) msg.sessionId = this.sessionId;
    this.ws.send(JSON.stringify(msg));
    return new Promise((resolve, reject) => this.pending.set(id, {resolve, reject}));
  }
  on(fn) { this.listeners.push(fn); }
  // A new tab, with every request it makes recorded in tab.requests.
  async newTab() {
    const {targetId} = await this.send("Target.createTarget", {url: "about:blank"});
    const {sessionId} = await this.send("Target.attachToTarget", {targetId, flatten: true});
    const tab = new Session(this.ws, sessionId);
    tab.requests = [];
    tab.console = [];
    tab.on((method, p) => {
      if (method === "Network.requestWillBeSent") tab.requests.push(p.request.url);
      if (method === "Runtime.exceptionThrown") tab.console.push(JSON.stringify(p.exceptionDetails));
    });
    await tab.send("Network.enable");
    await tab.send("Runtime.enable");
    await tab.send("Page.enable");
    return tab;
  }
}

// Evaluate an expression in the page (awaiting promises); returns its JSON value.
async function evaluate(tab, expression) {
  const r = await tab.send("Runtime.evaluate", {expression, returnByValue: true, awaitPromise: true});
  if (r.exceptionDetails) throw new Error("in the page: " + JSON.stringify(r.exceptionDetails));
  return r.result.value;
}

async function waitFor(tab, expression, timeoutMs = 20000) {
  const t0 = Date.now();
  for (;;) {
    const v = await evaluate(tab, expression);
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error("timed out waiting for " + expression);
    await new Promise((r) => setTimeout(r, 20));
  }
}

module.exports = {launch, evaluate, waitFor};
