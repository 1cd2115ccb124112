"""The CI gate around `vsched verify`: reports for CI systems and people (issue 14)."""
