"""Where tables are kept: the SQLite journal, Redis, and moving a table between them."""
