"""What a `vsched fuzz --backend MODULE:FACTORY` runner may raise besides a finding.

A backend that takes only some kernels (IREE: what linalg on tensors can express) raises
`Declined` for the others: the campaign counts the example as declined by the backend (in
`backend_declined`, beside `backend_comparisons`) instead of reporting a backend finding.
Any other exception the runner raises is a finding."""
from __future__ import annotations


class Declined(Exception):
    """The backend does not take this kernel (the message says why); not a finding."""
