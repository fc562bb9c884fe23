"""Where the identification command may write: never into robidlib, never over a file unasked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def _package_dir() -> Path:
    import robidlib

    return Path(robidlib.__file__).resolve().parent


def check_out_dir(directory: Any, *, create: bool, name: str = "directory") -> Path:
    """An output folder outside the installed robidlib package (created when ``create``).

    Raises
    ------
    TypeError
        ``directory`` not a path.
    ValueError
        A folder inside the robidlib package (data and code a reinstall would replace, and
        often read-only).
    FileNotFoundError
        A missing folder when ``create`` is False.
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(directory).__name__}")
    folder = Path(directory).expanduser().resolve()
    pkg = _package_dir()
    if folder == pkg or pkg in folder.parents:
        raise ValueError(f"{name} {str(folder)!r} is inside the installed robidlib package; write "
                         "results and copies somewhere of your own")
    if not folder.exists():
        if not create:
            raise FileNotFoundError(f"{name} {str(folder)!r} does not exist")
        from .._io import make_folder

        make_folder(folder, name)
    elif not folder.is_dir():
        raise ValueError(f"{name} {str(folder)!r} exists and is not a folder")
    return folder


def refuse_existing(paths: list[Path], overwrite: bool) -> None:
    """Raise if any of ``paths`` exists and ``overwrite`` is False, naming them all."""
    if overwrite:
        return
    there = [str(p) for p in paths if p.exists()]
    if there:
        raise ValueError(f"{len(there)} output file(s) exist already ({', '.join(there[:4])}"
                         f"{', ...' if len(there) > 4 else ''}); pass overwrite=True (--overwrite) to replace them")
