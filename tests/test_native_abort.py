"""The deadline stops one long isl call (core/native_abort.py): islpy holds the GIL through a
call, so the budget's watchdog thread could abort isl only between calls, and a single long
call ran on to isl's operation cap (fuzz s4242/slow00: 14.8 s of wall time at --timeout 5)."""
from __future__ import annotations

import math
import time

import islpy as isl
import pytest

from verified_sched.core import budget, native_abort

pytestmark = pytest.mark.skipif(not native_abort.available(), reason="no native timer on this platform")

# one isl call of about 12 CPU seconds (lexmin of a composed modular relation): far past the
# test's deadline, far short of isl's operation cap (so only an abort can stop it early)
_LONG = "[n] -> { [i,j] -> [a,b] : 0 <= i,j,a,b < n and (3i + 5j) mod 11 = (7a + b) mod 13 }"


def _long_call():
    m = isl.Map(_LONG)
    return m.apply_range(m).lexmin()


def test_regression_s4242_slow00_one_long_isl_call_stops_at_the_deadline():
    result, reason = budget.guarded(_long_call, budget.now() + 0.3)
    assert result is None
    assert reason.startswith(budget.DEADLINE) and "isl aborted" in reason
    assert isl.Set("{ [i] : 0 <= i < 4 }").count_val().to_python() == 4  # isl usable afterwards


def test_the_timer_follows_nested_obligations_and_is_disarmed_after_the_last():
    before = dict(native_abort.STATS)
    far = budget.now() + 3600
    with budget.scope(far):
        with budget.scope(far - 1):
            assert isl.Set("{ [i] : 0 <= i < 3 }").count_val().to_python() == 3
        assert native_abort._state["armed"]  # re-armed for the enclosing deadline
    assert not native_abort._state["armed"]
    assert native_abort.STATS["armed"] - before["armed"] == 3  # outer, inner, outer again
    assert native_abort.STATS["disarmed"] - before["disarmed"] == 1


def test_regression_late_notification_does_not_abort_isl_after_the_obligation():
    """The timer's notification runs in its own thread a little after the expiry: an
    obligation that ended just past its deadline cleared isl's flag first, and the late
    notification then aborted an isl call outside any obligation (test_verify_budgets failed
    under load: "call to isl_set_is_subset failed"). Replacing an expired arming now waits for
    its notification, so the exit's `resume` comes after it."""
    ctx = isl.DEFAULT_CONTEXT
    expired = native_abort.STATS["expired"]
    native_abort.arm(1e-6)
    time.sleep(0.005)  # expired by now: its notification may still be on its way
    native_abort.arm(math.inf)
    assert native_abort.STATS["expired"] == expired + 1  # the replacement saw the expiry and waited
    assert ctx.aborted()  # so the notification landed before arm returned
    ctx.resume()
    for _ in range(100):  # obligations that end right at their deadline
        with budget.scope(budget.now() + 0.0005):
            time.sleep(0.001)
    time.sleep(0.01)
    assert not ctx.aborted()
    assert isl.Set("{ [i] : 0 <= i < 5 }").count_val().to_python() == 5
