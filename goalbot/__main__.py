from goalbot.cli import entry

entry()
