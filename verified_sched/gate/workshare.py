"""Jobs shared by forked children and, optionally, this process: no process idles while a
job is left to start.

`run_forked(order, fn, children, participate, died)` yields (index, fn(index)) for every
index of `order` as it is done (in no particular order). The positions of `order` are tokens
in a pipe filled before the fork: each process, this one too when it participates, takes the
next token whenever it is free, so the jobs start in `order` (the costliest first) and the
work is balanced as it goes. Reading one token from a pipe is atomic and needs no lock, so a
child that dies holds nothing up: the job it was in becomes `died(index, reason)`, the jobs
it had not taken are done by the others (by this process when no child is left).

Children are forked (the caller makes sure that is safe: a single thread), so they inherit
the imported modules and `fn`; each sends ("take", token) and ("done", index, payload) on a
pipe of its own, widened so a child is not held up while this process is busy with a job.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import struct
from multiprocessing.connection import wait

_TOKEN = struct.Struct("=I")
_PIPE_BYTES = 1 << 20  # asked for each pipe (Linux allows up to fs.pipe-max-size, 1 MiB by default)


def _widen(fd: int) -> int:
    """Grow a pipe's buffer where the system allows; its capacity in bytes."""
    try:
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        return fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
    except (ImportError, AttributeError, OSError):
        return 4096  # POSIX guarantees at least PIPE_BUF


def _chunks(order: list, capacity: int) -> list:
    """`order` cut into at most capacity / token-size consecutive runs (one run per job as
    long as the tokens fit in the pipe, so the write before the fork never blocks)."""
    most = max(1, capacity // _TOKEN.size)
    size = -(-len(order) // most)
    return [order[k:k + size] for k in range(0, len(order), size)]


def _tokens(fd: int):
    """The tokens this process takes, one at a time, until none is left."""
    while True:
        data = os.read(fd, _TOKEN.size)
        if len(data) < _TOKEN.size:  # all taken (the write end is closed everywhere)
            return
        yield _TOKEN.unpack(data)[0]


def _child(fd: int, chunks: list, fn, me: int, pipes: list) -> None:
    """A child's whole life: it ends with os._exit, flushing no stream it inherited (whose
    buffer may hold the parent's output, or whose lock another parent thread may have held)."""
    code = 1
    try:
        for n, (reader, writer) in enumerate(pipes):
            reader.close()
            if n != me:
                writer.close()
        out = pipes[me][1]
        for token in _tokens(fd):
            out.send(("take", token))
            for i in chunks[token]:
                out.send(("done", i, fn(i)))
        out.close()
        code = 0
    finally:
        os._exit(code)


def run_forked(order: list, fn, children: int, participate: bool, died, forked=None):
    """Yield (index, fn(index)) for each index in `order` as it is done; `forked()` is called
    once the children run. `died(index, reason)`: the payload of the job a child died in;
    the jobs it had taken but not started are done in this process."""
    ctx = multiprocessing.get_context("fork")
    r, w = os.pipe()
    procs, live, taken = [], {}, {}
    try:
        chunks = _chunks(order, _widen(w))
        os.write(w, b"".join(_TOKEN.pack(k) for k in range(len(chunks))))
        os.close(w)
        w = -1
        pipes = [ctx.Pipe(duplex=False) for _ in range(children)]
        for reader, _ in pipes:
            _widen(reader.fileno())  # a child's results wait in the pipe while this process works
        for n in range(children):
            proc = ctx.Process(target=_child, args=(r, chunks, fn, n, pipes), daemon=True)
            proc.start()
            procs.append(proc)
        for n, (reader, writer) in enumerate(pipes):
            writer.close()
            live[reader] = n
        if forked:
            forked()

        def collect(timeout):
            for conn in wait(list(live), timeout):
                n = live[conn]
                try:
                    msg = conn.recv()
                except EOFError:  # the child is gone: finished, or died mid-job
                    del live[conn]
                    conn.close()
                    procs[n].join()
                    left = taken.pop(n, [])
                    if left:
                        yield left[0], died(left[0], _reason(procs[n]))
                        for i in left[1:]:
                            yield i, fn(i)
                    continue
                if msg[0] == "take":
                    taken[n] = list(chunks[msg[1]])
                else:
                    taken[n].remove(msg[1])
                    yield msg[1], msg[2]

        if participate:
            for token in _tokens(r):
                for i in chunks[token]:
                    yield from collect(0)
                    yield i, fn(i)
        while live:
            yield from collect(None)
        for token in _tokens(r):  # left by children that died: done here
            for i in chunks[token]:
                yield i, fn(i)
    finally:
        if w >= 0:
            os.close(w)
        os.close(r)
        for conn in live:
            conn.close()
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            proc.join()


def _reason(proc) -> str:
    code = proc.exitcode
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            import signal

            return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"
