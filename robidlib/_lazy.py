"""Submodules imported on first access (PEP 562), for ``robidlib`` and ``robidlib.checks``."""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_submodules(package: str, names: tuple[str, ...],
                    namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package`` for lazy ``names``.

    ``package.name`` for a name in ``names`` imports ``package.name`` when first used (the
    import system then keeps it as an attribute of the package); any other unknown name
    raises ``AttributeError`` as usual. ``namespace`` is the package's ``globals()``.
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
