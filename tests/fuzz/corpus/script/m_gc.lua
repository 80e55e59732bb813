local keep = {}
for i = 1, 200 do
  keep[#keep + 1] = setmetatable({}, {__gc = function() pcall(ng.perlin, {}) end})
  ng.constant(i)
end
keep = nil
collectgarbage()
collectgarbage("step", 10)
collectgarbage("incremental")
collectgarbage("generational")
local t <close> = setmetatable({}, {__close = function() ng.x() end})
return ng.x() + collectgarbage("count") * 0
