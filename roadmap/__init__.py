"""roadmap: lint engineering records (markdown) against git history and benchmark evidence."""

__version__ = "0.1.0"
