"""`python -m verified_sched ...` is the `vsched` command."""
from .cli import main

raise SystemExit(main())
