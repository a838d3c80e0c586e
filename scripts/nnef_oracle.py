#!/usr/bin/env python3
"""The Khronos NNEF reference parser (PyPI `nnef` 1.0.10) as an oracle for our NNEF front end.

Protocol: JSON lines. Each input line is a request

    {"id": ANY, "text": "<NNEF document>", "lowered": ["frag", ...], "quant": "<graph.quant text>"}

("lowered" and "quant" are optional: "lowered" names the fragments the Khronos parser expands into
their bodies, which it needs for fragments defined in the document because its shape inference
only knows the standard operations). For each request one line is written and flushed:

    {"id": ..., "ok": true, "graph": NAME, "inputs": [...], "outputs": [...], "ops": [...],
     "shapes": {TENSOR: [EXTENT, ...]}, "dtypes": {TENSOR: "scalar" | "integer" | "logical"}}

when `nnef.parse_string` and then `nnef.infer_shapes` both succeed, and otherwise

    {"id": ..., "ok": false, "error": "MESSAGE"}

A document that crashes the parser (a signal in its C++ core) or runs longer than --timeout
seconds is reported as {"ok": false, "crashed": true, "error": ...}: each document is parsed in a
forked child process (unless --no-isolate), so no document can stop the stream.

Run it with the project's venv (scripts/setup-python.sh):

    .venv/bin/python scripts/nnef_oracle.py < requests.jsonl > verdicts.jsonl
"""

import argparse
import json
import os
import select
import signal
import sys
import time


def verdict(text, lowered=None, quant=None):
    """Parses `text` and infers its shapes: the response object (without "id")."""
    import nnef

    try:
        graph = nnef.parse_string(text, quant_str=quant, lowered=list(lowered or []))
        nnef.infer_shapes(graph)
    except Exception as e:  # nnef.Error, AssertionError from shape functions, TypeError, ...
        message = str(e) or type(e).__name__
        return {"ok": False, "error": message}
    shapes = {}
    dtypes = {}
    for name, tensor in graph.tensors.items():
        shapes[str(name)] = None if tensor.shape is None else [int(x) for x in tensor.shape]
        dtypes[str(name)] = None if tensor.dtype is None else str(tensor.dtype)
    return {
        "ok": True,
        "graph": str(graph.name),
        "inputs": [str(x) for x in graph.inputs],
        "outputs": [str(x) for x in graph.outputs],
        "ops": [str(op.name) for op in graph.operations],
        "shapes": shapes,
        "dtypes": dtypes,
    }


def isolated_verdict(text, lowered, quant, timeout):
    """`verdict` computed in a forked child, so a crash or a hang of the parser is a verdict."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        try:
            data = json.dumps(verdict(text, lowered, quant)).encode()
        except BaseException as e:  # never let the child return into the parent's loop
            data = json.dumps({"ok": False, "error": "oracle error: %r" % (e,)}).encode()
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write_fd)
    chunks = []
    deadline = time.monotonic() + timeout
    timed_out = False
    with os.fdopen(read_fd, "rb") as inp:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([inp], [], [], left)
            if not ready:
                continue
            chunk = os.read(inp.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return {"ok": False, "crashed": True, "error": "timed out after %gs" % timeout}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return {"ok": False, "crashed": True, "error": "parser crashed: signal %d (%s)" % (sig, signal.Signals(sig).name)}
    try:
        return json.loads(b"".join(chunks).decode())
    except ValueError:
        return {"ok": False, "crashed": True, "error": "parser child exited with status %d and no verdict" % status}


def respond(line, isolate, timeout):
    """The response line for one request line."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict) or not isinstance(request.get("text"), str):
            raise ValueError('a request is an object with a string "text"')
        lowered = request.get("lowered") or []
        quant = request.get("quant")
        if not isinstance(lowered, list) or not all(isinstance(x, str) for x in lowered):
            raise ValueError('"lowered" is a list of fragment names')
        if quant is not None and not isinstance(quant, str):
            raise ValueError('"quant" is a string')
    except ValueError as e:
        return {"id": None, "ok": False, "bad_request": True, "error": "bad request: %s" % e}
    if isolate:
        result = isolated_verdict(request["text"], lowered, quant, timeout)
    else:
        result = verdict(request["text"], lowered, quant)
    response = {"id": request.get("id")}
    response.update(result)
    return response


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-isolate", action="store_true",
                        help="parse in this process (faster; a parser crash ends the stream)")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds allowed per document when isolated (default 30)")
    args = parser.parse_args()
    import nnef  # noqa: F401  (fail early, before reading, when the venv lacks it)

    for line in sys.stdin:
        if not line.strip():
            continue
        response = respond(line, not args.no_isolate, args.timeout)
        sys.stdout.write(json.dumps(response, sort_keys=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
