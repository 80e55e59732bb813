local ok, msg = xpcall(function() ng.perlin{bad = 1} end, function(m) return "handled: " .. tostring(m) end)
local ok2 = xpcall(error, debug and debug.traceback or print, "x")
return ng.constant(ok and 1 or 0)
