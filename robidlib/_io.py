"""The one place where robidlib writes files: where the caller says, never into the installed package.

Every writer of robidlib (stored excitations, filter runs, study tables, and any exporter
added later) goes through :func:`write_text`, which

* writes only to the path the caller gives (no writer has a default destination);
* refuses a destination inside the *installed* robidlib package (a wheel or a system-wide
  install: its files are not the user's to change, ``pip uninstall`` would leave the new ones
  behind, and the folder may be read-only). A source checkout (the project's repository, whose
  ``pyproject.toml`` sits beside the package) is where the shipped data are made: the
  ``tools/store_*.py`` recipes write there, naming the file and ``overwrite=True``;
* refuses to replace an existing file unless ``overwrite=True``;
* never creates a missing folder: it refuses with an error naming the folder (create it
  first). A writer whose documented behaviour is to create its output folder (the
  identification command's ``--out``, the student edition's answers) does it through
  :func:`make_folder`, under the same rule about the installed package;
* creates a new file exclusively (a file that appears meanwhile is not replaced) and
  replaces one (``overwrite=True``) through a temporary file renamed over it, so that a
  failure never leaves half a file.

``tests/test_io.py`` checks these rules and that no other module of robidlib writes a file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

__all__ = ["package_dir", "is_source_checkout", "destination", "write_text", "make_folder"]


def package_dir() -> Path:
    """The folder of the robidlib package (symbolic links resolved)."""
    return Path(__file__).resolve().parent


def is_source_checkout(pkg: Path | None = None) -> bool:
    """Whether ``pkg`` (default robidlib's folder) is the project's source tree, not an install.

    True when the folder above it holds the ``pyproject.toml`` of the project ``robidlib``
    (a clone of the repository, possibly installed in editable mode); a wheel installed in
    ``site-packages`` (or anywhere else) has no such file beside it.
    """
    pkg = package_dir() if pkg is None else pkg
    try:
        text = (pkg.parent / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return False
    return 'name = "robidlib"' in text


def destination(path: Any, name: str = "path") -> Path:
    """Check a destination given by a caller and return it as an absolute :class:`~pathlib.Path`.

    Raises
    ------
    TypeError
        If ``path`` is not a str or os.PathLike (None included: a writer has no default).
    ValueError
        If it is empty, or lies inside the installed robidlib package.
    """
    if path is None:
        raise TypeError(f"{name} must be given (a str or os.PathLike): robidlib writes only where you say, "
                        "never into its own installed package")
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__} {path!r}")
    if os.fspath(path) == "":
        raise ValueError(f"{name} must be a non-empty path, got ''")
    full = Path(os.path.abspath(path))
    pkg = package_dir()
    try:
        resolved = full.parent.resolve() / full.name      # symbolic links into the package count too
    except OSError:  # pragma: no cover - an unreadable parent: the write fails later
        resolved = full
    if (resolved == pkg or pkg in resolved.parents) and not is_source_checkout(pkg):
        raise ValueError(
            f"{name} {os.fspath(path)!r} is inside the installed robidlib package ({pkg}); its files are not "
            "yours to change (and pip uninstall would leave new ones behind): write to a folder of your own"
        )
    return full


def write_text(path: Any, text: str, *, overwrite: bool = False, name: str = "path") -> Path:
    """Write ``text`` (UTF-8) to ``path`` under the module's rules; return the absolute path.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write. Its folder must exist.
    text : str
    overwrite : bool, default False
        Replace an existing file. Without it an existing file is an error.
    name : str, default "path"
        The caller's name of the argument, for the messages.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TypeError
        ``path`` not a path, ``text`` not a str, ``overwrite`` not a bool.
    ValueError
        ``path`` inside the installed robidlib package, or naming a folder.
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    FileNotFoundError
        The folder of ``path`` does not exist (it is not created).
    """
    if not isinstance(overwrite, (bool,)):
        raise TypeError(f"overwrite must be True or False, got {type(overwrite).__name__} {overwrite!r}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    full = destination(path, name)
    folder = full.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"the folder {str(folder)!r} of {name} does not exist; create it first "
                                "(robidlib does not create folders for you)")
    if full.is_dir():
        raise ValueError(f"{name} {str(full)!r} is a folder; expected a file name")
    if not overwrite:
        try:
            fh = open(full, "x", encoding="utf-8", newline="")      # exclusive: never replaces a file
        except FileExistsError:
            raise FileExistsError(f"the file {str(full)!r} exists; pass overwrite=True to replace it") from None
        try:
            with fh:
                fh.write(text)
        except BaseException:
            full.unlink(missing_ok=True)
            raise
        return full
    tmp = folder / f".{full.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8", newline="") as fh:   # the umask's permissions, like open()
            fh.write(text)
        os.replace(tmp, full)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return full


def make_folder(path: Any, name: str = "path") -> Path:
    """Create the folder ``path`` (and its missing parents) for a writer documented to create it.

    Returns the absolute path; an existing folder is fine.

    Raises
    ------
    TypeError
        If ``path`` is not a str or os.PathLike.
    ValueError
        If it lies inside the installed robidlib package, or exists and is not a folder.
    """
    full = destination(path, name)
    if full.exists() and not full.is_dir():
        raise ValueError(f"{name} {str(full)!r} exists and is not a folder; expected a folder")
    full.mkdir(parents=True, exist_ok=True)
    return full
