"""`vsched tune`: a search over proved-legal schedules."""
