/**
 * The Redis store's writes as Lua scripts: each is atomic and one round trip. Times come
 * from Redis (`TIME`), so leases mean the same on every instance. Redis 7 replicates a
 * script's effects, so calling `TIME` before a write is allowed.
 * https://redis.io/docs/latest/develop/interact/programmability/eval-intro/
 */
const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Keeps finished runs within a byte budget: counts the run just finished (KEYS[1], its events in
 * KEYS[2]) in the sorted set of finished runs (by finish time) and their total, forgets those whose
 * retention ended, and evicts the oldest while the total is over the budget: an evicted run's events
 * are deleted and its record marked `expired` (a resume answers run_expired). Needs NOW, and
 * `id`, `retainMs`, `prefix`, `maxFinishedBytes` set by the script that uses it.
 */
const KEEP_FINISHED = `local fin = prefix .. 'finished'
local sizes = prefix .. 'finished:bytes'
local totalKey = prefix .. 'finished:total'
for _, old in ipairs(redis.call('ZRANGEBYSCORE', fin, '-inf', now - retainMs)) do
  redis.call('ZREM', fin, old)
  redis.call('DECRBY', totalKey, tonumber(redis.call('HGET', sizes, old) or '0'))
  redis.call('HDEL', sizes, old)
end
local size = tonumber(redis.call('HGET', KEYS[1], 'bytes') or '0')
redis.call('ZADD', fin, now, id)
redis.call('HSET', sizes, id, size)
local total = tonumber(redis.call('INCRBY', totalKey, size))
while total > maxFinishedBytes do
  local oldest = redis.call('ZPOPMIN', fin)
  if #oldest == 0 then break end
  local victim = oldest[1]
  total = tonumber(redis.call('DECRBY', totalKey, tonumber(redis.call('HGET', sizes, victim) or '0')))
  redis.call('HDEL', sizes, victim)
  local record = prefix .. 'run:{' .. victim .. '}'
  redis.call('DEL', record .. ':events')
  local requestKey = redis.call('HGET', record, 'requestKey')
  if requestKey then
    redis.call('HSET', record, 'expired', 1)
    redis.call('DEL', prefix .. 'req:' .. requestKey)
  end
end`;

export const SCRIPTS = {
  // KEYS: req, run, running. ARGV: id, requestKey, createdAt, maxRunning, leaseMs, ttlMs, owner ('' for none).
  // Returns {1, id} created, {0, id} an existing run for the request key, {2} at maxRunning.
  create: `${NOW}
local existing = redis.call('GET', KEYS[1])
if existing then return {0, existing} end
-- Runs whose lease lapsed are lost, not going: they do not hold a place.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return {2} end
local lease = now + tonumber(ARGV[5])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[6])
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'requestKey', ARGV[2], 'status', 'running', 'createdAt', ARGV[3], 'count', 0, 'bytes', 0, 'cancel', 0, 'lease', lease, 'owner', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[3], lease, ARGV[1])
return {1, ARGV[1]}`,

  // KEYS: run, events, running. ARGV: json, kind ('f' chat-finish, 't' error, '0' other), maxEvents, maxBytes, leaseMs, channel, id, at (-1: none), owner ('' for any).
  // Returns {seq, cancel}, {-1} no run, {-2} finished or taken over by another owner, {-3, 'events'|'bytes'} over a limit.
  // 'last' keeps the kind of the last event: `finish` needs it to be the chat-finish. With 'at' below
  // the count, the event is there already (an attempt whose reply was lost): nothing is written.
  append: `local h = redis.call('HMGET', KEYS[1], 'status', 'count', 'bytes', 'cancel', 'owner')
if not h[1] then return {-1} end
if h[1] ~= 'running' then return {-2} end
if ARGV[9] ~= '' and h[5] ~= ARGV[9] then return {-2} end
local at = tonumber(ARGV[8])
if at >= 0 and at < tonumber(h[2]) then return {at, tonumber(h[4])} end
local size = string.len(ARGV[1])
if ARGV[2] == '0' then
  if tonumber(h[2]) >= tonumber(ARGV[3]) then return {-3, 'events'} end
  if tonumber(h[3]) + size > tonumber(ARGV[4]) then return {-3, 'bytes'} end
end
${NOW}
local lease = now + tonumber(ARGV[5])
local n = redis.call('RPUSH', KEYS[2], ARGV[1])
if n == 1 then redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1])) end
redis.call('HSET', KEYS[1], 'count', n, 'bytes', tonumber(h[3]) + size, 'lease', lease, 'last', ARGV[2])
redis.call('ZADD', KEYS[3], 'XX', lease, ARGV[7])
redis.call('PUBLISH', ARGV[6], (n - 1) .. ' ' .. ARGV[1])
return {n - 1, tonumber(h[4])}`,

  // KEYS: run, events, running. ARGV: id, retainMs, channel, prefix, maxFinishedBytes.
  // Returns {1} finished, {0} it was not going (finished already), {-1} no run, {-4} its last event is not its chat-finish.
  finish: `local h = redis.call('HMGET', KEYS[1], 'status', 'requestKey', 'last')
if not h[1] then return {-1} end
if h[1] ~= 'running' then return {0} end
if h[3] ~= 'f' then return {-4} end
${NOW}
local id, retainMs, prefix, maxFinishedBytes = ARGV[1], tonumber(ARGV[2]), ARGV[4], tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'status', 'finished')
redis.call('ZREM', KEYS[3], ARGV[1])
for _, key in ipairs({KEYS[1], KEYS[2], ARGV[4] .. 'req:' .. h[2]}) do redis.call('PEXPIRE', key, ARGV[2]) end
${KEEP_FINISHED}
redis.call('PUBLISH', ARGV[3], 'f')
return {1}`,

  // KEYS: run. ARGV: channel, then the record fields to return. Returns the record as it was.
  cancel: `local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
local before = redis.call('HMGET', KEYS[1], unpack(fields))
if before[3] == 'running' then
  redis.call('HSET', KEYS[1], 'cancel', 1)
  redis.call('PUBLISH', ARGV[1], 'c')
end
return before`,

  // KEYS: run, running. ARGV: id, leaseMs, owner ('' for any). Returns {1} to cancel (or the run is gone or another owns it), {0} to go on.
  renewLease: `local h = redis.call('HMGET', KEYS[1], 'status', 'cancel', 'owner')
if not h[1] then return {1} end
if ARGV[3] ~= '' and h[3] ~= ARGV[3] then return {1} end
if h[1] == 'running' then
  ${NOW}
  local lease = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'lease', lease)
  redis.call('ZADD', KEYS[2], 'XX', lease, ARGV[1])
end
return {tonumber(h[2])}`,

  // KEYS: run, events, running. ARGV: id, retainMs, channel, prefix, maxFinishedBytes, then the terminal events' JSON.
  // Ends the run as lost if it is still going and its lease lapsed.
  // A run whose chat-finish is stored (only its finish was lost) is finished as it is: one ending, not lost.
  reap: `${NOW}
local h = redis.call('HMGET', KEYS[1], 'status', 'lease', 'requestKey', 'last')
if h[1] ~= 'running' or tonumber(h[2]) >= now then return {0} end
for i = 6, (h[4] == 'f' and 5 or #ARGV) do
  local n = redis.call('RPUSH', KEYS[2], ARGV[i])
  redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[i]))
  redis.call('PUBLISH', ARGV[3], (n - 1) .. ' ' .. ARGV[i])
end
redis.call('HSET', KEYS[1], 'status', 'finished', 'count', redis.call('LLEN', KEYS[2]))
redis.call('ZREM', KEYS[3], ARGV[1])
for _, key in ipairs({KEYS[1], KEYS[2], ARGV[4] .. 'req:' .. h[3]}) do redis.call('PEXPIRE', key, ARGV[2]) end
local id, retainMs, prefix, maxFinishedBytes = ARGV[1], tonumber(ARGV[2]), ARGV[4], tonumber(ARGV[5])
${KEEP_FINISHED}
redis.call('PUBLISH', ARGV[3], 'f')
return {1}`,

  // KEYS: run, events, running. ARGV: id, owner, leaseMs, channel, ttlMs.
  // Takes a going run whose lease lapsed (or was released) for a new owner, in one step (one instance wins):
  // returns {1, reason, event JSON...}, or {0} when it is not to be taken (owner alive, ended, chat-finish stored).
  // The run's keys get a going run's time to live again (the new owner may run it for maxRunMs).
  claim: `${NOW}
local h = redis.call('HMGET', KEYS[1], 'status', 'lease', 'last', 'handover')
if h[1] ~= 'running' or tonumber(h[2]) >= now or h[3] == 'f' then return {0} end
local lease = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'lease', lease, 'handover', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[3], 'XX', lease, ARGV[1])
local out = {1, h[4] == '1' and 'handover' or 'takeover'}
for _, json in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do out[#out + 1] = json end
return out`,

  // KEYS: run, running. ARGV: id, owner, channel. The owner hands the run over: its lease ends now, readers are woken ('h').
  release: `local h = redis.call('HMGET', KEYS[1], 'status', 'owner')
if h[1] ~= 'running' or h[2] ~= ARGV[2] then return {0} end
redis.call('HSET', KEYS[1], 'lease', 0, 'handover', 1)
redis.call('ZADD', KEYS[2], 'XX', 0, ARGV[1])
redis.call('PUBLISH', ARGV[3], 'h')
return {1}`,

  // KEYS: value. ARGV: the value it must still hold. Compare and delete, in one step.
  deleteValue: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
} as const;
