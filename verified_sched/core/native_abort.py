"""Abort isl at a deadline from a native timer thread, without Python's global lock.

islpy keeps the GIL for the whole of an isl call, so the budget's watchdog thread
(`budget_watchdog`) cannot run while one long call is in progress: it aborts isl only once the
call returns, and a single long call (a flow analysis, a transitive closure, a large
subtraction) ran on past the deadline, up to isl's operation cap (a fuzz example: 15 s of wall
time at a 5 s timeout). Here a POSIX timer (`timer_create` with SIGEV_THREAD, CLOCK_MONOTONIC)
calls isl's own `isl_ctx_abort(ctx)` in a thread of its own when it expires: that function only
sets the context's abort flag, which isl checks at its next operation, so the running call fails
at the deadline and the obligation is `unknown` ("deadline"), as when the watchdog aborts it.

The context's address is read from the islpy object (the nanobind instance holds the wrapped
`isl_ctx *` as its first field). That layout is checked once per process in a forked child
(against `isl_set_get_ctx` of a set and the operation cap set through islpy), so a layout this
code does not expect disables the timer instead of crashing: the watchdog then works alone, as
before. Linux (glibc) on x86-64 or aarch64 only; elsewhere `available()` is False.

One timer per process, armed for the innermost obligation's deadline (`arm(seconds)`, relative)
and re-armed for the enclosing one when an obligation ends; a forked child has no timer (POSIX
timers are not inherited) and makes its own. The notification runs in a thread of its own a
little after the expiry: whoever replaces or clears an expired arming first waits until its
abort flag is set (`_settled`), so that a late notification cannot abort isl after the
obligation's exit has cleared the flag (`ctx.resume()`), outside any obligation. For the same
reason, the budget's watchdog leaves the flag to the timer when it was armed for the deadline.
"""
from __future__ import annotations

import ctypes
import math
import os
import platform
import sys
import time

_SIGEV_THREAD = 2
_CLOCK_MONOTONIC = 1
_state: dict = {"pid": None, "timer": None, "armed": False}
STATS = {"armed": 0, "disarmed": 0, "expired": 0}
SETTLE_WAIT = 2.0  # seconds at most to wait for an expired arming's notification


class _SigEvent(ctypes.Structure):  # struct sigevent, Linux 64-bit (64 bytes)
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("function", ctypes.c_void_p), ("attributes", ctypes.c_void_p), ("pad", ctypes.c_int * 8)]


class _TimeSpec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class _ITimerSpec(ctypes.Structure):
    _fields_ = [("interval", _TimeSpec), ("value", _TimeSpec)]


def _wrapped_pointer(obj) -> int:
    """The first pointer field of the C++ object a nanobind instance wraps (inline, or through a
    pointer when the instance does not hold it directly)."""
    base = id(obj)
    offset = ctypes.c_int32.from_address(base + 16).value
    flags = ctypes.c_uint32.from_address(base + 20).value
    where = base + offset
    if not (flags >> 2) & 1:  # not direct: the instance holds a pointer to the object
        where = ctypes.c_void_p.from_address(where).value
    return ctypes.c_void_p.from_address(where).value


def _libs():
    import islpy as isl

    lib = ctypes.CDLL(isl._isl.__file__)
    libc = ctypes.CDLL(None, use_errno=True)
    lib.isl_set_get_ctx.restype = ctypes.c_void_p
    lib.isl_set_get_ctx.argtypes = [ctypes.c_void_p]
    lib.isl_ctx_get_max_operations.restype = ctypes.c_ulong
    lib.isl_ctx_get_max_operations.argtypes = [ctypes.c_void_p]
    lib.isl_ctx_aborted.restype = ctypes.c_int
    lib.isl_ctx_aborted.argtypes = [ctypes.c_void_p]
    libc.timer_settime.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    libc.timer_gettime.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return isl, lib, libc


def _layout_ok() -> bool:
    """Whether the context address read from islpy is isl's (checked in a forked child: a wrong
    guess may read wild memory, which only kills the child)."""
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when every check agrees
        code = 1
        try:
            isl, lib, _ = _libs()
            ctx = isl.DEFAULT_CONTEXT
            address = _wrapped_pointer(ctx)
            s = isl.Set("{ [i] : 0 <= i < 3 }")
            ctx.set_max_operations(987_654_321)
            if (address and lib.isl_set_get_ctx(_wrapped_pointer(s)) == address
                    and lib.isl_ctx_get_max_operations(address) == 987_654_321):
                code = 0
        except BaseException:  # noqa: BLE001 - any failure means "do not use it"
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _supported_platform() -> bool:
    return (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "aarch64")
            and ctypes.sizeof(ctypes.c_void_p) == 8 and ctypes.sizeof(_SigEvent) == 64
            and hasattr(os, "fork") and os.environ.get("VSCHED_NATIVE_ABORT", "1") != "0")


_checked: dict = {}  # "layout" -> bool: checked once per process tree (a fork inherits it)


def _timer():
    """This process's timer (made on first use), or None where it cannot be used."""
    if _state["pid"] == os.getpid():
        return _state["timer"]
    _state.update(pid=os.getpid(), timer=None, armed=False)
    if not _supported_platform():
        return None
    try:
        if "layout" not in _checked:
            _checked["layout"] = _layout_ok()
        if not _checked["layout"]:
            return None
        isl, lib, libc = _libs()
        event = _SigEvent(value=_wrapped_pointer(isl.DEFAULT_CONTEXT), notify=_SIGEV_THREAD,
                          function=ctypes.cast(lib.isl_ctx_abort, ctypes.c_void_p).value)
        timer = ctypes.c_void_p()
        if libc.timer_create(_CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) != 0:
            return None
        # the event is kept alive with the timer
        _state["timer"] = (libc, timer, event, lambda: lib.isl_ctx_aborted(event.value))
    except (OSError, AttributeError, ImportError):
        return None
    return _state["timer"]


def available() -> bool:
    return _timer() is not None


def _expired(value: _ITimerSpec) -> bool:
    return value.value.sec == 0 and value.value.nsec == 0


def _settled(aborted) -> None:
    """An armed timer has expired: wait until its notification has set isl's abort flag."""
    STATS["expired"] += 1
    end = time.perf_counter() + SETTLE_WAIT
    while not aborted() and time.perf_counter() < end:
        time.sleep(0.0002)


def settle() -> None:
    """If the timer was armed and has expired, wait for its notification (then it is no longer
    armed): before the abort flag is cleared or set by anyone else."""
    t = _timer() if _state["armed"] else None
    if t is None:
        return
    libc, timer, _, aborted = t
    left = _ITimerSpec()
    if libc.timer_gettime(timer, ctypes.byref(left)) == 0 and _expired(left):
        _settled(aborted)
        _state["armed"] = False


def arm(seconds: float) -> bool:
    """Abort isl in `seconds` (replacing any earlier arming); `inf` disarms. False where no
    timer can be used (the watchdog alone then stops isl, between calls)."""
    t = _timer()
    if t is None:
        return False
    libc, timer, _, aborted = t
    was = _state["armed"]
    if math.isinf(seconds) and seconds > 0:
        if not was:
            return True
        spec = _ITimerSpec()  # all zero: disarm
        STATS["disarmed"] += 1
        _state["armed"] = False
    else:
        seconds = max(seconds, 1e-6)  # zero would disarm: expire at once instead
        whole = int(seconds)
        spec = _ITimerSpec(value=_TimeSpec(whole, int((seconds - whole) * 1e9)))
        STATS["armed"] += 1
        _state["armed"] = True
    old = _ITimerSpec()  # what was left of the arming replaced (read in the same call)
    ok = libc.timer_settime(timer, 0, ctypes.byref(spec), ctypes.byref(old)) == 0
    if ok and was and _expired(old):
        _settled(aborted)
    return ok
