"""Exit codes of every `vsched` command, and the guard that maps exceptions to them.

    0  legal / equal           1  illegal / different (a refutation, a mismatch, a kernel that fails)
    2  usage or input error    3  unknown (verify: nothing refuted, something unproved)
    4  internal error (a bug in vsched: one line on stderr; the traceback with --debug or
       VSCHED_DEBUG=1)

`run_guarded` calls a command and turns whatever escapes it into one of these codes: a
`VschedError` is the user's (exit 2, `FILE:LINE:COL: message` or `vsched: error: message`),
a RecursionError or MemoryError comes from an input beyond what vsched can hold (exit 2, with
the limit named), anything else is an internal error (exit 4). Never a traceback by default.
"""
from __future__ import annotations

import os
import sys

OK, FINDING, USAGE, UNKNOWN, INTERNAL = 0, 1, 2, 3, 4


def debug_enabled(flag: bool = False) -> bool:
    return flag or os.environ.get("VSCHED_DEBUG", "") not in ("", "0")


def error_message(e) -> str:
    """`FILE:LINE:COL: message`, or `vsched: error: message` where there is no position."""
    loc = getattr(e, "loc", None)
    return str(e) if loc is not None else f"vsched: error: {getattr(e, 'message', e)}"


def _traceback(e: BaseException) -> None:
    import traceback  # only with --debug: not imported at start-up

    traceback.print_exception(e, file=sys.stderr)


def _stderr(message: str) -> None:
    try:
        print(message, file=sys.stderr)
    except (OSError, ValueError):  # stderr closed: nothing more to say
        pass


def internal(e: BaseException, debug: bool) -> int:
    """Report an unexpected exception as an internal error: one line, the traceback on demand."""
    if debug:
        _traceback(e)
    what = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
    _stderr(f"vsched: internal error: {what[:300]} (please report this; rerun with --debug "
            "for the traceback)")
    return INTERNAL


def run_guarded(fn, args, debug: bool = False, runtime_errors=tuple) -> int:
    """`fn(args)`'s exit code; exceptions become exit codes as described in the module doc.
    `runtime_errors()`: the VschedError subclasses that are findings about a running kernel
    (exit 1), called only when an exception escapes."""
    debug = debug_enabled(debug)
    try:
        return fn(args)
    except BrokenPipeError:  # `vsched ... | head`: stop quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return FINDING
    except KeyboardInterrupt:
        _stderr("vsched: interrupted")
        return 130
    except Exception as e:  # noqa: BLE001 - sorted below; never a traceback
        return _exit_code(e, debug, runtime_errors)


def _exit_code(e: Exception, debug: bool, runtime_errors) -> int:
    """The exit code (and the message) of an exception that escaped a command.
    `runtime_errors()` is called only here, so a command that raises none of them never
    imports their modules (`vsched verify` starts faster without the kernel runners)."""
    from .errors import InternalError, VschedError

    try:
        runtime = runtime_errors()
    except Exception:  # noqa: BLE001 - a module that cannot be imported raised nothing here
        runtime = ()
    if isinstance(e, runtime):
        if debug:
            _traceback(e)
        _stderr(error_message(e))
        return FINDING
    if isinstance(e, InternalError):
        return internal(e, debug)
    if isinstance(e, (VschedError, RecursionError, MemoryError, OSError)):  # the input's fault: exit 2
        if debug:
            _traceback(e)
        _stderr(_input_error_text(e))
        return USAGE
    return internal(e, debug)  # the last line of defence: never a traceback


def _input_error_text(e: BaseException) -> str:
    from .errors import VschedError

    match e:
        case VschedError():
            return error_message(e)
        case RecursionError():
            return ("vsched: error: the input nests too deeply to process (Python's recursion limit "
                    "was reached); see the input limits in docs/cli.md")
        case MemoryError():
            return ("vsched: error: out of memory: the input or the sizes need more memory than "
                    "is available; use smaller sizes or a smaller input")
    return f"vsched: error: {e}"
