"""tools/portability.py: which OpenBLAS kernel each SIMD family's pass forces, which Python
the lowest and newest passes use, and the checks that a pass ran what it says.

The kernel choice is tested on described CPUs (flags, default kernels, machine), not only on
this one; the Python search on stub interpreters in a temporary PATH.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import portability  # noqa: E402

ALL_X86 = {"sse3", "avx", "avx2", "avx512f"}


def _run(family, flags=ALL_X86, defaults=("SkylakeX",), machine="x86_64"):
    return portability.kernel_for(family, flags=set(flags), defaults=set(defaults), machine=machine)


def test_an_avx512_cpu_runs_the_three_other_families():
    got = {f: _run(f)[0] for f in portability.FAMILIES}
    assert got == {"sse": "Prescott", "avx": "Sandybridge", "avx2": "Haswell", "avx512": None, "arm": None}
    assert "default kernel SkylakeX" in _run("avx512")[1] and "not 64-bit ARM" in _run("arm")[1]
    # numpy's and scipy's libraries may report different kernels of one family
    assert _run("avx512", defaults=("Cooperlake", "SkylakeX"))[0] is None


@pytest.mark.parametrize(
    "flags, default, runs",
    [
        ({"sse3", "avx", "avx2"}, "Haswell", {"sse", "avx"}),           # Haswell to Comet Lake
        ({"sse3", "avx", "avx2"}, "Zen", {"sse", "avx"}),               # AMD Zen
        ({"sse3", "avx"}, "Sandybridge", {"sse"}),                      # Sandy/Ivy Bridge, AVX-only VMs
        ({"sse3"}, "Nehalem", set()),                                   # SSE only: nothing else to force
        ({"sse3", "avx", "avx2", "avx512f"}, "Cooperlake", {"sse", "avx", "avx2"}),
    ],
)
def test_each_family_the_cpu_supports_except_the_default_one(flags, default, runs):
    plan = {f: k for f, k, _ in portability.plan(flags=flags, defaults={default}, machine="x86_64")}
    assert {f for f, k in plan.items() if k} == runs
    for family, kernel, why in portability.plan(flags=flags, defaults={default}, machine="x86_64"):
        # every family is accounted for: its kernel, or why it is not run
        assert kernel or "not run" in why
        if portability.FAMILIES[family][2] not in flags | {None} and family != "arm":
            assert "lacks" in why


def test_every_forced_kernel_belongs_to_its_family():
    for family, (_, kernel, _) in portability.FAMILIES.items():
        assert portability.KERNEL_FAMILY[kernel.lower()] == family
    assert portability.KERNEL_FAMILY["katmai"] == "sse"      # what a forced Prescott reports


def test_the_families_ride_on_the_three_passes():
    kw = dict(flags=ALL_X86, defaults={"SkylakeX"}, machine="x86_64")
    got = {p: portability.kernels_for_pass(p, **kw)[0] for p in portability.PASSES}
    assert got == {"main": ["Prescott"], "newest": ["Sandybridge"], "lowest": ["Haswell"]}
    assert "Sandybridge (AVX)" in portability.kernels_for_pass("newest", **kw)[1]
    # an AVX2 CPU: two families, the lowest versions run their default kernel
    kw = dict(flags={"sse3", "avx", "avx2"}, defaults={"Haswell"}, machine="x86_64")
    kernels, why = portability.kernels_for_pass("lowest", **kw)
    assert kernels == [] and "default kernel" in why
    # a default kernel of no known family: four families, the main venv takes the fourth too
    kw = dict(flags=ALL_X86, defaults={"SomeFutureCore"}, machine="x86_64")
    assert portability.kernels_for_pass("main", **kw)[0] == ["Prescott", "SkylakeX"]
    with pytest.raises(SystemExit, match="unknown pass 'oldest'"):
        portability.kernels_for_pass("oldest")


def test_arm_and_other_machines():
    assert _run("arm", defaults=("NEOVERSEN1",), machine="aarch64")[0] == "ARMV8"
    assert _run("arm", defaults=("ARMV8",), machine="aarch64")[0] == "CORTEXA57"
    kernel, why = _run("avx2", machine="aarch64")
    assert kernel is None and "not x86-64" in why
    with pytest.raises(SystemExit, match="unknown family 'mmx'"):
        portability.kernel_for("mmx")


def test_plan_on_this_machine_accounts_for_every_family():
    rows = portability.plan()
    assert [f for f, _, _ in rows] == list(portability.FAMILIES)
    assert all(k or "not run" in why for _, k, why in rows)


def test_check_kernel_fails_when_the_kernel_did_not_change(capsys):
    running = ",".join(sorted(portability.default_kernels()))      # what this process runs
    with pytest.raises(SystemExit, match="did not change the kernel"):
        portability.check_kernel("Whatever", running)
    portability.check_kernel("Whatever", "NoSuchKernel")            # every library moved off it
    assert "the BLAS libraries run" in capsys.readouterr().out


def _stub(folder: Path, name: str, output: str) -> None:
    exe = folder / name
    exe.write_text(f"#!/bin/sh\necho {output}\n")
    exe.chmod(0o755)


@pytest.fixture
def stub_pythons(tmp_path, monkeypatch):
    """A PATH of stub interpreters that answer the version probe; no pyenv (HOME is empty)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return bin_dir


def test_find_python_newest_takes_the_newest_final_cpython(stub_pythons):
    _stub(stub_pythons, "python3.10", "3 10 13")
    _stub(stub_pythons, "python3.12", "3 12 1")
    _stub(stub_pythons, "python3.14", "")            # a pre-release or free-threaded build: no answer
    (stub_pythons / "python3.15").write_text("not executable")
    assert portability.find_python("newest") == str(stub_pythons / "python3.12")
    assert portability.find_python("3.10") == str(stub_pythons / "python3.10")


def test_find_python_falls_back_to_this_interpreter_with_a_warning(stub_pythons, capsys):
    assert portability.find_python("newest") == sys.executable
    assert "no newer Python found" in capsys.readouterr().err
    assert portability.find_python("3.10") == sys.executable
    assert "Python 3.10 not found" in capsys.readouterr().err


def test_find_python_on_this_machine_runs():
    exe = portability.find_python("newest")
    found = portability._version_of(exe)
    assert found is not None and found >= tuple(sys.version_info[:3]) or exe == sys.executable


def test_check_lowest(tmp_path, capsys):
    pins = tmp_path / "constraints.txt"
    pins.write_text(f"# a comment\nnumpy=={version('numpy')}\npytest=={version('pytest')}  # inline\n")
    portability.check_lowest(str(pins))
    assert "2 packages at their lowest" in capsys.readouterr().out
    pins.write_text("numpy==0.0.1\nno-such-package-here==1.0\n")
    with pytest.raises(SystemExit, match=r"numpy .* \(want 0.0.1\); no-such-package-here not installed"):
        portability.check_lowest(str(pins))


def test_command_line(capsys):
    assert portability.main(["versions"]) == 0
    out = capsys.readouterr().out
    assert f"numpy {version('numpy')}" in out and "Python" in out
    assert portability.main(["kernel-for", "sse"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() in {"Prescott", ""} and ("SSE" in err)
    assert portability.main(["no-such-command"]) == 2
    assert portability.main([]) == 2
