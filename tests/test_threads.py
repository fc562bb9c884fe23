"""robidlib limits BLAS to one thread on import, unless ROBIDLIB_BLAS_THREADS says otherwise."""
import json
import os
import subprocess
import sys

import pytest

import robidlib

PROBE = (
    "import json, robidlib\n"
    "from threadpoolctl import threadpool_info\n"
    "print(json.dumps([i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']))\n"
)


def _threads(env_value):
    env = {k: v for k, v in os.environ.items() if k != "ROBIDLIB_BLAS_THREADS"}
    env.pop("OPENBLAS_NUM_THREADS", None)   # make's default; the import must not rely on it
    if env_value is not None:
        env["ROBIDLIB_BLAS_THREADS"] = env_value
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def test_import_limits_every_blas_library_to_one_thread():
    code, out, err = _threads(None)
    assert code == 0, err
    counts = json.loads(out)
    assert counts and all(n == 1 for n in counts)


def test_environment_variable_chooses_the_count():
    code, out, err = _threads("2")
    assert code == 0, err
    assert all(n == 2 for n in json.loads(out))


def test_environment_variable_off_leaves_the_libraries_alone():
    code, out, err = _threads("off")
    assert code == 0, err
    assert json.loads(out)          # still reports the libraries, at their own defaults


@pytest.mark.parametrize("bad", ["0", "-3", "many"])
def test_bad_environment_value_is_a_clear_error(bad):
    code, _, err = _threads(bad)
    assert code != 0 and "ROBIDLIB_BLAS_THREADS" in err and repr(bad) in err


def test_limit_blas_threads_at_run_time():
    info = robidlib.limit_blas_threads(2)
    assert all(n == 2 for n in info.values())
    info = robidlib.limit_blas_threads(1)
    assert all(n == 1 for n in info.values())


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-1, ValueError), (1.5, TypeError), ("1", TypeError), (True, TypeError)])
def test_limit_blas_threads_bad_input(bad, exc):
    with pytest.raises(exc, match="n must be a positive integer"):
        robidlib.limit_blas_threads(bad)
