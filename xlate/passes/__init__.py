"""Meaning-preserving IR analyses and transformations (pure functions; validated in tests)."""
