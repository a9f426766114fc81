"""The ``attention-explorable`` command line.

    attention-explorable readout --query 3.2 --bandwidth 0.62 [--json]
    attention-explorable serve [--port N] [--show] [--allow-websocket-origin HOST]
    attention-explorable export lecture.html [...]

Bad arguments exit with code 2 and one line on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
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
        from .text import caption

        print(caption(r, kernel=args.kernel, bandwidth=args.bandwidth, temperature=args.temperature))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="attention-explorable", description="Attention as kernel regression: an explorable.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

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
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
