"""The skill file a coding agent reads (`goalbot skill`)."""
