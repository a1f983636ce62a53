"""The browser operator, by job: `operator` drives a page through Playwright; `pointer` and `keyboard`
act; `observe`, `evidence` and `watch` read; `writes`, `activation` and `guard` hold what must wait
for a GO or stay on the allow-list; `launch` and `locate` start a Chromium. Import the module you
need: this package loads nothing itself, so a light command never starts Playwright."""
