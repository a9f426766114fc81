"""What the xdist processes of one test run share: the offline file and the served page.

* ``SharedExport``: the offline file, written once per run by ``attention-explorable export``; ``static_file`` (a
  fixture of tests/conftest.py) waits for it;
* ``SharedServer``: one ``attention-explorable serve`` for the run's browser tests (``served_page``).

The browser tests start both early, at their first test (tests/browser/conftest.py), so they are built while
other tests run.  Both live in a folder all the processes of the run share (the parent of each one's pytest temp
dir; pytest removes old ones) and are guarded by locks on files there (fcntl.flock: a process that dies drops its
locks with it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_dir(config) -> Path:
    """A folder for this test run that every xdist process of it sees."""
    tmp = config._tmp_path_factory.getbasetemp()
    return tmp.parent if os.environ.get("PYTEST_XDIST_WORKER") else tmp
class SharedExport:
    """``attention-explorable export`` written once for the run: in a background thread, each process takes an
    exclusive lock on the shared folder's lock file; the first writes the file, and the rest find it there.  A
    process that dies while writing drops its lock with it, and the next one writes the file again."""

    def __init__(self, config):
        import threading

        self.out = shared_dir(config) / "explorable-export" / "lecture.html"
        self.proc, self.log, self.failed = None, "", None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        import fcntl

        self.out.parent.mkdir(exist_ok=True)
        with open(self.out.parent / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self.out.exists():   # written (then renamed into place) by another process
                    return
                part = self.out.with_name(f"part-{os.getpid()}.html")
                self.proc = subprocess.Popen([sys.executable, "-m", "app.delivery.cli", "export", str(part)], cwd=ROOT,
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                self.log, _ = self.proc.communicate()
                if self.proc.returncode != 0:
                    self.failed = f"attention-explorable export failed:\n{self.log}"
                    return
                os.replace(part, self.out)
            except Exception as e:   # noqa: BLE001 - handed to the test that waits for the file
                self.failed = f"attention-explorable export could not run: {e!r}"
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def wait(self, timeout: float = 600) -> Path:
        self.thread.join(timeout)
        if self.thread.is_alive():
            pytest.fail(f"attention-explorable export did not finish within {timeout} s")
        if self.failed:
            pytest.fail(self.failed)
        return self.out

    def stop(self):   # at the end of the session, an export still running is not needed
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


EXPORT = pytest.StashKey[SharedExport]()


def shared_export(config) -> SharedExport:
    """This process's handle on the run's offline file, started (in the background) at the first call."""
    if EXPORT not in config.stash:
        config.stash[EXPORT] = SharedExport(config)
    return config.stash[EXPORT]


@pytest.fixture(scope="session")
def static_file(request):
    """Path of the offline file ``attention-explorable export`` writes, once for the test run (the xdist processes
    share it; the browser tests start it early, at their first test: tests/browser/conftest.py)."""
    return shared_export(request.config).wait()


def stop_export(config):
    if EXPORT in config.stash:
        config.stash[EXPORT].stop()


class SharedServer:
    """One ``attention-explorable serve`` (tests/app/serverutil.py ``LiveServer``) for the run, stopped by the last
    process that uses it.

    Under the folder's lock a process either finds the server's address there or starts the server and writes its
    address (and process group) there; either way it then holds a shared lock on ``users`` until its session
    ends.  At the end, under the folder's lock, it lets go of ``users`` and tries for an exclusive lock on it: who
    gets it was the last user, stops the server's process group and removes the address (a process that comes
    later starts a new server)."""

    def __init__(self, config):
        import fcntl
        import json

        from tests.app.serverutil import LiveServer

        self.dir = shared_dir(config) / "explorable-server"
        self.dir.mkdir(exist_ok=True)
        self.info = self.dir / "server.json"
        self.own = None
        with open(self.dir / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.users = open(self.dir / "users", "w")
            fcntl.flock(self.users, fcntl.LOCK_SH)
            if self.info.exists():
                found = json.loads(self.info.read_text())
                self.url, self.pgid = found["url"], found["pgid"]
            else:
                self.own = LiveServer(log_dir=self.dir).launch()   # its log stays with the run's files
                self.url, self.pgid = self.own.url, self.own.pid   # its own process group (start_new_session)
                part = self.dir / f"server-{os.getpid()}.json"
                part.write_text(json.dumps({"url": self.url, "pgid": self.pgid}))
                os.replace(part, self.info)
            fcntl.flock(lock, fcntl.LOCK_UN)

    def wait_ready(self, timeout: float) -> str:
        """The page's address once it answers (the process that started the server also watches it exit early)."""
        import time
        import urllib.request

        if self.own is not None:
            return self.own.wait_ready(timeout=timeout).url
        deadline = time.time() + timeout
        while True:
            try:
                with urllib.request.urlopen(self.url, timeout=max(1.0, min(30.0, deadline - time.time()))) as r:
                    if r.status == 200:
                        return self.url
            except OSError:
                if time.time() > deadline:
                    pytest.fail(f"the run's shared server at {self.url} did not answer within {timeout} s")
                time.sleep(0.3)   # a refused connection fails at once: the server is still building its page

    def finish(self):
        import fcntl
        import signal
        import time

        with open(self.dir / "lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.users.close()
            with open(self.dir / "users", "w") as users:
                try:
                    fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:   # another process still uses it: the last one stops it
                    return
                if self.own is not None and self.own.pid == self.pgid:
                    self.own.cleanup()
                else:
                    try:
                        os.killpg(self.pgid, signal.SIGTERM)
                    except ProcessLookupError:
                        pass
                    deadline = time.time() + 10
                    while time.time() < deadline:
                        try:
                            os.killpg(self.pgid, 0)
                        except ProcessLookupError:
                            break
                        time.sleep(0.1)   # another process's child: it goes in its own time
                    else:
                        try:
                            os.killpg(self.pgid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                self.info.unlink(missing_ok=True)
