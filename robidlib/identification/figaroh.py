"""FIGAROH's processing of an identification record, emulated with robidlib's parts.

FIGAROH :cite:`nguyen2023` publishes base and essential parameters of the Staubli TX40 record
that :func:`robidlib.datasets.staubli_tx40` ships, computed by its script
``examples/staubli_TX40/identification.py`` (2023) and the helpers it calls.  Reading that
code shows five choices that differ from :func:`~robidlib.identification.preprocess.prepare`
and :func:`~robidlib.identification.estimate.identify`; each can be switched here on its own:

1. the low-pass filter: the script passes ``ts * cutoff / 2`` to ``scipy.signal.butter``,
   whose cut-off is a fraction of the Nyquist frequency ``1 / (2 ts)``, so the filter cuts at
   ``cutoff / 4`` (25 Hz for the 100 Hz of the settings), in transfer-function form with
   ``filtfilt`` (``cutoff_slip``);
2. the derivatives: velocities by forward differences, accelerations by central differences
   of those (``differences="script"``); the positions lose two samples at the end, the
   torques none, and the script cuts the joint-major stacks of both into blocks of the
   torques' length, so joint ``i``'s torques (0-based) are paired with regressor rows ``2 i``
   samples later (0.4 ms per joint at 5 kHz), the last ``2 i`` with the first rows of joint
   ``i + 1``;
3. the last joint's acceleration: the script's differentiation loop runs over all joints but
   the last (a loop meant for a floating base), whose acceleration stays zero
   (``last_acceleration=False``); its rotor-inertia column is then zero, which is why
   FIGAROH's TX40 results have no ``Ia6``;
4. the weights of WLS: the per-joint residual variance of the *global* OLS fit divided by the
   joint's number of equations, ``||r_j||^2 / N_j`` (:func:`figaroh_estimates`);
5. the essential parameters: removal of the largest relative standard deviation until the
   largest is below ``ratio`` times the smallest, with the weights of the base fit kept, the
   estimates rounded to 6 decimals and the relative standard deviations to 2 before every
   decision, in FIGAROH's coupled-wrist parameterisation
   (:func:`robidlib.datasets.to_figaroh_convention`); a relative standard deviation below
   0.005 % rounds to zero, and the loop then removes all parameters but one (the script's
   behaviour, kept: it does not occur on the TX40 record).

The rest (gear ratios, offsets, trims, parallel decimation by ``scipy.signal.decimate``,
equations near zero velocity dropped) is the same as robidlib's pipeline.  With every choice
as the script makes it, chapter 11 reproduces FIGAROH's published values of the TX40 record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.signal
from numpy.typing import ArrayLike

from .._validate import as_array, check_choice, check_fields, check_flag, check_names
from ..base import BaseParameters
from ..signals import differentiate, lowpass
from .model import DriveModel
from .preprocess import IdentificationData, Settings, parallel_decimate

__all__ = ["FigarohFit", "prepare_figaroh", "figaroh_estimates"]

_CHUNK = 4096
#: FIGAROH drops the regressor columns whose squared norm is below this (eliminate_non_dynaffect).
_COLUMN_FLOOR = 1e-3


def prepare_figaroh(
    t: ArrayLike,
    q_motor: ArrayLike,
    signal: ArrayLike,
    model: DriveModel,
    settings: Settings,
    *,
    cutoff_slip: bool = True,
    differences: str = "script",
    last_acceleration: bool = False,
) -> IdentificationData:
    """Identification data processed as FIGAROH's TX40 script processes a record.

    Parameters
    ----------
    t, q_motor, signal, model, settings
        As for :func:`~robidlib.identification.preprocess.prepare` (``settings.trim_samples``
        samples are dropped at each end, the script's ``5 * order``).
    cutoff_slip : bool, default True
        True: Butterworth filter of ``settings.filter_order`` designed with the normalised
        cut-off ``ts * cutoff / 2`` (``cutoff / 4`` in Hz), applied by ``filtfilt`` with odd
        padding of ``3 * order`` samples, as the script does; False: robidlib's zero-phase
        filter at ``settings.cutoff``.
    differences : {"script", "central"}, default "script"
        ``"script"``: forward differences, central differences of them, and the script's
        pairing of joint ``i``'s torques with the regressor ``2 i`` samples later;
        ``"central"``: :func:`robidlib.signals.differentiate` twice, aligned.
    last_acceleration : bool, default False
        False: the last joint's acceleration is left at zero, as the script leaves it.

    Returns
    -------
    IdentificationData
        ``keep`` flags the equations whose (paired) velocity column is above the threshold.

    Raises
    ------
    ValueError
        Shapes that do not match the model, NaN/inf, time stamps not uniform or not matching
        ``ts``, a record too short for the trims, the differences or the decimation filter,
        an unknown ``differences``.
    TypeError
        ``model`` not a DriveModel, ``settings`` not Settings, a flag that is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.identification import DriveModel, Settings, prepare
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> t = np.arange(20000) * 2e-4
    >>> q = np.column_stack([np.sin(t), np.cos(2 * t)])
    >>> s = Settings(ts=2e-4, cutoff=20.0)
    >>> a = prepare_figaroh(t, q, np.zeros_like(q), model, s, cutoff_slip=False,
    ...                     differences="central", last_acceleration=True)
    >>> b = prepare(t, q, np.zeros_like(q), model, s)
    >>> bool(np.allclose(a.Y, b.Y, atol=1e-9 * np.abs(b.Y).max()))
    True
    """
    if not isinstance(model, DriveModel):
        raise TypeError(f"model must be a DriveModel, got {type(model).__name__}")
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be Settings, got {type(settings).__name__}")
    cutoff_slip = check_flag("cutoff_slip", cutoff_slip)
    differences = check_choice("differences", differences, ("script", "central"))
    last_acceleration = check_flag("last_acceleration", last_acceleration)
    n, ts = model.n, settings.ts
    t = as_array("t", t, ndim=1)
    q_motor = as_array("q_motor", q_motor, ndim=2)
    signal = as_array("signal", signal, ndim=2)
    if q_motor.shape[1] != n or signal.shape != q_motor.shape or t.shape[0] != q_motor.shape[0]:
        raise ValueError(
            f"t (N,), q_motor and signal (N, {n}) must match the model's {n} joints and each other, got "
            f"t {t.shape}, q_motor {q_motor.shape}, signal {signal.shape}"
        )
    N = t.size
    if N < 2 or not np.allclose(np.diff(t), ts, rtol=1e-6, atol=0.0):
        raise ValueError(f"t must hold at least 2 samples uniformly spaced by settings.ts = {ts:g} s")
    k = settings.trim_samples
    order = settings.filter_order
    if N - 2 * k < 5:
        raise ValueError(f"the record has {N} samples, too few to trim {k} at each end and differentiate")
    offsets = np.zeros(n) if settings.joint_offsets is None else settings.joint_offsets
    thr = 0.01 * model.robot.qd_limits if settings.velocity_threshold is None else settings.velocity_threshold

    timings: dict[str, float] = {}
    tic = time.perf_counter()
    tr = model.transmission
    qj = tr.joint_positions(q_motor)
    if cutoff_slip:     # Settings keeps cutoff below fs / 2, so ts * cutoff / 2 < 1/4
        b, a = scipy.signal.butter(order, ts * settings.cutoff / 2.0, "low")
        q = scipy.signal.filtfilt(b, a, qj, axis=0, padtype="odd", padlen=3 * (max(len(a), len(b)) - 1))
    else:
        q = lowpass(qj, settings.cutoff, settings.fs, order=order)
    q = q + offsets
    tau = tr.joint_torques(signal)[k:N - k]
    tt = t[k:N - k]
    L = N - 2 * k
    if differences == "script":                   # the script trims, then differentiates
        q = q[k:N - k]
        qd = np.diff(q, axis=0) / ts
        qdd = np.gradient(qd, axis=0, edge_order=1) / ts
        q, qd, qdd = q[:L - 2], qd[:L - 2], qdd[:L - 2]
    else:                                         # robidlib differentiates, then trims
        qd = differentiate(q, ts)
        qdd = differentiate(qd, ts)
        q, qd, qdd = q[k:N - k], qd[k:N - k], qdd[k:N - k]
    if not last_acceleration:
        qdd[:, -1] = 0.0
    NW = q.shape[0]
    timings["filter"] = time.perf_counter() - tic

    # the regressor at the full rate, only where it can be non-zero (as in prepare)
    tic = time.perf_counter()
    S = model.structure()
    rows, cols = np.nonzero(S)
    Z = np.empty((NW, rows.size))
    for start in range(0, NW, _CHUNK):
        c = slice(start, start + _CHUNK)
        Z[c] = model.regressor(q[c], qd[c], qdd[c])[:, rows, cols]
    timings["regressor"] = time.perf_counter() - tic

    # the script's pairing: joint i's torque sample k' meets row i * L + k' of the joint-major
    # stack of the regressor (blocks of NW rows): joint i's row 2 i + k' here, joint i + 1's
    # first rows at the end of the block, nothing past the stack
    tic = time.perf_counter()
    f = settings.decimation
    parts, taus, vels = [], [], []
    for i in range(n):
        m = i * L + np.arange(L)
        m = m[m < n * NW]
        blk, s = m // NW, m % NW
        own, nxt = blk == i, blk == i + 1
        use = np.flatnonzero(S[i] | (S[i + 1] if i + 1 < n and nxt.any() else False))
        X = np.zeros((m.size, use.size + 1))
        sel = rows == i
        pos = np.searchsorted(use, cols[sel])
        X[np.flatnonzero(own)[:, None], pos[None, :]] = Z[s[own]][:, sel]
        X[own, -1] = qd[s[own], i]                          # the velocity the script tests
        if nxt.any():
            Yn = model.regressor(q[s[nxt]], qd[s[nxt]], qdd[s[nxt]])[:, i + 1, :]
            X[nxt, :-1] = Yn[:, use]
        Xd = parallel_decimate(X, f)
        parts.append((use, Xd[:, :-1]))
        vels.append(Xd[:, -1])
        taus.append(parallel_decimate(tau[:, i], f))
    M = min(min(v.size for v in vels), min(x.size for x in taus))
    Yd = np.zeros((M, n, model.p))
    for i, (use, Xd) in enumerate(parts):
        Yd[:, i, use] = Xd[:M]
    tau_d = np.column_stack([x[:M] for x in taus])
    v_d = np.column_stack([v[:M] for v in vels])
    sig = parallel_decimate(np.concatenate([q, qd, qdd], axis=1), f)[:M]
    step = int(np.prod(f, dtype=int)) if f else 1
    t_d = tt[:NW][::step][:M]
    timings["decimate"] = time.perf_counter() - tic
    keep = np.abs(v_d) >= thr
    return IdentificationData(t=t_d, q=sig[:, :n], qd=sig[:, n:2 * n], qdd=sig[:, 2 * n:], tau=tau_d, Y=Yd,
                              keep=keep, model=model, settings=settings, timings=timings)


@dataclass(frozen=True, eq=False)
class FigarohFit:
    """Result of :func:`figaroh_estimates`, in FIGAROH's coupled-wrist parameterisation.

    Attributes
    ----------
    names : tuple of str
        Base parameters kept (columns with a squared norm of at least 1e-3).
    ols, wls : numpy.ndarray
        Estimates (not rounded).
    ols_rel_std, wls_rel_std : numpy.ndarray
        Relative standard deviations in percent (OLS: pooled residual variance; WLS:
        ``(W^T S^-1 W)^-1`` with the script's weights).
    wls_cov : numpy.ndarray
    sigma_joint : numpy.ndarray, shape (n,)
        The script's per-joint standard deviations, ``sqrt(||r_j||^2 / N_j)`` of the OLS fit.
    essential_names : tuple of str
    essential_wls, essential_rel_std : numpy.ndarray
        The essential parameters as the script reports them (rounded to 6 decimals; 2 for
        the relative standard deviations).
    dropped : tuple of str
        Base parameters whose column the script eliminates (squared norm below 1e-3).
    """

    names: tuple
    ols: np.ndarray
    ols_rel_std: np.ndarray
    wls: np.ndarray
    wls_rel_std: np.ndarray
    wls_cov: np.ndarray
    sigma_joint: np.ndarray
    essential_names: tuple
    essential_wls: np.ndarray
    essential_rel_std: np.ndarray
    dropped: tuple

    def __post_init__(self) -> None:
        for name in ("names", "essential_names", "dropped"):
            object.__setattr__(self, name, check_names(name, getattr(self, name)))
        p, e = len(self.names), len(self.essential_names)
        for f, k, of in (("ols", p, "names"), ("ols_rel_std", p, "names"), ("wls", p, "names"),
                         ("wls_rel_std", p, "names"), ("wls_cov", p, "names"), ("essential_wls", e, "essential_names"),
                         ("essential_rel_std", e, "essential_names")):
            v = getattr(self, f)
            if not isinstance(v, str) and np.ndim(v) >= 1 and np.shape(v)[0] != k:
                raise ValueError(f"{f} must have one entry per name of {of} ({k}), got shape {np.shape(v)}")
        dims = check_fields(self, ols=(p,), ols_rel_std=(p,), wls=(p,), wls_rel_std=(p,), wls_cov=(p, p),
                            sigma_joint=("n",), essential_wls=(e,), essential_rel_std=(e,))
        if p == 0 or dims["n"] == 0:
            raise ValueError(f"names and sigma_joint must not be empty, got {p} names and {dims['n']} joints")


def figaroh_estimates(data: IdentificationData, base: BaseParameters, ratio: float | None = None) -> FigarohFit:
    """OLS, WLS and essential parameters computed as FIGAROH's TX40 script computes them.

    Parameters
    ----------
    data : ~robidlib.identification.preprocess.IdentificationData
        Typically from :func:`prepare_figaroh`.
    base : BaseParameters
        Base parameters of ``data.model`` (their names are mapped to FIGAROH's
        parameterisation by :func:`robidlib.datasets.to_figaroh_convention`).
    ratio : float, optional
        Stop of the essential loop (default ``data.settings.ratio_essential``), > 1.

    Returns
    -------
    FigarohFit

    Raises
    ------
    TypeError
        ``data`` not IdentificationData, ``base`` not BaseParameters.
    ValueError
        ``base`` of another model, a ``ratio`` not above 1, a regressor that the kept
        equations do not excite, a joint without equations.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.identification import DriveModel, Settings, prepare
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> t = np.arange(25000) * 2e-4
    >>> w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    >>> q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    >>> x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    >>> tau = model.torques(q, np.gradient(q, 2e-4, axis=0),
    ...                     np.gradient(np.gradient(q, 2e-4, axis=0), 2e-4, axis=0), x)
    >>> base = model.base_parameters()
    >>> fit = figaroh_estimates(prepare(t, q, tau, model, Settings(ts=2e-4)), base)
    >>> bool(np.allclose(fit.wls, base.beta(x), rtol=1e-2, atol=1e-3)), fit.dropped
    (True, ())
    """
    from ..datasets import to_figaroh_convention

    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    if not isinstance(base, BaseParameters):
        raise TypeError(f"base must be BaseParameters, got {type(base).__name__}")
    if base.n_params != data.model.p:
        raise ValueError(f"base must be the BaseParameters of the model's {data.model.p} columns, got {base.n_params}")
    ratio = data.settings.ratio_essential if ratio is None else ratio
    if isinstance(ratio, (bool, np.bool_)) or not isinstance(ratio, (int, float, np.floating, np.integer)):
        raise TypeError(f"ratio must be a number, got {type(ratio).__name__}")
    if not np.isfinite(ratio) or not ratio > 1:
        raise ValueError(f"ratio must be a finite number > 1, got {ratio}")
    W, y, joint = data.stack(base.independent)
    names = list(base.base_names)
    keep_col = np.sum(W**2, axis=0) >= _COLUMN_FLOOR
    dropped = tuple(nm for nm, k in zip(names, keep_col) if not k)
    W, names = W[:, keep_col], [nm for nm, k in zip(names, keep_col) if k]
    T = np.column_stack([to_figaroh_convention(names, e)[1] for e in np.eye(len(names))])
    W = W @ np.linalg.inv(T)                              # columns of FIGAROH's parameters
    n = data.model.n
    counts = np.bincount(joint, minlength=n)
    if np.any(counts == 0):
        raise ValueError(f"joint(s) {(np.flatnonzero(counts == 0) + 1).tolist()} have no equation in data")
    if np.linalg.matrix_rank(W) < W.shape[1]:
        raise ValueError(f"the kept equations do not excite the {W.shape[1]} base parameters (rank deficient)")
    b_ols = np.linalg.lstsq(W, y, rcond=None)[0]
    r = y - W @ b_ols
    s2 = np.sum(r**2) / (W.shape[0] - W.shape[1])
    ols_std = np.sqrt(s2 * np.diag(np.linalg.inv(W.T @ W)))
    sig2 = np.bincount(joint, weights=r**2, minlength=n) / counts
    w = 1.0 / np.sqrt(sig2[joint])

    def wls(cols: list[int]) -> tuple[np.ndarray, np.ndarray]:
        A = W[:, cols] * w[:, None]
        C = np.linalg.inv(A.T @ A)
        return C @ (A.T @ (y * w)), C

    b_wls, C = wls(list(range(len(names))))
    with np.errstate(divide="ignore", invalid="ignore"):
        idx = list(range(len(names)))
        b = np.around(b_wls, 6)
        rel = np.round(100 * np.sqrt(np.diag(C)) / np.abs(b), 2)
        while len(idx) > 1 and not rel.max() < ratio * rel.min():
            idx.pop(int(np.argmax(rel)))
            b, Ce = wls(idx)
            b = np.around(b, 6)
            rel = np.round(100 * np.sqrt(np.diag(Ce)) / np.abs(b), 2)
        wls_rel = 100 * np.sqrt(np.diag(C)) / np.abs(b_wls)
        ols_rel = 100 * ols_std / np.abs(b_ols)
    return FigarohFit(names=tuple(names), ols=b_ols, ols_rel_std=ols_rel, wls=b_wls, wls_rel_std=wls_rel, wls_cov=C,
                      sigma_joint=np.sqrt(sig2), essential_names=tuple(names[i] for i in idx), essential_wls=b,
                      essential_rel_std=rel, dropped=dropped)
