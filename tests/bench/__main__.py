"""Run the benchmarks: ``python -m tests.bench [--quick] [--only NAME]``.

Every module ``bench_*.py`` in this folder is imported and its
``run(quick: bool) -> list[dict]`` called.  Each row holds at least
``section``, ``name``, ``median_us``, ``p95_us`` and ``n_runs``, and may add
``target`` (a string such as "<= 100 us", or a number of microseconds),
``meets_target`` (bool or None), ``ratio`` and ``note``.

The report goes to ``tests/bench/results/latest.json`` (with the machine it ran
on) and a Markdown table to standard output.  These are measurements, not
tests: a missed target is reported, never fails the run; a module that raises
is reported and makes the exit code 1.

numpy is pinned to one thread (OMP_NUM_THREADS / OPENBLAS_NUM_THREADS /
MKL_NUM_THREADS = 1, set before numpy is imported) unless the environment
already sets those variables; the report records which.
"""

from __future__ import annotations

import os
import sys

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_NUMPY_ALREADY_IMPORTED = "numpy" in sys.modules
_THREADS = {}
for _var in THREAD_VARIABLES:
    if _var in os.environ:
        _THREADS[_var] = {"value": os.environ[_var], "source": "environment"}
    else:
        os.environ[_var] = "1"
        _THREADS[_var] = {"value": "1", "source": "set by tests.bench"}

import argparse  # noqa: E402  (after the thread pinning, on purpose)
import datetime  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import pkgutil  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "latest.json"
REQUIRED = ("section", "name", "median_us", "p95_us", "n_runs")


def discover() -> list[str]:
    """Names (without the ``bench_`` prefix) of the benchmark modules, sorted."""
    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_"))


def machine() -> dict:
    import numpy as np

    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpu_count": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "threads": _THREADS,
        "numpy_imported_before_pinning": _NUMPY_ALREADY_IMPORTED,
    }
    try:
        blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
        info["blas"] = {k: blas.get(k) for k in ("name", "version") if k in blas}
    except Exception:  # older numpy: no dict form; the report just lacks the BLAS name
        info["blas"] = None
    return info


def _time(us) -> str:
    if us is None or (isinstance(us, float) and not math.isfinite(us)):
        return "-"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    if us >= 100:
        return f"{us:.0f} us"
    if us >= 10:
        return f"{us:.1f} us"
    return f"{us:.2f} us"


def _target(row) -> str:
    t = row.get("target")
    if t is None:
        return ""
    if isinstance(t, (int, float)):
        return f"<= {_time(float(t))}"
    return str(t)


def _met(row) -> str:
    m = row.get("meets_target")
    return "" if m is None else ("yes" if m else "**no**")


def table(rows) -> str:
    lines = ["| section | benchmark | median | p95 | target | met |", "|---|---|---:|---:|---|---|"]
    for r in rows:
        name = str(r["name"]).replace("|", "\\|")
        lines.append(f"| {r['section']} | {name} | {_time(r['median_us'])} | {_time(r['p95_us'])} | "
                     f"{_target(r)} | {_met(r)} |")
    return "\n".join(lines)


def _clean(value):
    """JSON-safe copy: numpy scalars to Python numbers, NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few repeats: a smoke test, not a measurement")
    p.add_argument("--only", metavar="NAME", action="append",
                   help="run only bench_NAME (repeatable); available: " + ", ".join(discover()))
    p.add_argument("--output", type=Path, default=RESULTS, help=f"JSON report (default: {RESULTS})")
    args = p.parse_args(argv)

    names = discover()
    if args.only:
        unknown = [n for n in args.only if n not in names]
        if unknown:
            p.error(f"no benchmark module bench_{unknown[0]}.py (available: {', '.join(names)})")
        names = [n for n in names if n in args.only]

    rows, modules, errors = [], [], []
    for k, name in enumerate(names, 1):
        t0 = time.perf_counter()
        print(f"[{k}/{len(names)}] bench_{name} ...", file=sys.stderr, flush=True)
        try:
            mod = importlib.import_module(f"{__package__ or 'tests.bench'}.bench_{name}")
            got = list(mod.run(args.quick))
            for r in got:
                missing = [k for k in REQUIRED if k not in r]
                if missing:
                    raise ValueError(f"row {r.get('name')!r} lacks {', '.join(missing)}")
        except Exception as e:
            errors.append({"module": f"bench_{name}", "error": f"{type(e).__name__}: {e}",
                           "traceback": traceback.format_exc()})
            print(f"bench_{name}: {type(e).__name__}: {e}", file=sys.stderr)
            got = []
        rows.extend(got)
        print(f"[{k}/{len(names)}] bench_{name}: {len(got)} rows in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)
        modules.append({"module": f"bench_{name}", "rows": len(got), "seconds": round(time.perf_counter() - t0, 3)})

    report = {"machine": machine(), "quick": args.quick, "only": args.only, "modules": modules,
              "errors": errors, "rows": rows}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_name(args.output.name + ".tmp")
    tmp.write_text(json.dumps(_clean(report), indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.output)

    m = report["machine"]
    print(f"Benchmarks{' (quick: few repeats, not a measurement)' if args.quick else ''} on {m['platform']}, "
          f"{m['cpu_count']} CPUs, Python {m['python']}, numpy {m['numpy']}, "
          f"BLAS threads {_THREADS['OPENBLAS_NUM_THREADS']['value']} ({_THREADS['OPENBLAS_NUM_THREADS']['source']}), "
          f"{m['date']}\n")
    print(table(rows))
    try:
        shown = args.output.resolve().relative_to(Path.cwd())
    except ValueError:
        shown = args.output
    print(f"\nReport: {shown}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
