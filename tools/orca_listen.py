"""Hear the page with Orca, the screen reader of GNOME (issue 47): what a blind student hears when the page opens,
on the main plot, on the sliders and after a move.  Not part of `make test` or `.ci/run`: it needs Debian's orca,
xdotool, dbus-x11, at-spi2-core and Xvfb (`apt-get install orca xdotool dbus-x11 at-spi2-core xvfb`), and takes
about a minute.

    python tools/orca_listen.py [PAGE.html] [--keys KEYS]

It writes the offline file (unless given one), starts a private X display, session bus and accessibility bus,
Orca (with no speech server: it logs every utterance it would speak, which this script reads) and Chromium with
its accessibility tree exposed, then presses keys as a student would, each group once the previous one has been
spoken, and prints what Orca said, in order.  The README's Accessibility section reports a run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What a student does, as (keys, what Orca must have said before the next group: a regular expression).
KEYS = [
    ([], r"Finished loading"),
    (["Tab"] * 2, r"main plot's query.*slider x = 3\.20"),
    (["Right"] * 3, r"max weight \d\.\d{3}, effective points"),
    (["End"], r"max weight 0\.423"),
    (["Tab"], r"query x horizontal slider 6\.50"),
    (["Home"], r"\u22120\.50"),
    (["Tab"], r"bandwidth h horizontal slider 0\.620"),
    (["Home"], r"0\.00500"),
]
SAID = re.compile(r"SPEECH OUTPUT: '(.*?)'(?:\{|$| voice=)")
PREFS = """import orca.debug as _debug
import orca.settings as _settings
_debug.debugFile = open({log!r}, "w", buffering=1)   # line by line: the script reads it as Orca speaks
_settings.speechServerFactory = "no_speech_server_here"   # no speech-dispatcher: Orca only logs what it says
_settings.speechFactoryModules = []
"""


def need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        sys.exit(f"orca_listen: {', '.join(missing)} not found; on Debian: apt-get install orca xdotool dbus-x11 "
                 "at-spi2-core xvfb")


def said(log: Path) -> list[str]:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return [m[1] for m in SAID.finditer(text)]


def wait_said(log: Path, pattern: str, since: int, timeout: float) -> bool:
    """Wait until Orca has said something matching ``pattern`` after its first ``since`` utterances."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(re.search(pattern, s) for s in said(log)[since:]):
            return True
        time.sleep(0.2)
    return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page", nargs="?", help="an HTML file of the page (default: the offline file, written now)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each group's words")
    args = ap.parse_args(argv)
    need("orca", "xdotool", "dbus-launch", "Xvfb", "chromium")
    work = Path(tempfile.mkdtemp(prefix="orca-listen-"))
    page = Path(args.page).resolve() if args.page else work / "page.html"
    if not args.page:
        subprocess.run([sys.executable, "-m", "app.delivery.cli", "export", str(page)], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    log, prefs = work / "orca.log", work / "prefs"
    prefs.mkdir()
    (prefs / "orca-customizations.py").write_text(PREFS.format(log=str(log)), encoding="utf-8")
    env = dict(os.environ, DISPLAY=":93", HOME=str(work), XDG_RUNTIME_DIR=str(work), GTK_MODULES="gail:atk-bridge",
               ACCESSIBILITY_ENABLED="1", NO_AT_BRIDGE="0")
    procs = []

    def start(cmd, **kw):
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, **kw)
        procs.append(p)
        return p

    try:
        start(["Xvfb", ":93", "-screen", "0", "1366x900x24"])
        bus = subprocess.run(["dbus-launch", "--sh-syntax"], env=env, capture_output=True, text=True, check=True)
        for k, v in re.findall(r"(\w+)='([^']*)'", bus.stdout):
            env[k] = v
        start(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"])
        start(["orca", "-u", str(prefs), "--debug-file", str(work / "orca-start.log")])
        if not wait_said(log, r"Screen reader on", 0, args.timeout):
            sys.exit("orca_listen: Orca did not start (see " + str(work) + ")")
        start(["chromium", "--no-sandbox", "--force-renderer-accessibility", "--no-first-run",
               f"--user-data-dir={work / 'profile'}", "--window-size=1366,900", page.as_uri()])
        heard_all = True
        for keys, pattern in KEYS:
            before = len(said(log))
            for key in keys:
                subprocess.run(["xdotool", "key", key], env=env, check=True)
                time.sleep(0.3)   # (xdotool sends at once; Orca and the page take each key in turn)
            ok = wait_said(log, pattern, before, args.timeout)
            heard_all &= ok
            print(f"\n## {' '.join(keys) or 'open the page'}" + ("" if ok else f"  (not heard: {pattern})"))
            for s in said(log)[before:]:
                print("  " + s)
        return 0 if heard_all else 1
    finally:
        for p in reversed(procs):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if env.get("DBUS_SESSION_BUS_PID"):
            try:
                os.kill(int(env["DBUS_SESSION_BUS_PID"]), signal.SIGKILL)
            except ProcessLookupError:
                pass
        if os.environ.get("ORCA_LISTEN_KEEP"):
            print(f"\n(kept {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
