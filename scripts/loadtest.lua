-- wrk script for scripts/loadtest.sh. Environment:
--   MODE   locate | samples | trivial
--   WALK   path of a scan log (JSON Lines) whose lines become request bodies
--   PER    samples per body: consecutive lines of the walk (5 for a stateless locate; 1 for tracked
--          samples, which is what a phone posts each second)
--   VENUE  venue id
local mode = os.getenv("MODE") or "locate"
local venue = os.getenv("VENUE") or "demo-hall"
local bodies = {}
local counter = 0

function init(args)
  local lines = {}
  for line in io.lines(os.getenv("WALK")) do
    if #line > 0 then
      -- What an app sends: the walk's samples without their ground truth.
      line = line:gsub(',"floor":[%-%d]+', ''):gsub(',"spot":"[^"]*"', '')
                 :gsub(',"x":[%-%d%.eE+]+', ''):gsub(',"y":[%-%d%.eE+]+', '')
      -- Tracked phones post at the server's clock (no t), so each phone's track moves on in time as a
      -- real one does: zone decisions, the trace's thinning and the visitor history see time pass.
      if mode == "samples" then line = line:gsub(',"t":[%-%d%.eE+]+', '') end
      table.insert(lines, line)
    end
  end
  local per = tonumber(os.getenv("PER") or "5")
  for i = 1, #lines - per + 1, per do
    table.insert(bodies, '{"samples": [' .. table.concat(lines, ",", i, i + per - 1) .. ']}')
  end
  counter = math.random(1, 100000)
end

function request()
  counter = counter + 1
  if mode == "trivial" then
    return wrk.format("GET", "/healthz")
  end
  local body = bodies[(counter % #bodies) + 1]
  local headers = { ["Content-Type"] = "application/json" }
  if mode == "samples" then
    -- 1,000 distinct phones, each posting its latest samples
    local path = string.format("/v1/venues/%s/devices/phone-%d/samples", venue, counter % 1000)
    return wrk.format("POST", path, headers, body)
  end
  return wrk.format("POST", "/v1/venues/" .. venue .. "/locate", headers, body)
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local failures = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT %s %.0f %.3f %.3f %d\n", mode, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, failures))
end
