"""Checks of the exercises of chapter 8 (kinematically consistent data, mixed coordinates)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from scipy.spatial.transform import Rotation

from ..multibody.body import generic_mass_matrix, reduced_to_full
from ..multibody.system import MultibodySystem
from ._report import report as _report

__all__ = [
    "check_reduced_to_full",
    "check_body_mass_matrix",
    "check_weight_scaling",
    "check_consistent_velocities",
]


def _call(func: Callable, *args: Any) -> tuple[np.ndarray | None, str]:
    """Run the student's function; return its result as floats, or a message."""
    try:
        return np.asarray(func(*args), dtype=float), ""
    except Exception as exc:  # the student's code failed: say how
        return None, f"your function raised {type(exc).__name__}: {exc}"


def check_reduced_to_full(func: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Check a function that rebuilds ``[O, u, v, w]`` from the reduced ``[O, u, v]``.

    The expected map is ``w = S(u) V q_r = u x v`` (right-handed frame), the other nine
    coordinates unchanged.  It is tried on random body frames.

    Parameters
    ----------
    func : callable
        ``func(q_reduced)`` taking an array of shape (9,) and returning shape (12,).

    Returns
    -------
    bool
        Whether the answer is right (a message says what is wrong otherwise).

    Raises
    ------
    TypeError
        If ``func`` is not callable.

    Examples
    --------
    >>> import numpy as np
    >>> check_reduced_to_full(lambda q: np.r_[q, np.cross(q[3:6], q[6:9])])
    ✔ w = u x v rebuilds a right-handed body frame
    True
    """
    if not callable(func):
        raise TypeError(f"func must be a function of q_reduced (shape (9,)), got {type(func).__name__}")
    rng = np.random.default_rng(20250806)
    R = Rotation.random(5, random_state=rng).as_matrix()
    O = rng.uniform(-1.0, 1.0, (5, 3))
    for k in range(5):
        q9 = np.r_[O[k], R[k, :, 0], R[k, :, 1]]
        got, msg = _call(func, q9.copy())
        if got is None:
            return _report(False, msg)
        if got.shape != (12,):
            return _report(False, f"the result must have shape (12,) = [O, u, v, w], got {got.shape}")
        expected = reduced_to_full(q9)
        if not np.allclose(got[:9], q9, atol=1e-12):
            return _report(False, "the first nine coordinates [O, u, v] must be returned unchanged")
        if np.allclose(got[9:], -expected[9:], atol=1e-9):
            return _report(False, "w has the wrong sign: w = u x v makes (u, v, w) right-handed")
        if not np.allclose(got[9:], expected[9:], atol=1e-9):
            return _report(False, "w must be the cross product u x v = S(u) v")
    return _report(True, "w = u x v rebuilds a right-handed body frame")


def check_body_mass_matrix(func: Callable[[float, np.ndarray], np.ndarray]) -> bool:
    """Check the 12 x 12 mass matrix of a generic rigid body with ``O`` at its centre of mass.

    With ``u, v, w`` along the principal axes the matrix is
    ``diag(m I3, J_u I3, J_v I3, J_w I3)`` with ``J_u = (I_yy + I_zz - I_xx) / 2`` and cyclic.

    Parameters
    ----------
    func : callable
        ``func(mass, inertia)`` with ``mass`` in kg and ``inertia`` the three principal
        moments ``[I_xx, I_yy, I_zz]`` about the centre of mass (kg m^2); returns (12, 12).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``func`` is not callable.

    Examples
    --------
    >>> import numpy as np
    >>> def M(m, I):
    ...     J = (np.sum(I) - 2 * np.asarray(I)) / 2
    ...     return np.diag(np.repeat(np.r_[m, J], 3))
    >>> check_body_mass_matrix(M)
    ✔ the generic-rigid-body mass matrix is right (constant and diagonal)
    True
    """
    if not callable(func):
        raise TypeError(f"func must be a function of (mass, inertia), got {type(func).__name__}")
    bodies = [(2.0, np.array([0.016, 0.015, 0.004])), (2.5, np.array([0.003, 0.036, 0.035])),
              (0.6, np.array([0.0006, 0.0007, 0.0008]))]
    for m, inertia in bodies:
        got, msg = _call(func, m, inertia.copy())
        if got is None:
            return _report(False, msg)
        if got.shape != (12, 12):
            return _report(False, f"the mass matrix must have shape (12, 12), got {got.shape}")
        expected = generic_mass_matrix(m, np.zeros(3), np.diag(inertia))
        if not np.allclose(got[:3, :3], m * np.eye(3), rtol=1e-9, atol=1e-14):
            return _report(False, "the block of O must be m I3 (O is the centre of mass)")
        if np.allclose(np.diag(got)[3::3], inertia, rtol=1e-9, atol=1e-14):
            return _report(False, "the blocks of u, v, w are not the moments of inertia: they are "
                                  "second moments, J_u = int a^2 dm = (I_yy + I_zz - I_xx) / 2")
        if not np.allclose(got, expected, rtol=1e-9, atol=1e-14):
            return _report(False, f"the matrix differs from diag(m I3, J_u I3, J_v I3, J_w I3) "
                                  f"for m = {m}, I = {inertia.tolist()}")
    return _report(True, "the generic-rigid-body mass matrix is right (constant and diagonal)")


def check_weight_scaling(weights: Any, violations: Any) -> bool:
    """Check that the topological violation of NRM-WLS shrinks in proportion to the weight.

    The slope of ``log(violation)`` against ``log(weight)`` over the weights ``<= 1e-2`` must
    be between 0.85 and 1.15 (first-order optimality gives ``Phi_T = O(weight)``).

    Parameters
    ----------
    weights : array_like, shape (k,)
        Weights of the tracking rows, at least three of them ``<= 1e-2``.
    violations : array_like, shape (k,)
        Largest topological violation obtained with each weight.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If the inputs are not numeric sequences of the same length.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.logspace(-1, -5, 5)
    >>> check_weight_scaling(w, 0.02 * w)
    ✔ violation ~ weight^1.00 for weights <= 1e-2: halving the weight halves the violation
    True
    """
    try:
        w = np.asarray(weights, dtype=float)
        v = np.asarray(violations, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("weights and violations must be numeric sequences, got "
                        f"{type(weights).__name__} and {type(violations).__name__}") from None
    if w.ndim != 1 or v.shape != w.shape:
        raise TypeError(f"weights and violations must be 1-D of the same length, got shapes "
                        f"{w.shape} and {v.shape}")
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(v)) and np.all(w > 0) and np.all(v > 0)):
        return _report(False, "weights and violations must be positive and finite")
    small = w <= 1e-2
    if np.count_nonzero(small) < 3 or np.unique(w[small]).size < 3:
        return _report(False, f"give at least three different weights <= 1e-2, got {np.unique(w[small]).tolist()}")
    slope = float(np.polyfit(np.log10(w[small]), np.log10(v[small]), 1)[0])
    ok = 0.85 <= slope <= 1.15
    return _report(ok, f"violation ~ weight^{slope:.2f} for weights <= 1e-2"
                   + (": halving the weight halves the violation" if ok else
                      "; expected an exponent near 1 (did you take the topological rows only?)"))


def check_consistent_velocities(system: Any, q: Any, qd: Any, angle_rates: Any) -> bool:
    """Check a velocity analysis: ``Phi_q(q) qd = 0`` and the angle rates are the prescribed ones.

    Parameters
    ----------
    system : MultibodySystem
    q, qd : array_like, shape (n,) or (N, n)
        Consistent positions and the velocities to check.
    angle_rates : array_like, shape (na,) or (N, na)
        The prescribed rates of the angle coordinates.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem or an input is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models, solve_velocities
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.02)
    >>> qd = solve_velocities(m.system, ref.q, angle_rates=ref.phid)
    >>> check_consistent_velocities(m.system, ref.q, qd, ref.phid)
    ✔ Phi_q qd = 0 and the angle rates match in all 3 frame(s): the velocities are consistent
    True
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    try:
        q2 = np.atleast_2d(np.asarray(q, dtype=float))
        qd2 = np.atleast_2d(np.asarray(qd, dtype=float))
        rates = np.atleast_2d(np.asarray(angle_rates, dtype=float))
    except (TypeError, ValueError):
        raise TypeError("q, qd and angle_rates must be numeric arrays") from None
    n, na = system.n_coords, len(system.angle_names)
    if q2.ndim != 2 or q2.shape[1] != n:
        return _report(False, f"q must have shape (N, {n}), got {np.shape(q)}")
    if qd2.shape != q2.shape:
        return _report(False, f"qd must have the shape of q {q2.shape}, got {np.shape(qd)}")
    if rates.shape != (q2.shape[0], na):
        return _report(False, f"angle_rates must have shape ({q2.shape[0]}, {na}), got {np.shape(angle_rates)}")
    if not np.all(np.isfinite(qd2)):
        return _report(False, "qd contains NaN or inf")
    worst_phi = worst_rate = 0.0
    for k in range(q2.shape[0]):
        scale = max(1.0, float(np.abs(qd2[k]).max()))
        worst_phi = max(worst_phi, float(np.abs(system.jacobian(q2[k]) @ qd2[k]).max()) / scale)
        worst_rate = max(worst_rate, float(np.abs(qd2[k, system.angle_slice] - rates[k]).max()) / scale)
    if worst_rate > 1e-8:
        return _report(False, f"the angle rates of qd differ from the prescribed ones by up to {worst_rate:.3g} "
                              "(relative): add the driver rows d(theta)/dt = rate")
    if worst_phi > 1e-8:
        return _report(False, f"Phi_q qd = 0 is violated by up to {worst_phi:.3g} (relative): the "
                              "velocities are not consistent with the joints")
    return _report(True, f"Phi_q qd = 0 and the angle rates match in all {q2.shape[0]} frame(s): "
                         "the velocities are consistent")
