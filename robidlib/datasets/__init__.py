"""Real data sets shipped with robidlib, with loaders that verify checksums.

* :func:`staubli_tx40` -- a Staubli TX40 six-axis arm during an identification experiment
  (45 000 samples at 5 kHz of motor positions and motor torque signals), its URDF and
  FIGAROH's settings; Apache-2.0 (see the data card ``data/staubli_tx40/README.md``).
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

__all__ = [
    "JOINT_OFFSETS",
    "StaubliTX40",
    "compare_with_published",
    "data_dir",
    "staubli_tx40",
    "staubli_tx40_published",
    "to_figaroh_convention",
    "verify_files",
]
