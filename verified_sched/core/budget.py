"""The verifier's resource budgets, in one place: the default timeout, isl's operation budget
per obligation, z3's per-query timeout and the deadline.

Every obligation runs inside `scope(deadline)`:

- isl's operation counter is reset and capped at `ISL_MAX_OPERATIONS` (a runaway isl call
  fails with "maximal number of operations exceeded" instead of running on);
- a watchdog aborts isl (`isl_ctx_abort`) when the deadline passes, so even a long sequence of
  isl calls stops at the deadline (isl checks the flag at its next operation); a native timer
  (`native_abort`) does the same without the GIL, which islpy holds through one long call;
- z3 solvers made while it is active (`z3_timeout_ms`, smt.solver.solver) never get more than
  the time left before the deadline.

An exception that escapes an obligation is turned into the reason of an `unknown` status by
`unknown_reason`: "isl operation budget exhausted", "deadline", "z3 timeout" or the memory
limit. Running out is never a proof.
"""
from __future__ import annotations

import contextlib
import math
import sys
import threading
import time

from . import budget_watchdog, native_abort

DEFAULT_TIMEOUT = 10.0  # seconds per kernel and per claim (`vsched verify --timeout`)
ISL_MAX_OPERATIONS = 5_000_000  # isl operations per obligation
MIN_Z3_MS = 1  # z3 treats 0 as "no timeout": never pass it
# isl's rows are as wide as the parameter list, and one operation's cost grows about as its
# square: past WIDE_PARAMS parameters the budget shrinks by (WIDE_PARAMS / params)^2, so a
# program with thousands of parameters runs out in seconds instead of minutes
WIDE_PARAMS = 128

ISL_BUDGET = "isl operation budget exhausted"
Z3_TIMEOUT = "z3 timeout"
DEADLINE = "deadline"

ISL_QUOTA_TEXT = "maximal number of operations exceeded"
_state = {"deadline": math.inf, "aborted": False, "depth": 0, "params": 0}


def now() -> float:
    return time.perf_counter()


def remaining() -> float:
    """Seconds left before the deadline of the obligation running now (inf outside one)."""
    return _state["deadline"] - now()


def operations() -> int:
    """isl's operation budget per obligation for the program being verified (`program`)."""
    n = _state["params"]
    if n <= WIDE_PARAMS:
        return ISL_MAX_OPERATIONS
    return max(1000, int(ISL_MAX_OPERATIONS * (WIDE_PARAMS / n) ** 2))


@contextlib.contextmanager
def program(n_params: int):
    """Budgets sized for a program with `n_params` parameters (see WIDE_PARAMS)."""
    before = _state["params"]
    _state["params"] = n_params
    try:
        yield
    finally:
        _state["params"] = before


def expired(deadline: float) -> bool:
    return now() >= deadline


def z3_timeout_ms(timeout: float | None = None) -> int:
    """z3's per-query timeout in ms: `timeout` (default DEFAULT_TIMEOUT), capped by the time
    left before the current deadline; at least MIN_Z3_MS."""
    t = DEFAULT_TIMEOUT if timeout is None else timeout
    t = min(t, remaining())
    if not t > 0:  # NaN or past the deadline: the query gives up at once
        return MIN_Z3_MS
    return max(MIN_Z3_MS, int(t * 1000))


def deadline_message(where: str = "") -> str:
    return f"{DEADLINE}: not decided, the verification timeout was reached" + (f" {where}" if where else "")


@contextlib.contextmanager
def scope(deadline: float, max_operations: int | None = None):
    """One obligation's budget: isl's operation cap (counter reset), the watchdog that aborts
    isl at the deadline, and the deadline z3 timeouts are derived from. Scopes nest (an op's
    obligation inside the op's own scope); leaving one restores the enclosing budget
    (unlimited isl outside every obligation)."""
    import islpy as isl

    ctx = isl.DEFAULT_CONTEXT
    previous = dict(_state)
    previous_ops = ctx.get_max_operations()
    ops = operations() if max_operations is None else max_operations
    _state.update(deadline=min(deadline, previous["deadline"]), aborted=False, depth=previous["depth"] + 1)
    mine = _state["deadline"]
    native_abort.settle()  # an enclosing arming's late notification lands before the flag is cleared
    ctx.resume()
    ctx.reset_operations()
    ctx.set_max_operations(ops)
    lock = threading.Lock()
    native = [False]  # whether the native timer was armed for this deadline

    def abort():
        with lock:
            if _state["deadline"] == mine:
                _state["aborted"] = True
                if not native[0]:  # else the native timer sets isl's flag (native_abort.py)
                    ctx.abort()

    left = mine - now()
    token = None
    if left <= 0:
        abort()
    elif math.isfinite(left):
        # the watchdog needs the GIL, which islpy holds through a call: a native timer also
        # aborts isl in the middle of one long call (native_abort.py)
        native[0] = native_abort.arm(left)
        # one long-lived watchdog thread for every scope (budget_watchdog.py): starting a
        # timer thread per obligation cost milliseconds each
        token = budget_watchdog.add(mine, abort)
    try:
        yield
    finally:
        if token is not None:
            budget_watchdog.cancel(token)
        with lock:
            _state.update(previous)
        if token is not None:  # the enclosing obligation's deadline, or none
            native_abort.arm(previous["deadline"] - now())
        ctx.resume()
        ctx.set_max_operations(previous_ops)
        ctx.reset_operations()


def guarded(fn, deadline: float, max_operations: int | None = None):
    """`fn()` inside one obligation's budget (`scope`, isl's cap `max_operations` when given):
    returns (result, None), or (None, reason) when the deadline had passed, or isl's operation
    budget, the deadline, z3 or the memory limit stopped it. Any other exception propagates."""
    if expired(deadline):
        return None, deadline_message()
    with scope(deadline, max_operations):
        try:
            return fn(), None
        except _stoppers() as exc:
            reason = unknown_reason(exc)  # inside the scope: the quota can still be probed
            if reason is None:
                raise
            return None, reason


def _stoppers() -> tuple:
    """The exceptions a budget may have caused: isl's, MemoryError and z3's once z3 is loaded
    (read when one is raised: z3 raises nothing before it is imported, and a file that needs no
    z3 proof does not import it, benchmarks/startup.py)."""
    import islpy as isl

    z3_error = getattr(sys.modules.get("z3"), "Z3Exception", None)
    return (isl.Error, MemoryError) + ((z3_error,) if z3_error is not None else ())


def quota_exhausted() -> bool:
    """Whether isl's operation counter is past its cap: isl reports a quota hit inside a
    parser as a syntax error, so ask isl for one more (tiny) operation."""
    import islpy as isl

    try:
        isl.BasicSet("{ [i] : 0 <= i < 2 }").is_empty()
    except isl.Error:
        return True
    return False


def exhausted() -> bool:
    """Whether the running obligation has run out (deadline or isl operations): code that
    treats an isl error as "not decidable here" must re-raise it then."""
    return _state["depth"] > 0 and (_state["aborted"] or now() >= _state["deadline"] or quota_exhausted())


def unknown_reason(exc: BaseException) -> str | None:
    """The `unknown` message for an exception raised by an isl or z3 computation inside an
    obligation, or None when it is not about resources (a genuine error: re-raise it)."""
    import islpy as isl

    from . import memlimit

    if isinstance(exc, MemoryError):
        return memlimit.exceeded_message("deciding this obligation")
    if isinstance(exc, isl.Error):
        text = str(exc)
        if _state["aborted"] or now() >= _state["deadline"]:
            return deadline_message("(isl aborted)")
        if ISL_QUOTA_TEXT in text or (_state["depth"] and quota_exhausted()):
            cap = isl.DEFAULT_CONTEXT.get_max_operations() if _state["depth"] else 0
            return f"{ISL_BUDGET} ({cap or operations()} operations)"
        # isl reports a failed allocation inside its parser as a syntax error; our own
        # generated text has none, so under a memory cap that is the cap
        if "alloc" in text.lower() or "memory" in text.lower() or (
                memlimit.current_limit() is not None and "syntax error" in text):
            return memlimit.exceeded_message("deciding this obligation (isl)")
        return f"isl could not decide this ({exc})"
    z3_error = getattr(sys.modules.get("z3"), "Z3Exception", None)  # not loaded: not z3's
    if z3_error is not None and isinstance(exc, z3_error):
        text = str(exc)
        if "canceled" in text or "timeout" in text:
            return Z3_TIMEOUT
        if "memory" in text.lower():
            return memlimit.exceeded_message("deciding this obligation (z3)")
        return f"z3 could not decide this ({text})"
    return None


def z3_unknown(reason: str) -> str:
    """The message for z3's `unknown` answer given its reason_unknown()."""
    if reason in ("timeout", "canceled") or "timeout" in reason:
        return Z3_TIMEOUT
    if "memory" in reason:
        from . import memlimit
        return memlimit.exceeded_message("deciding this obligation (z3)")
    return f"z3: {reason}"
