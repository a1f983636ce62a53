"""What goalbot does for whoever asks — the command line, the dashboard, an MCP host, a batch
worker: start a goal, prepare and start a rerun, end a run, run batch jobs. Every check is made
here once, before anything starts, and a refusal is one `Refusal` that each door words its own
way. Nothing here prints: a door hands in what to do with a line meant for the person."""
