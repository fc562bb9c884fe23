"""Write chapters/12_closed_loop.ipynb from the cell list below (a development aid; the notebook is the source)."""
import json
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CELLS = []


def md(src, tags=()):
    CELLS.append(("markdown", src.strip("\n"), list(tags)))


def code(src, tags=()):
    CELLS.append(("code", src.strip("\n"), list(tags)))


exec(open(sys.argv[1]).read())

nb = nbformat.v4.new_notebook()
for i, (kind, src, tags) in enumerate(CELLS):
    c = nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
    c["id"] = f"cell-{i:03d}"
    if tags:
        c["metadata"]["tags"] = tags
    nb.cells.append(c)
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
               "language_info": {"name": "python"},
               "prose_allowlist": json.loads(open(sys.argv[2]).read())}
nbformat.write(nb, ROOT / "chapters" / "12_closed_loop.ipynb")
print(len(CELLS), "cells")
