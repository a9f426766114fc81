// Running a computation off the main thread, so the page keeps painting while it works.
//
//   const job = AttnWorker.run(sources, "AttnTrain.trainColumns", payload, { key: "learn" });
//   job.promise.then(show, (e) => { if (!e.cancelled) notice(e.message); });
//   job.cancel();   // or start another run with the same key: the older one is cancelled
//
// run() builds a Web Worker from a Blob holding the JS source strings `sources` (modules(["AttnCommon",
// "AttnTrain"]) cuts those modules' text out of the page's one copy of the library) and a small message handler that calls the function named by `entry`
// (a dotted name such as "AttnTrain.trainColumns") with `payload` and posts the result back.  Blob
// workers need no file and no server: they start from a file:// page and from a page whose
// Content-Security-Policy allows blob: (default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:).
//
// runHere(fn, payload, options) runs a function of this page on the main thread with the same answer
// shape.  Starting a worker costs 15-20 ms (a thread, parsing the sources again, code not yet compiled):
// more than training takes on the main thread up to n = 300 or so (n = 24: under 1 ms; n = 300: about
// 15 ms, against 55 ms in a worker; tests/bench/bench_compute.py), so the caller may pick by size.
//
// Either returns {promise, cancel}.  The promise resolves with the entry's result, or rejects with an Error
// whose message is one plain sentence the page can show, and whose `reason` says what happened:
//   "unavailable"  the browser could not start a worker, or refused to load it (MESSAGES.unavailable);
//   "failed"       the worker's code did not load or run (MESSAGES.failed);
//   "computation"  the entry threw: the message is the entry's own;
//   "cancelled"    cancel() was called, or a newer run with the same key started (`cancelled` is true;
//                  such a rejection is never reported as uncaught, so a replaced run needs no listener).
// No DOM: any page, any engine.

const AttnWorker = (function () {
  "use strict";

  const MESSAGES = {
    unavailable: "This browser could not start a background computation, so this result cannot be worked out here.",
    failed: "The background computation stopped with an error, so this result cannot be worked out here.",
    cancelled: "The computation was stopped before it finished.",
  };
  const ENTRY = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
  // key -> the latest run's handle.  Kept on the page, not in this module: an engine's code (and this module
  // with it) runs afresh for each event, and a newer run must find the older one to cancel it.
  const byKey = globalThis.__attnWorkerRuns || (globalThis.__attnWorkerRuns = new Map());

  function failure(reason, message) {
    const e = new Error(message || MESSAGES[reason]);
    e.reason = reason;
    e.cancelled = reason === "cancelled";
    return e;
  }

  // The worker's message handler: call the entry, post {ok: true, result}, {ok: false, message} (the entry
  // threw) or {ok: false} (no such function).  `entry` is a checked dotted name, so it is written into the
  // code as a name and never as anything else.
  function handlerSource(entry) {
    return `
;self.onmessage = function (ev) {
  var fn = null, result;
  try { fn = ${entry}; } catch (e) { fn = null; }
  if (typeof fn !== "function") { self.postMessage({ ok: false }); return; }
  try { result = ${entry}(ev.data); }
  catch (e) { self.postMessage({ ok: false, message: String((e && e.message) || e) }); return; }
  self.postMessage({ ok: true, result: result });
};`;
  }

  // A handle {promise, cancel}.  start(resolve, reject) begins the work and returns the function that stops
  // it (run once, when the promise settles).  A newer handle for the same key cancels this one.
  function handle(key, start) {
    let settled = false, cleanup = () => {}, resolveP, rejectP;
    const promise = new Promise((res, rej) => { resolveP = res; rejectP = rej; });
    const finish = (fn, v) => {
      if (settled) return;
      settled = true;
      try { cleanup(); } finally { if (key !== undefined && byKey.get(key) === h) byKey.delete(key); }
      fn(v);
    };
    // a cancelled run is never reported as an uncaught error, even if nobody listens to it any more
    const h = { promise, cancel: () => { promise.catch(() => {}); finish(rejectP, failure("cancelled")); } };
    if (key !== undefined) {
      const older = byKey.get(key);
      byKey.set(key, h);
      if (older) older.cancel();
    }
    const stop = start((v) => finish(resolveP, v), (e) => finish(rejectP, e));
    if (stop) { if (settled) stop(); else cleanup = stop; }   // settled already: stop what was started
    return h;
  }

  function startWorker(code) {
    let url = null;
    try {
      url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
      return { worker: new Worker(url), url };
    } catch (e) {
      if (url) URL.revokeObjectURL(url);
      return null;
    }
  }

  // modules(names): the source text of these library modules, in order, cut from the library's own text
  // (app/ui/engine.py library_source marks where each begins and ends), or null if one is not found.
  function modules(names) {
    const text = typeof globalThis.__attnLibraryText === "string" ? globalThis.__attnLibraryText : "";
    const parts = (Array.isArray(names) ? names : []).map((name) => {
      const begin = `/*<attn:${name}>*/`, end = `/*</attn:${name}>*/`;
      const i = text.indexOf(begin), j = text.indexOf(end);
      return i >= 0 && j > i ? text.slice(i + begin.length, j) : null;
    });
    return parts.length && parts.every((t) => t !== null) ? parts : null;
  }

  // run(sources, entry, payload, {key}): the entry, in a Web Worker built from `sources`.
  function run(sources, entry, payload, options) {
    const key = options && options.key;
    return handle(key, (resolve, reject) => {
      if (sources === null) { reject(failure("unavailable")); return null; }   // modules() found none
      const code = Array.isArray(sources) && sources.every((t) => typeof t === "string");
      if (!code || typeof entry !== "string" || !ENTRY.test(entry)) {
        reject(failure("failed"));
        return null;
      }
      const started = typeof Worker === "function" && typeof Blob === "function" && typeof URL === "function"
        ? startWorker(sources.join("\n;\n") + handlerSource(entry)) : null;
      if (!started) { reject(failure("unavailable")); return null; }
      const { worker, url } = started;
      worker.onmessage = (ev) => {
        const m = ev.data;
        if (m && m.ok) resolve(m.result);
        else if (m && typeof m.message === "string") reject(failure("computation", m.message));
        else reject(failure("failed"));
      };
      // An error in the worker's code comes with a message; a worker the browser refused to load (a policy
      // without blob:, say) fires a bare error event.
      worker.onerror = (ev) => {
        if (ev && ev.preventDefault) ev.preventDefault();
        reject(failure(ev && ev.message ? "failed" : "unavailable"));
      };
      worker.onmessageerror = () => reject(failure("failed"));
      try {
        worker.postMessage(payload);
      } catch (e) {   // a payload that cannot be copied to the worker
        reject(failure("failed"));
      }
      return () => { worker.terminate(); URL.revokeObjectURL(url); };
    });
  }

  // runHere(fn, payload, {key}): fn(payload) on this thread, once the current task's own code is done (a
  // microtask: a newer run with the same key, asked for in the same task, replaces it before it starts;
  // a timer would add the browser's 4 ms clamp).
  function runHere(fn, payload, options) {
    const key = options && options.key;
    return handle(key, (resolve, reject) => {
      let live = true;
      Promise.resolve().then(() => {
        if (!live) return;
        let result;
        try {
          result = fn(payload);
        } catch (e) {
          reject(failure("computation", String((e && e.message) || e)));
          return;
        }
        resolve(result);
      });
      return () => { live = false; };
    });
  }

  return { run, runHere, modules, MESSAGES };
})();
