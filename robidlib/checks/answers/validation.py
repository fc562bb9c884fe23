"""References of the chapter-9 checks (:mod:`robidlib.checks.validation`)."""

from __future__ import annotations

import numpy as np


def agreement_index() -> list[dict]:
    """Four predictions of one series, Willmott's d of each and three slips."""
    from ...validation import agreement_index

    rng = np.random.default_rng(20250707)
    o = np.sin(np.linspace(0.0, 6.0, 40)) * 3.0 + 1.0 + 0.3 * rng.normal(size=40)
    cases = [("a perfect prediction", o, o.copy()),
             ("the constant prediction p = mean(o)", o, np.full_like(o, o.mean())),
             ("a noisy prediction", o, o + 0.8 * rng.normal(size=40)),
             ("a biased, scaled prediction", o, 0.7 * o + 2.0)]
    out = []
    for label, oo, pp in cases:
        want = agreement_index(oo, pp)
        o_m = oo.mean()
        out.append({"label": label, "o": oo, "p": pp, "expected": want, "slips": {
            "plain_squares": 1 - np.sum((pp - oo) ** 2) / np.sum((pp - oo) ** 2 + (oo - o_m) ** 2),
            "no_absolute_values": 1 - np.sum((pp - oo) ** 2) / np.sum(((pp - o_m) + (oo - o_m)) ** 2),
            "one_minus_d": 1 - want}})
    return out


def parameter_error() -> list[dict]:
    """Four estimates with their symmetric relative errors (%) and two slips."""
    from ...validation import relative_parameter_error

    rng = np.random.default_rng(20250708)
    b = rng.normal(size=6) * [10.0, 1.0, 0.1, 1.0, 5.0, 0.01]
    cases = [("a close estimate", b * (1 + 0.05 * rng.normal(size=6)), b),
             ("an estimate with a sign error", b * [1, -1, 1, 1, 1, 1], b),
             ("a truth with a zero parameter", np.r_[b[:5], 0.3], np.r_[b[:5], 0.0]),
             ("an exact zero estimated as zero", np.r_[b[:5], 0.0], np.r_[b[:5], 0.0])]
    out = []
    for label, e, bb in cases:
        want = relative_parameter_error(e, bb)
        out.append({"label": label, "estimate": e, "truth": bb, "expected": want,
                    "slips": {"fraction": want / 100, "half": want / 2}})
    return out


def compute() -> dict:
    return {"agreement_index": agreement_index(), "parameter_error": parameter_error()}
