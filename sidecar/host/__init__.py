"""The plugin host and the roll pipeline: loading plugins, calling them, checking what
they describe and return."""
