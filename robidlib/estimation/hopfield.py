"""A continuous-time Hopfield network whose states are the parameter estimates.

Formulation (Abe's form of the Hopfield network, :cite:`abe1989`, used for
identification by :cite:`atencia2004`): neuron ``i`` has an internal potential
``u_i`` and an output ``S_i`` that is the estimate of parameter ``i``,

.. math::

    \\frac{du_i}{dt} = \\sum_j W_{ij} S_j + I_i , \\qquad
    S_i = \\alpha_i \\tanh(u_i / \\beta) .

Sign convention (the one of this module): with the stacked regressor ``Phi`` (r, p) and
torques ``tau`` (r,),

.. math::  W = -\\Phi^\\top \\Phi / c , \\qquad I = \\Phi^\\top \\tau / c ,

so ``W`` is symmetric *negative* semi-definite and ``W S + I = -\\nabla_S J`` is minus
the gradient of the least-squares cost ``J(S) = ||tau - Phi S||^2 / (2c)``.  ``c = r``
(``scale="mean"``, the default: time constants do not depend on the length of the data
set) or ``c = 1`` (``scale="sum"``, the raw products of the paper: time constants shrink
as data are added).

Energy (Lyapunov) function.  Unlike Hopfield's original model
(:cite:`hopfield1984`) there is no leak term ``-u_i / R_i``, so the energy has no
integral term:

.. math::  E(S) = -\\tfrac12 S^\\top W S - I^\\top S = J(S) - \\frac{||\\tau||^2}{2c} ,

and along trajectories ``dE/dt = -\\sum_i (dS_i/du_i) (du_i/dt)^2 <= 0`` because
``dS_i/du_i = (\\alpha_i/\\beta)(1 - (S_i/\\alpha_i)^2) > 0``.  The network therefore
descends the least-squares cost without ever inverting ``Phi' Phi``; when the excitation
is persistent (``Phi' Phi`` positive definite) the unique equilibrium ``W S + I = 0`` is
the least-squares solution -- provided it lies inside the box ``]-alpha, alpha[`` that the
tanh cannot leave.  ``alpha`` is chosen from prior bounds on the parameters (one per
parameter if needed); ``beta`` sets the slope ``alpha / beta`` of the neurons, i.e. the
gain of the descent: near ``S`` the network behaves like
``dS/dt = -D A (S - S*)`` with ``A = Phi'Phi / c`` and
``D = diag(alpha_i / beta (1 - (S_i / alpha_i)^2))`` (:meth:`HopfieldEstimator.time_constants`).
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
import scipy.linalg
from scipy.integrate import solve_ivp

from .._validate import as_array, check_choice, check_positive
from ._estimate import Estimate
from .adaline import _estimate_at
from .adaline import _joint_sigma, _sample_sigma, _samples, whiten_rows

__all__ = ["HopfieldEstimator", "SaturationWarning", "hopfield_batch", "hopfield_online"]

_IMPLICIT = ("LSODA", "Radau", "BDF")
_METHODS = ("LSODA", "Radau", "BDF", "RK45", "RK23", "DOP853")


class SaturationWarning(UserWarning):
    """The least-squares solution lies outside ``]-alpha, alpha[``, or states saturate."""


class HopfieldEstimator:
    """Hopfield network (Abe's formulation) that converges to the least-squares estimate.

    Parameters
    ----------
    alpha : float or array_like, shape (p,)
        Amplitudes ``alpha_i > 0``: the state ``S_i`` stays in ``]-alpha_i, alpha_i[``.
        Choose them larger than any plausible ``|parameter|``.
    beta : float
        Slope parameter ``beta > 0`` of ``S = alpha tanh(u / beta)``: the neuron gain is
        ``alpha / beta``; smaller ``beta`` means a faster (and stiffer) network.
    method : {"LSODA", "Radau", "BDF", "RK45", "RK23", "DOP853"}, default "LSODA"
        ``scipy.integrate.solve_ivp`` method.  The linearised network has eigenvalues
        ``-g_i lambda_j(A)`` spread over the whole spectrum of ``Phi'Phi`` (a ratio
        ``cond(Phi)^2``) and gains ``g_i`` that collapse for saturating neurons, so the ODE
        is stiff whenever ``Phi`` is ill-conditioned: an explicit method must keep its step
        below ``~2 / (g lambda_max)`` although the solution moves on the slow time scale
        ``1 / (g lambda_min)``.  LSODA (:cite:`petzold1983`) switches between
        Adams (non-stiff) and BDF (stiff) automatically; the implicit methods receive the
        exact Jacobian ``d(du/dt)/du = W diag(g(u))`` so they need no finite differences.
    rtol, atol : float, default 1e-9, 1e-12
        Solver tolerances (on the potentials ``u``).
    scale : {"mean", "sum"}, default "mean"
        Normalisation ``c`` of ``W`` and ``I`` (see the module docstring).
    names : sequence of str, optional
        Parameter names used in warnings (default ``p1, p2, ...``).
    check : bool, default True
        Warn (:class:`SaturationWarning`) when the least-squares solution is outside
        ``]-alpha, alpha[`` or when a state comes within 1 % of ``+-alpha``.

    Attributes
    ----------
    params : numpy.ndarray, shape (p,)
        Final state ``S`` (the estimate).
    history : dict of numpy.ndarray
        ``"t"`` (K,), ``"S"`` (K, p) and ``"energy"`` (K,) along the trajectory.
    W, I : numpy.ndarray
        Connection matrix and bias of the last run (final values in on-line mode).

    Raises
    ------
    ValueError
        If ``alpha`` or ``beta`` is not positive and finite, or a name is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.hopfield import HopfieldEstimator
    >>> rng = np.random.default_rng(1)
    >>> Phi = rng.normal(size=(100, 3))
    >>> tau = Phi @ np.array([0.5, -1.0, 2.0])
    >>> net = HopfieldEstimator(alpha=5.0, beta=1.0).run(Phi, tau, (0.0, 60.0))
    >>> np.allclose(net.params, [0.5, -1.0, 2.0], rtol=1e-6)
    True
    >>> bool(np.all(np.diff(net.history["energy"]) <= 1e-12))
    True
    """

    def __init__(
        self,
        alpha: float | Sequence[float] | np.ndarray,
        beta: float,
        *,
        method: str = "LSODA",
        rtol: float = 1e-9,
        atol: float = 1e-12,
        scale: str = "mean",
        names: Sequence[str] | None = None,
        check: bool = True,
    ) -> None:
        a = as_array("alpha", alpha, ndim=(0, 1))
        if a.size == 0 or np.any(a <= 0):
            raise ValueError(f"alpha must be > 0 (scalar or one value per parameter), got {a}")
        self.alpha = a
        self.beta = check_positive("beta", beta)
        self.method = check_choice("method", method, _METHODS)
        self.rtol = check_positive("rtol", rtol)
        self.atol = check_positive("atol", atol)
        self.scale = check_choice("scale", scale, ("mean", "sum"))
        self.names = None if names is None else tuple(str(n) for n in names)
        self.check = bool(check)
        self.W: np.ndarray | None = None
        self.I: np.ndarray | None = None
        self._t = np.empty(0)
        self._S = np.empty((0, 0))
        self._energy = np.empty(0)

    # ------------------------------------------------------------------ properties
    @property
    def params(self) -> np.ndarray:
        """Final state ``S`` of the last run (the parameter estimate), shape ``(p,)``."""
        if self._S.shape[0] == 0:
            raise RuntimeError("the network has not run yet: call run(Phi, tau, t_span) or run_online(...)")
        return self._S[-1].copy()

    @property
    def history(self) -> dict[str, np.ndarray]:
        """``{"t": (K,), "S": (K, p), "energy": (K,)}`` of the last run."""
        return {"t": self._t.copy(), "S": self._S.copy(), "energy": self._energy.copy()}

    # ------------------------------------------------------------------ helpers
    def _alpha_for(self, p: int) -> np.ndarray:
        if self.alpha.ndim == 0:
            return np.full(p, float(self.alpha))
        if self.alpha.shape != (p,):
            raise ValueError(
                f"alpha must be a scalar or have shape ({p},) (one bound per parameter), got {self.alpha.shape}"
            )
        return self.alpha.copy()

    def _names_for(self, p: int) -> tuple[str, ...]:
        if self.names is None:
            return tuple(f"p{i + 1}" for i in range(p))
        if len(self.names) != p:
            raise ValueError(f"names must have {p} entries (one per parameter), got {len(self.names)}")
        return self.names

    def _u0(self, S0: Any, alpha: np.ndarray) -> np.ndarray:
        p = alpha.size
        if S0 is None:
            return np.zeros(p)
        S0 = as_array("S0", S0, shape=(p,))
        if np.any(np.abs(S0) >= alpha):
            bad = np.flatnonzero(np.abs(S0) >= alpha)
            raise ValueError(
                f"S0 must lie strictly inside ]-alpha, alpha[; entries {bad.tolist()} are "
                f"{S0[bad].tolist()} for alpha {alpha[bad].tolist()}"
            )
        return self.beta * np.arctanh(S0 / alpha)

    def _state(self, u: np.ndarray, alpha: np.ndarray) -> np.ndarray:
        return alpha * np.tanh(u / self.beta)

    def _integrate(self, A: np.ndarray, b: np.ndarray, alpha: np.ndarray, u0: np.ndarray,
                   t_span: tuple[float, float], t_eval: np.ndarray | None):
        beta = self.beta

        def rhs(_t: float, u: np.ndarray) -> np.ndarray:
            return b - A @ (alpha * np.tanh(u / beta))

        def jac(_t: float, u: np.ndarray) -> np.ndarray:
            th = np.tanh(u / beta)
            return -A * ((alpha / beta) * (1.0 - th * th))[None, :]

        kwargs: dict[str, Any] = {"method": self.method, "rtol": self.rtol, "atol": self.atol}
        if self.method in _IMPLICIT:
            kwargs["jac"] = jac
        sol = solve_ivp(rhs, t_span, u0, t_eval=t_eval, **kwargs)
        if not sol.success:
            raise RuntimeError(f"solve_ivp ({self.method}) failed on t_span {t_span}: {sol.message}")
        return sol

    def _warn_ls(self, Phi: np.ndarray, tau: np.ndarray, alpha: np.ndarray, names: tuple[str, ...]) -> set[int]:
        if Phi.shape[0] < Phi.shape[1] or np.linalg.matrix_rank(Phi) < Phi.shape[1]:
            return set()  # no unique LS solution (e.g. a window of one sample): nothing to test
        b_ls = scipy.linalg.lstsq(Phi, tau)[0]
        out = np.flatnonzero(np.abs(b_ls) >= alpha)
        if out.size:
            what = ", ".join(f"{names[i]} (LS {b_ls[i]:.4g}, alpha {alpha[i]:.4g})" for i in out)
            warnings.warn(
                f"the least-squares solution lies outside ]-alpha, alpha[ for {what}: these states "
                "saturate and the network cannot reach the least-squares estimate; increase alpha "
                "for these parameters",
                SaturationWarning,
                stacklevel=3,
            )
        return set(out.tolist())

    def _warn_saturation(self, S: np.ndarray, alpha: np.ndarray, names: tuple[str, ...], skip: set[int]) -> None:
        near = [i for i in np.flatnonzero(np.max(np.abs(S), axis=0) > 0.99 * alpha) if i not in skip]
        if near:
            what = ", ".join(f"{names[i]} (max |S| {np.max(np.abs(S[:, i])):.4g}, alpha {alpha[i]:.4g})" for i in near)
            warnings.warn(
                f"states within 1 % of +-alpha (saturating) for {what}: the neuron gain collapses "
                "there and convergence is slow or biased; increase alpha for these parameters",
                SaturationWarning,
                stacklevel=3,
            )

    def _energy_of(self, S: np.ndarray, A: np.ndarray, b: np.ndarray) -> np.ndarray:
        return 0.5 * np.einsum("ki,ij,kj->k", S, A, S) - S @ b

    # ------------------------------------------------------------------ batch
    def run(
        self,
        Phi: Any,
        tau: Any,
        t_span: tuple[float, float],
        S0: Any = None,
        t_eval: Any = None,
    ) -> "HopfieldEstimator":
        """Integrate the network with constant ``W = -Phi'Phi/c`` and ``I = Phi'tau/c``.

        Parameters
        ----------
        Phi : array_like, shape (r, p)
            Stacked (base) regressor.
        tau : array_like, shape (r,)
            Stacked torques.
        t_span : (float, float)
            Integration interval ``(t0, t1)`` in seconds of network time, ``t1 > t0``.  Use
            :meth:`time_constants` to choose it (several times the largest one).
        S0 : array_like, shape (p,), optional
            Initial state, strictly inside ``]-alpha, alpha[`` (default zeros).
        t_eval : array_like, optional
            Times at which to store the state (default: the solver's steps).

        Returns
        -------
        HopfieldEstimator
            ``self`` with :attr:`params`, :attr:`history`, :attr:`W` and :attr:`I` set.

        Raises
        ------
        ValueError
            On non-finite data, mismatched shapes, a bad ``t_span``, ``alpha`` of the wrong
            length or ``S0`` outside the box.
        RuntimeError
            If the ODE solver fails.

        Warns
        -----
        SaturationWarning
            When the least-squares solution is outside ``]-alpha, alpha[`` or a state ends
            within 1 % of ``+-alpha`` (the message names the parameters).
        """
        Phi = as_array("Phi", Phi, ndim=2)
        tau = as_array("tau", tau, ndim=1)
        r, p = Phi.shape
        if tau.shape[0] != r:
            raise ValueError(f"Phi has {r} rows but tau has {tau.shape[0]} entries; they must match")
        if r == 0 or p == 0:
            raise ValueError(f"Phi must have at least one row and one column, got shape {Phi.shape}")
        t_span = tuple(as_array("t_span", t_span, shape=(2,)).tolist())
        if not t_span[1] > t_span[0]:
            raise ValueError(f"t_span must satisfy t1 > t0, got {t_span}")
        if t_eval is not None:
            t_eval = as_array("t_eval", t_eval, ndim=1)
        alpha = self._alpha_for(p)
        names = self._names_for(p)
        u0 = self._u0(S0, alpha)
        c = float(r) if self.scale == "mean" else 1.0
        A = Phi.T @ Phi / c
        b = Phi.T @ tau / c
        skip = self._warn_ls(Phi, tau, alpha, names) if self.check else set()
        sol = self._integrate(A, b, alpha, u0, t_span, t_eval)
        S = self._state(sol.y.T, alpha)
        self.W, self.I = -A, b
        self._t, self._S, self._energy = sol.t.copy(), S, self._energy_of(S, A, b)
        if self.check:
            self._warn_saturation(S[-1:], alpha, names, skip)
        return self

    # ------------------------------------------------------------------ on-line
    def run_online(
        self,
        Phi: Any,
        tau: Any,
        t: Any,
        *,
        forgetting: float = 1.0,
        window: int | None = None,
        S0: Any = None,
        t_final: float | None = None,
    ) -> "HopfieldEstimator":
        """Run the network while the data arrive: ``W(t)``, ``I(t)`` from the samples seen so far.

        Sample ``k`` (regressor ``Phi[k]``, torques ``tau[k]``) arrives at time ``t[k]``.  On
        ``[t[k], t[k+1])`` the network runs with the statistics of samples ``0..k``:

        * ``forgetting = lam`` in ``]0, 1]``: ``R_k = lam R_{k-1} + Phi_k'Phi_k``,
          ``r_k = lam r_{k-1} + Phi_k'tau_k``, ``c_k = lam c_{k-1} + n`` (effective number of
          rows); old samples are forgotten with a memory of about ``1 / (1 - lam)`` samples;
        * ``window = m``: sums over the last ``m`` samples only (sliding window);

        and ``W = -R_k / c_k``, ``I = r_k / c_k`` (``c_k = 1`` for ``scale="sum"``).  The
        state is continuous: the ODE is integrated interval by interval with ``solve_ivp``.
        Before enough samples have arrived ``R_k`` is singular: the energy then has a valley
        of minimisers and the network simply moves along it -- nothing is inverted.

        Parameters
        ----------
        Phi : array_like, shape (N, n, p) or (N, p)
            Regressor of each sample (``(N, p)`` means one row per sample).
        tau : array_like, shape (N, n) or (N,)
            Torques of each sample, matching ``Phi``.
        t : array_like, shape (N,)
            Strictly increasing sample times (s).
        forgetting : float, default 1.0
            Forgetting factor ``lam`` in ``]0, 1]`` (1: remember everything).
        window : int, optional
            Sliding-window length in samples (exclusive with ``forgetting < 1``).
        S0 : array_like, shape (p,), optional
            Initial state (default zeros).
        t_final : float, optional
            If given (``> t[-1]``), keep integrating after the last sample until ``t_final``.

        Returns
        -------
        HopfieldEstimator
            ``self``; ``history["S"][k]`` is the estimate available at ``t[k]`` (plus one
            entry at ``t_final`` if given); ``history["energy"]`` uses the statistics in force
            at each time.

        Raises
        ------
        ValueError
            On non-finite data, mismatched shapes, non-increasing ``t``, ``forgetting``
            outside ``]0, 1]``, a bad ``window`` or both ``window`` and ``forgetting < 1``.

        Warns
        -----
        SaturationWarning
            If the least-squares solution of all the data (or of the last window) is outside
            the box, or a state comes within 1 % of ``+-alpha`` at any time.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.estimation.hopfield import HopfieldEstimator
        >>> rng = np.random.default_rng(2)
        >>> t = np.arange(200) * 0.05
        >>> Phi = rng.normal(size=(200, 1, 2))
        >>> truth = np.where(t[:, None] < 5.0, [1.0, 2.0], [1.5, 2.0])   # step at t = 5 s
        >>> tau = np.einsum("knp,kp->kn", Phi, truth)
        >>> net = HopfieldEstimator(alpha=4.0, beta=0.05).run_online(Phi, tau, t, forgetting=0.9)
        >>> np.allclose(net.params, [1.5, 2.0], atol=1e-3)
        True
        """
        Phi = as_array("Phi", Phi, ndim=(2, 3))
        tau = as_array("tau", tau, ndim=(1, 2))
        if Phi.ndim == 2:
            Phi = Phi[:, None, :]
            if tau.ndim != 1:
                raise ValueError(f"with Phi of shape (N, p), tau must have shape (N,), got {tau.shape}")
            tau = tau[:, None]
        if tau.shape != Phi.shape[:2]:
            raise ValueError(f"tau must have shape {Phi.shape[:2]} to match Phi {Phi.shape}, got {tau.shape}")
        N, n, p = Phi.shape
        if N == 0 or p == 0:
            raise ValueError(f"Phi must hold at least one sample and one parameter, got shape {Phi.shape}")
        t = as_array("t", t, shape=(N,))
        if N > 1 and np.any(np.diff(t) <= 0):
            raise ValueError("t must be strictly increasing (one time per sample)")
        lam = check_positive("forgetting", forgetting)
        if lam > 1:
            raise ValueError(f"forgetting must be in ]0, 1], got {lam}")
        if window is not None:
            if isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer)) or window < 1:
                raise ValueError(f"window must be a positive integer number of samples, got {window!r}")
            if lam != 1.0:
                raise ValueError("give either window or forgetting < 1, not both")
        if t_final is not None:
            t_final = float(as_array("t_final", t_final, ndim=0))
            if t_final <= t[-1]:
                raise ValueError(f"t_final must be after the last sample time t[-1] = {t[-1]}, got {t_final}")
        alpha = self._alpha_for(p)
        names = self._names_for(p)
        u = self._u0(S0, alpha)

        G = np.einsum("kni,knj->kij", Phi, Phi)
        g = np.einsum("kni,kn->ki", Phi, tau)
        # statistics in force on [t_k, t_{k+1}): A_k, b_k
        A_all = np.empty((N, p, p))
        b_all = np.empty((N, p))
        if window is not None:
            cG = np.cumsum(G, axis=0)
            cg = np.cumsum(g, axis=0)
            for k in range(N):
                j = k - window
                R = cG[k] - (cG[j] if j >= 0 else 0.0)
                rr = cg[k] - (cg[j] if j >= 0 else 0.0)
                cnt = n * (min(k + 1, window))
                c = float(cnt) if self.scale == "mean" else 1.0
                A_all[k], b_all[k] = R / c, rr / c
        else:
            R = np.zeros((p, p))
            rr = np.zeros(p)
            cnt = 0.0
            for k in range(N):
                R = lam * R + G[k]
                rr = lam * rr + g[k]
                cnt = lam * cnt + n
                c = cnt if self.scale == "mean" else 1.0
                A_all[k], b_all[k] = R / c, rr / c

        skip: set[int] = set()
        if self.check:
            last = slice(max(0, N - window), N) if window is not None else slice(0, N)
            if lam < 1.0:
                wts = np.sqrt(lam ** np.arange(N - 1, -1, -1))[:, None, None]
                Phi_w, tau_w = (Phi * wts).reshape(-1, p), (tau * wts[:, :, 0]).reshape(-1)
            else:
                Phi_w, tau_w = Phi[last].reshape(-1, p), tau[last].reshape(-1)
            skip = self._warn_ls(Phi_w, tau_w, alpha, names)

        ts = [t[0]]
        Ss = [self._state(u, alpha)]
        Es = [float(self._energy_of(Ss[0][None, :], A_all[0], b_all[0])[0])]
        ends = list(t[1:]) + ([t_final] if t_final is not None else [])
        for k, t_end in enumerate(ends):  # interval [t_k, t_end) runs with the statistics of samples 0..k
            sol = self._integrate(A_all[k], b_all[k], alpha, u, (float(t[k]), float(t_end)), None)
            u = sol.y[:, -1]
            S = self._state(u, alpha)
            ts.append(float(t_end))
            Ss.append(S)
            kE = min(k + 1, N - 1)
            Es.append(float(self._energy_of(S[None, :], A_all[kE], b_all[kE])[0]))
        S_hist = np.array(Ss)
        self.W, self.I = -A_all[-1], b_all[-1].copy()
        self._t, self._S, self._energy = np.array(ts), S_hist, np.array(Es)
        if self.check:
            self._warn_saturation(S_hist, alpha, names, skip)
        return self

    # ------------------------------------------------------------------ analysis
    def energy(self, S: Any, Phi: Any = None, tau: Any = None) -> np.ndarray | float:
        """Lyapunov energy ``E(S) = -S'WS/2 - I'S`` of the network.

        Parameters
        ----------
        S : array_like, shape (p,) or (m, p)
            State(s) at which to evaluate the energy.
        Phi, tau : array_like, optional
            Data defining ``W`` and ``I`` (same scaling as :meth:`run`); default: the ``W``
            and ``I`` of the last run.

        Returns
        -------
        float or numpy.ndarray, shape (m,)
            ``E(S) = ||tau - Phi S||^2 / (2c) - ||tau||^2 / (2c)``.

        Raises
        ------
        ValueError
            On bad shapes or non-finite input, or if no data are available.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.estimation.hopfield import HopfieldEstimator
        >>> Phi, tau = np.eye(2), np.array([1.0, 2.0])
        >>> float(HopfieldEstimator(3.0, 1.0).energy([1.0, 2.0], Phi, tau))   # minimum: -||tau||^2/(2r)
        -1.25
        """
        if Phi is None and tau is None:
            if self.W is None:
                raise ValueError("no W and I yet: pass Phi and tau, or call run first")
            A, b = -self.W, self.I
        elif Phi is None or tau is None:
            raise ValueError("give both Phi and tau, or neither")
        else:
            Phi = as_array("Phi", Phi, ndim=2)
            tau = as_array("tau", tau, shape=(Phi.shape[0],))
            c = float(Phi.shape[0]) if self.scale == "mean" else 1.0
            A, b = Phi.T @ Phi / c, Phi.T @ tau / c
        S = as_array("S", S, ndim=(1, 2))
        if S.shape[-1] != b.size:
            raise ValueError(f"S must have {b.size} entries per state (the number of parameters), got {S.shape[-1]}")
        E = self._energy_of(np.atleast_2d(S), A, b)
        return float(E[0]) if S.ndim == 1 else E

    def time_constants(self, Phi: Any, S: Any = None) -> np.ndarray:
        """Time constants (s) of the network linearised about the state ``S``.

        Near ``S`` the network behaves like ``dS/dt = -D A (S - S*)`` with ``A = Phi'Phi/c``
        and ``D = diag(alpha_i / beta (1 - (S_i/alpha_i)^2))``.  ``D A`` is similar to the
        symmetric ``D^1/2 A D^1/2``, whose eigenvalues ``mu`` give the time constants
        ``1 / mu`` (``inf`` for directions the data do not excite).

        Parameters
        ----------
        Phi : array_like, shape (r, p)
            Stacked regressor.
        S : array_like, shape (p,), optional
            Linearisation point (default zeros, i.e. the start of a run from rest).

        Returns
        -------
        numpy.ndarray, shape (p,)
            Time constants, largest (slowest) first.

        Raises
        ------
        ValueError
            On bad shapes, non-finite input or ``S`` outside the box.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.estimation.hopfield import HopfieldEstimator
        >>> Phi = np.diag([1.0, 2.0])        # A = diag(0.5, 2)
        >>> HopfieldEstimator(alpha=2.0, beta=4.0).time_constants(Phi)   # gain alpha/beta = 0.5
        array([4., 1.])
        """
        Phi = as_array("Phi", Phi, ndim=2)
        p = Phi.shape[1]
        alpha = self._alpha_for(p)
        S = np.zeros(p) if S is None else as_array("S", S, shape=(p,))
        if np.any(np.abs(S) >= alpha):
            raise ValueError("S must lie strictly inside ]-alpha, alpha[")
        c = float(Phi.shape[0]) if self.scale == "mean" else 1.0
        A = Phi.T @ Phi / c
        d = np.sqrt((alpha / self.beta) * (1.0 - (S / alpha) ** 2))
        mu = scipy.linalg.eigvalsh(d[:, None] * A * d[None, :])
        tol = max(p, Phi.shape[0]) * np.finfo(float).eps * max(float(np.max(np.abs(mu))), np.finfo(float).tiny)
        with np.errstate(divide="ignore"):
            tc = np.where(mu > tol, 1.0 / np.where(mu > tol, mu, 1.0), np.inf)
        return np.sort(tc)[::-1]

    def to_estimate(self, Phi: Any, tau: Any, names: Sequence[str] | None = None) -> Estimate:
        """Package the final state as an :class:`Estimate` (least-squares covariance at ``S``).

        Parameters
        ----------
        Phi : array_like, shape (r, p)
            Stacked regressor.
        tau : array_like, shape (r,)
            Stacked torques.
        names : sequence of str, optional
            Parameter names (default: the constructor's ``names``).

        Returns
        -------
        Estimate
            ``method="hopfield"``; ``info`` holds ``alpha``, ``beta`` and the final time.

        Raises
        ------
        ValueError
            On bad data or a rank-deficient ``Phi``.
        """
        Phi = as_array("Phi", Phi, ndim=2)
        tau = as_array("tau", tau, shape=(Phi.shape[0],))
        S = self.params
        if Phi.shape[1] != S.size:
            raise ValueError(f"Phi must have {S.size} columns (the number of parameters), got {Phi.shape[1]}")
        info = {"alpha": self._alpha_for(S.size), "beta": self.beta, "t_final": float(self._t[-1])}
        return _estimate_at(Phi, tau, S, names if names is not None else self.names, "hopfield", info)

    def __repr__(self) -> str:
        a = float(self.alpha) if self.alpha.ndim == 0 else self.alpha.tolist()
        return f"HopfieldEstimator(alpha={a}, beta={self.beta:g}, method={self.method!r}, scale={self.scale!r})"


# ---------------------------------------------------------------------- estimator variants
# Functional front ends that return an :class:`Estimate`, for benchmarks that compare every
# method on the same information: weighted rows, a fixed budget from a prior, on-line runs.


def hopfield_batch(
    Phi: Any,
    tau: Any,
    *,
    alpha: float | Sequence[float] | np.ndarray,
    beta: float = 1.0,
    n_joints: int | None = None,
    sigma: Any = None,
    S0: Any = None,
    t_final: float | None = None,
    n_tc: float = 30.0,
    scale: str = "mean",
    names: Sequence[str] | None = None,
    check: bool = True,
) -> Estimate:
    """The Hopfield network with constant ``W``, ``I`` run to rest or for a fixed time.

    * ``sigma`` given: ``Phi`` and ``tau`` are whitened first
      (:func:`robidlib.estimation.adaline.whiten_rows`), so the energy is the weighted
      least-squares cost and the equilibrium the WLS estimate;
    * ``t_final=None``: integrate for ``n_tc`` times the slowest time constant at ``S0``
      (:meth:`HopfieldEstimator.time_constants`): full convergence, the (W)LS estimate;
    * ``t_final=T``: a **fixed budget** of network time from ``S0`` (e.g. a CAD prior):
      like early-stopped gradient descent, poorly excited directions stay near ``S0``.

    Parameters
    ----------
    Phi : array_like, shape (r, p)
        Stacked (base) regressor, sample-major.
    tau : array_like, shape (r,)
        Stacked torques.
    alpha : float or array_like, shape (p,)
        Amplitudes (prior bounds, larger than any plausible ``|parameter|``).
    beta : float, default 1.0
        Slope parameter (a pure time scale).
    n_joints : int, optional
        Rows per sample; required with ``sigma``.
    sigma : float or array_like, shape (n_joints,), optional
        Per-joint noise standard deviations: weighted network.
    S0 : array_like, shape (p,), optional
        Initial state inside the box (default zeros), e.g. the prior.
    t_final : float, optional
        Network time budget (s, > 0); default ``n_tc`` slowest time constants.
    n_tc : float, default 30.0
        Number of slowest time constants of a run to rest.
    scale : {"mean", "sum"}, default "mean"
        Normalisation of ``W`` and ``I`` (see :class:`HopfieldEstimator`).
    names : sequence of str, optional
        Parameter names.
    check : bool, default True
        Warn when the least-squares solution is outside the box or states saturate.

    Returns
    -------
    Estimate
        ``method="hopfield"``; ``cov`` is the (weighted) least-squares covariance at the
        final state; ``info`` holds ``"alpha"``, ``"beta"``, ``"t_final"``,
        ``"budget"`` (the ``t_final`` asked for, or None) and ``"sigma_joint"``.

    Raises
    ------
    ValueError
        On bad data, ``sigma`` without ``n_joints``, a non-positive ``t_final`` or ``n_tc``,
        ``S0`` outside the box, or a regressor without full column rank.

    Warns
    -----
    SaturationWarning
        As :meth:`HopfieldEstimator.run`.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.hopfield import hopfield_batch
    >>> from robidlib.estimation.lsq import wls
    >>> rng = np.random.default_rng(0)
    >>> Phi = rng.normal(size=(400, 3))
    >>> tau = Phi @ [1.0, -2.0, 0.5] + np.tile([0.1, 1.0], 200) * rng.normal(size=400)
    >>> est = hopfield_batch(Phi, tau, alpha=5.0, n_joints=2, sigma=[0.1, 1.0])
    >>> bool(np.allclose(est.params, wls(Phi, tau, 2, weights=[0.1, 1.0]).params, rtol=1e-6))
    True
    """
    Phi = as_array("Phi", Phi, ndim=2)
    tau = as_array("tau", tau, ndim=1)
    if tau.shape[0] != Phi.shape[0]:
        raise ValueError(f"Phi has {Phi.shape[0]} rows but tau has {tau.shape[0]} entries; they must match")
    if Phi.size == 0:
        raise ValueError(f"Phi must have at least one row and one column, got shape {Phi.shape}")
    s, n = _joint_sigma(sigma, n_joints, Phi.shape[0])
    if s is not None:
        Phi, tau = whiten_rows(Phi, tau, n, s)
    net = HopfieldEstimator(alpha, beta, scale=scale, names=names, check=check)
    if t_final is None:
        k = check_positive("n_tc", n_tc)
        p = Phi.shape[1]
        S_lin = None if S0 is None else as_array("S0", S0, shape=(p,))
        alpha_p = net._alpha_for(p)
        if S_lin is not None and np.any(np.abs(S_lin) >= alpha_p):
            net._u0(S_lin, alpha_p)                       # raises the message about the box
        tc = net.time_constants(Phi, S_lin)
        if not np.isfinite(tc[0]):
            raise ValueError("Phi does not have full column rank: a direction is never excited, "
                             "the network has no unique rest point (use base parameters)")
        T = k * float(tc[0])
    else:
        T = check_positive("t_final", t_final)
    net.run(Phi, tau, (0.0, T), S0=S0, t_eval=np.array([0.0, T]))
    est = net.to_estimate(Phi, tau, names)
    info = dict(est.info, budget=None if t_final is None else T, sigma_joint=s)
    return Estimate(params=est.params, cov=est.cov, rel_std=est.rel_std, residual_std=est.residual_std,
                    rank=est.rank, cond=est.cond, names=est.names, method="hopfield", info=info)


def hopfield_online(
    Phi: Any,
    tau: Any,
    t: Any,
    *,
    alpha: float | Sequence[float] | np.ndarray,
    beta: float,
    sigma: Any = None,
    window: int | None = 1,
    forgetting: float = 1.0,
    S0: Any = None,
    scale: str = "mean",
    names: Sequence[str] | None = None,
    check: bool = True,
) -> Estimate:
    """The Hopfield network run on-line while the samples arrive, as an :class:`Estimate`.

    The default ``window=1`` is the paper's form (:cite:`urrea2017`, after
    :cite:`alonso2009`): on ``[t_k, t_{k+1})`` the network runs with the instantaneous
    ``W(t) = -Phi_k' Phi_k``, ``I(t) = Phi_k' tau_k`` of the current sample only (divided by
    the ``n`` rows of the sample with ``scale="mean"``), a continuous-time gradient
    estimator.  ``window=m`` sums the last ``m`` samples; ``window=None`` with
    ``forgetting < 1`` uses exponentially forgotten sums (see
    :meth:`HopfieldEstimator.run_online`).

    Parameters
    ----------
    Phi : array_like, shape (N, n, p) or (N, p)
        Regressor of each sample.
    tau : array_like, shape (N, n) or (N,)
        Torques of each sample.
    t : array_like, shape (N,)
        Strictly increasing sample times (s).
    alpha : float or array_like, shape (p,)
        Amplitudes (prior bounds).
    beta : float
        Slope parameter; with on-line data it sets how fast the network follows.
    sigma : float or array_like, shape (n,), optional
        Per-joint noise standard deviations (the rows of joint ``j`` are divided by it).
    window : int or None, default 1
        Samples in the statistics (1: the paper's instantaneous form).
    forgetting : float, default 1.0
        Forgetting factor, used when ``window=None``.
    S0 : array_like, shape (p,), optional
        Initial state (default zeros), e.g. the prior.
    scale : {"mean", "sum"}, default "mean"
        Normalisation of the statistics; ``"sum"`` is the paper's raw ``Phi'Phi``.
    names : sequence of str, optional
        Parameter names.
    check : bool, default True
        Saturation warnings.

    Returns
    -------
    Estimate
        ``method="hopfield-online"``: the state at the last sample, with the (weighted)
        least-squares covariance of all samples at it; ``info["history"]`` is a dict
        ``{"t": (N,), "S": (N, p)}`` (the estimate available at each sample time), plus
        ``"window"``, ``"forgetting"``, ``"alpha"``, ``"beta"`` and ``"sigma_joint"``.

    Raises
    ------
    ValueError
        As :meth:`HopfieldEstimator.run_online`, and on a bad ``sigma``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.hopfield import hopfield_online
    >>> rng = np.random.default_rng(3)
    >>> t = np.arange(400) * 0.02
    >>> Phi = rng.normal(size=(400, 2, 2))
    >>> tau = Phi @ np.array([1.0, -0.5])
    >>> est = hopfield_online(Phi, tau, t, alpha=3.0, beta=0.05)
    >>> bool(np.allclose(est.params, [1.0, -0.5], atol=1e-3)), est.info["history"]["S"].shape
    (True, (400, 2))
    """
    P, T = _samples(Phi, tau)
    N, n, p = P.shape
    s = _sample_sigma(sigma, n)
    if s is not None:
        P, T = P / s[None, :, None], T / s[None, :]
    net = HopfieldEstimator(alpha, beta, scale=scale, names=names, check=check)
    net.run_online(P, T, t, forgetting=forgetting, window=window, S0=S0)
    S_hist = net.history["S"]
    est = _estimate_at(P.reshape(-1, p), T.reshape(-1), S_hist[-1], names, "hopfield-online", {})
    info = {
        "history": {"t": net.history["t"], "S": S_hist}, "window": window, "forgetting": float(forgetting),
        "alpha": net._alpha_for(p), "beta": net.beta, "sigma_joint": s,
    }
    return Estimate(params=est.params, cov=est.cov, rel_std=est.rel_std, residual_std=est.residual_std,
                    rank=est.rank, cond=est.cond, names=est.names, method="hopfield-online", info=info)
