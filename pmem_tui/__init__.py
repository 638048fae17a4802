"""pmem-tui: see, search, review and safely change what your AI agents remember."""

__version__ = "0.1.0"
