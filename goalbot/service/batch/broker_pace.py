"""The pace per site shared by every job on every worker of a broker: each site's next slot in
Redis, taken by one script (atomic there), on the broker's clock so machines need not agree."""

from __future__ import annotations

import redis

_TAKE_SLOT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local interval, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - interval * (burst - 1) - now
if wait < 0 then wait = 0 end
redis.call('SET', KEYS[1], tostring(tat + interval), 'PX', math.ceil((tat + interval - now) * 1000) + 60000)
return tostring(wait)
"""


class BrokerPace:
    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=10)
        self._take = self.client.register_script(_TAKE_SLOT)

    def reserve(self, site: str, interval_s: float, burst: int) -> float:
        return float(self._take(keys=[f"goalbot:pace:{site}"], args=[interval_s, burst]))
