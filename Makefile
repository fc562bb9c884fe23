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

.PHONY: book student test test-portability test-lowest test-browser lab bench release clean distclean help

help:
	@echo "make book   build the site into _build/html (instructor edition)"
	@echo "make student  student edition: site without solutions + lab notebooks zip in $(STUDENT)"
	@echo "make test   unit tests, every notebook through nbval, both editions built with -W, site tests"
	@echo "make test-browser  visit every page of _build/html in headless Chromium (screenshots in _build/screenshots)"
	@echo "make lab    JupyterLab on chapters/"
	@echo "make bench  run benchmarks/ (tables on screen, JSON in benchmarks/results/)"
	@echo "make clean  remove _build and caches (make distclean also removes .venv)"

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

# Every notebook is executed once, on both cores, into the execution cache; the build (and
# the student edition after it) then only reads the cache.
book: $(BOOK_STAMP)
	$(BIN)/python tools/execute_book.py
	$(BIN)/jupyter-book build . $(JB_FLAGS)

student: book
	$(BIN)/python tools/editions.py student-notebooks $(STUDENT)
	$(BIN)/python tools/editions.py student-source $(STUDENT)
	$(BIN)/jupyter-book build $(STUDENT)/src $(JB_FLAGS)
	rm -rf $(STUDENT)/site && mv $(STUDENT)/src/_build/html $(STUDENT)/site
	@echo "student edition: $(STUDENT)/site (site), $(STUDENT)/student-notebooks.zip (labs)"

# make test: unit tests and doctests; the book (every notebook executed once, build with -W);
# the student edition and its notebooks run as a student would; the portability passes (every
# notebook through nbval and the unit tests again on a second BLAS kernel, the unit tests on
# the lowest supported versions); the site, link and browser tests.
test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(UNIT) -n 2
	$(MAKE) --no-print-directory student
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/student -n 2
	$(MAKE) --no-print-directory test-portability
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/site
	$(MAKE) --no-print-directory test-browser

# Second BLAS kernel: OpenBLAS picks its kernels for the CPU it runs on; OPENBLAS_CORETYPE forces
# another one, so that round-off differs as it would on another machine. tools/portability.py
# picks a kernel this CPU supports that differs from its default, and checks it took effect.
test-portability: $(TEST_STAMP)
	@set -e; kernel=$$($(BIN)/python tools/portability.py second-kernel); \
	default=$$($(BIN)/python tools/portability.py default-kernel); \
	echo "== portability: second BLAS kernel OPENBLAS_CORETYPE=$$kernel (default kernel $$default)"; \
	OPENBLAS_CORETYPE=$$kernel $(BIN)/python tools/portability.py check-kernel $$kernel $$default; \
	OPENBLAS_CORETYPE=$$kernel $(BIN)/python -m pytest $(UNIT) -n 2 -q; \
	OPENBLAS_CORETYPE=$$kernel $(BIN)/python -m pytest --nbval-lax --nbval-current-env -n 2 --dist loadfile chapters/
	$(MAKE) --no-print-directory test-lowest

# Lowest versions: a second venv from constraints-lowest.txt (the lower bounds of
# requirements*.txt, pinned) on the oldest Python the project claims; runs the unit tests.
LOWEST_VENV := .venv-lowest
LOWEST_STAMP := $(LOWEST_VENV)/.installed
PYTHON_LOWEST ?= $$($(PYTHON) tools/portability.py find-python 3.10)
$(LOWEST_STAMP): constraints-lowest.txt requirements-test.txt requirements.txt pyproject.toml
	rm -rf $(LOWEST_VENV)
	$(PYTHON_LOWEST) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST_VENV)/bin/python -m pip install --quiet -r requirements-test.txt -c constraints-lowest.txt
	@touch $@

test-lowest: $(LOWEST_STAMP)
	@echo "== portability: lowest versions on $$($(LOWEST_VENV)/bin/python --version)"
	$(LOWEST_VENV)/bin/python tools/portability.py check-lowest constraints-lowest.txt
	$(LOWEST_VENV)/bin/python -m pytest $(UNIT) -n 2 -q -p no:cacheprovider

# Needs Debian's Chromium: apt-get install -y chromium  (see README)
test-browser: $(TEST_STAMP)
	@test -f _build/html/index.html || $(MAKE) --no-print-directory book
	ROBIDLIB_REQUIRE_SITE=1 $(BIN)/python -m pytest tests/browser -v

lab: $(BOOK_STAMP)
	$(BIN)/jupyter lab chapters/

# make release VERSION=X.Y.Z: check CHANGELOG.md, set the version (robidlib/_version.py, read by
# the book too), run every test (which builds both editions), then write the archives to dist/.
NAME := robot-dynamic-identification
release: $(TEST_STAMP)
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=X.Y.Z"; exit 2; }
	$(BIN)/python tools/editions.py check-release $(VERSION)
	$(BIN)/python tools/editions.py set-version $(VERSION)
	$(MAKE) --no-print-directory test
	rm -rf dist && mkdir -p dist
	tar -czf dist/$(NAME)-$(VERSION)-site.tar.gz -C _build html
	tar -czf dist/$(NAME)-$(VERSION)-student-site.tar.gz -C $(STUDENT) site
	cp $(STUDENT)/student-notebooks.zip dist/$(NAME)-$(VERSION)-student-notebooks.zip
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .
	$(BIN)/python -m pip freeze --exclude-editable > dist/$(NAME)-$(VERSION)-requirements-lock.txt
	@echo "release $(VERSION):"; ls -1 dist

bench: $(TEST_STAMP)
	@set -e; for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f; done

clean:
	rm -rf _build .pytest_cache .hypothesis .jupyter_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(LOWEST_VENV) dist
