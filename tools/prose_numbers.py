"""Find the numbers a chapter's prose states that no computation of the book produced.

Every number in a markdown cell that results from a computation must come from
``myst_nb.glue`` (``{glue:text}`key:.2f```, ``{glue:math}``, ``{glue:figure}``); only inputs
by design may be written literally, and each of those is listed, with its reason, in the
chapter's allowlist: the notebook metadata entry ``prose_allowlist``::

    "prose_allowlist": [
        {"text": "0.02 s", "reason": "sampling period of the source paper (design input)"},
        {"text": "6 Hz", "reason": "cut-off chosen by design", "cells": ["cell-031"]}
    ]

``text`` is a number token exactly as this script prints it; ``cells`` (optional) restricts
the entry to those cell ids. An entry that matches nothing is reported too, so the list stays
short and true.

What counts as a number token (in text, inline math and display math; code spans, code
blocks, roles such as ``{cite:p}`` or ``{glue:text}``, link targets, directive options and
heading numbers are skipped): a decimal number (``0.5``, ``1e-3``, ``10^{-3}``), a number
followed by ``%`` (printed as ``27%``), a multiplication factor (``5x``, ``8×``, ``3-fold``, ``4 times``), or a
number followed by a unit (``20 s``, ``6 Hz``, ``12 bits``, ``1 kg``). Plain integers
(``N = 1000``, ``chapter 3``, ``10 dof``) are not flagged.

Usage::

    python tools/prose_numbers.py chapters/01_pendulum.ipynb [...]   # list what is flagged
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ALLOWLIST_KEY = "prose_allowlist"

UNITS = (
    "s ms us µs μs ns min h seconds second minutes hours Hz kHz MHz rad mrad rad/s deg degrees "
    "° N mN kN Nm N·m N m kg g m mm cm µm μm km m/s bit bits dB V mV A mA W kW J MB GB kB "
    "MiB GiB px samples/s"
).split()
# longest first so that "N m" wins over "N" and "ms" over "m"
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(set(UNITS) | {"N m"}, key=len, reverse=True))

_NUM = r"(?<![\w.\-^{])(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?"
_TOKEN = re.compile(
    rf"(?P<num>(?<![\w.])10\^\{{?[-+−]?\d+\}}?|(?:{_NUM})(?:\s*(?:\\times|×|x)\s*10\^\{{?[-+−]?\d+\}}?)?)"
    rf"(?P<tail>\s*%|\s*(?:x|×)(?![\w])|-?fold\b|\s+times\b|\s*(?:{_UNIT_ALT})(?![\w/]))?"
)

_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
# directives whose body is not prose
_CODE_DIRECTIVES = re.compile(r"^\{(code-block|code-cell|code|sourcecode|math|glue:figure|glue:math|figure|image|raw|eval-rst|bibliography)\}")
_ROLE = re.compile(r"\{[a-zA-Z][\w:+-]*\}`[^`]*`")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_HTML = re.compile(r"<!--.*?-->|<[^>]+>", re.S)
_LABEL = re.compile(r"^\s*\([\w.:-]+\)=\s*$", re.M)
_HEADING_NUMBER = re.compile(r"^(#{1,6}\s+)[\d.]+\s", re.M)
_DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:.*$", re.M)
_EQ_LABEL = re.compile(r"\$\$\s*\([\w.:-]+\)")


@dataclass(frozen=True)
class Token:
    """One number token of a markdown cell."""

    text: str
    cell: str
    context: str


def _strip_fences(src: str) -> str:
    """Drop the bodies of code blocks and math/figure directives; keep prose directives."""
    out, stack = [], []  # stack of (fence, keep_body)
    for line in src.splitlines():
        m = _FENCE.match(line.strip())
        if m:
            fence, info = m.group("fence"), m.group("info").strip()
            if stack and fence.startswith(stack[-1][0][0]) and len(fence) >= len(stack[-1][0]) and not info:
                stack.pop()
                out.append("")
                continue
            if info.startswith("{") and not _CODE_DIRECTIVES.match(info):
                stack.append((fence, True))
                # the directive's argument (its title) is prose
                out.append(re.sub(r"^\{[^}]*\}", "", info))
                continue
            stack.append((fence, False))
            out.append("")
            continue
        if stack and not stack[-1][1]:
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def _normalise_math(text: str) -> str:
    text = text.replace("\\%", "%").replace("{,}", ".").replace("{.}", ".")
    text = re.sub(r"\\(?:mathrm|text|textrm|operatorname|mathit)\{([^{}]*)\}", r" \1", text)
    text = re.sub(r"\\[,;:!]|~|\\ ", " ", text)
    text = text.replace("\\cdot", "·").replace("−", "-")
    return text.replace("$", " ")


def prose_text(src: str) -> str:
    """The part of a markdown cell that is scanned: prose and math, without markup."""
    text = _strip_fences(src)
    text = _HTML.sub(" ", text)
    text = _ROLE.sub(" ", text)
    text = _CODE_SPAN.sub(" ", text)
    text = _LINK_TARGET.sub("]", text)
    text = _LABEL.sub("", text)
    text = _DIRECTIVE_OPTION.sub("", text)
    text = _HEADING_NUMBER.sub(r"\1", text)
    text = _EQ_LABEL.sub("$$", text)
    return _normalise_math(text)


def tokens(src: str, cell: str = "") -> list[Token]:
    """Every number token of markdown source ``src`` that needs glue or an allowlist entry."""
    text = prose_text(src)
    found = []
    for m in _TOKEN.finditer(text):
        num, tail = m.group("num"), m.group("tail") or ""
        is_decimal = "." in num or "e" in num.lower() or "10^" in num
        if not (is_decimal or tail):
            continue
        tail_norm = re.sub(r"\s+", " ", tail).strip()
        token = num + ("" if tail_norm in {"%", "x", "×"} or tail_norm.startswith("-") or tail_norm == "fold" else " ") + tail_norm
        token = token.replace("−", "-").strip()
        ctx = re.sub(r"\s+", " ", text[max(0, m.start() - 40): m.end() + 25]).strip()
        found.append(Token(token, cell, ctx))
    return found


@dataclass(frozen=True)
class Finding:
    """A problem the check reports: an unglued number or a bad allowlist entry."""

    notebook: str
    cell: str
    message: str

    def __str__(self) -> str:
        return f"{self.notebook} {self.cell}: {self.message}"


def check_notebook(path: Path | str) -> list[Finding]:
    """Return every finding of one notebook (an empty list when its prose is clean)."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    allow = nb.metadata.get(ALLOWLIST_KEY, [])
    findings: list[Finding] = []
    if not isinstance(allow, list):
        return [Finding(path.name, "metadata", f"{ALLOWLIST_KEY} must be a list of entries, got {type(allow).__name__}")]
    entries = []
    for k, entry in enumerate(allow):
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str) or not str(entry.get("reason", "")).strip():
            findings.append(Finding(path.name, "metadata", f"{ALLOWLIST_KEY}[{k}] needs a 'text' and a non-empty 'reason': {entry!r}"))
            continue
        entries.append(entry)
    used = [False] * len(entries)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        cid = cell.get("id", f"#{i}")
        for tok in tokens(cell.source, cid):
            hit = False
            for k, entry in enumerate(entries):
                if entry["text"] == tok.text and ("cells" not in entry or cid in entry["cells"]):
                    used[k] = hit = True
            if not hit:
                findings.append(Finding(path.name, cid, f"{tok.text!r} is not glued and not in the allowlist  [... {tok.context} ...]"))
    for k, entry in enumerate(entries):
        if not used[k]:
            findings.append(Finding(path.name, "metadata", f"allowlist entry {entry['text']!r} matches no number of the prose: remove it"))
    return findings


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    bad = 0
    for arg in argv:
        for f in check_notebook(arg):
            print(f)
            bad += 1
    print(f"{bad} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
