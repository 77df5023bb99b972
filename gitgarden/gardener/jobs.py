"""The jobs of a pass, by name: what `gitgarden run --job` offers before any of the pass is imported."""

from __future__ import annotations

__all__ = ["JOBS"]

# The jobs of a pass, in the order a pass runs them (`gitgarden run --job NAME` runs only those named).
# promote: read unread lines and ask the model (its repair round too); merge: the model's merges,
# which come through promote; split: the gardener's over-budget pages at their headings; hubs: the
# map pruned into hubs; link: mentions wrapped in links; map: entries for the pages the map does not
# reach; health: the figures before and after.
JOBS: tuple[str, ...] = ("promote", "merge", "split", "hubs", "link", "map", "health")
