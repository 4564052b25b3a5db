import { createHash } from 'node:crypto';

/**
 * Lua scripts of the Redis driver: each runs atomically on the server, so a put and its trim, an index read
 * and a clear never interleave with another process's writes.
 *
 * Keys: `<prefix>index` (sorted set of ids scored by `started_at`; equal scores order by id, so ZREVRANGE
 * is newest first by started_at then id), `<prefix>row:<id>` (the index row JSON) and
 * `<prefix>capture:<id>` (the capture JSON). Every key expires after `ttl`; the set's expiry is renewed by
 * each put. Row and capture keys are derived inside the scripts, so the driver targets a single Redis
 * (not a cluster).
 */
export interface RedisScript {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * KEYS: index, row key, capture key. ARGV: id, score, row JSON, capture JSON, ttl, limit, row prefix, capture
 * prefix, and the put's deadline in the server's clock (ms; 0: none). Past its deadline the put writes nothing
 * and returns -1: a Redis that stopped answering (paused, swapping) runs the writes it had read when it resumes,
 * after the writer counted them lost; refused, they stay lost, so the count is true.
 */
export const PUT_SCRIPT = script(`
local deadline = tonumber(ARGV[9] or '0')
if deadline > 0 then
  if redis.replicate_commands then redis.replicate_commands() end
  local now = redis.call('TIME')
  if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > deadline then return -1 end
end
local ttl = tonumber(ARGV[5])
redis.call('SET', KEYS[3], ARGV[4], 'EX', ttl)
redis.call('SET', KEYS[2], ARGV[3], 'EX', ttl)
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[6])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[1], 0, extra - 1)
  for _, id in ipairs(old) do
    redis.call('DEL', ARGV[7] .. id, ARGV[8] .. id)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1)
  return extra
end
return 0
`);

/** KEYS: index. ARGV: row prefix. Returns row JSON strings newest first; ids whose row expired leave the set. */
export const INDEX_SCRIPT = script(`
local ids = redis.call('ZREVRANGE', KEYS[1], 0, -1)
local out = {}
for _, id in ipairs(ids) do
  local row = redis.call('GET', ARGV[1] .. id)
  if row then
    out[#out + 1] = row
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
`);

/** KEYS: index. ARGV: row prefix, capture prefix. */
export const CLEAR_SCRIPT = script(`
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[1] .. id, ARGV[2] .. id)
end
redis.call('DEL', KEYS[1])
return #ids
`);
