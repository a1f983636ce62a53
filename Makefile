# The two commands a newcomer needs: `make demo` and `make test`. Both install what they need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install tools bench clean

$(BIN)/goalbot: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/goalbot

# A configured browser (GOALBOT_BROWSER), else a system Chromium, else Playwright's own; installs
# Debian's chromium as root, Playwright's build otherwise. tmux is for the real-terminal test.
tools: install
	$(BIN)/python -m goalbot.operators.browser_locate --install
	@command -v tmux >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null; } \
		|| echo "tmux not found: the real-terminal test will be skipped"

demo: tools
	$(BIN)/goalbot demo

test: tools
	$(BIN)/python -m pytest

bench: tools
	$(BIN)/python bench/run_loop.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
