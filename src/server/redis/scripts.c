/* server: the Redis backend's Lua scripts (scripts.h). */
#include "server/redis/scripts.h"

const char srv_redis_publish_script[] =
    "local n = tonumber(ARGV[1])\n"
    "local fresh = {}\n"
    "for i = 0, n - 1 do\n"
    "  local kind, id, name, skel = ARGV[2 + i * 7], ARGV[3 + i * 7],\n"
    "    ARGV[4 + i * 7], ARGV[5 + i * 7]\n"
    "  if kind == 'skeleton' then\n"
    "    fresh[id] = true\n"
    "  else\n"
    "    if not fresh[skel] and\n"
    "       redis.call('HGET', 'animd:a:' .. skel, 'kind') ~= 'skeleton' then\n"
    "      return {'gone', 'skeleton ' .. skel .. ' was deleted'}\n"
    "    end\n"
    "    if name ~= '' then\n"
    "      local other = redis.call('HGET', 'animd:s:' .. kind .. ':' .. "
    "skel,\n"
    "                               name)\n"
    "      if other and other ~= id then\n"
    "        return {'name_conflict', 'the skeleton already has a ' .. kind "
    "..\n"
    "                \" named '\" .. name .. \"' (\" .. other .. ')'}\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "end\n"
    "local created = 0\n"
    "for i = 0, n - 1 do\n"
    "  local kind, id, name, skel, count, duration, text = ARGV[2 + i * 7],\n"
    "    ARGV[3 + i * 7], ARGV[4 + i * 7], ARGV[5 + i * 7], ARGV[6 + i * 7],\n"
    "    ARGV[7 + i * 7], ARGV[8 + i * 7]\n"
    "  local key = 'animd:a:' .. id\n"
    "  if redis.call('EXISTS', key) == 0 then\n"
    "    created = 1\n"
    "    redis.call('HSET', key, 'kind', kind, 'name', name, 'skeleton', "
    "skel,\n"
    "               'count', count, 'duration', duration, 'text', text)\n"
    "    redis.call('ZADD', 'animd:i:' .. kind, 0, id)\n"
    "    if name ~= '' then\n"
    "      local set = 'animd:n:' .. kind .. ':' .. name\n"
    "      redis.call('SADD', set, id)\n"
    "      if redis.call('SCARD', set) > 1 then\n"
    "        redis.call('PUBLISH', 'animd:events', 'name ' .. kind .. ' ' .. "
    "name)\n"
    "      end\n"
    "    end\n"
    "    if kind ~= 'skeleton' then\n"
    "      if name ~= '' then\n"
    "        redis.call('HSET', 'animd:s:' .. kind .. ':' .. skel, name, id)\n"
    "      end\n"
    "      redis.call('SADD', 'animd:d:' .. kind .. ':' .. skel, id)\n"
    "    end\n"
    "  end\n"
    "end\n"
    "return {'ok', created}\n";

/* forget(kind, id, name, skel): removes an asset and its index entries
 * (not its skeleton's sets of clips and meshes when skel is a skeleton
 * being removed with them). */
#define FORGET_FUNCTION                                                        \
  "local function forget(kind, id, name, skel)\n"                              \
  "  if name ~= '' then\n"                                                     \
  "    redis.call('SREM', 'animd:n:' .. kind .. ':' .. name, id)\n"            \
  "  end\n"                                                                    \
  "  if kind ~= 'skeleton' then\n"                                             \
  "    local names = 'animd:s:' .. kind .. ':' .. skel\n"                      \
  "    if name ~= '' and redis.call('HGET', names, name) == id then\n"         \
  "      redis.call('HDEL', names, name)\n"                                    \
  "    end\n"                                                                  \
  "    redis.call('SREM', 'animd:d:' .. kind .. ':' .. skel, id)\n"            \
  "  end\n"                                                                    \
  "  redis.call('ZREM', 'animd:i:' .. kind, id)\n"                             \
  "  redis.call('DEL', 'animd:a:' .. id)\n"                                    \
  "end\n"

const char srv_redis_remove_script[] = FORGET_FUNCTION
    "local kind, id = ARGV[1], ARGV[2]\n"
    "local key = 'animd:a:' .. id\n"
    "if redis.call('HGET', key, 'kind') ~= kind then return {'not_found'} end\n"
    "if kind == 'skeleton' then\n"
    "  local c = redis.call('SCARD', 'animd:d:clip:' .. id)\n"
    "  local m = redis.call('SCARD', 'animd:d:mesh:' .. id)\n"
    "  if c + m > 0 then return {'conflict', c, m} end\n"
    "end\n"
    "local a = redis.call('HMGET', key, 'name', 'skeleton')\n"
    "forget(kind, id, a[1], a[2])\n"
    "redis.call('PUBLISH', 'animd:events', 'drop ' .. kind .. ' ' .. id)\n"
    "return {'ok'}\n";

const char srv_redis_cascade_script[] = FORGET_FUNCTION
    "local id = ARGV[1]\n"
    "local key = 'animd:a:' .. id\n"
    "if redis.call('HGET', key, 'kind') ~= 'skeleton' then\n"
    "  return {'not_found'}\n"
    "end\n"
    "local out = {'ok'}\n"
    "for _, kind in ipairs({'clip', 'mesh'}) do\n"
    "  local set = 'animd:d:' .. kind .. ':' .. id\n"
    "  local ids = redis.call('SMEMBERS', set)\n"
    "  table.sort(ids)\n"
    "  for _, child in ipairs(ids) do\n"
    "    local name = redis.call('HGET', 'animd:a:' .. child, 'name') or ''\n"
    "    forget(kind, child, name, id)\n"
    "  end\n"
    "  redis.call('DEL', set, 'animd:s:' .. kind .. ':' .. id)\n"
    "  out[#out + 1] = ids\n"
    "end\n"
    "forget('skeleton', id, redis.call('HGET', key, 'name'), '')\n"
    "redis.call('PUBLISH', 'animd:events', 'drop skeleton ' .. id)\n"
    "return out\n";

const char srv_redis_list_script[] =
    "local kind, skel, after, limit = ARGV[1], ARGV[2], ARGV[3],\n"
    "  tonumber(ARGV[4])\n"
    "local ids\n"
    "if skel ~= '' then\n"
    "  ids = redis.call('SMEMBERS', 'animd:d:' .. kind .. ':' .. skel)\n"
    "  table.sort(ids)\n"
    "else\n"
    "  local from = after == '' and '-' or '(' .. after\n"
    "  ids = redis.call('ZRANGEBYLEX', 'animd:i:' .. kind, from, '+', "
    "'LIMIT', 0,\n"
    "                   limit)\n"
    "end\n"
    "local out = {}\n"
    "for _, id in ipairs(ids) do\n"
    "  local a = redis.call('HMGET', 'animd:a:' .. id, 'name', 'skeleton',\n"
    "                       'count', 'duration')\n"
    "  if a[1] then\n"
    "    out[#out + 1] = id\n"
    "    out[#out + 1] = a[1]\n"
    "    out[#out + 1] = a[2] or ''\n"
    "    out[#out + 1] = a[3] or '0'\n"
    "    out[#out + 1] = a[4] or '0'\n"
    "  end\n"
    "end\n"
    "return {#ids, out, ids[#ids] or ''}\n";

const char srv_redis_lookup_script[] =
    "local kind, q, skel = ARGV[1], ARGV[2], ARGV[3]\n"
    "local id = false\n"
    "if string.len(q) == 64 and\n"
    "   redis.call('HGET', 'animd:a:' .. q, 'kind') == kind then id = q end\n"
    "if id and skel ~= '' and kind ~= 'skeleton' and\n"
    "   redis.call('HGET', 'animd:a:' .. id, 'skeleton') ~= skel then\n"
    "  id = false\n"
    "end\n"
    "if not id then\n"
    "  if kind ~= 'skeleton' and skel ~= '' then\n"
    "    id = redis.call('HGET', 'animd:s:' .. kind .. ':' .. skel, q)\n"
    "  else\n"
    "    local ids = redis.call('SMEMBERS', 'animd:n:' .. kind .. ':' .. q)\n"
    "    if #ids == 1 then id = ids[1] end\n"
    "  end\n"
    "end\n"
    "if not id then return {'not_found'} end\n"
    "local a = redis.call('HMGET', 'animd:a:' .. id, 'text', 'skeleton')\n"
    "if not a[1] then return {'not_found'} end\n"
    "if kind == 'skeleton' then return {'ok', id, a[1]} end\n"
    "local st = redis.call('HGET', 'animd:a:' .. a[2], 'text')\n"
    "if not st then return {'not_found'} end\n"
    "return {'ok', id, a[1], a[2], st}\n";
