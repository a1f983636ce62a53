"""One browser-use run, in browser-use's own interpreter (it is never a goalbot dependency).

    python browser_use_agent.py GOAL URL BASE_URL CHROMIUM [default|lean]

lean is browser-use's leanest mode: flash (no thinking, no evaluation of the previous goal), no
judge, no planning. Prints one JSON line: whether browser-use thinks it is done and successful.
"""

import asyncio
import json
import os
import sys

os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")
os.environ.setdefault("BROWSER_USE_CLOUD_SYNC", "false")
os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "warning")

from browser_use import Agent, Browser  # noqa: E402
from browser_use.llm.openai.chat import ChatOpenAI  # noqa: E402

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


async def main(goal: str, url: str, base_url: str, chromium: str, mode: str = "default") -> None:
    browser = Browser(executable_path=chromium or None, headless=True, args=FLAGS)
    lean = {"flash_mode": True, "use_judge": False, "enable_planning": False} if mode == "lean" else {}
    agent = Agent(task=f"{goal} Start at {url}", browser=browser,
                  llm=ChatOpenAI(model="perfect", base_url=base_url, api_key="bench"), **lean)
    history = await agent.run(max_steps=10)
    print(json.dumps({"done": history.is_done(), "success": history.is_successful()}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
