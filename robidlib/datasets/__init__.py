"""Real data sets shipped with robidlib, with loaders that verify checksums.

* :func:`staubli_tx40` -- a Staubli TX40 six-axis arm during an identification experiment
  (45 000 samples at 5 kHz of motor positions and motor torque signals), its URDF and
  FIGAROH's settings; Apache-2.0 (see the data card ``data/staubli_tx40/README.md``).
* :func:`tiago` -- a PAL Robotics TIAGo, torso lift and 7-joint arm (80 s at about 100 Hz with
  jittered stamps: positions, measured velocities, efforts), its URDF, FIGAROH's settings and
  published base parameters (:func:`tiago_published`); Apache-2.0 (data card
  ``data/tiago/README.md``).
"""

from .staubli_tx40 import (
    JOINT_OFFSETS,
    StaubliTX40,
    compare_with_published,
    data_dir,
    staubli_tx40,
    staubli_tx40_published,
    to_figaroh_convention,
    verify_files,
)
from .tiago import (
    TIAGO_FILES,
    TIAGO_JOINTS,
    Tiago,
    compare_tiago_with_published,
    figaroh_to_ours,
    tiago,
    tiago_data_dir,
    tiago_published,
    tiago_robot,
    verify_tiago_files,
)

__all__ = [
    "JOINT_OFFSETS",
    "TIAGO_FILES",
    "TIAGO_JOINTS",
    "Tiago",
    "StaubliTX40",
    "compare_tiago_with_published",
    "compare_with_published",
    "data_dir",
    "figaroh_to_ours",
    "staubli_tx40",
    "staubli_tx40_published",
    "tiago",
    "tiago_data_dir",
    "tiago_published",
    "tiago_robot",
    "to_figaroh_convention",
    "verify_files",
    "verify_tiago_files",
]
