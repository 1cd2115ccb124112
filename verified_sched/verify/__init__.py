"""Verification: the driver, obligations, their discharge, the generic goals, refutation by running."""
