"""The page in Firefox ESR and in WebKitGTK (Safari's engine), behind the few calls of Playwright's Page that the
browser tests' helpers use (tests/browser/pageutil.py): ``evaluate(js, arg)``, ``wait_for_function(js, arg=,
timeout=)``, ``mouse.move/down/up/click`` and ``keyboard.type/press``.  So the smoke suite reads the page with the
same helpers as the Chromium tests, and checks it against the numpy core the same way.

* Firefox: Debian's ``firefox-esr``, headless, driven by puppeteer-core over WebDriver BiDi (tests/engines/
  firefox.mjs, a Node.js process answering one JSON line per command).  Its console errors and uncaught
  exceptions come from the browser itself.
* WebKit: Debian's ``webkit2gtk-driver`` (WebKitWebDriver) and its MiniBrowser on an X server of its own (Xvfb),
  driven by Selenium.  Classic WebDriver does not report the console, so the page this engine opens carries one
  script before the page's own (``RECORDER_JS``) that notes console errors, uncaught exceptions and failed loads.

Both engines open the same copy of the offline file (``recorded_copy``) and run with reduced motion, as the
Chromium lesson walk does (tests/browser/test_lesson.py): Show me and Play land at once.  Every wait is for a
condition in the page (polled each animation frame), never for a time.
"""

from __future__ import annotations

import glob
import json
import os
import queue
import shutil
import subprocess
import threading
import warnings
from pathlib import Path
from urllib.parse import unquote, urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NODE_MODULES = HERE / "node_modules"

FIREFOX = os.environ.get("FIREFOX") or shutil.which("firefox-esr") or "/usr/bin/firefox-esr"
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER") or shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"
XVFB = shutil.which("Xvfb") or "/usr/bin/Xvfb"
NODE = shutil.which("node") or "/usr/bin/node"


def minibrowser() -> str | None:
    """WebKitGTK's MiniBrowser (what WebKitWebDriver starts; Debian's libwebkit2gtk-4.1-0 ships it)."""
    found = sorted(glob.glob("/usr/lib/*/webkit2gtk-4.1/MiniBrowser") + glob.glob("/usr/libexec/webkit2gtk-4.1/MiniBrowser"))
    return found[0] if found else None


def missing(engine: str) -> str | None:
    """Why ``engine`` cannot run here, or None."""
    if engine == "firefox":
        if not Path(FIREFOX).exists():
            return f"Firefox ESR not found at {FIREFOX} (apt-get install firefox-esr)"
        if not Path(NODE).exists():
            return "Node.js not found (apt-get install nodejs npm)"
        if not (NODE_MODULES / "puppeteer-core").is_dir():
            return f"puppeteer-core not installed in {NODE_MODULES} (npm ci --prefix tests/engines)"
        return None
    if not Path(WEBKIT_DRIVER).exists() or minibrowser() is None:
        return "WebKitWebDriver or MiniBrowser not found (apt-get install webkit2gtk-driver)"
    if not Path(XVFB).exists():
        return "Xvfb not found (apt-get install xvfb)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


# ---- the page both engines open ------------------------------------------------------------------------

# Before the page's own scripts: console errors, uncaught exceptions, unhandled rejections and failed loads,
# noted in window.__engineErrors (read by ``console_errors``).
RECORDER_JS = """(() => { const errs = window.__engineErrors = [];
  const one = (x) => x instanceof Error ? `${x.name}: ${x.message}\n${x.stack}` : String(x);
  const text = (xs) => Array.from(xs, one).join(' ');
  const error = console.error;
  console.error = function (...xs) { errs.push('console: ' + text(xs)); return error.apply(this, xs); };
  addEventListener('error', (e) => {
    if (e.target && e.target !== window) errs.push('failed to load: ' + (e.target.src || e.target.href || e.target.tagName));
    else errs.push('uncaught: ' + (e.error ? one(e.error) : e.message) + ` (${e.filename}:${e.lineno})`);
  }, true);
  addEventListener('unhandledrejection', (e) => errs.push('unhandled rejection: ' + text([e.reason])));
})();"""


def recorded_copy(static_file: Path, out: Path) -> Path:
    """The offline file with RECORDER_JS as the first script of its head."""
    page = static_file.read_text(encoding="utf-8")
    head = page.index("<head>") + len("<head>")
    out.write_text(page[:head] + f"\n<script>{RECORDER_JS}</script>" + page[head:], encoding="utf-8")
    return out


# Requests the page made for anything but itself and what it makes (the offline file needs none).
OUTSIDE_JS = """() => performance.getEntriesByType('resource').map((e) => e.name)
  .filter((u) => !/^(file|data|blob|about):/.test(u))"""

# ``__FN__`` called with ``__ARG__`` each animation frame until it returns something true (a promise awaited), or
# ``__TIMEOUT__`` ms have passed: {ok, value}.
WAIT_JS = """new Promise((done) => { const fn = (__FN__), arg = __ARG__, t0 = performance.now();
  const tick = () => { let v; try { v = fn(arg); } catch (e) { v = false; }
    Promise.resolve(v).then((v) => { if (v) done({ok: true, value: v});
      else if (performance.now() - t0 > __TIMEOUT__) done({ok: false, value: null});
      else requestAnimationFrame(tick); }); };
  tick(); })"""


def call_expr(js: str, arg=None) -> str:
    """A JavaScript expression: the function ``js`` (Playwright's style: a function's source) called with ``arg``
    (JSON), or ``js`` itself when it is not a function."""
    a = "undefined" if arg is None else json.dumps(arg)
    return f"(async () => {{ const f = ({js}); return typeof f === 'function' ? await f({a}) : f; }})()"


class WaitTimeout(AssertionError):
    pass


# The value of an expression as JSON text, its numbers that JSON has no word for (NaN, ±Infinity: the page's
# curves hold NaN where nothing is drawn) kept as {"__number": "NaN"}; both drivers would send them as null.
JSON_OF = """(async () => JSON.stringify(await (__EXPR__), (k, v) =>
  typeof v === 'number' && !Number.isFinite(v) ? {__number: String(v)} : v) ?? 'null')()"""


def _from_json(text: str):
    return json.loads(text, object_hook=lambda o: float(o["__number"]) if set(o) == {"__number"} else o)


class EnginePage:
    """What both engines offer the tests; a subclass sends expressions and input to its browser."""

    engine = ""
    version = ""

    def _raw(self, expr: str, timeout: float):
        """The value of ``expr`` (a promise awaited), as the driver sends it back."""
        raise NotImplementedError

    def _eval(self, expr: str, timeout: float):
        return _from_json(self._raw(JSON_OF.replace("__EXPR__", expr), timeout))

    def evaluate(self, js: str, arg=None):
        return self._eval(call_expr(js, arg), 120)

    def wait_for_function(self, js: str, arg=None, timeout: float = 30000):
        a = "undefined" if arg is None else json.dumps(arg)
        expr = WAIT_JS.replace("__ARG__", a).replace("__TIMEOUT__", str(float(timeout))).replace("__FN__", js)
        got = self._eval(expr, timeout / 1000 + 60)
        if not got["ok"]:
            raise WaitTimeout(f"{self.engine}: still not true after {timeout:.0f} ms: {js[:300]} (arg {a[:200]})")
        return got["value"]

    def console_errors(self) -> list[str]:
        return list(self.evaluate("() => window.__engineErrors || ['the recorder did not run']"))

    def outside_requests(self) -> list[str]:
        return list(self.evaluate(OUTSIDE_JS))


# ---- Firefox: puppeteer-core over WebDriver BiDi (firefox.mjs) ---------------------------------------------

class FirefoxPage(EnginePage):
    engine = "firefox"

    def __init__(self, url: str, width: int, height: int):
        self.proc = subprocess.Popen([NODE, str(HERE / "firefox.mjs"), FIREFOX], cwd=HERE, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                                     start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        self.sent = 0
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, None), daemon=True).start()
        self.mouse, self.keyboard = _FirefoxMouse(self), _FirefoxKeys(self)
        try:
            self._answer(90)   # "ready": the browser runs
            self._send("open", 180, url=url, width=width, height=height)
            self.version = self._send("version", 30)
        except BaseException:
            self.close()
            raise

    def _read(self, stream, into):
        for line in stream:
            if into is not None:
                into.put(line)
            else:
                self.stderr.append(line)
        if into is not None:
            into.put(None)

    def _answer(self, timeout, id=None):
        """The answer to command ``id`` (an answer to a command given up on before is passed over)."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"firefox: no answer within {timeout} s\n{''.join(self.stderr)[-3000:]}") from None
            if line is None:
                raise AssertionError(f"firefox: the driver ended\n{''.join(self.stderr)[-3000:]}")
            msg = json.loads(line)
            if msg.get("id") == id:
                break
        if not msg["ok"]:
            raise AssertionError(f"firefox: {msg['error']}")
        return msg["value"]

    def _send(self, op, timeout, **kw):
        self.sent += 1
        self.proc.stdin.write(json.dumps({"op": op, "id": self.sent, **kw}) + "\n")
        self.proc.stdin.flush()
        return self._answer(timeout, self.sent)

    def _raw(self, expr, timeout):
        return self._send("eval", timeout, expr=expr)

    def console_errors(self):
        return self._send("errors", 30) + super().console_errors()

    def screenshot(self, path):
        self._send("screenshot", 60, path=str(path))

    def resize(self, width, height):
        """The viewport to ``width`` x ``height`` CSS px."""
        self._send("resize", 60, width=width, height=height)

    def close(self):
        try:
            if self.proc.poll() is None:
                self._send("close", 30)
        except (AssertionError, OSError, ValueError):
            pass
        finally:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)


class _FirefoxMouse:
    def __init__(self, page):
        self.page = page

    def move(self, x, y, steps=1):
        self.page._send("mouse", 30, steps=[["move", x, y, steps]])

    def down(self):
        self.page._send("mouse", 30, steps=[["down"]])

    def up(self):
        self.page._send("mouse", 30, steps=[["up"]])

    def click(self, x, y):
        self.page._send("mouse", 30, steps=[["click", x, y]])


class _FirefoxKeys:
    def __init__(self, page):
        self.page = page

    def type(self, text):
        self.page._send("keys", 60, steps=[["type", text]])

    def press(self, key):
        """A key, or a chord such as "Control+a"."""
        *mods, last = key.split("+")
        self.page._send("keys", 30, steps=[["down", m] for m in mods] + [["press", last]] +
                        [["up", m] for m in reversed(mods)])


# ---- WebKitGTK: Selenium and WebKitWebDriver, on an X server of its own --------------------------------------

class Xvfb:
    """An X server on a free display (Xvfb -displayfd picks it), for MiniBrowser's window."""

    def __init__(self, width=1920, height=1080):
        r, w = os.pipe()
        self.proc = subprocess.Popen([XVFB, "-displayfd", str(w), "-screen", "0", f"{width}x{height}x24", "-nolisten",
                                      "tcp", "-noreset"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()   # written once the server listens
        if not number:
            err = self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None else ""
            raise AssertionError(f"Xvfb did not start: {err[-2000:]}")
        self.display = f":{number}"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


# Playwright's key names for the few keys the suite presses, as WebDriver's key codes
_WD_KEYS = {"Enter": "\ue007", "Control": "\ue009", "Shift": "\ue008", "Backspace": "\ue003", "Delete": "\ue017",
            "Tab": "\ue004", "Escape": "\ue00c", "ArrowRight": "\ue014", "ArrowLeft": "\ue012", "End": "\ue010",
            "Home": "\ue011", "PageDown": "\ue00f", "PageUp": "\ue00e", "Space": " "}


class WebKitPage(EnginePage):
    engine = "webkit"

    def __init__(self, url: str, width: int, height: int, display: str, config_home: Path):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        # MiniBrowser's GTK settings: no animations, which WebKitGTK reports as prefers-reduced-motion
        (config_home / "gtk-3.0").mkdir(parents=True, exist_ok=True)
        (config_home / "gtk-3.0" / "settings.ini").write_text("[Settings]\ngtk-enable-animations=0\n")
        env = dict(os.environ, DISPLAY=display, XDG_CONFIG_HOME=str(config_home))
        opts = Options()
        opts.binary_location = minibrowser()
        opts.add_argument("--automation")
        service = Service(executable_path=WEBKIT_DRIVER, env=env)
        with warnings.catch_warnings():   # Selenium's own use of a setting it deprecated (4.51)
            warnings.simplefilter("ignore", DeprecationWarning)
            self.driver = webdriver.WebKitGTK(options=opts, service=service)
        self.version = self.driver.capabilities.get("browserVersion", "")
        self.mouse, self.keyboard = _WebKitMouse(self), _WebKitKeys(self)
        try:
            self.driver.set_script_timeout(600)
            self.driver.set_window_size(width, height)
            inner = self.driver.execute_script("return [innerWidth, innerHeight]")   # less the window's toolbar
            self.chrome = (width - inner[0], height - inner[1])   # the window's frame and toolbar
            self.url = url
            self.driver.set_window_size(width + self.chrome[0], height + self.chrome[1])
            self.driver.get(url)
        except BaseException:
            self.driver.quit()
            raise

    def _raw(self, expr, timeout):
        got = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => {expr}).then((v) => done({{ok: true, v: v === undefined ? null : v}}),"
            " (e) => done({ok: false, e: String(e && e.stack ? e.stack : e)}));")
        if not got["ok"]:
            raise AssertionError(f"webkit: {got['e']}")
        return got["v"]

    def screenshot(self, path):
        self.driver.save_screenshot(str(path))

    def resize(self, width, height):
        """The viewport to ``width`` x ``height`` CSS px (the window, its frame and toolbar added)."""
        self.driver.set_window_size(width + self.chrome[0], height + self.chrome[1])

    def framed(self, width, height):
        """The page again, inside a ``width`` x ``height`` frame of a host page beside it, where the scripts run from
        now on: a viewport narrower than MiniBrowser's window can be (its toolbar keeps it 447 px wide or more)."""
        page = Path(unquote(urlsplit(self.url).path))
        host = page.with_name(f"host-{width}.html")
        host.write_text(f'<!doctype html><html><body style="margin:0"><iframe src="{page.name}" title="page" '
                        f'style="width:{width}px;height:{height}px;border:0"></iframe></body></html>', encoding="utf-8")
        self.driver.switch_to.default_content()
        self.driver.get(host.as_uri())
        self.driver.switch_to.frame(0)

    def close(self):
        self.driver.quit()


class _WebKitMouse:
    def __init__(self, page):
        self.page, self.at = page, (0, 0)

    def _actions(self):
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput

        return ActionBuilder(self.page.driver, mouse=PointerInput("mouse", "mouse"), duration=0)

    def move(self, x, y, steps=1):
        ab = self._actions()
        (x0, y0) = self.at
        for k in range(1, steps + 1):
            ab.pointer_action.move_to_location(round(x0 + (x - x0) * k / steps), round(y0 + (y - y0) * k / steps))
        ab.perform()
        self.at = (x, y)

    def down(self):
        ab = self._actions()
        ab.pointer_action.move_to_location(round(self.at[0]), round(self.at[1]))
        ab.pointer_action.pointer_down()
        ab.perform()

    def up(self):
        ab = self._actions()
        ab.pointer_action.move_to_location(round(self.at[0]), round(self.at[1]))
        ab.pointer_action.pointer_up()
        ab.perform()

    def click(self, x, y):
        ab = self._actions()
        ab.pointer_action.move_to_location(round(x), round(y))
        ab.pointer_action.click()
        ab.perform()
        self.at = (x, y)


class _WebKitKeys:
    def __init__(self, page):
        self.page = page

    def type(self, text):
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.page.driver).send_keys(text).perform()

    def press(self, key):
        """A key, or a chord such as "Control+a"."""
        from selenium.webdriver.common.action_chains import ActionChains

        *mods, last = key.split("+")
        chain = ActionChains(self.page.driver)
        for m in mods:
            chain.key_down(_WD_KEYS[m])
        chain.send_keys(_WD_KEYS.get(last, last))
        for m in reversed(mods):
            chain.key_up(_WD_KEYS[m])
        chain.perform()
