"""The built-in rulesets and extensions, each a plugin registered through the ``sidecar``
entry-point group of this distribution, exactly as a third-party plugin would be."""
