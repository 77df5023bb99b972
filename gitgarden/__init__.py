"""gitgarden: a gardener for a wiki folder kept in git."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.2.0"
