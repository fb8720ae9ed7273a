"""Offline tools: verifying exports, the plugin kit's scaffold, the hooks' reference."""
