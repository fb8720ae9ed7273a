"""The built-in rulesets and extensions, each a plugin registered through the ``sidecar``
entry-point group of this distribution, exactly as a third-party plugin would be.

This folder is installed as ``sidecar.rulesets`` (see ``pyproject.toml``).
"""

if __name__ != "sidecar.rulesets":
    # Run from the repository's root, the folder is also reachable as a bare ``plugins``:
    # a second copy of every module (its own lru caches, its own classes) must not load.
    raise ImportError("import the built-in plugins as 'sidecar.rulesets', not as "
                      f"'{__name__}'")
