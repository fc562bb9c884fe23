# Two commands for a fresh machine with only Python 3.10+:  make book  |  make test
# Every target creates .venv when it is missing and (re)installs only when a requirements
# file or pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
BOOK_STAMP := $(VENV)/.installed-book
TEST_STAMP := $(VENV)/.installed-test
JB_FLAGS := -W -n --keep-going
# robidlib limits BLAS to one thread when it is imported (robidlib/_threads.py), so every way
# of running the book prints the same numbers; nothing needs to be exported here.
UNIT := tests/ robidlib/ --doctest-modules --ignore=tests/site --ignore=tests/browser --ignore=tests/student

STUDENT := _build/student
# The student edition's repository and branch are repository.student_url and
# repository.student_branch in _config.yml (its site's buttons and clone instructions, and
# the branch `make release` commits the student bundle to). STUDENT_BRANCH=name overrides the
# branch. See README, "Instructors".
STUDENT_BRANCH ?=
STUDENT_BRANCH_ARG := $(if $(STUDENT_BRANCH),--branch $(STUDENT_BRANCH),)
# `make lab` copies the student notebooks here once and never overwrites them (your work).
LAB_DIR ?= lab
LAB_ARGS ?=
# Jupyter refuses to run as root without --allow-root (containers, WSL, cloud machines).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root,)

.PHONY: book student pdf test test-pdf test-portability test-lowest test-newest test-browser lab lab-instructor bench release clean distclean help

help:
	@echo "make book   build the site into _build/html (instructor edition)"
	@echo "make student  student edition in $(STUDENT): site/ without solutions, student-bundle.zip"
	@echo "make lab    JupyterLab on the student notebooks (your copies in $(LAB_DIR)/; LAB_ARGS=... for options)"
	@echo "make lab-instructor  JupyterLab on chapters/ (the full notebooks, with solutions)"
	@echo "make pdf    _build/pdf/book.pdf (instructor) and book-student.pdf (needs TeX Live, see README)"
	@echo "make test   unit tests, every notebook through nbval, both editions built with -W, the student"
	@echo "            bundle run in a fresh venv, portability passes, PDFs, site and browser tests"
	@echo "make test-browser  the site in headless Chromium, and a student notebook in a real JupyterLab"
	@echo "make bench  run benchmarks/ (tables on screen, JSON in benchmarks/results/)"
	@echo "make release VERSION=X.Y.Z  every test, then dist/ (sites, bundle, wheel, lock file, PDFs)"
	@echo "make clean  remove _build and caches (make distclean also removes .venv and dist)"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed, found " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(BOOK_STAMP): requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $@

$(TEST_STAMP): requirements-test.txt requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	@touch $@ $(BOOK_STAMP)

# Every notebook is executed once, on both cores, into the execution cache, while the build
# reads the other pages; the build (and the student edition after it) takes the outputs from
# the cache.
book: $(BOOK_STAMP)
	$(MAKE) --no-print-directory _book

student: $(BOOK_STAMP)
	$(MAKE) --no-print-directory _student

# PDFs through Jupyter Book's LaTeX builder (XeLaTeX, Debian's TeX Live: see README): the
# instructor PDF reads the execution cache, the student PDF the staged student source.
pdf: $(BOOK_STAMP)
	$(MAKE) --no-print-directory _pdf-instructor _pdf-student
	@echo "PDFs: _build/pdf/book.pdf (instructor), _build/pdf/book-student.pdf (student)"

# make test: unit tests and doctests; the book (every notebook executed once, build with -W);
# the student edition, whose bundle is unpacked, installed into a fresh venv as its README says
# and run as a student would (tests/student: the only execution of the student notebooks);
# the portability passes (the unit tests and every notebook through nbval under one BLAS
# kernel of each other SIMD family, on the main, newest and lowest versions); both PDFs; the site, link,
# leak and PDF tests; the browser tests (the site, and a student notebook in JupyterLab).
# The stages run two at a time (make -j2, each stage's output printed when it ends), so that
# the single-threaded ones (Sphinx, XeLaTeX, pip) share the two cores with the others; any
# failing stage fails make test.
test: $(TEST_STAMP)
	@mkdir -p _build
	$(MAKE) --no-print-directory -j2 --output-sync=target _test-all
	@echo "make test: every stage passed"

# Started in this order as slots free up: the book first, since the longest chain (book,
# student edition, student bundle run, site tests) starts from it, and beside it the
# lowest-versions venv (mostly waiting on downloads).
_test-all: _book _lowest-venv _unit _student _pdf-instructor _student-run _pdf-student _port-nbval \
           _port-unit _lowest-unit _site _browser _readonly
# the portability passes on the lowest and newest versions, after the others (their venvs are
# built at the start, beside the book, by _lowest-venv)
_test-all: _lowest-nbval _newest-unit _newest-nbval

# only the PDFs and their tests
test-pdf: $(TEST_STAMP)
	$(MAKE) --no-print-directory pdf
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/site/test_pdf.py

# The portability passes (see "the portability passes" below): the unit tests and every
# notebook under one BLAS kernel of each SIMD family, on the main, newest and lowest versions.
test-portability: $(TEST_STAMP)
	$(MAKE) --no-print-directory _port-unit _port-nbval _lowest-unit _lowest-nbval _newest-unit _newest-nbval

test-lowest: $(TEST_STAMP)
	$(MAKE) --no-print-directory _lowest-unit _lowest-nbval

test-newest: $(TEST_STAMP)
	$(MAKE) --no-print-directory _newest-unit _newest-nbval

# Needs Debian's Chromium: apt-get install -y chromium  (see README)
test-browser: $(TEST_STAMP)
	@test -f _build/html/index.html || $(MAKE) --no-print-directory _book
	@test -f $(STUDENT)/notebooks/01_pendulum.ipynb || $(MAKE) --no-print-directory _student
	$(MAKE) --no-print-directory _browser

# ---- the stages (internal: the public targets above and make test call them) ----
.PHONY: _test-all _book _student _student-run _pdf-instructor _pdf-student _unit _port-unit \
        _port-nbval _lowest-venv _lowest-unit _site _browser
.PHONY: _lowest-nbval _newest-venv _newest-unit _newest-nbval

# The notebooks run (tools/execute_book.py, both cores) while Sphinx reads the other pages;
# the build waits at each chapter until its notebook is in the cache (_ext/bookinfo.py reads
# the status file), so the one-core Sphinx work overlaps the execution. Either failing fails.
EXEC_STATUS := _build/.execute_book.json
_book:
	@mkdir -p _build && rm -f $(EXEC_STATUS)
	@$(BIN)/python tools/execute_book.py --status $(EXEC_STATUS) & executor=$$!; \
	echo "$(BIN)/jupyter-book build . $(JB_FLAGS)   (beside tools/execute_book.py)"; \
	ROBIDLIB_EXECUTION_STATUS=$(EXEC_STATUS) $(BIN)/jupyter-book build . $(JB_FLAGS); build=$$?; \
	wait $$executor; executed=$$?; \
	test $$executed -eq 0 || echo "make: tools/execute_book.py failed (exit $$executed)"; \
	test $$executed -eq 0 && test $$build -eq 0

_student: _book
	$(BIN)/python tools/editions.py student-notebooks $(STUDENT)
	$(BIN)/python tools/editions.py student-bundle $(STUDENT)
	$(BIN)/python tools/editions.py student-source $(STUDENT) $(STUDENT_BRANCH_ARG)
	$(BIN)/jupyter-book build $(STUDENT)/src $(JB_FLAGS)
	rm -rf $(STUDENT)/site && mv $(STUDENT)/src/_build/html $(STUDENT)/site
	@echo "student edition: $(STUDENT)/site (site), $(STUDENT)/student-bundle.zip (notebooks, README, student robidlib)"

_student-run: _student
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/student -n 2

# (MAKEFLAGS emptied: Sphinx's LaTeX step runs its own make, outside make test's job slots)
_pdf-instructor: _book
	MAKEFLAGS= $(BIN)/jupyter-book build . --builder pdflatex $(JB_FLAGS)
	mkdir -p _build/pdf
	cp _build/latex/book.pdf _build/pdf/book.pdf
	cp _build/latex/book.log _build/pdf/book.log

# the staged student source of _student (its HTML build has moved to $(STUDENT)/site)
_pdf-student: _student
	MAKEFLAGS= $(BIN)/jupyter-book build $(STUDENT)/src --builder pdflatex $(JB_FLAGS)
	mkdir -p _build/pdf
	cp $(STUDENT)/src/_build/latex/book.pdf _build/pdf/book-student.pdf
	cp $(STUDENT)/src/_build/latex/book.log _build/pdf/book-student.log

_unit:
	$(BIN)/python -m pytest $(UNIT) -n 2

# ---- the portability passes ----
# OpenBLAS picks its kernels for the CPU it runs on; OPENBLAS_CORETYPE forces another, so that
# round-off differs as it would on another machine. Kernels of one SIMD family share their
# inner loops, so the unit tests and every notebook run under one kernel of each family this
# CPU supports (SSE: Prescott, AVX: Sandybridge, AVX2: Haswell, AVX-512: SkylakeX) except the
# family of its default kernel, which the normal stages run. The families ride on the three
# environments of the passes, one each and in this order: the main venv, the newest versions
# (.venv-newest, the newest Python on the machine) and the lowest versions (.venv-lowest,
# Python 3.10); a version pass left without a family runs the default kernel, and every
# family not run says why (`python tools/portability.py plan`). Each pass checks that its
# kernel took effect on every BLAS library and prints the versions it runs.
PORT := tools/portability.py
# $(call port_run,PYTHON,PASS,WHAT,PYTEST ARGUMENTS)
define port_run
@set -e; kernels=$$($(1) $(PORT) kernels-for-pass $(2)); default=$$($(1) $(PORT) default-kernel); \
$(1) $(PORT) versions; \
if [ -z "$$kernels" ] && [ "$(2)" = main ]; then echo "== portability ($(2)): $(3): no other family for the main venv"; exit 0; fi; \
for kernel in $${kernels:-default}; do \
  if [ "$$kernel" = default ]; then unset OPENBLAS_CORETYPE; \
  else export OPENBLAS_CORETYPE=$$kernel; $(1) $(PORT) check-kernel $$kernel $$default; fi; \
  echo "== portability ($(2)): $(3) on the $$kernel kernel (default $$default)"; \
  $(1) -m pytest $(4); \
done
endef
NBVAL := --nbval-lax --nbval-current-env -n 2 --dist loadfile -q chapters/
# Tests that compute nothing with BLAS (packaging, notebook text, imports, thread limits): the
# main venv's kernel pass leaves them to _unit, which runs them in the same venv; the lowest
# and newest passes run them (other versions).
NO_BLAS := --ignore=tests/test_editions.py --ignore=tests/test_notebooks.py \
           --ignore=tests/test_prose_numbers.py --ignore=tests/test_requirements.py \
           --ignore=tests/test_layers.py --ignore=tests/test_zmq_wakeups.py \
           --ignore=tests/test_bookinfo.py --ignore=tests/test_threads.py \
           --ignore=tests/test_portability.py \
           --deselect tests/test_plotting.py::test_the_core_never_imports_plotting \
           --deselect tests/test_physical.py::test_robidlib_does_not_import_cvxpy

_port-unit:
	$(call port_run,$(BIN)/python,main,unit tests (those using BLAS),$(UNIT) $(NO_BLAS) -m "not book_build" -n 2 -q)

# after _book: nbval and the book's execution never run the same notebook at the same time
_port-nbval: _book
	$(call port_run,$(BIN)/python,main,every chapter through nbval,$(NBVAL))

# Lowest versions: a venv from constraints-lowest.txt (the lower bounds of requirements*.txt,
# pinned) on the oldest Python the project claims. Newest versions: a venv of
# requirements-test.txt on the newest Python this machine has (tools/portability.py
# find-python newest), i.e. the newest releases the requirements allow (delete .venv-newest
# to take newer ones). Both are built side by side (pip mostly waits on downloads and disk),
# without byte-compiling what the tests never import.
LOWEST_VENV := .venv-lowest
LOWEST_STAMP := $(LOWEST_VENV)/.installed
PYTHON_LOWEST ?= $$($(PYTHON) tools/portability.py find-python 3.10)
$(LOWEST_STAMP): constraints-lowest.txt requirements-test.txt requirements.txt pyproject.toml
	rm -rf $(LOWEST_VENV)
	$(PYTHON_LOWEST) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST_VENV)/bin/python -m pip install --quiet --no-compile -r requirements-test.txt -c constraints-lowest.txt
	@touch $@

NEWEST_VENV := .venv-newest
NEWEST_STAMP := $(NEWEST_VENV)/.installed
PYTHON_NEWEST ?= $$($(PYTHON) tools/portability.py find-python newest)
$(NEWEST_STAMP): requirements-test.txt requirements.txt pyproject.toml
	rm -rf $(NEWEST_VENV)
	$(PYTHON_NEWEST) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(NEWEST_VENV)/bin/python -m pip install --quiet --no-compile -r requirements-test.txt
	@touch $@

# one stage, one job slot, two sub-makes: the two venvs build at once
_lowest-venv:
	@$(MAKE) --no-print-directory $(LOWEST_STAMP) & lowest=$$!; \
	$(MAKE) --no-print-directory $(NEWEST_STAMP); newest=$$?; \
	wait $$lowest && test $$newest -eq 0

_newest-venv: _lowest-venv

_lowest-unit: _lowest-venv
	@$(LOWEST_VENV)/bin/python $(PORT) check-lowest constraints-lowest.txt
	$(call port_run,$(LOWEST_VENV)/bin/python,lowest,unit tests,$(UNIT) -m "not book_build" -n 2 -q -p no:cacheprovider)

_lowest-nbval: _lowest-venv
	$(call port_run,$(LOWEST_VENV)/bin/python,lowest,every chapter through nbval,$(NBVAL) -p no:cacheprovider)

_newest-unit: _newest-venv
	$(call port_run,$(NEWEST_VENV)/bin/python,newest,unit tests,$(UNIT) -m "not book_build" -n 2 -q -p no:cacheprovider)

_newest-nbval: _newest-venv
	$(call port_run,$(NEWEST_VENV)/bin/python,newest,every chapter through nbval,$(NBVAL) -p no:cacheprovider)

_site: _book _student _pdf-instructor _pdf-student
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/site

_browser: _book _student
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/browser -v

# Read-only install (issue 26): the robidlib wheel and its dependencies installed where the
# test user cannot write, run by that user (nobody, when make test runs as root) with a
# read-only or missing home: the compiled loops, base parameters, key cells of chapters 2 and
# 11, numba's cache outside the package, NUMBA_DISABLE_JIT and no numba. See the script.
.PHONY: _readonly
_readonly:
	$(BIN)/python tools/readonly_install.py

# make lab: JupyterLab on the student edition (no solutions); LAB_ARGS="--no-browser --port 8890".
# The chapters missing from the execution cache run first, once (tools/execute_book.py: a few
# minutes on a fresh clone), so that the copies in $(LAB_DIR)/ show the prose's numbers; later
# runs refresh the numbers in prose cells you have not edited and never touch your code.
lab: $(BOOK_STAMP)
	$(BIN)/python tools/editions.py lab-notebooks $(LAB_DIR)
	$(BIN)/jupyter lab $(ALLOW_ROOT) $(LAB_ARGS) $(LAB_DIR)

lab-instructor: $(BOOK_STAMP)
	$(BIN)/jupyter lab $(ALLOW_ROOT) $(LAB_ARGS) chapters/

# make release VERSION=X.Y.Z (tools/editions.py release): checks the CHANGELOG.md entry, that
# the tags are new and that the tree is clean but for CHANGELOG.md; cleans _build; sets the
# version (robidlib/_version.py, read by the book too) and runs make test, restoring the
# version file if anything fails; then commits the version and the CHANGELOG entry ("Release
# X.Y.Z"), tags vX.Y.Z, writes dist/ (site, student site, student bundle, wheel, lock file,
# both PDFs, a manifest with the commit) and commits the student bundle to the student
# branch, tagged vX.Y.Z-student.
release: $(TEST_STAMP)
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=X.Y.Z"; exit 2; }
	$(BIN)/python tools/editions.py check-release $(VERSION)
	$(BIN)/python tools/editions.py release $(VERSION) --make "$(MAKE)" $(STUDENT_BRANCH_ARG)

bench: $(TEST_STAMP)
	@set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f; done

clean:
	rm -rf _build .pytest_cache .hypothesis .jupyter_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(LOWEST_VENV) $(NEWEST_VENV) dist
