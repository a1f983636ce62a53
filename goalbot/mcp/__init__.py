"""`goalbot mcp`: goalbot as a Model Context Protocol server, for agent hosts (Claude Code, Cursor,
VS Code, agent frameworks). Runs started here are stored sessions like any other."""
