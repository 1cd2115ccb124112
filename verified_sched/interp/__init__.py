"""The reference interpreter of the IR (the oracle's reference backend)."""
