"""Compile robidlib's per-sample loops with numba, in any install.

Every numba-compiled function of robidlib goes through :func:`compiled`, which decides, once
per process and at the first compilation, where numba's on-disk cache goes:

1. ``NUMBA_CACHE_DIR`` (the environment variable, else numba's own setting of it), where
   numba itself would put it;
2. else the user's cache directory: ``$XDG_CACHE_HOME/robidlib/numba`` or
   ``~/.cache/robidlib/numba`` (``~/Library/Caches/robidlib/numba`` on macOS,
   ``%LOCALAPPDATA%/robidlib/numba`` on Windows) -- never the installed package (numba's
   default writes ``__pycache__`` beside the source, into site-packages, where
   ``pip uninstall`` leaves it behind, and fails outright when that folder and the home
   directory are read-only);
3. else ``<temporary directory>/robidlib-<uid>/numba``, a folder private to the user (created
   with mode 700; one that exists with another owner or writable by others is refused: numba's
   cache holds pickles, which would run another user's code);
4. else nowhere: the function is compiled in memory, in every process that uses it (a couple
   of seconds each time).

The first of them that can be created and written is used; :func:`cache_dir` tells which.
Nothing is set in ``os.environ`` or in numba's configuration: the user's own numba code keeps
numba's defaults. When numba is missing, or disabled with ``NUMBA_DISABLE_JIT=1`` (read
from the environment when :func:`compiled` first runs, or from numba's configuration),
:func:`compiled` returns None and the caller runs its plain-Python or numpy version, which
gives the same numbers (the tests compare them).
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

_log = logging.getLogger(__name__)

__all__ = ["cache_dir", "compiled", "jit_enabled"]


def jit_enabled() -> bool:
    """Whether numba is importable and not disabled (``NUMBA_DISABLE_JIT``).

    Returns
    -------
    bool
        False when ``NUMBA_DISABLE_JIT`` is a non-zero integer in the environment (numba is
        then not even imported), when numba cannot be imported, or when numba's own
        configuration disables it; True otherwise.

    Examples
    --------
    >>> isinstance(jit_enabled(), bool)
    True
    """
    try:
        if int(os.environ.get("NUMBA_DISABLE_JIT", "0") or "0"):
            return False
    except ValueError:  # numba ignores a value that is not an integer (with a warning)
        pass
    try:
        import numba
    except ImportError:
        return False
    return not numba.config.DISABLE_JIT


def compiled(func: Callable[..., Any], signature: str) -> Callable[..., Any] | None:
    """``func`` compiled by numba for ``signature``, cached on disk where possible; or None.

    Compiles ``func`` (plain Python that numba's nopython mode accepts) for exactly one
    signature, releasing the GIL, and caches the machine code in :func:`cache_dir` (loaded
    from there by later processes); without a usable folder it compiles in memory. Call it
    once per function and keep the result (``functools.cache``).

    Parameters
    ----------
    func : callable
        A Python function defined in a source file.
    signature : str
        numba signature, e.g. ``"void(f8[:, ::1], f8[:, :, ::1])"``; arrays must then be
        passed with exactly these types and layouts (the dispatcher compiles nothing else).

    Returns
    -------
    callable or None
        The numba dispatcher, or None when :func:`jit_enabled` is False: the caller then
        runs its uncompiled version.

    Raises
    ------
    TypeError
        If ``func`` is not a Python function or ``signature`` not a string.

    Examples
    --------
    >>> import numpy as np
    >>> def total(x, out):
    ...     s = 0.0
    ...     for v in x:
    ...         s += v
    ...     out[0] = s
    >>> f = compiled(total, "void(f8[::1], f8[::1])") or total
    >>> out = np.zeros(1)
    >>> f(np.arange(4.0), out)
    >>> float(out[0])
    6.0
    """
    if not callable(func) or not hasattr(func, "__code__"):
        raise TypeError(f"func must be a Python function, got {type(func).__name__}")
    if not isinstance(signature, str):
        raise TypeError(f"signature must be a numba signature string, got {type(signature).__name__}")
    if not jit_enabled():
        return None
    import numba

    root = cache_dir()
    if root is not None:
        try:
            disp = numba.njit(nogil=True)(func)
            disp._cache = _function_cache(str(root))(func)  # what Dispatcher.enable_caching does
            disp.compile(signature)
            disp.disable_compile()
            return disp
        except Exception as exc:  # noqa: BLE001 - an unusable cache (numba's internals, the disk): no cache
            _log.info("robidlib: numba cache in %s unusable (%s: %s); compiling %s in memory",
                      root, type(exc).__name__, exc, func.__qualname__)
    return numba.njit(signature, nogil=True)(func)


@functools.cache
def _function_cache(root: str) -> type:
    """numba's ``FunctionCache`` with one locator: ``root`` (subfolders as numba names them)."""
    from numba.core import caching

    class Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self) -> str:
            return self._cache_path

    class Impl(caching.CompileResultCacheImpl):
        _locator_classes = [Locator]

    class Cache(caching.FunctionCache):
        _impl_class = Impl

    return Cache


@functools.cache
def cache_dir() -> Path | None:
    """The folder of robidlib's numba cache in this process, or None (compiled in memory).

    Decided once, at the first call (the first compilation), from the environment at that
    moment; see the module docstring for the order of the candidates.

    Returns
    -------
    pathlib.Path or None
        An existing folder this process can write, or None when there is none.

    Examples
    --------
    >>> d = cache_dir()
    >>> d is None or d.is_dir()
    True
    """
    for path, private in _candidates():
        if _usable(path, private):
            _log.debug("robidlib: numba cache in %s", path)
            return path
    _log.info("robidlib: no writable folder for numba's cache; compiling in memory")
    return None


def _candidates() -> list[tuple[Path, bool]]:
    """``(folder, private)`` in order of preference; ``private``: the per-user temp folder."""
    out = []
    numba_dir = os.environ.get("NUMBA_CACHE_DIR", "")
    if not numba_dir and "numba" in sys.modules:
        numba_dir = getattr(sys.modules["numba"].config, "CACHE_DIR", "") or ""
    if numba_dir:
        out.append((Path(numba_dir), False))
    user = _user_cache_root()
    if user is not None:
        out.append((user / "robidlib" / "numba", False))
    uid = os.getuid() if hasattr(os, "getuid") else None
    tmp = Path(tempfile.gettempdir()) / ("robidlib" if uid is None else f"robidlib-{uid}")
    out.append((tmp / "numba", True))
    return out


def _user_cache_root() -> Path | None:
    """The platform's per-user cache folder (XDG on Linux), or None without a home."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative path is ignored
        return Path(xdg)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    try:
        home = Path.home()
    except (RuntimeError, KeyError):  # no HOME and no password-database entry
        return None
    return home / "Library" / "Caches" if sys.platform == "darwin" else home / ".cache"


def _usable(path: Path, private: bool) -> bool:
    """Create ``path`` if needed and check that a file can be written in it.

    ``private``: its parent is ``robidlib-<uid>`` in a shared temporary folder: it is created
    with mode 700, and refused unless it is a real folder (not a link) owned by this user and
    not writable by others.
    """
    try:
        if private:
            parent = path.parent
            try:
                parent.mkdir(mode=0o700)
            except FileExistsError:
                pass
            st = os.lstat(parent)
            if not stat.S_ISDIR(st.st_mode):
                return False
            if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
                return False
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True
