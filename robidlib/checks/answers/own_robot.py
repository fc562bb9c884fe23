"""References of the chapter-13 checks (:mod:`robidlib.checks.own_robot`)."""

from __future__ import annotations


def statements() -> dict:
    """The four statements about the TIAGo report: whether each is true, a hint and why."""
    return {
        "A": {"true": False,
              "hint": "the kept-only figure leaves out the samples near zero velocity, where the friction "
                      "model is weakest: a figure that moves with the velocity thresholds cannot rank settings",
              "why": "the kept-only error is the flattering variant, named as such"},
        "B": {"true": False,
              "hint": "compare the wrist's torque spread with its error std: is there anything to predict?",
              "why": "joints 5-7 carry no signal; their relative error says nothing about the model"},
        "C": {"true": True,
              "hint": "the report's 'torques against the CAD model' gives the efforts about 0.03-0.1 times "
                      "the CAD torques: what are the identified parameters then?",
              "why": "the efforts carry an unknown scale per joint, and so do the identified parameters"},
        "D": {"true": True,
              "hint": "the consistent estimate is what gets exported; is it as good as WLS on held-out data?",
              "why": "the consistent model predicts as well as WLS and is the one exported"},
    }


def compute() -> dict:
    return {"statements": statements()}
