-- wrk script of scripts/cluster.sh: tracked samples of DEVICES distinct devices, one sample a request (what
-- a phone posts each second), the device id cycling with every request, so consecutive requests hash onto
-- different replicas; every LOCATE_EVERY-th request is a stateless locate instead. Environment:
--   WALK     scan log (JSON Lines) of the venue; each line, without its ground truth, is one body
--   VENUE    venue id
--   DEVICES  distinct device ids (default 3000), named PREFIX-0 .. PREFIX-(DEVICES-1)
--   PREFIX   of the device ids, default cp
--   LOCATE_EVERY  every so many requests is a locate (POST /v1/venues/VENUE/locate) instead
-- Time stamps are set to now (realtime clock through LuaJIT's ffi), as in scripts/soak.lua: the walk's
-- recorded times would jump back and forth between requests and restart the tracks.
--
-- done() prints one line: RESULT requests req/s p50_ms p99_ms max_ms s2xx s4xx s5xx connect read write timeout
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } cp_timespec;
int clock_gettime(int clk_id, cp_timespec *tp);
]]
local timespec = ffi.new("cp_timespec")
local function now()
  ffi.C.clock_gettime(0, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) / 1e9
end

local venue = os.getenv("VENUE") or "demo-hall"
local devices = tonumber(os.getenv("DEVICES") or "3000")
local locate_every = tonumber(os.getenv("LOCATE_EVERY") or "4")
local prefix = os.getenv("PREFIX") or "cp"

local threads = {}
local thread_index = 0
function setup(thread)
  thread:set("index", thread_index)
  thread_index = thread_index + 1
  table.insert(threads, thread)
end

local parts = {}
local counter = 0
local tracked = 0
s2xx, s4xx, s5xx = 0, 0, 0

function init(args)
  for line in io.lines(os.getenv("WALK")) do
    if #line > 0 then
      line = line:gsub(',"floor":[%-%d]+', ''):gsub(',"spot":"[^"]*"', '')
                 :gsub(',"x":[%-%d%.eE+]+', ''):gsub(',"y":[%-%d%.eE+]+', '')
      -- "t":NUMBER becomes a %s hole filled at request time
      table.insert(parts, (line:gsub('"t":[%d%.eE+]+', '"t":%%s')))
    end
  end
  counter = index * 7919
  tracked = index * 7919
end

function request()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json" }
  local body = '{"samples": [' .. string.format(parts[(counter % #parts) + 1], string.format("%.3f", now())) .. ']}'
  local path
  if counter % locate_every == 0 then
    path = string.format("/v1/venues/%s/locate", venue)
  else
    -- Its own count: with counter % devices, the devices a multiple of LOCATE_EVERY away would never be tracked.
    tracked = tracked + 1
    path = string.format("/v1/venues/%s/devices/%s-%d/samples", venue, prefix, tracked % devices)
  end
  return wrk.format("POST", path, headers, body)
end

function response(status, headers, body)
  if status >= 200 and status < 300 then s2xx = s2xx + 1
  elseif status >= 500 then s5xx = s5xx + 1
  else s4xx = s4xx + 1 end
end

function done(summary, latency, requests)
  local a, b, c = 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("s2xx"); b = b + thread:get("s4xx"); c = c + thread:get("s5xx")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT %d %.1f %.3f %.3f %.3f %d %d %d %d %d %d %d\n",
    summary.requests, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, a, b, c, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout))
end
