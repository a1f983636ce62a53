"""The grammar llama-cpp-python's server makes of goalbot's structured answers: it drops a
number's `minimum` and `maximum`, so the range has to reach it another way, or a confidence of 5
fits the grammar and is refused after it was paid for."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import BUILT, LLAMA_PYTHON
from goalbot.llm.answers import ObjectAnswer
from goalbot.llm.dialects import Dialect
from goalbot.llm.tools import PlanAnswer, VerdictAnswer

pytestmark = pytest.mark.xdist_group("local_model")

# The server's own converter, as it turns a request's response_format schema into a grammar.
TO_GRAMMAR = ("import json, sys; from llama_cpp.llama_grammar import json_schema_to_gbnf; "
              "print(json_schema_to_gbnf(sys.stdin.read()))")


def _grammar(schema: dict[str, object]) -> str:
    if not BUILT.exists():
        if os.environ.get("CI"):
            pytest.fail("no llama-cpp-python (make local-model): make test installs it in CI")
        pytest.skip("no llama-cpp-python (make local-model)")
    made = subprocess.run([str(LLAMA_PYTHON), "-c", TO_GRAMMAR], input=json.dumps(schema), capture_output=True,
                          text=True, timeout=120, check=True)
    return made.stdout


def _rule(grammar: str, name: str) -> str:
    return next(line for line in grammar.splitlines() if line.startswith(f"{name} ::="))


def test_the_verdicts_confidence_reaches_the_grammar_as_the_values_it_may_take() -> None:
    schema = ObjectAnswer("verdict", VerdictAnswer).response_schema(Dialect.STRUCTURED)
    assert schema is not None
    rule = _rule(_grammar(schema), "confidence")
    assert '"0.0"' in rule and '"0.5"' in rule and '"1.0"' in rule, rule
    assert '"5"' not in rule and "[0-9]" not in rule, rule


def test_the_plans_progress_is_a_whole_percent_from_0_to_100() -> None:
    schema = ObjectAnswer("plan", PlanAnswer).response_schema(Dialect.STRUCTURED)
    assert schema is not None
    rule = _rule(_grammar(schema), "progress-percent")
    assert '"0"' in rule and '"100"' in rule and '"101"' not in rule, rule

