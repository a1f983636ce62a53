"""A local site with one page per hard case for the browser operator, served on two origins."""
