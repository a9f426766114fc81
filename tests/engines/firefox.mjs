// Firefox ESR for the smoke suite (tests/engines/drivers.py, FirefoxPage): puppeteer-core starts Debian's
// firefox-esr headless and speaks WebDriver BiDi to it; this process takes one command per line on stdin (JSON,
// with an id) and answers each with one line on stdout: {id, ok: true, value} or {id, ok: false, error}.
//
//   {op: "open", url, width, height}   a new page of that size, with the address loaded
//   {op: "eval", expr}                 the value of a JavaScript expression in the page (a promise is awaited)
//   {op: "mouse", steps: [...]}        real pointer input: ["move", x, y, n] | ["down"] | ["up"] | ["click", x, y]
//   {op: "keys", steps: [...]}         real keys: ["type", text] | ["press", key] | ["down", key] | ["up", key]
//   {op: "resize", width, height}     the page's viewport to that size
//   {op: "screenshot", path}          a PNG of the viewport
//   {op: "errors"}                     the console errors and uncaught exceptions the page has had
//   {op: "version"}                    the browser's name and version
//   {op: "close"}                      closes the browser, then this process ends
//
// Started with the path of the browser (argv[2]); it prints {ok: true, value: "ready"} once the browser runs.
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const executablePath = process.argv[2] || "/usr/bin/firefox-esr";
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

let browser, page;
const errors = [];

async function run(cmd) {
  switch (cmd.op) {
    case "open":
      page = await browser.newPage();
      page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
      page.on("pageerror", (e) => errors.push(`uncaught: ${e && e.message ? e.message : e}`));
      await page.setViewport({ width: cmd.width, height: cmd.height });
      await page.goto(cmd.url, { waitUntil: "load", timeout: 120000 });
      return true;
    case "eval":
      return await page.evaluate(cmd.expr);
    case "mouse":
      for (const [what, x, y, n] of cmd.steps) {
        if (what === "move") await page.mouse.move(x, y, { steps: n || 1 });
        else if (what === "down") await page.mouse.down();
        else if (what === "up") await page.mouse.up();
        else if (what === "click") await page.mouse.click(x, y);
        else throw new Error(`no mouse step ${what}`);
      }
      return true;
    case "keys":
      for (const [what, k] of cmd.steps) {
        if (what === "type") await page.keyboard.type(k);
        else if (what === "press") await page.keyboard.press(k);
        else if (what === "down") await page.keyboard.down(k);
        else if (what === "up") await page.keyboard.up(k);
        else throw new Error(`no key step ${what}`);
      }
      return true;
    case "resize":
      await page.setViewport({ width: cmd.width, height: cmd.height });
      return true;
    case "screenshot":
      await page.screenshot({ path: cmd.path });
      return true;
    case "errors":
      return errors;
    case "version":
      return await browser.version();
    case "close":
      await browser.close();
      return true;
    default:
      throw new Error(`no command ${cmd.op}`);
  }
}

try {
  browser = await puppeteer.launch({
    browser: "firefox", executablePath, headless: true,
    // a student who asked for less motion: Show me and Play land at once (as tests/browser/test_lesson.py's walk)
    extraPrefsFirefox: { "ui.prefersReducedMotion": 1 },
  });
} catch (e) {
  send({ ok: false, error: `firefox did not start: ${e && e.stack ? e.stack : e}` });
  process.exit(1);
}
send({ ok: true, value: "ready" });

// one command at a time, in order
let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  queue = queue.then(async () => {
    let cmd;
    try {
      cmd = JSON.parse(line);
      const value = await run(cmd);
      send({ id: cmd.id, ok: true, value: value === undefined ? null : value });
    } catch (e) {
      send({ id: cmd && cmd.id, ok: false, error: e && e.stack ? e.stack : String(e) });
    }
    if (cmd && cmd.op === "close") process.exit(0);
  });
}).on("close", async () => { await queue; if (browser && browser.connected) await browser.close(); process.exit(0); });
