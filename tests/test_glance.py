"""The code shown on the 'robidlib at a glance' page runs and does what the page says."""
import re
from pathlib import Path

import numpy as np

PAGE = Path(__file__).resolve().parents[1] / "robidlib_glance.md"


def test_glance_example_runs_and_recovers_base_parameters():
    block = re.search(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S).group(1)
    ns: dict = {}
    exec(compile(block, str(PAGE), "exec"), ns)
    est, bp, robot = ns["est"], ns["bp"], ns["robot"]
    assert bp.rank == 36
    np.testing.assert_allclose(est.params, bp.beta(robot.params), rtol=1e-9, atol=1e-9)
