"""Run a Python script with every bytecode executed counted per function, for
``roll_cost_ab.py --opcodes`` (callgrind sees the interpreter's C functions only; this
names the Python function each instruction's bytecode belongs to).

    python benchmarks/_opcount.py OUT.pickle SCRIPT [ARGS...]

At exit, ``OUT.pickle`` holds ``{(file, function, "ops" | "calls"): count}`` (a coroutine
resumed counts as a call). Slow — every opcode calls the tracer — but exact.
"""

from __future__ import annotations

import atexit
import collections
import pickle
import runpy
import sys
import threading
from types import FrameType
from typing import Any

counts: collections.Counter[tuple[str, str, str]] = collections.Counter()


def _trace(frame: FrameType, event: str, arg: Any) -> Any:
    code = frame.f_code
    if event == "opcode":
        counts[(code.co_filename, code.co_name, "ops")] += 1
    elif event == "call":
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        counts[(code.co_filename, code.co_name, "calls")] += 1
    return _trace


def _dump(path: str) -> None:
    sys.settrace(None)
    with open(path, "wb") as out:
        pickle.dump(dict(counts), out)


if __name__ == "__main__":
    out, script = sys.argv[1], sys.argv[2]
    sys.argv = sys.argv[2:]
    atexit.register(_dump, out)
    threading.settrace(_trace)
    sys.settrace(_trace)
    runpy.run_path(script, run_name="__main__")
