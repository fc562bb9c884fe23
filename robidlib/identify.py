"""``python -m robidlib.identify CONFIG.toml --out DIR``: the identification command.

The same as the console script ``robidlib-identify``; see
:func:`robidlib.identification.command.main` and ``--help``.
"""

import sys

from .identification.command import main

__all__ = ["main"]

if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())
