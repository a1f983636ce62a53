"""`goalbot eval`: a bundled suite of tasks judged by their own pages, run against the configured
model endpoint in batch slots, each episode a stored session, and scored."""
