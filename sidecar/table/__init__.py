"""The table core, without I/O: members, seats, characters, asks, open rolls, and who
may see what."""
