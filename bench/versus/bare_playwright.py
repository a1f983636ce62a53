"""What any start costs: a bare Playwright script that launches the same Chromium with the same
flags and opens the page. Only its spawn → first page request is compared.

    python bare_playwright.py URL CHROMIUM
"""

import sys

from playwright.sync_api import sync_playwright

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


def main(url: str, chromium: str) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium or None, headless=True, args=FLAGS)
        page = browser.new_page()
        page.goto(url)
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:3])
