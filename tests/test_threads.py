"""robidlib limits BLAS to one thread on import, unless ROBIDLIB_BLAS_THREADS says otherwise."""
import json
import os
import subprocess
import sys
from importlib.metadata import files

import pytest

import robidlib

PROBE = (
    "import json, robidlib\n"
    "from threadpoolctl import threadpool_info\n"
    "print(json.dumps([i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']))\n"
)
# the file and thread count of every BLAS library threadpoolctl finds
PROBE_FILES = (
    "import json, os, robidlib\n"
    "from threadpoolctl import threadpool_info\n"
    "print(json.dumps({os.path.realpath(i['filepath']): i['num_threads'] for i in threadpool_info()\n"
    "                  if i['user_api'] == 'blas'}))\n"
)


def _bundled_blas(dist):
    """The BLAS libraries a wheel ships beside its package: numpy.libs/libscipy_openblas64_-*.so,
    scipy.libs/libscipy_openblas-*.so (auditwheel and delvewheel), numpy/.dylibs (delocate)."""
    return [os.path.realpath(f.locate()) for f in files(dist) or ()
            if "blas" in f.name.lower() and (f.parent.name.endswith(".libs") or f.parent.name == ".dylibs")]


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


@pytest.mark.parametrize("dist", ["numpy", "scipy"])
def test_import_limits_numpy_and_scipy_own_blas(dist):
    """numpy's and scipy's own BLAS are among the libraries limited, not only some BLAS.

    threadpoolctl finds a library by its symbols; before 3.5 it did not know the prefixed
    ones of scipy-openblas (numpy >= 2's wheels), so numpy's BLAS kept every core while the
    test above passed on scipy's library alone."""
    own = _bundled_blas(dist)
    assert own, f"the {dist} wheel ships no BLAS library that this test recognises: {list(files(dist) or ())[:3]}..."
    env = {k: v for k, v in os.environ.items() if k not in ("ROBIDLIB_BLAS_THREADS", "OPENBLAS_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", PROBE_FILES], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    limited = json.loads(out.stdout)
    for lib in own:
        assert limited.get(lib) == 1, f"{dist}'s {os.path.basename(lib)}: threadpoolctl reports {limited}"


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
