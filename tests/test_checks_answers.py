"""robidlib.checks.answers: the instructor-only references the checks compare answers with."""
import json
import re
from pathlib import Path

import pytest

import robidlib
from robidlib.checks import answers
from robidlib.checks._report import stored_answers

CHECKS = Path(robidlib.__file__).parent / "checks"


def test_every_module_whose_checks_read_references_has_them_and_no_more():
    used = set()
    for path in CHECKS.glob("*.py"):
        used |= set(re.findall(r'stored_answers\("(\w+)"\)', path.read_text()))
    assert used == set(answers.MODULES)


@pytest.mark.parametrize("module", answers.MODULES)
def test_references_are_plain_json_and_what_the_checks_read(module):
    data = answers.compute(module)
    text = json.dumps(data, allow_nan=False)          # finite numbers, lists, strings only
    assert json.loads(text) == data == stored_answers(module)


def test_no_reference_file_in_the_instructors_package():
    """The instructor's robidlib computes its references; a stray JSON file would shadow them."""
    shipped = {p.stem for p in (Path(robidlib.__file__).parent / "data" / "checks").glob("*.json")}
    assert not shipped & set(answers.MODULES)


def test_write_answers_writes_json_and_refuses_to_overwrite_or_write_into_the_package(tmp_path):
    files = answers.write_answers(tmp_path / "checks", ("pendulum", "ekf"))
    assert [p.name for p in files] == ["pendulum.json", "ekf.json"]
    assert json.loads(files[0].read_text()) == answers.compute("pendulum")
    with pytest.raises(FileExistsError, match="pendulum.json exists"):
        answers.write_answers(tmp_path / "checks", ("pendulum",))
    assert answers.write_answers(tmp_path / "checks", ("pendulum",), overwrite=True)
    with pytest.raises(ValueError, match="outside the installed robidlib"):
        answers.write_answers(Path(robidlib.__file__).parent / "data" / "checks", ("pendulum",))
    with pytest.raises(ValueError, match="modules must be among"):
        answers.write_answers(tmp_path / "other", ("tx40",))


@pytest.mark.parametrize("bad", ["tx40", "", "PENDULUM", None])
def test_compute_names_an_unknown_module(bad):
    with pytest.raises(ValueError, match="module must be one of"):
        answers.compute(bad)
