"""Coverage-guided fuzzing of the frame decoder and request validator (atheris).

Run by tests/test_fuzz.py with a bounded budget; by hand:
    .venv/bin/python tests/fuzz_decoder.py -runs=200000
Any exception other than the contract's ProtocolError is a crash, and atheris reports it.
"""

import sys

import atheris

with atheris.instrument_imports():
    from sidecar.protocol.codec import decode
    from sidecar.protocol.errors import ERROR_CODES, ProtocolError
    from sidecar.protocol.messages import parse_request


def one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    as_text = provider.ConsumeBool()
    frame = provider.ConsumeUnicodeNoSurrogates(4096) if as_text else provider.ConsumeBytes(4096)
    try:
        parse_request(decode(frame))
    except ProtocolError as error:
        if error.code not in ERROR_CODES:
            raise


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
