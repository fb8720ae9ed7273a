"""The WebSocket server: connections, frames, limits, and the web table's files."""
