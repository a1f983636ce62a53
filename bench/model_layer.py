"""Figures for the model layer: what reading an answer costs in each dialect, and what a model
call costs through the real `openai` client against the scripted server — answered at once,
after a 500, and with the prompt cut down after "context too long".

    python bench/model_layer.py

Prints medians; nothing here asserts, these machines are too noisy for that.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goalbot.events import Bus, Emitter, new_session_id  # noqa: E402
from goalbot.llm.answers import ActionsAnswer  # noqa: E402
from goalbot.llm.client import ChatReply, ModelClient, ModelConfig, ToolCall  # noqa: E402
from goalbot.llm.coordinates import Convention, Geometry  # noqa: E402
from goalbot.llm.dialects import Dialect  # noqa: E402
from goalbot.llm.dialogue import Dialogue  # noqa: E402
from goalbot.llm.transport import RetryPolicy  # noqa: E402
from goalbot.scripted.server import Script, ScriptedModelServer  # noqa: E402

ANSWERS = {
    Dialect.TOOLS: ChatReply(tool_calls=[
        ToolCall(id="1", name="type", arguments='{"index": 4, "text": "kimchi", "submit": true}'),
        ToolCall(id="2", name="click", arguments='{"x": 640, "y": 400}')]),
    Dialect.JSON: ChatReply(content='Sure:\n```json\n[{"action": "input", "element": 4, "text": "kimchi",'
                                    ' "submit": true}, {"action": "left_click", "coordinate": [640, 400],}]\n```'),
    Dialect.UITARS: ChatReply(content="Thought: type, then press the button.\nAction: type(content='kimchi\\n')"
                                      "\n\nclick(start_box='<|box_start|>(480,480,520,520)<|box_end|>')"),
}


def _median_us(fn: Callable[[], Any], runs: int = 2000) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


async def _call_ms(script: dict[str, Any], runs: int) -> tuple[float, int]:
    """Median milliseconds for one answered call, and how many requests it took."""
    times, requests = [], 0
    for _ in range(runs):
        with ScriptedModelServer(Script(script)) as server:
            emitter = Emitter(Bus(), new_session_id())
            config = ModelConfig(base_url=server.base_url, model="bench", retry=RetryPolicy(base_s=0.0))
            client = ModelClient(config, emitter)
            answer = ActionsAnswer(Geometry.for_screenshot((1280, 800)), Convention.PIXELS, vision=False)
            page = "\n".join(f'[{i}] button "Item {i}"' for i in range(1, 200))
            started = time.perf_counter()
            await Dialogue(client).ask("navigator", lambda level: [
                {"role": "user", "content": page[: 6000 >> level]}], answer, 1)
            times.append(time.perf_counter() - started)
            requests = len(server.requests)
            await client.close()
    return statistics.median(times) * 1000, requests


def main() -> None:
    answer = ActionsAnswer(Geometry.for_screenshot((1280, 800)), Convention.RELATIVE_1000, vision=True)
    print("reading one navigator answer (two actions), median of 2,000:")
    for dialect, reply in ANSWERS.items():
        print(f"  {dialect.value:<7} {_median_us(lambda: answer.parse(reply, dialect)):7.0f} µs")
    ok = {"navigator": [{"tool_calls": [{"name": "click", "arguments": {"index": 3}}]}]}
    after_500 = {"navigator": [{"fault": "server_error"}, *ok["navigator"]]}
    too_long = {"server": {"context_chars": 3000}, **ok}
    print("one navigator call through the openai client, median of 15 (backoff set to 0):")
    for label, script in [("answered at once", ok), ("after one HTTP 500", after_500),
                          ("prompt cut down until it fits", too_long)]:
        ms, requests = asyncio.run(_call_ms(script, 15))
        print(f"  {label:<30} {ms:6.1f} ms  ({requests} requests)")


if __name__ == "__main__":
    main()
