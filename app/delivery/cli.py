"""The ``attention-explorable`` command line.

    attention-explorable readout --query 3.2 --bandwidth 0.62 [--json]
    attention-explorable serve [--port N] [--address IP] [--allow-host HOST] [--num-procs N] [--tour FILE] [--show]
                               [--prefix PATH] [--basic-auth PASSWORD --cookie-secret SECRET] [...] [-- PANEL-SERVE-FLAGS]
    attention-explorable export lecture.html [--sections regression,sentence] [--query 3.2 ...] [--tour FILE]
                                             [--data FILE [--x COLUMN] [--y COLUMN]]
    attention-explorable tour check my-tour.json [--sections regression,sentence]
    attention-explorable tour schema > tour.schema.json

Bad arguments exit with code 2 and one line on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2 (argparse's own convention)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _number(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
    return v


def _positive(text: str) -> float:
    v = _number(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return v


def _port(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"must be from 1 to 65535, got {v}")
    return v


def _int_in(lo: int, hi: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be from {lo} to {hi}, got {v}")
        return v
    return parse


def _readout(args) -> int:
    import attention

    try:
        d = attention.load_dataset(args.dataset)
        ks = attention.key_norm_tilt(d.x, args.key_norm) if args.kernel == "dot" and args.key_norm else None
        r = attention.readout(args.query, d.x, d.y, kernel=args.kernel, bandwidth=args.bandwidth,
                              temperature=args.temperature, key_scale=ks, true_function=d.true_function)
    except ValueError as e:
        print(f"attention-explorable readout: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        out = {"query": r.query, "bandwidth": args.bandwidth, "temperature": args.temperature,
               "kernel": args.kernel, "dataset": args.dataset, "n": r.n, "max_weight": r.max_weight,
               "entropy_bits": r.entropy_bits, "effective_points": r.effective_points,
               "prediction": r.prediction, "true_value": r.true_value,
               "nearest_neighbor_prediction": r.nearest_neighbor_prediction, "global_mean": r.global_mean}
        print(json.dumps(out))
    else:
        from ..sections import caption   # the regression's words, through the composition

        print(caption(r, kernel=args.kernel, bandwidth=args.bandwidth, temperature=args.temperature,
                      key_norm=args.key_norm if args.kernel == "dot" else 0.0))
    return 0


def _state_from_args(args):
    """ExplorableState from command-line values, refusing (not clamping) anything out of range."""
    from ..sections import ExplorableState, url_spec

    spec = url_spec()
    values = {}
    for key in ("query", "bandwidth", "temperature", "kernel", "key_norm", "dataset", "sentence"):
        v = getattr(args, key, None)
        if v is None:
            continue
        s = spec[key]
        if s["kind"] == "float" and not (s["lo"] <= v <= s["hi"]):
            raise ValueError(f"--{key.replace('_', '-')} must be from {s['lo_text']} to {s['hi_text']}, got {v:g}")
        if s["kind"] == "choice" and v not in s["choices"]:
            raise ValueError(f"--{key} must be one of {', '.join(s['choices'])}, got {v!r}")
        values[key] = v
    if values.get("dataset") == "generated":
        raise ValueError("--dataset takes a shipped dataset; for generated samples open the file with a link such as "
                         "?dataset=generated&fn=wave&n=200&seed=7, or give your own with --data FILE")
    if getattr(args, "present", False):
        values["present"] = True
    return ExplorableState(**values)


def _tour_arg(args):
    """The tour file named by --tour (None: the shipped tour); ValueError if it cannot be used, with one line per
    problem (``_error_lines`` prints them)."""
    if getattr(args, "tour", None) is None:
        return None
    from ..sections import CATALOGUE   # the page's sections, which a tour is checked against
    from ..tour import check_tour_file

    tour, errors = check_tour_file(CATALOGUE, args.tour)
    if errors:
        raise ValueError("\n".join(f"--tour {args.tour}: {line}" for line in errors))
    return tour


def _error_lines(command: str, e: Exception) -> None:
    """A command's error on standard error: one line per problem (a tour file's every problem), at most
    MAX_ERROR_LINES, then how many more there are."""
    for line in _at_most(str(e).splitlines(), lambda n: f"and {n} more problems"):
        print(f"attention-explorable {command}: error: {line}", file=sys.stderr)


def _at_most(lines: list, more) -> list:
    """``lines`` cut to MAX_ERROR_LINES, with ``more(n)`` saying how many were left out."""
    if len(lines) <= MAX_ERROR_LINES:
        return list(lines)
    return list(lines[:MAX_ERROR_LINES]) + [more(len(lines) - MAX_ERROR_LINES)]


def _data_arg(args, sections):
    """Your own data named by --data (None without it); ValueError with one line if they cannot be used."""
    if args.data is None:
        if args.x is not None or args.y is not None:
            raise ValueError(f"--{'x' if args.x is not None else 'y'} picks a column of --data FILE: give --data too")
        return None
    if "regression" not in sections:
        raise ValueError("--data opens the regression section on your data: export it too (--sections regression,...)")
    if args.dataset is not None:
        raise ValueError("--data and --dataset both choose the opening dataset: give one of them")
    from ..userdata import read_csv_file

    try:
        return read_csv_file(args.data, x=args.x, y=args.y)
    except OSError as e:
        raise ValueError(f"--data {args.data}: cannot read it: {e.strerror or e}") from None
    except ValueError as e:
        raise ValueError(f"--data {args.data}: {e}") from None


def _embed_arg(embed, sections) -> str | None:
    """--embed's section (None: no embed; "1": the first one offered), refused where the file has no such section
    or the section is not offered alone in a frame (app/contract.py embed)."""
    if embed is None:
        return None
    from ..sections import CONTRACTS

    offered = [s for s in sections if CONTRACTS[s].embed]
    if embed != "1" and embed not in offered:
        raise ValueError(f"--embed: {embed!r} is not a section of this file offered alone in a frame "
                         f"(these are: {', '.join(offered) or 'none'})")
    if not offered:
        raise ValueError("--embed: no section of this file is offered alone in a frame")
    return embed


def _export(args) -> int:
    from .export import SECTIONS, export_html, write_atomic

    given = ",".join(SECTIONS) if args.sections is None else args.sections
    sections = tuple(s.strip() for s in given.split(",") if s.strip())
    try:
        if not sections or any(s not in SECTIONS for s in sections):
            raise ValueError(f"--sections must be a comma-separated subset of {','.join(SECTIONS)}, "
                             f"got {args.sections!r}")
        state = _state_from_args(args)
        if args.sentence is not None:
            from attention.sentences import tokenize

            tokenize(args.sentence)  # refuse an empty or over-long sentence with its own message
        from ..sections import CATALOGUE
        from ..tour import default_tour

        # the card shows the steps of the sections in the file, in the first of them
        tour, notice = _kept_sections(_tour_arg(args) or default_tour(CATALOGUE), ",".join(sections))
        data = _data_arg(args, sections)
        embed = _embed_arg(args.embed, sections)
        html = export_html(state, sections=sections, title=args.title, tour=tour, data=data, embed=embed)
    except ValueError as e:
        _error_lines("export", e)
        return 2
    try:
        target = write_atomic(args.output, html)
    except OSError as e:
        print(f"attention-explorable export: error: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
        return 2
    if notice:
        print(f"attention-explorable export: {notice}: their sections are not in this file", file=sys.stderr)
    if data is not None:
        for line in (f"{data.n} points of {data.y_name} against {data.x_name} from {args.data}", *data.notices):
            print(f"notice: {line}")
    print(f"wrote {target} ({len(html.encode('utf-8')) / 1e6:.2f} MB): open it in any browser, no server needed")
    return 0


MAX_ERROR_LINES = 40   # `tour check`, `serve` and `export` print at most this many problems, then how many more


def _kept_sections(tour, text: str):
    """``tour`` with only the steps of the sections named in ``text``, and a notice for the steps left out."""
    wanted = [s.strip() for s in text.split(",") if s.strip()]
    if not wanted:
        raise ValueError("--sections: name at least one section, e.g. --sections regression,sentence")
    from ..tour import TourError

    try:
        kept = tour.only(wanted)
    except TourError as e:
        raise ValueError(f"--sections: {e}") from None
    left = [(k, s.section) for k, s in enumerate(tour.steps, 1) if s.section not in wanted]
    if not left:
        return kept, None
    names = ", ".join(dict.fromkeys(sec for _, sec in left))
    return kept, (f"notice: left out {len(left)} step{'s' if len(left) > 1 else ''} of {names} "
                  f"(step{'s' if len(left) > 1 else ''} {_runs([k for k, _ in left])})")


def _runs(numbers) -> str:
    """Ascending step numbers as runs: [1, 2, 3, 7, 9, 10] -> "1-3, 7, 9, 10" (a run is three or more).

    >>> _runs([1, 2, 3, 7, 9, 10])
    '1-3, 7, 9, 10'
    """
    out, start = [], 0
    for i in range(1, len(numbers) + 1):
        if i == len(numbers) or numbers[i] != numbers[i - 1] + 1:
            run = numbers[start:i]
            out += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(k) for k in run]
            start = i
    return ", ".join(out)


def _tour_summary(tour) -> str:
    counts = ", ".join(f"{sec} {sum(s.section == sec for s in tour.steps)}" for sec in tour.sections())
    optional = sum(s.optional for s in tour.steps)
    extra = f", {optional} optional" if optional else ""
    return (f"fine: {len(tour)} step{'s' if len(tour) != 1 else ''} ({counts}{extra}); every Show me reaches its "
            f"step's goal, by the numpy core")


def tour_check(catalogue, path, sections: str | None = None) -> tuple[int, list[str], list[str]]:
    """`tour check`: a tour file checked against ``catalogue``'s sections (app/contract.py ``Catalogue``), and the
    state each step's Show me reaches against its goal.  Returns (exit code, lines for standard output, lines for
    standard error): 0 and a one-line summary, or 2 and one line per problem."""
    from ..sections import show_me_problems   # the tour's check, with the sections' readouts
    from ..tour import check_tour_file

    tour, errors = check_tour_file(catalogue, path)
    out, notice = [], None
    if not errors and sections is not None:
        try:
            tour, notice = _kept_sections(tour, sections)
        except ValueError as e:
            errors = [str(e)]
    if notice:
        out.append(f"{path}: {notice}")
    if not errors:
        errors = show_me_problems(tour)
    if errors:
        return 2, out, [f"{path}: {line}" for line in _at_most(errors, lambda n: f"and {n} more problems")]
    return 0, out + [f"{path}: {_tour_summary(tour)}"], []


def _tour_check(args) -> int:
    """Validate a tour file: one line per problem on standard error and exit code 2, or a one-line summary."""
    from ..sections import CATALOGUE

    code, out, err = tour_check(CATALOGUE, args.file, args.sections)
    for line in out:
        print(line)
    for line in err:
        print(line, file=sys.stderr)
    return code


def _tour_schema(args) -> int:
    from ..sections import CATALOGUE
    from ..tour.schema import schema_json

    sys.stdout.write(schema_json(CATALOGUE))
    return 0


LOOPBACK = ("127.0.0.1", "localhost", "::1")
PLUGIN = "app.delivery.plugin"   # the page at / (app/delivery/plugin.py), added to panel serve with --plugins
# panel serve's own flags that `serve` takes by name: (flag, metavar or None for a switch, help).  Any other
# flag of panel serve goes after `--`.
PANEL_FLAGS = (
    ("--prefix", "PATH", "serve everything under this URL path, e.g. /course (the page is then at /course/)"),
    ("--basic-auth", "PASSWORD|FILE", "ask for a password (or a JSON file of users and passwords) before the page; "
                                      "needs --cookie-secret"),
    ("--cookie-secret", "SECRET", "signs the login cookie: any long random text (`bokeh secret` prints one), the same "
                                  "for every server behind one address (PANEL_COOKIE_SECRET also works)"),
    ("--oauth-provider", "NAME", "log in through an OAuth provider (github, google, azure, ...); see Panel's "
                                 "how-to 'Configuring OAuth'; needs --cookie-secret"),
    ("--oauth-key", "KEY", "the OAuth application's client id"),
    ("--oauth-secret", "SECRET", "the OAuth application's client secret"),
    ("--oauth-redirect-uri", "URL", "where the OAuth provider sends the browser back to"),
    ("--oauth-encryption-key", "KEY", "encrypts the OAuth tokens in the cookies (`panel oauth-secret` prints one)"),
    ("--ssl-certfile", "FILE", "serve https: the certificate (PEM)"),
    ("--ssl-keyfile", "FILE", "serve https: the private key (PEM)"),
    ("--use-xheaders", None, "behind a proxy: take the client's address and scheme from X-Forwarded-* headers"),
    ("--admin", None, "Panel's admin dashboard at /admin (sessions, logs, profiling of /main)"),
)
COOKIE_SECRET_VARIABLES = ("PANEL_COOKIE_SECRET", "BOKEH_COOKIE_SECRET")


def _flag_dest(flag: str) -> str:
    return "panel_" + flag.lstrip("-").replace("-", "_")


def serve_command(args) -> list[str]:
    """The ``panel serve`` command line that ``attention-explorable serve`` runs (built here, so tests can read it):
    app/delivery/main.py (a Panel session per visit, at /main) with the page at / from app/delivery/plugin.py."""
    from pathlib import Path

    main_py = Path(__file__).resolve().parent / "main.py"
    cmd = [sys.executable, "-m", "panel", "serve", str(main_py), "--plugins", PLUGIN,
           "--port", str(args.port), "--address", args.address, "--num-procs", str(args.num_procs),
           "--check-unused-sessions", str(args.check_unused_sessions),
           "--unused-session-lifetime", str(args.unused_session_lifetime),
           "--log-level", args.log_level]
    origins = args.allow_websocket_origin or []
    if args.address not in LOOPBACK and not origins:
        raise ValueError(f"--address {args.address} serves other machines: name the host[:port] they will open "
                         f"with --allow-host (e.g. --allow-host myhost:{args.port})")
    if args.address in LOOPBACK or not origins:
        origins = origins + [f"localhost:{args.port}", f"127.0.0.1:{args.port}"]
    for origin in origins:
        cmd += ["--allow-websocket-origin", origin]
    for flag, metavar, _help in PANEL_FLAGS:
        value = getattr(args, _flag_dest(flag), None)
        if metavar is None and value:
            cmd.append(flag)
        elif metavar is not None and value is not None:
            cmd += [flag, value]
    logs_in = args.panel_basic_auth is not None or args.panel_oauth_provider is not None
    if logs_in and args.panel_cookie_secret is None and not any(os.environ.get(v) for v in COOKIE_SECRET_VARIABLES):
        flag = "--basic-auth" if args.panel_basic_auth is not None else "--oauth-provider"
        raise ValueError(f"{flag} needs --cookie-secret SECRET to sign the login cookie (any long random text, the "
                         f"same for every server; `bokeh secret` prints one)")
    return cmd + list(args.panel_args)


def page_url(args) -> str:
    """The page's address on this machine, as ``serve`` prints it (and ``--show`` opens it)."""
    host = "localhost" if args.address in (*LOOPBACK, "0.0.0.0", "::", "") else args.address
    if ":" in host:
        host = f"[{host}]"
    prefix = (args.panel_prefix or "").strip("/")
    scheme = "https" if args.panel_ssl_certfile else "http"
    return f"{scheme}://{host}:{args.port}/" + (f"{prefix}/" if prefix else "")


def open_when_listening(url: str, timeout: float = 300.0) -> bool:
    """Open ``url`` in a browser once something listens on its host and port (``serve --show``); False if
    nothing did within ``timeout`` s.

    The page is built before the server binds its port (app/delivery/plugin.py), so a port that accepts means a page
    ready.  Run in a child process while ``panel serve`` starts.
    """
    import socket
    import time
    import webbrowser
    from urllib.parse import urlsplit

    where = urlsplit(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((where.hostname, where.port), timeout=1).close()
        except OSError:
            time.sleep(0.5)
            continue
        webbrowser.open(url)
        return True
    return False


def _serve(args) -> int:
    # one BLAS thread per process: the server answers many students at once, and numpy's threads would
    # fight each other (and the event loop) for the same cores (set before numpy is first imported)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    try:
        cmd = serve_command(args)
        if _tour_arg(args) is not None:   # checked here, read again by app/delivery/plugin.py in the server
            from ..tour import ENV_TOUR

            os.environ[ENV_TOUR] = os.path.abspath(args.tour)
    except ValueError as e:
        _error_lines("serve", e)
        return 2
    url = page_url(args)
    print(f"attention-explorable: serving the page on {url} (Panel's app with Python callbacks on {url}main), "
          f"once it is built: a few seconds (Ctrl-C stops)", flush=True)
    if args.show:
        import subprocess

        code = "import sys; from app.delivery.cli import open_when_listening; open_when_listening(sys.argv[1])"
        subprocess.Popen([sys.executable, "-c", code, url], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    os.execv(sys.executable, cmd)   # this process becomes panel serve: its signals, its exit code
    return 0  # not reached (except under a test that replaces os.execv)


def _add_readout(sub) -> None:
    """The ``readout`` command: the readouts of one query, as text or JSON."""
    r = sub.add_parser("readout", help="print the readouts for one query")
    r.add_argument("--query", type=_number, required=True, help="query position x")
    r.add_argument("--bandwidth", type=_positive, required=True, help="Gaussian bandwidth h > 0")
    r.add_argument("--temperature", type=_positive, default=1.0, help="softmax temperature T > 0 (default 1)")
    r.add_argument("--kernel", choices=["gaussian", "dot"], default="gaussian")
    r.add_argument("--key-norm", type=_number, default=0.0,
                   help="dot kernel only: tilt the key norms by this strength (0 keeps them equal)")
    r.add_argument("--dataset", default="default", help="a shipped dataset (default: the worked example)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_readout)


def _add_serve(sub) -> None:
    """The ``serve`` command: panel serve with the page at / and Panel's app at /main."""
    s = sub.add_parser("serve", help="serve the explorable to a class: Panel's server with the page at /, built once",
                       description="Runs `panel serve app/delivery/main.py --plugins app.delivery.plugin`: the page "
                                   "at / (the same "
                                   "bytes for every visit; the browser computes everything) and Panel's app with "
                                   "Python callbacks at /main.  Flags of panel serve not named here go after `--`, "
                                   "e.g. `attention-explorable serve -- --oauth-optional`.")
    s.add_argument("--port", type=_port, default=5006)
    s.add_argument("--address", default="127.0.0.1",
                   help="interface to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for a class)")
    s.add_argument("--allow-host", "--allow-websocket-origin", dest="allow_websocket_origin", action="append",
                   metavar="HOST[:PORT]",
                   help="a host the page is opened under (repeat for several); needed to serve other machines")
    s.add_argument("--num-procs", type=_int_in(1, 64), default=1,
                   help="forked processes sharing the port and the page, built once before forking (default 1; "
                        "one per core for a big class).  /main's websocket may then reach another process than its "
                        "page, which builds that session again: for /main, prefer one process per core behind nginx "
                        "(app/delivery/deploy/nginx.conf)")
    s.add_argument("--check-unused-sessions", type=_int_in(100, 3_600_000), default=5000, metavar="MS",
                   help="/main: how often to look for sessions whose browser left (ms, default 5000)")
    s.add_argument("--unused-session-lifetime", type=_int_in(100, 86_400_000), default=15000, metavar="MS",
                   help="/main: how long a session may stay without a browser before it is freed (ms, default 15000)")
    s.add_argument("--log-level", choices=["debug", "info", "warning", "error"], default="warning",
                   help="what the server logs (default warning)")
    s.add_argument("--tour", metavar="FILE", help="a guided tour file (JSON) to show instead of the shipped one")
    s.add_argument("--show", action="store_true", help="open the page in a browser once it is served")
    panel = s.add_argument_group("panel serve's own flags", "passed on to panel serve as they are")
    for flag, metavar, text in PANEL_FLAGS:
        if metavar is None:
            panel.add_argument(flag, dest=_flag_dest(flag), action="store_true", help=text)
        else:
            panel.add_argument(flag, dest=_flag_dest(flag), metavar=metavar, help=text)
    s.set_defaults(func=_serve, panel_args=())


def _add_export(sub) -> None:
    """The ``export`` command: one self-contained HTML file."""
    e = sub.add_parser("export", help="write one self-contained HTML file that works offline")
    e.add_argument("output", help="the HTML file to write, e.g. lecture.html")
    e.add_argument("--sections", default=None,
                   help="comma-separated: regression,sentence,ideas,learning,routing (default: all of them)")
    e.add_argument("--query", type=_number)
    e.add_argument("--bandwidth", type=_positive)
    e.add_argument("--temperature", type=_positive)
    e.add_argument("--kernel", choices=["gaussian", "dot"])
    e.add_argument("--key-norm", dest="key_norm", type=_number)
    e.add_argument("--dataset")
    e.add_argument("--sentence")
    e.add_argument("--present", action="store_true", help="open in presentation mode (large fonts)")
    e.add_argument("--embed", nargs="?", const="1", metavar="SECTION",
                   help="open as one section's figure and sliders fitted to a short frame (default: the first "
                        "section offered; ?embed=0 in a link shows the whole page)")
    e.add_argument("--title", default="Attention as kernel regression")
    e.add_argument("--tour", metavar="FILE", help="a guided tour file (JSON) to show instead of the shipped one")
    e.add_argument("--data", metavar="FILE", help="your own x, y pairs (CSV, TSV or semicolon-separated text, at most "
                                                  "16 MB, or a pipe): the page opens on them")
    e.add_argument("--x", metavar="COLUMN", help="--data: the column for x, by header name or number from 1 "
                                                 "(default: the first holding numbers)")
    e.add_argument("--y", metavar="COLUMN", help="--data: the column for y (default: the next holding numbers)")
    e.set_defaults(func=_export)


def _add_tour(sub) -> None:
    """The ``tour`` command: ``tour check FILE`` and ``tour schema``."""
    t = sub.add_parser("tour", help="check a guided tour file, or print the tour files' JSON Schema")
    tsub = t.add_subparsers(dest="tour_command", metavar="{check,schema}", required=True, parser_class=_Parser)
    c = tsub.add_parser("check", help="validate a tour file: one line per problem (exit code 2), or a summary")
    c.add_argument("file", help="the tour file (JSON), e.g. my-tour.json")
    c.add_argument("--sections", metavar="LIST",
                   help="comma-separated, e.g. regression,sentence: check only these sections' steps (the others "
                        "are left out, with a notice), as a page built with those sections shows the tour")
    c.set_defaults(func=_tour_check)
    sc = tsub.add_parser("schema", help="print the tour files' JSON Schema (draft 2020-12)")
    sc.set_defaults(func=_tour_schema)


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``readout``, ``serve``, ``export`` and ``tour``, each added by its own function."""
    p = _Parser(prog="attention-explorable", description="Attention as kernel regression: an explorable.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in (_add_readout, _add_serve, _add_export, _add_tour):
        add(sub)
    return p


def parse_args(argv=None) -> argparse.Namespace:
    """The command line's arguments; for ``serve``, everything after ``--`` goes to ``panel serve`` unread
    (``args.panel_args``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    rest: list[str] = []
    if argv[:1] == ["serve"] and "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    args = build_parser().parse_args(argv)
    if rest:
        args.panel_args = tuple(rest)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
