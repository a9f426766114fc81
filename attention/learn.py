"""Learning what "similar" means: fit the kernel itself by gradient descent.

So far the bandwidth h was a knob.  Here it is learned, the way a transformer
learns its projections: pick a loss, differentiate it, walk downhill.

The loss is the leave-one-out (LOO) mean squared error.  Each sample i is
predicted from the other n - 1 samples, never from itself (otherwise the
kernel would win by shrinking to zero and copying every y_i):

    L = (1/n) sum_i r_i^2,    r_i = y_i - p_i,    p_i = sum_{j != i} alpha_ij y_j,
    alpha_ij = softmax_{j != i}(s_ij)   (s_ii = -inf).

Two score families are learned:

* 1-D bandwidth:  s_ij = -(x_i - x_j)^2 / (2 h^2 T), parameter u = log h;
* 2-D metric:     s_ij = -||W (x_i - x_j)||^2 / (2 T), parameter the 2 x 2
  matrix W (one projection shared by queries and keys, W_Q = W_K = W).  With
  W = I / h this is the Gaussian of bandwidth h again; a W whose column for a
  coordinate shrinks to 0 has learned to ignore that coordinate.

One identity does all the differentiating.  Write G_ij = dL/ds_ij (holding the
other scores fixed).  The softmax gives dp_i/ds_ij = alpha_ij (y_j - p_i), so

    G_ij = -(2/n) r_i alpha_ij (y_j - p_i),      sum_j G_ij = 0 for every i,

and for any parameter theta, dL/dtheta = sum_ij G_ij ds_ij/dtheta.  Because
every row of G sums to 0, a constant added to a row of scores changes nothing:
the code uses scores shifted so each row's maximum is 0, which keeps the
numbers finite for any h from 1e-100 to 1e100.  For the bandwidth, each row
sums only over the keys whose weight is at least 1e-16 of its largest, one run
of the keys sorted by x, and keys sharing an x are summed once (see
``_bandwidth_eval``): a step costs far less than n^2 at small h or with
repeated x, and the browser's twin (attention/train.js) does the same.

Gradient descent runs on log h (not h), so a step changes h by a factor and h
can never turn negative.  A step that would give a non-finite loss, send h (or
the size of W) outside [1e-4, 1e4], or multiply the loss by more than 10 is
refused: the last good state is kept and the trajectory says why.

This module uses numpy and the standard library only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from . import _checks
from .datasets import data_path
from .kernels import softmax

# Page defaults (chosen in tests/core/test_learn.py, where they are checked).
DEFAULT_BANDWIDTH_LEARNING_RATE = 2.0   # on log h; default dataset: within 5 % of the best h in ~8 steps
                                        # from h0 = 0.15, ~27 from h0 = 3, the loss falling at every step
DEFAULT_BANDWIDTH_STEPS = 60
DEFAULT_METRIC_LEARNING_RATE = 2.0      # on W; metric2d from W0 = I: |col x2| / |col x1| 1 -> 0.03 in 150 steps
DEFAULT_METRIC_STEPS = 150

# Divergence guards: a step is refused if it leaves these bounds.
H_MIN, H_MAX = 1e-4, 1e4                # bandwidth h; for W the Frobenius norm must stay in [1/H_MAX, 1/H_MIN]
BLOWUP_FACTOR = 10.0                    # refused if the new loss exceeds 10 x the last good loss

STATUS_START, STATUS_OK, STATUS_DIVERGED = "start", "ok", "diverged"
HINT = "learning rate too large — lower it"


# ---------------------------------------------------------------------------
# shared pieces
# ---------------------------------------------------------------------------

def _xy_1d(x, y):
    xa = _checks.finite_array("x", x, min_ndim=1, max_ndim=1)
    ya = _checks.finite_array("y", y, min_ndim=1, max_ndim=1)
    if xa.shape[0] < 2:
        raise ValueError(f"x must hold at least 2 samples for leave-one-out error, got {xa.shape[0]}")
    if ya.shape != xa.shape:
        raise ValueError(f"y must have one value per sample of x ({xa.shape[0]}), got shape {ya.shape}")
    return xa, ya


def _xy_2d(X, y):
    Xa = _checks.finite_array("X", X, min_ndim=2, max_ndim=2)
    ya = _checks.finite_array("y", y, min_ndim=1, max_ndim=1)
    if Xa.shape[0] < 2 or Xa.shape[1] < 1:
        raise ValueError(f"X must be (n, d) with n >= 2 samples, got shape {Xa.shape}")
    if ya.shape != (Xa.shape[0],):
        raise ValueError(f"y must have one value per row of X ({Xa.shape[0]}), got shape {ya.shape}")
    return Xa, ya


def _finite(name, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


LOG_H_LIMIT = 230.0   # |log h| <= 230, i.e. h within 1e-100 .. 1e100: the arithmetic stays finite


def _log_h(value) -> float:
    u = _finite("log_h", value)
    if abs(u) > LOG_H_LIMIT:
        raise ValueError(f"log_h must lie in [-{LOG_H_LIMIT:g}, {LOG_H_LIMIT:g}] (h from about 1e-100 to 1e100), "
                         f"got {value!r}")
    return u


def _steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    return int(steps)


def _loo_from_excess(excess, y, scale):
    """LOO loss and G = dL/ds from scores s = -scale * excess.

    ``excess`` is (n, n), >= 0, 0 at each row's best key(s), with anything on
    the diagonal (it is masked here).  Returns (loss, G).
    """
    a = np.multiply(excess, -scale)
    # exp(-700) ~ 1e-304 is still a normal float; lower scores would underflow,
    # which changes nothing visible but runs numpy's exp several times slower.
    np.maximum(a, -700.0, out=a)
    np.fill_diagonal(a, -np.inf)
    softmax(a, axis=1, out=a, shifted=True)    # each row's best key has excess 0: the row maximum is 0
    p = a @ y
    r = y - p
    n = y.shape[0]
    a *= y[None, :] - p[:, None]
    a *= r[:, None] * (-2.0 / n)               # G_ij = -(2/n) r_i alpha_ij (y_j - p_i); G_ii = 0
    return float(r @ r) / n, a


# ---------------------------------------------------------------------------
# 1-D: learn the bandwidth
# ---------------------------------------------------------------------------

# Row i keeps the keys whose weight is at least WINDOW_WEIGHT times its largest: a key scoring more than
# WINDOW_SCORE = ln(1 / WINDOW_WEIGHT) below the row's best is left out.  The JS twin (attention/train.js)
# carries the same number.
WINDOW_WEIGHT = 1e-16
WINDOW_SCORE = 36.841361487904734       # ln(1e16)
_ROWS_PER_BLOCK = 32                    # rows summed together in one set of numpy operations


class _Sorted1D(NamedTuple):
    """Keys sorted by x and their values minus the mean (``x``, ``y``, one per key), and the same keys grouped by
    distinct x (one per distinct value): the value ``ux``, how many keys share it and the sum of their values
    (``count_ysum``, columns [count, sum of y]), the squared distance to the nearest other key ``udmin``, room
    for rounding around it ``upad``; ``group`` says which distinct value each key has."""

    x: np.ndarray
    y: np.ndarray
    ux: np.ndarray
    count_ysum: np.ndarray
    udmin: np.ndarray
    upad: np.ndarray
    group: np.ndarray


def _sorted_1d(x, y) -> _Sorted1D:
    """Sort by x (ties keep their order), centre y and group the keys that share an x.

    Neither sorting nor centring changes the loss or its gradient: the loss
    sums over rows in any order, and adding a constant to every y adds it to
    every prediction too.  Centred values keep the sums below small, so they
    lose less to rounding.  Keys that share an x get the same weight in every
    row, so a row needs one weight per distinct x, not per key: the generator
    rounds x to 2 decimals, and 2000 samples over 0..6 have at most 601
    distinct x.  The nearest other key of a key is at distance 0 when its x is
    shared, and otherwise at the nearest neighbouring distinct x:
    dmin_a = min((u_a - u_{a-1})^2, (u_{a+1} - u_a)^2) for distinct values u.
    """
    order = np.argsort(x, kind="stable")
    xs = x[order]
    yc = y[order] - y.mean()
    ux, first, count = np.unique(xs, return_index=True, return_counts=True)
    g = np.diff(ux) ** 2
    udmin = np.minimum(np.concatenate([[np.inf], g]), np.concatenate([g, [np.inf]]))
    udmin[count > 1] = 0.0
    count_ysum = np.stack([count.astype(float), np.add.reduceat(yc, first)], axis=1)
    return _Sorted1D(xs, yc, ux, count_ysum, udmin, 4.0 * np.spacing(np.abs(ux)),
                     np.repeat(np.arange(ux.shape[0]), count))


def _windows(P: _Sorted1D, K: float) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct x u_a, indices lo_a <= a < hi_a of a run of distinct x that holds its window.

    A key at x_j is in the window of a key at u_a when D = (u_a - x_j)^2 - dmin_a <= K.
    That is |u_a - x_j| <= sqrt(dmin_a + K), so the window is one run of the
    sorted distinct x around a; binary search with a slightly larger radius
    finds a run that contains it, and ``_window_sums`` keeps exactly the x that
    pass the test (the same test attention/train.js applies).

    Why this window.  A key with sigma_ij > WINDOW_SCORE = ln(1e16) has weight
    e_ij < 1e-16, less than half an ulp of the nearest key's 1, so it is left
    out of the four sums.  The keys kept satisfy

        (x_i - x_j)^2 - dmin_i <= 2 h^2 T ln(1e16),

    a condition that grows with |x_i - x_j|: with the keys sorted by x they form
    one run around key i, found by binary search.  The weight left out of a row
    is below (n - 1) 1e-16 of Z_i, the size of the rounding error of summing
    Z_i itself, and with keys spread along x the Gaussian tail makes it far
    smaller.  A row then costs its window's length instead of n:
    about 2 sqrt(2 ln(1e16)) h sqrt(T) = 8.6 h sqrt(T) times the keys per unit
    of x, so small bandwidths are cheap and h large enough to cover all keys
    costs the full n^2.  Every sum term is finite (e_ij in [1e-16, 1]) for any
    h from 1e-100 to 1e100.  T and h enter only as h^2 T.
    """
    radius = np.sqrt(P.udmin + K) * (1.0 + 1e-9) + P.upad                           # room for rounding
    lo = np.searchsorted(P.ux, P.ux - radius, side="left")
    hi = np.searchsorted(P.ux, P.ux + radius, side="right")
    return lo, hi


def _window_sums(P: _Sorted1D, c: float) -> tuple[np.ndarray, ...]:
    """Per key i: Z, A, B, C = sums over the keys j != i in its window of e, e y_j, e sigma, e sigma y_j,
    with sigma_ij = c D_ij and e = exp(-sigma_ij); see ``_bandwidth_eval``.

    The sums run over distinct x: with n_b keys at u_b whose values sum to Y_b, a key i at u_a gets
    sum_{b != a} e_ab [n_b, Y_b] (and the same with e sigma), plus the other keys at its own x, each with
    sigma = 0 and e = 1: n_a - 1 for Z and Y_a - y_i for A (both 0 when its x is not shared).  Distinct x go
    in blocks, each over the run of distinct x that holds all its windows; an x outside a window gets
    sigma = 1e4, whose exp is exactly 0 (cheaper than masking the exp).

    Shared x.  Keys with the same x get the same weight in every row, and
    rows with the same x have the same window, so the four sums are taken
    once per distinct x over the distinct x of its window, weighted by how
    many keys share each x and the sum of their values.
    With m distinct x a step costs at most m^2 weights instead of n^2: the
    generator rounds x to 2 decimals, so 2000 samples on 0..6 need at most
    601 x 601.
    """
    m = P.ux.shape[0]
    K = WINDOW_SCORE / c
    lo, hi = _windows(P, K)
    cols = P.count_ysum
    sums = np.empty((m, 4))
    for r0 in range(0, m, _ROWS_PER_BLOCK):  # a loop over blocks of distinct x; each is one set of array operations
        r1 = min(m, r0 + _ROWS_PER_BLOCK)
        k0, k1 = int(lo[r0:r1].min()), int(hi[r0:r1].max())
        d = P.ux[r0:r1, None] - P.ux[None, k0:k1]
        D = np.multiply(d, d, out=d)
        D -= P.udmin[r0:r1, None]
        out = D > K
        rows = np.arange(r0, r1)
        out[rows - r0, rows - k0] = True                       # its own x: added below, key by key
        sigma = np.multiply(D, c, out=D)
        np.copyto(sigma, 1e4, where=out)
        e = np.exp(np.negative(sigma))
        es = np.multiply(e, sigma, out=sigma)
        sums[r0:r1, :2] = e @ cols[k0:k1]                      # sum e [n_b, Y_b]
        sums[r0:r1, 2:] = es @ cols[k0:k1]                     # sum e sigma [n_b, Y_b]
    per_key = sums[P.group]
    own = cols[P.group]
    return (per_key[:, 0] + (own[:, 0] - 1.0), per_key[:, 1] + (own[:, 1] - P.y), per_key[:, 2], per_key[:, 3])


def _bandwidth_eval(P: _Sorted1D, log_h, temperature):
    """(loss, dL/dlog h) from the windowed sums, for ``loo_loss_and_grad``.

    The loss is L(h) = (1/n) sum_i (y_i - p_i)^2,  p_i = sum_{j != i} alpha_ij y_j,
    alpha_ij = softmax_{j != i}(s_ij),  s_ij = -(x_i - x_j)^2 / (2 h^2 T).

    Derivation, with u = log h (so h^2 = e^{2u}):

    * the score is proportional to e^{-2u}, hence ds_ij/du = -2 s_ij;
    * the softmax derivative gives
      dalpha_ij/du = alpha_ij (ds_ij/du - sum_k alpha_ik ds_ik/du)
                   = -2 alpha_ij (s_ij - sbar_i),  sbar_i = sum_k alpha_ik s_ik
      (a wider kernel moves weight from keys scoring above the weighted mean
      score to keys scoring below it);
    * so dp_i/du = -2 sum_j alpha_ij (s_ij - sbar_i) y_j
                 = -2 sum_j alpha_ij (s_ij - sbar_i)(y_j - p_i),
      minus twice the alpha-weighted covariance of score and value in row i;
    * and dL/du = -(2/n) sum_i r_i dp_i/du
               = (4/n) sum_i r_i sum_j alpha_ij (s_ij - sbar_i)(y_j - p_i),
      with r_i = y_i - p_i.

    Because sum_j alpha_ij (y_j - p_i) = 0, sbar_i may be replaced by any
    per-row constant; the code uses each row's largest score.  With
    dmin_i = min_{j != i} (x_i - x_j)^2 and c = 1 / (2 h^2 T) the shifted score
    is -sigma_ij, sigma_ij = c ((x_i - x_j)^2 - dmin_i) >= 0, the nearest key
    scores 0 and gets e_ij = exp(-sigma_ij) = 1, and

        p_i = A_i / Z_i,    dL/du = -(4/n) sum_i r_i (C_i - p_i B_i) / Z_i,

    with the four row sums Z = sum_j e_ij, A = sum_j e_ij y_j,
    B = sum_j e_ij sigma_ij, C = sum_j e_ij sigma_ij y_j.

    The window of keys each row sums over is ``_windows``'s, and keys that share an x are summed once
    (``_window_sums``).
    """
    c = 0.5 * math.exp(-2.0 * log_h) / temperature     # s_ij = -c (x_i - x_j)^2
    Z, A, B, C = _window_sums(P, c)
    p = A / Z
    r = P.y - p
    n = P.x.shape[0]
    return float(r @ r) / n, (-4.0 / n) * float(r @ ((C - p * B) / Z))


def loo_loss_and_grad(x, y, log_h, *, temperature=1.0) -> tuple[float, float]:
    """Leave-one-out MSE of Gaussian kernel regression and its derivative in log h.

    Loss:  L(h) = (1/n) sum_i (y_i - p_i)^2,  p_i = sum_{j != i} alpha_ij y_j,
    alpha_ij = softmax_{j != i}(s_ij),  s_ij = -(x_i - x_j)^2 / (2 h^2 T).

    Gradient, with u = log h, r_i = y_i - p_i and sbar_i = sum_k alpha_ik s_ik:

        dL/du = (4/n) sum_i r_i sum_j alpha_ij (s_ij - sbar_i)(y_j - p_i).

    The derivation, and how the sums are taken (each row over the keys of
    weight >= 1e-16 of its largest, keys that share an x once), are in
    ``_bandwidth_eval``'s docstring.  Any h from 1e-100 to 1e100 gives finite
    numbers; T and h enter only as h^2 T.

    Parameters
    ----------
    x : array-like of shape (n,)
        The keys (positions), n >= 2.
    y : array-like of shape (n,)
        The values.
    log_h : float
        u = log h, within [-230, 230] (h from about 1e-100 to 1e100).
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    loss : float
        L(h).
    grad : float
        dL/dlog h.
    """
    xa, ya = _xy_1d(x, y)
    t = _checks.positive("temperature", temperature)
    return _bandwidth_eval(_sorted_1d(xa, ya), _log_h(log_h), t)


def loo_loss(x, y, log_h, *, temperature=1.0) -> float:
    """Leave-one-out MSE at bandwidth h = exp(log_h); the loss of ``loo_loss_and_grad``.

    Equal to ``attention.loo_error(x, y, bandwidths=[h], temperature=T)[0]``.

    Parameters
    ----------
    x, y, log_h, temperature
        As in ``loo_loss_and_grad``.

    Returns
    -------
    loss : float
        L(h).
    """
    return loo_loss_and_grad(x, y, log_h, temperature=temperature)[0]


class BandwidthStep(NamedTuple):
    """One gradient step on log h.  ``loss`` and ``grad`` are at the starting log h."""

    new_log_h: float
    loss: float
    grad: float
    ok: bool
    message: str


def _refusal(loss0, loss1, size, size_name, lr):
    """Why a proposed step is refused ('' if it is acceptable)."""
    if not (H_MIN <= size <= H_MAX):             # also catches inf and nan
        why = f"{size_name} would become {size:.3g}, outside [{H_MIN:g}, {H_MAX:g}]"
    elif not math.isfinite(loss1):
        why = "the step gave a non-finite loss"
    elif loss1 > BLOWUP_FACTOR * loss0:
        why = f"the loss would jump from {loss0:.3g} to {loss1:.3g} (more than {BLOWUP_FACTOR:g}x)"
    else:
        return ""
    return f"step refused: {why}; {HINT} (learning rate {lr:g}, try {lr / 10:g})"


def _bandwidth_try(P, log_h, loss, grad, lr, t):
    """Propose log h - lr * grad; return (new_log_h, new_loss, new_grad, message)."""
    new = log_h - lr * grad
    h1 = math.exp(new) if math.isfinite(new) and abs(new) < 700.0 else math.inf
    if H_MIN <= h1 <= H_MAX:
        loss1, grad1 = _bandwidth_eval(P, new, t)
    else:
        loss1, grad1 = math.nan, math.nan          # not evaluated: h alone refuses the step
    msg = _refusal(loss, loss1, h1, "h", lr)
    return new, loss1, grad1, msg


def bandwidth_step(x, y, log_h, learning_rate, *, temperature=1.0) -> BandwidthStep:
    """One gradient-descent step on log h: log h <- log h - learning_rate * dL/dlog h.

    If the step is refused (see the module docstring) ``ok`` is False,
    ``new_log_h`` is the given log h unchanged and ``message`` says why and what
    to do; otherwise ``message`` is ''.

    Parameters
    ----------
    x, y, log_h
        As in ``loo_loss_and_grad``.
    learning_rate : float > 0
        The step size on log h.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    step : BandwidthStep
        ``BandwidthStep(new_log_h, loss, grad, ok, message)`` (it unpacks as a
        5-tuple); ``loss`` and ``grad`` are at the given log h.
    """
    xa, ya = _xy_1d(x, y)
    t = _checks.positive("temperature", temperature)
    lr = _checks.positive("learning_rate", learning_rate)
    u = _log_h(log_h)
    P = _sorted_1d(xa, ya)
    loss, grad = _bandwidth_eval(P, u, t)
    new, _, _, msg = _bandwidth_try(P, u, loss, grad, lr, t)
    return BandwidthStep(u, loss, grad, False, msg) if msg else BandwidthStep(new, loss, grad, True, "")


class _Descent:
    """What a path of gradient descent says of itself (its fields: ``status`` and ``loss``, one per entry)."""

    @property
    def diverged(self) -> bool:
        """Whether its last step was refused."""
        return self.status[-1] == STATUS_DIVERGED

    @property
    def final_loss(self) -> float:
        return float(self.loss[-1])


@dataclass(frozen=True)
class BandwidthTrajectory(_Descent):
    """The path of gradient descent on log h.

    Entry 0 is the start (status "start"); each accepted step adds one entry
    (status "ok").  A refused step adds one last entry that repeats the last
    good state with status "diverged" and a message, and training stops there
    (repeating it would be refused again).  ``grad`` is dL/dlog h at each entry.
    """

    step: np.ndarray
    log_h: np.ndarray
    h: np.ndarray
    loss: np.ndarray
    grad: np.ndarray
    status: tuple[str, ...]
    message: tuple[str, ...]
    learning_rate: float
    temperature: float

    @property
    def final_h(self) -> float:
        return float(self.h[-1])

    def as_dict(self) -> dict:
        """Plain lists and numbers, ready for JSON."""
        return {"step": self.step.tolist(), "log_h": self.log_h.tolist(), "h": self.h.tolist(),
                "loss": self.loss.tolist(), "grad": self.grad.tolist(), "status": list(self.status),
                "message": list(self.message), "learning_rate": self.learning_rate,
                "temperature": self.temperature}


def train_bandwidth(x, y, *, h0, learning_rate=DEFAULT_BANDWIDTH_LEARNING_RATE, steps=DEFAULT_BANDWIDTH_STEPS,
                    temperature=1.0) -> BandwidthTrajectory:
    """Plain gradient descent on u = log h from h0: u_{k+1} = u_k - learning_rate * dL/du(u_k).

    The loss is the leave-one-out MSE of ``loo_loss_and_grad``.  Stops early
    at the first refused step (status "diverged"); see ``BandwidthTrajectory``.
    The page default, ``DEFAULT_BANDWIDTH_LEARNING_RATE`` = 2, reaches the
    bottom of the default dataset's loss curve from h0 = 0.15 and from h0 = 3.

    Parameters
    ----------
    x : array-like of shape (n,)
        The keys (positions), n >= 2.
    y : array-like of shape (n,)
        The values.
    h0 : float in [1e-4, 1e4]
        The starting bandwidth.
    learning_rate : float > 0, default 2.0
        The step size on log h.
    steps : int >= 0, default 60
        The most steps taken.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    trajectory : BandwidthTrajectory
        log h, h, the loss, its gradient and a status at the start and after every step.
    """
    xa, ya = _xy_1d(x, y)
    t = _checks.positive("temperature", temperature)
    lr = _checks.positive("learning_rate", learning_rate)
    h = _checks.positive("h0", h0)
    if not H_MIN <= h <= H_MAX:
        raise ValueError(f"h0 must lie in [{H_MIN:g}, {H_MAX:g}], got {h0!r}")
    n_steps = _steps(steps)
    P = _sorted_1d(xa, ya)
    u = math.log(h)
    loss, grad = _bandwidth_eval(P, u, t)
    us, losses, grads = [u], [loss], [grad]
    status, message = [STATUS_START], [""]
    for _ in range(n_steps):  # a loop over training steps
        new, loss1, grad1, msg = _bandwidth_try(P, u, loss, grad, lr, t)
        if not msg:
            u, loss, grad = new, loss1, grad1
        us.append(u)
        losses.append(loss)
        grads.append(grad)
        status.append(STATUS_DIVERGED if msg else STATUS_OK)
        message.append(msg)
        if msg:
            break
    log_h = np.array(us)
    return BandwidthTrajectory(step=np.arange(log_h.shape[0]), log_h=log_h, h=np.exp(log_h),
                               loss=np.array(losses), grad=np.array(grads), status=tuple(status),
                               message=tuple(message), learning_rate=lr, temperature=t)


# ---------------------------------------------------------------------------
# 2-D: learn a metric
# ---------------------------------------------------------------------------

def _centred(X):
    """X minus its mean: differences x_i - x_j are unchanged and the sums below lose less to rounding."""
    return X - X.mean(axis=0)


def _metric_eval(Xc, y, W, temperature):
    """(loss, dL/dW) for s_ij = -||W (x_i - x_j)||^2 / (2T); ``Xc`` is centred (``_centred``).

    The same G as in ``_loo_from_excess``, arranged so that the only passes
    over n x n numbers are one matrix product for the scores, the row shift,
    one softmax and a few matrix products (nothing of size n x n x d is built):

    * with z_i = W x_i / sqrt(2T), -s_ij = |z_i|^2 + |z_j|^2 - 2 z_i . z_j,
      which is one product [-2Z, |z|^2, 1] [Z, 1, |z|^2]^T;
    * G = diag(u) alpha diag(y) - diag(u p) alpha with u = -(2/n) r, so
      X^T G X = (u X)^T (alpha (y X)) - (u p X)^T (alpha X) and the column sums
      of G are y (u^T alpha) - (u p)^T alpha; its row sums are 0;
    * S = sum_ij G_ij d_ij d_ij^T = X^T diag(column sums of G) X - X^T G X - X^T G^T X.

    y is centred first: G does not change when a constant is added to y,
    and smaller numbers lose less to rounding in the differences above.
    """
    n, d = Xc.shape
    yc = y - y.mean()
    Z = Xc @ (W.T * math.sqrt(0.5 / temperature))
    sq = np.einsum("ik,ik->i", Z, Z)[:, None]
    one = np.ones((n, 1))
    q = np.hstack([-2.0 * Z, sq, one]) @ np.hstack([Z, one, sq]).T     # q_ij = -s_ij
    np.fill_diagonal(q, np.inf)
    s = np.subtract(q.min(axis=1, keepdims=True), q, out=q)            # s_ij - max_j s_ij <= 0
    np.maximum(s, -700.0, out=s)    # exp(-700) ~ 1e-304 is still normal; underflow makes exp slow
    np.fill_diagonal(s, -np.inf)
    alpha = softmax(s, axis=1, out=s, shifted=True)                    # row maximum is exactly 0
    yX = yc[:, None] * Xc
    aM = alpha @ np.hstack([yc[:, None], Xc, yX])                      # alpha @ [y, X, y X]
    p = aM[:, 0]
    r = yc - p
    u = r * (-2.0 / n)
    v = u * p
    cs = np.vstack([u, v]) @ alpha                                     # u^T alpha, (u p)^T alpha
    g = yc * cs[0] - cs[1]
    A = (u[:, None] * Xc).T @ aM[:, 1 + d:] - (v[:, None] * Xc).T @ aM[:, 1:1 + d]
    S = (Xc.T * g) @ Xc - A - A.T
    # ds_ij/dW = -W d_ij d_ij^T / T, so dL/dW = -(1/T) W S
    return float(r @ r) / n, W @ S * (-1.0 / temperature)


def _matrix(name, W, d):
    Wa = _checks.finite_array(name, W, min_ndim=2, max_ndim=2)
    if Wa.shape[1] != d:
        raise ValueError(f"{name} must be (k, {d}) to act on {d}-D keys, got shape {Wa.shape}")
    return Wa


def metric_loss_and_grad(X, y, W, *, temperature=1.0) -> tuple[float, np.ndarray]:
    """Leave-one-out MSE with a learned metric and its gradient with respect to W.

    Scores:  s_ij = -||W (x_i - x_j)||^2 / (2T) = -d_ij^T W^T W d_ij / (2T),
    d_ij = x_i - x_j, for keys X (n, d) and W (k, d) (2 x 2 on the page).  W is
    the projection shared by queries and keys (W_Q = W_K = W, acting on column
    vectors; in the row-vector convention of ``self_attention`` that is X W^T).
    W = I / h recovers the Gaussian kernel of bandwidth h.

    Gradient:  with G_ij = dL/ds_ij = -(2/n) r_i alpha_ij (y_j - p_i) and
    ds_ij/dW = -W d_ij d_ij^T / T,

        dL/dW = -(1/T) W S,    S = sum_{i != j} G_ij d_ij d_ij^T   (d x d).

    All pairs are handled at once as n x n matrices (no loop over samples).

    Parameters
    ----------
    X : array-like of shape (n, d)
        The keys, n >= 2 (d = 2 on the page).
    y : array-like of shape (n,)
        The values.
    W : array-like of shape (k, d)
        The metric.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    loss : float
        L, the leave-one-out mean squared error.
    grad : ndarray of shape (k, d)
        dL/dW, the shape of W.
    """
    Xa, ya = _xy_2d(X, y)
    t = _checks.positive("temperature", temperature)
    Wa = _matrix("W", W, Xa.shape[1])
    return _metric_eval(_centred(Xa), ya, Wa, t)


def metric_loss(X, y, W, *, temperature=1.0) -> float:
    """Leave-one-out MSE under the metric W; the loss of ``metric_loss_and_grad``.

    Parameters
    ----------
    X, y, W, temperature
        As in ``metric_loss_and_grad``.

    Returns
    -------
    loss : float
    """
    return metric_loss_and_grad(X, y, W, temperature=temperature)[0]


def dot_metric_loss_and_grad(X, y, W_Q, W_K, *, temperature=1.0) -> tuple[float, np.ndarray, np.ndarray]:
    """Leave-one-out MSE of dot-product attention with separate projections, and both gradients.

    In the row-vector convention of ``self_attention``: Q = X W_Q, K = X W_K
    (W_Q, W_K of shape (d, d_k)), s_ij = q_i . k_j / (sqrt(d_k) T), s_ii = -inf.
    With G_ij = dL/ds_ij as in ``metric_loss_and_grad`` and c = sqrt(d_k) T:

        dL/dW_Q = X^T G K / c,      dL/dW_K = X^T G^T Q / c.

    Unlike the distance form, a key's length now matters: long keys win weight
    from every query.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The keys, n >= 2 (d = 2 on the page).
    y : array-like of shape (n,)
        The values.
    W_Q, W_K : array-like of shape (d, d_k)
        The query and key projections.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    loss : float
        L.
    grad_q : ndarray of shape (d, d_k)
        dL/dW_Q.
    grad_k : ndarray of shape (d, d_k)
        dL/dW_K.
    """
    Xa, ya = _xy_2d(X, y)
    t = _checks.positive("temperature", temperature)
    Wq = _checks.finite_array("W_Q", W_Q, min_ndim=2, max_ndim=2)
    Wk = _checks.finite_array("W_K", W_K, min_ndim=2, max_ndim=2)
    if Wq.shape[0] != Xa.shape[1] or Wk.shape != Wq.shape:
        raise ValueError(f"W_Q and W_K must both be ({Xa.shape[1]}, d_k), got {Wq.shape} and {Wk.shape}")
    c = math.sqrt(Wq.shape[1]) * t
    Q, K = Xa @ Wq, Xa @ Wk
    s = Q @ K.T
    np.fill_diagonal(s, -np.inf)
    s -= s.max(axis=1, keepdims=True)
    np.fill_diagonal(s, 0.0)                    # put the diagonal back to a finite value for the helper
    # _loo_from_excess wants s = -scale * excess: excess = -s >= 0, scale = 1/c
    loss, G = _loo_from_excess(-s, ya, 1.0 / c)
    return loss, Xa.T @ (G @ K) / c, Xa.T @ (G.T @ Q) / c


class MetricStep(NamedTuple):
    """One gradient step on W.  ``loss`` and ``grad`` are at the starting W."""

    new_W: np.ndarray
    loss: float
    grad: np.ndarray
    ok: bool
    message: str


def _metric_try(Xc, y, W, loss, grad, lr, t):
    new = W - lr * grad
    size = float(np.linalg.norm(new)) if np.all(np.isfinite(new)) else math.inf
    # size of the metric as a bandwidth: ||W||_F ~ 1/h, so bound 1/||W||_F like h
    h_like = 1.0 / size if size > 0 else math.inf
    if math.isfinite(h_like) and H_MIN <= h_like <= H_MAX:
        loss1, grad1 = _metric_eval(Xc, y, new, t)
    else:
        loss1, grad1 = math.nan, None
    msg = _refusal(loss, loss1, h_like, "1/||W|| (the metric's length scale)", lr)
    return new, loss1, grad1, msg


def metric_step(X, y, W, learning_rate, *, temperature=1.0) -> MetricStep:
    """One gradient-descent step on the metric: W <- W - learning_rate * dL/dW.

    A refused step (non-finite loss, ||W||_F outside [1e-4, 1e4], or loss x 10)
    keeps W and explains why in ``message``.

    Parameters
    ----------
    X, y, W
        As in ``metric_loss_and_grad``.
    learning_rate : float > 0
        The step size.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    step : MetricStep
        ``MetricStep(new_W, loss, grad, ok, message)``; ``loss`` and ``grad`` are at the given W.
    """
    Xa, ya = _xy_2d(X, y)
    t = _checks.positive("temperature", temperature)
    lr = _checks.positive("learning_rate", learning_rate)
    Wa = _matrix("W", W, Xa.shape[1])
    Xc = _centred(Xa)
    loss, grad = _metric_eval(Xc, ya, Wa, t)
    new, _, _, msg = _metric_try(Xc, ya, Wa, loss, grad, lr, t)
    return MetricStep(Wa.copy(), loss, grad, False, msg) if msg else MetricStep(new, loss, grad, True, "")


@dataclass(frozen=True)
class MetricTrajectory(_Descent):
    """The path of gradient descent on W; entries and statuses as in ``BandwidthTrajectory``.

    ``W`` and ``grad`` are (m, k, d); ``loss`` is (m,).
    """

    step: np.ndarray
    W: np.ndarray
    loss: np.ndarray
    grad: np.ndarray
    status: tuple[str, ...]
    message: tuple[str, ...]
    learning_rate: float
    temperature: float

    @property
    def final_W(self) -> np.ndarray:
        return self.W[-1]

    def column_ratio(self) -> np.ndarray:
        """|W column 2| / |W column 1| at every entry: how much x_2 counts relative to x_1."""
        norms = np.linalg.norm(self.W, axis=1)          # (m, d): length of each column
        return norms[:, 1] / norms[:, 0]

    def as_dict(self) -> dict:
        return {"step": self.step.tolist(), "W": self.W.tolist(), "loss": self.loss.tolist(),
                "grad": self.grad.tolist(), "status": list(self.status), "message": list(self.message),
                "learning_rate": self.learning_rate, "temperature": self.temperature}


def train_metric(X, y, *, W0, learning_rate=DEFAULT_METRIC_LEARNING_RATE, steps=DEFAULT_METRIC_STEPS,
                 temperature=1.0) -> MetricTrajectory:
    """Plain gradient descent on W from W0: W_{k+1} = W_k - learning_rate * dL/dW(W_k).

    The loss is ``metric_loss_and_grad``'s.  Stops at the first refused step
    (status "diverged", last good W kept).  The page default,
    ``DEFAULT_METRIC_LEARNING_RATE`` = 2 from W0 = I, shrinks the column of W
    that reads the irrelevant x_2 on the metric2d dataset.

    Parameters
    ----------
    X : array-like of shape (n, d)
        The keys, n >= 2 (d = 2 on the page).
    y : array-like of shape (n,)
        The values.
    W0 : array-like of shape (k, d)
        The starting metric; its Frobenius norm within [1e-4, 1e4].
    learning_rate : float > 0, default 2.0
        The step size.
    steps : int >= 0, default 150
        The most steps taken.
    temperature : float > 0, default 1.0
        T.

    Returns
    -------
    trajectory : MetricTrajectory
        W, the loss, its gradient and a status at the start and after every step.
    """
    Xa, ya = _xy_2d(X, y)
    t = _checks.positive("temperature", temperature)
    lr = _checks.positive("learning_rate", learning_rate)
    W = _matrix("W0", W0, Xa.shape[1]).copy()
    size = float(np.linalg.norm(W))
    if not (size > 0 and H_MIN <= 1.0 / size <= H_MAX):
        raise ValueError(f"W0's Frobenius norm must lie in [{1 / H_MAX:g}, {1 / H_MIN:g}], got {size:g}")
    n_steps = _steps(steps)
    Xc = _centred(Xa)
    loss, grad = _metric_eval(Xc, ya, W, t)
    Ws, losses, grads = [W], [loss], [grad]
    status, message = [STATUS_START], [""]
    for _ in range(n_steps):  # a loop over training steps
        new, loss1, grad1, msg = _metric_try(Xc, ya, W, loss, grad, lr, t)
        if not msg:
            W, loss, grad = new, loss1, grad1
        Ws.append(W)
        losses.append(loss)
        grads.append(grad)
        status.append(STATUS_DIVERGED if msg else STATUS_OK)
        message.append(msg)
        if msg:
            break
    return MetricTrajectory(step=np.arange(len(Ws)), W=np.array(Ws), loss=np.array(losses), grad=np.array(grads),
                            status=tuple(status), message=tuple(message), learning_rate=lr, temperature=t)


def metric_axes(W, *, level=1.0) -> tuple[np.ndarray, np.ndarray]:
    """Semi-axes of the similarity ellipse {d : ||W d||^2 / 2 = level}.

    With the SVD W = U diag(sigma) V^T, the ellipse's axes point along the rows
    of V^T (the right singular vectors) with half-lengths sqrt(2 level) / sigma_k.
    A zero singular value gives an infinite length: that direction is ignored
    entirely.

    Parameters
    ----------
    W : array-like of shape (k, d)
        The metric.
    level : float > 0, default 1.0
        The contour's level.

    Returns
    -------
    lengths : ndarray of shape (d,)
        The half-lengths, longest first.
    directions : ndarray of shape (d, d)
        One unit vector per row, in the order of ``lengths``.
    """
    Wa = _checks.finite_array("W", W, min_ndim=2, max_ndim=2)
    lv = _checks.positive("level", level)
    _, sigma, Vt = np.linalg.svd(Wa)
    if sigma.shape[0] < Wa.shape[1]:            # fewer rows than columns: missing sigmas are 0
        sigma = np.concatenate([sigma, np.zeros(Wa.shape[1] - sigma.shape[0])])
    with np.errstate(divide="ignore"):
        lengths = np.sqrt(2.0 * lv) / sigma
    order = np.argsort(-lengths, kind="stable")
    return lengths[order], Vt[order]


def similarity_ellipse(W, *, level=1.0, points=64, max_radius=1e3) -> np.ndarray:
    """Points on the contour {d : ||W d||^2 / 2 = level} around the origin.

    Add the query's position to draw it around the query: at T = 1, keys
    inside the curve score above -level (their weight is at least e^{-level}
    times what a key at the query itself would get).  The contour is traced as
    d(theta) = sum_k (sqrt(2 level) / sigma_k) (cos theta, sin theta)_k v_k for
    theta evenly spaced over [0, 2 pi], first point repeated at the end, where
    sigma_k, v_k are W's singular values and right singular vectors.  A
    direction W nearly ignores has a huge half-length; each half-length is
    capped at ``max_radius`` so the curve stays drawable.

    Parameters
    ----------
    W : array-like of shape (k, 2)
        The metric; it must act on 2-D keys.
    level : float > 0, default 1.0
        The contour's level.
    points : int >= 3, default 64
        Points on the curve, the first repeated at the end.
    max_radius : float > 0, default 1000.0
        The cap on each half-length.

    Returns
    -------
    curve : ndarray of shape (points, 2)
    """
    Wa = _checks.finite_array("W", W, min_ndim=2, max_ndim=2)
    if Wa.shape[1] != 2:
        raise ValueError(f"W must act on 2-D keys, (k, 2), got shape {Wa.shape}")
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 3:
        raise ValueError(f"points must be a whole number >= 3, got {points!r}")
    cap = _checks.positive("max_radius", max_radius)
    lengths, dirs = metric_axes(Wa, level=level)
    lengths = np.minimum(lengths, cap)
    theta = np.linspace(0.0, 2.0 * np.pi, int(points))
    return (lengths[0] * np.cos(theta))[:, None] * dirs[0] + (lengths[1] * np.sin(theta))[:, None] * dirs[1]


# ---------------------------------------------------------------------------
# the metric dataset: y depends on x_1 only
# ---------------------------------------------------------------------------

METRIC_FORMULA = "y = sin(x1) + noise;  x2 is irrelevant"
METRIC_FILE = "metric2d.json"


@dataclass(frozen=True)
class MetricDataset:
    """2-D keys X (n, 2) and values y (n,) for learning a metric."""

    X: np.ndarray
    y: np.ndarray
    formula: str
    description: str
    noise: float
    seed: int
    meta: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def true_function(self, X) -> np.ndarray:
        """The noise-free y = sin(x1), for points X (..., 2)."""
        return np.sin(np.asarray(X, dtype=float)[..., 0])


def make_metric_dataset(n: int = 60, noise: float = 0.1, seed: int = 0) -> MetricDataset:
    """Draw n points X uniform on [-3, 3]^2 and y = sin(x1) + N(0, noise^2).

    Recipe (numpy's default_rng(seed)): X = round(uniform(-3, 3, (n, 2)), 2),
    then y = round(sin(x1) + normal(0, noise, n), 2).  The coordinate x2 never
    enters y, so a good metric learns to ignore it.

    Parameters
    ----------
    n : int, 2 <= n <= 2000, default 60
        Number of points.
    noise : float in [0, 10], default 0.1
        Standard deviation of the noise.
    seed : int >= 0, default 0
        Seed of numpy's default_rng.

    Returns
    -------
    dataset : MetricDataset
        X (n, 2), y (n,), the formula and a description.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= 2000:
        raise ValueError(f"n must be a whole number from 2 to 2000, got {n!r}")
    sigma = float(noise)
    if not np.isfinite(sigma) or not 0 <= sigma <= 10:
        raise ValueError(f"noise must be a number from 0 to 10, got {noise!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    X = np.round(rng.uniform(-3.0, 3.0, (int(n), 2)), 2)
    y = np.round(np.sin(X[:, 0]) + rng.normal(0.0, sigma, int(n)), 2)
    desc = (f"{n} points on [-3, 3]^2 with y = sin(x1) + noise {sigma:g}: only x1 matters, "
            f"x2 is a distraction (seed {seed})")
    return MetricDataset(X=X, y=y, formula=METRIC_FORMULA, description=desc, noise=sigma, seed=int(seed),
                         meta={"generated_by": f"attention.learn.make_metric_dataset(n={n}, noise={sigma:g}, "
                                               f"seed={seed})"})


def metric_dataset_json(n: int = 60, noise: float = 0.1, seed: int = 0) -> str:
    """The text of ``data/metric2d.json`` for this recipe (how the shipped file was written).

    Parameters
    ----------
    n, noise, seed
        As in ``make_metric_dataset``.

    Returns
    -------
    text : str
        The JSON file's text, one point per line.
    """
    d = make_metric_dataset(n, noise, seed)
    head = {"name": "metric2d", "description": d.description, "formula": d.formula,
            "generated_by": d.meta["generated_by"], "seed": d.seed, "noise": d.noise, "n": d.n}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    lines.append(' "X": [')
    lines += [f"  [{a!r}, {b!r}]" + ("," if i < d.n - 1 else "") for i, (a, b) in enumerate(d.X.tolist())]
    lines.append(" ],")
    lines.append(' "y": [' + ", ".join(repr(v) for v in d.y.tolist()) + "]")
    lines.append("}")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def _read_metric() -> dict:
    return json.loads(data_path(METRIC_FILE).read_text(encoding="utf-8"))


def load_metric_dataset() -> MetricDataset:
    """The shipped 2-D dataset ``data/metric2d.json`` (60 points, y = sin(x1) + noise 0.1).

    Returns
    -------
    dataset : MetricDataset
    """
    d = _read_metric()
    return MetricDataset(X=np.asarray(d["X"], dtype=float).reshape(-1, 2), y=np.asarray(d["y"], dtype=float),
                         formula=d["formula"], description=d["description"], noise=float(d["noise"]),
                         seed=int(d["seed"]), meta=d)


__all__ = [
    "loo_loss", "loo_loss_and_grad", "bandwidth_step", "train_bandwidth", "BandwidthStep", "BandwidthTrajectory",
    "metric_loss", "metric_loss_and_grad", "dot_metric_loss_and_grad", "metric_step", "train_metric",
    "MetricStep", "MetricTrajectory", "metric_axes", "similarity_ellipse", "make_metric_dataset",
    "load_metric_dataset", "metric_dataset_json", "MetricDataset",
    "DEFAULT_BANDWIDTH_LEARNING_RATE", "DEFAULT_METRIC_LEARNING_RATE",
]
