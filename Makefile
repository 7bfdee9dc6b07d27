# The two commands of the README: `make lab` and `make test`. Everything runs in .venv,
# created from requirements-dev.txt (which includes requirements.txt) when missing or stale.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg --nbval-cell-timeout=60 -p no:cacheprovider

.PHONY: venv lab test check check-class unit nbtest notebooks translations student bench test-browser test-clients test-runtime test-hub test-hub-real class-share html cheatsheet slides lock clean test-example

$(STAMP): requirements.txt requirements-dev.txt constraints.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "msgmodel needs Python >= 3.11")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $(STAMP)

venv: $(STAMP)

lab: venv
	$(PY) scripts/lab.py

test: check unit nbtest

check: venv
	$(VENV)/bin/ruff check msgmodel tests bench scripts classroom docs/site examples $(wildcard notebooks/src)
	$(VENV)/bin/ruff format --check msgmodel tests bench scripts classroom docs/site examples
	$(VENV)/bin/mypy --strict msgmodel
	$(VENV)/bin/mypy --strict examples/agent/myagent examples/agent/tests

unit: venv
	$(PY) -m pytest tests -q

nbtest: venv
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then \
		$(PY) -m pytest notebooks $(NBVAL) -q; \
	else echo "no notebooks yet"; fi

# Re-execute every chapter in order from a fresh kernel and commit-ready outputs: the English
# chapters, then the Chinese edition (notebooks/zh/, built from the same source and the catalogs).
notebooks: venv
	$(PY) scripts/build_notebooks.py

# The Chinese edition's catalogs brought in step with the English (one entry per markdown cell;
# a changed cell's translation turns fuzzy, a removed cell's goes to #~) and the course layer's
# catalog compiled (scripts/translations.py). `--check` lists what is untranslated or fuzzy.
translations: venv
	$(PY) scripts/translations.py
	$(PY) scripts/doc_translations.py

# Blank copies of the chapters for a class, in build/student/ (the Chinese edition in build/student/zh/): outputs cleared, exercises as
# placeholders (scripts/build_student.py says why). The answer key is docs/teacher-guide.md.
student: venv
	$(PY) scripts/build_student.py

bench: venv
	$(PY) -m bench.run

# Every chapter (and tests/ui/notebooks) run in JupyterLab in headless Chromium via Playwright:
# no error outputs, widgets render and respond; screenshots in build/screenshots/. Uses Debian's
# chromium, installed with apt when /usr/bin/chromium is missing (CI runs as root); never
# downloads a browser.
# (The cheat sheet's PDF and the slides, static and live with RISE, are among them; tests/ui/test_slide_fit.py
# holds every static slide to the projector's bounds (1280×800, 60 words, notes, no folded demo, no clipped
# line, the diagram drawn): `python scripts/measure_slides.py` prints them.)
CHROMIUM_DEB = @if [ ! -x /usr/bin/chromium ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	fi
# The Chinese chapters' text must be drawn with a CJK font (tests/ui/test_notebooks_in_lab.py checks it: no tofu);
# CJK_FONT_DEB, below with the cheat sheet, installs Debian's fonts-noto-cjk when fontconfig knows no Chinese font.
test-browser: venv slides/node_modules/.installed
	$(CHROMIUM_DEB)
	$(CJK_FONT_DEB)
	$(PY) -m pytest tests/ui --run-ui -m ui -q -p no:cacheprovider

# Every chapter run in a fresh venv made from requirements.txt alone (what a class image
# installs): the runtime requirements are enough. Prints both install sizes.
RUNTIME_VENV := build/runtime-venv
test-runtime: venv
	rm -rf $(RUNTIME_VENV)
	$(PYTHON) -m venv $(RUNTIME_VENV)
	$(RUNTIME_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@echo "install size: runtime $$(du -sm $(RUNTIME_VENV) | cut -f1) MB, development $$(du -sm $(VENV) | cut -f1) MB"
	$(RUNTIME_VENV)/bin/python scripts/run_chapters.py

# The example agent (examples/agent/) tested where a user runs it: msgmodel's wheel is built from
# this checkout, installed NOT editable with [api] (and pytest) into a fresh venv, and the example's
# own suite runs there, using the pytest plugin's `msgmodel_api` fixture. Pinned by constraints.txt.
EXAMPLE_VENV := build/example-venv
test-example:
	rm -rf $(EXAMPLE_VENV) build/example-wheel
	$(PYTHON) -m venv $(EXAMPLE_VENV)
	$(EXAMPLE_VENV)/bin/python -m pip wheel --quiet --disable-pip-version-check --no-deps -w build/example-wheel .
	$(EXAMPLE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt \
		"$$(ls build/example-wheel/msgmodel_anthropic-*.whl)[api]" pytest
	cd examples/agent && ../../$(EXAMPLE_VENV)/bin/python -c 'import msgmodel, sys; assert "site-packages" in msgmodel.__file__, msgmodel.__file__' \
		&& ../../$(EXAMPLE_VENV)/bin/python -m pytest -q

# A class on one JupyterHub. The hub venv, build/hub-venv, is the class image's requirements
# (classroom/requirements.txt: the series, JupyterHub, nbgrader) with msgmodel editable; the proxy
# comes from npm (classroom/package-lock.json); build/class-share is what every home links to
# (classroom/install.py share: the student docs, the chapters, the blank copies).
HUB_VENV := build/hub-venv
HUB_USERS ?= 4
HUB_TEST_ARGS ?=
$(HUB_VENV)/.installed: classroom/requirements.txt classroom/hub-constraints.txt requirements.txt constraints.txt
	@test -x $(HUB_VENV)/bin/python || $(PYTHON) -m venv $(HUB_VENV)
	$(HUB_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r classroom/requirements.txt
	@touch $@
classroom/node_modules/.installed: classroom/package.json classroom/package-lock.json
	cd classroom && npm ci --no-audit --no-fund --loglevel=error
	@touch $@
class-share: $(HUB_VENV)/.installed
	$(HUB_VENV)/bin/python classroom/install.py share build/class-share

# The Hub's test mode, for this test and a laptop demo: no authentication, no isolation (every
# student is the Hub's own Unix user; as root only with HUB_TEST_ARGS=--allow-root). $(HUB_USERS)
# students run chapter 01 at once, each in their own server and kernel.
test-hub: $(HUB_VENV)/.installed classroom/node_modules/.installed class-share
	$(HUB_VENV)/bin/python classroom/test_hub.py --users $(HUB_USERS) $(HUB_TEST_ARGS)

# A real class, as root on a throw-away machine (classroom/test_hub_real.py): 20 Unix accounts with
# passwords, the class image installed under /opt, the Hub as root with PAM logins, every student
# logged in through the login form and running chapter 01 at once in their own uid, the isolation
# attacks, and an nbgrader round (release, submit, collect, autograde, feedback) checked against the
# gradebook. Accounts and installed files are removed afterwards, even on failure.
HUB_REAL_USERS ?= 20
test-hub-real: $(HUB_VENV)/.installed classroom/node_modules/.installed
	$(HUB_VENV)/bin/python classroom/test_hub_real.py --users $(HUB_REAL_USERS)

# Real third-party clients (the official SDK's tool runner, pydantic-ai, LangChain) against
# `python -m msgmodel serve` on a free loopback port: tests/clients/ in its own venv, .venv-clients,
# built from requirements.txt + requirements-clients.txt (the shared .venv is never touched).
# The serve process is started and stopped by tests/clients/conftest.py (`serve --port 0`).
CLIENTS_VENV  := .venv-clients
CLIENTS_STAMP := $(CLIENTS_VENV)/.installed

$(CLIENTS_STAMP): requirements.txt requirements-clients.txt constraints.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "msgmodel needs Python >= 3.11")'
	@test -x $(CLIENTS_VENV)/bin/python || $(PYTHON) -m venv $(CLIENTS_VENV)
	$(CLIENTS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(CLIENTS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-clients.txt
	@touch $(CLIENTS_STAMP)

test-clients: $(CLIENTS_STAMP)
	PYTHONPATH=$(CURDIR) $(CLIENTS_VENV)/bin/python -m pytest tests/clients -q -p no:cacheprovider -rxX

# The documentation site in build/site/ (open build/site/index.html; no network at build or read time):
# Sphinx + myst-nb + furo over the chapters' committed outputs (nothing is re-executed), docs/*.md,
# bench/RESULTS.md, the README and the API reference of msgmodel.core and msgmodel.api; configuration in docs/site/.
# The Chinese site beside it, build/site/zh/ (notebooks/zh/, docs/*.zh-CN.md, README.zh-CN.md), the same
# pages at the same paths, a language switch on every page; its search segments Chinese with jieba.
# tests/test_site.py (in `make unit`) builds it fresh and checks every link; the browser read is in test-browser.
html: venv
	$(PY) scripts/build_site.py

# The class handout, docs/cheatsheet.md, printed to build/cheatsheet.pdf (one A4 page) by Debian's headless
# chromium; the interview sheet, docs/interview-answers.md, and the students' exit ticket, docs/exit-ticket.md,
# beside it (build/interview-answers.pdf, build/exit-ticket.pdf).
# The Chinese sheets (docs/cheatsheet.zh-CN.md, docs/interview-answers.zh-CN.md, docs/exit-ticket.zh-CN.md) are
# printed beside them (build/*.zh-CN.pdf, on the English sheets' pages) with Debian's CJK font, installed with apt
# when fontconfig knows no Chinese font (CI runs as root).
CJK_FONT_DEB = @if ! fc-list :lang=zh family 2>/dev/null | grep -q .; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-noto-cjk; \
	fi
cheatsheet: venv
	$(CHROMIUM_DEB)
	$(CJK_FONT_DEB)
	$(PY) scripts/build_cheatsheet.py

# What a teacher checks the day before the class (scripts/check_class.py; the guide's checklist names each check):
# Python >= 3.11, the venv's pins, the kernel's environment, the widgets' and RISE's JupyterLab extensions, every
# chapter run offline within its 10 s, the student copies, the slides and the one-page handout. About a minute.
check-class: venv slides/node_modules/.installed
	$(PY) scripts/check_class.py

# The core path as slides for a projector, two decks per chapter from one source (scripts/build_slides.py):
# the short slide texts of slides/decks/NN.toml over the chapter's core cells, the chapter's prose and the
# guide's prompts in the speaker notes. Static: build/slides/NN_*.slides.html, with reveal.js copied next to
# them from npm (slides/package-lock.json): they open from disk, with no network. Live: build/slides/NN_*.ipynb
# (and rise.css), presented with RISE under `make lab`. Diagrams are the SVGs in docs/diagrams/, drawn by
# `python scripts/diagrams.py --write` with mermaid from the same npm lock in Debian's chromium.
# The Chinese static decks, from notebooks/zh/, are in build/slides/zh/.
slides/node_modules/.installed: slides/package.json slides/package-lock.json
	cd slides && npm ci --no-audit --no-fund --loglevel=error
	@touch $@
slides: venv slides/node_modules/.installed
	$(PY) scripts/build_slides.py

# constraints.txt pins what requirements*.txt pull in; the project itself (msgmodel-anthropic) is not one of them.
lock: venv
	$(PY) -m pip freeze --exclude-editable | grep -v -i -E '^msgmodel[-_]anthropic([ =@]|$$)' > constraints.txt

clean:
	rm -rf $(VENV) $(CLIENTS_VENV) build .pytest_cache .mypy_cache .ruff_cache .hypothesis
