-- wrk script of scripts/soak.sh: stateless locates and tracked samples, alternately, of DEVICES distinct
-- devices (the device id changes with every request and cycles through all of them). Environment:
--   WALK     scan log (JSON Lines) of the venue; every 5 consecutive lines make one request body
--   VENUE    venue id
--   DEVICES  distinct device ids (default 5000)
--   RATE     requests per second for the whole run, all threads together; 0 or unset: as fast as possible
--   THREADS  wrk's -t, to split RATE between the threads
--
-- Throttling (Debian's wrk has no wrk2-style --rate): each thread keeps a schedule, one request every
-- THREADS/RATE seconds, on a monotonic clock (clock_gettime through LuaJIT's ffi), and delay() holds each
-- connection's next request until its slot comes. A thread that falls behind (slow answers) sends at
-- once until it has caught up, as long as it has connections free. Latency is measured by wrk from the
-- moment a request is sent, not from its slot.
--
-- done() prints one line: RESULT requests req/s p50_ms p99_ms max_ms s2xx s422 s4xx_other s5xx connect read
-- write timeout.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } soak_timespec;
int clock_gettime(int clk_id, soak_timespec *tp);
]]
local timespec = ffi.new("soak_timespec")
local function clock(id) -- 0 realtime, 1 monotonic; seconds
  ffi.C.clock_gettime(id, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) / 1e9
end

local venue = os.getenv("VENUE") or "demo-hall"
local devices = tonumber(os.getenv("DEVICES") or "5000")
local rate = tonumber(os.getenv("RATE") or "0")
local threads_count = tonumber(os.getenv("THREADS") or "1")

local threads = {}
local thread_index = 0
function setup(thread)
  thread:set("index", thread_index)
  thread_index = thread_index + 1
  table.insert(threads, thread)
end

-- Per thread (each has its own Lua state): bodies, counters, the schedule.
local located_bodies, tracked_parts = {}, {}
local counter = 0
local interval, next_slot = 0, nil
s2xx, s422, s4xx, s5xx = 0, 0, 0, 0

function init(args)
  local lines = {}
  for line in io.lines(os.getenv("WALK")) do
    if #line > 0 then
      -- What an app sends: the walk's samples without their ground truth, and for the tracked route
      -- without their recorded time, which is replaced by the current time (see request()).
      line = line:gsub(',"floor":[%-%d]+', ''):gsub(',"spot":"[^"]*"', '')
                 :gsub(',"x":[%-%d%.eE+]+', ''):gsub(',"y":[%-%d%.eE+]+', '')
      table.insert(lines, line)
    end
  end
  for i = 1, #lines - 4, 5 do
    table.insert(located_bodies, '{"samples": [' .. table.concat(lines, ",", i, i + 4) .. ']}')
    local parts = {}
    for j = i, i + 4 do
      -- "t":NUMBER becomes a %s hole filled at request time
      table.insert(parts, (lines[j]:gsub('"t":[%d%.eE+]+', '"t":%%s')))
    end
    table.insert(tracked_parts, parts)
  end
  counter = index * 7919
  if rate > 0 then interval = threads_count / rate end
end

function delay()
  if interval == 0 then return 0 end
  local now = clock(1)
  if next_slot == nil then next_slot = now end
  next_slot = next_slot + interval
  local wait = next_slot - now
  if wait <= 0 then return 0 end
  return math.floor(wait * 1000)
end

function request()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json" }
  local n = math.floor(counter / 2)
  local device = string.format("soak-%d", (n * 7 + index * 2500) % devices)
  if counter % 2 == 0 then
    local body = located_bodies[(n % #located_bodies) + 1]
    return wrk.format("POST", "/v1/venues/" .. venue .. "/locate", headers, body)
  end
  local parts = tracked_parts[(n % #tracked_parts) + 1]
  local now = clock(0)
  local samples = {}
  for j = 1, 5 do
    -- the five samples of one post, 1 s apart, the last one now
    samples[j] = string.format(parts[j], string.format("%.3f", now - (5 - j)))
  end
  local path = string.format("/v1/venues/%s/devices/%s/samples", venue, device)
  return wrk.format("POST", path, headers, '{"samples": [' .. table.concat(samples, ",") .. ']}')
end

function response(status, headers, body)
  if status >= 200 and status < 300 then s2xx = s2xx + 1
  elseif status == 422 then s422 = s422 + 1
  elseif status >= 500 then s5xx = s5xx + 1
  else s4xx = s4xx + 1 end
end

function done(summary, latency, requests)
  local a, b, c, d = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("s2xx"); b = b + thread:get("s422"); c = c + thread:get("s4xx"); d = d + thread:get("s5xx")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT %d %.1f %.3f %.3f %.3f %d %d %d %d %d %d %d %d\n",
    summary.requests, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, a, b, c, d, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout))
end
