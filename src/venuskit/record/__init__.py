"""The one episode record (Episode / Step / Outcome), its atomic on-disk store, exports and viewer.

Exports and the viewer are imported from their modules (`venuskit.record.export`, `.viewer`,
`.overlay`) so that loading an episode does not import pyarrow or PIL.
"""

from venuskit.record.episode import Episode, FinalObservation, Outcome, Step
from venuskit.record.store import (
    EpisodeStore,
    EpisodeStoreError,
    EpisodeWriter,
    final_png,
    image_path,
    iter_episode_dirs,
    iter_episodes,
    load_episode,
    read_image,
    step_png,
)

__all__ = [
    "Episode",
    "EpisodeStore",
    "EpisodeStoreError",
    "EpisodeWriter",
    "FinalObservation",
    "Outcome",
    "Step",
    "final_png",
    "image_path",
    "iter_episode_dirs",
    "iter_episodes",
    "load_episode",
    "read_image",
    "step_png",
]
