"""Recompute and store the filter runs that chapter 8 loads (robidlib/data/filter_runs/).

    python tools/store_filter_runs.py

The 5-DOF arm of the source paper (Urrea and Pascal 2017, sec. 4.4) identified by the
augmented-state EKF from 10 s of noisy joint positions: Euler with the held torque at
dt = 0.02 s (the paper's filter) and RK4 with the interpolated torque (the book's). The
excitation is a hand-chosen Fourier series (three harmonics of 0.2 Hz) inside the arm's joint,
speed, acceleration and force limits; ``tests/test_records.py`` re-runs the stored recipe and
compares. Takes about 10 s.
"""
from __future__ import annotations

import numpy as np

from robidlib.estimation.records import RUNS_DIR, save_filter_runs, simulate_identification
from robidlib.models import redundant_5dof
from robidlib.trajectories import FourierTrajectory


def excitation_5dof() -> FourierTrajectory:
    """Three harmonics of 0.2 Hz per joint (m for the prismatic joints 1 and 5, rad otherwise)."""
    return FourierTrajectory(
        wf=2 * np.pi * 0.2,
        a=[[0.06, 0.03, -0.02], [0.8, -0.4, 0.3], [0.5, 0.3, -0.2], [0.9, -0.5, 0.3],
           [0.03, -0.02, 0.015]],
        b=[[0.04, -0.03, 0.02], [0.3, 0.5, -0.3], [-0.4, 0.2, 0.3], [0.3, 0.4, -0.3],
           [-0.02, 0.03, 0.01]],
        q0=[0.25, 0.0, 0.3, -0.5, 0.1],
    )


def main() -> None:
    result = simulate_identification(redundant_5dof(), excitation_5dof(), duration=10.0, dt=0.02,
                                     sigma_q=1e-3, cad_error=0.1, seed=7)
    # the shipped file, in the project's source tree: named and replaced explicitly
    path = save_filter_runs(result, "redundant_5dof_ekf", directory=RUNS_DIR, overwrite=True)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
