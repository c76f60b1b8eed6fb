"""Where the project's files are, for tests that run its scripts and examples."""

from pathlib import Path

#: The repository's root (``src/``, ``scripts/``, ``examples/``, ``config/`` are in it).
ROOT = Path(__file__).resolve().parents[2]
