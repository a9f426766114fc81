"""The offline file, written once per test run by ``attention-explorable export`` and shared by the xdist processes.

``static_file`` (a fixture of tests/conftest.py) waits for it; the browser tests start it early, at their first test
(tests/browser/conftest.py), so it is written while other tests run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
class SharedExport:
    """``attention-explorable export`` into a folder all the xdist processes of this run share (the parent of each
    one's pytest temp dir; pytest removes old ones), written once: in a background thread, each process takes an
    exclusive lock on the folder's lock file; the first writes the file, and the rest find it there.  A process
    that dies while writing drops its lock with it, and the next one writes the file again."""

    def __init__(self, config):
        import threading

        tmp = config._tmp_path_factory.getbasetemp()
        self.dir = tmp.parent if os.environ.get("PYTEST_XDIST_WORKER") else tmp
        self.out = self.dir / "explorable-export" / "lecture.html"
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
                self.proc = subprocess.Popen([sys.executable, "-m", "app.cli", "export", str(part)], cwd=ROOT,
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
