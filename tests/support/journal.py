"""Journal events made by hand, for the tests of the journal's files and pages."""

from __future__ import annotations


def event(table: str, seq: int, mode: str = "public", name: str = "A", role: str = "player",
          rid=None) -> dict:
    return {"type": "outcome", "seq": seq, "roll": f"r{seq}", "table": table,
            "by": {"name": name, "role": role}, "ruleset": "bloodlust", "params": {},
            "label": "", "mode": mode, "dice": [], "result": {}, "applied": [], "notes": [],
            "text": {"fr": "", "en": ""}, "request_id": rid}
