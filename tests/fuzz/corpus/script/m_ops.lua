local n = ng.perlin{}
local weird = setmetatable({}, {__add = function(a, b) return ng.y() end, __unm = function() return n end})
local ok = pcall(function() return n + weird end)
local y = weird + n
local z = tostring(n) .. type(n)
local cmp = pcall(function() return n < n end)
return y + -weird + (n == n and 1 or 0) + #z
