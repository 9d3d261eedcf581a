"""The bundled world: local web apps (Mail, Calendar, Drive, FinPortal expenses, Bank, Settings) with real
per-episode SQLite state, millisecond resets and a state API that contracts read in-process.

    from venuskit.world import WorldServer
    with WorldServer() as world:
        ep = world.new_episode(seed=3, locale="zh")
        url = world.bind_url(ep, "/mail/inbox")   # open this in the agent's browser
        world.state(ep).rows("SELECT * FROM mails WHERE folder = 'sent'")
"""

from venuskit.world.server import DEFAULT_TODAY, WorldServer
from venuskit.world.state import LOCALES, EpisodeState

__all__ = ["DEFAULT_TODAY", "LOCALES", "EpisodeState", "WorldServer"]
