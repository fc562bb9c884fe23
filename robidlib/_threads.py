"""One BLAS thread by default, so that every way of running the book prints the same numbers.

The matrices of this book are small (a few hundred columns at most). For them a multi-threaded
BLAS is not faster, and it changes the order of floating-point sums from one machine, thread
count or OpenBLAS kernel to the next, so that JupyterLab, Binder, Colab and ``make`` would print
slightly different digits. Importing :mod:`robidlib` therefore limits every BLAS library that is
loaded (numpy's and scipy's OpenBLAS, MKL, ...) to one thread through ``threadpoolctl``.

Opt out, or choose another number, with the environment variable ``ROBIDLIB_BLAS_THREADS``
*before* importing robidlib: ``ROBIDLIB_BLAS_THREADS=4`` (four threads) or
``ROBIDLIB_BLAS_THREADS=off`` (leave the libraries as they are). At run time call
:func:`limit_blas_threads`.
"""

from __future__ import annotations

import os

ENV_VAR = "ROBIDLIB_BLAS_THREADS"
_OFF = {"off", "none", "no", "false"}

# The controller must see every BLAS library robidlib uses, so load them first.
import numpy as _np  # noqa: E402,F401
import scipy.linalg as _sla  # noqa: E402,F401

_limiter = None


def limit_blas_threads(n: int | None = 1) -> dict[str, int]:
    """Limit the BLAS libraries loaded in this process to ``n`` threads.

    Parameters
    ----------
    n : int or None, default 1
        Number of threads (a positive integer); ``None`` restores the limits that were in place
        before the first call.

    Returns
    -------
    dict
        ``{library file name: number of threads}`` of every BLAS library after the change.

    Raises
    ------
    TypeError
        If ``n`` is not an integer or ``None``.
    ValueError
        If ``n`` is smaller than 1.

    Examples
    --------
    >>> import robidlib
    >>> info = robidlib.limit_blas_threads(1)
    >>> all(v == 1 for v in info.values())
    True
    """
    global _limiter
    from threadpoolctl import threadpool_info, threadpool_limits

    if n is not None:
        if isinstance(n, bool) or not isinstance(n, (int, _np.integer)):
            raise TypeError(f"n must be a positive integer or None, got {type(n).__name__} {n!r}")
        if n < 1:
            raise ValueError(f"n must be a positive integer (number of BLAS threads), got {n}")
    if n is None:
        if _limiter is not None:
            _limiter.restore_original_limits()
            _limiter = None
    else:
        limiter = threadpool_limits(limits=int(n), user_api="blas")
        if _limiter is None:  # keep the first one: it remembers the original limits
            _limiter = limiter
    return {os.path.basename(i["filepath"]): int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"}


def _threads_from_env() -> int | None:
    """The thread count ``ROBIDLIB_BLAS_THREADS`` asks for (1 when unset, None for 'off')."""
    raw = os.environ.get(ENV_VAR, "1").strip().lower()
    if raw in _OFF:
        return None
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"{ENV_VAR} must be a positive integer or 'off', got {raw!r}") from None
    if n < 1:
        raise ValueError(f"{ENV_VAR} must be a positive integer or 'off', got {raw!r}")
    return n


def _apply_default() -> None:
    n = _threads_from_env()
    if n is not None:
        limit_blas_threads(n)
