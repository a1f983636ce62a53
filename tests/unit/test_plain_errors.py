"""Refusals of a bad value say what the value must be, under the name the person gave it, never
in pydantic's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalbot.service.batch.jobs import Job
from goalbot.service.settings import ConfigError, load_settings
from goalbot.text.json_lines import JsonLinesError, read_json_lines


@pytest.mark.parametrize(("flags", "said"), [
    ({"max_steps": 0}, "--max-steps (max_steps in the config file) is 1 or more (not 0)"),
    ({"max_steps": "many"}, "--max-steps (max_steps in the config file) is a whole number (not 'many')"),
    ({"approval_timeout_s": -1}, "--approval-timeout (approval_timeout_s in the config file) is more than 0"),
])
def test_a_bad_setting_is_named_by_its_flag_and_said_in_words(tmp_path: Path, flags: dict[str, object],
                                                              said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_settings(flags, tmp_path / "none.toml")
    assert said in str(refused.value) and "Input should" not in str(refused.value), refused.value


def test_a_bad_job_line_says_what_its_field_must_be(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text('{"goal": 5, "url": "https://example.test/"}\n', encoding="utf-8")
    with pytest.raises(JsonLinesError) as refused:
        list(read_json_lines(jobs, Job, "a job", 1_000_000, lambda number: f"{jobs.name}:{number}"))
    assert "goal is text (not 5)" in str(refused.value), refused.value
