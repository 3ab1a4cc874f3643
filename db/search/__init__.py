"""Search: a query's text through its stages, parse, rewrite, match, rank and result."""
