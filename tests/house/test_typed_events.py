"""An event's payload is typed for the checker: every reader in the house narrows it to its model
(by `data_of`, or a class pattern beside the event's type) before it reads a field, and mypy,
run over those readers as pyproject.toml lists them, finds a field read any other way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from goalbot.events import Actor, Event, EventType
from goalbot.payloads import ActionData, ObservationData
from kit import REPO

UNNARROWED = '''
from goalbot.events import Event


def where(event: Event) -> str:
    return event.payload.url
'''

WRONG_MODEL = '''
from goalbot.events import Event
from goalbot.payloads import StepData


def where(event: Event) -> str:
    return event.data_of(StepData).url
'''


def _mypy(*probes: Path) -> subprocess.CompletedProcess[str]:
    """mypy over the files pyproject.toml lists, or over `probes` alone when given."""
    command = [sys.executable, "-m", "mypy", "--no-incremental", *map(str, probes)]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_every_payload_reader_type_checks_and_an_unnarrowed_read_does_not(tmp_path: Path) -> None:
    house = _mypy()
    assert house.returncode == 0, house.stdout + house.stderr
    unnarrowed, wrong = tmp_path / "unnarrowed.py", tmp_path / "wrong_model.py"
    unnarrowed.write_text(UNNARROWED)
    wrong.write_text(WRONG_MODEL)
    probes = _mypy(unnarrowed, wrong)
    assert probes.returncode == 1, probes.stdout + probes.stderr
    assert '"EventData" has no attribute "url"' in probes.stdout
    assert '"StepData" has no attribute "url"' in probes.stdout


def test_a_reader_that_guesses_the_wrong_model_is_told_which_it_got() -> None:
    look = Event(session_id="s", seq=1, type=EventType.OBSERVATION, actor=Actor.NAVIGATOR,
                 data={"url": "https://example.com/", "title": "Example"})
    assert look.data_of(ObservationData).url == "https://example.com/"
    with pytest.raises(TypeError, match="OBSERVATION event carries ObservationData, not ActionData"):
        look.data_of(ActionData)
