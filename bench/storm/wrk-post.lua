-- wrk script of bench/storm.mjs: every request POSTs distinct alerts (a counter in the title or
-- alertname), so that each one is a new alert for the system under test.
--   wrk ... -s bench/storm/wrk-post.lua <url> -- <shape> <alerts per post> <tag>
-- shape: "flat"   one Tocsin/PRODUCT.md flat alert (~150 bytes), the body of a single-alert post;
--        "am"     a JSON array of Alertmanager v2 API alerts (POST /api/v2/alerts);
--        "hook"   an Alertmanager webhook payload (version 4) carrying the alerts (Tocsin's
--                 Prometheus endpoint, and the baseline in the batch rows).
-- At the end one line "STORM {json}" carries the figures (latency in microseconds).

local shape, size, tag
local counter = 0
local stamp = os.date("!%Y-%m-%dT%H:%M:%SZ")

function init(args)
  shape = args[1] or "flat"
  size = tonumber(args[2] or "1")
  tag = args[3] or "storm"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

local function flat(n)
  return '{"title":"storm ' .. tag .. '-' .. n .. '","description":"CPU above 90% on the web tier",'
    .. '"severity":"high","service":"web","monitoring_tool":"storm"}'
end

local function labels(n)
  return '{"alertname":"Storm' .. tag .. '-' .. n .. '","instance":"web-1:9100","severity":"critical"}'
end

local function amAlert(n)
  return '{"labels":' .. labels(n) .. ',"annotations":{"summary":"CPU above 90% on the web tier"},'
    .. '"startsAt":"' .. stamp .. '","generatorURL":"http://prometheus.local/graph"}'
end

local function hookAlert(n)
  return '{"status":"firing","labels":' .. labels(n) .. ',"annotations":{"summary":"CPU above 90% on the web tier"},'
    .. '"startsAt":"' .. stamp .. '","endsAt":"0001-01-01T00:00:00Z","generatorURL":"http://prometheus.local/graph",'
    .. '"fingerprint":"' .. tag .. 'x' .. n .. '"}'
end

function request()
  local body
  if shape == "flat" then
    counter = counter + 1
    body = flat(counter)
  else
    local make = shape == "am" and amAlert or hookAlert
    local parts = {}
    for i = 1, size do
      counter = counter + 1
      parts[i] = make(counter)
    end
    local list = table.concat(parts, ",")
    if shape == "am" then
      body = "[" .. list .. "]"
    else
      body = '{"version":"4","groupKey":"{}:{}","truncatedAlerts":0,"status":"firing","receiver":"tocsin",'
        .. '"groupLabels":{},"commonLabels":{"severity":"critical"},"commonAnnotations":{},'
        .. '"externalURL":"http://alertmanager.local","alerts":[' .. list .. ']}'
    end
  end
  return wrk.format(nil, nil, nil, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'STORM {"requests":%d,"us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,'
      .. '"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%d}\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
