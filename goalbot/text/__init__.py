"""Pure text shared by the command line and the dashboard: event lines, the report, plan editing."""
